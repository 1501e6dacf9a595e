//===- Package.h - Model libraries inside .pt2 packages ------------------===//
//
// `torch._inductor.aoti_compile_and_package` writes a .pt2: a zip whose model
// folders (data/aotinductor/<name>/, one per model) each hold a model's
// shared library next to its weights, metadata and kernels (Pt2Archive.h).
// The tools take a .pt2, or a directory of them, wherever they take a model
// .so: every model's library is read out of the zip into memory (never to a temporary file) and audited under the name
// "PACKAGE.pt2!path/inside.so".
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_PACKAGE_H
#define AOTI_AUDIT_PACKAGE_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

/// One model library to audit.
struct ModelLibrary {
  /// The path as given, or "PACKAGE!MEMBER" for a library inside a package.
  std::string DisplayPath;
  /// The package it came from and its path inside; both empty for a plain
  /// file.
  std::string Package;
  std::string Member;
  /// The model it is the library of (its folder under data/aotinductor/);
  /// empty for a plain file.
  std::string Model;
  /// The library, owning its bytes.
  std::unique_ptr<Binary> Bin;
};

/// The separator between a package and a member in DisplayPath.
constexpr char PackageMemberSeparator = '!';

/// A zip file ("PK\3\4"), as every .pt2 is.
bool isZipPackage(llvm::MemoryBufferRef Buffer);

/// Expands one model argument: a shared library is read as it is; a .pt2 (any
/// zip) gives every model's library, in the zip's order, and is an error
/// when it holds none; a directory gives the .pt2 packages under it (recursively,
/// sorted by path), and is an error when it holds none.
llvm::Expected<std::vector<ModelLibrary>>
readModelLibraries(llvm::StringRef Path, const ReadOptions &Opts = {});

} // namespace aoti::audit

#endif
