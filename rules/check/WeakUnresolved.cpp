//===- WeakUnresolved.cpp - AOTI012 ---------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &WeakUnresolved::info() const {
  static const RuleInfo I{Id, Name, Severity::Note,
                          "a weak reference that nothing defines resolves to "
                          "null"};
  return I;
}

void WeakUnresolved::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  for (const PluginFacts &P : F.Plugins)
    for (const SymbolFacts &S : P.Symbols) {
      if (S.Status != SymbolStatus::WeakUnresolved)
        continue;
      Finding Fd = make();
      Fd.Plugin = P.Path;
      Fd.Symbol = S.Ref->Name.str();
      Fd.File = P.Path;
      Fd.Message = formatv("weak reference {0} is defined nowhere in scope: "
                           "it resolves to null",
                           fixtext::quote(S.Ref->Name))
                       .str();
      Fd.Fix = "nothing, if the plugin checks it for null before use; "
               "otherwise provide a definition";
      Out.push_back(std::move(Fd));
    }
}

} // namespace aoti::rules::check
