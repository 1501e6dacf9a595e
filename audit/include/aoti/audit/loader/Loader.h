//===- loader/Loader.h - A model of the dynamic loader --------------------===//
//
// ProcessModel replays what glibc's ld.so does when a host starts and then
// dlopen()s a plugin: which file each needed library resolves to (and why),
// which objects form the global scope and each plugin's local scope, and which
// definition a reference binds to. It reads files through Reader.h and keeps
// every decision it makes, so rules can explain a failure without redoing the
// search. The rules of the game are in docs/loader-model.md.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LOADER_H
#define AOTI_AUDIT_LOADER_H

#include "aoti/audit/Binary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aoti::audit {

/// The environment and file system the modelled process sees.
/// The elements of a search list ("a:b:c") split at any of Seps, empty ones
/// dropped, or (EmptyIsCwd, glibc's LD_LIBRARY_PATH rule) kept as ".".
std::vector<std::string> splitSearchList(llvm::StringRef List, llvm::StringRef Seps,
                                         bool EmptyIsCwd);

struct LoaderConfig {
  /// Every absolute path (search directories, ld.so.cache entries, the
  /// executable's interpreter) is taken relative to this directory.
  std::string Sysroot;
  /// LD_LIBRARY_PATH, in order.
  std::vector<std::string> LibraryPath;
  /// LD_PRELOAD, in order.
  std::vector<std::string> Preload;
  /// AT_SECURE (set-uid host): LD_LIBRARY_PATH is ignored.
  bool Secure = false;
  /// The cache file; empty means <Sysroot>/etc/ld.so.cache.
  std::string LdSoCachePath;
  bool UseLdSoCache = true;
  /// The trusted directories; empty means glibc's for the host's machine.
  std::vector<std::string> DefaultDirs;
  /// Directory relative paths are taken from; empty means the current one.
  std::string WorkingDir;

  /// Applies NAME=VALUE settings the way ld.so reads its environment
  /// (LD_LIBRARY_PATH, LD_PRELOAD; others are ignored). Returns an error for
  /// a malformed setting.
  llvm::Error applyEnvironment(llvm::StringRef Assignment);
};

/// One object in the modelled process.
struct LoadedObject {
  std::unique_ptr<Binary> Bin;
  /// The path it was opened at, as the loader would name it.
  std::string Path;
  /// The names it was asked for (DT_NEEDED strings, dlopen arguments).
  llvm::SmallVector<std::string, 1> RequestedAs;
  /// The object whose dependency (or dlopen call) brought it in; -1 for the
  /// executable.
  int Loader = -1;
  /// How the search found it: "RPATH of host", "LD_LIBRARY_PATH", ...
  std::string FoundVia;
  bool InGlobalScope = false;
  /// The object is a LibTorch library (libtorch*.so, libc10*.so).
  bool isLibTorch() const;
};

/// A dependency the search did not find.
struct MissingLibrary {
  unsigned Requester;
  std::string Name;
  /// Every path tried, in order, and the reason a file that exists was
  /// skipped ("wrong ELF class", "wrong machine", "not an ELF file").
  std::vector<std::string> Tried;
  std::vector<std::string> Skipped;
};

/// A version a loaded object requires that the named library lacks
/// (ld.so: "version `X' not found (required by Y)").
struct MissingVersionNode {
  unsigned Requester;
  std::string Library; // as vn_file names it
  std::string Version;
  int Provider = -1;   // the loaded object that lacks it; -1 if not loaded
  bool Weak = false;   // a weak requirement only warns
  /// The library defines a node of that name, but its vd_hash is not the
  /// requirement's vna_hash: ld.so matches both, so it is missing all the same.
  bool HashMismatch = false;
};

/// An object glibc finds but refuses to map: anything but the main program
/// that is an executable (ld.so: "cannot dynamically load executable",
/// "cannot dynamically load position-independent executable"), or one marked
/// DF_1_NOOPEN that a dlopen brings in ("shared object cannot be
/// dlopen()ed"), or one of a type ld.so maps not at all ("only ET_DYN and
/// ET_EXEC can be loaded"). The dlopen (or the start, for the host's own
/// dependencies) fails.
struct RefusedObject {
  unsigned Requester; // the object whose DT_NEEDED or dlopen asked for it
  unsigned Object;    // the refused object, kept to name it and explain it
  std::string Reason; // ld.so's words
};

