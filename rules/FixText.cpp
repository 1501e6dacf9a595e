//===- FixText.cpp --------------------------------------------------------===//
#include "FixText.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::fixtext {

// --- words, and fixes in terms of a binary (check) -------------------------

std::string quote(StringRef S) { return ("`" + S + "`").str(); }

StringRef base(StringRef Path) { return sys::path::filename(Path); }

std::string firstPrefix(const std::vector<std::string> &Prefixes) {
  return Prefixes.empty() ? std::string() : Prefixes.front();
}

std::string symbolGlob(const audit::Binary &B, StringRef Prefix) {
  if (Prefix.empty())
    return "<name>";
  // The format's C-name prefix ('_' on Mach-O): a symbol name given whole
  // (one name, not a prefix) already carries it; a --prefix is a C name.
  const StringRef CPrefix = B.formatInfo().CNamePrefix;
  if (CPrefix.empty())
    return (Prefix + "*").str();
  if (Prefix.starts_with(CPrefix))
    return Prefix.str();
  return (CPrefix + Prefix + "*").str();
}

std::string exportFromLibrary(const audit::Binary &Lib, StringRef Glob) {
  return formatv(vocabularyFor(Lib).ExportFromLibrary.data(),
                 quote(base(Lib.path())), Glob)
      .str();
}

// --- both commands: one wording per cause -----------------------------------

namespace {

StringRef patternFor(const LinkSite &S, StringRef Driver, StringRef Linker,
                     StringRef CMake) {
  switch (S.How) {
  case LinkSite::Spelling::Driver: return Driver;
  case LinkSite::Spelling::Linker: return Linker;
  case LinkSite::Spelling::CMake: return CMake;
  }
  return Driver;
}

} // namespace

std::string exportDynamic(const LinkSite &S, StringRef Glob) {
  const Vocabulary &V = *S.Words;
  std::string Static = S.StaticOutput
                           ? "link dynamically (drop `-static`: a static "
                             "executable has no dynamic symbol table), then "
                           : "";
  return phrase(patternFor(S, V.ExportDynamicDriver, V.ExportDynamicLinker,
                           V.ExportDynamicCMake),
                Static, quote(S.Image), S.Target, Glob);
}

std::string wholeArchive(const LinkSite &S, const ArchiveToLink &A) {
  const Vocabulary &V = *S.Words;
  std::string Where;
  if (!A.Script.empty())
    Where = formatv(" (it comes from the input script {0})", A.Script).str();
  return phrase(patternFor(S, V.ForceLinkDriver, V.ForceLinkLinker,
                           V.ForceLinkCMake),
                quote(A.Written), A.Path, S.Target, A.Library, Where);
}

std::string pullInAndExport(const LinkSite &S, const ArchiveToLink &A,
                            StringRef Glob, bool Export) {
  std::string Fix = wholeArchive(S, A);
  if (Export)
    Fix += "; then " + exportDynamic(S, Glob);
  return Fix;
}

// --- the same, in terms of a binary (check) ----------------------------------

LinkSite linkSiteOf(const audit::Binary &Image) {
  // check sees only the image: it speaks the compiler driver's flags and
  // takes the image's name for the CMake target.
  std::string Name = base(Image.path()).str();
  return LinkSite{&vocabularyFor(Image), Name, LinkSite::Spelling::Driver,
                  Name, /*StaticOutput=*/false};
}

std::string exportDynamic(const audit::Binary &Host, StringRef Prefix) {
  return exportDynamic(linkSiteOf(Host), symbolGlob(Host, Prefix));
}

namespace {

/// libfoo.a: foo, the name a build system knows the library by.
std::string libraryName(StringRef Archive) {
  StringRef Lib = base(Archive);
  Lib.consume_front("lib");
  Lib.consume_back(".a");
  return Lib.str();
}

ArchiveToLink archiveToLink(StringRef Archive) {
  return ArchiveToLink{Archive.str(), Archive.str(), libraryName(Archive), ""};
}

} // namespace

std::string pullInAndExport(const audit::Binary &Host, StringRef Archive,
                            StringRef Prefix) {
  return pullInAndExport(linkSiteOf(Host), archiveToLink(Archive),
                         symbolGlob(Host, Prefix), /*Export=*/true);
}

// --- fixes in terms of a link line (link) ----------------------------------

std::string written(const LinkFacts &F, int Input) {
  if (Input < 0 || size_t(Input) >= F.Inputs.size())
    return "?";
  const LinkInput &I = F.Inputs[Input];
  return I.AsWritten.empty() ? F.inputName(Input) : I.AsWritten;
}

std::string prefixGlob(const LinkFacts &F) {
  const auto &P = F.Request.Prefixes;
  return P.empty() || P.front().empty() ? std::string("*") : P.front() + "*";
}

namespace {

bool isCMake(const LinkFacts &F) {
  return F.Request.Context.System == LinkBuildContext::Kind::CMake;
}

/// The static library target that builds the archive, or the archive path.
std::string cmakeLibrary(const LinkFacts &F, int Input) {
  const LinkInput &I = F.Inputs[Input];
  auto It = F.Request.Context.ArchiveTargets.find(I.Path);
  if (It != F.Request.Context.ArchiveTargets.end())
    return It->second;
  return I.Path;
}

bool staticOutput(const LinkFacts &F) {
  return F.Result.OutputKind == LinkOutputKind::StaticExecutable;
}

} // namespace

