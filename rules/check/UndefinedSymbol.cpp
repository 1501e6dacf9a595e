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
    const Binary &Host = *F.host().Bin;
    if (fixtext::isMachO(Host)) {
      // ld64 -dead_strip removes a main executable's unreferenced globals
      // unless -export_dynamic keeps them; the name is then gone entirely.
      StringRef H = fixtext::base(F.host().Path);
      if (S.Required)
        Fd.Fix = formatv("link an implementation of {0}* into {1} (the "
                         "project's aoti::shims, with -Wl,-force_load for the "
                         "archive); if {1} does link it, -dead_strip removed "
                         "the unreferenced shims: link with -Wl,-export_dynamic "
                         "to keep them. Pass the archive with --archive to see "
                         "which member is missing",
                         Prefix, fixtext::quote(H))
                     .str();
      else
        Fd.Fix = "link the dylib that defines it into the host, or link the "
                 "plugin against it (an LC_LOAD_DYLIB binds the import to it)";
      Out.push_back(std::move(Fd));
      return;
    }
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

} // namespace aoti::rules::check
