//===- LibTorchClash.cpp - AOTI010 ----------------------------------------===//
//
// LibTorch defines every aoti_torch_* shim over at::Tensor. A LibTorch-free
// model in a process that also holds another shim implementation binds each
// name to whichever library comes first in scope order, mixing two tensor
// ABIs: the first handle that crosses from one to the other crashes.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &LibTorchClash::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "LibTorch and another library both provide a shim: "
                          "two tensor ABIs in one process"};
  return I;
}

void LibTorchClash::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  for (const PluginFacts &P : F.Plugins)
    for (const SymbolFacts &S : P.Symbols) {
      if (S.Status != SymbolStatus::Ambiguous || !hasLibTorchProvider(F, S))
        continue;
      const LoadedObject &Winner = F.Process->object(S.Providers[0].Object);
      Finding Fd = make();
      Fd.Plugin = P.Path;
      Fd.Symbol = S.Ref->Name.str();
      Fd.File = Winner.Path;
      Fd.Message = formatv("{0} is provided by LibTorch and by another "
                           "library: {1}. They implement AtenTensorHandle "
                           "with different tensor types; the model binds to "
                           "{2} and crashes when a handle of the other kind "
                           "reaches it",
                           fixtext::quote(S.Ref->Name), providerList(F, S),
                           fixtext::quote(fixtext::base(Winner.Path)))
                       .str();
      Fd.Fix = "keep LibTorch out of the process that runs LibTorch-free "
               "models (drop libtorch/libc10 from the host's link and its "
               "dlopen calls), or run a model built with "
               "aot_inductor.link_libtorch=True under LibTorch's own runner";
      Out.push_back(std::move(Fd));
    }
}

} // namespace aoti::rules::check
