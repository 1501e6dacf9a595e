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

std::string exportDynamic(const audit::Binary &Host, StringRef Prefix) {
  StringRef H = base(Host.path());
  if (Host.format() == audit::BinaryFormat::MachO)
    return formatv("link {0} with -Wl,-export_dynamic and do not strip its "
                   "exports (no -exported_symbols_list that leaves them out, "
                   "no `strip -x`)",
                   quote(H))
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
