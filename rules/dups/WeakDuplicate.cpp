//===- WeakDuplicate.cpp - AOTI103 ----------------------------------------===//
//
// Weak definitions only. The linker keeps the first one it sees (the loader:
// the first in lookup order), so which body runs depends on link order. For
// C++ this is how every inline function and template instantiation is
// emitted, and harmless while the copies are identical: an ODR violation when
// they are not.
//
//===----------------------------------------------------------------------===//
#include "DupsRules.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dups {

const RuleInfo &WeakDuplicate::info() const {
  static const RuleInfo I{Id, Name, Severity::Note,
                          "several weak definitions of one name: link order "
                          "picks the one that runs"};
  return I;
}

void WeakDuplicate::check(const DupsFacts &Facts,
                          std::vector<Finding> &Out) const {
  for (const Duplicate &D : Facts.Duplicates) {
    if (D.Kind != DuplicateKind::WeakWeak || D.LibTorchClash)
      continue; // AOTI105 speaks for a LibTorch clash
    Finding F = fixtext::start(make(), D);
    F.Message = fixtext::quote(D) + " has " +
                std::to_string(D.Definitions.size()) + " weak definitions: " +
                fixtext::definitions(D) +
                "; the first one the linker sees wins, the others are "
                "dropped (" +
                fixtext::linkState(D) + ")";
    F.Fix = D.isCxx()
                ? "nothing to do when every copy comes from the same inline "
                  "function or template in one header; otherwise keep one "
                  "definition (differing copies are an ODR violation)"
                : "keep one definition, so that link order cannot choose";
    Out.push_back(std::move(F));
  }
}

} // namespace aoti::rules::dups
