//===- CommonDuplicate.cpp - AOTI104 --------------------------------------===//
//
// A common (tentative) definition -- `int x;` at file scope compiled with
// -fcommon -- next to other definitions of the name. Linkers merge commons
// without a word and let a strong definition take their place; compiled
// with -fno-common, the default since GCC 10 and Clang 11, each one becomes a
// strong definition and the link fails with "multiple definition".
//
//===----------------------------------------------------------------------===//
#include "DupsRules.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dups {

const RuleInfo &CommonDuplicate::info() const {
  static const RuleInfo I{Id, Name, Severity::Warning,
                          "a common (tentative) definition that linkers "
                          "merge with other definitions of the name"};
  return I;
}

void CommonDuplicate::check(const DupsFacts &Facts,
                            std::vector<Finding> &Out) const {
  for (const Duplicate &D : Facts.Duplicates) {
    if (D.Kind != DuplicateKind::Common || D.LibTorchClash)
      continue; // AOTI105 speaks for a LibTorch clash
    Finding F = fixtext::start(make(), D);
    std::string Strong = fixtext::definitions(D, DefinitionStrength::Strong);
    F.Message =
        fixtext::quote(D) + " is a common (tentative) definition in " +
        fixtext::definitions(D, DefinitionStrength::Common) +
        (Strong.empty() ? std::string()
                        : ", and defined by " + Strong + ", which wins") +
        ": linkers merge them silently, and built with -fno-common (the "
        "default since GCC 10 and Clang 11) they are \"multiple definition\" "
        "errors (" +
        fixtext::linkState(D) + ")";
    F.Fix = "define the variable in one source file and declare it `extern` "
            "in the header; build with -fno-common to catch the others";
    Out.push_back(std::move(F));
  }
}

} // namespace aoti::rules::dups
