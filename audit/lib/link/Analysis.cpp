//===- link/Analysis.cpp - The facts `aoti-audit link` judges -------------===//
//
// analyzeLink replays the link three ways:
//   1. as the command stands;
//   2. with the fix: every archive holding a required name the link leaves
//      out read --whole-archive, then, if required names are still defined
//      but not exported, with --export-dynamic too. The replay proves the
//      fix and shows the duplicates force-linking would add;
//   3. for an lld link, under GNU ld's rule, to find links that work only
//      because lld resolves backward references.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/Model.h"
#include "aoti/audit/Error.h"
#include "aoti/audit/Package.h"
#include "aoti/audit/loader/Loader.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit {

namespace {

/// For each required name, the first archive member (or lazy object) on the
/// line that defines it, as GNU ld's index or lld's member tables say.
struct DefinitionSites {
  StringMap<std::pair<int, int>> First; // name -> (input, member)

  Error build(const std::vector<LinkInput> &In, const StringSet<> &Names) {
    for (size_t I = 0; I < In.size(); ++I) {
      const LinkInput &L = In[I];
      if (L.isArchive()) {
        if (L.Ar->hasSymbolIndex()) {
          for (const Archive::IndexEntry &E : L.Ar->symbolIndex())
            if (Names.contains(E.Name))
              First.try_emplace(E.Name, int(I), int(E.MemberIndex));
          continue;
        }
        for (size_t M = 0; M < L.Ar->members().size(); ++M) {
          auto B = L.Ar->member(M);
          if (!B) {
            consumeError(B.takeError());
            continue;
          }
          for (const Symbol &S : B->staticSymbols())
            if (S.Defined && !S.isLocal() && Names.contains(S.Name))
              First.try_emplace(S.Name, int(I), int(M));
        }
      } else if (L.InputKind == LinkInput::Kind::Object && L.Lazy) {
        for (const Symbol &S : L.Bin->staticSymbols())
          if (S.Defined && !S.isLocal() && Names.contains(S.Name))
            First.try_emplace(S.Name, int(I), -1);
      }
    }
    return Error::success();
  }
};

void addUnique(std::vector<std::string> &Out, StringSet<> &Seen, StringRef N) {
  if (Seen.insert(N).second)
    Out.push_back(N.str());
}

Error globalDefinitions(const Archive &A, const std::vector<std::string> &Pre,
                        std::vector<std::string> &Out, StringSet<> &Seen) {
  for (size_t M = 0; M < A.members().size(); ++M) {
    auto B = A.member(M);
    if (!B)
      return B.takeError();
    if (B->kind() != FileKind::Relocatable)
      continue;
    for (const Symbol &S : B->staticSymbols())
      if (S.Defined && !S.isLocal() && S.Type != SymbolType::Section &&
          S.Type != SymbolType::File && underPrefix(S.Name, Pre))
        addUnique(Out, Seen, S.Name);
  }
  return Error::success();
}

bool sameFile(StringRef A, StringRef B) {
  if (A == B)
    return true;
  sys::fs::UniqueID IA, IB;
  return !sys::fs::getUniqueID(A, IA) && !sys::fs::getUniqueID(B, IB) &&
         IA == IB;
}

std::string mdKey(const LinkFacts &F, const LinkResult &R,
                  const MultipleDefinition &M) {
  std::string A = F.objectName(R, M.First), B = F.objectName(R, M.Second);
  if (B < A)
    std::swap(A, B);
  return M.Symbol + "\n" + A + "\n" + B;
}

} // namespace

// --- facts helpers ----------------------------------------------------------

std::string LinkFacts::displayPath(StringRef Path) const {
  StringRef Cwd = Line.Cwd;
  if (!Cwd.empty() && Path.starts_with(Cwd) && Path.size() > Cwd.size() &&
      Path[Cwd.size()] == '/')
    return Path.drop_front(Cwd.size() + 1).str();
  return Path.str();
}

std::string LinkFacts::inputName(int Input) const {
  if (Input < 0 || size_t(Input) >= Inputs.size())
    return "?";
  const LinkInput &I = Inputs[Input];
  return I.Path.empty() ? I.AsWritten : displayPath(I.Path);
}

std::string LinkFacts::objectName(const LinkResult &R, int Object) const {
  if (Object < 0 || size_t(Object) >= R.Objects.size())
    return "?";
  const LinkedObject &O = R.Objects[Object];
  std::string Name = inputName(int(O.Input));
  if (O.Member >= 0)
    Name += "(" + Inputs[O.Input].Ar->members()[O.Member].Name + ")";
  return Name;
}

