//===- DyldModel.cpp - A model of macOS dyld ------------------------------===//
//
// The search for a dylib load path, as dyld4 does it:
//
//   1. an image already loaded under that path, requested name or install
//      name is reused (the same file under another name, too);
//   2. DYLD_LIBRARY_PATH, each directory with the path's leaf name (and
//      DYLD_FRAMEWORK_PATH with a framework's partial path);
//   3. the path itself: `@rpath/` tries every LC_RPATH of the image that
//      asks, then of the image that loaded it, and so on up to the main
//      executable (an LC_RPATH may itself start with @loader_path/ -- the
//      image holding it -- or @executable_path/); `@loader_path/` is the
//      asking image's directory; `@executable_path/` the main executable's;
//      an absolute path is taken inside the sysroot, where an SDK's text stub
//      (X.tbd for X.dylib) stands for the dylib;
//   4. DYLD_FALLBACK_LIBRARY_PATH (default /usr/local/lib, /usr/lib) and
//      DYLD_FALLBACK_FRAMEWORK_PATH, with the leaf name;
//   5. a system path (/usr/lib/, /System/Library/) that is not on disk, and
//      has no text stub in the sysroot, is in the dyld shared cache: an
//      opaque image.
//
// A file of another architecture or that is not a dylib is skipped and the
// search goes on. A missing LC_LOAD_WEAK_DYLIB is not an error.
//
// Load order: the executable, DYLD_INSERT_LIBRARIES, then each image maps
// all its dependencies before recursing into the first (dyld4's
// loadDependents). dlopen() appends the plugin and its dependencies;
// RTLD_LOCAL hides only the plugin itself from other images' flat lookups.
//
// Binding (dyld4's resolveSymbol): a two-level import looks in the image its
// ordinal names -- its export trie, a re-exported trie entry followed to the
// library it names, then its LC_REEXPORT_DYLIBs depth first. A flat import
// (ordinal 0xFE: -undefined dynamic_lookup, -flat_namespace) looks in every
// visible image in load order, main executable first, and the importing image
// itself; only export tries, not re-exported dylibs. 0xFF is the main
// executable, 0 the image itself.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/loader/DyldModel.h"
#include "aoti/audit/Reader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace aoti::audit {

namespace {

/// dyld drops empty elements of its path variables.
std::vector<std::string> splitColons(StringRef List) {
  return splitSearchList(List, ":", /*EmptyIsCwd=*/false);
}

std::string joinPath(StringRef Dir, StringRef Rest) {
  SmallString<256> P(Dir);
  sys::path::append(P, Rest);
  return std::string(P);
}

/// "Foo.framework/Versions/A/Foo" out of ".../Foo.framework/Versions/A/Foo";
/// empty for a plain dylib.
StringRef frameworkPartialPath(StringRef Name) {
  size_t Fw = Name.find(".framework/");
  if (Fw == StringRef::npos)
    return {};
  size_t Slash = Name.rfind('/', Fw);
  return Name.drop_front(Slash == StringRef::npos ? 0 : Slash + 1);
}

/// An SDK holds X.tbd where the system holds X.dylib (or the framework
/// binary X).
std::string textStubFor(StringRef Path) {
  if (Path.ends_with(".dylib"))
    return (Path.drop_back(6) + ".tbd").str();
  return (Path + ".tbd").str();
}

bool isSystemPath(StringRef P) {
  return (P.starts_with("/usr/lib/") && !P.starts_with("/usr/local/")) ||
         P.starts_with("/System/Library/") || P.starts_with("/System/iOSSupport/");
}

} // namespace

Error DyldConfig::applyEnvironment(StringRef Assignment) {
  size_t Eq = Assignment.find('=');
  if (Eq == StringRef::npos || Eq == 0)
    return createStringError(inconvertibleErrorCode(),
                             "--env expects NAME=VALUE, got '%s'",
                             Assignment.str().c_str());
  StringRef Name = Assignment.take_front(Eq), Value = Assignment.drop_front(Eq + 1);
  if (Name == "DYLD_LIBRARY_PATH")
    LibraryPath = splitColons(Value);
  else if (Name == "DYLD_FRAMEWORK_PATH")
    FrameworkPath = splitColons(Value);
  else if (Name == "DYLD_FALLBACK_LIBRARY_PATH")
    FallbackLibraryPath = splitColons(Value);
  else if (Name == "DYLD_FALLBACK_FRAMEWORK_PATH")
    FallbackFrameworkPath = splitColons(Value);
  else if (Name == "DYLD_INSERT_LIBRARIES")
    InsertLibraries = splitColons(Value);
  // Others (DYLD_PRINT_*, DYLD_BIND_AT_LAUNCH) do not change what binds where.
  return Error::success();
}

DyldModel::DyldModel(DyldConfig C) : Config(std::move(C)) {}
DyldModel::~DyldModel() = default;

std::string DyldModel::absolute(StringRef P) const {
  if (sys::path::is_absolute(P))
    return P.str();
  SmallString<256> Out(Config.WorkingDir);
  sys::path::append(Out, P);
  sys::path::remove_dots(Out, /*remove_dot_dot=*/false);
  return std::string(Out);
}

std::string DyldModel::inSysroot(StringRef P) const {
  if (Config.Sysroot.empty() || !sys::path::is_absolute(P))
    return absolute(P);
  return joinPath(Config.Sysroot, P);
}

std::string DyldModel::directoryOf(unsigned Obj) const {
  return sys::path::parent_path(absolute(Objects[Obj].Path)).str();
}

int DyldModel::findLoaded(StringRef Name) const {
  for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
    const LoadedObject &O = Objects[I];
    if (O.Path == Name || (!O.Bin->soname().empty() && O.Bin->soname() == Name))
      return I;
    for (const std::string &R : O.RequestedAs)
      if (R == Name)
        return I;
  }
  return -1;
}

unsigned DyldModel::addObject(std::unique_ptr<Binary> B, std::string Path,
                              StringRef RequestedAs, int Loader,
                              std::string FoundVia, bool InCache) {
  LoadedObject O;
  O.Bin = std::move(B);
  O.Path = std::move(Path);
  O.RequestedAs.push_back(RequestedAs.str());
  O.Loader = Loader;
  O.FoundVia = std::move(FoundVia);
  O.InGlobalScope = true;
  Objects.push_back(std::move(O));
  Edges.emplace_back();
  LoadedBy.emplace_back();
  DepsMapped.push_back(false);
  Hidden.push_back(false);
  SharedCache.push_back(InCache);
  return Objects.size() - 1;
}

bool DyldModel::tryFile(const std::string &Path, bool MustBeDylib,
                        std::unique_ptr<Binary> &Out,
                        MissingLibrary &Record) const {
  Record.Tried.push_back(Path);
  if (!sys::fs::exists(Path) || sys::fs::is_directory(Path))
    return false;
  ReadOptions RO;
  RO.Arch = HostArch;
  auto B = readBinary(Path, RO);
  if (!B) {
    Record.Skipped.push_back(toString(B.takeError()));
    return false;
  }
  const Binary &Bin = **B;
  if (Bin.format() != BinaryFormat::MachO) {
    Record.Skipped.push_back(Path + ": not a Mach-O file");
    return false;
  }
  if (!(Bin.machine() == HostMachine)) {
    Record.Skipped.push_back(
        formatv("{0}: mach-o file, but is an incompatible architecture (have "
                "'{1}', need '{2}')",
                Path, Bin.archName(), HostArch)
            .str());
    return false;
  }
  if (MustBeDylib && Bin.kind() != FileKind::SharedLibrary) {
    Record.Skipped.push_back(
        formatv("{0}: is a {1}, not a dylib", Path, toString(Bin.kind())).str());
    return false;
  }
  Out = std::move(*B);
  return true;
}

