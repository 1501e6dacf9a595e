//===- link/Ld64Options.cpp - ld64's options -----------------------------===//
//
// The linker layer for Mach-O. ld64 and ld64.lld share one spelling: one
// dash, long names with underscores, values in the following words
// (`-force_load PATH`, `-platform_version macos 11.0 14.0`), a few joined
// (`-lNAME`, `-LDIR`, `-FDIR`, `-needed-lNAME`). One table holds every
// option the model knows, each name once, with the number of value words
// it takes and what it does; options with no bearing on what is linked in
// or exported are stepped over with their values. A word the table does
// not know is a joined option, or else recorded as ignored.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace aoti::audit::linker {

namespace {

using K = LinkArg::Kind;
using Parser = Ld64OptionParser;

/// What an option does with its first value word V (empty for a flag);
/// Tok is V's word in LinkCommandLine::Argv (the flag's own, for a flag).
using Action = Error (*)(Parser &P, StringRef W, StringRef V, int Tok,
                         bool Written);

struct Ld64Option {
  const char *Name;
  unsigned Values; // value words that follow
  Action Act;      // null: no bearing on what is linked in or exported
};

/// Sets a flag of the parser or of the command line.
#define SET(Expr)                                                              \
  [](Parser &P, StringRef, StringRef V, int, bool) -> Error {              \
    Expr;                                                                      \
    return Error::success();                                                   \
  }

Error addFile(Parser &P, StringRef, StringRef V, int Tok, bool Written) {
  P.add(K::File, V, Tok, Written);
  return Error::success();
}

/// A framework is a Library whose value names it: "framework:Foo".
Error addFramework(Parser &P, StringRef, StringRef V, int, bool Written) {
  P.add(K::Library, ("framework:" + V).str(), -1, Written);
  return Error::success();
}

Error undefinedTreatment(Parser &P, StringRef, StringRef V, int, bool) {
  if (V != "error" && V != "warning" && V != "suppress" &&
      V != "dynamic_lookup")
    return makeError(formatv("-undefined {0}: ld64 takes error, warning, "
                             "suppress or dynamic_lookup",
                             V));
  P.L.UndefinedTreatment = V.str();
  return Error::success();
}

Error alias(Parser &P, StringRef W, StringRef V, int, bool) {
  P.L.Ignored.push_back((W + " " + V).str());
  P.L.Approximations.push_back(
      (W + " is not modelled: the aliases it defines are not in the replay")
          .str());
  return Error::success();
}

const Ld64Option Options[] = {
    // The output.
    {"-o", 1, SET(P.L.Output = V.str())},
    {"-arch", 1, SET(P.L.Arch = V.str())},
    {"-dylib", 0, SET(P.SawDylib = true)},
    {"-bundle", 0, SET(P.SawBundle = true)},
    {"-static", 0, SET(P.SawStatic = true)},
    {"-r", 0,
     SET(P.L.Approximations.push_back(
         "-r (relocatable output) is not modelled"))},
    // Inputs.
    {"-force_load", 1,
     [](Parser &P, StringRef, StringRef V, int Tok,
        bool Written) -> Error {
       // The value word is the one a fix edits.
       P.add(K::ForceLoad, V, Tok, Written);
       return Error::success();
     }},
    {"-load_hidden", 1,
     [](Parser &P, StringRef, StringRef V, int Tok,
        bool Written) -> Error {
       P.add(K::File, V, Tok, Written);
       P.L.Approximations.push_back(("-load_hidden " + V +
                                     ": the archive's symbols are not made "
                                     "private")
                                        .str());
       return Error::success();
     }},
    {"-needed_library", 1, addFile},
    {"-weak_library", 1, addFile},
    {"-reexport_library", 1, addFile},
    {"-upward_library", 1, addFile},
    {"-lazy_library", 1, addFile},
    {"-framework", 1, addFramework},
    {"-needed_framework", 1, addFramework},
    {"-weak_framework", 1, addFramework},
    {"-reexport_framework", 1, addFramework},
    {"-upward_framework", 1, addFramework},
    {"-filelist", 1,
     [](Parser &P, StringRef, StringRef V, int, bool Written) -> Error {
       return P.readFileList(V, Written);
     }},
    {"-bundle_loader", 1, SET(P.L.BundleLoader = absolute(P.Cwd, V))},
    {"-syslibroot", 1, SET(P.L.Sysroot = V.str())},
    {"-Z", 0, SET(P.L.NoDefaultSearchDirs = true)},
    {"-search_dylibs_first", 0, SET(P.L.SearchDylibsFirst = true)},
    {"-search_paths_first", 0, SET(P.L.SearchDylibsFirst = false)},
    // What decides loading.
    {"-e", 1, SET(P.L.Entry = V.str())},
    {"-u", 1, SET(P.L.Undefined.push_back(V.str()))},
    {"-all_load", 0, SET(P.L.AllLoad = true)},
    {"-noall_load", 0, SET(P.L.AllLoad = false)},
    {"-ObjC", 0, SET(P.L.ObjC = true)},
    {"-dead_strip", 0, SET(P.L.GcSections = true)},
    {"-no_dead_strip", 0, SET(P.L.GcSections = false)},
    // What decides exports.
    {"-export_dynamic", 0, SET(P.L.ExportDynamic = true)},
    // The driver's -rdynamic, translated.
    {"--export-dynamic", 0, SET(P.L.ExportDynamic = true)},
    {"-exported_symbol", 1, SET(P.L.ExportedSymbols.push_back(V.str()))},
    {"-exported_symbols_list", 1,
     SET(P.L.ExportedSymbolsLists.push_back(absolute(P.Cwd, V)))},
    {"-unexported_symbol", 1, SET(P.L.UnexportedSymbols.push_back(V.str()))},
    {"-unexported_symbols_list", 1,
     SET(P.L.UnexportedSymbolsLists.push_back(absolute(P.Cwd, V)))},
    {"-no_exported_symbols", 0, SET(P.L.NoExportedSymbols = true)},
    // What decides errors.
    {"-undefined", 1, undefinedTreatment},
    {"-U", 1, SET(P.L.AllowedUndefined.push_back(V.str()))},
    {"-flat_namespace", 0, SET(P.L.FlatNamespace = true)},
    {"-twolevel_namespace", 0, SET(P.L.FlatNamespace = false)},
    // Not modelled: noted as approximations.
    {"-alias", 2, alias},
    {"-alias_list", 1, alias},
    // Values to step over.
    {"-reexported_symbols_list", 1, nullptr},
    {"-install_name", 1, nullptr},
    {"-dylib_install_name", 1, nullptr},
    {"-compatibility_version", 1, nullptr},
    {"-current_version", 1, nullptr},
    {"-macosx_version_min", 1, nullptr},
    {"-macos_version_min", 1, nullptr},
    {"-ios_version_min", 1, nullptr},
    {"-sdk_version", 1, nullptr},
    {"-rpath", 1, nullptr},
    {"-headerpad", 1, nullptr},
    {"-map", 1, nullptr},
    {"-order_file", 1, nullptr},
    {"-object_path_lto", 1, nullptr},
    {"-lto_library", 1, nullptr},
    {"-mllvm", 1, nullptr},
    {"-cache_path_lto", 1, nullptr},
    {"-umbrella", 1, nullptr},
    {"-allowable_client", 1, nullptr},
    {"-client_name", 1, nullptr},
    {"-sub_library", 1, nullptr},
    {"-sub_umbrella", 1, nullptr},
    {"-stack_size", 1, nullptr},
    {"-image_base", 1, nullptr},
    {"-seg1addr", 1, nullptr},
    {"-pagezero_size", 1, nullptr},
    {"-dependency_info", 1, nullptr},
    {"-why_live", 1, nullptr},
    {"-interposable_list", 1, nullptr},
    {"-final_output", 1, nullptr},
    {"-executable_path", 1, nullptr},
    {"-dyld_env", 1, nullptr},
    {"-oso_prefix", 1, nullptr},
    {"-add_ast_path", 1, nullptr},
    {"-multiply_defined", 1, nullptr},
    {"-init", 1, nullptr},
    {"-max_default_common_align", 1, nullptr},
    {"-thinlto_cache_policy", 1, nullptr},
    {"-lto_object_path", 1, nullptr},
    {"-dylib_file", 1, nullptr},
    {"-multiply_defined_unused", 1, nullptr},
    {"-read_only_relocs", 1, nullptr},
    {"-weak_reference_mismatches", 1, nullptr},
    {"-objc_abi_version", 1, nullptr},
    {"-dirty_data_list", 1, nullptr},
    {"-segaddr", 2, nullptr},
    {"-sectcreate", 3, nullptr},
    {"-segprot", 3, nullptr},
    {"-sectalign", 3, nullptr},
    {"-sectorder", 3, nullptr},
    {"-platform_version", 3, nullptr},
    // Flags with no bearing on symbols.
    {"-demangle", 0, nullptr},
    {"-dynamic", 0, nullptr},
    {"-headerpad_max_install_names", 0, nullptr},
    {"-no_uuid", 0, nullptr},
    {"-why_load", 0, nullptr},
    {"-t", 0, nullptr},
    {"-v", 0, nullptr},
    {"-w", 0, nullptr},
    {"-S", 0, nullptr},
    {"-x", 0, nullptr},
    {"-X", 0, nullptr},
    {"-adhoc_codesign", 0, nullptr},
    {"-no_adhoc_codesign", 0, nullptr},
    {"-no_deduplicate", 0, nullptr},
    {"-application_extension", 0, nullptr},
    {"-no_application_extension", 0, nullptr},
    {"-fatal_warnings", 0, nullptr},
    {"-no_compact_unwind", 0, nullptr},
    {"-bitcode_bundle", 0, nullptr},
    {"-reproducible", 0, nullptr},
    {"-mark_dead_strippable_dylib", 0, nullptr},
    {"-no_function_starts", 0, nullptr},
    {"-function_starts", 0, nullptr},
    {"-pie", 0, nullptr},
    {"-no_pie", 0, nullptr},
    {"-execute", 0, nullptr},
    {"-dead_strip_dylibs", 0, nullptr},
    {"-no_dead_strip_inits_and_terms", 0, nullptr},
    {"-no_objc_category_merging", 0, nullptr},
    {"-objc_category_merging", 0, nullptr},
    {"-print_statistics", 0, nullptr},
    {"-time-trace", 0, nullptr},
    {"--color-diagnostics", 0, nullptr},
    {"-color_diagnostics", 0, nullptr},
    {"-no_warn_duplicate_libraries", 0, nullptr},
    {"-warn_duplicate_libraries", 0, nullptr},
    {"-ignore_auto_link", 0, nullptr},
    {"-no_data_in_code_info", 0, nullptr},
    {"-data_in_code_info", 0, nullptr},
    {"-no_eh_labels", 0, nullptr},
    {"-export_dynamic_symbols", 0, nullptr},
    {"-keep_private_externs", 0, nullptr},
    {"-no_implicit_dylibs", 0, nullptr},
};

#undef SET

const Ld64Option *find(StringRef W) {
  for (const Ld64Option &O : Options)
    if (W == O.Name)
      return &O;
  return nullptr;
}

} // namespace

