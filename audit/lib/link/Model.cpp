//===- link/Model.cpp - Replaying a static link ---------------------------===//
//
// The replay follows the linkers' own structure: one symbol table, inputs
// read in command-line order, each symbol in one of four states (undefined,
// defined by a linked object, defined by a shared library, or -- lld only --
// lazily defined by an archive member nothing has asked for yet).
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
// Both. A weak reference never extracts. Of the COMDAT groups with one
// signature (ELF), the first linked object's is kept and the others are
// discarded whole before their definitions enter the table: GCC's
// STB_GNU_UNIQUE statics of inline functions and template static members
// are defined in every object that uses them and never collide (outside a
// group, two STB_GNU_UNIQUE definitions collide like two global ones).
// Two strong definitions from linked objects are "multiple definition"
// (unless -z muldefs); a strong one beats weak and common ones;
// definitions in shared libraries never collide. The
// output's .dynsym gets what a shared library on the line refers to or also
// defines, plus the export flags; hidden visibility, version-script local:
// and --exclude-libs keep a name out.
//
// --gc-sections is replayed over sections and relocations (LinkSections.h):
// roots are the entry point, exported names, -u names and sections the
// default script keeps; an unreferenced definition is gone from the output,
// and an undefined reference only from dead sections is no error.
//
// ld64 (and ld64.lld). Archives as lld, except that a weak reference also
// loads a member, and -ObjC loads every member with Objective-C classes,
// categories or Swift code. The entry point (_main) is a reference like -u. Dylibs on
// the line only define (their own imports are bound by dyld, two-level). An
// executable, dylib or bundle exports every global that is not a private
// external (N_PEXT, hidden visibility), unless -exported_symbol(s_list)
// leaves it out, -unexported_symbol(s_list) names it or
// -no_exported_symbols. Undefined references are errors for every output
// kind, weak references included, unless -undefined says otherwise (-U NAME
// for one name). -dead_strip
// works on atoms (the objects' subsections via symbols); its roots are the
// entry point, -u, the export list's names, and -- for a dylib or bundle, or
// an executable linked -export_dynamic -- every exported global.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/Model.h"

#include "aoti/audit/link/Scripts.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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

namespace {

/// Names the linker itself defines when something refers to them.
bool isLinkerDefined(StringRef N) {
  static const StringSet<> Names = {
      "_GLOBAL_OFFSET_TABLE_", "_DYNAMIC", "__ehdr_start",
      "__executable_start", "_etext", "etext", "__etext", "_edata", "edata",
      "_end", "end", "__bss_start", "__init_array_start", "__init_array_end",
      "__fini_array_start", "__fini_array_end", "__preinit_array_start",
      "__preinit_array_end", "__GNU_EH_FRAME_HDR", "_PROCEDURE_LINKAGE_TABLE_",
      "__rela_iplt_start", "__rela_iplt_end", "__rel_iplt_start",
      "__rel_iplt_end", "_TLS_MODULE_BASE_", "__global_pointer$",
      "__dso_handle"};
  return Names.contains(N) || N.starts_with("__start_") ||
         N.starts_with("__stop_");
}

/// What ld64 and ld64.lld define themselves.
bool isLd64Defined(StringRef N) {
  static const StringSet<> Names = {
      "__mh_execute_header", "__mh_dylib_header", "__mh_bundle_header",
      "___dso_handle", "__dyld_private", "dyld_stub_binder"};
  return Names.contains(N) || N.starts_with("section$start$") ||
         N.starts_with("section$end$") || N.starts_with("segment$start$") ||
         N.starts_with("segment$end$") || N.starts_with("_objc_msgSend$");
}

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

/// The parsed export/local lists of a command line.
struct ExportLists {
  // ld64: -exported_symbol(s_list), -unexported_symbol(s_list).
  bool HasExportList = false;
  SymbolPatternList Exported, Unexported;
  std::vector<VersionScript> VersionScripts;
  SymbolPatternList ExportSymbols; // --export-dynamic-symbol
  std::vector<SymbolPatternList> ExportSymbolLists; // ...-symbol-list
  std::vector<SymbolPatternList> DynamicLists;
};

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

class Replay {
public:
  Replay(const LinkCommandLine &L, const std::vector<LinkInput> &In,
         const LinkWhatIf &W, const ExportLists &Lists)
      : L(L), In(In), W(W), Lists(Lists),
        F(W.Flavor.value_or(L.Flavor)) {}

