//===- Check.cpp - The facts behind `aoti-audit check` --------------------===//
//
// For each plugin: dlopen it into the modelled host, look every reference up
// in the plugin's lookup scope, and, for each reference that binds to nothing,
// collect every definition of the name that the loader could not use, each
// with its reason. Which reason is reported (a definition the host has but
// does not export says more than an archive member it could have linked) is
// the rules' decision, not this file's.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Check.h"
#include "aoti/audit/Package.h"
#include "aoti/audit/loader/DyldModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace aoti::audit {

StringRef toString(SymbolStatus S) {
  switch (S) {
  case SymbolStatus::Bound: return "bound";
  case SymbolStatus::Missing: return "missing";
  case SymbolStatus::Ambiguous: return "ambiguous";
  case SymbolStatus::VersionMismatch: return "version-mismatch";
  case SymbolStatus::WeakUnresolved: return "weak-unresolved";
  }
  return "?";
}

bool CheckFacts::isRequired(StringRef Name) const {
  for (const std::string &P : Options.Prefixes)
    if (Name.starts_with(P))
      return true;
  return false;
}

bool CheckFacts::mustBind(StringRef Name) const {
  for (const std::string &P : Options.BindPrefixes)
    if (Name.starts_with(P))
      return true;
  return false;
}

bool isVectorMath(StringRef Name) { return Name.starts_with(VectorMathPrefix); }

bool loaderAccepts(const CheckFacts &F, const PluginFacts &P) {
  if (!F.HostMissingLibraries.empty() || !P.MissingLibraries.empty())
    return false;
  if (!F.HostRefused.empty() || !P.Refused.empty())
    return false;
  for (const MissingVersionNode &V : F.HostMissingVersions)
    if (!V.Weak)
      return false;
  for (const MissingVersionNode &V : P.MissingVersions)
    if (!V.Weak)
      return false;
  for (const SymbolFacts &S : P.Symbols)
    if (S.Status == SymbolStatus::Missing ||
        S.Status == SymbolStatus::VersionMismatch)
      return false;
  return true;
}

StringRef fallbackDevice(StringRef Name) {
  if (fallbackOp(Name).empty())
    return "";
  return Name.starts_with("aoti_torch_cuda_") ? "cuda" : "cpu";
}

StringRef fallbackOp(StringRef Name) {
  StringRef Op = Name;
  if (!Op.consume_front("aoti_torch_cuda_") && !Op.consume_front("aoti_torch_cpu_"))
    return "";
  // shim.h's own device API shares the prefix; it is no ATen op.
  if (Op.empty() || Op == "guard_set_index" ||
      Op.starts_with("caching_allocator_"))
    return "";
  return Op;
}

namespace {

/// An object that exports at least this many names under the first required
/// prefix is a shim library: a fallback it lacks is one it does not implement.
constexpr unsigned ShimProviderMinimum = 8;

/// Name -> definitions in one file's static symbol table, built on demand.
class StaticIndex {
public:
  const SmallVector<const Symbol *, 1> *find(const Binary &B, StringRef Name) {
    auto [It, New] = Index.try_emplace(&B);
    if (New)
      for (const Symbol &S : B.staticSymbols())
        if (S.Defined && !S.Name.empty() && S.Type != SymbolType::Section &&
            S.Type != SymbolType::File)
          It->second[S.Name].push_back(&S);
    auto Found = It->second.find(Name);
    return Found == It->second.end() ? nullptr : &Found->second;
  }

private:
  DenseMap<const Binary *, StringMap<SmallVector<const Symbol *, 1>>> Index;
};

class Analyzer {
public:
  explicit Analyzer(CheckFacts &F) : F(F) {}

  void explain(SymbolFacts &S, ArrayRef<unsigned> Scope, unsigned Plugin);

private:
  void consider(SymbolFacts &S, MissingReason R, DefinitionSite Site) {
    Site.Reason = R;
    S.Evidence.push_back(std::move(Site));
  }

  /// The first object in Scope that is a shim library, or -1.
  int shimProvider(ArrayRef<unsigned> Scope);