std::optional<unsigned> DyldModel::mapDependency(StringRef Name,
                                                 unsigned Requester,
                                                 Dependency::Kind Kind) {
  if (int I = findLoaded(Name); I >= 0)
    return unsigned(I);

  MissingLibrary Record{Requester, Name.str(), {}, {}};
  std::unique_ptr<Binary> Found;
  std::string FoundPath, Via;
  bool Done = false;
  auto Try = [&](const std::string &Path, const Twine &How) {
    if (Done)
      return true;
    if (tryFile(Path, /*MustBeDylib=*/true, Found, Record)) {
      FoundPath = Path;
      Via = How.str();
      Done = true;
    }
    return Done;
  };
  // In an SDK or copied tree, a text stub stands for a system dylib.
  auto TryWithStub = [&](const std::string &Path, const Twine &How) {
    if (Try(Path, How))
      return true;
    if (!Config.Sysroot.empty())
      Try(textStubFor(Path), How + " (text stub)");
    return Done;
  };

  StringRef Leaf = sys::path::filename(Name);
  StringRef Framework = frameworkPartialPath(Name);
  std::string Asker = Objects[Requester].Bin->fileName().str();

  for (const std::string &Dir : Config.LibraryPath)
    if (Try(joinPath(inSysroot(Dir), Leaf), "DYLD_LIBRARY_PATH"))
      break;
  if (!Framework.empty())
    for (const std::string &Dir : Config.FrameworkPath)
      if (Try(joinPath(inSysroot(Dir), Framework), "DYLD_FRAMEWORK_PATH"))
        break;

  if (!Done) {
    StringRef Rest = Name;
    if (Rest.consume_front("@rpath/")) {
      for (int L = Requester; L >= 0 && !Done; L = Objects[L].Loader) {
        const Binary &B = *Objects[L].Bin;
        for (StringRef RP : B.rpath()) {
          std::string Dir;
          StringRef R = RP;
          if (R.consume_front("@loader_path"))
            Dir = directoryOf(L) + R.str();
          else if (R.consume_front("@executable_path"))
            Dir = directoryOf(0) + R.str();
          else if (R.starts_with("@"))
            continue; // dyld expands no other token in LC_RPATH
          else
            Dir = inSysroot(RP);
          if (TryWithStub(joinPath(Dir, Rest),
                          "LC_RPATH " + RP + " of " + B.fileName()))
            break;
        }
        if (L == 0)
          break;
      }
    } else if (Rest.consume_front("@loader_path/")) {
      Try(joinPath(directoryOf(Requester), Rest), "@loader_path of " + Asker);
    } else if (Rest.consume_front("@executable_path/")) {
      Try(joinPath(directoryOf(0), Rest), "@executable_path");
    } else if (Name.starts_with("@")) {
      // An unknown token: dyld finds nothing either.
    } else if (sys::path::is_absolute(Name)) {
      TryWithStub(inSysroot(Name), "install name");
    } else {
      Try(absolute(Name), "path relative to the working directory");
    }
  }

  if (!Done) {
    static const std::vector<std::string> DefaultLib{"/usr/local/lib", "/usr/lib"};
    static const std::vector<std::string> DefaultFw{"/Library/Frameworks",
                                                    "/System/Library/Frameworks"};
    const std::vector<std::string> &Lib =
        Config.FallbackLibraryPath ? *Config.FallbackLibraryPath : DefaultLib;
    for (const std::string &Dir : Lib)
      if (TryWithStub(joinPath(inSysroot(Dir), Leaf),
                      Config.FallbackLibraryPath ? "DYLD_FALLBACK_LIBRARY_PATH"
                                                 : "dyld's fallback directories"))
        break;
    if (!Framework.empty()) {
      const std::vector<std::string> &Fw = Config.FallbackFrameworkPath
                                               ? *Config.FallbackFrameworkPath
                                               : DefaultFw;
      for (const std::string &Dir : Fw)
        if (TryWithStub(joinPath(inSysroot(Dir), Framework),
                        "DYLD_FALLBACK_FRAMEWORK_PATH"))
          break;
    }
  }

  if (!Done && Config.AssumeSharedCache && isSystemPath(Name) &&
      Record.Skipped.empty()) {
    // Since macOS 11 system dylibs exist only inside the shared cache, on a
    // real disk and in a copied tree alike; an SDK's text stub would have
    // been found above.
    auto B = std::make_unique<Binary>(Name.str(), BinaryFormat::MachO);
    B->Kind = FileKind::SharedLibrary;
    B->Machine = HostMachine;
    B->ArchName = HostArch;
    B->TwoLevel = true;
    B->SoName = B->save(Name);
    return addObject(std::move(B), Name.str(), Name, Requester,
                     "dyld shared cache (not modelled)", /*InCache=*/true);
  }

  if (!Found) {
    if (Kind != Dependency::Kind::Weak)
      Missing.push_back(std::move(Record));
    return std::nullopt;
  }
  sys::fs::UniqueID NewID;
  if (!sys::fs::getUniqueID(FoundPath, NewID))
    for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
      sys::fs::UniqueID ID;
      if (!SharedCache[I] && !sys::fs::getUniqueID(absolute(Objects[I].Path), ID) &&
          ID == NewID) {
        Objects[I].RequestedAs.push_back(Name.str());
        return I;
      }
    }
  return addObject(std::move(Found), FoundPath, Name, Requester, Via);
}

