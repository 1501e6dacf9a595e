//===- StrongDuplicate.cpp - AOTI101 --------------------------------------===//
//
// Two strong definitions of one name. Between relocatable files (objects,
// archive members) it is a "multiple definition" link error as soon as one
// link pulls in both -- today (not latent) or the day somebody force-links
// the archives (latent). Between shared libraries nothing fails: the loader
// binds every reference to the first definition in lookup order, so one
// implementation silently replaces the other.
//
//===----------------------------------------------------------------------===//
#include "DupsRules.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dups {

const RuleInfo &StrongDuplicate::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "two or more strong definitions of one name among "
                          "the link inputs"};
  return I;
}

namespace {
std::string consequence(const Duplicate &D) {
  if (!D.Interposition)
    return D.Latent
               ? "latent: no reference among these inputs pulls in two of "
                 "them, so links pass until the archives are force-linked "
                 "(--whole-archive, link_whole, -force_load); that link "
                 "fails with \"multiple definition\""
               : "a plain link of these inputs pulls in two of them and "
                 "fails with \"multiple definition\"";
  return D.Latent
             ? "no link fails, and no plain link of these inputs loads two "
               "of them; a process that loads both binds every reference "
               "to the first one in lookup order and silently ignores the "
               "other (interposition)"
             : "no link fails: a plain link of these inputs loads both, and "
               "the loader binds every reference to the first one in lookup "
               "order and silently ignores the other (interposition)";
}
} // namespace

void StrongDuplicate::check(const DupsFacts &Facts,
                            std::vector<Finding> &Out) const {
  for (const Duplicate &D : Facts.Duplicates) {
    if (D.Kind != DuplicateKind::StrongStrong || D.LibTorchClash)
      continue; // AOTI105 speaks for a LibTorch clash
    Finding F = fixtext::start(make(), D);
    F.Message =
        fixtext::quote(D) + " has " +
        std::to_string(fixtext::count(D, DefinitionStrength::Strong)) +
        " strong definitions: " +
        fixtext::definitions(D, DefinitionStrength::Strong) + "; " +
        consequence(D);
    F.Fix = "keep exactly one definition: delete the other copies or give "
            "them their own names (a variant for another tensor or device "
            "type needs its own name, or a dispatch inside the one "
            "definition); a copy only its own library uses can be `static` "
            "or hidden";
    Out.push_back(std::move(F));
  }
}

} // namespace aoti::rules::dups
