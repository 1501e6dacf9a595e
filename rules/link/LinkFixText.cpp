//===- LinkFixText.cpp ----------------------------------------------------===//
#include "LinkFixText.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::linkfix {

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

std::string wholeArchive(const LinkFacts &F, int Input) {
  const LinkInput &I = F.Inputs[Input];
  std::string W = written(F, Input);
  if (isCMake(F)) {
    std::string Lib = cmakeLibrary(F, Input);
    return formatv("link it whole: target_link_libraries({0} PRIVATE "
                   "\"$<LINK_LIBRARY:WHOLE_ARCHIVE,{1}>\") in place of the "
                   "plain `{1}` (CMake >= 3.24)",
                   F.Request.Context.Target, Lib)
        .str();
  }
  if (F.Line.isMachO()) {
    std::string Path = F.displayPath(I.Path);
    if (F.Line.isDriver())
      return formatv("link it with `-Wl,-force_load,{0}` in place of {1} "
                     "(Xcode: OTHER_LDFLAGS; Bazel: alwayslink = True)",
                     Path, quote(W))
          .str();
    return formatv("link it with `-force_load {0}` in place of {1}", Path,
                   quote(W))
        .str();
  }
  std::string Where;
  if (!I.Script.empty())
    Where = formatv(" (it comes from the input script {0})",
                    F.displayPath(I.Script))
                .str();
  if (F.Line.isDriver())
    return formatv("wrap {0} in `-Wl,--whole-archive … "
                   "-Wl,--no-whole-archive`{1} (Buck: link_whole = True; "
                   "Bazel: alwayslink = True)",
                   quote(W), Where)
        .str();
  return formatv("wrap {0} in `--whole-archive … --no-whole-archive`{1}",
                 quote(W), Where)
      .str();
}

std::string exportDynamic(const LinkFacts &F) {
  std::string Glob = prefixGlob(F);
  std::string Prefix = staticOutput(F)
                           ? "link dynamically (drop `-static`: a static "
                             "executable has no dynamic symbol table), then "
                           : "";
  if (F.Line.isMachO()) {
    // ld64 exports every global already; what loses them is -dead_strip.
    if (isCMake(F))
      return formatv("target_link_options({0} PRIVATE "
                     "\"LINKER:-export_dynamic\") (with -dead_strip, a main "
                     "executable's globals are roots only then)",
                     F.Request.Context.Target)
          .str();
    std::string Flag = F.Line.isDriver() ? "-Wl,-export_dynamic"
                                         : "-export_dynamic";
    return formatv("add `{0}` (with -dead_strip, a main executable's "
                   "globals are roots only then), or drop -dead_strip",
                   Flag)
        .str();
  }
  if (isCMake(F))
    return formatv("{0}set_target_properties({1} PROPERTIES ENABLE_EXPORTS "
                   "ON) (adds -rdynamic), or export only the shims: "
                   "target_link_options({1} PRIVATE "
                   "\"LINKER:--export-dynamic-symbol={2}\")",
                   Prefix, F.Request.Context.Target, Glob)
        .str();
  if (F.Line.isDriver())
    return formatv("{0}add `-rdynamic`, or export only the shims with "
                   "`-Wl,--export-dynamic-symbol='{1}'`",
                   Prefix, Glob)
        .str();
  return formatv("{0}add `--export-dynamic`, or export only the shims with "
                 "`--export-dynamic-symbol='{1}'`",
                 Prefix, Glob)
      .str();
}

std::string pullInAndExport(const LinkFacts &F, int Input) {
  std::string Fix = wholeArchive(F, Input);
  if (F.FixExportDynamic || staticOutput(F))
    Fix += "; then " + exportDynamic(F);
  return Fix;
}

std::string linkerSpelling(const LinkFacts &F, StringRef Name) {
  StringRef Source = Name;
  if (F.Line.isMachO() && Source.starts_with("__Z"))
    Source = Source.drop_front();
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

} // namespace aoti::rules::linkfix
