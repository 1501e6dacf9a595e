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

} // namespace aoti::audit::linker