/// A definition a reference can bind to.
struct Binding {
  unsigned Object;
  const Symbol *Def;
};

/// What `check` asks of a loader model, whichever loader it models:
/// ProcessModel below (glibc ld.so), DyldModel in DyldModel.h (macOS dyld).
class LoaderModel {
public:
  virtual ~LoaderModel() = default;
  virtual llvm::Error startExecutable(llvm::StringRef Path) = 0;
  /// The same for an executable already read, known by its path(): a
  /// caller that has read the file (check reads its host once) does not
  /// make the model read it again.
  virtual llvm::Error startExecutable(std::unique_ptr<Binary> Exe) = 0;
  virtual llvm::Expected<unsigned> dlopen(llvm::StringRef Path, bool Global) = 0;
  /// The same for a library already read (a model inside a .pt2 package),
  /// known by its path(): there is no file at that path to open.
  virtual llvm::Expected<unsigned> dlopen(std::unique_ptr<Binary> Bin,
                                          bool Global) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: a packaged model is audited only "
                                   "against an ELF host",
                                   Bin->path().str().c_str());
  }
  virtual const std::vector<LoadedObject> &objects() const = 0;
  const LoadedObject &object(unsigned I) const { return objects()[I]; }
  virtual const std::vector<unsigned> &globalScope() const = 0;
  virtual std::vector<unsigned> loadedWith(unsigned Obj) const = 0;
  virtual const std::vector<MissingLibrary> &missingLibraries() const = 0;
  /// Objects the loader found but refused to map, in the order it met them.
  virtual const std::vector<RefusedObject> &refusedObjects() const {
    static const std::vector<RefusedObject> None;
    return None;
  }
  virtual std::vector<MissingVersionNode> checkVersionNodes(unsigned Obj) const = 0;
  /// The objects the loader searches for Ref, a reference Obj makes, in
  /// order. glibc: the same for every reference; dyld: what its library
  /// ordinal names.
  virtual std::vector<unsigned> lookupScope(unsigned Obj,
                                            const Symbol &Ref) const = 0;
  /// Every definition Ref may bind to, in the order the loader tries them
  /// (the first one wins); incompatible versions go to VersionRejected.
  virtual void resolve(unsigned Obj, const Symbol &Ref,
                       llvm::SmallVectorImpl<Binding> &Matches,
                       llvm::SmallVectorImpl<Binding> *VersionRejected) const = 0;
};

class ProcessModel : public LoaderModel {
public:
  explicit ProcessModel(LoaderConfig Config);
  ~ProcessModel();

  std::vector<unsigned> lookupScope(unsigned Obj, const Symbol &) const override {
    return lookupScope(Obj);
  }
  void resolve(unsigned Obj, const Symbol &Ref,
               llvm::SmallVectorImpl<Binding> &Matches,
               llvm::SmallVectorImpl<Binding> *VersionRejected) const override {
    lookup(Ref, lookupScope(Obj), Matches, VersionRejected);
  }

  /// Starts the host: the executable, LD_PRELOAD, then the breadth-first
  /// closure of its dependencies. Errors only for an unreadable executable;
  /// unresolved dependencies are recorded in missingLibraries().
  llvm::Error startExecutable(llvm::StringRef Path) override;
  llvm::Error startExecutable(std::unique_ptr<Binary> Exe) override;

  /// dlopen(Path, RTLD_NOW | (Global ? RTLD_GLOBAL : RTLD_LOCAL)) called by
  /// the executable. Returns the plugin's object index.
  llvm::Expected<unsigned> dlopen(llvm::StringRef Path, bool Global) override;
  llvm::Expected<unsigned> dlopen(std::unique_ptr<Binary> Bin,
                                  bool Global) override;

