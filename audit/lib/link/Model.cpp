//===- link/Model.cpp - Replaying a static link ---------------------------===//
//
// simulateLink runs the replay (Replay.h) the way the linkers structure
// their own work: inputs read in command-line order into one symbol table
// (SymbolTable.cpp), taking archive members and shared libraries by the
// flavour's rule (ArchiveExtraction.cpp); after the last input, the
// exports (Exports.cpp), the mark-live pass (MarkLive.cpp) and the
// undefined references the link reports (Undefined.cpp).
//
// This file also holds what the public model answers about one replay
// (LinkResult).
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace llvm;

namespace aoti::audit {

StringRef toString(RequiredStatus S) {
  switch (S) {
  case RequiredStatus::Exported: return "exported";
  case RequiredStatus::NotExported: return "defined-not-exported";
  case RequiredStatus::Discarded: return "discarded-by-gc";
  case RequiredStatus::MadeLocal: return "made-local";
  case RequiredStatus::FromSharedLibrary: return "from-shared-library";
  case RequiredStatus::NotPulledIn: return "not-pulled-in";
  case RequiredStatus::NotDefined: return "not-defined";
  case RequiredStatus::DroppedAsNeeded: return "dropped-as-needed";
  }
  return "?";
}

bool underPrefix(StringRef Name, const std::vector<std::string> &Prefixes) {
  if (Prefixes.empty())
    return true;
  for (const std::string &P : Prefixes)
    if (Name.starts_with(P))
      return true;
  return false;
}

bool LinkSymbol::hasRegularStrongRef() const {
  for (const SymbolRef &R : StrongRefs)
    if (R.Object >= 0 || R.Option)
      return true;
  return false;
}

const LinkSymbol *LinkResult::find(StringRef Name) const {
  auto It = Index.find(Name);
  return It == Index.end() ? nullptr : &Symbols[It->second];
}

int LinkResult::objectOf(unsigned Input, int Member) const {
  for (size_t I = 0; I < Objects.size(); ++I)
    if (Objects[I].Input == Input && Objects[I].Member == Member)
      return int(I);
  return -1;
}

std::vector<std::string> LinkResult::exportedNames() const {
  std::vector<std::string> Out;
  if (!Dynamic)
    return Out;
  for (const LinkSymbol &S : Symbols)
    if (S.St == LinkSymbol::State::Defined &&
        S.Exported != LinkSymbol::Export::No && S.Live)
      Out.push_back(S.Name);
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<std::string> LinkResult::definedNames() const {
  std::vector<std::string> Out;
  for (const LinkSymbol &S : Symbols)
    if (S.St == LinkSymbol::State::Defined && S.Live)
      Out.push_back(S.Name);
  std::sort(Out.begin(), Out.end());
  return Out;
}

namespace linker {

Expected<LinkResult> Replay::run() {
  R.Flavor = F;
  R.Needed.assign(In.size(), false);
  R.Read.assign(In.size(), false);
  Taken.resize(In.size());
  for (size_t I = 0; I < In.size(); ++I)
    Taken[I].assign(In[I].Ar ? In[I].Ar->members().size() : 1, 0);

  if (F == LinkFlavor::GNU)
    for (const std::string &U : L.Undefined)
      if (Error E = addUndefinedOption(U))
        return E;
  for (size_t I = 0; I < In.size(); ++I) {
    if (Error E = readInput(unsigned(I)))
      return E;
    const LinkInput &Cur = In[I];
    bool GroupEnds = Cur.Group >= 0 &&
                     (I + 1 == In.size() || In[I + 1].Group != Cur.Group);
    if (F == LinkFlavor::GNU && GroupEnds)
      if (Error E = rescanGroup(I))
        return E;
  }
  if (F != LinkFlavor::GNU)
    for (const std::string &U : L.Undefined)
      if (Error E = addUndefinedOption(U))
        return E;
  if (F == LinkFlavor::LD64 && executableOutput())
    if (Error E = addUndefinedOption(entry(), /*Entry=*/true))
      return E;
  finish();
  return std::move(R);
}

bool Replay::implicitInputsRead() const {
  return L.DriverQueried || L.Kind == LinkCommandKind::Linker;
}

bool Replay::executableOutput() const {
  return L.OutputKind == LinkOutputKind::Executable ||
         L.OutputKind == LinkOutputKind::PIE;
}

std::string Replay::entry() const {
  if (!L.Entry.empty())
    return L.Entry;
  return F == LinkFlavor::LD64 ? "_main" : "_start";
}

void Replay::finishLd64() {
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
      S.MadeLocal = ld64Unexported(S.Name);
    if (R.Dynamic && S.MadeLocal == LinkSymbol::Local::No)
      S.Exported = Shared ? LinkSymbol::Export::SharedOutput
                          : LinkSymbol::Export::AllGlobals;
  }
  std::set<unsigned> LiveUndefined;
  if (L.GcSections)
    collectGarbage(LiveUndefined);
  if (L.UndefinedTreatment != "error" || !implicitInputsRead())
    return;
  StringSet<> Allowed;
  for (const std::string &N : L.AllowedUndefined)
    Allowed.insert(N);
  for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
    const LinkSymbol &S = R.Symbols[Idx];
    if (S.St != LinkSymbol::State::Undefined &&
        S.St != LinkSymbol::State::Lazy)
      continue;
    if (isLd64Defined(S.Name) || Allowed.contains(S.Name))
      continue;
    if (L.GcSections && !LiveUndefined.count(Idx) &&
        !(executableOutput() && S.Name == entry()))
      continue;
    bool Reported = false;
    for (const SymbolRef &Ref : S.StrongRefs) {
      if (Ref.Object >= 0 || Ref.Option) {
        R.Undefined.push_back({S.Name, Ref.Object, -1,
                               Ref.Object < 0 /*-u or the entry point*/});
        Reported = true;
        break;
      }
    }
    // Unlike ELF, a weak reference (weak_import) must be defined somewhere
    // on the line too: only dyld lets it bind to null.
    if (!Reported && !S.WeakRefs.empty())
      R.Undefined.push_back({S.Name, S.WeakRefs.front(), -1, false});
  }
}

void Replay::finish() {
  if (F == LinkFlavor::LD64)
    return finishLd64();
  // lld decides DT_NEEDED of an --as-needed library at the end.
  if (F == LinkFlavor::LLD)
    for (const LinkSymbol &S : R.Symbols)
      if (S.St == LinkSymbol::State::Shared && S.hasRegularStrongRef())
        R.Needed[S.SharedDefiner] = true;

  // Is there a dynamic symbol table at all?
  R.OutputKind = L.OutputKind;
  if (L.OutputKind == LinkOutputKind::SharedLibrary ||
      L.OutputKind == LinkOutputKind::PIE) {
    R.Dynamic = true;
  } else if (!implicitInputsRead()) {
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
    else if (excludedLib(S.Definer))
      S.MadeLocal = LinkSymbol::Local::ExcludeLibs;
    if (!R.Dynamic || S.MadeLocal != LinkSymbol::Local::No)
      continue;
    using E = LinkSymbol::Export;
    if (Shared)
      S.Exported = E::SharedOutput;
    else if (ExportAll)
      S.Exported = E::ExportDynamic;
    else if (Lists.ExportSymbols.matches(S.Name) ||
             anyMatch(Lists.ExportSymbolLists, S.Name))
      S.Exported = E::ExportSymbol;
    else if (anyMatch(Lists.DynamicLists, S.Name) ||
             (L.DynamicListData && S.Def->Type == SymbolType::Object))
      S.Exported = E::DynamicList;
    else if (SharedRefd.count(Idx))
      S.Exported = E::ReferencedByShared;
    else if (!S.SharedDefs.empty())
      S.Exported = E::DefinedByShared;
  }

  std::set<unsigned> LiveUndefined;
  bool AllRefsLive = !L.GcSections;
  if (L.GcSections)
    collectGarbage(LiveUndefined);

  // Undefined references from regular objects.
  if (implicitInputsRead()) {
    for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
      const LinkSymbol &S = R.Symbols[Idx];
      if (S.St != LinkSymbol::State::Undefined &&
          S.St != LinkSymbol::State::Lazy)
        continue;
      if (isLinkerDefined(S.Name))
        continue;
      if (!AllRefsLive && !LiveUndefined.count(Idx))
        continue;
      if (Shared && !L.NoUndefined)
        continue;
      for (const SymbolRef &Ref : S.StrongRefs)
        if (Ref.Object >= 0) {
          R.Undefined.push_back({S.Name, Ref.Object, -1, false});
          break;
        }
    }
  }
  for (const std::string &N : L.RequireDefined) {
    const LinkSymbol *S = R.find(N);
    if (!S || (S->St != LinkSymbol::State::Defined &&
               S->St != LinkSymbol::State::Shared))
      R.Undefined.push_back({N, -1, -1, true});
  }
  // --no-allow-shlib-undefined, the default for executables: checked for
  // a library whose own DT_NEEDED are all on the line (lld's rule; GNU ld
  // searches further, which this does not model).
  if (!Shared && L.AllowShlibUndefined != true) {
    for (unsigned Idx = 0; Idx < R.Symbols.size(); ++Idx) {
      const LinkSymbol &S = R.Symbols[Idx];
      if (S.St != LinkSymbol::State::Undefined &&
          S.St != LinkSymbol::State::Lazy)
        continue;
      if (isLinkerDefined(S.Name))
        continue;
      // A library --as-needed dropped still resolves other libraries'
      // references: the linker reads it as their DT_NEEDED.
      if (definedByAnySharedInput(S.Name))
        continue;
      for (const SymbolRef &Ref : S.StrongRefs)
        if (Ref.SharedInput >= 0 && allNeededOnLine(Ref.SharedInput)) {
          R.Undefined.push_back({S.Name, -1, Ref.SharedInput, false});
          break;
        }
    }
  }
}

} // namespace linker

using namespace linker;

Expected<LinkResult> simulateLink(const LinkCommandLine &Line,
                                  const std::vector<LinkInput> &Inputs,
                                  const LinkWhatIf &WhatIf) {
  auto Lists = readExportLists(Line);
  if (!Lists)
    return Lists.takeError();
  Replay Rp(Line, Inputs, WhatIf, *Lists);
  return Rp.run();
}

} // namespace aoti::audit
