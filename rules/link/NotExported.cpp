//===- NotExported.cpp - AOTI202 ------------------------------------------===//
//
// The output defines a required name but leaves it out of .dynsym, where a
// plugin's reference would look. An executable's dynamic symbol table holds
// only what a shared library on its link line refers to, unless the link
// asks for more (--export-dynamic, --export-dynamic-symbol, --dynamic-list).
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &NotExported::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the output defines a required symbol but does not "
                          "export it"};
  return I;
}

void NotExported::check(const LinkFacts &F,
                            std::vector<Finding> &Out) const {
  bool Static = F.Result.OutputKind == LinkOutputKind::StaticExecutable;
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::NotExported)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.objectName(F.Result, Q.Object);
    Fd.Message =
        formatv("{0} is linked in (from {1}) but not exported: {2}",
                fixtext::quote(Q.Name), Fd.File,
                Static ? "the output is a static executable, with no dynamic "
                         "symbol table"
                       : "an executable's .dynsym holds only what a shared "
                         "library on its link line refers to, unless the "
                         "link exports more")
            .str();
    Fd.Fix = fixtext::exportDynamic(F);
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
