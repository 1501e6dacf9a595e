//===- HiddenDefinition.cpp - AOTI004 -------------------------------------===//
//
// The definition exists in a loaded object but never reached its dynamic
// symbol table: hidden or internal visibility, or made local by a version
// script (or --exclude-libs, or `static`).
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &HiddenDefinition::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the symbol is defined with hidden visibility or "
                          "made local, so the loader cannot bind to it"};
  return I;
}

static void report(const CheckFacts &F, MissingReason R, const Rule &Self,
                   Finding Proto, std::vector<Finding> &Out) {
  std::string Prefix = fixtext::firstPrefix(F.Options.Prefixes);
  forEachMissing(F, R, [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    const DefinitionSite &Site = *C.Evidence.front();
    Finding Fd = Proto;
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = Site.File;
    std::string Glob = S.Required ? Prefix + "*" : S.Ref->Name.str();
    const Binary *Owner =
        Site.Object >= 0 ? F.Process->object(Site.Object).Bin.get() : nullptr;
    if (Owner && fixtext::isMachO(*Owner)) {
      // Mach-O: a linked image keeps a private external (N_PEXT) for both
      // causes; say both, and how to export it from this kind of image.
      std::string MGlob =
          fixtext::symbolGlob(*Owner, S.Required ? StringRef(Prefix) : S.Ref->Name);
      std::string Export =
          Owner->kind() == FileKind::Executable
              ? fixtext::exportDynamic(*Owner, S.Required ? StringRef(Prefix)
                                                          : S.Ref->Name)
              : fixtext::appleExportFromLibrary(*Owner, MGlob);
      StringRef File = fixtext::base(Site.File);
      if (R == MissingReason::Hidden) {
        Fd.Message = formatv("{0} is defined in {1} as a private external "
                             "(N_PEXT), so it is not in the export trie: it "
                             "has hidden visibility, or the link's "
                             "-exported_symbols_list / -unexported_symbol left "
                             "it out",
                             fixtext::quote(S.Ref->Name), fixtext::quote(File))
                         .str();
        Fd.Fix = formatv("give the definition default visibility "
                         "(__attribute__((visibility(\"default\"))), or build "
                         "that file without -fvisibility=hidden), and {0}",
                         Export)
                     .str();
      } else if (Site.Sym->isLocal()) {
        Fd.Message = formatv("{0} is defined in {1} but is not external (a "
                             "`static` definition, or made local by `ld -r` "
                             "with an export list), so it is not exported",
                             fixtext::quote(S.Ref->Name), fixtext::quote(File))
                         .str();
        Fd.Fix = formatv("make the definition external (drop `static`), and {0}",
                         Export)
                     .str();
      } else {
        Fd.Message = formatv("{0} is an external symbol of {1} but is not in "
                             "its export trie: the link's -exported_symbols_list "
                             "or -unexported_symbol left it out",
                             fixtext::quote(S.Ref->Name), fixtext::quote(File))
                         .str();
        Fd.Fix = Export;
      }
      Out.push_back(std::move(Fd));
      return;
    }
    if (R == MissingReason::Hidden) {
      Fd.Message = formatv("{0} is defined in {1} with {2} visibility, so it "
                           "is not exported",
                           fixtext::quote(S.Ref->Name),
                           fixtext::quote(fixtext::base(Site.File)),
                           toString(Site.Sym->Visibility))
                       .str();
      Fd.Fix = "give the definition default visibility: "
               "__attribute__((visibility(\"default\"))) on its declaration "
               "(or build that file without -fvisibility=hidden; CMake: "
               "CXX_VISIBILITY_PRESET)";
    } else {
      Fd.Message = formatv("{0} is defined in {1} but local there (hidden "
                           "visibility, a version script's `local:`, "
                           "--exclude-libs, or `static`), so it is not "
                           "exported",
                           fixtext::quote(S.Ref->Name),
                           fixtext::quote(fixtext::base(Site.File)))
                       .str();
      Fd.Fix = formatv("export it: give it default visibility "
                       "(__attribute__((visibility(\"default\"))), or no "
                       "-fvisibility=hidden), list it under `global:` in the "
                       "version script (`global: {0};`), or drop "
                       "--exclude-libs for the archive that defines it",
                       Glob)
                   .str();
    }
    Out.push_back(std::move(Fd));
  });
}

void HiddenDefinition::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  report(F, MissingReason::Hidden, *this, make(), Out);
  report(F, MissingReason::LocalBinding, *this, make(), Out);
}

} // namespace aoti::rules::check
