//===- SymbolNotExported.cpp - AOTI002 ------------------------------------===//
//
// The host defines the name but its dynamic symbol table does not hold it: an
// executable exports only what a shared library on its link line referenced,
// unless it is linked with --export-dynamic. A Mach-O executable exports its
// globals by default; one missing from the export trie was left out by an
// export list or strip.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &SymbolNotExported::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the host defines the symbol but does not export "
                          "it to plugins"};
  return I;
}

void SymbolNotExported::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  std::string Prefix = fixtext::firstPrefix(F.Options.Prefixes);
  forEachMissing(F, MissingReason::NotExported,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    const DefinitionSite &Site = *C.Evidence.front();
    const Binary &Exe = *F.Process->object(Site.Object).Bin;
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = Site.File;
    Fd.Message = fixtext::phrase(fixtext::vocabularyFor(Exe).NotExportedMessage,
                                 fixtext::quote(S.Ref->Name),
                                 fixtext::quote(fixtext::base(Site.File)));
    Fd.Fix = fixtext::exportDynamic(Exe, S.Required ? StringRef(Prefix)
                                                    : S.Ref->Name);
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
