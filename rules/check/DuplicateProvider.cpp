//===- DuplicateProvider.cpp - AOTI009 ------------------------------------===//
//
// A name under a required prefix has several providers in scope. The loader
// picks the first one silently; the audit requires exactly one, because two
// implementations of the shim ABI in one process disagree about what a
// tensor handle points to. LibTorch as one of them is AOTI010.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &DuplicateProvider::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "a symbol that must be unique has several providers "
                          "in the plugin's scope"};
  return I;
}

std::string providerList(const CheckFacts &F, const SymbolFacts &S) {
  std::string L;
  for (size_t I = 0; I != S.Providers.size(); ++I) {
    if (I)
      L += ", ";
    L += fixtext::quote(fixtext::base(F.Process->object(S.Providers[I].Object).Path));
    if (I == 0)
      L += " (wins)";
  }
  return L;
}

bool hasLibTorchProvider(const CheckFacts &F, const SymbolFacts &S) {
  for (const Binding &B : S.Providers)
    if (F.Process->object(B.Object).isLibTorch())
      return true;
  return false;
}

void DuplicateProvider::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  for (const PluginFacts &P : F.Plugins)
    for (const SymbolFacts &S : P.Symbols) {
      if (S.Status != SymbolStatus::Ambiguous || hasLibTorchProvider(F, S))
        continue;
      const LoadedObject &Loser = F.Process->object(S.Providers[1].Object);
      Finding Fd = make();
      Fd.Plugin = P.Path;
      Fd.Symbol = S.Ref->Name.str();
      Fd.File = Loser.Path;
      Fd.Message = formatv("{0} is defined by {1} objects in scope: {2}",
                           fixtext::quote(S.Ref->Name), S.Providers.size(),
                           providerList(F, S))
                       .str();
      Fd.Fix = formatv("keep one implementation: remove {0} from {1} or stop "
                       "loading it into the host (`aoti-audit dups` finds "
                       "such duplicates before merge)",
                       fixtext::quote(S.Ref->Name),
                       fixtext::quote(fixtext::base(Loser.Path)))
                   .str();
      Out.push_back(std::move(Fd));
    }
}

} // namespace aoti::rules::check
