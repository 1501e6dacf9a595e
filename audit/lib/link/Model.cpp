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

StringRef toString(LinkInput::Kind K) {
  switch (K) {
  case LinkInput::Kind::Object: return "object";
  case LinkInput::Kind::Archive: return "archive";
  case LinkInput::Kind::SharedLibrary: return "shared-library";
  case LinkInput::Kind::Missing: return "missing";
  }
  return "?";
}

StringRef toString(Extraction::Why W) {
  switch (W) {
  case Extraction::Why::CommandLine: return "command-line";
  case Extraction::Why::WholeArchive: return "whole-archive";
  case Extraction::Why::ObjC: return "objc";
  case Extraction::Why::Reference: return "reference";
  case Extraction::Why::SharedReference: return "shared-library-reference";
  case Extraction::Why::UndefinedOption: return "undefined-option";
  }
  return "?";
}

StringRef toString(LinkSymbol::Export E) {
  switch (E) {
  case LinkSymbol::Export::No: return "";
  case LinkSymbol::Export::ExportDynamic: return "export-dynamic";
  case LinkSymbol::Export::ExportSymbol: return "export-dynamic-symbol";
  case LinkSymbol::Export::DynamicList: return "dynamic-list";
  case LinkSymbol::Export::ReferencedByShared:
    return "referenced-by-shared-library";
  case LinkSymbol::Export::DefinedByShared: return "defined-by-shared-library";
  case LinkSymbol::Export::SharedOutput: return "shared-library-output";
  case LinkSymbol::Export::AllGlobals: return "all-globals";
  }
  return "";
}

StringRef toString(RequiredSymbol::NotPulled N) {
  switch (N) {
  case RequiredSymbol::NotPulled::ReferencedAfter:
    return "referenced-after-archive";
  case RequiredSymbol::NotPulled::WeakOnly: return "weak-references-only";
  case RequiredSymbol::NotPulled::None:
  case RequiredSymbol::NotPulled::NeverReferenced: return "never-referenced";
  }
  return "never-referenced";
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

  // Symbol resolution and archive extraction, input by input.
  if (Error E = Policy->beforeInputs(*this))
    return E;
  for (size_t I = 0; I < In.size(); ++I) {
    if (Error E = readInput(unsigned(I)))
      return E;
    const LinkInput &Cur = In[I];
    bool GroupEnds = Cur.Group >= 0 &&
                     (I + 1 == In.size() || In[I + 1].Group != Cur.Group);
    if (GroupEnds)
      if (Error E = Policy->endOfGroup(*this, I))
        return E;
  }
  if (Error E = Policy->afterInputs(*this))
    return E;

  // After the last input: exports, the mark-live pass, the errors.
  Policy->exports(*this);
  std::set<unsigned> LiveUndefined;
  if (L.GcSections)
    markLive(LiveUndefined);
  Policy->reportUndefined(*this, LiveUndefined);
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
  return Policy->defaultEntry().str();
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
