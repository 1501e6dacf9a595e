//===- link/CommandLine.cpp - Parsing a link command ----------------------===//
//
// Two layers. The driver layer reads what a user writes to gcc or clang
// (`-Wl,`, `-Xlinker`, `-rdynamic`, `-static`, `-fuse-ld=`) and translates
// it into linker words, remembering which word of the original command each
// input came from (so a fix can wrap exactly that word). The linker layer
// reads linker words (GNU ld and lld accept the same spellings, long options
// with one dash or two) into LinkCommandLine.
//
// For a driver, the linker words that are actually used are the driver's own
// (`DRIVER -### ARGS`): they carry the crt files, default -L directories and
// libraries, and defaults such as --as-needed. The hand translation is the
// fallback when the driver cannot be asked, and the map back to the user's
// words in both cases.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/CommandLine.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

#include <set>

using namespace llvm;

namespace aoti::audit {

StringRef toString(LinkFlavor F) {
  switch (F) {
  case LinkFlavor::GNU: return "gnu";
  case LinkFlavor::LLD: return "lld";
  case LinkFlavor::LD64: return "ld64";
  }
  return "?";
}

StringRef toString(LinkOutputKind K) {
  switch (K) {
  case LinkOutputKind::Executable: return "executable";
  case LinkOutputKind::PIE: return "pie";
  case LinkOutputKind::SharedLibrary: return "shared-library";
  case LinkOutputKind::StaticExecutable: return "static-executable";
  case LinkOutputKind::Bundle: return "bundle";
  }
  return "?";
}

namespace {

std::string absolute(StringRef Cwd, StringRef Path) {
  if (Path.empty() || sys::path::is_absolute(Path))
    return Path.str();
  SmallString<256> P(Cwd);
  sys::path::append(P, Path);
  return std::string(P);
}

/// "x86_64-linux-gnu-g++-12" -> "g++"; "ld.lld-19" -> "ld.lld".
StringRef programStem(StringRef Program) {
  StringRef Base = sys::path::filename(Program);
  // A trailing version: "-12", "-19.1".
  size_t Dash = Base.rfind('-');
  if (Dash != StringRef::npos && Dash + 1 < Base.size() &&
      Base.drop_front(Dash + 1).find_first_not_of("0123456789.") ==
          StringRef::npos)
    Base = Base.take_front(Dash);
  return Base;
}

bool isLauncher(StringRef Program) {
  StringRef S = sys::path::filename(Program);
  return S == "ccache" || S == "sccache" || S == "distcc" || S == "icecc" ||
         S == "env";
}

bool isSourceFile(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return StringSwitch<bool>(Ext)
      .Cases(".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", true)
      .Cases(".s", ".S", ".i", ".ii", ".f", ".f90", ".cu", ".sx", true)
      .Default(false);
}

// --- response files -----------------------------------------------------

/// dyld's path prefixes (`-rpath @loader_path/../lib`, `-install_name
/// @rpath/libx.dylib`): words that start with `@` and are not response files.
bool isDyldPath(StringRef W) {
  return W.starts_with("@loader_path") || W.starts_with("@executable_path") ||
         W.starts_with("@rpath");
}

bool isResponseFile(StringRef W) {
  return W.size() > 1 && W[0] == '@' && !isDyldPath(W);
}

Error expandResponseFiles(std::vector<std::string> &Words, StringRef Cwd,
                          std::vector<std::string> *Read, unsigned Depth = 0) {
  if (Depth > 20)
    return makeError("response files nest more than 20 deep");
  std::vector<std::string> Out;
  for (std::string &W : Words) {
    if (!isResponseFile(W)) {
      Out.push_back(std::move(W));
      continue;
    }
    std::string Path = absolute(Cwd, StringRef(W).drop_front());
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return makeError(formatv("response file {0}: {1}", Path,
                               Buf.getError().message()));
    if (Read)
      Read->push_back(Path);
    BumpPtrAllocator A;
    StringSaver Saver(A);
    SmallVector<const char *, 32> Toks;
    cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
    std::vector<std::string> Inner(Toks.begin(), Toks.end());
    if (Error E = expandResponseFiles(Inner, Cwd, Read, Depth + 1))
      return E;
    for (std::string &I : Inner)
      Out.push_back(std::move(I));
  }
  Words = std::move(Out);
  return Error::success();
}

// --- the driver layer ---------------------------------------------------

/// The user's command translated into linker words.
struct DriverView {
  std::vector<std::string> Words;
  std::vector<int> WordToken; // original token per word, -1 when ambiguous
  std::string FuseLd;         // -fuse-ld=
  std::string LdPath;         // --ld-path=
  std::string Output = "a.out";
  bool Shared = false, Static = false, StaticPie = false, NoPie = false,
       Pie = false, NoStdLib = false, NoDefaultLibs = false,
       NoStartFiles = false;
  /// The driver targets Apple platforms (-target *-apple-*, -arch): it
  /// runs ld64, whose words the driver flags below translate to.
  bool Apple = false;
  bool Bundle = false;
  std::vector<std::string> Sources;
};

/// Driver options whose value is the next word (and that the linker does not
/// need).
bool driverOptionTakesValue(StringRef A) {
  return StringSwitch<bool>(A)
      .Cases("-x", "-MF", "-MT", "-MQ", "-include", "-imacros", "-isystem",
             true)
      .Cases("-idirafter", "-iquote", "-iprefix", "-iwithprefix", "-isysroot",
             true)
      .Cases("-target", "-arch", "-Xclang", "-Xassembler", "-Xpreprocessor",
             true)
      .Cases("--param", "-aux-info", "-D", "-U", "-I", "-specs", "-B", true)
      .Cases("-dumpdir", "-dumpbase", "-dumpbase-ext", "-Xcuda-fatbinary",
             true)
      .Cases("-Xcuda-ptxas", "-ccc-gcc-name", "--serialize-diagnostics", true)
      .Default(false);
}

DriverView translateDriver(ArrayRef<std::string> Argv) {
  DriverView V;
  auto Emit = [&](std::string W, int Tok) {
    V.Words.push_back(std::move(W));
    V.WordToken.push_back(Tok);
  };
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    int Tok = int(I);
    bool HasNext = I + 1 < Argv.size();
    if (A.consume_front("-Wl,")) {
      SmallVector<StringRef, 8> Parts;
      A.split(Parts, ',');
      for (StringRef P : Parts)
        Emit(P.str(), Parts.size() == 1 ? Tok : -1);
      continue;
    }
    if (A == "-Xlinker") {
      if (HasNext)
        Emit(Argv[++I], -1);
      continue;
    }
    if (A == "-l" || A == "-L" || A == "-u" || A == "-e" || A == "-T" ||
        A == "-z") {
      if (HasNext) {
        Emit((A + Argv[I + 1]).str(), A == "-l" ? -1 : Tok);
        ++I;
      }
      continue;
    }
    if (A == "-o") {
      if (HasNext)
        V.Output = Argv[++I];
      continue;
    }
    if (A.starts_with("-l") || A.starts_with("-L")) {
      Emit(A.str(), Tok);
      continue;
    }
    if (A.starts_with("-u") && A.size() > 2 && !A.starts_with("-undef")) {
      Emit(("-u" + A.drop_front(2)).str(), Tok);
      continue;
    }
    if (A == "-target" || A.starts_with("--target=")) {
      StringRef T = A == "-target" ? (HasNext ? StringRef(Argv[++I]) : "")
                                   : A.drop_front(9);
      V.Apple |= T.contains("apple") || T.contains("darwin") ||
                 T.contains("macos");
      continue;
    }
    if (A == "-arch") {
      V.Apple = true;
      if (HasNext) {
        Emit("-arch", -1);
        Emit(Argv[++I], -1);
      }
      continue;
    }
    // Driver spellings of ld64 options (clang and Apple's gcc pass them on).
    if (A == "-dynamiclib") {
      V.Shared = true;
      continue;
    }
    if (A == "-bundle") {
      V.Bundle = true;
      continue;
    }
    if (A == "-isysroot") {
      if (HasNext) {
        Emit("-syslibroot", -1);
        Emit(Argv[++I], -1);
      }
      continue;
    }
    if (A == "-force_load" || A == "-bundle_loader" || A == "-undefined" ||
        A == "-framework" || A == "-exported_symbols_list" ||
        A == "-unexported_symbols_list" || A == "-weak_framework" ||
        A == "-needed_framework" || A == "-exported_symbol" ||
        A == "-unexported_symbol") {
      Emit(A.str(), Tok);
      if (HasNext) {
        ++I;
        Emit(Argv[I], int(I));
      }
      continue;
    }
    if (A == "-all_load" || A == "-ObjC" || A == "-dead_strip" ||
        A == "-flat_namespace" || A == "-export_dynamic") {
      Emit(A.str(), Tok);
      continue;
    }
    if (A.starts_with("-F") && A.size() > 2) {
      Emit(A.str(), Tok);
      continue;
    }
    if (A == "-rdynamic") {
      Emit("--export-dynamic", Tok);
      continue;
    }
    if (A == "-shared") {
      V.Shared = true;
      continue;
    }
    if (A == "-static") {
      V.Static = true;
      continue;
    }
    if (A == "-static-pie") {
      V.StaticPie = true;
      continue;
    }
    if (A == "-pie") {
      V.Pie = true;
      continue;
    }
    if (A == "-no-pie" || A == "-nopie") {
      V.NoPie = true;
      continue;
    }
    if (A == "-nostdlib") {
      V.NoStdLib = true;
      continue;
    }
    if (A == "-nodefaultlibs") {
      V.NoDefaultLibs = true;
      continue;
    }
    if (A == "-nostartfiles") {
      V.NoStartFiles = true;
      continue;
    }
    if (A.consume_front("-fuse-ld=")) {
      V.FuseLd = A.str();
      continue;
    }
    if (A.consume_front("--ld-path=")) {
      V.LdPath = A.str();
      continue;
    }
    if (A.starts_with("--sysroot=") || A == "-Bstatic" || A == "-Bdynamic") {
      Emit(A.str(), Tok);
      continue;
    }
    if (A == "--sysroot") {
      if (HasNext)
        Emit("--sysroot=" + Argv[++I], -1);
      continue;
    }
    if (driverOptionTakesValue(A)) {
      ++I;
      continue;
    }
    if (A.starts_with("-"))
      continue; // compile and code generation flags
    if (isSourceFile(A)) {
      V.Sources.push_back(A.str());
      continue;
    }
    Emit(A.str(), Tok);
  }
  return V;
}

// --- the linker layer ---------------------------------------------------

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

struct LinkerParser {
  LinkCommandLine &L;
  StringRef Cwd;
  bool SawPie = false, SawNoPie = false, SawShared = false,
       SawDynamicLinker = false;

