//===- MissingCause.h - Which reason a missing symbol is reported for -----===//
//
// The facts (audit/Check.h) list every definition of a missing name that the
// loader could not use, each with its reason. Which of them explains the
// failure is a judgement, and the rules make it: the most specific reason,
// in the order of Rules.def's AOTI_MISSING_CAUSE rows, decides the rule that
// fires and what `check --format json` reports as "reason" and "evidence".
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_MISSINGCAUSE_H
#define AOTI_RULES_MISSINGCAUSE_H

#include "aoti/audit/Check.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace aoti::rules {

struct MissingCause {
  audit::MissingReason Reason = audit::MissingReason::NotDefined;
  llvm::StringRef Name; // "not-exported": the JSON "reason"
  /// The definitions that fail for this reason, in the order found (none
  /// for UnimplementedFallback and NotDefined).
  std::vector<const audit::DefinitionSite *> Evidence;
};

/// The cause reported for a symbol whose status is Missing.
MissingCause missingCause(const audit::SymbolFacts &S);

} // namespace aoti::rules

#endif
