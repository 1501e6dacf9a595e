//===- link/GnuOptions.cpp - GNU ld's and lld's options -----------------===//
//
// The linker layer for ELF: the words GNU ld, gold, lld and mold accept (the
// same spellings) read into LinkCommandLine. One table holds every long
// option the model knows, each name once, with its arity and what it does;
// one more holds the single letters.
//
// A word is read as lld's and GNU ld's getopt read it: `-(` and `-)` are
// groups; a word without a dash is a file; `--NAME` or `-NAME` is looked up
// in the long table (a value joined with `=` or, for a Value option, in the
// next word); a one-dash word that is not a long name is a letter with its
// value joined or in the next word (`-lfoo`, `-L dir`). Options the table
// marks Harmless are stepped over (they have no bearing on which symbols
// are linked in or exported) only where no letter reads them first; any
// other word with a dash is recorded as ignored and takes no value.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace aoti::audit::linker {

namespace {

using K = LinkArg::Kind;
using Parser = GnuOptionParser;

/// One reading of an option: its value and where it was written.
struct Seen {
  StringRef Name;  // the long name, or the letter
  StringRef Value; // empty for a flag
  StringRef Word;  // the word as written
  int Tok;
  bool Written;
};

using Action = void (*)(Parser &P, const Seen &S);

enum class Arity : uint8_t {
  Flag,     // --NAME; --NAME=VALUE is not this option (ignored)
  Value,    // --NAME VALUE or --NAME=VALUE
  EqOnly,   // --NAME or --NAME=VALUE, never the next word
  Harmless, // no bearing on symbols: stepped over (a value only joined)
};

struct GnuOption {
  const char *Name;
  Arity A;
  Action Act; // null: read, but nothing the model uses
};

template <K Kind> void push(Parser &P, const Seen &S) {
  P.L.Args.push_back({Kind, "", S.Tok, S.Written});
}

void library(Parser &P, const Seen &S) {
  P.addLibrary(S.Value, S.Tok, S.Written);
}
void searchDir(Parser &P, const Seen &S) { P.addSearchDir(S.Value); }
void undefined(Parser &P, const Seen &S) {
  P.L.Undefined.push_back(S.Value.str());
}
void output(Parser &P, const Seen &S) { P.L.Output = S.Value.str(); }
void entry(Parser &P, const Seen &S) { P.L.Entry = S.Value.str(); }
void exportDynamic(Parser &P, const Seen &) { P.L.ExportDynamic = true; }
void dynamicLinker(Parser &P, const Seen &) {
  P.SawDynamicLinker = true;
}
void relocatable(Parser &P, const Seen &) {
  P.L.Approximations.push_back("-r (relocatable output) is not modelled");
}
void script(Parser &P, const Seen &S) {
  P.L.Ignored.push_back(("-T " + S.Value).str());
  P.L.Approximations.push_back(
      ("linker script " + S.Value +
       " is not read: its SECTIONS, KEEP and symbol assignments are not "
       "modelled")
          .str());
}
/// --wrap, --defsym, ...: they change symbol resolution in ways not replayed.
void notModelled(Parser &P, const Seen &S) {
  P.L.Ignored.push_back(S.Word.str() +
                        (S.Word.contains('=') ? "" : " " + S.Value.str()));
  P.L.Approximations.push_back(
      formatv("--{0} is not modelled: symbol resolution may differ", S.Name)
          .str());
}
void zKeyword(Parser &P, const Seen &S) {
  if (S.Value == "defs")
    P.L.NoUndefined = true;
  else if (S.Value == "undefs")
    P.L.NoUndefined = false;
  else if (S.Value == "muldefs")
    P.L.AllowMultipleDefinition = true;
  else
    P.L.Ignored.push_back(("-z " + S.Value).str());
}
void excludeLibs(Parser &P, const Seen &S) {
  SmallVector<StringRef, 4> Parts;
  S.Value.split(Parts, ',');
  for (StringRef Part : Parts) {
    SmallVector<StringRef, 4> Sub;
    Part.split(Sub, ':');
    for (StringRef X : Sub)
      if (!X.empty())
        P.L.ExcludeLibs.push_back(X.str());
  }
}

constexpr Arity Flag = Arity::Flag, Value = Arity::Value,
                EqOnly = Arity::EqOnly, Harmless = Arity::Harmless;

// Every long option the model reads or must step over correctly.
const GnuOption LongOptions[] = {
    // The state inputs are read in.
    {"whole-archive", Flag, push<K::WholeArchiveOn>},
    {"no-whole-archive", Flag, push<K::WholeArchiveOff>},
    {"start-group", Flag, push<K::GroupStart>},
    {"end-group", Flag, push<K::GroupEnd>},
    {"start-lib", Flag, push<K::LibStart>},
    {"end-lib", Flag, push<K::LibEnd>},
    {"Bstatic", Flag, push<K::StaticOn>},
    {"dn", Flag, push<K::StaticOn>},
    {"non_shared", Flag, push<K::StaticOn>},
    {"static", Flag, push<K::StaticOn>},
    {"Bdynamic", Flag, push<K::StaticOff>},
    {"dy", Flag, push<K::StaticOff>},
    {"call_shared", Flag, push<K::StaticOff>},
    {"as-needed", Flag, push<K::AsNeededOn>},
    {"no-as-needed", Flag, push<K::AsNeededOff>},
    {"push-state", Flag, push<K::PushState>},
    {"pop-state", Flag, push<K::PopState>},
    {"library", Value, library},
    {"library-path", Value, searchDir},
    {"sysroot", Value, [](Parser &P, const Seen &S) {
       P.L.Sysroot = S.Value.str();
     }},
    // The output.
    {"output", Value, output},
    {"shared", Flag, [](Parser &P, const Seen &) { P.SawShared = true; }},
    {"Bshareable", Flag,
     [](Parser &P, const Seen &) { P.SawShared = true; }},
    {"pie", Flag, [](Parser &P, const Seen &) { P.SawPie = true; }},
    {"pic-executable", Flag,
     [](Parser &P, const Seen &) { P.SawPie = true; }},
    {"no-pie", Flag, [](Parser &P, const Seen &) { P.SawNoPie = true; }},
    {"no-dynamic-linker", Flag, nullptr},
    {"dynamic-linker", Value, dynamicLinker},
    {"relocatable", Flag, relocatable},
    // What decides extraction.
    {"undefined", Value, undefined},
    {"require-defined", Value, [](Parser &P, const Seen &S) {
       P.L.Undefined.push_back(S.Value.str());
       P.L.RequireDefined.push_back(S.Value.str());
     }},
    {"entry", Value, entry},
    {"gc-sections", Flag,
     [](Parser &P, const Seen &) { P.L.GcSections = true; }},
    {"no-gc-sections", Flag,
     [](Parser &P, const Seen &) { P.L.GcSections = false; }},
    // What decides exports.
    {"export-dynamic", Flag, exportDynamic},
    {"no-export-dynamic", Flag,
     [](Parser &P, const Seen &) { P.L.ExportDynamic = false; }},
    {"export-dynamic-symbol", Value, [](Parser &P, const Seen &S) {
       P.L.ExportDynamicSymbols.push_back(S.Value.str());
     }},
    {"export-dynamic-symbol-list", Value, [](Parser &P, const Seen &S) {
       P.L.ExportDynamicSymbolLists.push_back(absolute(P.Cwd, S.Value));
     }},
    {"dynamic-list", Value, [](Parser &P, const Seen &S) {
       P.L.DynamicLists.push_back(absolute(P.Cwd, S.Value));
     }},
    {"dynamic-list-data", Flag,
     [](Parser &P, const Seen &) { P.L.DynamicListData = true; }},
    {"version-script", Value, [](Parser &P, const Seen &S) {
       P.L.VersionScripts.push_back(absolute(P.Cwd, S.Value));
     }},
    {"exclude-libs", Value, excludeLibs},
    // What decides errors.
    {"allow-multiple-definition", Flag,
     [](Parser &P, const Seen &) { P.L.AllowMultipleDefinition = true; }},
    {"no-undefined", Flag,
     [](Parser &P, const Seen &) { P.L.NoUndefined = true; }},
    {"allow-shlib-undefined", Flag,
     [](Parser &P, const Seen &) { P.L.AllowShlibUndefined = true; }},
    {"no-allow-shlib-undefined", Flag,
     [](Parser &P, const Seen &) { P.L.AllowShlibUndefined = false; }},
    // Not modelled: noted as approximations.
    {"script", Value, script},
    {"wrap", Value, notModelled},
    {"defsym", Value, notModelled},
    {"just-symbols", Value, notModelled},
    {"retain-symbols-file", Value, notModelled},
    // Values to step over, no bearing on what is linked in.
    {"soname", Value, nullptr},
    {"rpath", Value, nullptr},
    {"rpath-link", Value, nullptr},
    {"plugin", Value, nullptr},
    {"Map", Value, nullptr},
    {"trace-symbol", Value, nullptr},
    {"auxiliary", Value, nullptr},
    {"filter", Value, nullptr},
    {"version-exports-section", Value, nullptr},
    {"why-extract", EqOnly, nullptr},
    {"build-id", EqOnly, nullptr},
    {"hash-style", Value, nullptr},
    {"plugin-opt", EqOnly, nullptr},
    {"fuse-ld", EqOnly, nullptr},
    {"image-base", Value, nullptr},
    {"Ttext", Value, nullptr},
    {"Tdata", Value, nullptr},
    {"Tbss", Value, nullptr},
    // Harmless: no bearing on which symbols are linked in or exported.
    {"eh-frame-hdr", Harmless, nullptr},
    {"no-eh-frame-hdr", Harmless, nullptr},
    {"fatal-warnings", Harmless, nullptr},
    {"no-fatal-warnings", Harmless, nullptr},
    {"warn-common", Harmless, nullptr},
    {"color-diagnostics", Harmless, nullptr},
    {"threads", Harmless, nullptr},
    {"icf", Harmless, nullptr},
    {"discard-all", Harmless, nullptr},
    {"discard-locals", Harmless, nullptr},
    {"strip-all", Harmless, nullptr},
    {"strip-debug", Harmless, nullptr},
    {"print-gc-sections", Harmless, nullptr},
    {"print-map", Harmless, nullptr},
    {"cref", Harmless, nullptr},
    {"stats", Harmless, nullptr},
    {"enable-new-dtags", Harmless, nullptr},
    {"disable-new-dtags", Harmless, nullptr},
    {"warn-backrefs", Harmless, nullptr},
    {"error-limit", Harmless, nullptr},
    {"demangle", Harmless, nullptr},
    {"no-demangle", Harmless, nullptr},
    {"relax", Harmless, nullptr},
    {"no-relax", Harmless, nullptr},
    {"compress-debug-sections", Harmless, nullptr},
    {"gdb-index", Harmless, nullptr},
    {"pack-dyn-relocs", Harmless, nullptr},
    {"undefined-version", Harmless, nullptr},
    {"no-undefined-version", Harmless, nullptr},
    {"sort-common", Harmless, nullptr},
    {"sort-section", Harmless, nullptr},
    {"verbose", Harmless, nullptr},
    {"trace", Harmless, nullptr},
    {"print-archive-stats", Harmless, nullptr},
    {"noinhibit-exec", Harmless, nullptr},
    {"warn-once", Harmless, nullptr},
    {"Bsymbolic", Harmless, nullptr},
    {"Bsymbolic-functions", Harmless, nullptr},
    {"Bno-symbolic", Harmless, nullptr},
    {"nostdlib", Harmless, nullptr},
    {"time-trace", Harmless, nullptr},
    {"no-warn-mismatch", Harmless, nullptr},
    {"emit-relocs", Harmless, nullptr},
    {"no-keep-memory", Harmless, nullptr},
    {"reduce-memory-overheads", Harmless, nullptr},
    {"no-copy-dt-needed-entries", Harmless, nullptr},
    {"warn-shared-textrel", Harmless, nullptr},
    {"no-warn-rwx-segments", Harmless, nullptr},
    {"warn-rwx-segments", Harmless, nullptr},
    {"no-warn-execstack", Harmless, nullptr},
    {"O1", Harmless, nullptr},
    {"O2", Harmless, nullptr},
    {"O3", Harmless, nullptr},
    {"O0", Harmless, nullptr},
    {"lto-O0", Harmless, nullptr},
    {"lto-O1", Harmless, nullptr},
    {"lto-O2", Harmless, nullptr},
    {"lto-O3", Harmless, nullptr},
    {"thinlto-jobs", Harmless, nullptr},
    {"print-dependencies", Harmless, nullptr},
    {"dependency-file", Harmless, nullptr},
    {"no-rosegment", Harmless, nullptr},
    {"rosegment", Harmless, nullptr},
    {"separate-code", Harmless, nullptr},
    {"no-separate-code", Harmless, nullptr},
    {"ld-path", Harmless, nullptr},
};

const GnuOption *findLong(StringRef Name) {
  for (const GnuOption &O : LongOptions)
    if (Name == O.Name)
      return &O;
  return nullptr;
}

/// A single-letter option: whether it takes a value (joined or the next
/// word), and what it does.
struct ShortOption {
  char Letter;
  bool TakesValue;
  Action Act; // null: no bearing on symbols
};

const ShortOption ShortOptions[] = {
    {'l', true, library},
    {'L', true, searchDir},
    {'u', true, undefined},
    {'o', true, output},
    {'e', true, entry},
    {'T', true, script},
    {'z', true, zKeyword},
    {'I', true, dynamicLinker},
    {'E', false, exportDynamic},
    {'r', false, relocatable},
    // Values to step over.
    {'h', true, nullptr}, {'R', true, nullptr}, {'m', true, nullptr},
    {'y', true, nullptr}, {'F', true, nullptr}, {'f', true, nullptr},
    {'A', true, nullptr}, {'b', true, nullptr}, {'c', true, nullptr},
    {'G', true, nullptr}, {'Y', true, nullptr},
    // Flags with no bearing on symbols.
    {'s', false, nullptr}, {'S', false, nullptr}, {'x', false, nullptr},
    {'X', false, nullptr}, {'t', false, nullptr}, {'v', false, nullptr},
    {'V', false, nullptr}, {'M', false, nullptr}, {'n', false, nullptr},
    {'N', false, nullptr}, {'i', false, nullptr}, {'q', false, nullptr},
    {'g', false, nullptr}, {'d', false, nullptr}, {'P', false, nullptr},
    {'O', false, nullptr},
};

const ShortOption *findShort(char C) {
  for (const ShortOption &O : ShortOptions)
    if (C == O.Letter)
      return &O;
  return nullptr;
}

} // namespace

Error GnuOptionParser::parse(std::vector<std::string> Words,
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
      L.Args.push_back({K::GroupStart, "", Tok, Written});
      continue;
    }
    if (W == "-)") {
      L.Args.push_back({K::GroupEnd, "", Tok, Written});
      continue;
    }
    if (W.size() < 2 || W[0] != '-') {
      L.Args.push_back({K::File, W.str(), Tok, Written});
      continue;
    }

    // Long option, one dash or two.
    StringRef Body = W.drop_front(W.starts_with("--") ? 2 : 1);
    StringRef Name = Body.take_until([](char C) { return C == '='; });
    std::optional<std::string> Value;
    if (Body.size() > Name.size())
      Value = Body.drop_front(Name.size() + 1).str();
    const GnuOption *Row = findLong(Name);
    // Harmless names are looked up last, after the letters.
    const GnuOption *Opt = Row && Row->A != Arity::Harmless ? Row : nullptr;
    // One dash and not a long name: a letter with its value joined.
    if (!Opt && !W.starts_with("--")) {
      if (const ShortOption *S = findShort(W[1])) {
        std::string Val;
        if (S->TakesValue) {
          if (W.size() > 2) {
            Val = W.drop_front(2).str();
          } else if (auto N = Next()) {
            Val = *N;
          } else {
            L.Ignored.push_back(W.str());
            continue;
          }
        }
        if (S->Act)
          S->Act(*this, {StringRef(&S->Letter, 1), Val, W, Tok, Written});
        continue;
      }
    }
    if (!Opt) {
      if (!Row)
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
    if (Opt->Act)
      Opt->Act(*this, {Name, Value.value_or(""), W, Tok, Written});
  }
  return Error::success();
}

