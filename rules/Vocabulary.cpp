//===- Vocabulary.cpp - The GNU/ELF and the Apple ld64/Mach-O words -------===//
#include "Vocabulary.h"

using namespace aoti::audit;

namespace aoti::rules::fixtext {

namespace {

// ELF, as the GNU toolchain and glibc's ld.so spell it (lld takes the same
// flags).
const Vocabulary ELFWords{
    .Format = BinaryFormat::ELF,

    .ExportDynamicDriver =
        "{0}link {1} with `-Wl,--export-dynamic` (or `-rdynamic`; CMake: "
        "set_target_properties({2} PROPERTIES ENABLE_EXPORTS ON); Bazel: "
        "linkopts = [\"-rdynamic\"]), or export only these names with "
        "`-Wl,--export-dynamic-symbol='{3}'`",
    .ExportDynamicLinker =
        "{0}link {1} with `--export-dynamic`, or export only these names "
        "with `--export-dynamic-symbol='{3}'`",
    .ExportDynamicCMake =
        "{0}set_target_properties({2} PROPERTIES ENABLE_EXPORTS ON) (adds "
        "-rdynamic), or export only these names: target_link_options({2} "
        "PRIVATE \"LINKER:--export-dynamic-symbol={3}\")",

    .ForceLinkDriver =
        "force-link {0}: wrap it in `-Wl,--whole-archive … "
        "-Wl,--no-whole-archive`{4} (CMake: target_link_libraries({2} "
        "PRIVATE \"$<LINK_LIBRARY:WHOLE_ARCHIVE,{3}>\"); Buck: link_whole = "
        "True; Bazel: alwayslink = True)",
    .ForceLinkLinker =
        "force-link {0}: wrap it in `--whole-archive … --no-whole-archive`{4}",
    .ForceLinkCMake =
        "force-link {0}: target_link_libraries({2} PRIVATE "
        "\"$<LINK_LIBRARY:WHOLE_ARCHIVE,{3}>\") in place of the plain `{3}` "
        "(CMake >= 3.24)",

    .ExportFromLibrary =
        "export it from {0}: list `{1}` under `global:` in its version "
        "script, and build it without -fvisibility=hidden for that name",
    .ImplementRequiredFix =
        "link an implementation of {0}* into {1} (the "
        "project's aoti::shims, force-linked), or pass the "
        "archive the host links with --archive to see which "
        "member is missing",
    .LinkProviderFix = "link the library that defines it into the host, or "
                       "give the plugin a DT_NEEDED on it",

    .NotExportedMessage = "{0} is defined in {1} but not exported: it is "
                          "in the static symbol table, not the dynamic one",

    .HiddenMessage = "{0} is defined in {1} with {2} visibility, so it "
                     "is not exported",
    .HiddenFix = "{0}",
    .LocalMessage = "{0} is defined in {1} but local there (hidden "
                    "visibility, a version script's `local:`, "
                    "--exclude-libs, or `static`), so it is not "
                    "exported",
    .LocalFix = "export it: give it default visibility "
                "(__attribute__((visibility(\"default\"))), or no "
                "-fvisibility=hidden), list it under `global:` in the "
                "version script (`global: {0};`), or drop "
                "--exclude-libs for the archive that defines it",
    // An ELF definition left out of .dynsym is local there: one cause.
    .LeftOutMessage = "{0} is defined in {1} but local there (hidden "
                      "visibility, a version script's `local:`, "
                      "--exclude-libs, or `static`), so it is not "
                      "exported",
    .LeftOutFix = "export it: give it default visibility "
                  "(__attribute__((visibility(\"default\"))), or no "
                  "-fvisibility=hidden), list it under `global:` in the "
                  "version script (`global: {0};`), or drop "
                  "--exclude-libs for the archive that defines it",

    .OutsideScopeMessage = "{0} is exported by {1}, which is neither in the "
                           "host's global scope nor a dependency of the plugin",
    .OutsideScopeFix = "link {1} against {0} (a DT_NEEDED puts it in the "
                       "global scope), or dlopen it with RTLD_GLOBAL before "
                       "the model (audit that with --preload {2})",

    .LibraryNotFoundMessage = "{0}, needed by {1}, is not found ({2} paths "
                              "tried{3}){4}",
    .PluginLibraryNotFound = "",
    .LibraryNotFoundFix =
        "add the directory that holds {0} to the RUNPATH of {3} "
        "(-Wl,-rpath,'$ORIGIN/<dir>'), to LD_LIBRARY_PATH (audit "
        "with --env LD_LIBRARY_PATH=... or --lib-path), or "
        "install it where ld.so.cache lists it",

    .DiscardedMessage = "{0} from {1} is linked, then removed by "
                        "--gc-sections: nothing live refers to it and it is "
                        "not exported",
    .DiscardedFixNote =
        " (exported names are roots, so --gc-sections keeps them)",

    .MadeHiddenMessage = "{0} has hidden visibility (in {1} or an object "
                         "that refers to it): it stays out of .dynsym",

    // GNU ld only warns when the entry point is undefined.
    .UndefinedEntryFails = false,
    .UndefinedEntryMessage = "",
    .UndefinedEntryFix = "",
    .RequireDefinedMessage = "--require-defined={0} names a symbol nothing on "
                             "the line defines",
    .InputOrderMatters = true,
    .AddDefinerWhere = ", after {0}",
    // A shared library may leave names undefined unless -z defs.
    .PluginMayLeaveUndefined = "",
};

// Mach-O, as Apple's ld64 and dyld spell it.
const Vocabulary MachOWords{
    .Format = BinaryFormat::MachO,

    // ld64 exports a main executable's globals unless told otherwise; what
    // removes them is an export list, -dead_strip (LTO too), or strip.
    .ExportDynamicDriver =
        "{0}link {1} with `-Wl,-export_dynamic` (with -dead_strip or LTO, a "
        "main executable's globals are kept only then) or without "
        "-dead_strip, let no -exported_symbols_list, -unexported_symbol or "
        "-no_exported_symbols leave out `{3}`, and strip it with `strip -x` "
        "only",
    .ExportDynamicLinker =
        "{0}link {1} with `-export_dynamic` (with -dead_strip or LTO, a "
        "main executable's globals are kept only then) or without "
        "-dead_strip, let no -exported_symbols_list, -unexported_symbol or "
        "-no_exported_symbols leave out `{3}`, and strip it with `strip -x` "
        "only",
    .ExportDynamicCMake =
        "{0}target_link_options({2} PRIVATE \"LINKER:-export_dynamic\") "
        "(with -dead_strip or LTO, a main executable's globals are kept only "
        "then) or no -dead_strip, let no -exported_symbols_list, "
        "-unexported_symbol or -no_exported_symbols leave out `{3}`, and "
        "strip it with `strip -x` only",

    // ld64 has no input scripts: {4} is always "".
    .ForceLinkDriver =
        "force-link {0}: link it with `-Wl,-force_load,{1}` in its place "
        "(CMake: target_link_libraries({2} PRIVATE "
        "\"$<LINK_LIBRARY:WHOLE_ARCHIVE,{3}>\"); Xcode: OTHER_LDFLAGS; "
        "Bazel: alwayslink = True)",
    .ForceLinkLinker =
        "force-link {0}: link it with `-force_load {1}` in its place",
    .ForceLinkCMake =
        "force-link {0}: target_link_libraries({2} PRIVATE "
        "\"$<LINK_LIBRARY:WHOLE_ARCHIVE,{3}>\") in place of the plain `{3}` "
        "(CMake >= 3.24)",

    .ExportFromLibrary = "export it from {0}: add `{1}` to its "
                         "-exported_symbols_list (or drop the "
                         "-unexported_symbol / -no_exported_symbols that "
                         "hides it), and strip it with `strip -x` only",
    // ld64 -dead_strip removes a main executable's unreferenced globals
    // unless -export_dynamic keeps them; the name is then gone entirely.
    .ImplementRequiredFix =
        "link an implementation of {0}* into {1} (the "
        "project's aoti::shims, with -Wl,-force_load for the "
        "archive); if {1} does link it, -dead_strip removed "
        "the unreferenced shims: link with -Wl,-export_dynamic "
        "to keep them. Pass the archive with --archive to see "
        "which member is missing",
    .LinkProviderFix = "link the dylib that defines it into the host, or link "
                       "the plugin against it (an LC_LOAD_DYLIB binds the "
                       "import to it)",

    .NotExportedMessage = "{0} is defined in {1} but not exported: it is "
                          "an external nlist symbol missing from the "
                          "export trie",

    // A linked image keeps a private external (N_PEXT) for both causes:
    // say both, and how to export it from this kind of image.
    .HiddenMessage = "{0} is defined in {1} as a private external "
                     "(N_PEXT), so it is not in the export trie: it "
                     "has hidden visibility, or the link's "
                     "-exported_symbols_list / -unexported_symbol left "
                     "it out",
    .HiddenFix = "{0}, and {1}",
    .LocalMessage = "{0} is defined in {1} but is not external (a "
                    "`static` definition, or made local by `ld -r` "
                    "with an export list), so it is not exported",
    .LocalFix = "make the definition external (drop `static`), and {1}",
    .LeftOutMessage = "{0} is an external symbol of {1} but is not in "
                      "its export trie: the link's -exported_symbols_list "
                      "or -unexported_symbol left it out",
    .LeftOutFix = "{1}",

    .OutsideScopeMessage = "{0} is exported by {1}, which is not loaded "
                           "where the plugin's flat lookup searches",
    .OutsideScopeFix = "load {0} before the model: link {1} against it (an "
                       "LC_LOAD_DYLIB), or dlopen() it with RTLD_GLOBAL "
                       "first (audit that with --preload {2})",

    .LibraryNotFoundMessage = "{0}, loaded by {1}, is not found ({2} paths "
                              "tried{3}){4}",
    .PluginLibraryNotFound = ": dlopen() fails with \"Library not loaded\"",
    .LibraryNotFoundFix =
        "put {1} where the load path leads, or load it as "
        "@rpath/{2} and give {3} (or the executable) an "
        "LC_RPATH to its directory (-Wl,-rpath,@loader_path/<dir>; "
        "install_name_tool -change / -add_rpath fixes a built "
        "file), or set DYLD_LIBRARY_PATH (audit with --env "
        "DYLD_LIBRARY_PATH=... or --lib-path)",

    .DiscardedMessage = "{0} from {1} is linked, then removed by "
                        "-dead_strip: nothing live refers to it, and a "
                        "main executable's globals are not dead-strip "
                        "roots without -export_dynamic",
    .DiscardedFixNote = "",

    .MadeHiddenMessage = "{0} is a private external (N_PEXT: hidden "
                         "visibility, in {1} or an object that refers to "
                         "it): it stays out of the export trie",

    .UndefinedEntryFails = true,
    .UndefinedEntryMessage = "nothing on the line defines the entry point "
                             "{0}; ld64 stops with \"undefined symbol: {1}\"",
    .UndefinedEntryFix = "add the object that defines main, or link a -dylib "
                         "or -bundle (or -e NAME for another entry point)",
    .RequireDefinedMessage = "-u {0} names a symbol nothing on the line "
                             "defines; ld64 stops with \"undefined symbol: "
                             "{0}\"",
    // ld64 searches every archive for every undefined name.
    .InputOrderMatters = false,
    .AddDefinerWhere = "",
    .PluginMayLeaveUndefined = "; a model or plugin whose host defines it: "
                               "link with `-undefined dynamic_lookup` (or "
                               "`-bundle_loader HOST` for a bundle)",
};

} // namespace

const Vocabulary &vocabularyFor(BinaryFormat F) {
  switch (F) {
  case BinaryFormat::ELF: return ELFWords;
  case BinaryFormat::MachO: return MachOWords;
  }
  return ELFWords;
}

const Vocabulary &vocabularyFor(const Binary &B) {
  return vocabularyFor(B.format());
}

const Vocabulary &vocabularyFor(const LinkFacts &F) {
  return vocabularyFor(F.Line.isMachO() ? BinaryFormat::MachO
                                        : BinaryFormat::ELF);
}

} // namespace aoti::rules::fixtext
