//===- link/Ld64Options.cpp - ld64's options -----------------------------===//
//
//
// ld64 and ld64.lld share one spelling: one dash, long names with
// underscores, values in the following words (`-force_load PATH`,
// `-platform_version macos 11.0 14.0`), a few joined (`-lNAME`, `-LDIR`,
// `-needed-lNAME`). Options with no bearing on what is linked in or
// exported are stepped over with their values.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace aoti::audit::linker {

namespace {

/// ld64 options that take values, and how many words.
unsigned ld64Values(StringRef Name) {
  return StringSwitch<unsigned>(Name)
      .Cases("-o", "-arch", "-e", "-u", "-U", "-undefined", 1)
      .Cases("-force_load", "-load_hidden", "-bundle_loader", "-syslibroot", 1)
      .Cases("-exported_symbol", "-exported_symbols_list", "-unexported_symbol",
             "-unexported_symbols_list", "-reexported_symbols_list", 1)
      .Cases("-needed_library", "-weak_library", "-reexport_library",
             "-upward_library", "-lazy_library", 1)
      .Cases("-framework", "-needed_framework", "-weak_framework",
             "-reexport_framework", "-upward_framework", 1)
      .Cases("-filelist", "-install_name", "-dylib_install_name",
             "-compatibility_version", "-current_version", 1)
      .Cases("-macosx_version_min", "-macos_version_min", "-ios_version_min",
             "-sdk_version", "-rpath", 1)
      .Cases("-headerpad", "-map", "-order_file", "-object_path_lto",
             "-lto_library", "-mllvm", 1)
      .Cases("-alias_list", "-cache_path_lto", "-umbrella", "-allowable_client",
             "-client_name", 1)
      .Cases("-sub_library", "-sub_umbrella", "-stack_size", "-image_base",
             "-seg1addr", 1)
      .Cases("-pagezero_size", "-dependency_info", "-why_live",
             "-interposable_list", "-final_output", 1)
      .Cases("-executable_path", "-dyld_env", "-oso_prefix", "-add_ast_path",
             "-multiply_defined", 1)
      .Cases("-init", "-max_default_common_align", "-thinlto_cache_policy",
             "-lto_object_path", "-dylib_file", 1)
      .Cases("-multiply_defined_unused", "-read_only_relocs", "-weak_reference_mismatches",
             "-objc_abi_version", "-dirty_data_list", 1)
      .Case("-alias", 2)
      .Cases("-sectcreate", "-segprot", "-sectalign", "-sectorder", 3)
      .Case("-segaddr", 2)
      .Case("-platform_version", 3)
      .Default(0);
}

/// ld64 flags (no value) with no bearing on symbols.
bool ld64Harmless(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("-demangle", "-dynamic", "-headerpad_max_install_names",
             "-no_uuid", "-why_load", true)
      .Cases("-t", "-v", "-w", "-S", "-x", true)
      .Cases("-X", "-adhoc_codesign", "-no_adhoc_codesign", "-no_deduplicate",
             "-application_extension", true)
      .Cases("-fatal_warnings", "-no_compact_unwind", "-bitcode_bundle",
             "-reproducible", "-mark_dead_strippable_dylib", true)
      .Cases("-no_function_starts", "-pie", "-no_pie", "-execute",
             "-search_paths_first", true)
      .Cases("-no_application_extension", "-dead_strip_dylibs",
             "-no_dead_strip_inits_and_terms", "-twolevel_namespace",
             "-no_objc_category_merging", true)
      .Cases("-objc_category_merging", "-print_statistics", "-time-trace",
             "--color-diagnostics", "-color_diagnostics", true)
      .Cases("-no_warn_duplicate_libraries", "-warn_duplicate_libraries",
             "-ignore_auto_link", "-no_data_in_code_info", "-data_in_code_info",
             true)
      .Cases("-function_starts", "-no_eh_labels", "-export_dynamic_symbols",
             "-keep_private_externs", "-no_implicit_dylibs", true)
      .Default(false);
}

} // namespace

void Ld64Parser::add(LinkArg::Kind K, StringRef V, int Tok, bool Written) {
  L.Args.push_back({K, V.str(), Tok, Written});
}

void Ld64Parser::addSearchDir(std::vector<std::string> &Into, StringRef D) {
  Into.push_back(absolute(Cwd, D));
}

Error Ld64Parser::readFileList(StringRef Arg, bool Written) {
  // -filelist FILE[,DIRNAME]: one path per line, relative to DIRNAME.
  auto [File, Dir] = Arg.split(',');
  std::string Path = absolute(Cwd, File);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError(formatv("-filelist {0}: {1}", Path,
                             Buf.getError().message()));
  L.ResponseFiles.push_back(Path);
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef Line : Lines) {
    Line = Line.trim();
    if (Line.empty())
      continue;
    std::string P = Dir.empty() ? Line.str() : absolute(Dir, Line);
    // A word of the list is not a word of the command: not editable.
    add(LinkArg::Kind::File, P, -1, Written);
  }
  return Error::success();
}

Error Ld64Parser::parse(std::vector<std::string> Words, std::vector<int> Tokens,
                        bool Written) {
  using K = LinkArg::Kind;
  Tokens.resize(Words.size(), -1);
  for (size_t I = 0; I < Words.size(); ++I) {
    StringRef W = Words[I];
    int Tok = Tokens[I];
    if (isResponseFile(W)) {
      std::vector<std::string> Inner{W.str()};
      if (Error E = expandResponseFiles(Inner, Cwd, &L.ResponseFiles))
        return E;
      if (Error E = parse(std::move(Inner), {}, Written))
        return E;
      continue;
    }
    if (W.size() < 2 || W[0] != '-') {
      add(K::File, W, Tok, Written);
      continue;
    }
    if (unsigned N = ld64Values(W)) {
      if (I + N >= Words.size()) {
        L.Ignored.push_back(W.str());
        I = Words.size();
        continue;
      }
      StringRef V = Words[I + 1];
      // The value word is the one a fix edits for -force_load.
      int ValTok = Tokens[I + 1];
      I += N;
      if (Error E = valueOption(W, V, ValTok, Written))
        return E;
      continue;
    }
    if (flagOption(W))
      continue;
    if (joinedLibrary(W, Tok, Written))
      continue;
    if (W.starts_with("-u") && W.size() > 2) { // the driver's -uNAME
      L.Undefined.push_back(W.drop_front(2).str());
      continue;
    }
    if (W.starts_with("-l")) {
      if (W.size() > 2)
        add(K::Library, W.drop_front(2), Tok, Written);
      else if (I + 1 < Words.size())
        add(K::Library, Words[++I], -1, Written);
      continue;
    }
    if (W.starts_with("-L")) {
      if (W.size() > 2)
        addSearchDir(L.SearchDirs, W.drop_front(2));
      else if (I + 1 < Words.size())
        addSearchDir(L.SearchDirs, Words[++I]);
      continue;
    }
    if (W.starts_with("-F")) {
      if (W.size() > 2)
        addSearchDir(L.FrameworkDirs, W.drop_front(2));
      else if (I + 1 < Words.size())
        addSearchDir(L.FrameworkDirs, Words[++I]);
      continue;
    }
    if (!ld64Harmless(W))
      L.Ignored.push_back(W.str());
  }
  return Error::success();
}

bool Ld64Parser::joinedLibrary(StringRef W, int Tok, bool Written) {
  for (StringRef Pre : {"-needed-l", "-weak-l", "-reexport-l", "-upward-l",
                        "-lazy-l", "-hidden-l"}) {
    if (!W.starts_with(Pre) || W.size() == Pre.size())
      continue;
    add(LinkArg::Kind::Library, W.drop_front(Pre.size()), Tok, Written);
    if (Pre == "-hidden-l")
      L.Approximations.push_back(
          (W + ": the archive's symbols are not made private").str());
    return true;
  }
  return false;
}

bool Ld64Parser::flagOption(StringRef W) {
  if (W == "-dylib") SawDylib = true;
  else if (W == "-bundle") SawBundle = true;
  else if (W == "-static") SawStatic = true;
  else if (W == "-all_load") L.AllLoad = true;
  else if (W == "-noall_load") L.AllLoad = false;
  else if (W == "-ObjC") L.ObjC = true;
  else if (W == "-export_dynamic" || W == "--export-dynamic")
    L.ExportDynamic = true; // the second: the driver's -rdynamic, translated
  else if (W == "-no_exported_symbols") L.NoExportedSymbols = true;
  else if (W == "-dead_strip") L.GcSections = true;
  else if (W == "-no_dead_strip") L.GcSections = false;
  else if (W == "-flat_namespace") L.FlatNamespace = true;
  else if (W == "-twolevel_namespace") L.FlatNamespace = false;
  else if (W == "-search_dylibs_first") L.SearchDylibsFirst = true;
  else if (W == "-search_paths_first") L.SearchDylibsFirst = false;
  else if (W == "-Z") L.NoDefaultSearchDirs = true;
  else if (W == "-r") {
    L.Approximations.push_back("-r (relocatable output) is not modelled");
  } else
    return false;
  return true;
}

Error Ld64Parser::valueOption(StringRef W, StringRef V, int ValTok,
                              bool Written) {
  using K = LinkArg::Kind;
  if (W == "-o") L.Output = V.str();
  else if (W == "-arch") L.Arch = V.str();
  else if (W == "-e") L.Entry = V.str();
  else if (W == "-u") L.Undefined.push_back(V.str());
  else if (W == "-U") L.AllowedUndefined.push_back(V.str());
  else if (W == "-undefined") {
    if (V != "error" && V != "warning" && V != "suppress" &&
        V != "dynamic_lookup")
      return makeError(formatv("-undefined {0}: ld64 takes error, warning, "
                               "suppress or dynamic_lookup",
                               V));
    L.UndefinedTreatment = V.str();
  } else if (W == "-force_load") {
    add(K::ForceLoad, V, ValTok, Written);
  } else if (W == "-load_hidden") {
    add(K::File, V, ValTok, Written);
    L.Approximations.push_back(
        ("-load_hidden " + V + ": the archive's symbols are not made private")
            .str());
  } else if (W == "-needed_library" || W == "-weak_library" ||
             W == "-reexport_library" || W == "-upward_library" ||
             W == "-lazy_library") {
    add(K::File, V, ValTok, Written);
  } else if (W == "-framework" || W == "-needed_framework" ||
             W == "-weak_framework" || W == "-reexport_framework" ||
             W == "-upward_framework") {
    // A framework is a Library whose value names it: "framework:Foo".
    add(K::Library, ("framework:" + V).str(), -1, Written);
  } else if (W == "-bundle_loader") {
    L.BundleLoader = absolute(Cwd, V);
  } else if (W == "-syslibroot") {
    L.Sysroot = V.str();
  } else if (W == "-exported_symbol") {
    L.ExportedSymbols.push_back(V.str());
  } else if (W == "-exported_symbols_list") {
    L.ExportedSymbolsLists.push_back(absolute(Cwd, V));
  } else if (W == "-unexported_symbol") {
    L.UnexportedSymbols.push_back(V.str());
  } else if (W == "-unexported_symbols_list") {
    L.UnexportedSymbolsLists.push_back(absolute(Cwd, V));
  } else if (W == "-filelist") {
    return readFileList(V, Written);
  } else if (W == "-alias" || W == "-alias_list") {
    L.Ignored.push_back((W + " " + V).str());
    L.Approximations.push_back(
        (W + " is not modelled: the aliases it defines are not in the "
             "replay")
            .str());
  }
  // Everything else: no bearing on what is linked in or exported.
  return Error::success();
}

void Ld64Parser::finish() {
  if (SawDylib)
    L.OutputKind = LinkOutputKind::SharedLibrary;
  else if (SawBundle)
    L.OutputKind = LinkOutputKind::Bundle;
  else if (SawStatic)
    L.OutputKind = LinkOutputKind::StaticExecutable;
  else
    L.OutputKind = LinkOutputKind::PIE; // ld64 makes PIEs by default
  if (!L.BundleLoader.empty())
    L.Args.push_back({LinkArg::Kind::File, L.BundleLoader, -1, false});
}

} // namespace aoti::audit::linker
