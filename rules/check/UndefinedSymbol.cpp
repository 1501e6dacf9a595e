//===- UndefinedSymbol.cpp - AOTI001 --------------------------------------===//
//
// A reference that nothing the audit was shown defines: not the host, not its
// libraries (exported or not), not an archive given with --archive. The fix
// says what defines the name: the shims for a required one, SLEEF for its
// vector math (a SIMD CPU model's Sleef_*), else whichever library does.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &UndefinedSymbol::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "a plugin's reference is defined nowhere the host "
                          "can see, exported or not"};
  return I;
}

void UndefinedSymbol::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  std::string Prefix = fixtext::firstPrefix(F.Options.Prefixes);
  forEachMissing(F, MissingReason::NotDefined,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = F.host().Path;
    Fd.Message = formatv("{0} is not defined by {1}, its libraries{2}",
                         fixtext::quote(S.Ref->Name),
                         fixtext::quote(fixtext::base(F.host().Path)),
                         F.Archives.empty() ? "" : ", or the archives given")
                     .str();
    const fixtext::Vocabulary &V = fixtext::vocabularyFor(*F.host().Bin);
    if (S.Required)
      Fd.Fix = fixtext::phrase(V.ImplementRequiredFix, Prefix,
                               fixtext::quote(fixtext::base(F.host().Path)));
    else if (isVectorMath(F.Process->object(P.Object).Bin->formatInfo().cName(
                 S.Ref->Name)))
      Fd.Fix = fixtext::vectorMath();
    else
      Fd.Fix = V.LinkProviderFix.str();
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
