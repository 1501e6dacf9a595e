//===- UndefinedSymbol.cpp - AOTI001 --------------------------------------===//
//
// A reference that nothing the audit was shown defines: not the host, not its
// libraries (exported or not), not an archive given with --archive.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules {

const RuleInfo &UndefinedSymbol::info() const {
  static const RuleInfo I{"AOTI001", "undefined-symbol", Severity::Error,
                          "a plugin's reference is defined nowhere the host "
                          "can see, exported or not"};
  return I;
}

void UndefinedSymbol::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  std::string Prefix = fixtext::firstPrefix(F.Options.Prefixes);
  forEachMissing(F, MissingReason::NotDefined,
                 [&](const PluginFacts &P, const SymbolFacts &S) {
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = F.host().Path;
    Fd.Message = formatv("{0} is not defined by {1}, its libraries{2}",
                         fixtext::quote(S.Ref->Name),
                         fixtext::quote(fixtext::base(F.host().Path)),
                         F.Archives.empty() ? "" : ", or the archives given")
                     .str();
    if (S.Required)
      Fd.Fix = formatv("link an implementation of {0}* into {1} (the "
                       "project's aoti::shims, force-linked), or pass the "
                       "archive the host links with --archive to see which "
                       "member is missing",
                       Prefix, fixtext::quote(fixtext::base(F.host().Path)))
                   .str();
    else
      Fd.Fix = "link the library that defines it into the host, or give the "
               "plugin a DT_NEEDED on it";
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules
