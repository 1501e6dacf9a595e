//===- ProviderOutsideScope.cpp - AOTI005 ---------------------------------===//
//
// A library exports the name, but the plugin's references are looked up only
// in the host's global scope and the plugin's own dependencies, and the
// library is in neither.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &ProviderOutsideScope::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "a library exports the symbol but is not in the "
                          "plugin's lookup scope"};
  return I;
}

void ProviderOutsideScope::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  forEachMissing(F, MissingReason::OutsideScope,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    const DefinitionSite &Site = *C.Evidence.front();
    StringRef Lib = fixtext::base(Site.File);
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = Site.File;
    // A two-level Mach-O import names its library (LibraryOrdinal; -1 for a
    // format without ordinals, 0xFE for dynamic lookup): another image's
    // export is no use to it.
    int Ord = S.Ref->LibraryOrdinal;
    bool TwoLevel = Ord >= 0 && Ord != 0xFE;
    if (TwoLevel) {
      std::string Named = Ord == 0xFF ? std::string("the main executable")
                          : Ord == 0  ? std::string("the plugin itself")
                                      : fixtext::quote(fixtext::base(S.Ref->SourceLibrary));
      Fd.Message = formatv("{0} is exported by {1}, but the plugin's "
                           "two-level namespace binds it to {2} (library "
                           "ordinal {3}), which does not export it",
                           fixtext::quote(S.Ref->Name), fixtext::quote(Lib),
                           Named, Ord)
                       .str();
      Fd.Fix = formatv("relink the plugin against {0} so that its import "
                       "names it, or link the plugin with -undefined "
                       "dynamic_lookup so that dyld searches every loaded "
                       "image",
                       fixtext::quote(Lib))
                   .str();
      Out.push_back(std::move(Fd));
      return;
    }
    const fixtext::Vocabulary &V =
        fixtext::vocabularyFor(*F.Process->object(P.Object).Bin);
    Fd.Message = fixtext::phrase(V.OutsideScopeMessage,
                                 fixtext::quote(S.Ref->Name),
                                 fixtext::quote(Lib));
    Fd.Fix = fixtext::phrase(V.OutsideScopeFix, fixtext::quote(Lib),
                             fixtext::quote(fixtext::base(F.host().Path)),
                             Site.File);
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
