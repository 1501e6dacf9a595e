//===- link/ArchiveExtraction.cpp - What the link takes from archives ----===//
//
// GNU ld. An archive is scanned when it is read, through its symbol index:
// a member is extracted when it defines a name that is undefined *now* with
// a non-weak reference; the scan repeats until nothing more comes out (so
// members pull members of the same archive), and then the archive is
// forgotten. --start-group/--end-group (and GROUP() in a script) rescan
// their archives until nothing changes. An --as-needed shared library that
// defines nothing undefined at that point is dropped whole: its own
// references then neither extract members nor export anything.
//
// lld. Every archive member's definitions enter the table as lazy; a
// non-weak reference from anywhere, before or after, extracts the member.
// The first archive to offer a name keeps it. Shared libraries' references
// count whether or not --as-needed keeps the library.
//
// ld64 (and ld64.lld). Archives as lld, except that a weak reference also
// loads a member, and -ObjC loads every member with Objective-C classes,
// categories or Swift code. Dylibs on the line only define (their own
// imports are bound by dyld, two-level).
//
// All three: a weak reference never extracts (ld64: it does), and
// --whole-archive (-force_load, -all_load) takes every member.
//
//===----------------------------------------------------------------------===//
#include "Replay.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace aoti::audit::linker {

/// Why the linker stops at a shared library or executable it was given,
/// before reading its symbols; empty when it takes it. GNU ld refuses any
/// executable ("cannot use executable file as input to a link": ET_EXEC,
/// or ET_DYN marked DF_1_PIE); lld an ET_EXEC ("unknown file type"), while
/// it links against a PIE. Both refuse a file whose section headers lie
/// (Binary::linkerRefusal).
std::string Replay::refusal(const LinkInput &Cur) const {
  const Binary &B = *Cur.Bin;
  if (B.format() != BinaryFormat::ELF)
    return "";
  // The file as the line names it (a -lNAME: the path it was found at).
  StringRef Shown = Cur.AsWritten.empty() || StringRef(Cur.AsWritten).starts_with("-l")
                        ? StringRef(Cur.Path)
                        : StringRef(Cur.AsWritten);
  if (F == LinkFlavor::GNU && (B.fixedAddress() || B.markedPie()))
    return formatv("cannot use executable file '{0}' as input to a link",
                   Shown)
        .str();
  if (F == LinkFlavor::LLD && B.fixedAddress())
    return formatv("{0}: unknown file type (an ET_EXEC executable)", Shown)
        .str();
  if (!B.linkerRefusal().empty())
    return formatv("{0}: the linker refuses it: {1}", Shown,
                   B.linkerRefusal())
        .str();
  return "";
}

Error Replay::readInput(unsigned I) {
  const LinkInput &Cur = In[I];
  switch (Cur.InputKind) {
  case LinkInput::Kind::Missing:
    R.Problems.push_back({int(I), Cur.Missing});
    return Error::success();
  case LinkInput::Kind::Object:
    return Policy->readObject(*this, I);
  case LinkInput::Kind::SharedLibrary:
    if (std::string Why = refusal(Cur); !Why.empty()) {
      R.Problems.push_back({int(I), std::move(Why), /*Refused=*/true});
      return Error::success();
    }
    Policy->readSharedLibrary(*this, I);
    return Error::success();
  case LinkInput::Kind::Archive:
    if (whole(I)) {
      for (size_t M = 0; M < Cur.Ar->members().size(); ++M)
        if (!taken(I, int(M))) {
          Extraction X;
          X.Reason = Extraction::Why::WholeArchive;
          if (Error E = loadObject(I, int(M), X))
            return E;
        }
      return Error::success();
    }
    return Policy->readArchive(*this, I);
  }
  return Error::success();
}

Error Replay::addLazyArchive(unsigned I) {
  const Archive &A = *In[I].Ar;
  for (size_t M = 0; M < A.members().size(); ++M) {
    if (taken(I, int(M)))
      continue;
    auto B = memberObject(I, int(M));
    if (!B)
      return B.takeError();
    if (!*B)
      continue;
    for (const Symbol &S : (*B)->staticSymbols()) {
      if (taken(I, int(M)))
        break;
      if (linkerSymbol(S) && S.Defined)
        if (Error E = addLazy(S.Name, I, int(M)))
          return E;
    }
  }
  return Error::success();
}

