//===- OutsideScope.cpp - AOTI005 -----------------------------------------===//
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

namespace aoti::rules {

const RuleInfo &OutsideScope::info() const {
  static const RuleInfo I{"AOTI005", "provider-outside-scope", Severity::Error,
                          "a library exports the symbol but is not in the "
                          "plugin's lookup scope"};
  return I;
}

void OutsideScope::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  forEachMissing(F, MissingReason::OutsideScope,
                 [&](const PluginFacts &P, const SymbolFacts &S) {
    const DefinitionSite &Site = S.Evidence.front();
    StringRef Lib = fixtext::base(Site.File);
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = Site.File;
    Fd.Message = formatv("{0} is exported by {1}, which is neither in the "
                         "host's global scope nor a dependency of the plugin",
                         fixtext::quote(S.Ref->Name), fixtext::quote(Lib))
                     .str();
    Fd.Fix = formatv("link {0} against {1} (a DT_NEEDED puts it in the global "
                     "scope), or dlopen it with RTLD_GLOBAL before the model "
                     "(audit that with --preload {2})",
                     fixtext::quote(fixtext::base(F.host().Path)),
                     fixtext::quote(Lib), Site.File)
                 .str();
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules
