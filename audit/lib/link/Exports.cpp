//===- link/Exports.cpp - Which definitions the output exports -----------===//
//
// ELF. The output's .dynsym gets, for a shared library, every global
// definition; for an executable, what a shared library on the line refers
// to or also defines, plus what the export options name (-E,
// --export-dynamic-symbol[-list], --dynamic-list[-data]). Hidden
// visibility, version-script local: and --exclude-libs keep a name out.
// A static executable has no dynamic symbol table at all.
//
// ld64. An executable, dylib or bundle exports every global that is not a
// private external (N_PEXT, hidden visibility), unless
// -exported_symbol(s_list) leaves it out, -unexported_symbol(s_list)
// names it, or -no_exported_symbols.
//
// The lists the options name are read here once per replay.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace aoti::audit::linker {

namespace {

Expected<std::string> readText(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return (*Buf)->getBuffer().str();
}

/// An ld64 symbol list: one name or glob a line, `#` comments.
Error readLd64List(StringRef Path, SymbolPatternList &Into) {
  auto T = readText(Path);
  if (!T)
    return T.takeError();
  SmallVector<StringRef, 64> Lines;
  StringRef(*T).split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.take_until([](char C) { return C == '#'; }).trim();
    if (!Line.empty())
      Into.add(Line, false);
  }
  return Error::success();
}

} // namespace

Expected<ExportLists> readExportLists(const LinkCommandLine &L) {
  ExportLists E;
  E.HasExportList =
      !L.ExportedSymbols.empty() || !L.ExportedSymbolsLists.empty();
  for (const std::string &G : L.ExportedSymbols)
    E.Exported.add(G, false);
  for (const std::string &P : L.ExportedSymbolsLists)
    if (Error Err = readLd64List(P, E.Exported))
      return Err;
  for (const std::string &G : L.UnexportedSymbols)
    E.Unexported.add(G, false);
  for (const std::string &P : L.UnexportedSymbolsLists)
    if (Error Err = readLd64List(P, E.Unexported))
      return Err;
  for (const std::string &P : L.VersionScripts) {
    auto T = readText(P);
    if (!T)
      return T.takeError();
    auto VS = parseVersionScript(*T, P);
    if (!VS)
      return VS.takeError();
    E.VersionScripts.push_back(std::move(*VS));
  }
  for (const std::string &G : L.ExportDynamicSymbols)
    E.ExportSymbols.add(G, false);
  auto AddList = [&](const std::string &P,
                     std::vector<SymbolPatternList> &Into) -> Error {
    auto T = readText(P);
    if (!T)
      return T.takeError();
    auto DL = parseDynamicList(*T, P);
    if (!DL)
      return DL.takeError();
    Into.push_back(std::move(*DL));
    return Error::success();
  };
  for (const std::string &P : L.ExportDynamicSymbolLists)
    if (Error Err = AddList(P, E.ExportSymbolLists))
      return Err;
  for (const std::string &P : L.DynamicLists)
    if (Error Err = AddList(P, E.DynamicLists))
      return Err;
  return E;
}

LinkSymbol::Local Replay::ld64Unexported(StringRef Name) const {
  if (L.NoExportedSymbols ||
      (Lists.HasExportList && !Lists.Exported.matches(Name)))
    return LinkSymbol::Local::ExportList;
  if (Lists.Unexported.matches(Name))
    return LinkSymbol::Local::Unexported;
  return LinkSymbol::Local::No;
}

bool Replay::anyMatch(const std::vector<SymbolPatternList> &Lists,
                      StringRef Name) {
  for (const SymbolPatternList &P : Lists)
    if (P.matches(Name))
      return true;
  return false;
}

bool Replay::excludedLib(int Obj) const {
  if (L.ExcludeLibs.empty() || Obj < 0)
    return false;
  const LinkedObject &O = R.Objects[Obj];
  if (O.Member < 0)
    return false;
  StringRef Base = sys::path::filename(In[O.Input].Path);
  for (const std::string &X : L.ExcludeLibs)
    if (X == "ALL" || X == Base)
      return true;
  return false;
}

// --- ELF ------------------------------------------------------------------

void ElfPolicy::exports(Replay &Rp) {
  const LinkCommandLine &L = Rp.L;
  const LinkWhatIf &W = Rp.W;
  const ExportLists &Lists = Rp.Lists;
  const std::set<unsigned> &SharedRefd = Rp.SharedRefd;
  LinkResult &R = Rp.R;
  // Is there a dynamic symbol table at all?
  R.OutputKind = L.OutputKind;
  if (L.OutputKind == LinkOutputKind::SharedLibrary ||
      L.OutputKind == LinkOutputKind::PIE) {
    R.Dynamic = true;
  } else if (!Rp.implicitInputsRead()) {
    R.Dynamic = L.OutputKind != LinkOutputKind::StaticExecutable;
  } else {
    R.Dynamic = std::find(R.Needed.begin(), R.Needed.end(), true) !=
                R.Needed.end();
    R.OutputKind = R.Dynamic ? LinkOutputKind::Executable
                             : LinkOutputKind::StaticExecutable;
  }

  bool Shared = L.OutputKind == LinkOutputKind::SharedLibrary;
  bool ExportAll = L.ExportDynamic || W.ExportDynamic;
  for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
    LinkSymbol &S = R.Symbols[Idx];
    if (S.St != LinkSymbol::State::Defined)
      continue;
    if (S.Visibility == SymbolVisibility::Hidden ||
        S.Visibility == SymbolVisibility::Internal)
      S.MadeLocal = LinkSymbol::Local::Visibility;
    else if (std::any_of(Lists.VersionScripts.begin(),
                         Lists.VersionScripts.end(),
                         [&](const VersionScript &V) {
                           return V.makesLocal(S.Name);
                         }))
      S.MadeLocal = LinkSymbol::Local::VersionScript;
    else if (Rp.excludedLib(S.Definer))
      S.MadeLocal = LinkSymbol::Local::ExcludeLibs;
    if (!R.Dynamic || S.MadeLocal != LinkSymbol::Local::No)
      continue;
    using E = LinkSymbol::Export;
    if (Shared)
      S.Exported = E::SharedOutput;
    else if (ExportAll)
      S.Exported = E::ExportDynamic;
    else if (Lists.ExportSymbols.matches(S.Name) ||
             Rp.anyMatch(Lists.ExportSymbolLists, S.Name))
      S.Exported = E::ExportSymbol;
    else if (Rp.anyMatch(Lists.DynamicLists, S.Name) ||
             (L.DynamicListData && S.Def->Type == SymbolType::Object))
      S.Exported = E::DynamicList;
    else if (SharedRefd.count(Idx))
      S.Exported = E::ReferencedByShared;
    else if (!S.SharedDefs.empty())
      S.Exported = E::DefinedByShared;
  }
}

// --- ld64 -----------------------------------------------------------------

void Ld64Policy::exports(Replay &Rp) {
  const LinkCommandLine &L = Rp.L;
  LinkResult &R = Rp.R;
  R.OutputKind = L.OutputKind;
  R.Dynamic = L.OutputKind != LinkOutputKind::StaticExecutable;
  bool Shared = L.OutputKind == LinkOutputKind::SharedLibrary;
  for (LinkSymbol &S : R.Symbols) {
    if (S.St != LinkSymbol::State::Defined)
      continue;
    if (S.Visibility == SymbolVisibility::Hidden ||
        S.Visibility == SymbolVisibility::Internal)
      S.MadeLocal = LinkSymbol::Local::Visibility;
    else
      S.MadeLocal = Rp.ld64Unexported(S.Name);
    if (R.Dynamic && S.MadeLocal == LinkSymbol::Local::No)
      S.Exported = Shared ? LinkSymbol::Export::SharedOutput
                          : LinkSymbol::Export::AllGlobals;
  }
}

} // namespace aoti::audit::linker
