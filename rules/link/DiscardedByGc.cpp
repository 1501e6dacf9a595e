//===- DiscardedByGc.cpp - AOTI203 ----------------------------------------===//
//
// --gc-sections keeps only sections reachable from the roots: the entry
// point, -u names and exported names. A shim nothing calls, in an executable
// that exports nothing, is linked in and then thrown away.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &DiscardedByGc::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "--gc-sections removes a required symbol the link "
                          "pulled in"};
  return I;
}

void DiscardedByGc::check(const LinkFacts &F,
                              std::vector<Finding> &Out) const {
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::Discarded)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.objectName(F.Result, Q.Object);
    if (fixtext::isMachO(F)) {
      Fd.Message = formatv("{0} from {1} is linked, then removed by "
                           "-dead_strip: nothing live refers to it, and a "
                           "main executable's globals are not dead-strip "
                           "roots without -export_dynamic",
                           fixtext::quote(Q.Name), Fd.File)
                       .str();
      Fd.Fix = fixtext::exportDynamic(F);
      Out.push_back(std::move(Fd));
      continue;
    }
    Fd.Message = formatv("{0} from {1} is linked, then removed by "
                         "--gc-sections: nothing live refers to it and it is "
                         "not exported",
                         fixtext::quote(Q.Name), Fd.File)
                     .str();
    Fd.Fix = fixtext::exportDynamic(F) +
             " (exported names are roots, so --gc-sections keeps them)";
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
