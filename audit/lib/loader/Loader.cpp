//===- Loader.cpp - A model of glibc's dynamic loader ---------------------===//
//
// The search for a needed library follows glibc's _dl_map_object:
//
//   1. a name with a '/' is a path (relative to the working directory);
//   2. a name already loaded (as a path, a requested name or a soname) is
//      reused;
//   3. DT_RPATH of the requesting object, then of the object that loaded it,
//      and so on up to the executable -- all skipped when the requesting object
//      has DT_RUNPATH, and any object's RPATH is ignored when that object has
//      a RUNPATH of its own;
//   4. LD_LIBRARY_PATH, unless the process is secure (set-uid);
//   5. DT_RUNPATH of the requesting object only;
//   6. /etc/ld.so.cache, then the trusted directories -- both skipped when the
//      requesting object is marked DF_1_NODEFLIB.
//
// A file that exists but is of another class or machine is skipped and the
// search goes on. The global scope is the executable, LD_PRELOAD, and the
// breadth-first closure of their dependencies, plus what RTLD_GLOBAL opens; a
// dlopen()ed object's local scope is itself and the breadth-first closure of
// its own dependencies. A reference is looked up in the global scope first.
//
// A static executable (or static-pie: no PT_INTERP) starts without ld.so. What
// it dlopen()s gets a namespace of its own: the executable is in no scope,
// whatever its .dynsym holds, and it has no DT_NEEDED or LD_PRELOAD closure.
//
// _dl_map_object_from_fd refuses to map an executable for anything but the
// main program: ET_EXEC ("cannot dynamically load executable") and a PIE
// marked DF_1_PIE ("cannot dynamically load position-independent
// executable"), as a plugin or as a DT_NEEDED; under dlopen it also refuses
// DF_1_NOOPEN. Refused objects are recorded, not skipped: the load fails.
// Before that, open_verify fails any file whose e_type is not ET_DYN or
// ET_EXEC ("only ET_DYN and ET_EXEC can be loaded"): a relocatable object or
// an unknown type given as the plugin is bad input (checkLoadableType), and
// one found for a DT_NEEDED is refused.
//
// Symbol versions follow check_match in dl-lookup.c. A versioned reference
// takes a definition whose node has the same hash and name, or an
// unversioned (index 0/1) non-hidden one. An unversioned reference takes a
// definition at index 0, 1 or 2 -- index 2 even when hidden -- and otherwise
// the only non-hidden definition at index 3 or up, when there is exactly one
// in that object. dl-version.c matches version requirements by vna_hash
// against vd_hash, then by name.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/loader/Loader.h"
#include "aoti/audit/Reader.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <deque>

using namespace llvm;