  const std::vector<LoadedObject> &objects() const override { return Objects; }
  const LoadedObject &object(unsigned I) const { return Objects[I]; }
  const std::vector<unsigned> &globalScope() const override { return Global; }
  /// The object and the breadth-first closure of its dependencies.
  std::vector<unsigned> localScope(unsigned Obj) const;
  /// Where a reference made by Obj is looked up: the global scope, then
  /// Obj's local scope (duplicates removed, first occurrence kept).
  std::vector<unsigned> lookupScope(unsigned Obj) const;
  /// Objects newly loaded by the dlopen that returned Obj (Obj included).
  std::vector<unsigned> loadedWith(unsigned Obj) const override;

  const std::vector<MissingLibrary> &missingLibraries() const override {
    return Missing;
  }
  const std::vector<RefusedObject> &refusedObjects() const override {
    return Refused;
  }

  /// Every definition in Scope that Ref may bind to, in lookup order (the
  /// first one wins). Definitions with the right name but an incompatible
  /// version go to VersionRejected.
  void lookup(const Symbol &Ref, llvm::ArrayRef<unsigned> Scope,
              llvm::SmallVectorImpl<Binding> &Matches,
              llvm::SmallVectorImpl<Binding> *VersionRejected = nullptr) const;

  /// The version requirements of Obj that its libraries do not meet.
  std::vector<MissingVersionNode> checkVersionNodes(unsigned Obj) const override;

  const LoaderConfig &config() const { return Config; }
  /// The trusted directories in effect (config or glibc's defaults).
  const std::vector<std::string> &defaultDirs() const { return DefaultDirs; }

private:
  struct SearchResult;
  int findLoaded(llvm::StringRef Name) const;
  unsigned addObject(std::unique_ptr<Binary> B, std::string Path,
                     llvm::StringRef RequestedAs, int Loader,
                     std::string FoundVia);
  std::optional<unsigned> mapDependency(llvm::StringRef Name,
                                        unsigned Requester);
  void loadDependencies(std::vector<unsigned> Queue);
  llvm::Expected<unsigned> dlopenRead(llvm::StringRef Path,
                                      std::unique_ptr<Binary> Read,
                                      bool Global);
  std::string expandTokens(llvm::StringRef Dir, unsigned Origin) const;
  std::string inSysroot(llvm::StringRef Path) const;
  bool tryFile(const std::string &Path, std::unique_ptr<Binary> &Out,
               MissingLibrary &Record) const;
  const std::string *cacheLookup(llvm::StringRef Name) const;

  LoaderConfig Config;
  std::vector<std::string> DefaultDirs;
  std::vector<LoadedObject> Objects;
  std::vector<unsigned> Global;
  std::vector<MissingLibrary> Missing;
  std::vector<RefusedObject> Refused;
  bool InDlopen = false; // DF_1_NOOPEN is refused only under dlopen
  std::vector<std::vector<unsigned>> Edges; // resolved dependencies per object
  std::vector<std::vector<unsigned>> LoadedBy; // dlopen'd object -> new ones
  std::vector<bool> DepsMapped;
  MachineId HostMachine;
  bool HaveHost = false;
  mutable bool CacheRead = false;
  mutable llvm::StringMap<std::string> Cache;
};

/// Whether the dynamic loader of B's format maps a file of B's type at all:
/// glibc's open_verify takes only ET_DYN and ET_EXEC ("only ET_DYN and
/// ET_EXEC can be loaded"), dyld only images (MH_DYLIB, MH_BUNDLE,
/// MH_EXECUTE). A relocatable object, a core file or an unknown type fails
/// the load before a symbol is read. Whether an executable may be loaded
/// other than as the main program is RefusedObject's question.
llvm::Error checkLoadableType(const Binary &B);

/// Reads /etc/ld.so.cache (the "glibc-ld.so.cache1.1" format, alone or after
/// the old "ld.so-1.7.0" table) and returns soname -> path for the entries of
/// the given machine.
llvm::Expected<llvm::StringMap<std::string>>
readLdSoCache(llvm::StringRef Path, const MachineId &Machine);

} // namespace aoti::audit

#endif