LinkSite linkSiteOf(const LinkFacts &F) {
  LinkSite S{&vocabularyFor(F), base(F.Line.Output).str(),
             LinkSite::Spelling::Linker, base(F.Line.Output).str(),
             staticOutput(F)};
  if (isCMake(F)) {
    S.How = LinkSite::Spelling::CMake;
    S.Target = F.Request.Context.Target;
  } else if (F.Line.isDriver()) {
    S.How = LinkSite::Spelling::Driver;
  }
  return S;
}

namespace {

ArchiveToLink archiveToLink(const LinkFacts &F, int Input) {
  const LinkInput &I = F.Inputs[Input];
  return ArchiveToLink{written(F, Input), F.displayPath(I.Path),
                       isCMake(F) ? cmakeLibrary(F, Input)
                                  : libraryName(I.Path),
                       I.Script.empty() ? std::string()
                                        : F.displayPath(I.Script)};
}

} // namespace

std::string wholeArchive(const LinkFacts &F, int Input) {
  return wholeArchive(linkSiteOf(F), archiveToLink(F, Input));
}

std::string exportDynamic(const LinkFacts &F) {
  return exportDynamic(linkSiteOf(F), prefixGlob(F));
}

std::string pullInAndExport(const LinkFacts &F, int Input) {
  return pullInAndExport(linkSiteOf(F), archiveToLink(F, Input), prefixGlob(F),
                         F.FixExportDynamic || staticOutput(F));
}

std::string linkerSpelling(const LinkFacts &F, StringRef Name) {
  // A C++ name is mangled as a C name: "_Z..." after the C-name prefix.
  StringRef Source = Name;
  StringRef C = vocabularyFor(F).formatInfo().cName(Name);
  if (C.starts_with("_Z"))
    Source = C;
  if (!Source.starts_with("_Z"))
    return Name.str(); // C names are printed as they are, '_' included
  std::string D = llvm::demangle(std::string_view(Source.data(), Source.size()));
  return D == Source ? Name.str() : D;
}

std::string linkerName(const LinkFacts &F) {
  switch (F.Line.Flavor) {
  case LinkFlavor::GNU: return "GNU ld";
  case LinkFlavor::LLD: return "ld.lld";
  case LinkFlavor::LD64: return "ld64";
  }
  return "the linker";
}

// --- duplicates (dups) ------------------------------------------------------

std::string quote(const Duplicate &D) {
  return quote(D.displayName());
}

std::string definitions(const Duplicate &D,
                        std::optional<DefinitionStrength> Only) {
  // The finding lists every definition anyway; a message names a few.
  constexpr unsigned Named = 4;
  std::string L;
  unsigned N = 0;
  for (const DuplicateDefinition &DD : D.Definitions) {
    if (Only && DD.Strength != *Only)
      continue;
    if (N++ >= Named)
      continue;
    L += L.empty() ? "`" : ", `";
    L.append(DD.File.data(), DD.File.size());
    if (!DD.Member.empty()) {
      L += '(';
      L.append(DD.Member.data(), DD.Member.size());
      L += ')';
    }
    L += '`';
  }
  if (N > Named)
    L += " and " + std::to_string(N - Named) + " more";
  return L;
}

unsigned count(const Duplicate &D, DefinitionStrength S) {
  unsigned N = 0;
  for (const DuplicateDefinition &DD : D.Definitions)
    N += DD.Strength == S;
  return N;
}

std::string linkState(const Duplicate &D) {
  if (!D.Latent)
    return "a plain link of these inputs already pulls in two of them";
  bool Members = false, Shared = false;
  for (const DuplicateDefinition &DD : D.Definitions) {
    Members |= DD.Origin == DefinitionOrigin::ArchiveMember;
    Shared |= DD.Origin == DefinitionOrigin::SharedLibrary;
  }
  std::string How = Members ? "a force-link (--whole-archive, link_whole, "
                              "-force_load)"
                            : "";
  if (Shared)
    How += (How.empty() ? "" : " or ") + std::string("loading both shared "
                                                     "libraries");
  return "latent: no reference among these inputs pulls in two of them; " +
         How + " does";
}

Finding start(Finding F, const Duplicate &D) {
  F.Symbol = D.Name;
  F.File = D.Definitions.front().displayName();
  return F;
}

std::string defaultVisibility(StringRef Subject, bool Plural) {
  return formatv("give {0} default visibility: "
                 "__attribute__((visibility(\"default\"))) on {1} (or build "
                 "{2} without -fvisibility=hidden; CMake: "
                 "CXX_VISIBILITY_PRESET)",
                 Subject, Plural ? "their declarations" : "its declaration",
                 Plural ? "them" : "that file")
      .str();
}

std::string vectorMath() {
  return "link SLEEF's library (libsleef) into the host: aoti::shims and "
         "aoti::shims_static bring it in a build that found libsleef-dev; or "
         "compile the model without SIMD kernels (inductor_configs "
         "{\"cpp.vec_isa_ok\": False})";
}

} // namespace aoti::rules::fixtext
