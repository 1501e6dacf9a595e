//===- link/MarkLive.cpp - --gc-sections and -dead_strip ----------------===//
//
// --gc-sections is replayed over sections and relocations
// (link/Sections.h): roots are the entry point, exported names, -u names
// and sections the default script keeps; marking follows relocations to
// local sections and, through the symbol table, to the sections that
// define the names they refer to (a reference to __start_X/__stop_X keeps
// every section named X). An unreferenced definition is gone from the
// output, and an undefined reference only from dead sections is no error.
//
// -dead_strip works on atoms (the objects' subsections via symbols); its
// roots are the entry point, -u, the export list's names, and -- for a
// dylib or bundle, or an executable linked -export_dynamic -- every
// exported global.
//
// An object whose sections cannot be read is kept whole, with a note.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace aoti::audit::linker {

Expected<const ObjectSections *>
Replay::memberSections(unsigned Input, int Member, StringRef Display) {
  const LinkInput &I = In[Input];
  size_t Slot = Member < 0 ? 0 : size_t(Member);
  if (I.Sections.size() <= Slot)
    I.Sections.resize(I.Ar ? I.Ar->members().size() : 1);
  if (!I.Sections[Slot]) {
    auto Bytes = readObjectBytes(I.Path, Member);
    if (!Bytes)
      return Bytes.takeError();
    auto S = readObjectSections((*Bytes)->getMemBufferRef(), Display);
    if (!S)
      return S.takeError();
    I.Sections[Slot] = std::move(*S);
  }
  return &*I.Sections[Slot];
}

const ObjectSections *Replay::sectionsOf(int Obj) {
  const LinkedObject &O = R.Objects[Obj];
  auto S = memberSections(O.Input, O.Member, O.Bin->path());
  if (S)
    return *S;
  R.Notes.push_back(
      formatv("--gc-sections: {0}; kept whole", toString(S.takeError()))
          .str());
  ObjectSections Whole;
  Whole.Sections.push_back({"<unreadable>", true, false, {}, {}});
  const LinkInput &I = In[O.Input];
  auto &Slot = I.Sections[O.Member < 0 ? 0 : size_t(O.Member)];
  Slot = std::move(Whole);
  Unreadable.insert(Obj);
  return &*Slot;
}

void Replay::markLive(std::set<unsigned> &LiveUndefined) {
  std::vector<std::vector<char>> Live(R.Objects.size());
  std::vector<std::pair<int, uint32_t>> Work;
  auto Mark = [&](int Obj, uint32_t Sec) {
    if (Sec == ObjectSections::NoSection)
      return;
    std::vector<char> &V = Live[Obj];
    if (V.empty())
      V.assign(sectionsOf(Obj)->Sections.size(), 0);
    if (Sec >= V.size() || V[Sec])
      return;
    V[Sec] = 1;
    Work.push_back({Obj, Sec});
  };
  auto MarkSymbol = [&](StringRef Name) {
    const LinkSymbol *S = R.find(Name);
    if (!S || S->St != LinkSymbol::State::Defined)
      return;
    const ObjectSections *OS = sectionsOf(S->Definer);
    auto It = OS->DefinedIn.find(Name);
    if (It != OS->DefinedIn.end())
      Mark(S->Definer, It->second);
  };
  auto MarkSectionsNamed = [&](StringRef Name) {
    for (int O = 0; O < int(R.Objects.size()); ++O) {
      const ObjectSections *OS = sectionsOf(O);
      for (uint32_t S = 0; S < OS->Sections.size(); ++S)
        if (OS->Sections[S].Name == Name)
          Mark(O, S);
    }
  };

  for (int O = 0; O < int(R.Objects.size()); ++O) {
    const ObjectSections *OS = sectionsOf(O);
    for (uint32_t S = 0; S < OS->Sections.size(); ++S)
      if (OS->Sections[S].Root)
        Mark(O, S);
  }
  Policy->liveRoots(*this, MarkSymbol);

  while (!Work.empty()) {
    auto [Obj, Sec] = Work.back();
    Work.pop_back();
    const ObjectSections::Section &S = sectionsOf(Obj)->Sections[Sec];
    for (uint32_t T : S.LocalTargets)
      Mark(Obj, T);
    for (const std::string &Name : S.SymbolTargets) {
      auto It = R.Index.find(Name);
      if (It == R.Index.end())
        continue;
      const LinkSymbol &Target = R.Symbols[It->second];
      if (Target.St == LinkSymbol::State::Defined)
        MarkSymbol(Name);
      else if (Target.St != LinkSymbol::State::Shared)
        LiveUndefined.insert(It->second);
      StringRef N = Name;
      if (N.consume_front("__start_") || N.consume_front("__stop_"))
        MarkSectionsNamed(N);
    }
  }

  for (LinkSymbol &S : R.Symbols) {
    if (S.St != LinkSymbol::State::Defined || Unreadable.count(S.Definer))
      continue;
    const ObjectSections *OS = sectionsOf(S.Definer);
    auto It = OS->DefinedIn.find(S.Name);
    if (It == OS->DefinedIn.end() || It->second == ObjectSections::NoSection)
      continue;
    uint32_t Sec = It->second;
    const std::vector<char> &V = Live[S.Definer];
    bool Inert = Sec < OS->Sections.size() && OS->Sections[Sec].Inert;
    S.Live = Inert || (Sec < V.size() && V[Sec]);
  }
}

// --- the roots --------------------------------------------------------------

/// ELF: the entry point (main too when the driver's crt files, which refer
/// to it, were not read), the names the output exports and -u names.
void ElfPolicy::liveRoots(Replay &Rp,
                          function_ref<void(StringRef)> MarkSymbol) {
  MarkSymbol(Rp.entry());
  if (!Rp.implicitInputsRead())
    MarkSymbol("main");
  for (const LinkSymbol &S : Rp.R.Symbols)
    if (S.St == LinkSymbol::State::Defined &&
        ((Rp.R.Dynamic && S.Exported != LinkSymbol::Export::No) ||
         S.UndefinedOption))
      MarkSymbol(S.Name);
}

void Ld64Policy::liveRoots(Replay &Rp,
                           function_ref<void(StringRef)> MarkSymbol) {
  const LinkCommandLine &L = Rp.L;
  const LinkWhatIf &W = Rp.W;
  const ExportLists &Lists = Rp.Lists;
  LinkResult &R = Rp.R;
  // ld64: the export list's names are roots; every exported global is
  // one only for a dylib or bundle, or with -export_dynamic.
  if (Rp.executableOutput())
    MarkSymbol(Rp.entry());
  bool ExternsAreRoots =
      !Rp.executableOutput() || L.ExportDynamic || W.ExportDynamic;
  for (const LinkSymbol &S : R.Symbols)
    if (S.St == LinkSymbol::State::Defined &&
        (S.UndefinedOption ||
         (Lists.HasExportList && Lists.Exported.matches(S.Name)) ||
         (ExternsAreRoots && S.Exported != LinkSymbol::Export::No)))
      MarkSymbol(S.Name);
}

} // namespace aoti::audit::linker
