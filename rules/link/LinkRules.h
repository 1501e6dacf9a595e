//===- LinkRules.h - The rules of `aoti-audit link` -----------------------===//
#ifndef AOTI_RULES_LINK_LINKRULES_H
#define AOTI_RULES_LINK_LINKRULES_H

#include "LinkFixText.h"
#include "aoti/audit/link/Model.h"
#include "aoti/rules/Rule.h"

namespace aoti::rules {

#define AOTI_LINK_RULE(Class)                                                  \
  class Class final : public LinkRule {                                        \
  public:                                                                      \
    const RuleInfo &info() const override;                                     \
    void check(const audit::LinkFacts &Facts,                                  \
               std::vector<Finding> &Out) const override;                      \
  };

AOTI_LINK_RULE(LinkMemberNotPulledIn)     // AOTI201
AOTI_LINK_RULE(LinkNotExported)           // AOTI202
AOTI_LINK_RULE(LinkDiscardedByGc)         // AOTI203
AOTI_LINK_RULE(LinkMadeLocal)             // AOTI204
AOTI_LINK_RULE(LinkNotDefined)            // AOTI205
AOTI_LINK_RULE(LinkMultipleDefinition)    // AOTI206
AOTI_LINK_RULE(LinkWholeArchiveDuplicate) // AOTI207
AOTI_LINK_RULE(LinkUndefinedReference)    // AOTI208
AOTI_LINK_RULE(LinkLldOnlyBackReference)  // AOTI209
AOTI_LINK_RULE(LinkInputProblem)          // AOTI210
AOTI_LINK_RULE(LinkDroppedAsNeeded)       // AOTI211

#undef AOTI_LINK_RULE

} // namespace aoti::rules

#endif
