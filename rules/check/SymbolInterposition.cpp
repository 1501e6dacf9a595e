//===- SymbolInterposition.cpp - AOTI011 ----------------------------------===//
//
// With --all, a name outside the required prefixes that several objects in
// scope define: the first interposes the rest. Often intended (malloc
// replacements); worth a look when it is not.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &SymbolInterposition::info() const {
  static const RuleInfo I{Id, Name, Severity::Warning,
                          "several objects in scope define the symbol; the "
                          "first one interposes the others"};
  return I;
}

void SymbolInterposition::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  for (const PluginFacts &P : F.Plugins)
    for (const SymbolFacts &S : P.Symbols) {
      if (S.Status != SymbolStatus::Bound || S.Providers.size() < 2)
        continue;
      // Weak definitions exist to be interposed (libstdc++'s operator new,
      // libc's stubs); only strong ones that override each other count.
      unsigned Strong = 0;
      for (const Binding &B : S.Providers)
        Strong += !B.Def->isWeak();
      if (Strong < 2)
        continue;
      // Data the executable defines and a library defines too is a copy
      // relocation: the executable's copy is the one every object uses, by
      // design.
      const LoadedObject &First = F.Process->object(S.Providers[0].Object);
      if (First.Bin->kind() == FileKind::Executable &&
          S.Providers[0].Def->Type == SymbolType::Object)
        continue;
      Finding Fd = make();
      Fd.Plugin = P.Path;
      Fd.Symbol = S.Ref->Name.str();
      Fd.File = F.Process->object(S.Providers[0].Object).Path;
      Fd.Message = formatv("{0} is defined by {1} objects in scope: {2}",
                           fixtext::quote(S.Ref->Name), S.Providers.size(),
                           providerList(F, S))
                       .str();
      Fd.Fix = "if the override is not intended, remove the extra definition "
               "or give it hidden visibility";
      Out.push_back(std::move(Fd));
    }
}

} // namespace aoti::rules::check