void DyldModel::loadDependents(unsigned Obj) {
  if (DepsMapped[Obj])
    return;
  DepsMapped[Obj] = true;
  // Copy: mapDependency grows Objects and invalidates references into it.
  std::vector<Dependency> Deps = Objects[Obj].Bin->dependencies();
  std::vector<int> Resolved;
  for (const Dependency &D : Deps) {
    std::optional<unsigned> I = mapDependency(D.Name, Obj, D.DepKind);
    Resolved.push_back(I ? int(*I) : -1);
  }
  Edges[Obj] = Resolved;
  for (int I : Resolved)
    if (I >= 0)
      loadDependents(unsigned(I));
}

void DyldModel::refreshVisible() {
  Visible.clear();
  for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
    Objects[I].InGlobalScope = !Hidden[I];
    if (!Hidden[I])
      Visible.push_back(I);
  }
}

Error DyldModel::startExecutable(StringRef Path) {
  ReadOptions RO;
  RO.Arch = Config.Arch;
  auto B = readBinary(Path, RO);
  if (!B)
    return B.takeError();
  return startExecutable(std::move(*B));
}

Error DyldModel::startExecutable(std::unique_ptr<Binary> B) {
  if (Config.WorkingDir.empty()) {
    SmallString<256> Cwd;
    if (!sys::fs::current_path(Cwd))
      Config.WorkingDir = std::string(Cwd);
  }
  std::string Path = B->path().str();
  if (B->format() != BinaryFormat::MachO || B->kind() != FileKind::Executable)
    return createStringError(inconvertibleErrorCode(),
                             "%s: is a %s %s, not a Mach-O executable (MH_EXECUTE)",
                             Path.c_str(), toString(B->format()).str().c_str(),
                             toString(B->kind()).str().c_str());
  if (!Config.Arch.empty() && B->archName() != Config.Arch &&
      !(Config.Arch == "aarch64" && B->archName() == "arm64"))
    return createStringError(inconvertibleErrorCode(),
                             "%s: is a thin %s file; --arch asks for %s",
                             Path.c_str(), B->archName().str().c_str(),
                             Config.Arch.c_str());
  HostMachine = B->machine();
  HostArch = B->archName().str();
  HaveHost = true;
  unsigned Exe = addObject(std::move(B), Path, Path, -1, "executable");

  std::vector<unsigned> Roots{Exe};
  for (const std::string &Lib : Config.InsertLibraries) {
    if (int I = findLoaded(Lib); I >= 0)
      continue;
    MissingLibrary Record{Exe, Lib, {}, {}};
    StringRef Rest = Lib;
    std::string P = Rest.consume_front("@executable_path/")
                        ? joinPath(directoryOf(Exe), Rest)
                        : inSysroot(Lib);
    std::unique_ptr<Binary> Ins;
    if (!tryFile(P, /*MustBeDylib=*/true, Ins, Record)) {
      Missing.push_back(std::move(Record));
      continue;
    }
    Roots.push_back(addObject(std::move(Ins), P, Lib, Exe, "DYLD_INSERT_LIBRARIES"));
  }
  for (unsigned R : Roots)
    loadDependents(R);
  refreshVisible();
  return Error::success();
}