  Error parse(std::vector<std::string> Words, std::vector<int> Tokens,
              bool Written) {
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

  void addLibrary(StringRef Name, int Tok, bool Written) {
    L.Args.push_back({LinkArg::Kind::Library, Name.str(), Tok, Written});
  }

  void addSearchDir(StringRef D) {
    std::string Dir = D.str();
    if (D.starts_with("=") && !L.Sysroot.empty())
      Dir = L.Sysroot + D.drop_front().str();
    L.SearchDirs.push_back(absolute(Cwd, Dir));
  }

  void zKeyword(StringRef K, StringRef Word) {
    if (K == "defs")
      L.NoUndefined = true;
    else if (K == "undefs")
      L.NoUndefined = false;
    else if (K == "muldefs")
      L.AllowMultipleDefinition = true;
    else
      L.Ignored.push_back(("-z " + K).str());
  }

  void shortOptionSeen(char C, StringRef Val, StringRef Word, int Tok,
                       bool Written) {
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

  void longOptionSeen(StringRef N, StringRef V, StringRef Word, int Tok,
                      bool Written) {
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

  void finish(bool DriverStatic) {
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
};

/// -fuse-ld=lld, --ld-path=/usr/bin/ld.lld, "ld.lld" as the program.
std::optional<LinkFlavor> flavorOfLinkerName(StringRef Name) {
  StringRef S = programStem(Name);
  if (S.consume_front("ld."))
    return S == "lld" || S == "mold" ? LinkFlavor::LLD : LinkFlavor::GNU;
  if (S == "ld64.lld" || S == "ld64" || S.ends_with("-ld64"))
    return LinkFlavor::LD64;
  if (S == "lld" || S == "mold" || S.ends_with("-ld.lld"))
    return LinkFlavor::LLD;
  if (S == "bfd" || S == "gold" || S == "ld" || S.ends_with("-ld") ||
      S == "collect2")
    return LinkFlavor::GNU;
  return std::nullopt;
}

// --- the ld64 layer -----------------------------------------------------
//
// ld64 and ld64.lld share one spelling: one dash, long names with
// underscores, values in the following words (`-force_load PATH`,
// `-platform_version macos 11.0 14.0`), a few joined (`-lNAME`, `-LDIR`,
// `-needed-lNAME`). Options with no bearing on what is linked in or
// exported are stepped over with their values.

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

/// Whether a linker command (the words after argv[0] included) is ld64's:
/// the program is ld64 or ld64.lld, or Apple's `ld` with its -arch or
/// platform options (GNU ld has none of them).
bool looksLikeLd64(ArrayRef<std::string> Words) {
  if (Words.empty())
    return false;
  if (flavorOfLinkerName(Words.front()) == LinkFlavor::LD64)
    return true;
  for (size_t I = 1; I < Words.size(); ++I) {
    StringRef W = Words[I];
    if (W == "-arch" || W == "-platform_version" ||
        W == "-macosx_version_min" || W == "-macos_version_min" ||
        W == "-syslibroot" || W == "-dylib" || W == "-bundle")
      return true;
  }
  return false;
}

struct Ld64Parser {
  LinkCommandLine &L;
  StringRef Cwd;
  bool SawDylib = false, SawBundle = false, SawStatic = false;

  void add(LinkArg::Kind K, StringRef V, int Tok, bool Written) {
    L.Args.push_back({K, V.str(), Tok, Written});
  }

  void addSearchDir(std::vector<std::string> &Into, StringRef D) {
    Into.push_back(absolute(Cwd, D));
  }

  Error readFileList(StringRef Arg, bool Written) {
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

  Error parse(std::vector<std::string> Words, std::vector<int> Tokens,
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

  /// -needed-lNAME, -weak-lNAME, ...: a library read as -lNAME is.
  bool joinedLibrary(StringRef W, int Tok, bool Written) {
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

  /// A flag the model acts on; false when W is not one.
  bool flagOption(StringRef W) {
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

  /// W and its value V; ValTok is V's word in LinkCommandLine::Argv.
  Error valueOption(StringRef W, StringRef V, int ValTok, bool Written) {
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

  void finish() {
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
};

/// Finds the linker command in `DRIVER -###` output.
Expected<std::vector<std::string>> linkerLineFromDriver(StringRef Output,
                                                        StringRef Driver) {
  SmallVector<StringRef, 16> Lines;
  Output.split(Lines, '\n');
  std::vector<std::string> Found;
  for (StringRef Line : Lines) {
    if (!Line.starts_with(" "))
      continue;
    std::vector<std::string> Words = splitShellWords(Line);
    if (Words.empty())
      continue;
    StringRef Stem = programStem(Words[0]);
    if (Stem == "cc1" || Stem == "cc1plus" || Stem == "as" ||
        (Words.size() > 1 && Words[1] == "-cc1") ||
        (Words.size() > 1 && Words[1] == "-cc1as"))
      return makeError(formatv("{0} would compile sources with this command; "
                               "lint the command that links the objects",
                               Driver));
    if (classifyProgram(Words[0]) == LinkCommandKind::Linker)
      Found = std::move(Words);
  }
  if (Found.empty())
    return makeError(formatv("`{0} -###` printed no linker command", Driver));
  return Found;
}

} // namespace

// --- public helpers -------------------------------------------------------

std::optional<LinkCommandKind> classifyProgram(StringRef Program) {
  StringRef S = programStem(Program);
  auto EndsWithTool = [&](StringRef Tool) {
    return S == Tool || S.ends_with(("-" + Tool).str());
  };
  if (EndsWithTool("clang") || EndsWithTool("clang++"))
    return LinkCommandKind::ClangDriver;
  if (EndsWithTool("gcc") || EndsWithTool("g++") || EndsWithTool("cc") ||
      EndsWithTool("c++"))
    return LinkCommandKind::GccDriver;
  if (flavorOfLinkerName(Program))
    return LinkCommandKind::Linker;
  return std::nullopt;
}

std::vector<std::string> splitShellWords(StringRef Line) {
  BumpPtrAllocator A;
  StringSaver Saver(A);
  SmallVector<const char *, 64> Toks;
  cl::TokenizeGNUCommandLine(Line, Saver, Toks);
  return std::vector<std::string>(Toks.begin(), Toks.end());
}

std::vector<std::string> pickLinkCommand(StringRef ShellLine, std::string &Cwd) {
  std::vector<std::string> Words = splitShellWords(ShellLine);
  std::vector<std::vector<std::string>> Commands(1);
  for (std::string &W : Words) {
    if (W == "&&" || W == ";" || W == "||") {
      Commands.emplace_back();
      continue;
    }
    Commands.back().push_back(std::move(W));
  }
  std::vector<std::string> Picked;
  std::string Dir = Cwd, PickedDir;
  for (std::vector<std::string> &C : Commands) {
    if (C.empty())
      continue;
    if (C[0] == "cd" && C.size() > 1) {
      Dir = absolute(Dir, C[1]);
      continue;
    }
    size_t First = 0;
    while (First < C.size() && isLauncher(C[First]))
      ++First;
    if (First < C.size() && classifyProgram(C[First])) {
      Picked = C;
      PickedDir = Dir;
    }
  }
  if (!Picked.empty())
    Cwd = PickedDir;
  return Picked;
}

std::string joinShellWords(ArrayRef<std::string> Words) {
  std::string Out;
  for (const std::string &W : Words) {
    if (!Out.empty())
      Out += ' ';
    bool Plain = !W.empty() && W.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
                                   "RSTUVWXYZ0123456789-_./=,:+@%") ==
                                   std::string::npos;
    if (Plain) {
      Out += W;
      continue;
    }
    Out += '\'';
    for (char C : W) {
      if (C == '\'')
        Out += "'\\''";
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

Expected<std::string> runAndCapture(StringRef Program, ArrayRef<std::string> Args,
                                    StringRef Dir, int *Status) {
  std::string Exe = Program.str();
  if (!Program.contains('/')) {
    auto Found = sys::findProgramByName(Program);
    if (!Found)
      return makeError(formatv("{0}: not found on PATH", Program));
    Exe = *Found;
  }
  auto Shell = sys::findProgramByName("sh");
  if (!Shell)
    return makeError("sh: not found on PATH");
  SmallString<128> Tmp;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("aoti-audit-run", "txt", Tmp))
    return makeError("cannot create a temporary file: " + EC.message());
  // `sh -c 'cd "$0" && exec "$@"' DIR PROGRAM ARGS...`: runs in DIR without
  // changing this process's directory.
  std::vector<StringRef> Argv{*Shell, "-c", "cd \"$0\" && exec \"$@\"",
                              Dir.empty() ? StringRef(".") : Dir, Exe};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Tmp),
                                          StringRef(Tmp)};
  std::string ErrMsg;
  int RC = sys::ExecuteAndWait(*Shell, Argv, std::nullopt, Redirects,
                               /*SecondsToWait=*/120, 0, &ErrMsg);
  auto Buf = MemoryBuffer::getFile(Tmp);
  sys::fs::remove(Tmp);
  if (RC < 0)
    return makeError(formatv("{0}: {1}", Program, ErrMsg));
  if (Status)
    *Status = RC;
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

std::vector<std::string> queryDefaultSearchDirs(const LinkCommandLine &L) {
  std::vector<std::string> Dirs;
  int RC = 0;
  if (L.isDriver()) {
    auto Out = runAndCapture(L.Program, {"-print-search-dirs"}, L.Cwd, &RC);
    if (!Out) {
      consumeError(Out.takeError());
      return Dirs;
    }
    SmallVector<StringRef, 8> Lines;
    StringRef(*Out).split(Lines, '\n');
    for (StringRef Line : Lines) {
      if (!Line.consume_front("libraries: "))
        continue;
      Line.consume_front("=");
      SmallVector<StringRef, 16> Parts;
      Line.split(Parts, ':', -1, false);
      for (StringRef P : Parts)
        Dirs.push_back(P.str());
    }
    return Dirs;
  }
  if (L.Flavor != LinkFlavor::GNU)
    return Dirs; // lld has no built-in directories
  auto Out = runAndCapture(L.Program, {"--verbose"}, L.Cwd, &RC);
  if (!Out) {
    consumeError(Out.takeError());
    return Dirs;
  }
  StringRef Rest = *Out;
  while (true) {
    size_t At = Rest.find("SEARCH_DIR(\"");
    if (At == StringRef::npos)
      break;
    Rest = Rest.drop_front(At + 12);
    StringRef D = Rest.take_until([](char C) { return C == '"'; });
    D.consume_front("=");
    Dirs.push_back((L.Sysroot + D).str());
  }
  return Dirs;
}

// --- parseLinkCommand -----------------------------------------------------

Expected<LinkCommandLine> parseLinkCommand(ArrayRef<std::string> ArgvIn,
                                           const LinkParseOptions &Opts) {
  LinkCommandLine L;
  if (!Opts.Cwd.empty()) {
    L.Cwd = Opts.Cwd;
  } else {
    SmallString<256> Cur;
    sys::fs::current_path(Cur);
    L.Cwd = std::string(Cur);
  }
  std::vector<std::string> Argv(ArgvIn.begin(), ArgvIn.end());
  while (!Argv.empty() && isLauncher(Argv.front())) {
    Argv.erase(Argv.begin());
    while (!Argv.empty() && StringRef(Argv.front()).contains('=') &&
           !StringRef(Argv.front()).starts_with("-"))
      Argv.erase(Argv.begin()); // env NAME=VALUE
  }
  if (Argv.empty())
    return makeError("no link command given (write it after `--`)");
  if (Error E = expandResponseFiles(Argv, L.Cwd, &L.ResponseFiles))
    return E;
  L.Argv = Argv;
  L.Program = Argv.front();
  auto Kind = classifyProgram(L.Program);
  if (!Kind)
    return makeError(
        formatv("{0} is neither a compiler driver (gcc, g++, clang, clang++, "
                "cc, c++) nor a linker (ld, ld.bfd, ld.gold, ld.lld, mold)",
                L.Program));
  L.Kind = *Kind;

  LinkerParser P{L, L.Cwd};
  Ld64Parser P64{L, L.Cwd};
  if (L.Kind == LinkCommandKind::Linker) {
    std::vector<std::string> Words(Argv.begin() + 1, Argv.end());
    std::vector<int> Tokens;
    for (size_t I = 1; I < Argv.size(); ++I)
      Tokens.push_back(int(I));
    bool Ld64 = looksLikeLd64(Argv);
    if (Ld64) {
      if (Error E = P64.parse(std::move(Words), std::move(Tokens), true))
        return E;
      P64.finish();
      L.Flavor = LinkFlavor::LD64;
    } else {
      if (Error E = P.parse(std::move(Words), std::move(Tokens), true))
        return E;
      P.finish(false);
      L.Flavor = *flavorOfLinkerName(L.Program);
    }
    L.FlavorReason =
        formatv("the command runs {0}{1}", sys::path::filename(L.Program),
                Ld64 && flavorOfLinkerName(L.Program) != LinkFlavor::LD64
                    ? " with ld64's options (-arch, -platform_version)"
                    : "")
            .str();
  } else {
    DriverView V = translateDriver(Argv);
    if (!V.Sources.empty())
      return makeError(formatv("the command compiles {0}; lint the command "
                               "that links the objects",
                               V.Sources.front()));
    // The flavor the user asked for.
    std::optional<LinkFlavor> Asked;
    if (!V.LdPath.empty()) {
      Asked = flavorOfLinkerName(V.LdPath);
      L.FlavorReason = "--ld-path=" + V.LdPath;
    } else if (!V.FuseLd.empty()) {
      Asked = flavorOfLinkerName(V.FuseLd.find('/') == std::string::npos
                                     ? "ld." + V.FuseLd
                                     : V.FuseLd);
      L.FlavorReason = "-fuse-ld=" + V.FuseLd;
    }

    bool Queried = false;
    bool Ld64 = V.Apple;
    if (Opts.QueryDriver) {
      std::vector<std::string> QArgs{"-###"};
      QArgs.insert(QArgs.end(), Argv.begin() + 1, Argv.end());
      int RC = 0;
      auto Out = runAndCapture(L.Program, QArgs, L.Cwd, &RC);
      if (Out && RC == 0) {
        auto Line = linkerLineFromDriver(*Out, L.Program);
        if (!Line)
          return Line.takeError();
        // Map the driver's words back to the user's: inputs by value, in
        // order, so `-lshims` in the driver's line is the user's `-lshims`.
        Ld64 = looksLikeLd64(*Line);
        LinkCommandLine Mine;
        LinkerParser Own{Mine, L.Cwd};
        Ld64Parser Own64{Mine, L.Cwd};
        if (Error E = Ld64 ? Own64.parse(V.Words, V.WordToken, true)
                           : Own.parse(V.Words, V.WordToken, true))
          return E;
        std::vector<std::string> LinkerWords(Line->begin() + 1, Line->end());
        if (Error E = Ld64 ? P64.parse(std::move(LinkerWords), {}, false)
                           : P.parse(std::move(LinkerWords), {}, false))
          return E;
        std::vector<bool> Used(Mine.Args.size(), false);
        for (LinkArg &A : L.Args) {
          if (A.ArgKind != LinkArg::Kind::File &&
              A.ArgKind != LinkArg::Kind::Library &&
              A.ArgKind != LinkArg::Kind::ForceLoad)
            continue;
          for (size_t I = 0; I < Mine.Args.size(); ++I) {
            if (Used[I] || Mine.Args[I].ArgKind != A.ArgKind ||
                Mine.Args[I].Value != A.Value)
              continue;
            Used[I] = true;
            A.Written = true;
            A.Token = Mine.Args[I].Token;
            break;
          }
        }
        if (Ld64) {
          Asked = LinkFlavor::LD64;
          L.FlavorReason =
              formatv("{0} runs {1} for an Apple target",
                      sys::path::filename(L.Program),
                      sys::path::filename((*Line)[0]))
                  .str();
        } else if (!Asked) {
          auto F = flavorOfLinkerName((*Line)[0]);
          Asked = F;
          L.FlavorReason =
              formatv("{0} runs {1}", sys::path::filename(L.Program),
                      sys::path::filename((*Line)[0]))
                  .str();
          if (programStem((*Line)[0]) == "collect2") {
            Asked = LinkFlavor::GNU;
            L.FlavorReason = formatv("{0} links with GNU ld by default",
                                     sys::path::filename(L.Program))
                                 .str();
          }
        }
        Queried = true;
        L.DriverQueried = true;
      } else {
        std::string Why = Out ? formatv("exit status {0}: {1}", RC,
                                        StringRef(*Out).trim().take_front(300))
                                    .str()
                              : toString(Out.takeError());
        L.Approximations.push_back(
            formatv("`{0} -###` failed ({1}); driver flags were translated "
                    "by hand",
                    L.Program, Why)
                .str());
      }
    }
    if (!Queried && Ld64) {
      if (Error E = P64.parse(V.Words, V.WordToken, true))
        return E;
      P64.SawDylib |= V.Shared;
      P64.SawBundle |= V.Bundle;
      P64.SawStatic |= V.Static;
      Asked = LinkFlavor::LD64;
      L.FlavorReason = formatv("{0} targets an Apple platform",
                               sys::path::filename(L.Program))
                           .str();
      L.Approximations.push_back(
          "the driver's implicit inputs (-lSystem, the SDK's directories) "
          "are not read: references nothing on the line defines are assumed "
          "to come from them");
    } else if (!Queried) {
      if (Error E = P.parse(V.Words, V.WordToken, true))
        return E;
      if (V.Shared)
        P.SawShared = true;
      if (V.StaticPie || (!V.NoPie && !V.Static && !V.Shared))
        P.SawPie = true; // distributions default to PIE
      if (V.StaticPie)
        L.Args.insert(L.Args.begin(), {LinkArg::Kind::StaticOn, "", -1, false});
      if (V.Static)
        L.Args.insert(L.Args.begin(), {LinkArg::Kind::StaticOn, "", -1, false});
      if (!V.NoStdLib && !V.NoDefaultLibs)
        L.Approximations.push_back(
            "the driver's implicit inputs (crt files, libc, libstdc++, "
            "libgcc) are not read: references nothing on the line defines "
            "are assumed to come from them");
    }
    if (V.Output != "a.out" || L.Output == "a.out")
      L.Output = V.Output;
    if (Ld64)
      P64.finish();
    else
      P.finish(V.Static && !V.StaticPie);
    L.Flavor = Asked.value_or(LinkFlavor::GNU);
    if (L.FlavorReason.empty())
      L.FlavorReason = formatv("{0} links with GNU ld by default",
                               sys::path::filename(L.Program))
                           .str();
  }
  if (Opts.Flavor) {
    // ld64's words are not GNU ld's: the flavor of a line is its own.
    if ((*Opts.Flavor == LinkFlavor::LD64) != L.isMachO())
      return makeError(
          L.isMachO()
              ? formatv("--flavor {0}: the command is an ld64 link (Mach-O); "
                        "its archives are resolved as lld does already",
                        toString(*Opts.Flavor))
                    .str()
              : "--flavor ld64: the command is not an ld64 link (no -arch, "
                "no Apple target)");
    L.Flavor = *Opts.Flavor;
    L.FlavorReason = "--flavor";
  }
  if (L.Output.empty())
    L.Output = "a.out";
  L.Output = absolute(L.Cwd, L.Output);
  return L;
}

} // namespace aoti::audit
