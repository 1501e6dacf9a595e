//===- LinkRules.h - The rules of `aoti-audit link` -----------------------===//
#ifndef AOTI_RULES_LINK_LINKRULES_H
#define AOTI_RULES_LINK_LINKRULES_H

#include "LinkFixText.h"
#include "aoti/audit/link/Model.h"
#include "aoti/rules/Rule.h"

namespace aoti::rules::link {

#define AOTI_LINK_RULE(Class)                                                  \
  class Class final : public LinkRule {                                        \
  public:                                                                      \
    const RuleInfo &info() const override;                                     \
    void check(const audit::LinkFacts &Facts,                                  \
               std::vector<Finding> &Out) const override;                      \
  };

AOTI_LINK_RULE(MemberNotPulledIn)         // AOTI201
AOTI_LINK_RULE(NotExported)               // AOTI202
AOTI_LINK_RULE(DiscardedByGc)             // AOTI203
AOTI_LINK_RULE(MadeLocal)                 // AOTI204
AOTI_LINK_RULE(NotDefined)                // AOTI205
AOTI_LINK_RULE(MultipleDefinition)        // AOTI206
AOTI_LINK_RULE(WholeArchiveDuplicate)     // AOTI207
AOTI_LINK_RULE(UndefinedReference)        // AOTI208
AOTI_LINK_RULE(LldOnly)                   // AOTI209
AOTI_LINK_RULE(InputProblem)              // AOTI210
AOTI_LINK_RULE(DroppedAsNeeded)           // AOTI211

#undef AOTI_LINK_RULE

} // namespace aoti::rules::link

#endif
