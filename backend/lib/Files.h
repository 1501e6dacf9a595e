//===- Files.h - Model files: packages, metadata, generated source -*- C++ -*-===//
#ifndef AOTI_BACKEND_FILES_H
#define AOTI_BACKEND_FILES_H

#include "aoti/backend/Error.h"
#include "aoti/backend/Model.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// Bytes in a 64-byte-aligned buffer: a weights blob may be used in place by
/// a CPU model, which expects its constants aligned.
class AlignedBytes {
public:
  AlignedBytes() = default;
  explicit AlignedBytes(size_t Size);
  const std::byte *data() const { return Data.get(); }
  std::byte *data() { return Data.get(); }
  size_t size() const { return Size; }

private:
  struct Free {
    void operator()(std::byte *P) const;
  };
  std::unique_ptr<std::byte[], Free> Data;
  size_t Size = 0;
};

/// Everything the loader takes from a model's files, whether they came from a
/// package or lie beside a .so.
struct ModelFiles {
  std::string SoPath;
  std::string CubinDir;
  /// The metadata JSON text, empty when there is none.
  std::string Metadata;
  std::string WeightsPath; // for messages; empty when there is no blob
  std::optional<AlignedBytes> Weights;
  /// The generated <hash>.wrapper.cpp, empty when absent.
  std::string WrapperSource;
  /// A package with files under <root>/data/weights/: weights exported with
  /// package_constants_on_disk_format="pickle_weights", which only torch's
  /// Python loader reads.
  bool PickledWeights = false;
  std::optional<TempDir> Extracted;
};

enum class FileFormat { Zip, Elf, Other };
Expected<FileFormat> sniff(const std::string &Path);

/// Extracts the model of a .pt2 package (its <root>/data/aotinductor/model/
/// folder) into a new temporary directory.
Expected<ModelFiles> openPackage(const std::string &Path);
/// A bare .so: metadata, weights and source are looked for beside it
/// (<stem>_metadata.json, <stem>_weights.blob, <stem>.cpp for <stem>.so).
Expected<ModelFiles> openSharedObject(const std::string &Path,
                                      const LoadOptions &Options);

Expected<AlignedBytes> readFile(const std::string &Path);

/// The bytes between the model's _binary_constants_bin_start and
/// _binary_constants_bin_end symbols: the constants section AOTInductor
/// links into every model .so (model_base.h). It holds the weights when they
/// were exported into the .so; 8 bytes (the external blob's size) with
/// package_constants_on_disk_format="binary_blob"; 16 (size and magic) for
/// weights appended to the .so and mmap'd; 1 or 0 bytes when the weights
/// were left out. nullopt when the file defines neither symbol in either
/// symbol table (not a model AOTInductor generated, or stripped).
std::optional<uint64_t> embeddedConstantsSize(const std::string &SoPath);

/// The string value of a top-level key of a JSON object, if the text is a
/// JSON object and the key holds a string.
std::optional<std::string> jsonStringField(std::string_view Json,
                                           std::string_view Key);

/// Input dtypes and static shapes as declared by the check_input_<i>
/// functions AOTInductor generates into the wrapper source. One entry per
/// input found; best effort, for converting host data before upload.
std::vector<TensorSpec> declaredInputs(std::string_view WrapperSource);

/// Captures what is written to file descriptor 2 while alive. A model prints
/// its exception messages there ("Error: ...") before returning a failure
/// code; this is how they reach the error value. A model that crashes while
/// captured (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) gets what it wrote
/// copied to the real stderr first, so its last words are not lost.
class StderrCapture {
public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  /// Stops capturing and returns what was written.
  std::string finish();
  /// Stops capturing and writes what was captured to the real stderr.
  void replay();

private:
  int Saved = -1;
  int Sink = -1;
  bool Done = false;
  bool CrashHandlers = false;
};

} // namespace aoti::backend

#endif