void Ld64OptionParser::add(LinkArg::Kind Kind, StringRef V, int Tok,
                           bool Written) {
  L.Args.push_back({Kind, V.str(), Tok, Written});
}

void Ld64OptionParser::addSearchDir(std::vector<std::string> &Into,
                                    StringRef D) {
  Into.push_back(absolute(Cwd, D));
}

Error Ld64OptionParser::readFileList(StringRef Arg, bool Written) {
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
    add(K::File, P, -1, Written);
  }
  return Error::success();
}

Error Ld64OptionParser::parse(std::vector<std::string> Words,
                              std::vector<int> Tokens, bool Written) {
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
    if (const Ld64Option *O = find(W)) {
      if (I + O->Values >= Words.size()) {
        L.Ignored.push_back(W.str());
        I = Words.size();
        continue;
      }
      StringRef V = O->Values ? StringRef(Words[I + 1]) : StringRef();
      int VTok = O->Values ? Tokens[I + 1] : Tok;
      I += O->Values;
      if (O->Act)
        if (Error E = O->Act(*this, W, V, VTok, Written))
          return E;
      continue;
    }
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
    L.Ignored.push_back(W.str());
  }
  return Error::success();
}

bool Ld64OptionParser::joinedLibrary(StringRef W, int Tok, bool Written) {
  for (StringRef Pre : {"-needed-l", "-weak-l", "-reexport-l", "-upward-l",
                        "-lazy-l", "-hidden-l"}) {
    if (!W.starts_with(Pre) || W.size() == Pre.size())
      continue;
    add(K::Library, W.drop_front(Pre.size()), Tok, Written);
    if (Pre == "-hidden-l")
      L.Approximations.push_back(
          (W + ": the archive's symbols are not made private").str());
    return true;
  }
  return false;
}

Error Ld64OptionParser::parseTranslated(const DriverView &V) {
  if (Error E = parse(V.Words, V.WordToken, true))
    return E;
  SawDylib |= V.Shared;
  SawBundle |= V.Bundle;
  SawStatic |= V.Static;
  L.Approximations.push_back(
      "the driver's implicit inputs (-lSystem, the SDK's directories) "
      "are not read: references nothing on the line defines are assumed "
      "to come from them");
  return Error::success();
}

void Ld64OptionParser::finish(bool DriverStatic) {
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

std::unique_ptr<LinkerOptions> ld64Options(LinkCommandLine &L, StringRef Cwd) {
  return std::make_unique<Ld64OptionParser>(L, Cwd);
}

} // namespace aoti::audit::linker