bool LinkFacts::isRequired(StringRef Name) const {
  for (const RequiredSymbol &R : Required)
    if (R.Name == Name)
      return true;
  return false;
}

// --- classifyRequired -------------------------------------------------------

std::vector<RequiredSymbol>
classifyRequired(const LinkCommandLine &Line,
                 const std::vector<LinkInput> &Inputs, const LinkResult &R,
                 const std::vector<std::string> &Names) {
  StringSet<> Wanted;
  for (const std::string &N : Names)
    Wanted.insert(N);
  DefinitionSites Sites;
  consumeError(Sites.build(Inputs, Wanted));
  // Required names that a shared library the output will not load defines:
  // one on the line under --as-needed that nothing the link takes needed.
  StringMap<int> Dropped;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (!Inputs[I].isShared() || !Inputs[I].AsNeeded ||
        (I < R.Needed.size() && R.Needed[I]))
      continue;
    for (const Symbol &D : Inputs[I].Bin->dynamicSymbols())
      if (D.isExportedDefinition() && !D.VersionHidden &&
          Wanted.contains(D.Name))
        Dropped.try_emplace(D.Name, int(I));
  }

  std::vector<RequiredSymbol> Out;
  for (const std::string &N : Names) {
    RequiredSymbol Q;
    Q.Name = N;
    const LinkSymbol *S = R.find(N);
    if (S && S->St == LinkSymbol::State::Defined) {
      Q.Object = S->Definer;
      Q.Input = int(R.Objects[S->Definer].Input);
      Q.Member = R.Objects[S->Definer].Member;
      Q.LocalBy = S->MadeLocal;
      Q.ExportedBy = S->Exported;
      if (S->MadeLocal != LinkSymbol::Local::No)
        Q.Status = RequiredStatus::MadeLocal;
      else if (!S->Live)
        Q.Status = RequiredStatus::Discarded;
      else if (R.Dynamic && S->Exported != LinkSymbol::Export::No)
        Q.Status = RequiredStatus::Exported;
      else
        Q.Status = RequiredStatus::NotExported;
      Out.push_back(std::move(Q));
      continue;
    }
    // A shared library counts only if the output will load it: one that
    // --as-needed leaves without DT_NEEDED is not in the process.
    if (S && S->St == LinkSymbol::State::Shared &&
        size_t(S->SharedDefiner) < R.Needed.size()) {
      Q.Status = R.Needed[S->SharedDefiner] ? RequiredStatus::FromSharedLibrary
                                            : RequiredStatus::DroppedAsNeeded;
      Q.Input = S->SharedDefiner;
      Out.push_back(std::move(Q));
      continue;
    }
    auto Site = Sites.First.find(N);
    if (Site == Sites.First.end()) {
      Q.Status = RequiredStatus::NotDefined;
      // Not "nothing defines it" when a shared library on the line does
      // and --as-needed dropped it (GNU ld: its symbols never entered the
      // table; lld: read, but no DT_NEEDED).
      if (auto D = Dropped.find(N); D != Dropped.end()) {
        Q.Status = RequiredStatus::DroppedAsNeeded;
        Q.Input = D->second;
      }
      Out.push_back(std::move(Q));
      continue;
    }
    Q.Status = RequiredStatus::NotPulledIn;
    Q.Input = Site->second.first;
    Q.Member = Site->second.second;
    Q.Why = RequiredSymbol::NotPulled::NeverReferenced;
    if (S) {
      int Later = -1;
      for (const SymbolRef &Ref : S->StrongRefs)
        if (Ref.Object >= 0 && Later < 0)
          Later = Ref.Object;
      if (Later >= 0 && R.Flavor == LinkFlavor::GNU &&
          int(R.Objects[Later].Input) > Q.Input) {
        Q.Why = RequiredSymbol::NotPulled::ReferencedAfter;
        Q.LaterReference = Later;
      } else if (!S->hasStrongRef() && !S->WeakRefs.empty()) {
        Q.Why = RequiredSymbol::NotPulled::WeakOnly;
      }
    }
    Out.push_back(std::move(Q));
  }
  return Out;
}

// --- analyzeLink ------------------------------------------------------------

/// The first input that is a file of its own (not an archive), or null.
static const LinkInput *firstBinary(const LinkFacts &F) {
  for (const LinkInput &I : F.Inputs)
    if (I.Bin)
      return &I;
  return nullptr;
}

