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
    // The image that holds the definition speaks for it; the host for a
    // definition in no loaded image.
    const Binary &Owner = Site.Object >= 0
                              ? *F.Process->object(Site.Object).Bin
                              : *F.host().Bin;
    const fixtext::Vocabulary &V = fixtext::vocabularyFor(Owner);
    StringRef Wanted = S.Required ? StringRef(Prefix) : S.Ref->Name;
    // How to export it from this kind of image, where the platform's fix
    // needs it (Mach-O keeps a private external for every cause).
    std::string Export =
        Owner.kind() == FileKind::Executable
            ? fixtext::exportDynamic(Owner, Wanted)
            : fixtext::exportFromLibrary(Owner,
                                         fixtext::symbolGlob(Owner, Wanted));
    std::string Name = fixtext::quote(S.Ref->Name);
    std::string File = fixtext::quote(fixtext::base(Site.File));
    if (R == MissingReason::Hidden) {
      Fd.Message = fixtext::phrase(V.HiddenMessage, Name, File,
                                   toString(Site.Sym->Visibility));
      Fd.Fix = fixtext::phrase(
          V.HiddenFix, fixtext::defaultVisibility("the definition", false),
          Export);
    } else if (Site.Sym->isLocal()) {
      Fd.Message = fixtext::phrase(V.LocalMessage, Name, File);
      Fd.Fix = fixtext::phrase(V.LocalFix, Glob, Export);
    } else {
      Fd.Message = fixtext::phrase(V.LeftOutMessage, Name, File);
      Fd.Fix = fixtext::phrase(V.LeftOutFix, Glob, Export);
    }
    Out.push_back(std::move(Fd));
  });
}

void HiddenDefinition::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  report(F, MissingReason::Hidden, *this, make(), Out);
  report(F, MissingReason::LocalBinding, *this, make(), Out);
}

} // namespace aoti::rules::check