void GnuOptionParser::addLibrary(StringRef Name, int Tok, bool Written) {
  L.Args.push_back({K::Library, Name.str(), Tok, Written});
}

void GnuOptionParser::addSearchDir(StringRef D) {
  std::string Dir = D.str();
  if (D.starts_with("=") && !L.Sysroot.empty())
    Dir = L.Sysroot + D.drop_front().str();
  L.SearchDirs.push_back(absolute(Cwd, Dir));
}

Error GnuOptionParser::parseTranslated(const DriverView &V) {
  if (Error E = parse(V.Words, V.WordToken, true))
    return E;
  if (V.Shared)
    SawShared = true;
  if (V.StaticPie || (!V.NoPie && !V.Static && !V.Shared))
    SawPie = true; // distributions default to PIE
  if (V.StaticPie)
    L.Args.insert(L.Args.begin(), {K::StaticOn, "", -1, false});
  if (V.Static)
    L.Args.insert(L.Args.begin(), {K::StaticOn, "", -1, false});
  if (!V.NoStdLib && !V.NoDefaultLibs)
    L.Approximations.push_back(
        "the driver's implicit inputs (crt files, libc, libstdc++, "
        "libgcc) are not read: references nothing on the line defines "
        "are assumed to come from them");
  return Error::success();
}

void GnuOptionParser::finish(bool DriverStatic) {
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

std::unique_ptr<LinkerOptions> gnuOptions(LinkCommandLine &L, StringRef Cwd) {
  return std::make_unique<GnuOptionParser>(L, Cwd);
}

} // namespace aoti::audit::linker
