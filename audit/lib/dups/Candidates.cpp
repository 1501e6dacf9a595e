//===- Candidates.cpp - Passes 2 and 3: the names defined twice -----------===//
//
// Pass 2 merges every input's definitions into one table, name -> the
// definitions of that name (a group); the names' hashes were computed in
// pass 1, in parallel, so this is one hash-table insertion each.
//
// Pass 3 picks the candidates: a name with definitions in two or more
// places (one place that lists a name twice is not a duplicate) that the
// options ask about (wanted(): the prefixes, --cxx, --all). Most names are
// decided without knowing the object format; an archive's format is read
// from its first member only for the others. Only now are archive members
// opened, one archive per task, to learn each candidate definition's
// binding and type; an index entry the member does not back (a stale index)
// is marked so, and pass 4 drops it.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include <cstdlib>

using namespace llvm;

namespace aoti::audit::dups {

void DupsAnalyzer::buildTable() {
  size_t Total = 0;
  for (const LoadedInput &L : Inputs)
    Total += L.Defs.size();
  GroupOf.reserve(Total);
  for (uint32_t I = 0; I != Inputs.size(); ++I)
    for (uint32_t D = 0; D != Inputs[I].Defs.size(); ++D) {
      auto [It, New] = GroupOf.try_emplace(Inputs[I].Defs[D].Name, Groups.size());
      if (New)
        Groups.emplace_back();
      Groups[It->second].push_back({I, D});
    }
}

BinaryFormat DupsAnalyzer::formatOf(uint32_t Input) {
  LoadedInput &L = Inputs[Input];
  if (!L.FormatKnown && L.Kind == InputKind::Archive) {
    // Single-threaded here (pass 3, before the parallel part).
    L.FormatKnown = true;
    if (!L.In.Ar->members().empty()) {
      if (auto B = L.member(0))
        L.Format = B->format();
      else
        consumeError(B.takeError()); // reported if a candidate is in it
    }
  }
  return L.Format;
}

bool DupsAnalyzer::wanted(StringRef Name, uint32_t Input,
                          std::string &Demangled, StringRef &ToDemangle) {
  const DupsOptions &O = F.Options;
  // Without knowing the object format: could the name be wanted at all,
  // read as ELF (as is) or as Mach-O (one '_' less)? Most names are decided
  // here, and an archive's format is read only for the others.
  auto MaybeMangled = [](StringRef N) {
    return N.starts_with("_Z") || N.starts_with("__Z");
  };
  if (!O.All || !O.Cxx) {
    bool Maybe = O.Cxx && MaybeMangled(Name);
    if (O.All)
      Maybe |= !MaybeMangled(Name);
    for (size_t P = 0; !Maybe && P != O.Prefixes.size(); ++P)
      Maybe = Name.starts_with(O.Prefixes[P]) ||
              Name.drop_front(Name.starts_with("_")).starts_with(O.Prefixes[P]);
    if (!Maybe)
      return false;
  }
  // The C name (Mach-O puts '_' before it).
  StringRef Source = formatInfo(formatOf(Input)).cName(Name);
  bool Mangled = Source.starts_with("_Z");
  if (Mangled) {
    if (!O.Cxx)
      return false;
    if (O.All) { // nothing to match: demangle only what turns out duplicate
      ToDemangle = Source;
      return true;
    }
    Demangled = llvm::demangle(std::string_view(Source.data(), Source.size()));
    if (Demangled == Source)
      Demangled.clear(); // not valid Itanium mangling after all
  }
  if (O.All)
    return true;
  // A prefix matches a function's qualified name ("ns::aoti_torch_clamp<int>"
  // of "int ns::aoti_torch_clamp<int>(int)"), anything else's demangled name.
  std::string Qualified;
  if (!Demangled.empty()) {
    std::string Z = Source.str(); // the demangler wants a NUL
    if (!Partial.partialDemangle(Z.c_str()) && Partial.isFunction())
      if (char *N = Partial.getFunctionName(nullptr, nullptr)) {
        Qualified = N;
        std::free(N);
      }
  }
  StringRef Match = !Qualified.empty()  ? StringRef(Qualified)
                    : !Demangled.empty() ? StringRef(Demangled)
                                         : Source;
  for (const std::string &P : O.Prefixes)
    if (Match.starts_with(P))
      return true;
  return false;
}

void DupsAnalyzer::confirmCandidates() {
  // Which (member, definition) pairs each archive has to confirm.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> Work(Inputs.size());
  for (uint32_t G = 0; G != Groups.size(); ++G) {
    const SmallVector<DefRef, 2> &Defs = Groups[G];
    if (Defs.size() < 2)
      continue;
    UnitKey First = unit(Defs[0]);
    if (std::all_of(Defs.begin() + 1, Defs.end(),
                    [&](DefRef R) { return unit(R) == First; }))
      continue; // one place lists the name twice
    std::string Demangled;
    StringRef ToDemangle;
    if (!wanted(def(Defs[0]).Name.val(), Defs[0].Input, Demangled, ToDemangle))
      continue;
    Candidates.push_back({G, std::move(Demangled), ToDemangle});
    for (DefRef R : Defs)
      if (def(R).State == DefState::FromIndex)
        Work[R.Input].push_back({def(R).Member, R.Def});
  }

  std::vector<size_t> Order;
  for (size_t I = 0; I != Work.size(); ++I)
    if (!Work[I].empty())
      Order.push_back(I);
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Work[A].size() > Work[B].size();
  });
  parallelFor(Order, Jobs, [&](size_t I) {
    LoadedInput &L = Inputs[I];
    std::vector<std::pair<uint32_t, uint32_t>> &W = Work[I];
    std::sort(W.begin(), W.end());
    SmallDenseMap<CachedHashStringRef, uint32_t, 16> Rest;
    for (size_t B = 0; B != W.size();) {
      uint32_t Member = W[B].first;
      size_t E = B;
      while (E != W.size() && W[E].first == Member)
        ++E;
      auto Bin = L.member(Member);
      if (!Bin) {
        L.Warnings.push_back(toString(Bin.takeError()));
        for (size_t K = B; K != E; ++K)
          L.Defs[W[K].second].State = DefState::Unreadable;
        B = E;
        continue;
      }
      bool Relocatable = Bin->kind() == FileKind::Relocatable;
      const std::vector<Symbol> &Syms =
          Relocatable ? Bin->staticSymbols() : Bin->dynamicSymbols();
      auto Defines = [&](const Symbol &S) {
        return Relocatable ? isLinkDefinition(S)
                           : isSharedDefinition(S) && !isLinkerDefined(*Bin, S);
      };
      auto Found = [&](uint32_t Def, const Symbol &S) {
        L.Defs[Def].State = DefState::Known;
        L.Defs[Def].Sym = &S;
      };
      for (size_t K = B; K != E; ++K)
        L.Defs[W[K].second].State = DefState::Stale; // until found
      // ar writes a member's index entries in the order of its symbol table,
      // so one merge-like walk usually finds them all without hashing.
      size_t Next = B;
      for (const Symbol &S : Syms) {
        if (Next == E)
          break;
        if (S.Name == L.Defs[W[Next].second].Name.val() && Defines(S))
          Found(W[Next++].second, S);
      }
      // Whatever the walk missed (another index order), by name.
      Rest.clear();
      for (size_t K = B; K != E; ++K)
        if (L.Defs[W[K].second].State == DefState::Stale)
          Rest.try_emplace(L.Defs[W[K].second].Name, W[K].second);
      if (!Rest.empty())
        for (const Symbol &S : Syms)
          if (Defines(S)) {
            auto It = Rest.find(CachedHashStringRef(S.Name));
            if (It != Rest.end())
              Found(It->second, S);
          }
      B = E;
    }
  });
}

} // namespace aoti::audit::dups
