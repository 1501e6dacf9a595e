//===- loader/DyldModel.h - A model of macOS dyld -------------------------===//
//
// DyldModel replays what dyld does when a Mach-O host starts and then
// dlopen()s a plugin: which file each LC_LOAD_*_DYLIB resolves to (and why),
// which images are loaded in which order, and which image's export trie each
// import binds to. It is the Mach-O counterpart of ProcessModel (Loader.h)
// behind the same LoaderModel interface, so `check` and its rules work on
// both. The rules it follows are in docs/macho.md.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_DYLDMODEL_H
#define AOTI_AUDIT_DYLDMODEL_H

#include "aoti/audit/loader/Loader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace aoti::audit {

/// The environment and file system the modelled process sees.
struct DyldConfig {
  /// An SDK or a copied tree: absolute install names and LC_RPATHs are taken
  /// inside it, and a missing X.dylib is looked for as its text stub X.tbd.
  std::string Sysroot;
  /// DYLD_LIBRARY_PATH and DYLD_FRAMEWORK_PATH, searched before the install
  /// name with the name's leaf (or framework path).
  std::vector<std::string> LibraryPath;
  std::vector<std::string> FrameworkPath;
  /// DYLD_FALLBACK_LIBRARY_PATH / DYLD_FALLBACK_FRAMEWORK_PATH, searched
  /// after it; unset means dyld's defaults.
  std::optional<std::vector<std::string>> FallbackLibraryPath;
  std::optional<std::vector<std::string>> FallbackFrameworkPath;
  /// DYLD_INSERT_LIBRARIES, loaded after the executable.
  std::vector<std::string> InsertLibraries;
  /// Directory relative paths are taken from; empty means the current one.
  std::string WorkingDir;
  /// The slice to read from universal files; empty means the executable's
  /// (and for the executable itself: the audit machine's, else the first).
  std::string Arch;
  /// System install names (/usr/lib/..., /System/Library/...) that are not
  /// on disk live in the dyld shared cache. Unless the sysroot has a text
  /// stub for them, they load as opaque images whose two-level imports are
  /// assumed present (flat lookups never assume).
  bool AssumeSharedCache = true;

  /// Applies NAME=VALUE settings the way dyld reads its environment
  /// (DYLD_LIBRARY_PATH, DYLD_FRAMEWORK_PATH, DYLD_FALLBACK_*,
  /// DYLD_INSERT_LIBRARIES; others are ignored).
  llvm::Error applyEnvironment(llvm::StringRef Assignment);
};

class DyldModel final : public LoaderModel {
public:
  explicit DyldModel(DyldConfig Config);
  ~DyldModel() override;

  /// Starts the host: the executable, DYLD_INSERT_LIBRARIES, then every
  /// dependency in dyld's order. Errors only for an unreadable executable.
  llvm::Error startExecutable(llvm::StringRef Path) override;
  llvm::Error startExecutable(std::unique_ptr<Binary> Exe) override;
  /// dlopen(Path, RTLD_NOW | (Global ? RTLD_GLOBAL : RTLD_LOCAL)) called by
  /// the executable. RTLD_LOCAL hides only the opened image from other
  /// images' flat lookups; its dependencies are visible.
  llvm::Expected<unsigned> dlopen(llvm::StringRef Path, bool Global) override;

  const std::vector<LoadedObject> &objects() const override { return Objects; }
  /// The images a flat lookup searches, in load order (main executable
  /// first): every image not hidden by RTLD_LOCAL.
  const std::vector<unsigned> &globalScope() const override { return Visible; }
  std::vector<unsigned> loadedWith(unsigned Obj) const override;
  const std::vector<MissingLibrary> &missingLibraries() const override {
    return Missing;
  }
  /// Mach-O has no symbol versions.
  std::vector<MissingVersionNode> checkVersionNodes(unsigned) const override {
    return {};
  }
  /// Two-level import with ordinal n: the n-th dylib and what it re-exports
  /// (LC_REEXPORT_DYLIB, depth first); 0: the image itself; 0xFF: the main
  /// executable; 0xFE (dynamic lookup, and flat-namespace images): every
  /// visible image in load order, plus the image itself.
  std::vector<unsigned> lookupScope(unsigned Obj,
                                    const Symbol &Ref) const override;
  /// Two-level: the first image in scope that exports the name, following
  /// re-exported trie entries. Flat: every visible image that exports it, in
  /// load order (dyld takes the first).
  void resolve(unsigned Obj, const Symbol &Ref,
               llvm::SmallVectorImpl<Binding> &Matches,
               llvm::SmallVectorImpl<Binding> *VersionRejected) const override;

  /// The image stands for a dylib in the dyld shared cache: its exports are
  /// unknown to the audit.
  bool inSharedCache(unsigned Obj) const { return SharedCache[Obj]; }
  /// Each dependency of Obj, in ordinal order: the object it resolved to,
  /// or -1 when it was not found.
  const std::vector<int> &dependencyObjects(unsigned Obj) const {
    return Edges[Obj];
  }
  const DyldConfig &config() const { return Config; }

private:
  int findLoaded(llvm::StringRef Name) const;
  unsigned addObject(std::unique_ptr<Binary> B, std::string Path,
                     llvm::StringRef RequestedAs, int Loader,
                     std::string FoundVia, bool InCache = false);
  std::optional<unsigned> mapDependency(llvm::StringRef Name, unsigned Requester,
                                        Dependency::Kind Kind);
  void loadDependents(unsigned Obj);
  void refreshVisible();
  bool tryFile(const std::string &Path, bool MustBeDylib,
               std::unique_ptr<Binary> &Out, MissingLibrary &Record) const;
  std::string directoryOf(unsigned Obj) const;
  std::string inSysroot(llvm::StringRef Path) const;
  std::string absolute(llvm::StringRef Path) const;
  void reexportClosure(unsigned Obj, std::vector<unsigned> &Out) const;
  const Symbol *findExport(unsigned Obj, llvm::StringRef Name, bool Deep,
                           std::vector<unsigned> &Searched,
                           unsigned &Where) const;

  DyldConfig Config;
  std::vector<LoadedObject> Objects;
  std::vector<unsigned> Visible;
  std::vector<bool> Hidden;
  std::vector<bool> SharedCache;
  std::vector<MissingLibrary> Missing;
  std::vector<std::vector<int>> Edges;
  std::vector<std::vector<unsigned>> LoadedBy;
  std::vector<bool> DepsMapped;
  MachineId HostMachine;
  std::string HostArch;
  bool HaveHost = false;
  /// Definitions the audit assumes for imports bound to shared-cache images.
  mutable std::deque<Symbol> Assumed;
};

} // namespace aoti::audit

#endif