Expected<unsigned> DyldModel::dlopen(StringRef Path, bool Global) {
  if (!HaveHost)
    return createStringError(inconvertibleErrorCode(),
                             "dlopen before the executable was started");
  size_t Before = Objects.size();
  int Found = findLoaded(Path);
  if (Found < 0) {
    sys::fs::UniqueID NewID;
    if (!sys::fs::getUniqueID(absolute(Path), NewID))
      for (unsigned I = 0, E = Objects.size(); I != E; ++I) {
        sys::fs::UniqueID ID;
        if (!SharedCache[I] && !sys::fs::getUniqueID(absolute(Objects[I].Path), ID) &&
            ID == NewID)
          Found = I;
      }
  }
  unsigned I;
  if (Found >= 0) {
    I = Found;
    if (Global)
      Hidden[I] = false; // an RTLD_GLOBAL dlopen unhides an image
  } else {
    ReadOptions RO;
    RO.Arch = HostArch;
    auto B = readBinary(Path, RO);
    if (!B)
      return B.takeError();
    if ((*B)->format() != BinaryFormat::MachO || !((*B)->machine() == HostMachine))
      return createStringError(
          inconvertibleErrorCode(),
          "%s: is a %s %s file and cannot be loaded into a Mach-O %s host "
          "(%s)",
          Path.str().c_str(), toString((*B)->format()).str().c_str(),
          (*B)->archName().str().c_str(), HostArch.c_str(),
          Objects.front().Path.c_str());
    if ((*B)->kind() != FileKind::Bundle && (*B)->kind() != FileKind::SharedLibrary)
      return createStringError(inconvertibleErrorCode(),
                               "%s: is a %s; dlopen() loads bundles and dylibs",
                               Path.str().c_str(),
                               toString((*B)->kind()).str().c_str());
    I = addObject(std::move(*B), Path.str(), Path, 0, "dlopen");
    Hidden[I] = !Global;
  }
  loadDependents(I);
  for (size_t N = Before; N < Objects.size(); ++N)
    LoadedBy[I].push_back(N);
  refreshVisible();
  return I;
}

std::vector<unsigned> DyldModel::loadedWith(unsigned Obj) const {
  return LoadedBy[Obj];
}

void DyldModel::reexportClosure(unsigned Obj, std::vector<unsigned> &Out) const {
  const std::vector<Dependency> &Deps = Objects[Obj].Bin->dependencies();
  for (size_t K = 0; K != Deps.size() && K != Edges[Obj].size(); ++K) {
    int D = Edges[Obj][K];
    if (Deps[K].DepKind != Dependency::Kind::ReExport || D < 0 ||
        std::find(Out.begin(), Out.end(), unsigned(D)) != Out.end())
      continue;
    Out.push_back(D);
    reexportClosure(D, Out);
  }
}

static bool isFlatLookup(const Symbol &Ref) {
  return Ref.LibraryOrdinal == 0xFE || Ref.LibraryOrdinal < 0;
}

