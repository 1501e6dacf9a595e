//===- DupsRules.h - The rules of `aoti-audit dups` -----------------------===//
//
// One rule per kind of duplicate (audit/Dups.h decides the kind); each turns
// a duplicate into one finding whose File is its first definition. A name
// LibTorch defines next to another input is AOTI105's, whatever its kind.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_DUPS_DUPSRULES_H
#define AOTI_RULES_DUPS_DUPSRULES_H

#include "RuleClass.h"
#include "aoti/audit/dups/Dups.h"

#include <optional>
#include <string>

namespace aoti::rules::dups {

#define AOTI_DUPS_RULE(CLASS, ID, NAME)                                       \
  AOTI_DECLARE_RULE(Dups, CLASS, ID, NAME)
#include "Rules.def"

} // namespace aoti::rules::dups

namespace aoti::rules::dupstext {

/// `name` in backquotes; the demangled name for C++.
std::string quote(const audit::Duplicate &D);

/// "`libfoo.a(bar.o)`, `libbaz.so`" for the definitions of one strength, or
/// all of them when Only is empty.
std::string definitions(const audit::Duplicate &D,
                        std::optional<audit::DefinitionStrength> Only = {});

/// How many definitions of one strength.
unsigned count(const audit::Duplicate &D, audit::DefinitionStrength S);

/// "(latent: ...)" / "(a plain link ... pulls in both)" for non-fatal kinds.
std::string linkState(const audit::Duplicate &D);

/// The finding every rule starts from: symbol and file filled in.
Finding start(Finding F, const audit::Duplicate &D);

} // namespace aoti::rules::dupstext

#endif
