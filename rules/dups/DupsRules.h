//===- DupsRules.h - The rules of `aoti-audit dups` -----------------------===//
//
// One rule per kind of duplicate (audit/Dups.h decides the kind); each turns
// a duplicate into one finding whose File is its first definition. A name
// LibTorch defines next to another input is AOTI105's, whatever its kind.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_DUPS_DUPSRULES_H
#define AOTI_RULES_DUPS_DUPSRULES_H

#include "FixText.h"
#include "RuleClass.h"
#include "aoti/audit/dups/Dups.h"

#include <optional>
#include <string>

namespace aoti::rules::dups {

#define AOTI_DUPS_RULE(CLASS, ID, NAME)                                       \
  AOTI_DECLARE_RULE(Dups, CLASS, ID, NAME)
#include "Rules.def"

} // namespace aoti::rules::dups

#endif