std::vector<unsigned> DyldModel::lookupScope(unsigned Obj,
                                             const Symbol &Ref) const {
  std::vector<unsigned> Out;
  if (isFlatLookup(Ref)) {
    for (unsigned I = 0, E = Objects.size(); I != E; ++I)
      if (!Hidden[I] || I == Obj) // a flat lookup may search its own image
        Out.push_back(I);
    return Out;
  }
  int Target;
  if (Ref.LibraryOrdinal == 0)
    Target = Obj;
  else if (Ref.LibraryOrdinal == 0xFF)
    Target = 0;
  else if (size_t(Ref.LibraryOrdinal) <= Edges[Obj].size())
    Target = Edges[Obj][Ref.LibraryOrdinal - 1];
  else
    Target = -1;
  if (Target < 0)
    return Out; // the library was not found (a missing weak dylib)
  Out.push_back(Target);
  reexportClosure(Target, Out);
  return Out;
}

const Symbol *DyldModel::findExport(unsigned Obj, StringRef Name, bool Deep,
                                    std::vector<unsigned> &Searched,
                                    unsigned &Where) const {
  if (std::find(Searched.begin(), Searched.end(), Obj) != Searched.end())
    return nullptr;
  Searched.push_back(Obj);
  if (SharedCache[Obj]) {
    if (!Deep)
      return nullptr;
    // Linked two-level against it: the static linker found the name there.
    Assumed.push_back(Symbol());
    Symbol &S = Assumed.back();
    S.Name = Name;
    S.Defined = true;
    Where = Obj;
    return &S;
  }
  std::vector<const Symbol *> Defs = Objects[Obj].Bin->findExportedDefinitions(Name);
  if (!Defs.empty()) {
    const Symbol *D = Defs.front();
    if (!D->ReExport) {
      Where = Obj;
      return D;
    }
    // A re-exported trie entry: the definition is in the library it names.
    int Ord = D->LibraryOrdinal;
    int Src = Ord >= 1 && size_t(Ord) <= Edges[Obj].size() ? Edges[Obj][Ord - 1] : -1;
    if (Src < 0)
      return nullptr; // re-exported from a weak dylib that is missing
    if (!D->ImportName.empty()) {
      std::vector<unsigned> Fresh; // a new name: search everything again
      return findExport(Src, D->ImportName, true, Fresh, Where);
    }
    return findExport(Src, Name, true, Searched, Where);
  }
  if (!Deep)
    return nullptr;
  const std::vector<Dependency> &Deps = Objects[Obj].Bin->dependencies();
  for (size_t K = 0; K != Deps.size() && K != Edges[Obj].size(); ++K)
    if (Deps[K].DepKind == Dependency::Kind::ReExport && Edges[Obj][K] >= 0)
      if (const Symbol *D = findExport(Edges[Obj][K], Name, true, Searched, Where))
        return D;
  return nullptr;
}

void DyldModel::resolve(unsigned Obj, const Symbol &Ref,
                        SmallVectorImpl<Binding> &Matches,
                        SmallVectorImpl<Binding> *) const {
  std::vector<unsigned> Scope = lookupScope(Obj, Ref);
  if (isFlatLookup(Ref)) {
    // Every image in load order; the first match wins, the others are
    // reported so that a name that must be unique can be checked.
    for (unsigned I : Scope) {
      if (SharedCache[I])
        continue; // exports unknown: a flat lookup is never assumed to hit
      std::vector<unsigned> Searched;
      unsigned Where = I;
      const Symbol *D = findExport(I, Ref.Name, /*Deep=*/false, Searched, Where);
      if (!D)
        continue;
      bool Dup = false;
      for (const Binding &M : Matches)
        Dup |= M.Object == Where && M.Def == D;
      if (!Dup)
        Matches.push_back({Where, D});
    }
    return;
  }
  if (Scope.empty())
    return;
  std::vector<unsigned> Searched;
  unsigned Where = Scope.front();
  if (const Symbol *D = findExport(Scope.front(), Ref.Name, /*Deep=*/true,
                                   Searched, Where))
    Matches.push_back({Where, D});
}

} // namespace aoti::audit
