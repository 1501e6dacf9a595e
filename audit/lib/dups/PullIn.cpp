//===- PullIn.cpp - Pass 5: what a plain link pulls in --------------------===//
//
// A duplicate whose definitions are all in loose objects breaks every link.
// One with a definition in an archive member or a shared library breaks a
// link only if that member or library is pulled in; Dups.h says what "a
// plain link" of the inputs pulls in. Pass 5 finds out, and runs only when
// some duplicate has such a definition.
//
// It is a walk over the references: every loose object is linked ("always")
// and queued. Each queued unit's non-weak undefined references are looked up
// in the table of pass 2: a name with one provider pulls that provider in
// ("always", and it is queued to follow its own references); a name with
// several providers makes each of them "maybe" (link order, or which
// provider wins, decides). A unit no reference reaches is "never" pulled in.
// Members are opened here only when they are pulled in.
//
// Then each duplicate is judged on its clashing definitions (for two strong
// ones the strong ones, else all): latent when fewer than two of them are
// always pulled in, an interposition when one is a shared library's and
// fewer than two are in objects or archive members.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

using namespace llvm;

namespace aoti::audit::dups {

namespace {

/// Non-weak undefined references, the ones that extract archive members
/// (a weak reference never does).
template <typename Fn> void forEachStrongReference(const Binary &B, Fn &&Do) {
  for (const Symbol &S : B.linkSymbols())
    if (!S.Defined && !S.isWeak() && !S.Name.empty())
      Do(S.Name);
}

} // namespace

void DupsAnalyzer::computePullIn() {
  bool AnyLazy = false;
  for (const Duplicate &D : F.Duplicates)
    for (const DuplicateDefinition &DD : D.Definitions)
      AnyLazy |= DD.Origin != DefinitionOrigin::Object;
  if (!AnyLazy)
    return;

  DenseMap<UnitKey, PullIn> State;
  std::vector<UnitKey> Queue;
  for (uint32_t I = 0; I != Inputs.size(); ++I)
    if (Inputs[I].Kind == InputKind::Object) {
      State[unitOf(I, NoMember)] = PullIn::Always;
      Queue.push_back(unitOf(I, NoMember));
    }
  SmallVector<UnitKey, 4> Providers;
  auto Reference = [&](StringRef Name) {
    auto It = GroupOf.find(CachedHashStringRef(Name));
    if (It == GroupOf.end())
      return;
    Providers.clear();
    for (DefRef R : Groups[It->second])
      if (def(R).State != DefState::Stale &&
          !llvm::is_contained(Providers, unit(R)))
        Providers.push_back(unit(R));
    if (Providers.size() == 1) {
      PullIn &S = State.try_emplace(Providers[0], PullIn::Never).first->second;
      if (S != PullIn::Always) {
        S = PullIn::Always;
        Queue.push_back(Providers[0]);
      }
      return;
    }
    for (UnitKey U : Providers) {
      PullIn &S = State.try_emplace(U, PullIn::Never).first->second;
      if (S == PullIn::Never)
        S = PullIn::Maybe;
    }
  };
  while (!Queue.empty()) {
    UnitKey U = Queue.back();
    Queue.pop_back();
    LoadedInput &L = Inputs[U >> 32];
    uint32_t Member = uint32_t(U);
    const Binary *B = L.In.Bin.get();
    if (Member != NoMember) {
      // Single-threaded here, so sharing the archive's member cache is safe.
      auto M = L.member(Member);
      if (!M) {
        consumeError(M.takeError()); // reported when it mattered, in pass 3
        continue;
      }
      B = &*M;
    }
    forEachStrongReference(*B, Reference);
  }

  for (size_t I = 0; I != F.Duplicates.size(); ++I)
    for (size_t K = 0; K != DupDefs[I].size(); ++K) {
      auto It = State.find(unit(DupDefs[I][K]));
      F.Duplicates[I].Definitions[K].Pulled =
          It == State.end() ? PullIn::Never : It->second;
    }
}

void DupsAnalyzer::finish() {
  for (Duplicate &D : F.Duplicates) {
    // The definitions that clash: for two strong ones, the strong ones (a
    // weak one beside them changes nothing); otherwise all of them.
    unsigned Always = 0, Relocatable = 0, Shared = 0;
    for (const DuplicateDefinition &DD : D.Definitions) {
      if (D.Kind == DuplicateKind::StrongStrong &&
          DD.Strength != DefinitionStrength::Strong)
        continue;
      Always += DD.Pulled == PullIn::Always;
      (DD.Origin == DefinitionOrigin::SharedLibrary ? Shared : Relocatable)++;
    }
    D.Latent = Always < 2;
    D.Interposition = Shared > 0 && Relocatable < 2;
  }
}

} // namespace aoti::audit::dups
