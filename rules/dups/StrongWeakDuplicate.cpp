//===- StrongWeakDuplicate.cpp - AOTI102 ----------------------------------===//
//
// One strong definition and weak ones. No tool complains: wherever both are
// linked the strong one wins and the weak ones are dropped. That is what a
// weak default is for, and also how one implementation silently replaces
// another; the rule makes the choice visible (and baselinable).
//
//===----------------------------------------------------------------------===//
#include "DupsRules.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dups {

const RuleInfo &StrongWeakDuplicate::info() const {
  static const RuleInfo I{Id, Name, Severity::Warning,
                          "a strong definition that silently overrides weak "
                          "definitions of the same name"};
  return I;
}

void StrongWeakDuplicate::check(const DupsFacts &Facts,
                                std::vector<Finding> &Out) const {
  for (const Duplicate &D : Facts.Duplicates) {
    if (D.Kind != DuplicateKind::StrongWeak || D.LibTorchClash)
      continue; // AOTI105 speaks for a LibTorch clash
    Finding F = fixtext::start(make(), D);
    F.Message =
        fixtext::quote(D) + " is defined strong in " +
        fixtext::definitions(D, DefinitionStrength::Strong) + " and weak in " +
        fixtext::definitions(D, DefinitionStrength::Weak) +
        ": wherever both are linked the strong one wins without a word (" +
        fixtext::linkState(D) + ")";
    F.Fix = "remove one of them; if the weak one is a deliberate, overridable "
            "default, record it with --write-baseline";
    Out.push_back(std::move(F));
  }
}

} // namespace aoti::rules::dups
