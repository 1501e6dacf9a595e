//===- link/GnuOptions.cpp - GNU ld's and lld's options -----------------===//
//
// The linker layer for ELF: the words GNU ld, gold, lld and mold accept (the
// same spellings; long options with one dash or two, values joined with
// `=` or in the next word, single letters with values joined or next) read
// into LinkCommandLine. Options the model does not read are recorded as
// ignored, or stepped over when they have no bearing on which symbols are
// linked in or exported.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace llvm;

namespace aoti::audit::linker {

namespace {

enum class Arity { Flag, Value, EqOnly };

struct LinkerOption {
  const char *Name;
  Arity A;
};

// Long options the model reads or must step over correctly. Everything else
// that starts with '-' is recorded as ignored and takes no value.
const LinkerOption LongOptions[] = {
    {"whole-archive", Arity::Flag},
    {"no-whole-archive", Arity::Flag},
    {"start-group", Arity::Flag},
    {"end-group", Arity::Flag},
    {"start-lib", Arity::Flag},
    {"end-lib", Arity::Flag},
    {"Bstatic", Arity::Flag},
    {"Bdynamic", Arity::Flag},
    {"dn", Arity::Flag},
    {"dy", Arity::Flag},
    {"non_shared", Arity::Flag},
    {"call_shared", Arity::Flag},
    {"static", Arity::Flag},
    {"as-needed", Arity::Flag},
    {"no-as-needed", Arity::Flag},
    {"push-state", Arity::Flag},
    {"pop-state", Arity::Flag},
    {"export-dynamic", Arity::Flag},
    {"no-export-dynamic", Arity::Flag},
    {"gc-sections", Arity::Flag},
    {"no-gc-sections", Arity::Flag},
    {"shared", Arity::Flag},
    {"Bshareable", Arity::Flag},
    {"pie", Arity::Flag},
    {"pic-executable", Arity::Flag},
    {"no-pie", Arity::Flag},
    {"no-dynamic-linker", Arity::Flag},
    {"allow-multiple-definition", Arity::Flag},
    {"no-undefined", Arity::Flag},
    {"allow-shlib-undefined", Arity::Flag},
    {"no-allow-shlib-undefined", Arity::Flag},
    {"dynamic-list-data", Arity::Flag},
    {"relocatable", Arity::Flag},
    {"undefined", Arity::Value},
    {"require-defined", Arity::Value},
    {"library", Arity::Value},
    {"library-path", Arity::Value},
    {"output", Arity::Value},
    {"entry", Arity::Value},
    {"export-dynamic-symbol", Arity::Value},
    {"export-dynamic-symbol-list", Arity::Value},
    {"dynamic-list", Arity::Value},
    {"version-script", Arity::Value},
    {"exclude-libs", Arity::Value},
    {"sysroot", Arity::Value},
    {"script", Arity::Value},
    {"soname", Arity::Value},
    {"rpath", Arity::Value},
    {"rpath-link", Arity::Value},
    {"dynamic-linker", Arity::Value},
    {"plugin", Arity::Value},
    {"Map", Arity::Value},
    {"trace-symbol", Arity::Value},
    {"wrap", Arity::Value},
    {"defsym", Arity::Value},
    {"auxiliary", Arity::Value},
    {"filter", Arity::Value},
    {"retain-symbols-file", Arity::Value},
    {"version-exports-section", Arity::Value},
    {"just-symbols", Arity::Value},
    {"why-extract", Arity::EqOnly},
    {"build-id", Arity::EqOnly},
    {"hash-style", Arity::Value},
    {"plugin-opt", Arity::EqOnly},
    {"fuse-ld", Arity::EqOnly},
    {"image-base", Arity::Value},
    {"Ttext", Arity::Value},
    {"Tdata", Arity::Value},
    {"Tbss", Arity::Value},
};

const LinkerOption *findLong(StringRef Name) {
  for (const LinkerOption &O : LongOptions)
    if (Name == O.Name)
      return &O;
  return nullptr;
}

/// Options with no bearing on which symbols are linked in or exported.
bool isHarmless(StringRef Name) {
  static const std::set<std::string, std::less<>> Names = {
      "eh-frame-hdr", "no-eh-frame-hdr", "fatal-warnings", "no-fatal-warnings",
      "warn-common", "color-diagnostics", "threads", "icf", "discard-all",
      "discard-locals", "strip-all", "strip-debug", "print-gc-sections",
      "print-map", "cref", "stats", "enable-new-dtags", "disable-new-dtags",
      "warn-backrefs", "error-limit", "demangle", "no-demangle", "relax",
      "no-relax", "compress-debug-sections", "gdb-index", "pack-dyn-relocs",
      "undefined-version", "no-undefined-version", "sort-common",
      "sort-section", "verbose", "trace", "print-archive-stats",
      "noinhibit-exec", "warn-once", "Bsymbolic", "Bsymbolic-functions",
      "Bno-symbolic", "nostdlib", "time-trace", "no-warn-mismatch",
      "emit-relocs", "no-keep-memory", "reduce-memory-overheads",
      "no-copy-dt-needed-entries", "warn-shared-textrel", "no-warn-rwx-segments",
      "warn-rwx-segments", "no-warn-execstack", "build-id", "hash-style",
      "O1", "O2", "O3", "O0", "fuse-ld", "plugin-opt", "why-extract",
      "lto-O0", "lto-O1", "lto-O2", "lto-O3", "thinlto-jobs", "Map",
      "print-dependencies", "dependency-file", "no-rosegment", "rosegment",
      "separate-code", "no-separate-code", "ld-path"};
  return Names.count(Name) != 0;
}

/// Single-letter options and whether they take a value (joined or next).
std::optional<bool> shortOption(char C) {
  switch (C) {
  case 'l': case 'L': case 'u': case 'o': case 'e': case 'T': case 'h':
  case 'R': case 'm': case 'z': case 'y': case 'F': case 'f': case 'A':
  case 'b': case 'c': case 'G': case 'I': case 'Y':
    return true;
  case 'E': case 's': case 'S': case 'x': case 'X': case 't': case 'v':
  case 'V': case 'M': case 'n': case 'N': case 'r': case 'i': case 'q':
  case 'g': case 'd': case 'P': case 'O':
    return false;
  default:
    return std::nullopt;
  }
}

} // namespace

Error LinkerParser::parse(std::vector<std::string> Words,
                          std::vector<int> Tokens, bool Written) {
  Tokens.resize(Words.size(), -1);
  for (size_t I = 0; I < Words.size(); ++I) {
    StringRef W = Words[I];
    int Tok = Tokens[I];
    auto Next = [&]() -> std::optional<std::string> {
      if (I + 1 >= Words.size())
        return std::nullopt;
      return Words[++I];
    };
    if (isResponseFile(W)) {
      std::vector<std::string> Inner{W.str()};
      if (Error E = expandResponseFiles(Inner, Cwd, &L.ResponseFiles))
        return E;
      if (Error E = parse(std::move(Inner), {}, Written))
        return E;
      continue;
    }
    if (W == "-(") {
      L.Args.push_back({LinkArg::Kind::GroupStart, "", Tok, Written});
      continue;
    }
    if (W == "-)") {
      L.Args.push_back({LinkArg::Kind::GroupEnd, "", Tok, Written});
      continue;
    }
    if (W.size() < 2 || W[0] != '-') {
      L.Args.push_back({LinkArg::Kind::File, W.str(), Tok, Written});
      continue;
    }

    // Long option, one dash or two.
    StringRef Body = W.drop_front(W.starts_with("--") ? 2 : 1);
    StringRef Name = Body.take_until([](char C) { return C == '='; });
    std::optional<std::string> Value;
    if (Body.size() > Name.size())
      Value = Body.drop_front(Name.size() + 1).str();
    const LinkerOption *Opt = findLong(Name);
    // One dash and not a long name: a letter with its value joined.
    if (!Opt && !W.starts_with("--")) {
      auto TakesValue = shortOption(W[1]);
      if (TakesValue) {
        std::string Val;
        if (*TakesValue) {
          if (W.size() > 2) {
            Val = W.drop_front(2).str();
          } else if (auto N = Next()) {
            Val = *N;
          } else {
            L.Ignored.push_back(W.str());
            continue;
          }
        }
        shortOptionSeen(W[1], Val, W, Tok, Written);
        continue;
      }
    }
    if (!Opt) {
      if (!isHarmless(Name))
        L.Ignored.push_back(W.str());
      continue;
    }
    if (Opt->A == Arity::Flag && Value) {
      L.Ignored.push_back(W.str());
      continue;
    }
    if (Opt->A == Arity::Value && !Value) {
      Value = Next();
      if (!Value) {
        L.Ignored.push_back(W.str());
        continue;
      }
    }
    longOptionSeen(Name, Value.value_or(""), W, Tok, Written);
  }
  return Error::success();
}

void LinkerParser::addLibrary(StringRef Name, int Tok, bool Written) {
  L.Args.push_back({LinkArg::Kind::Library, Name.str(), Tok, Written});
}

void LinkerParser::addSearchDir(StringRef D) {
  std::string Dir = D.str();
  if (D.starts_with("=") && !L.Sysroot.empty())
    Dir = L.Sysroot + D.drop_front().str();
  L.SearchDirs.push_back(absolute(Cwd, Dir));
}

void LinkerParser::zKeyword(StringRef K, StringRef Word) {
  if (K == "defs")
    L.NoUndefined = true;
  else if (K == "undefs")
    L.NoUndefined = false;
  else if (K == "muldefs")
    L.AllowMultipleDefinition = true;
  else
    L.Ignored.push_back(("-z " + K).str());
}

void LinkerParser::shortOptionSeen(char C, StringRef Val, StringRef Word,
                                   int Tok, bool Written) {
  switch (C) {
  case 'l': addLibrary(Val, Tok, Written); return;
  case 'L': addSearchDir(Val); return;
  case 'u': L.Undefined.push_back(Val.str()); return;
  case 'o': L.Output = Val.str(); return;
  case 'e': L.Entry = Val.str(); return;
  case 'E': L.ExportDynamic = true; return;
  case 'z': zKeyword(Val, Word); return;
  case 'I': SawDynamicLinker = true; return;
  case 'T':
    L.Ignored.push_back(("-T " + Val).str());
    L.Approximations.push_back(
        ("linker script " + Val +
         " is not read: its SECTIONS, KEEP and symbol assignments are not "
         "modelled")
            .str());
    return;
  case 'r':
    L.Approximations.push_back("-r (relocatable output) is not modelled");
    return;
  case 'h': case 'R': case 'm': case 'y': case 'F': case 'f': case 'A':
  case 'b': case 'c': case 'G': case 'Y': case 's': case 'S': case 'x':
  case 'X': case 't': case 'v': case 'V': case 'M': case 'n': case 'N':
  case 'i': case 'q': case 'g': case 'd': case 'P': case 'O':
    return; // no bearing on symbols
  default:
    L.Ignored.push_back(Word.str());
  }
}

void LinkerParser::longOptionSeen(StringRef N, StringRef V, StringRef Word,
                                  int Tok, bool Written) {
  using K = LinkArg::Kind;
  auto Push = [&](K Kind) { L.Args.push_back({Kind, "", Tok, Written}); };
  if (N == "whole-archive") return Push(K::WholeArchiveOn);
  if (N == "no-whole-archive") return Push(K::WholeArchiveOff);
  if (N == "start-group") return Push(K::GroupStart);
  if (N == "end-group") return Push(K::GroupEnd);
  if (N == "start-lib") return Push(K::LibStart);
  if (N == "end-lib") return Push(K::LibEnd);
  if (N == "Bstatic" || N == "dn" || N == "non_shared" || N == "static")
    return Push(K::StaticOn);
  if (N == "Bdynamic" || N == "dy" || N == "call_shared")
    return Push(K::StaticOff);
  if (N == "as-needed") return Push(K::AsNeededOn);
  if (N == "no-as-needed") return Push(K::AsNeededOff);
  if (N == "push-state") return Push(K::PushState);
  if (N == "pop-state") return Push(K::PopState);
  if (N == "export-dynamic") { L.ExportDynamic = true; return; }
  if (N == "no-export-dynamic") { L.ExportDynamic = false; return; }
  if (N == "gc-sections") { L.GcSections = true; return; }
  if (N == "no-gc-sections") { L.GcSections = false; return; }
  if (N == "shared" || N == "Bshareable") { SawShared = true; return; }
  if (N == "pie" || N == "pic-executable") { SawPie = true; return; }
  if (N == "no-pie") { SawNoPie = true; return; }
  if (N == "no-dynamic-linker") return;
  if (N == "dynamic-linker") { SawDynamicLinker = true; return; }
  if (N == "allow-multiple-definition") {
    L.AllowMultipleDefinition = true;
    return;
  }
  if (N == "no-undefined") { L.NoUndefined = true; return; }
  if (N == "allow-shlib-undefined") { L.AllowShlibUndefined = true; return; }
  if (N == "no-allow-shlib-undefined") {
    L.AllowShlibUndefined = false;
    return;
  }
  if (N == "dynamic-list-data") { L.DynamicListData = true; return; }
  if (N == "relocatable") {
    L.Approximations.push_back("-r (relocatable output) is not modelled");
    return;
  }
  if (N == "undefined") { L.Undefined.push_back(V.str()); return; }
  if (N == "require-defined") {
    L.Undefined.push_back(V.str());
    L.RequireDefined.push_back(V.str());
    return;
  }
  if (N == "library") return addLibrary(V, Tok, Written);
  if (N == "library-path") return addSearchDir(V);
  if (N == "output") { L.Output = V.str(); return; }
  if (N == "entry") { L.Entry = V.str(); return; }
  if (N == "export-dynamic-symbol") {
    L.ExportDynamicSymbols.push_back(V.str());
    return;
  }
  if (N == "export-dynamic-symbol-list") {
    L.ExportDynamicSymbolLists.push_back(absolute(Cwd, V));
    return;
  }
  if (N == "dynamic-list") {
    L.DynamicLists.push_back(absolute(Cwd, V));
    return;
  }
  if (N == "version-script") {
    L.VersionScripts.push_back(absolute(Cwd, V));
    return;
  }
  if (N == "exclude-libs") {
    SmallVector<StringRef, 4> Parts;
    V.split(Parts, ',');
    for (StringRef P : Parts) {
      SmallVector<StringRef, 4> Sub;
      P.split(Sub, ':');
      for (StringRef X : Sub)
        if (!X.empty())
          L.ExcludeLibs.push_back(X.str());
    }
    return;
  }
  if (N == "sysroot") { L.Sysroot = V.str(); return; }
  if (N == "script") {
    shortOptionSeen('T', V, Word, Tok, Written);
    return;
  }
  if (N == "wrap" || N == "defsym" || N == "just-symbols" ||
      N == "retain-symbols-file") {
    L.Ignored.push_back(Word.str() + (Word.contains('=') ? "" : " " + V.str()));
    L.Approximations.push_back(
        formatv("--{0} is not modelled: symbol resolution may differ", N)
            .str());
    return;
  }
  // soname, rpath, Map, plugin, ...: no bearing on what is linked in.
}

void LinkerParser::finish(bool DriverStatic) {
  if (SawShared)
    L.OutputKind = LinkOutputKind::SharedLibrary;
  else if (SawPie && !SawNoPie)
    L.OutputKind = LinkOutputKind::PIE;
  else
    L.OutputKind = LinkOutputKind::Executable;
  // A static executable has no dynamic section. The model decides that for
  // certain after reading the inputs (no shared library, no -pie); here it
  // only notes the request.
  if (DriverStatic && !SawShared && !SawPie)
    L.OutputKind = LinkOutputKind::StaticExecutable;
}

} // namespace aoti::audit::linker
