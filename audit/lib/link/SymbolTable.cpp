//===- link/SymbolTable.cpp - The replay's symbol table ------------------===//
//
// One table for the whole link, as the linkers keep it. Each name is in one
// of four states: undefined, defined by a linked object, defined by a
// shared library, or lazily defined by an archive member (or --start-lib
// object) nothing has asked for yet. A linked object's definitions and
// references enter it in order: of the COMDAT groups with one signature
// (ELF), the first linked object's is kept and the others are discarded
// whole before their definitions enter the table (GCC's STB_GNU_UNIQUE
// statics of inline functions and template static members are defined in
// every object that uses them and never collide). Two strong definitions
// from linked objects are "multiple definition" (unless -z muldefs); a
// strong one beats weak and common ones. A reference to a lazy name
// extracts its member; which references do is the flavour's rule.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace aoti::audit::linker {

bool isExportableDefinition(const Symbol &S) {
  return S.isExportedDefinition() && !S.VersionHidden;
}

bool linkerSymbol(const Symbol &S) {
  return !S.isLocal() && !S.Name.empty() && S.Type != SymbolType::Section &&
         S.Type != SymbolType::File;
}

SymbolVisibility stricter(SymbolVisibility A, SymbolVisibility B) {
  auto Rank = [](SymbolVisibility V) {
    switch (V) {
    case SymbolVisibility::Default: return 0;
    case SymbolVisibility::Protected: return 1;
    case SymbolVisibility::Hidden: return 2;
    case SymbolVisibility::Internal: return 3;
    }
    return 0;
  };
  return Rank(A) >= Rank(B) ? A : B;
}

unsigned Replay::sym(StringRef Name) {
  auto [It, New] = R.Index.try_emplace(Name, unsigned(R.Symbols.size()));
  if (New) {
    R.Symbols.emplace_back();
    R.Symbols.back().Name = Name.str();
  }
  return It->second;
}

bool Replay::taken(unsigned Input, int Member) const {
  return Taken[Input][Member < 0 ? 0 : Member] != 0;
}

bool Replay::whole(unsigned I) const {
  return In[I].WholeArchive || W.WholeArchive.count(I);
}

Extraction Replay::whyFrom(const LinkSymbol &S) {
  Extraction X;
  X.Symbol = S.Name;
  for (const SymbolRef &Ref : S.StrongRefs) {
    if (Ref.Object >= 0) {
      X.Reason = Extraction::Why::Reference;
      X.ByObject = Ref.Object;
    } else if (Ref.SharedInput >= 0) {
      X.Reason = Extraction::Why::SharedReference;
      X.ByInput = Ref.SharedInput;
    } else {
      X.Reason = Extraction::Why::UndefinedOption;
    }
    return X;
  }
  X.Reason = Extraction::Why::Reference;
  return X;
}

Expected<const Binary *> Replay::memberObject(unsigned I, int M) {
  auto B = In[I].Ar->member(size_t(M));
  if (!B) {
    R.Notes.push_back(toString(B.takeError()));
    return nullptr;
  }
  if (B->kind() != FileKind::Relocatable)
    return nullptr;
  return &*B;
}

Error Replay::loadObject(unsigned I, int M, Extraction Why) {
  const Binary *B = In[I].Bin.get();
  if (M >= 0) {
    auto MB = memberObject(I, M);
    if (!MB)
      return MB.takeError();
    B = *MB;
  }
  Taken[I][M < 0 ? 0 : M] = 1;
  if (!B)
    return Error::success();
  R.Read[I] = true;
  int Obj = int(R.Objects.size());
  R.Objects.push_back({I, M, B, std::move(Why)});
  // This object's COMDAT groups that an earlier object already brought:
  // discarded, with every definition in them.
  SmallVector<StringRef, 4> Discarded, Brought;
  for (const Symbol &S : B->staticSymbols())
    if (!S.Comdat.empty() && !llvm::is_contained(Brought, S.Comdat) &&
        !llvm::is_contained(Discarded, S.Comdat)) {
      if (KeptComdats.insert(S.Comdat).second)
        Brought.push_back(S.Comdat);
      else
        Discarded.push_back(S.Comdat);
    }
  for (const Symbol &S : B->staticSymbols()) {
    if (!linkerSymbol(S))
      continue;
    if (S.Defined && !S.Comdat.empty() &&
        llvm::is_contained(Discarded, S.Comdat))
      continue;
    if (S.Defined)
      define(Obj, S);
    else if (Error E = reference(Obj, S))
      return E;
  }
  return Error::success();
}

