//===- LibTorchShimClash.cpp - AOTI105 ------------------------------------===//
//
// A shim name that LibTorch defines and another input defines too. LibTorch
// implements every aoti_torch_* function over at::Tensor; a LibTorch-free
// shim library implements the same names over its own tensor type. Renaming
// is no fix (LibTorch's names are not ours to change, and the model calls
// them by these names): the two must not meet in one link or one process.
// The same clash as check's AOTI010, seen before anything is linked; the
// rule replaces AOTI101-AOTI104 for such a name.
//
//===----------------------------------------------------------------------===//
#include "DupsRules.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dups {

const RuleInfo &LibTorchShimClash::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "LibTorch and another input both define a shim: "
                          "two tensor ABIs behind one name"};
  return I;
}

void LibTorchShimClash::check(const DupsFacts &Facts,
                              std::vector<Finding> &Out) const {
  for (const Duplicate &D : Facts.Duplicates) {
    if (!D.LibTorchClash)
      continue;
    std::string Torch, Other;
    for (const DuplicateDefinition &DD : D.Definitions) {
      std::string &L = isLibTorchFile(DD.File) ? Torch : Other;
      std::string Name = "`" + DD.displayName() + "`";
      if (L.find(Name) == std::string::npos)
        L += (L.empty() ? "" : ", ") + Name;
    }
    Finding F = fixtext::start(make(), D);
    F.Message =
        fixtext::quote(D) + " is defined by LibTorch (" + Torch +
        ") and by " + Other +
        ". They implement AtenTensorHandle over different tensor types: "
        "a link or a process that holds both binds every caller of the "
        "name to one of them, and the first tensor handle made by the "
        "other crashes it (check reports the same as AOTI010)";
    F.Fix = "do not put the two in one link or one process: a host that "
            "runs LibTorch-free models links the LibTorch-free shims and no "
            "libtorch*/libc10* (CMake: no ${TORCH_LIBRARIES} in its "
            "target_link_libraries), while a model built with "
            "aot_inductor.link_libtorch=True runs under LibTorch's own "
            "runner without these shims; if the two inputs only sit side by "
            "side in this directory and never meet in a link, record them "
            "with --write-baseline";
    Out.push_back(std::move(F));
  }
}

} // namespace aoti::rules::dups
