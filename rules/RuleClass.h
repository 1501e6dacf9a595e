//===- RuleClass.h - A rule's class, declared from its row ----------------===//
//
// Rules.def lists the rules; each command's header declares their classes
// with this macro, so that a rule's file defines info() and check() and
// nothing else names it. Id and Name are the row's: info() takes them from
// there, and the id and name are written once.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_RULECLASS_H
#define AOTI_RULES_RULECLASS_H

#include "aoti/rules/Rule.h"

#include "llvm/ADT/StringRef.h"

/// class CLASS : KIND##Rule, checking audit::KIND##Facts.
#define AOTI_DECLARE_RULE(KIND, CLASS, ID, NAME)                               \
  class CLASS final : public KIND##Rule {                                      \
  public:                                                                      \
    static constexpr llvm::StringLiteral Id = ID, Name = NAME;                 \
    const RuleInfo &info() const override;                                     \
    void check(const audit::KIND##Facts &Facts,                                \
               std::vector<Finding> &Out) const override;                      \
  };

#endif
