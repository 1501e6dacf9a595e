//===- LinkRules.h - The rules of `aoti-audit link` -----------------------===//
#ifndef AOTI_RULES_LINK_LINKRULES_H
#define AOTI_RULES_LINK_LINKRULES_H

#include "FixText.h"
#include "RuleClass.h"
#include "aoti/audit/link/Model.h"

namespace aoti::rules::link {

#define AOTI_LINK_RULE(CLASS, ID, NAME)                                       \
  AOTI_DECLARE_RULE(Link, CLASS, ID, NAME)
#include "Rules.def"

} // namespace aoti::rules::link

#endif