namespace aoti::audit {

std::vector<std::string> splitSearchList(StringRef List, StringRef Seps,
                                         bool EmptyIsCwd) {
  std::vector<std::string> Out;
  SmallVector<StringRef, 8> Parts;
  SplitString(List, Parts, Seps); // drops empty elements
  if (EmptyIsCwd) {
    // glibc: an empty element of LD_LIBRARY_PATH is the working directory.
    size_t Start = 0;
    for (size_t I = 0; I <= List.size(); ++I) {
      if (I == List.size() || Seps.contains(List[I])) {
        StringRef Elt = List.slice(Start, I);
        Out.push_back(Elt.empty() ? "." : Elt.str());
        Start = I + 1;
      }
    }
    if (List.empty())
      Out.clear();
    return Out;
  }
  for (StringRef P : Parts)
    Out.push_back(P.str());
  return Out;
}

namespace {

std::vector<std::string> glibcDefaultDirs(const MachineId &M) {
  // What `ld.so --help` lists as the system search path on Debian.
  StringRef Triple;
  switch (M.Machine) {
  case ELF::EM_X86_64: Triple = M.Is64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32"; break;
  case ELF::EM_AARCH64: Triple = "aarch64-linux-gnu"; break;
  case ELF::EM_386: Triple = "i386-linux-gnu"; break;
  case ELF::EM_ARM: Triple = "arm-linux-gnueabihf"; break;
  case ELF::EM_PPC64: Triple = "powerpc64le-linux-gnu"; break;
  case ELF::EM_RISCV: Triple = "riscv64-linux-gnu"; break;
  case ELF::EM_S390: Triple = "s390x-linux-gnu"; break;
  default: break;
  }
  std::vector<std::string> Dirs;
  if (!Triple.empty()) {
    Dirs.push_back(("/lib/" + Triple).str());
    Dirs.push_back(("/usr/lib/" + Triple).str());
  }
  Dirs.push_back("/lib");
  Dirs.push_back("/usr/lib");
  return Dirs;
}

} // namespace

Error LoaderConfig::applyEnvironment(StringRef Assignment) {
  size_t Eq = Assignment.find('=');
  if (Eq == StringRef::npos || Eq == 0)
    return createStringError(inconvertibleErrorCode(),
                             "--env expects NAME=VALUE, got '%s'",
                             Assignment.str().c_str());
  StringRef Name = Assignment.take_front(Eq), Value = Assignment.drop_front(Eq + 1);
  if (Name == "LD_LIBRARY_PATH")
    LibraryPath = splitSearchList(Value, ":;", /*EmptyIsCwd=*/true);
  else if (Name == "LD_PRELOAD")
    Preload = splitSearchList(Value, ": \t", /*EmptyIsCwd=*/false);
  // Other variables (LD_BIND_NOW, ...) do not change what binds where.
  return Error::success();
}

Error checkLoadableType(const Binary &B) {
  if (B.kind() != FileKind::Relocatable && B.kind() != FileKind::Other)
    return Error::success();
  if (B.format() == BinaryFormat::ELF) {
    std::string Type = B.typeName().str();
    if (!StringRef(Type).starts_with("e_type "))
      Type = "e_type " + Type;
    return createStringError(
        inconvertibleErrorCode(),
        "%s: not a shared object (%s): ld.so loads only ET_DYN (and ET_EXEC "
        "for the main program): \"only ET_DYN and ET_EXEC can be loaded\"",
        B.path().str().c_str(), Type.c_str());
  }
  return createStringError(
      inconvertibleErrorCode(),
      "%s: not a loadable image (%s): dyld loads only MH_DYLIB and MH_BUNDLE "
      "(and MH_EXECUTE for the main program)",
      B.path().str().c_str(), B.typeName().str().c_str());
}

bool LoadedObject::isLibTorch() const {
  StringRef F = Bin->fileName();
  return F.starts_with("libtorch") || F.starts_with("libc10");
}

ProcessModel::ProcessModel(LoaderConfig C) : Config(std::move(C)) {}
ProcessModel::~ProcessModel() = default;

std::string ProcessModel::inSysroot(StringRef P) const {
  if (Config.Sysroot.empty() || !sys::path::is_absolute(P))
    return P.str();
  SmallString<256> Out(Config.Sysroot);
  sys::path::append(Out, P);
  return std::string(Out);
}

std::string ProcessModel::expandTokens(StringRef Dir, unsigned Origin) const {
  std::string Out;
  StringRef Rest = Dir;
  bool Expanded = false;
  while (!Rest.empty()) {
    size_t D = Rest.find('$');
    Out += Rest.take_front(D).str();
    if (D == StringRef::npos)
      break;
    Rest = Rest.drop_front(D + 1);
    auto Token = [&](StringRef T) {
      if (Rest.consume_front(T))
        return true;
      std::string Braced = ("{" + T + "}").str();
      return Rest.consume_front(Braced);
    };
    if (Token("ORIGIN")) {
      // The directory of the object, made absolute the way glibc does for
      // an object opened by a relative name.
      SmallString<256> Abs(Objects[Origin].Path);
      if (!sys::path::is_absolute(Abs) && !Config.WorkingDir.empty())
        sys::fs::make_absolute(Config.WorkingDir, Abs);
      Out += sys::path::parent_path(Abs).str();
      Expanded = true;
    } else if (Token("LIB")) {
      // Debian's $LIB is the multiarch directory, "lib/<triple>".
      std::vector<std::string> Dirs = glibcDefaultDirs(HostMachine);
      Out += Dirs.size() > 2 ? Dirs[0].substr(1) : std::string("lib");
    } else if (Token("PLATFORM")) {
      Out += HostMachine.Machine == ELF::EM_X86_64 ? "x86_64"
                                                   : ELF::convertEMachineToArchName(HostMachine.Machine).str();
    } else {
      Out += '$';
    }
  }
  // $ORIGIN already names a real (sysroot-relative) path.
  if (!Expanded)
    return inSysroot(Out);
  return Out;
}

int ProcessModel::findLoaded(StringRef Name) const {
  for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
    const LoadedObject &O = Objects[I];
    if (O.Path == Name || O.Bin->soname() == Name)
      return I;
    for (const std::string &R : O.RequestedAs)
      if (R == Name)
        return I;
  }
  return -1;
}

