//===- SymbolVersionMismatch.cpp - AOTI006 --------------------------------===//
//
// The name is defined in scope, but not with a version the reference accepts:
// the reference asks for V and the definitions carry other versions, or the
// only definition is a hidden (non-default, `@`) version.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &SymbolVersionMismatch::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the symbol is defined, but not with the version "
                          "the reference asks for"};
  return I;
}

void SymbolVersionMismatch::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  for (const PluginFacts &P : F.Plugins)
    for (const SymbolFacts &S : P.Symbols) {
      if (S.Status != SymbolStatus::VersionMismatch)
        continue;
      const Binding &B = S.VersionRejected.front();
      const LoadedObject &O = F.Process->object(B.Object);
      std::string Wanted = S.Ref->Version.empty()
                               ? std::string("no particular version")
                               : "version " + fixtext::quote(S.Ref->Version);
      std::string Has =
          B.Def->Version.empty()
              ? std::string("without a version")
              : formatv("as {0}{1}{2}", B.Def->Name,
                        B.Def->VersionHidden ? "@" : "@@", B.Def->Version)
                    .str();
      Finding Fd = make();
      Fd.Plugin = P.Path;
      Fd.Symbol = S.Ref->Name.str();
      Fd.File = O.Path;
      Fd.Message = formatv("{0} wants {1}, but {2} defines it only {3}{4}",
                           fixtext::quote(S.Ref->Name), Wanted,
                           fixtext::quote(fixtext::base(O.Path)), Has,
                           B.Def->VersionHidden
                               ? " (a non-default version, which only an "
                                 "explicit reference may use)"
                               : "")
                       .str();
      Fd.Fix = formatv("build the plugin against the {0} the host ships, or "
                       "ship the host with a {0} that defines the version "
                       "the plugin was linked against",
                       fixtext::base(O.Path))
                   .str();
      Out.push_back(std::move(Fd));
    }
}

} // namespace aoti::rules::check