/// GNU ld and lld refuse an input of another machine ("file in wrong
/// format", "incompatible with elf_x86_64"), and one whose e_machine no
/// linker knows: the replay of such a line would say nothing true.
static Error checkMachines(const LinkFacts &F) {
  const LinkInput *First = nullptr;
  for (const LinkInput &I : F.Inputs) {
    if (!I.Bin)
      continue;
    const Binary &B = *I.Bin;
    if (B.archName().starts_with("e_machine "))
      return makeError(formatv("{0}: {1} is not a machine any linker "
                                   "targets; the file is damaged or not for "
                                   "this toolchain",
                                   F.displayPath(I.Path), B.archName())
                               .str());
    if (!First) {
      First = &I;
      continue;
    }
    if (!(B.machine() == First->Bin->machine()))
      return makeError(
          formatv("{0}: is a {1} file, but {2} is {3}: the linker refuses "
                  "it (file in wrong format)",
                  F.displayPath(I.Path), describeMachine(B.machine()),
                  F.displayPath(First->Path),
                  describeMachine(First->Bin->machine()))
              .str());
  }
  return Error::success();
}

Expected<std::unique_ptr<LinkFacts>> analyzeLink(LinkRequest Req) {
  auto F = std::make_unique<LinkFacts>();
  auto Line = parseLinkCommand(Req.Argv, Req.Parse);
  if (!Line)
    return Line.takeError();
  F->Line = std::move(*Line);
  auto Inputs = readLinkInputs(F->Line);
  if (!Inputs)
    return Inputs.takeError();
  F->Inputs = std::move(*Inputs);
  if (F->Inputs.empty())
    return makeError("the link command names no input files");
  if (Error E = checkMachines(*F))
    return E;
  // Mach-O symbol names carry the C compiler's leading `_`: prefixes and
  // --require names are C names there.
  if (F->Line.isMachO()) {
    for (std::string &P : Req.Prefixes)
      if (!P.empty())
        P = "_" + P;
  }
  F->Request = std::move(Req);
  const LinkRequest &R = F->Request;

  // --- the required names ---------------------------------------------------
  std::vector<std::string> Names;
  StringSet<> Seen;
  for (const std::string &A : R.RequireFrom) {
    const Archive *Ar = nullptr;
    for (const LinkInput &I : F->Inputs)
      if (I.isArchive() && sameFile(I.Path, A))
        Ar = I.Ar.get();
    std::unique_ptr<Archive> Own;
    if (!Ar) {
      auto In = readInput(A);
      if (!In)
        return In.takeError();
      if (!In->Ar)
        return makeError(A + ": --require-from wants a static archive");
      Own = std::move(In->Ar);
      Ar = Own.get();
    }
    if (Error E = globalDefinitions(*Ar, R.Prefixes, Names, Seen))
      return E;
    F->RequiredFrom.push_back(A);
  }
  for (const std::string &List : R.RequireNames) {
    auto Buf = MemoryBuffer::getFile(List, /*IsText=*/true);
    if (!Buf)
      return makeError(List + ": " + Buf.getError().message());
    SmallVector<StringRef, 64> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (StringRef L : Lines) {
      L = L.take_until([](char C) { return C == '#'; }).trim();
      if (L.empty())
        continue;
      if (F->Line.isMachO() && !L.starts_with("_"))
        addUnique(Names, Seen, ("_" + L).str());
      else
        addUnique(Names, Seen, L);
    }
    F->RequiredFrom.push_back(List);
  }
  for (const std::string &P : R.Plugins) {
    // A .pt2 package (or a directory of them) stands for every model in it.
    auto Models = readModelLibraries(P);
    if (!Models)
      return Models.takeError();
    for (const ModelLibrary &M : *Models) {
      // The output is to load the plugin: what its loader refuses to map,
      // or a file of another machine, needs nothing from this link.
      if (Error E = checkLoadableType(*M.Bin))
        return E;
      if (const LinkInput *First = firstBinary(*F);
          First && !(M.Bin->machine() == First->Bin->machine()))
        return makeError(
            formatv("{0}: is a {1} file, but {2} is {3}: what this line links "
                    "cannot load it",
                    M.DisplayPath, describeMachine(M.Bin->machine()),
                    F->displayPath(First->Path),
                    describeMachine(First->Bin->machine()))
                .str());
      for (const Symbol &S : M.Bin->dynamicSymbols())
        if (!S.Defined && !S.isWeak() && !S.Name.empty() &&
            underPrefix(S.Name, R.Prefixes))
          addUnique(Names, Seen, S.Name);
      F->RequiredFrom.push_back(M.DisplayPath);
    }
  }
  if (R.RequireFrom.empty() && R.RequireNames.empty() && R.Plugins.empty()) {
    // Every shim an input on the line defines: the archives' members and the
    // objects.
    for (const LinkInput &I : F->Inputs) {
      if (I.isArchive()) {
        size_t Before = Names.size();
        if (Error E = globalDefinitions(*I.Ar, R.Prefixes, Names, Seen))
          return E;
        if (Names.size() != Before)
          F->RequiredFrom.push_back(I.Path);
      } else if (I.InputKind == LinkInput::Kind::Object) {
        size_t Before = Names.size();
        for (const Symbol &S : I.Bin->staticSymbols())
          if (S.Defined && !S.isLocal() && S.Type != SymbolType::Section &&
              S.Type != SymbolType::File && underPrefix(S.Name, R.Prefixes))
            addUnique(Names, Seen, S.Name);
        if (Names.size() != Before)
          F->RequiredFrom.push_back(I.Path);
      }
    }
  }

  for (size_t I = 0; I < F->Inputs.size(); ++I) {
    const LinkInput &In = F->Inputs[I];
    if (!In.isArchive())
      continue;
    std::vector<std::string> Defs;
    StringSet<> DefSeen;
    if (Error E = globalDefinitions(*In.Ar, R.Prefixes, Defs, DefSeen))
      return E;
    if (!Defs.empty())
      F->ShimArchives.push_back(unsigned(I));
  }

  // --- the link as it stands ------------------------------------------------
  auto Result = simulateLink(F->Line, F->Inputs);
  if (!Result)
    return Result.takeError();
  F->Result = std::move(*Result);
  F->Required = classifyRequired(F->Line, F->Inputs, F->Result, Names);
  {
    StringSet<> Undef;
    for (const UndefinedReference &U : F->Result.Undefined)
      Undef.insert(U.Symbol);
    DefinitionSites Sites;
    if (Error E = Sites.build(F->Inputs, Undef))
      return E;
    for (UndefinedReference &U : F->Result.Undefined) {
      auto It = Sites.First.find(U.Symbol);
      if (It != Sites.First.end()) {
        U.DefinedInInput = It->second.first;
        U.DefinedInMember = It->second.second;
      }
    }
  }

  // --- the link with the fix ------------------------------------------------
  bool Executable = F->Line.isMachO()
                        ? (F->Line.OutputKind == LinkOutputKind::Executable ||
                           F->Line.OutputKind == LinkOutputKind::PIE)
                        : !F->Line.isShared();
  LinkWhatIf Fix;
  bool NeedsFix = false;
  for (const RequiredSymbol &Q : F->Required) {
    if (Q.Status == RequiredStatus::NotPulledIn && Q.Member >= 0) {
      Fix.WholeArchive.insert(unsigned(Q.Input));
      NeedsFix = true;
    }
    if (Q.Status == RequiredStatus::DroppedAsNeeded && Q.Input >= 0) {
      Fix.NoAsNeeded.insert(unsigned(Q.Input));
      NeedsFix = true;
    }
    if (Q.Status == RequiredStatus::NotExported ||
        Q.Status == RequiredStatus::Discarded)
      NeedsFix = true;
  }
  if (NeedsFix) {
    auto Fixed = simulateLink(F->Line, F->Inputs, Fix);
    if (!Fixed)
      return Fixed.takeError();
    auto FixedReq = classifyRequired(F->Line, F->Inputs, *Fixed, Names);
    bool StillHidden = false;
    for (const RequiredSymbol &Q : FixedReq)
      StillHidden |= Q.Status == RequiredStatus::NotExported ||
                     Q.Status == RequiredStatus::Discarded;
    if (StillHidden && Executable && Fixed->Dynamic) {
      Fix.ExportDynamic = true;
      Fixed = simulateLink(F->Line, F->Inputs, Fix);
      if (!Fixed)
        return Fixed.takeError();
      FixedReq = classifyRequired(F->Line, F->Inputs, *Fixed, Names);
    }
    bool StaticOutput = StillHidden && Executable && !Fixed->Dynamic;
    F->FixWholeArchive = Fix.WholeArchive;
    F->FixNoAsNeeded = Fix.NoAsNeeded;
    F->FixExportDynamic = Fix.ExportDynamic;
    F->Fixed = std::move(*Fixed);
    F->FixedRequired = std::move(FixedReq);

    std::set<std::string> Before;
    for (const MultipleDefinition &M : F->Result.MultipleDefinitions)
      Before.insert(mdKey(*F, F->Result, M));
    for (const MultipleDefinition &M : F->Fixed->MultipleDefinitions)
      if (!Before.count(mdKey(*F, *F->Fixed, M)))
        F->AddedByFix.push_back(M);

    // The edited command line.
    const LinkCommandLine &L = F->Line;
    std::map<int, std::pair<std::string, std::string>> Wrap; // token -> around
    std::map<int, std::vector<std::string>> Replace; // ld64: token -> words
    bool Driver = L.isDriver();
    for (unsigned In : F->FixWholeArchive) {
      const LinkInput &I = F->Inputs[In];
      int Tok = I.Arg >= 0 ? L.Args[I.Arg].Token : -1;
      if (!I.Script.empty())
        Tok = -1;
      if (Tok < 0) {
        F->FixedArgvWhyNot =
            formatv("{0} is not a word of its own on the command line "
                    "(inside -Wl, with other options, a response file or an "
                    "input script)",
                    I.AsWritten)
                .str();
        break;
      }
      if (L.isMachO()) {
        // ld64 has no region: -force_load names the archive itself.
        std::string Path = F->displayPath(I.Path);
        Replace[Tok] = Driver ? std::vector<std::string>{"-Wl,-force_load," +
                                                         Path}
                              : std::vector<std::string>{"-force_load", Path};
        continue;
      }
      Wrap[Tok] = Driver ? std::make_pair(std::string("-Wl,--whole-archive"),
                                          std::string("-Wl,--no-whole-archive"))
                         : std::make_pair(std::string("--whole-archive"),
                                          std::string("--no-whole-archive"));
    }
    // A dropped shared library: kept by --no-as-needed around it alone,
    // --push-state/--pop-state so that the rest of the line keeps its mode.
    for (unsigned In : F->FixNoAsNeeded) {
      if (!F->FixedArgvWhyNot.empty())
        break;
      const LinkInput &I = F->Inputs[In];
      int Tok = I.Arg >= 0 && I.Script.empty() ? L.Args[I.Arg].Token : -1;
      if (Tok < 0 || L.isMachO()) {
        F->FixedArgvWhyNot =
            formatv("{0} is not a word of its own on the command line "
                    "(inside -Wl, with other options, a response file or an "
                    "input script)",
                    I.AsWritten)
                .str();
        break;
      }
      const std::string &Word = L.Argv[Tok];
      Replace[Tok] =
          Driver ? std::vector<std::string>{"-Wl,--push-state,--no-as-needed",
                                            Word, "-Wl,--pop-state"}
                 : std::vector<std::string>{"--push-state", "--no-as-needed",
                                            Word, "--pop-state"};
    }
    if (StaticOutput)
      F->FixedArgvWhyNot = "a static executable has no dynamic symbol table: "
                           "the link must become dynamic (drop -static)";
    if (F->FixedArgvWhyNot.empty()) {
      for (size_t T = 0; T < L.Argv.size(); ++T) {
        if (auto R = Replace.find(int(T)); R != Replace.end()) {
          F->FixedArgv.insert(F->FixedArgv.end(), R->second.begin(),
                              R->second.end());
          continue;
        }
        auto It = Wrap.find(int(T));
        if (It != Wrap.end())
          F->FixedArgv.push_back(It->second.first);
        F->FixedArgv.push_back(L.Argv[T]);
        if (It != Wrap.end())
          F->FixedArgv.push_back(It->second.second);
      }
      if (F->FixExportDynamic && L.isMachO())
        F->FixedArgv.push_back(Driver ? "-Wl,-export_dynamic"
                                      : "-export_dynamic");
      else if (F->FixExportDynamic)
        F->FixedArgv.push_back(Driver ? "-rdynamic" : "--export-dynamic");
    }
  }

  // --- what GNU ld would do with an lld link --------------------------------
  if (F->Line.Flavor == LinkFlavor::LLD) {
    LinkWhatIf Gnu;
    Gnu.Flavor = LinkFlavor::GNU;
    auto G = simulateLink(F->Line, F->Inputs, Gnu);
    if (!G)
      return G.takeError();
    F->GnuRequired = classifyRequired(F->Line, F->Inputs, *G, Names);
    F->GnuReplay = std::move(*G);
  }
  return F;
}

} // namespace aoti::audit