Error Replay::loadObjCMembers(unsigned I) {
  const Archive &A = *In[I].Ar;
  for (size_t M = 0; M < A.members().size(); ++M) {
    if (taken(I, int(M)))
      continue;
    auto B = memberObject(I, int(M));
    if (!B)
      return B.takeError();
    if (!*B)
      continue;
    bool ObjC = false;
    for (const Symbol &S : (*B)->staticSymbols())
      ObjC |= S.Defined && StringRef(S.Name).starts_with("_OBJC_CLASS_$_");
    if (!ObjC) {
      // Read through the input's cache: -dead_strip walks the same graph.
      auto Secs = memberSections(I, int(M), (*B)->path());
      if (!Secs) {
        R.Notes.push_back(formatv("-ObjC: {0}; its categories are not "
                                  "looked for",
                                  toString(Secs.takeError()))
                              .str());
        continue;
      }
      for (const ObjectSections::Section &S : (*Secs)->Sections) {
        StringRef N = S.Name;
        ObjC |= N.ends_with(",__objc_catlist") ||
                N.ends_with(",__objc_nlcatlist") ||
                N.starts_with("__TEXT,__swift");
      }
    }
    if (!ObjC)
      continue;
    Extraction X;
    X.Reason = Extraction::Why::ObjC;
    if (Error E = loadObject(I, int(M), X))
      return E;
  }
  return Error::success();
}

Error Replay::addLazyObject(unsigned I) {
  for (const Symbol &S : In[I].Bin->staticSymbols()) {
    if (taken(I, -1))
      break;
    if (linkerSymbol(S) && S.Defined)
      if (Error E = addLazy(S.Name, I, -1))
        return E;
  }
  return Error::success();
}

Expected<bool> Replay::scanArchive(unsigned I) {
  const Archive &A = *In[I].Ar;
  if (!A.hasSymbolIndex()) {
    if (!A.members().empty() && !Reported.count(I)) {
      Reported.insert(I);
      R.Problems.push_back(
          {int(I), "archive has no index; run ranlib to add one"});
    }
    return false;
  }
  bool Any = false;
  for (bool Progress = true; Progress;) {
    Progress = false;
    for (const Archive::IndexEntry &E : A.symbolIndex()) {
      if (taken(I, int(E.MemberIndex)))
        continue;
      auto It = R.Index.find(E.Name);
      if (It == R.Index.end())
        continue;
      const LinkSymbol &S = R.Symbols[It->second];
      if (S.St != LinkSymbol::State::Undefined || !S.hasStrongRef())
        continue;
      if (Error Err = loadObject(I, int(E.MemberIndex), whyFrom(S)))
        return Err;
      Progress = Any = true;
    }
  }
  return Any;
}

Error Replay::rescanGroup(size_t Last) {
  int G = In[Last].Group;
  size_t First = Last;
  while (First > 0 && In[First - 1].Group == G)
    --First;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = First; K <= Last; ++K) {
      if (!In[K].isArchive() || whole(unsigned(K)))
        continue;
      auto Any = scanArchive(unsigned(K));
      if (!Any)
        return Any.takeError();
      Changed |= *Any;
    }
  }
  return Error::success();
}

bool Replay::neededNow(unsigned I) const {
  const Binary &B = *In[I].Bin;
  StringRef Self = B.soname().empty() ? StringRef(B.fileName()) : B.soname();
  for (const Symbol &D : B.dynamicSymbols()) {
    if (!D.Defined || !isExportableDefinition(D))
      continue;
    const LinkSymbol *S = R.find(D.Name);
    if (!S || S->St != LinkSymbol::State::Undefined)
      continue;
    for (const SymbolRef &Ref : S->StrongRefs) {
      if (Ref.Object >= 0 || Ref.Option)
        return true;
      bool AlreadyDepends = false;
      for (const Dependency &Dep : In[Ref.SharedInput].Bin->dependencies())
        AlreadyDepends |= Dep.Name == Self;
      if (!AlreadyDepends)
        return true;
    }
  }
  return false;
}

