//===- Pt2Archive.h - A .pt2 package: its members and its models -*- C++ -*-===//
//
// The one reader of .pt2 packages, for the audit and the backend alike.
//
// torch's package_aoti() writes a zip laid out as
//
//   <root>/data/aotinductor/<model>/<hash>.so   the model library
//   <root>/data/aotinductor/<model>/...         its metadata, weights, cubins,
//                                               generated sources
//   <root>/data/weights/...                     pickled weights, when asked
//
// where <root> is named after the file the package was first saved as (and
// may be absent in hand-made zips), and one package may hold several models
// (package_aoti(path, {"prefill": ..., "decode": ...})). Open() lists the
// members once; models() groups them into model folders, each with its one
// library; read() inflates a member into memory the caller gives or into an
// LLVM buffer. Nothing is extracted to disk here.
//
// A member's declared size is checked before any memory is allocated: a
// stored member must declare exactly its compressed size and a deflated one
// at most what deflate can produce from its compressed bytes (1032:1), so a
// hostile package cannot ask for an unbounded buffer; libzip then checks
// each member's CRC as it is read.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_PT2ARCHIVE_H
#define AOTI_AUDIT_PT2ARCHIVE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

/// The folder of every model inside a package's root.
inline constexpr llvm::StringLiteral Pt2ModelsFolder = "data/aotinductor/";
/// The model torch's loaders open when none is named.
inline constexpr llvm::StringLiteral Pt2DefaultModel = "model";

class Pt2Archive {
public:
  struct Member {
    /// The member's index in the zip.
    uint64_t Index = 0;
    /// Its full name ("root/data/aotinductor/model/x.so").
    std::string Name;
    /// Its size once inflated, as the zip declares (and read() checks).
    uint64_t Size = 0;
  };

  /// One folder <root>/data/aotinductor/<name>/.
  struct Model {
    std::string Name;
    /// The folder's name in the zip, ending in '/'.
    std::string Folder;
    /// The members directly in that folder, in the zip's order, as indices
    /// into members().
    std::vector<size_t> Files;
    /// The model library among them (the one *.so); npos when the folder has
    /// none, and Libraries lists every one when it has several.
    size_t Library = npos;
    std::vector<size_t> Libraries;

    static constexpr size_t npos = ~size_t(0);
    /// A member's name inside the folder ("x.so").
    llvm::StringRef fileName(const Pt2Archive &A, size_t File) const;
  };

  /// Opens the zip at Path and lists its members; an error names Path.
  static llvm::Expected<std::unique_ptr<Pt2Archive>> open(llvm::StringRef Path);
  ~Pt2Archive();
  Pt2Archive(const Pt2Archive &) = delete;
  Pt2Archive &operator=(const Pt2Archive &) = delete;

  const std::string &path() const { return Path; }
  llvm::ArrayRef<Member> members() const { return Members; }
  /// Every model folder, in the order their first member appears.
  llvm::ArrayRef<Model> models() const { return Models; }
  /// The model folder named Name, or null.
  const Model *model(llvm::StringRef Name) const;
  /// The models' names, comma-separated, for messages ("decode, prefill").
  std::string modelNames() const;
  /// The package keeps its weights under <root>/data/weights/, as
  /// package_constants_on_disk_format="pickle_weights" writes them.
  bool hasPickledWeights() const { return PickledWeights; }

  /// "PATH!MEMBER", the name the tools give a member in messages.
  std::string displayName(const Member &M) const;
  /// Inflates M into Out, which must hold exactly M.Size bytes.
  llvm::Error readInto(const Member &M, llvm::MutableArrayRef<char> Out) const;
  /// Inflates M into a new buffer named displayName(M), aligned to 64 bytes.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read(const Member &M) const;

private:
  Pt2Archive() = default;
  llvm::Error checkDeclaredSize(const Member &M) const;

  std::string Path;
  struct ZipHandle;
  std::unique_ptr<ZipHandle> Zip;
  std::vector<Member> Members;
  std::vector<Model> Models;
  bool PickledWeights = false;
};

} // namespace aoti::audit

#endif // AOTI_AUDIT_PT2ARCHIVE_H
