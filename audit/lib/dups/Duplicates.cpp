//===- Duplicates.cpp - Passes 4 and 6: the Duplicate facts ---------------===//
//
// Pass 4 turns each candidate into a Duplicate: one definition per place
// (stale index entries dropped), the shared build of an archive that defines
// the name set aside (libfoo.so next to libfoo.a: a link takes one or the
// other, so it is a variant, not a second definition), and a candidate left
// with fewer than two definitions dropped. What is left gets its kind from
// the definitions' strengths: two strong ones, a common one, one strong and
// weak ones, or weak ones only; and whether it is a clash between LibTorch
// and another tensor ABI. Everything is built in its final order -- by name,
// each duplicate's definitions by file and member -- by sorting small
// handles before the facts are made.
//
// Pass 6 demangles the C++ names of the duplicates, in parallel (with
// prefixes a mangled name was demangled in pass 3 already, to match them).
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "llvm/ADT/DenseSet.h"

using namespace llvm;

namespace aoti::audit::dups {

namespace {

DefinitionStrength strengthOf(const RawDef &D) {
  if (!D.Sym)
    return DefinitionStrength::Strong; // unreadable member: assume the worst
  if (D.Sym->Type == SymbolType::Common)
    return DefinitionStrength::Common;
  // STB_GNU_UNIQUE, like weak: one definition wins by design.
  if (D.Sym->Binding == SymbolBinding::Weak ||
      D.Sym->Binding == SymbolBinding::Unique)
    return DefinitionStrength::Weak;
  return DefinitionStrength::Strong;
}

} // namespace

void DupsAnalyzer::buildDuplicates() {
  // Built in the order the facts promise -- by name, each duplicate's
  // definitions by file and member -- by sorting small handles, not the
  // finished structures.
  auto NameOf = [&](const Candidate &C) { return def(Groups[C.Group][0]).Name.val(); };
  std::sort(Candidates.begin(), Candidates.end(),
            [&](const Candidate &A, const Candidate &B) {
              return NameOf(A) < NameOf(B);
            });
  auto Place = [&](DefRef R) {
    const LoadedInput &L = Inputs[R.Input];
    StringRef Member = L.Kind == InputKind::Archive
                           ? StringRef(L.In.Ar->members()[def(R).Member].Name)
                           : StringRef();
    return std::make_pair(StringRef(F.Files[R.Input]), Member);
  };
  auto ByPlace = [&](DefRef A, DefRef B) { return Place(A) < Place(B); };
  for (Candidate &C : Candidates) {
    // One definition per place; stale index entries dropped.
    std::vector<DefRef> Defs;
    SmallDenseSet<UnitKey, 8> Places;
    bool HasShared = false;
    for (DefRef R : Groups[C.Group]) {
      DefState S = def(R).State;
      if (S == DefState::Stale || S == DefState::FromIndex)
        continue;
      if (Places.insert(unit(R)).second)
        Defs.push_back(R);
      HasShared |= Inputs[R.Input].Kind == InputKind::SharedLibrary;
    }
    // The shared build of an archive that defines the name is not a second
    // definition: a link uses libfoo.a or libfoo.so.
    std::vector<StringRef> ArchiveStems;
    for (DefRef R : Defs)
      if (HasShared && Inputs[R.Input].Kind == InputKind::Archive)
        ArchiveStems.push_back(Inputs[R.Input].LibraryStem);
    std::vector<std::string> Variants;
    if (HasShared)
      llvm::erase_if(Defs, [&](DefRef R) {
      const LoadedInput &L = Inputs[R.Input];
      if (L.Kind != InputKind::SharedLibrary ||
          !llvm::is_contained(ArchiveStems, StringRef(L.LibraryStem)))
        return false;
      Variants.push_back(L.Where.Path);
      return true;
    });
    if (Defs.size() < 2)
      continue;
    if (!std::is_sorted(Defs.begin(), Defs.end(), ByPlace))
      std::sort(Defs.begin(), Defs.end(), ByPlace);

    Duplicate D;
    D.Definitions.reserve(Defs.size());
    D.Name = def(Defs[0]).Name.val().str();
    D.Demangled = std::move(C.Demangled);
    D.SharedVariants = std::move(Variants);
    bool Torch = false, Other = false;
    for (DefRef R : Defs)
      (isLibTorchFile(F.Files[R.Input]) ? Torch : Other) = true;
    // Only a shim name (under the prefixes, which --all keeps) is two
    // tensor ABIs; LibTorch shares libstdc++'s weak inline copies, say,
    // with everything else.
    StringRef Bare = StringRef(D.Name);
    bool Shim = false;
    for (const std::string &P : F.Options.Prefixes)
      Shim |= Bare.starts_with(P) || Bare.drop_front(Bare.starts_with("_"))
                                         .starts_with(P);
    D.LibTorchClash = Torch && Other && Shim;
    unsigned Strong = 0, Common = 0;
    for (DefRef R : Defs) {
      const RawDef &RD = def(R);
      const LoadedInput &L = Inputs[R.Input];
      DuplicateDefinition DD;
      DD.File = F.Files[R.Input]; // Files is complete and stays put
      if (L.Kind == InputKind::Archive) {
        DD.Member = L.In.Ar->members()[RD.Member].Name;
        DD.Origin = DefinitionOrigin::ArchiveMember;
      } else {
        DD.Origin = L.Kind == InputKind::SharedLibrary
                        ? DefinitionOrigin::SharedLibrary
                        : DefinitionOrigin::Object;
      }
      DD.Confirmed = RD.Sym != nullptr;
      if (RD.Sym) {
        DD.Binding = RD.Sym->Binding;
        DD.Visibility = RD.Sym->Visibility;
        DD.Type = RD.Sym->Type;
        DD.Version = RD.Sym->Version;
      }
      DD.Strength = strengthOf(RD);
      DD.Pulled = DD.Origin == DefinitionOrigin::Object ? PullIn::Always
                                                        : PullIn::Never;
      Strong += DD.Strength == DefinitionStrength::Strong;
      Common += DD.Strength == DefinitionStrength::Common;
      D.Definitions.push_back(std::move(DD));
    }
    D.Kind = Strong >= 2   ? DuplicateKind::StrongStrong
             : Common      ? DuplicateKind::Common
             : Strong == 1 ? DuplicateKind::StrongWeak
                           : DuplicateKind::WeakWeak;
    F.Duplicates.push_back(std::move(D));
    DupDefs.push_back(std::move(Defs));
    DupToDemangle.push_back(C.ToDemangle);
  }
}

void DupsAnalyzer::demangle() {
  std::vector<size_t> Order;
  for (size_t I = 0; I != DupToDemangle.size(); ++I)
    if (!DupToDemangle[I].empty())
      Order.push_back(I);
  // In chunks: one demangling is a few microseconds.
  constexpr size_t Chunk = 256;
  std::vector<size_t> Chunks;
  for (size_t C = 0; C < Order.size(); C += Chunk)
    Chunks.push_back(C);
  parallelFor(Chunks, Jobs, [&](size_t C) {
    for (size_t K = C; K < std::min(C + Chunk, Order.size()); ++K) {
      StringRef S = DupToDemangle[Order[K]];
      std::string Out = llvm::demangle(std::string_view(S.data(), S.size()));
      if (Out != S)
        F.Duplicates[Order[K]].Demangled = std::move(Out);
    }
  });
}

} // namespace aoti::audit::dups
