//===- MissingCause.cpp ---------------------------------------------------===//
//
// The first AOTI_MISSING_CAUSE row that applies wins: a reason some
// definition fails for, then a fallback the shim library in scope lacks,
// then nothing.
//
//===----------------------------------------------------------------------===//
#include "aoti/rules/MissingCause.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules {

MissingCause missingCause(const SymbolFacts &S) {
  static const struct {
    MissingReason Reason;
    StringRef Name;
  } Causes[] = {
#define AOTI_MISSING_CAUSE(REASON, NAME) {MissingReason::REASON, NAME},
#include "Rules.def"
  };
  for (const auto &C : Causes) {
    MissingCause M{C.Reason, C.Name, {}};
    for (const DefinitionSite &D : S.Evidence)
      if (D.Reason == C.Reason)
        M.Evidence.push_back(&D);
    if (!M.Evidence.empty() ||
        (C.Reason == MissingReason::UnimplementedFallback &&
         S.ShimProvider >= 0) ||
        C.Reason == MissingReason::NotDefined)
      return M;
  }
  return {MissingReason::NotDefined, "not-defined", {}};
}

} // namespace aoti::rules