bool ProcessModel::tryFile(const std::string &Path, std::unique_ptr<Binary> &Out,
                           MissingLibrary &Record) const {
  Record.Tried.push_back(Path);
  if (!sys::fs::exists(Path))
    return false;
  auto B = readBinary(Path);
  if (!B) {
    Record.Skipped.push_back(toString(B.takeError()));
    return false;
  }
  if ((*B)->format() != BinaryFormat::ELF) {
    Record.Skipped.push_back(Path + ": not an ELF file");
    return false;
  }
  if (HaveHost && !((*B)->machine() == HostMachine)) {
    Record.Skipped.push_back(
        formatv("{0}: wrong ELF class or machine ({1}; the host is {2})", Path,
                describeMachine((*B)->machine()), describeMachine(HostMachine))
            .str());
    return false;
  }
  Out = std::move(*B);
  return true;
}

const std::string *ProcessModel::cacheLookup(StringRef Name) const {
  if (!Config.UseLdSoCache)
    return nullptr;
  if (!CacheRead) {
    CacheRead = true;
    std::string Path = Config.LdSoCachePath.empty()
                           ? inSysroot("/etc/ld.so.cache")
                           : Config.LdSoCachePath;
    if (sys::fs::exists(Path)) {
      auto C = readLdSoCache(Path, HostMachine);
      if (C)
        Cache = std::move(*C);
      else
        consumeError(C.takeError()); // glibc, too, ignores a bad cache
    }
  }
  auto It = Cache.find(Name);
  return It == Cache.end() ? nullptr : &It->second;
}

unsigned ProcessModel::addObject(std::unique_ptr<Binary> B, std::string Path,
                                 StringRef RequestedAs, int Loader,
                                 std::string FoundVia) {
  LoadedObject O;
  O.Bin = std::move(B);
  O.Path = std::move(Path);
  O.RequestedAs.push_back(RequestedAs.str());
  O.Loader = Loader;
  O.FoundVia = std::move(FoundVia);
  Objects.push_back(std::move(O));
  Edges.emplace_back();
  LoadedBy.emplace_back();
  DepsMapped.push_back(false);
  unsigned I = Objects.size() - 1;
  // The order of _dl_map_object_from_fd's checks; the main program is exempt.
  const Binary &Bin = *Objects[I].Bin;
  if (Loader >= 0) {
    StringRef Why = Bin.kind() == FileKind::Relocatable || Bin.kind() == FileKind::Other
                        ? "only ET_DYN and ET_EXEC can be loaded"
                    : Bin.fixedAddress() ? "cannot dynamically load executable"
                    : InDlopen && Bin.noDlopen()
                        ? "shared object cannot be dlopen()ed"
                    : Bin.markedPie()
                        ? "cannot dynamically load position-independent executable"
                        : "";
    if (!Why.empty())
      Refused.push_back({unsigned(Loader), I, Why.str()});
  }
  return I;
}