  CheckFacts &F;
  StaticIndex Static;
  DenseMap<unsigned, bool> IsShimLibrary;
};

int Analyzer::shimProvider(ArrayRef<unsigned> Scope) {
  StringRef Prefix = F.Options.Prefixes.empty() ? StringRef("aoti_torch_")
                                                : StringRef(F.Options.Prefixes.front());
  for (unsigned I : Scope) {
    auto [It, New] = IsShimLibrary.try_emplace(I, false);
    if (New) {
      unsigned N = 0;
      for (const Symbol &S : F.Process->object(I).Bin->dynamicSymbols())
        N += S.isExportedDefinition() && S.Name.starts_with(Prefix);
      It->second = N >= ShimProviderMinimum;
    }
    if (It->second)
      return int(I);
  }
  return -1;
}

void Analyzer::explain(SymbolFacts &S, ArrayRef<unsigned> Scope,
                       unsigned Plugin) {
  StringRef Name = S.Ref->Name;
  const LoaderModel &P = *F.Process;

  // A static host is in no scope: whatever it defines, and whatever else is
  // wrong, nothing it links can reach the plugin until it is linked
  // dynamically.
  if (F.host().Bin->isStaticExecutable()) {
    const Symbol *Def = nullptr;
    for (const Symbol *D : F.host().Bin->findExportedDefinitions(Name))
      Def = D;
    consider(S, MissingReason::StaticHost, {F.host().Path, "", Def, 0});
    return;
  }

  // Defined in an object the plugin can see, but not where the loader looks.
  for (unsigned I : Scope) {
    if (I == Plugin)
      continue;
    const LoadedObject &O = P.object(I);
    const auto *Defs = Static.find(*O.Bin, Name);
    if (!Defs)
      continue;
    for (const Symbol *D : *Defs) {
      DefinitionSite Site{O.Path, "", D, int(I)};
      if (D->Visibility == SymbolVisibility::Hidden ||
          D->Visibility == SymbolVisibility::Internal)
        consider(S, MissingReason::Hidden, Site);
      else if (D->isLocal())
        consider(S, MissingReason::LocalBinding, Site);
      else if (O.Bin->kind() == FileKind::Executable)
        consider(S, MissingReason::NotExported, Site);
      else
        // A global .symtab entry missing from .dynsym of a library: the
        // linker was told to keep it out (--exclude-libs, a dynamic list).
        consider(S, MissingReason::LocalBinding, Site);
    }
  }

  // Defined in an archive member the host's link did not extract. Without a
  // symbol index (`ar qS`), every member is looked at, as lld does.
  for (const auto &A : F.Archives) {
    if (!A->hasSymbolIndex())
      for (size_t I = 0; I < A->members().size(); ++I) {
        auto M = A->member(I);
        if (!M) {
          consumeError(M.takeError()); // in ArchiveWarnings
          continue;
        }
        for (const Symbol &D : M->staticSymbols())
          if (D.Name == Name && D.Defined && !D.isLocal())
            consider(S, MissingReason::NotLinked,
                     {A->path().str(), A->members()[I].Name, &D, -1});
      }
    for (const Archive::IndexEntry &E : A->symbolIndex()) {
      if (E.Name != Name)
        continue;
      auto M = A->member(E.MemberIndex);
      if (!M) {
        consumeError(M.takeError());
        continue;
      }
      for (const Symbol &D : M->staticSymbols())
        if (D.Name == Name && D.Defined && !D.isLocal())
          consider(S, MissingReason::NotLinked,
                   {A->path().str(), A->members()[E.MemberIndex].Name, &D, -1});
    }
  }

  // Exported by a library the plugin does not see.
  std::vector<bool> InScope(P.objects().size());
  for (unsigned I : Scope)
    InScope[I] = true;
  for (unsigned I = 0, E = P.objects().size(); I != E; ++I) {
    if (InScope[I])
      continue;
    const LoadedObject &O = P.object(I);
    for (const Symbol *D : O.Bin->findExportedDefinitions(Name))
      consider(S, MissingReason::OutsideScope, {O.Path, "", D, int(I)});
  }
  for (const auto &C : F.Candidates)
    for (const Symbol *D : C->findExportedDefinitions(Name))
      consider(S, MissingReason::OutsideScope, {C->path().str(), "", D, -1});

  // A fallback op nothing defines, while a shim library is in scope: that
  // library does not implement the op.
  if (S.Evidence.empty() && !fallbackOp(Name).empty())
    S.ShimProvider = shimProvider(Scope);
}

/// A host that starts with "#!" is a script: the kernel runs its interpreter,
/// and that program is what dlopen()s a model. Returns the error that says
/// so and names the interpreter to audit instead: the #! path, or for
/// `#!/usr/bin/env [-S] [-opts] NAME` the NAME that env finds on PATH.
Error scriptHostError(StringRef Host, StringRef Head) {
  StringRef Line = Head.drop_front(2).take_until([](char C) { return C == '\n'; });
  Line = Line.trim();
  SmallVector<StringRef, 4> Words;
  SplitString(Line, Words, " \t\r");
  std::string Interpreter = Words.empty() ? "" : Words[0].str();
  std::string Note;
  if (!Words.empty() && sys::path::filename(Words[0]) == "env") {
    // env's options come first (-S splits the rest; -i, -u NAME, NAME=VALUE
    // change the environment); the first other word is the program.
    StringRef Program;
    for (size_t I = 1; I < Words.size(); ++I) {
      StringRef W = Words[I];
      if (W == "-u" || W == "--unset") {
        ++I;
        continue;
      }
      if (W.starts_with("-") || W.contains('='))
        continue;
      Program = W;
      break;
    }
    if (Program.empty()) {
      Interpreter.clear();
    } else if (auto Found = sys::findProgramByName(Program)) {
      Interpreter = *Found;
      Note = (" (`" + Program + "` found on PATH by env)").str();
    } else {
      Interpreter = Program.str();
      Note = " (not found on this PATH: audit the one the script runs with)";
    }
  }
  if (Interpreter.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s: is a script (#!%s), not an executable, and "
                             "its #! line names no interpreter",
                             Host.str().c_str(), Line.str().c_str());
  // A pyenv shim runs bash, which only execs the real program.
  std::string Wrapper =
      Head.contains("pyenv")
          ? ("It is a pyenv shim: audit the program `pyenv which " +
             sys::path::filename(Host) + "` prints")
                .str()
          : std::string("If the script is a wrapper that execs another "
                        "program (a launcher), audit the program it runs");
  return createStringError(
      inconvertibleErrorCode(),
      "%s: is a script (#!%s), not an executable: the program that loads "
      "models is its interpreter; audit that instead: --host %s%s. %s",
      Host.str().c_str(), Line.str().c_str(), Interpreter.c_str(),
      Note.c_str(), Wrapper.c_str());
}

/// The loader configurations the options describe, one per loader model;
/// the one the host's format picks is used. Errors: a malformed --env.
Error configureLoaders(const CheckOptions &O, LoaderConfig &Ld,
                       DyldConfig &Dyld) {
  Ld.Sysroot = Dyld.Sysroot = O.Sysroot;
  for (const std::string &E : O.Environment) {
    // Each loader model takes the variables of its own loader.
    if (Error Err = Ld.applyEnvironment(E))
      return Err;
    cantFail(Dyld.applyEnvironment(E)); // same syntax, checked above
  }
  for (const std::string &D : O.LibraryPath) {
    Ld.LibraryPath.push_back(D);
    Dyld.LibraryPath.push_back(D);
  }
  Dyld.Arch = O.Arch;
  return Error::success();
}

} // namespace

Expected<CheckHost> openCheckHost(const CheckOptions &O) {
  CheckHost H;
  H.Slices = {O.Arch};
  if (!O.Arch.empty())
    return H;
  auto File = mapFile(O.Host);
  if (!File)
    return File.takeError();
  H.File = std::move(*File);
  // A universal host without the audit machine's slice, and no --arch:
  // every slice is audited, each on its own.
  auto Slices = universalArchs(H.File->getMemBufferRef(), O.Host);
  if (!Slices)
    return Slices.takeError();
  if (!Slices->empty() && !is_contained(*Slices, auditMachineArch())) {
    H.Slices = std::move(*Slices);
    H.EverySlice = true;
  }
  return H;
}

Expected<std::unique_ptr<CheckFacts>>
analyzeCheck(const CheckOptions &Options, const CheckHost &Host,
             StringRef SliceArch) {
  auto F = std::make_unique<CheckFacts>();
  F->Options = Options;
  F->Options.Arch = SliceArch.str();
  const CheckOptions &O = F->Options;
  LoaderConfig Ld;
  DyldConfig Dyld;
  if (Error E = configureLoaders(O, Ld, Dyld))
    return E;

  // --arch picks the slice of universal archives and candidates too.
  ReadOptions Slice;
  Slice.Arch = O.Arch;
  for (const std::string &A : O.Archives) {
    auto In = readInput(A, Slice);
    if (!In)
      return In.takeError();
    if (!In->Ar)
      return createStringError(inconvertibleErrorCode(),
                               "%s: --archive expects a static archive (.a)",
                               A.c_str());
    // A member that cannot be read is said once, up front: whatever it
    // defines is missing from the explanations below.
    for (size_t I = 0; I < In->Ar->members().size(); ++I)
      if (auto M = In->Ar->member(I); !M)
        F->ArchiveWarnings.push_back(toString(M.takeError()) +
                                     "; what it defines is not looked for");
    F->Archives.push_back(std::move(In->Ar));
  }
  for (const std::string &C : O.Candidates) {
    auto B = readBinary(C, Slice);
    if (!B)
      return B.takeError();
    F->Candidates.push_back(std::move(*B));
  }

  // The host, from the command's one mapping of it.
  std::shared_ptr<const MemoryBuffer> HostFile = Host.File;
  if (!HostFile) {
    auto File = mapFile(O.Host);
    if (!File)
      return File.takeError();
    HostFile = std::move(*File);
  }
  if (HostFile->getBuffer().starts_with("#!"))
    return scriptHostError(O.Host, HostFile->getBuffer().take_front(4096));
  auto HostBin = readBinaryFromBuffer(HostFile->getMemBufferRef(), O.Host, Slice);
  if (!HostBin)
    return HostBin.takeError();
  (*HostBin)->setBuffer(HostFile);
  // dyld for a Mach-O host, ld.so for anything else.
  if ((*HostBin)->format() == BinaryFormat::MachO)
    F->Process = std::make_unique<DyldModel>(std::move(Dyld));
  else
    F->Process = std::make_unique<ProcessModel>(std::move(Ld));
  LoaderModel &P = *F->Process;
  if (Error E = P.startExecutable(std::move(*HostBin)))
    return E;
  // What the host opens with RTLD_GLOBAL before any model is part of the
  // host: its missing libraries and versions fail the host, not a plugin.
  for (const std::string &L : O.Preloads) {
    auto I = P.dlopen(L, /*Global=*/true);
    if (!I)
      return I.takeError();
  }
  F->HostMissingLibraries = P.missingLibraries();
  F->HostRefused = P.refusedObjects();
  for (unsigned G : P.globalScope())
    for (MissingVersionNode &V : P.checkVersionNodes(G))
      F->HostMissingVersions.push_back(std::move(V));

  // A .pt2 package, or a directory of them, stands for every model library
  // inside; a plain file is opened by the loader model at its path.
  std::vector<ModelLibrary> Models;
  for (const std::string &Path : O.Plugins) {
    bool Expand = sys::fs::is_directory(Path);
    if (!Expand) {
      auto Buf = mapFile(Path);
      if (!Buf)
        return Buf.takeError();
      Expand = isZipPackage((*Buf)->getMemBufferRef());
    }
    if (!Expand) {
      Models.push_back({Path, "", "", "", nullptr});
      continue;
    }
    auto Inside = readModelLibraries(Path, Slice);
    if (!Inside)
      return Inside.takeError();
    for (ModelLibrary &M : *Inside)
      Models.push_back(std::move(M));
  }

  Analyzer An(*F);
  for (ModelLibrary &M : Models) {
    const std::string &Path = M.DisplayPath;
    size_t MissingBefore = P.missingLibraries().size();
    size_t RefusedBefore = P.refusedObjects().size();
    auto Idx = M.Bin ? P.dlopen(std::move(M.Bin), /*Global=*/false)
                     : P.dlopen(Path, /*Global=*/false);
    if (!Idx)
      return Idx.takeError();
    PluginFacts PF;
    PF.Path = Path;
    PF.Package = M.Package;
    PF.Member = M.Member;
    PF.Model = M.Model;
    PF.Object = *Idx;
    PF.MissingLibraries.assign(P.missingLibraries().begin() + MissingBefore,
                               P.missingLibraries().end());
    PF.Refused.assign(P.refusedObjects().begin() + RefusedBefore,
                      P.refusedObjects().end());
    for (unsigned L : P.loadedWith(*Idx))
      for (MissingVersionNode &V : P.checkVersionNodes(L))
        PF.MissingVersions.push_back(std::move(V));

    const Binary &PluginBin = *P.object(*Idx).Bin;
    for (const Symbol &Ref : PluginBin.dynamicSymbols()) {
      if (Ref.Defined || Ref.isLocal() || Ref.Name.empty())
        continue;
      SymbolFacts S;
      S.Ref = &Ref;
      // --prefix names the C name (Mach-O puts '_' before it).
      StringRef CName = PluginBin.formatInfo().cName(Ref.Name);
      S.Required = F->isRequired(CName);
      if (!S.Required && !O.All && !F->mustBind(CName))
        continue;
      SmallVector<Binding, 2> Matches, Rejected;
      P.resolve(*Idx, Ref, Matches, &Rejected);
      S.Providers.assign(Matches.begin(), Matches.end());
      S.VersionRejected.assign(Rejected.begin(), Rejected.end());
      if (!Matches.empty())
        S.Status = S.Required && Matches.size() > 1 ? SymbolStatus::Ambiguous
                                                    : SymbolStatus::Bound;
      else if (Ref.isWeak())
        S.Status = SymbolStatus::WeakUnresolved;
      else if (!Rejected.empty())
        S.Status = SymbolStatus::VersionMismatch;
      else
        S.Status = SymbolStatus::Missing;
      if (S.Status == SymbolStatus::Missing)
        An.explain(S, P.lookupScope(*Idx, Ref), *Idx);
      PF.Symbols.push_back(std::move(S));
    }
    F->Plugins.push_back(std::move(PF));
  }
  return F;
}

} // namespace aoti::audit
