//===- TempDir.h - Private temporary directories ----------------*- C++ -*-===//
//
// Where a package is extracted. See TempDir for why the same content gets
// the same directory.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_TEMPDIR_H
#define AOTI_BACKEND_LIB_TEMPDIR_H

#include "aoti/backend/Error.h"

#include <string>

namespace aoti::backend {

/// A private directory removed, with what is in it, on destruction.
///
/// forContent() gives every holder of the same key the same directory, for
/// as long as one of them lives: a package loaded again is extracted to the
/// path it had, so dlopen finds the library it already loaded instead of
/// mapping, relocating and initialising another copy. (glibc never unloads
/// a library with STB_GNU_UNIQUE symbols -- AOTInductor models have about a
/// hundred -- so every load from a new path kept a new copy: measured on an
/// H200, 73 KB of heap a load of a .pt2.)
class TempDir {
public:
  static Expected<TempDir> create();
  /// $TMPDIR/aoti-model-<pid>-<random>/<Key>; Fresh says whether it was just
  /// made (empty) or is shared with a live holder (already filled).
  static Expected<TempDir> forContent(const std::string &Key, bool &Fresh);
  TempDir(TempDir &&O) noexcept : Path(std::move(O.Path)), Key(std::move(O.Key)) {
    O.Path.clear();
    O.Key.clear();
  }
  TempDir &operator=(TempDir &&O) noexcept;
  ~TempDir();
  const std::string &path() const { return Path; }

private:
  TempDir(std::string P, std::string K = {}) : Path(std::move(P)), Key(std::move(K)) {}
  std::string Path;
  std::string Key; // non-empty: shared, released to the registry
};

} // namespace aoti::backend

#endif