std::optional<unsigned> ProcessModel::mapDependency(StringRef Name,
                                                    unsigned Requester) {
  if (int I = findLoaded(Name); I >= 0)
    return unsigned(I);

  MissingLibrary Record{Requester, Name.str(), {}, {}};
  std::unique_ptr<Binary> Found;
  std::string Via, FoundPath;
  DenseSet<StringRef> SeenDirs;

  auto TryDir = [&](const std::string &Dir, StringRef How) {
    SmallString<256> P(Dir);
    sys::path::append(P, Name);
    std::string Path(P);
    if (tryFile(Path, Found, Record)) {
      Via = How.str();
      FoundPath = Path;
      return true;
    }
    return false;
  };

  if (Name.contains('/')) {
    std::string Path = expandTokens(Name, Requester);
    if (!sys::path::is_absolute(Path) && !Config.WorkingDir.empty()) {
      SmallString<256> P(Config.WorkingDir);
      sys::path::append(P, Path);
      Path = std::string(P);
    }
    if (tryFile(Path, Found, Record)) {
      Via = "path";
      FoundPath = Path;
    }
  } else {
    const Binary &Req = *Objects[Requester].Bin;
    bool Done = false;
    if (Req.runpath().empty()) {
      bool DidMain = false;
      for (int L = Requester; L >= 0 && !Done; L = Objects[L].Loader) {
        const LoadedObject &O = Objects[L];
        DidMain |= L == 0;
        if (!O.Bin->runpath().empty())
          continue; // glibc drops an object's RPATH when it has a RUNPATH
        for (StringRef Dir : O.Bin->rpath())
          if ((Done = TryDir(expandTokens(Dir, L),
                             ("RPATH of " + O.Bin->fileName()).str())))
            break;
      }
      if (!Done && !DidMain && !Objects.empty() &&
          Objects[0].Bin->runpath().empty())
        for (StringRef Dir : Objects[0].Bin->rpath())
          if ((Done = TryDir(expandTokens(Dir, 0),
                             ("RPATH of " + Objects[0].Bin->fileName()).str())))
            break;
    }
    if (!Done && !Config.Secure)
      for (const std::string &Dir : Config.LibraryPath) {
        // $ORIGIN in LD_LIBRARY_PATH is the executable's directory.
        std::string D = expandTokens(Dir, 0);
        if (!sys::path::is_absolute(D) && !Config.WorkingDir.empty()) {
          SmallString<256> P(Config.WorkingDir);
          sys::path::append(P, D);
          D = std::string(P);
        }
        if ((Done = TryDir(D, "LD_LIBRARY_PATH")))
          break;
      }
    if (!Done)
      for (StringRef Dir : Req.runpath())
        if ((Done = TryDir(expandTokens(Dir, Requester),
                           ("RUNPATH of " + Req.fileName()).str())))
          break;
    if (!Done && !Req.noDefaultLib()) {
      if (const std::string *P = cacheLookup(Name)) {
        std::string Path = inSysroot(*P);
        if (tryFile(Path, Found, Record)) {
          Via = "ld.so.cache";
          FoundPath = Path;
          Done = true;
        }
      }
      if (!Done)
        for (const std::string &Dir : DefaultDirs)
          if ((Done = TryDir(inSysroot(Dir), "default directory")))
            break;
    }
  }

  if (!Found) {
    Missing.push_back(std::move(Record));
    return std::nullopt;
  }
  // The same file under another name (a symlink, another soname) is reused.
  sys::fs::UniqueID NewID;
  if (!sys::fs::getUniqueID(FoundPath, NewID))
    for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
      sys::fs::UniqueID ID;
      if (!sys::fs::getUniqueID(Objects[I].Path, ID) && ID == NewID) {
        Objects[I].RequestedAs.push_back(Name.str());
        return I;
      }
    }
  return addObject(std::move(Found), FoundPath, Name, Requester, Via);
}

void ProcessModel::loadDependencies(std::vector<unsigned> Queue) {
  std::deque<unsigned> Q(Queue.begin(), Queue.end());
  while (!Q.empty()) {
    unsigned I = Q.front();
    Q.pop_front();
    if (DepsMapped[I])
      continue;
    DepsMapped[I] = true;
    // Copy: mapDependency may grow Objects and invalidate references.
    std::vector<StringRef> Names;
    for (const Dependency &D : Objects[I].Bin->dependencies())
      Names.push_back(D.Name);
    for (StringRef N : Names) {
      std::optional<unsigned> Dep = mapDependency(N, I);
      if (!Dep)
        continue;
      Edges[I].push_back(*Dep);
      Q.push_back(*Dep);
    }
  }
}

Error ProcessModel::startExecutable(StringRef Path) {
  auto B = readBinary(Path);
  if (!B)
    return B.takeError();
  return startExecutable(std::move(*B));
}