void Replay::define(int Obj, const Symbol &D) {
  LinkSymbol &S = R.Symbols[sym(D.Name)];
  S.Visibility = stricter(S.Visibility, D.Visibility);
  if (S.St != LinkSymbol::State::Defined) {
    S.St = LinkSymbol::State::Defined;
    S.Definer = Obj;
    S.Def = &D;
    return;
  }
  bool OldStrong = S.Def->isStrongDefinition();
  bool NewStrong = D.isStrongDefinition();
  if (OldStrong && NewStrong) {
    if (!L.AllowMultipleDefinition)
      R.MultipleDefinitions.push_back({S.Name, S.Definer, Obj});
    return;
  }
  if (!OldStrong && NewStrong) {
    S.Definer = Obj;
    S.Def = &D;
  }
}

Error Replay::reference(int Obj, const Symbol &U) {
  unsigned Idx = sym(U.Name);
  LinkSymbol &S = R.Symbols[Idx];
  S.Visibility = stricter(S.Visibility, U.Visibility);
  if (U.isWeak()) {
    S.WeakRefs.push_back(Obj);
    // ld64 loads an archive member for a weak reference too.
    if (Policy->weakReferenceExtracts() && S.St == LinkSymbol::State::Lazy)
      return extractLazy(Idx);
    return Error::success();
  }
  S.StrongRefs.push_back({Obj, -1, false});
  if (S.St == LinkSymbol::State::Lazy)
    return extractLazy(Idx);
  return Error::success();
}

Error Replay::extractLazy(unsigned Idx) {
  const LinkSymbol &S = R.Symbols[Idx];
  unsigned I = unsigned(S.LazyInput);
  int M = S.LazyMember;
  if (taken(I, M))
    return Error::success();
  return loadObject(I, M, whyFrom(S));
}

Error Replay::addLazy(StringRef Name, unsigned I, int M) {
  unsigned Idx = sym(Name);
  LinkSymbol &S = R.Symbols[Idx];
  if (S.St != LinkSymbol::State::Undefined)
    return Error::success();
  S.LazyInput = int(I);
  S.LazyMember = M;
  if (S.hasStrongRef() ||
      (Policy->weakReferenceExtracts() && !S.WeakRefs.empty()))
    return loadObject(I, M, whyFrom(S));
  S.St = LinkSymbol::State::Lazy;
  return Error::success();
}

Error Replay::addUndefinedOption(StringRef Name, bool Entry) {
  unsigned Idx = sym(Name);
  LinkSymbol &S = R.Symbols[Idx];
  S.UndefinedOption |= !Entry;
  S.StrongRefs.push_back({-1, -1, true});
  if (S.St == LinkSymbol::State::Lazy)
    return extractLazy(Idx);
  return Error::success();
}

Error Replay::addUndefinedOptions() {
  for (const std::string &U : L.Undefined)
    if (Error E = addUndefinedOption(U))
      return E;
  return Error::success();
}

// --- shared libraries -------------------------------------------------------

void Replay::addSharedLibrary(unsigned I, bool Needed) {
  R.Read[I] = true;
  R.Needed[I] = Needed;
  for (const Symbol &D : In[I].Bin->dynamicSymbols()) {
    if (D.isLocal() || D.Name.empty())
      continue;
    if (D.Defined) {
      if (!isExportableDefinition(D))
        continue;
      LinkSymbol &S = R.Symbols[sym(D.Name)];
      S.SharedDefs.push_back(int(I));
      if (S.St == LinkSymbol::State::Undefined ||
          S.St == LinkSymbol::State::Lazy) {
        S.St = LinkSymbol::State::Shared;
        S.SharedDefiner = int(I);
      }
      continue;
    }
    unsigned Idx = sym(D.Name);
    SharedRefd.insert(Idx);
    if (D.isWeak())
      continue;
    R.Symbols[Idx].StrongRefs.push_back({-1, int(I), false});
    if (R.Symbols[Idx].St == LinkSymbol::State::Lazy)
      if (Error E = extractLazy(Idx))
        R.Notes.push_back(toString(std::move(E)));
  }
}

void Replay::addDylib(unsigned I) {
  // A dylib's imports are dyld's business (two-level, by ordinal): for
  // ld64 it only defines.
  R.Read[I] = R.Needed[I] = true;
  for (const Symbol &D : In[I].Bin->dynamicSymbols()) {
    if (!D.Defined || D.isLocal() || D.Name.empty())
      continue;
    LinkSymbol &S = R.Symbols[sym(D.Name)];
    S.SharedDefs.push_back(int(I));
    if (S.St == LinkSymbol::State::Undefined) {
      S.St = LinkSymbol::State::Shared;
      S.SharedDefiner = int(I);
    } else if (S.St == LinkSymbol::State::Lazy && !D.isWeak()) {
      // ld64.lld: a dylib's definition takes the name from an archive
      // member nothing has loaded yet.
      S.St = LinkSymbol::State::Shared;
      S.SharedDefiner = int(I);
    }
  }
}

} // namespace aoti::audit::linker
