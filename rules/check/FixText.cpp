//===- FixText.cpp --------------------------------------------------------===//
#include "FixText.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::rules::fixtext {

std::string quote(StringRef S) { return ("`" + S + "`").str(); }

StringRef base(StringRef Path) { return sys::path::filename(Path); }

std::string firstPrefix(const std::vector<std::string> &Prefixes) {
  return Prefixes.empty() ? std::string() : Prefixes.front();
}

bool isMachO(const audit::Binary &B) {
  return B.format() == audit::BinaryFormat::MachO;
}

std::string symbolGlob(const audit::Binary &B, StringRef Prefix) {
  if (Prefix.empty())
    return "<name>";
  if (!isMachO(B))
    return (Prefix + "*").str();
  // A Mach-O symbol name (one name, not a prefix) already has its '_'; a
  // --prefix is a C name.
  if (Prefix.starts_with("_"))
    return Prefix.str();
  return ("_" + Prefix + "*").str();
}

std::string appleExportFromLibrary(const audit::Binary &Lib, StringRef Glob) {
  return formatv("export it from {0}: add `{1}` to its "
                 "-exported_symbols_list (or drop the -unexported_symbol / "
                 "-no_exported_symbols that hides it), and strip it with "
                 "`strip -x` only",
                 quote(base(Lib.path())), Glob)
      .str();
}

std::string exportDynamic(const audit::Binary &Host, StringRef Prefix) {
  StringRef H = base(Host.path());
  if (isMachO(Host))
    // ld64 exports a main executable's globals unless told otherwise; what
    // removes them is an export list, -dead_strip (LTO too), or strip.
    return formatv("export them from {0}: drop the -exported_symbols_list, "
                   "-unexported_symbol or -no_exported_symbols that leaves "
                   "out `{1}` (or add `{1}` to the list), link with "
                   "-Wl,-export_dynamic so -dead_strip and LTO keep them, "
                   "and strip it with `strip -x` only",
                   quote(H), symbolGlob(Host, Prefix))
        .str();
  std::string Glob = Prefix.empty() ? std::string("<name>") : (Prefix + "*").str();
  return formatv("link {0} with -Wl,--export-dynamic (CMake: "
                 "set_target_properties({1} PROPERTIES ENABLE_EXPORTS ON); "
                 "Bazel: linkopts = [\"-rdynamic\"]), or export just these "
                 "names with -Wl,--export-dynamic-symbol='{2}'",
                 quote(H), H, Glob)
      .str();
}

std::string wholeArchive(const audit::Binary &Host, StringRef Archive) {
  StringRef A = base(Archive);
  StringRef Lib = A;
  Lib.consume_front("lib");
  Lib.consume_back(".a");
  if (Host.format() == audit::BinaryFormat::MachO)
    return formatv("force-load the archive: -Wl,-force_load,{0} (CMake: "
                   "\"$<LINK_LIBRARY:WHOLE_ARCHIVE,{1}>\")",
                   Archive, Lib)
        .str();
  return formatv("force-link the archive: -Wl,--whole-archive {0} "
                 "-Wl,--no-whole-archive (CMake: target_link_libraries({1} "
                 "PRIVATE \"$<LINK_LIBRARY:WHOLE_ARCHIVE,{2}>\"); Buck: "
                 "link_whole = True; Bazel: alwayslink = True)",
                 Archive, base(Host.path()), Lib)
      .str();
}

} // namespace aoti::rules::fixtext