Error ProcessModel::startExecutable(std::unique_ptr<Binary> B) {
  std::string Path = B->path().str();
  if (!B->isDynamicObject())
    return createStringError(inconvertibleErrorCode(),
                             "%s: is a %s, not an executable", Path.c_str(),
                             toString(B->kind()).str().c_str());
  HostMachine = B->machine();
  HaveHost = true;
  DefaultDirs = Config.DefaultDirs.empty() ? glibcDefaultDirs(HostMachine)
                                           : Config.DefaultDirs;
  if (Config.WorkingDir.empty()) {
    SmallString<256> Cwd;
    if (!sys::fs::current_path(Cwd))
      Config.WorkingDir = std::string(Cwd);
  }
  unsigned Exe = addObject(std::move(B), Path, Path, -1, "executable");
  if (Objects[Exe].Bin->isStaticExecutable()) {
    // No ld.so ran: nothing is preloaded, and static dlopen starts an empty
    // global scope that the executable's own symbols are never part of.
    return Error::success();
  }
  Objects[Exe].InGlobalScope = true;
  Global.push_back(Exe);

  std::vector<unsigned> Roots{Exe};
  for (const std::string &P : Config.Preload) {
    std::optional<unsigned> I = mapDependency(P, Exe);
    if (!I) {
      // ld.so: "object '...' from LD_PRELOAD cannot be preloaded: ignored."
      Missing.pop_back();
      continue;
    }
    if (!Refused.empty() && Refused.back().Object == *I) {
      // The same warning-and-ignore for an object ld.so refuses to map.
      Refused.pop_back();
      continue;
    }
    Objects[*I].FoundVia = "LD_PRELOAD";
    Roots.push_back(*I);
  }
  loadDependencies(Roots);

  // The global scope is the breadth-first list glibc builds.
  DenseSet<unsigned> In{Exe};
  std::deque<unsigned> Q(Roots.begin(), Roots.end());
  for (unsigned R : Roots)
    if (In.insert(R).second)
      Global.push_back(R);
  while (!Q.empty()) {
    unsigned I = Q.front();
    Q.pop_front();
    for (unsigned D : Edges[I])
      if (In.insert(D).second) {
        Global.push_back(D);
        Q.push_back(D);
      }
  }
  for (unsigned G : Global)
    Objects[G].InGlobalScope = true;
  return Error::success();
}

Expected<unsigned> ProcessModel::dlopen(StringRef Path, bool GlobalFlag) {
  return dlopenRead(Path, nullptr, GlobalFlag);
}

Expected<unsigned> ProcessModel::dlopen(std::unique_ptr<Binary> Bin,
                                        bool GlobalFlag) {
  std::string Path = Bin->path().str();
  return dlopenRead(Path, std::move(Bin), GlobalFlag);
}

/// dlopen(Path): Read is the file already read (a packaged model), or null
/// to read Path.
Expected<unsigned> ProcessModel::dlopenRead(StringRef Path,
                                            std::unique_ptr<Binary> Read,
                                            bool GlobalFlag) {
  if (!HaveHost)
    return createStringError(inconvertibleErrorCode(),
                             "dlopen before the executable was started");
  size_t Before = Objects.size();
  InDlopen = true;
  auto Done = llvm::make_scope_exit([&] { InDlopen = false; });
  std::optional<unsigned> I;
  if (int L = findLoaded(Path); L >= 0) {
    I = L;
  } else {
    if (!Read) {
      auto B = readBinary(Path);
      if (!B)
        return B.takeError();
      Read = std::move(*B);
    }
    if (Read->format() != BinaryFormat::ELF ||
        !(Read->machine() == HostMachine))
      return createStringError(
          inconvertibleErrorCode(),
          "%s: is a %s file and cannot be loaded into the host %s (%s)",
          Path.str().c_str(), describeMachine(Read->machine()).c_str(),
          Objects.front().Path.c_str(), describeMachine(HostMachine).c_str());
    // open_verify checks the type after the machine, and fails the dlopen.
    if (Error E = checkLoadableType(*Read))
      return E;
    I = addObject(std::move(Read), Path.str(), Path, 0, "dlopen");
  }
  loadDependencies({*I});
  for (size_t N = Before; N < Objects.size(); ++N)
    LoadedBy[*I].push_back(N);
  if (GlobalFlag)
    for (unsigned S : localScope(*I))
      if (!Objects[S].InGlobalScope) {
        Objects[S].InGlobalScope = true;
        Global.push_back(S);
      }
  return *I;
}

std::vector<unsigned> ProcessModel::localScope(unsigned Obj) const {
  std::vector<unsigned> Out{Obj};
  DenseSet<unsigned> In{Obj};
  for (size_t Head = 0; Head < Out.size(); ++Head)
    for (unsigned D : Edges[Out[Head]])
      if (In.insert(D).second)
        Out.push_back(D);
  return Out;
}

