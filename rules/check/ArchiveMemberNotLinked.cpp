//===- ArchiveMemberNotLinked.cpp - AOTI003 -------------------------------===//
//
// The definition is in a member of an archive the host links, but a static
// link extracts a member only to satisfy a reference, and nothing in the host
// refers to most shims: the member was left behind.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &ArchiveMemberNotLinked::info() const {
  static const RuleInfo I{Id, Name,
                          Severity::Error,
                          "the symbol is in an archive member the host's "
                          "link did not pull in"};
  return I;
}

void ArchiveMemberNotLinked::check(const CheckFacts &F,
                                   std::vector<Finding> &Out) const {
  std::string Prefix = fixtext::firstPrefix(F.Options.Prefixes);
  const Binary &Host = *F.host().Bin;
  forEachMissing(F, MissingReason::NotLinked,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    const DefinitionSite &Site = *C.Evidence.front();
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = Site.File + "(" + Site.Member + ")";
    Fd.Message =
        formatv("{0} is defined in {1}({2}), which {3}", fixtext::quote(S.Ref->Name),
                fixtext::base(Site.File), Site.Member,
                F.hostStripped()
                    ? "the host may not have linked: the host is stripped, so "
                      "the audit cannot tell; if it was linked, it is not "
                      "exported"
                    : "the host's link did not pull in: nothing it links "
                      "refers to the symbol")
            .str();
    Fd.Fix = fixtext::pullInAndExport(Host, Site.File, Prefix);
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
