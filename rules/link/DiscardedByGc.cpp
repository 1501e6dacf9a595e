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
  const fixtext::Vocabulary &V = fixtext::vocabularyFor(F);
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::Discarded)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.objectName(F.Result, Q.Object);
    Fd.Message = fixtext::phrase(V.DiscardedMessage, fixtext::quote(Q.Name),
                                 Fd.File);
    Fd.Fix = fixtext::exportDynamic(F) + V.DiscardedFixNote.str();
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