std::vector<unsigned> ProcessModel::lookupScope(unsigned Obj) const {
  std::vector<unsigned> Out = Global;
  DenseSet<unsigned> In(Global.begin(), Global.end());
  for (unsigned L : localScope(Obj))
    if (In.insert(L).second)
      Out.push_back(L);
  return Out;
}

std::vector<unsigned> ProcessModel::loadedWith(unsigned Obj) const {
  return LoadedBy[Obj];
}

/// The hash ld.so's l_versions holds for a reference's version: the file's
/// vna_hash; for a reference made up without one (tests, Mach-O), the ELF
/// hash of the name, which is what every linker writes.
static uint32_t referenceHash(const Symbol &Ref) {
  return Ref.VersionHash ? Ref.VersionHash : object::hashSysV(Ref.Version);
}

/// glibc's check_match over every definition of Ref's name in one object,
/// then do_lookup_x's "exactly one versioned symbol" rule. Returns the
/// definition ld.so binds to, or null; Rejected gets one it passed over.
static const Symbol *matchInObject(const Binary &Provider,
                                   ArrayRef<const Symbol *> Defs,
                                   const Symbol &Ref, const Symbol *&Rejected) {
  if (Defs.empty())
    return nullptr;
  if (!Provider.hasSymbolVersions())
    return Defs.front(); // no .gnu.version: any reference takes it
  if (!Ref.Version.empty()) {
    uint32_t Hash = referenceHash(Ref);
    for (const Symbol *Def : Defs) {
      bool Same = Def->VersionHash == Hash && Def->Version == Ref.Version;
      // Not the version asked for: still fine when it is unversioned (its
      // l_versions hash is 0) and neither side is hidden.
      if (Same || !(Ref.VersionHidden || Def->VersionHash != 0 ||
                    Def->VersionHidden))
        return Def;
      Rejected = Def;
    }
    return nullptr;
  }
  const Symbol *OnlyVersioned = nullptr;
  unsigned NumVersioned = 0;
  for (const Symbol *Def : Defs) {
    // Index 0, 1 and 2 bind an unversioned reference directly, index 2
    // even when hidden (the "oldest" version an old binary was built for).
    if (Def->VersionIndex < 3)
      return Def;
    if (!Def->VersionHidden && NumVersioned++ == 0)
      OnlyVersioned = Def;
    Rejected = Def;
  }
  return NumVersioned == 1 ? OnlyVersioned : nullptr;
}

void ProcessModel::lookup(const Symbol &Ref, ArrayRef<unsigned> Scope,
                          SmallVectorImpl<Binding> &Matches,
                          SmallVectorImpl<Binding> *VersionRejected) const {
  for (unsigned I : Scope) {
    const Binary &B = *Objects[I].Bin;
    const Symbol *Rejected = nullptr;
    std::vector<const Symbol *> Defs = B.findExportedDefinitions(Ref.Name);
    if (const Symbol *Def = matchInObject(B, Defs, Ref, Rejected))
      Matches.push_back({I, Def});
    else if (Rejected && VersionRejected)
      VersionRejected->push_back({I, Rejected});
  }
}

std::vector<MissingVersionNode>
ProcessModel::checkVersionNodes(unsigned Obj) const {
  std::vector<MissingVersionNode> Out;
  for (const VersionRequirement &R : Objects[Obj].Bin->versionRequirements()) {
    int P = findLoaded(R.File);
    if (P < 0)
      continue; // reported as a missing library, if it is one
    const Binary &Prov = *Objects[P].Bin;
    if (Prov.versionDefinitions().empty())
      continue; // glibc accepts a library without version definitions
    for (const VersionRequirement::Entry &E : R.Versions) {
      // dl-version.c's match_symbol: the hash first, then the name.
      bool Have = false, NameOnly = false;
      for (const VersionDefinition &D : Prov.versionDefinitions()) {
        Have |= D.Hash == E.Hash && D.Name == E.Name;
        NameOnly |= D.Name == E.Name;
      }
      if (!Have)
        Out.push_back(
            {Obj, R.File.str(), E.Name.str(), P, E.Weak, NameOnly});
    }
  }
  return Out;
}

} // namespace aoti::audit