// --- the policies -----------------------------------------------------------

std::unique_ptr<FlavorPolicy> policyFor(LinkFlavor F) {
  switch (F) {
  case LinkFlavor::GNU: return std::make_unique<GnuPolicy>();
  case LinkFlavor::LLD: return std::make_unique<LldPolicy>();
  case LinkFlavor::LD64: return std::make_unique<Ld64Policy>();
  }
  return std::make_unique<GnuPolicy>();
}

Error FlavorPolicy::beforeInputs(Replay &Rp) { return Error::success(); }

Error FlavorPolicy::readObject(Replay &Rp, unsigned I) {
  return Rp.loadObject(I, -1, {});
}

Error FlavorPolicy::endOfGroup(Replay &Rp, size_t Last) {
  return Error::success();
}

Error FlavorPolicy::afterInputs(Replay &Rp) {
  return Rp.addUndefinedOptions();
}

// GNU ld: -u names first, so the archives read next are scanned for them;
// an archive is scanned once, when it is read, and a group's archives again
// at its end; an --as-needed library nothing needs yet is dropped.

Error GnuPolicy::beforeInputs(Replay &Rp) { return Rp.addUndefinedOptions(); }

Error GnuPolicy::readArchive(Replay &Rp, unsigned I) {
  auto Any = Rp.scanArchive(I);
  return Any ? Error::success() : Any.takeError();
}

void GnuPolicy::readSharedLibrary(Replay &Rp, unsigned I) {
  bool AsNeeded = Rp.In[I].AsNeeded && !Rp.W.NoAsNeeded.count(I);
  if (AsNeeded && !Rp.neededNow(I))
    return; // dropped: its symbols never enter the table
  Rp.addSharedLibrary(I, /*Needed=*/true);
}

Error GnuPolicy::endOfGroup(Replay &Rp, size_t Last) {
  return Rp.rescanGroup(Last);
}

Error GnuPolicy::afterInputs(Replay &Rp) { return Error::success(); }

// lld: archive members and --start-lib objects enter the table lazily; an
// --as-needed library is read whole, and gets DT_NEEDED at the end if a
// regular object refers to a name it defines.

Error LldPolicy::readObject(Replay &Rp, unsigned I) {
  if (Rp.In[I].Lazy)
    return Rp.addLazyObject(I);
  return FlavorPolicy::readObject(Rp, I);
}

Error LldPolicy::readArchive(Replay &Rp, unsigned I) {
  return Rp.addLazyArchive(I);
}

void LldPolicy::readSharedLibrary(Replay &Rp, unsigned I) {
  bool AsNeeded = Rp.In[I].AsNeeded && !Rp.W.NoAsNeeded.count(I);
  Rp.addSharedLibrary(I, /*Needed=*/!AsNeeded);
}

Error LldPolicy::afterInputs(Replay &Rp) {
  if (Error E = FlavorPolicy::afterInputs(Rp))
    return E;
  for (const LinkSymbol &S : Rp.R.Symbols)
    if (S.St == LinkSymbol::State::Shared && S.hasRegularStrongRef())
      Rp.R.Needed[S.SharedDefiner] = true;
  return Error::success();
}

// ld64: lazy as lld, -ObjC members loaded whatever refers to them, dylibs
// only define, and the entry point is a reference like -u.

Error Ld64Policy::readArchive(Replay &Rp, unsigned I) {
  if (Rp.L.ObjC)
    if (Error E = Rp.loadObjCMembers(I))
      return E;
  return Rp.addLazyArchive(I);
}

void Ld64Policy::readSharedLibrary(Replay &Rp, unsigned I) { Rp.addDylib(I); }

Error Ld64Policy::afterInputs(Replay &Rp) {
  if (Error E = FlavorPolicy::afterInputs(Rp))
    return E;
  if (Rp.executableOutput())
    return Rp.addUndefinedOption(Rp.entry(), /*Entry=*/true);
  return Error::success();
}

} // namespace aoti::audit::linker
