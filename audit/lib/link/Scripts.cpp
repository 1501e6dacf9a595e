//===- link/Scripts.cpp - Input scripts, version scripts, dynamic lists ---===//
//
// One tokenizer for all three: words (file names, patterns), the
// punctuation ( ) { } ; , : and quoted strings; /* */ and # comments.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/Scripts.h"

#include "aoti/audit/Error.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace llvm;

namespace aoti::audit {

namespace {

struct Token {
  std::string Text;
  bool Quoted = false;
  bool is(StringRef S) const { return !Quoted && Text == S; }
};

Expected<std::vector<Token>> tokenize(StringRef S, StringRef Path) {
  std::vector<Token> Out;
  size_t I = 0;
  while (I < S.size()) {
    char C = S[I];
    if (isspace(static_cast<unsigned char>(C))) {
      ++I;
      continue;
    }
    if (S.substr(I).starts_with("/*")) {
      size_t End = S.find("*/", I + 2);
      if (End == StringRef::npos)
        return fileError(Path, "unterminated comment");
      I = End + 2;
      continue;
    }
    if (C == '#') {
      I = S.find('\n', I);
      if (I == StringRef::npos)
        break;
      continue;
    }
    if (C == '"') {
      size_t End = S.find('"', I + 1);
      if (End == StringRef::npos)
        return fileError(Path, "unterminated string");
      Out.push_back({S.slice(I + 1, End).str(), true});
      I = End + 1;
      continue;
    }
    if (StringRef("(){};,").contains(C)) {
      Out.push_back({std::string(1, C), false});
      ++I;
      continue;
    }
    size_t Start = I;
    while (I < S.size() && !isspace(static_cast<unsigned char>(S[I])) &&
           !StringRef("(){};,\"").contains(S[I]) &&
           !S.substr(I).starts_with("/*"))
      ++I;
    StringRef W = S.slice(Start, I);
    // "global:" and "local:" glue the colon to the word, and sometimes the
    // first pattern too ("local:*").
    for (StringRef Label : {"global:", "local:"}) {
      if (W.size() > Label.size() && W.starts_with(Label)) {
        Out.push_back({Label.drop_back().str(), false});
        Out.push_back({":", false});
        W = W.drop_front(Label.size());
      }
    }
    if (W.size() > 1 && W.ends_with(":") && !W.ends_with("::")) {
      Out.push_back({W.drop_back().str(), false});
      Out.push_back({":", false});
    } else {
      Out.push_back({W.str(), false});
    }
  }
  return Out;
}

} // namespace

// --- input scripts ----------------------------------------------------------

Expected<InputScript> parseInputScript(StringRef Text, StringRef Path) {
  // A binary file is not a script; say so before the tokenizer trips.
  for (char C : Text.take_front(512))
    if (C == 0)
      return fileError(Path, "is not an ELF file, an archive or a linker "
                               "script");
  auto Toks = tokenize(Text, Path);
  if (!Toks)
    return Toks.takeError();
  InputScript Script;
  const std::vector<Token> &T = *Toks;
  size_t I = 0;
  auto Expect = [&](StringRef What) -> Error {
    if (I < T.size() && T[I].is(What)) {
      ++I;
      return Error::success();
    }
    return fileError(Path, formatv("expected `{0}` in linker script", What));
  };
  // Reads "( a b AS_NEEDED ( c ) )" into Entries.
  std::function<Error(std::vector<InputScript::Entry> &, bool)> Files =
      [&](std::vector<InputScript::Entry> &Out, bool AsNeeded) -> Error {
    if (Error E = Expect("("))
      return E;
    while (I < T.size() && !T[I].is(")")) {
      if (T[I].is(",")) {
        ++I;
        continue;
      }
      if (T[I].is("AS_NEEDED")) {
        ++I;
        if (Error E = Files(Out, true))
          return E;
        continue;
      }
      InputScript::Entry En;
      StringRef N = T[I].Text;
      En.IsLibrary = !T[I].Quoted && N.consume_front("-l");
      En.Name = N.str();
      En.AsNeeded = AsNeeded;
      Out.push_back(std::move(En));
      ++I;
    }
    return Expect(")");
  };
  if (T.empty())
    return fileError(Path, "is empty");
  while (I < T.size()) {
    const Token &K = T[I];
    if (K.is(";")) {
      ++I;
      continue;
    }
    if (K.is("INPUT") || K.is("GROUP")) {
      ++I;
      InputScript::Command C;
      C.Group = K.is("GROUP");
      if (Error E = Files(C.Entries, false))
        return E;
      Script.Commands.push_back(std::move(C));
      continue;
    }
    if (K.is("SEARCH_DIR")) {
      ++I;
      std::vector<InputScript::Entry> Dirs;
      if (Error E = Files(Dirs, false))
        return E;
      for (auto &D : Dirs)
        Script.SearchDirs.push_back(D.Name);
      continue;
    }
    if (K.is("OUTPUT_FORMAT") || K.is("OUTPUT_ARCH") || K.is("TARGET") ||
        K.is("OUTPUT") || K.is("ENTRY") || K.is("STARTUP")) {
      ++I;
      std::vector<InputScript::Entry> Ignored;
      if (Error E = Files(Ignored, false))
        return E;
      continue;
    }
    if (Script.Commands.empty() && !K.Quoted &&
        K.Text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != std::string::npos)
      return fileError(Path, "is not an ELF file, an archive or a linker "
                               "script");
    return fileError(Path, formatv("is a linker script with `{0}`: only "
                                     "INPUT, GROUP, AS_NEEDED and SEARCH_DIR "
                                     "are modelled",
                                     K.Text));
  }
  return Script;
}

// --- symbol patterns --------------------------------------------------------

void SymbolPatternList::add(StringRef Text, bool Cxx) {
  bool IsGlob = Text.find_first_of("*?[") != StringRef::npos;
  if (!IsGlob) {
    Exact.emplace_back(Text.str(), Cxx);
    return;
  }
  auto Owned = std::make_shared<const std::string>(Text.str());
  auto G = GlobPattern::create(*Owned);
  if (!G) {
    consumeError(G.takeError());
    Exact.emplace_back(Text.str(), Cxx);
    return;
  }
  GlobText.push_back(std::move(Owned));
  Globs.push_back({std::move(*G), Text == "*", Cxx});
}

int SymbolPatternList::matchStrength(StringRef Name) const {
  std::string Demangled;
  bool HaveDemangled = false;
  auto Subject = [&](bool Cxx) -> StringRef {
    if (!Cxx)
      return Name;
    if (!HaveDemangled) {
      Demangled = llvm::demangle(Name.str());
      HaveDemangled = true;
    }
    return Demangled;
  };
  for (const auto &[N, Cxx] : Exact)
    if (Subject(Cxx) == N)
      return 3;
  int Best = 0;
  for (const Glob &G : Globs)
    if (G.P.match(Subject(G.Cxx)))
      Best = std::max(Best, G.Star ? 1 : 2);
  return Best;
}

bool VersionScript::makesLocal(StringRef Name) const {
  int L = Local.matchStrength(Name);
  return L > 0 && L > Global.matchStrength(Name);
}

namespace {

/// Reads "{ [global:|local:] pattern; extern "C++" { ... }; ... }" from I.
/// Scope: 0 global, 1 local; Dynamic lists have no scopes.
Error readPatternBlock(const std::vector<Token> &T, size_t &I, StringRef Path,
                       SymbolPatternList &Global, SymbolPatternList *Local,
                       bool Cxx) {
  if (I >= T.size() || !T[I].is("{"))
    return fileError(Path, "expected `{`");
  ++I;
  SymbolPatternList *Into = &Global;
  while (I < T.size() && !T[I].is("}")) {
    const Token &K = T[I];
    if (K.is(";")) {
      ++I;
      continue;
    }
    if (Local && I + 1 < T.size() && T[I + 1].is(":") &&
        (K.is("global") || K.is("local"))) {
      Into = K.is("global") ? &Global : Local;
      I += 2;
      continue;
    }
    if (K.is("extern") && I + 1 < T.size()) {
      bool InnerCxx = T[I + 1].Text == "C++";
      I += 2;
      if (Error E = readPatternBlock(T, I, Path, *Into, nullptr, InnerCxx))
        return E;
      continue;
    }
    if (K.is("{") || K.is("(") || K.is(")"))
      return fileError(Path, formatv("unexpected `{0}`", K.Text));
    Into->add(K.Text, Cxx);
    ++I;
  }
  if (I >= T.size())
    return fileError(Path, "missing `}`");
  ++I;
  return Error::success();
}

} // namespace

Expected<VersionScript> parseVersionScript(StringRef Text, StringRef Path) {
  auto Toks = tokenize(Text, Path);
  if (!Toks)
    return Toks.takeError();
  const std::vector<Token> &T = *Toks;
  VersionScript VS;
  size_t I = 0;
  while (I < T.size()) {
    if (T[I].is(";")) {
      ++I;
      continue;
    }
    // An optional version name before the block.
    if (!T[I].is("{"))
      ++I;
    if (Error E = readPatternBlock(T, I, Path, VS.Global, &VS.Local, false))
      return E;
    // An optional parent version name, then `;`.
    while (I < T.size() && !T[I].is(";") && !T[I].is("{"))
      ++I;
  }
  return VS;
}

Expected<SymbolPatternList> parseDynamicList(StringRef Text, StringRef Path) {
  auto Toks = tokenize(Text, Path);
  if (!Toks)
    return Toks.takeError();
  const std::vector<Token> &T = *Toks;
  SymbolPatternList L;
  size_t I = 0;
  while (I < T.size()) {
    if (T[I].is(";")) {
      ++I;
      continue;
    }
    if (Error E = readPatternBlock(T, I, Path, L, nullptr, false))
      return E;
  }
  return L;
}

} // namespace aoti::audit