  Expected<LinkResult> run() {
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

private:
  // --- the symbol table ---------------------------------------------------

  unsigned sym(StringRef Name) {
    auto [It, New] = R.Index.try_emplace(Name, unsigned(R.Symbols.size()));
    if (New) {
      R.Symbols.emplace_back();
      R.Symbols.back().Name = Name.str();
    }
    return It->second;
  }

  bool taken(unsigned Input, int Member) const {
    return Taken[Input][Member < 0 ? 0 : Member] != 0;
  }

  bool whole(unsigned I) const {
    return In[I].WholeArchive || W.WholeArchive.count(I);
  }

  static Extraction whyFrom(const LinkSymbol &S) {
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

  // --- reading inputs -----------------------------------------------------

  Error readInput(unsigned I) {
    const LinkInput &Cur = In[I];
    switch (Cur.InputKind) {
    case LinkInput::Kind::Missing:
      R.Problems.push_back({int(I), Cur.Missing});
      return Error::success();
    case LinkInput::Kind::Object:
      if (Cur.Lazy && F == LinkFlavor::LLD)
        return addLazyObject(I);
      return loadObject(I, -1, {});
    case LinkInput::Kind::SharedLibrary:
      loadShared(I);
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
      if (F == LinkFlavor::GNU) {
        auto Any = scanArchive(I);
        return Any ? Error::success() : Any.takeError();
      }
      if (F == LinkFlavor::LD64 && L.ObjC)
        if (Error E = loadObjCMembers(I))
          return E;
      return addLazyArchive(I);
    }
    return Error::success();
  }

  /// The member as an object, or null when it is not one (a text file, a
  /// member of another architecture): both linkers skip those.
  Expected<const Binary *> memberObject(unsigned I, int M) {
    auto B = In[I].Ar->member(size_t(M));
    if (!B) {
      R.Notes.push_back(toString(B.takeError()));
      return nullptr;
    }
    if (B->kind() != FileKind::Relocatable)
      return nullptr;
    return &*B;
  }

  Error loadObject(unsigned I, int M, Extraction Why) {
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

  void define(int Obj, const Symbol &D) {
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

  Error reference(int Obj, const Symbol &U) {
    unsigned Idx = sym(U.Name);
    LinkSymbol &S = R.Symbols[Idx];
    S.Visibility = stricter(S.Visibility, U.Visibility);
    if (U.isWeak()) {
      S.WeakRefs.push_back(Obj);
      // ld64 loads an archive member for a weak reference too.
      if (F == LinkFlavor::LD64 && S.St == LinkSymbol::State::Lazy)
        return extractLazy(Idx);
      return Error::success();
    }
    S.StrongRefs.push_back({Obj, -1, false});
    if (F != LinkFlavor::GNU && S.St == LinkSymbol::State::Lazy)
      return extractLazy(Idx);
    return Error::success();
  }

  Error extractLazy(unsigned Idx) {
    const LinkSymbol &S = R.Symbols[Idx];
    unsigned I = unsigned(S.LazyInput);
    int M = S.LazyMember;
    if (taken(I, M))
      return Error::success();
    return loadObject(I, M, whyFrom(S));
  }

  Error addLazy(StringRef Name, unsigned I, int M) {
    unsigned Idx = sym(Name);
    LinkSymbol &S = R.Symbols[Idx];
    if (S.St != LinkSymbol::State::Undefined)
      return Error::success();
    S.LazyInput = int(I);
    S.LazyMember = M;
    if (S.hasStrongRef() || (F == LinkFlavor::LD64 && !S.WeakRefs.empty()))
      return loadObject(I, M, whyFrom(S));
    S.St = LinkSymbol::State::Lazy;
    return Error::success();
  }

  Error addLazyArchive(unsigned I) {
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

  /// ld64 -ObjC: members that define an Objective-C class, or hold a
  /// category list or Swift code, are loaded whatever refers to them.
  Error loadObjCMembers(unsigned I) {
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

  Error addLazyObject(unsigned I) {
    for (const Symbol &S : In[I].Bin->staticSymbols()) {
      if (taken(I, -1))
        break;
      if (linkerSymbol(S) && S.Defined)
        if (Error E = addLazy(S.Name, I, -1))
          return E;
    }
    return Error::success();
  }

  Expected<bool> scanArchive(unsigned I) {
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

  Error rescanGroup(size_t Last) {
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

  Error addUndefinedOption(StringRef Name, bool Entry = false) {
    unsigned Idx = sym(Name);
    LinkSymbol &S = R.Symbols[Idx];
    S.UndefinedOption |= !Entry;
    S.StrongRefs.push_back({-1, -1, true});
    if (F != LinkFlavor::GNU && S.St == LinkSymbol::State::Lazy)
      return extractLazy(Idx);
    return Error::success();
  }

  /// GNU --as-needed: the library is needed if it defines a name that is
  /// undefined now, referred to by a regular object, or by a shared library
  /// that does not already depend on it.
  bool neededNow(unsigned I) const {
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

  void loadShared(unsigned I) {
    if (F == LinkFlavor::LD64) {
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
      return;
    }
    bool AsNeeded = In[I].AsNeeded && !W.NoAsNeeded.count(I);
    if (F == LinkFlavor::GNU && AsNeeded && !neededNow(I))
      return; // dropped: its symbols never enter the table
    R.Read[I] = true;
    R.Needed[I] = F == LinkFlavor::GNU || !AsNeeded;
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
      if (F == LinkFlavor::LLD &&
          R.Symbols[Idx].St == LinkSymbol::State::Lazy)
        if (Error E = extractLazy(Idx))
          R.Notes.push_back(toString(std::move(E)));
    }
  }

  // --- after the last input -----------------------------------------------

  bool implicitInputsRead() const {
    return L.DriverQueried || L.Kind == LinkCommandKind::Linker;
  }

  bool executableOutput() const {
    return L.OutputKind == LinkOutputKind::Executable ||
           L.OutputKind == LinkOutputKind::PIE;
  }

  std::string entry() const {
    if (!L.Entry.empty())
      return L.Entry;
    return F == LinkFlavor::LD64 ? "_main" : "_start";
  }

  /// ld64: what keeps Name out of the export trie, if anything.
  LinkSymbol::Local ld64Unexported(StringRef Name) const {
    if (L.NoExportedSymbols ||
        (Lists.HasExportList && !Lists.Exported.matches(Name)))
      return LinkSymbol::Local::ExportList;
    if (Lists.Unexported.matches(Name))
      return LinkSymbol::Local::Unexported;
    return LinkSymbol::Local::No;
  }

  void finishLd64() {
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

  void finish() {
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

  static bool anyMatch(const std::vector<SymbolPatternList> &Lists,
                       StringRef Name) {
    for (const SymbolPatternList &P : Lists)
      if (P.matches(Name))
        return true;
    return false;
  }

  bool excludedLib(int Obj) const {
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

  bool definedByAnySharedInput(StringRef Name) const {
    for (const LinkInput &I : In)
      if (I.isShared())
        for (const Symbol *D : I.Bin->findExportedDefinitions(Name))
          if (!D->VersionHidden)
            return true;
    return false;
  }

  bool allNeededOnLine(int Lib) {
    auto [It, New] = NeededKnown.try_emplace(Lib, true);
    if (!New)
      return It->second;
    StringSet<> Names;
    for (const LinkInput &I : In) {
      if (!I.isShared())
        continue;
      Names.insert(I.Bin->soname());
      Names.insert(sys::path::filename(I.Path));
    }
    for (const Dependency &D : In[Lib].Bin->dependencies())
      if (!Names.contains(D.Name))
        It->second = false;
    return It->second;
  }

  // --- --gc-sections --------------------------------------------------------

  /// The section graph of an object on the line (Member < 0) or of an
  /// archive member, read once and kept in the input (LinkInput::Sections).
  /// Failures are not kept.
  Expected<const ObjectSections *> memberSections(unsigned Input, int Member,
                                                  StringRef Display) {
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

  const ObjectSections *sectionsOf(int Obj) {
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

  void collectGarbage(std::set<unsigned> &LiveUndefined) {
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
    if (F == LinkFlavor::LD64) {
      // ld64: the export list's names are roots; every exported global is
      // one only for a dylib or bundle, or with -export_dynamic.
      if (executableOutput())
        MarkSymbol(entry());
      bool ExternsAreRoots =
          !executableOutput() || L.ExportDynamic || W.ExportDynamic;
      for (const LinkSymbol &S : R.Symbols)
        if (S.St == LinkSymbol::State::Defined &&
            (S.UndefinedOption ||
             (Lists.HasExportList && Lists.Exported.matches(S.Name)) ||
             (ExternsAreRoots && S.Exported != LinkSymbol::Export::No)))
          MarkSymbol(S.Name);
    } else {
      MarkSymbol(entry());
      if (!implicitInputsRead())
        MarkSymbol("main");
      for (const LinkSymbol &S : R.Symbols)
        if (S.St == LinkSymbol::State::Defined &&
            ((R.Dynamic && S.Exported != LinkSymbol::Export::No) ||
             S.UndefinedOption))
          MarkSymbol(S.Name);
    }

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

  const LinkCommandLine &L;
  const std::vector<LinkInput> &In;
  const LinkWhatIf &W;
  const ExportLists &Lists;
  LinkFlavor F;
  LinkResult R;
  std::vector<std::vector<char>> Taken;
  llvm::StringSet<> KeptComdats; // signatures of the COMDAT groups linked
  std::set<unsigned> SharedRefd; // names a shared library refers to
  std::set<unsigned> Reported;
  std::set<int> Unreadable;
  std::map<int, bool> NeededKnown;
};

} // namespace

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
