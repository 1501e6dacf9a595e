//===- Package.cpp - Model libraries inside .pt2 packages ----------------===//
//
// A .pt2 is opened with Pt2Archive, the one package reader the audit shares
// with the backend, and each model's library (the *.so of every
// data/aotinductor/<model>/ folder) is inflated into an LLVM memory buffer
// that the resulting Binary owns: libObject reads from memory, so nothing is
// extracted to disk.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Package.h"

#include "aoti/audit/Error.h"
#include "aoti/audit/Pt2Archive.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace aoti::audit {

namespace {

Error readPackage(StringRef Path, const ReadOptions &Opts,
                  std::vector<ModelLibrary> &Out) {
  auto A = Pt2Archive::open(Path);
  if (!A)
    return A.takeError();
  size_t Before = Out.size();
  for (const Pt2Archive::Model &M : (*A)->models())
    for (size_t L : M.Libraries) {
      const Pt2Archive::Member &Member = (*A)->members()[L];
      std::string Display = (*A)->displayName(Member);
      auto Buf = (*A)->read(Member);
      if (!Buf)
        return Buf.takeError();
      auto B = readBinaryFromBuffer((*Buf)->getMemBufferRef(), Display, Opts);
      if (!B)
        return B.takeError();
      (*B)->setBuffer(std::move(*Buf));
      Out.push_back({Display, Path.str(), Member.Name, M.Name, std::move(*B)});
    }
  if (Out.size() == Before)
    return fileError(Path, "a zip without a data/aotinductor/<model>/*.so member: not an "
                           "AOTInductor package (aoti_compile_and_package writes the "
                           "model library there)");
  return Error::success();
}

} // namespace

bool isZipPackage(MemoryBufferRef Buffer) {
  return Buffer.getBuffer().starts_with(StringRef("PK\x03\x04", 4));
}

Expected<std::vector<ModelLibrary>>
readModelLibraries(StringRef Path, const ReadOptions &Opts) {
  std::vector<ModelLibrary> Out;
  if (sys::fs::is_directory(Path)) {
    std::vector<std::string> Packages;
    std::error_code EC;
    for (sys::fs::recursive_directory_iterator It(Path, EC), End;
         It != End && !EC; It.increment(EC))
      if (StringRef(It->path()).ends_with(".pt2") &&
          sys::fs::is_regular_file(It->path()))
        Packages.push_back(It->path());
    if (EC)
      return fileError(Path, "cannot list the directory: " + EC.message());
    if (Packages.empty())
      return fileError(Path, "a directory without a .pt2 package (give model "
                             ".so files by name)");
    llvm::sort(Packages);
    for (const std::string &P : Packages)
      if (Error E = readPackage(P, Opts, Out))
        return E;
    return Out;
  }
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  if (isZipPackage((*Buf)->getMemBufferRef())) {
    if (Error E = readPackage(Path, Opts, Out))
      return E;
    return Out;
  }
  auto B = readBinaryFromBuffer((*Buf)->getMemBufferRef(), Path.str(), Opts);
  if (!B)
    return B.takeError();
  (*B)->setBuffer(std::move(*Buf));
  Out.push_back({Path.str(), "", "", "", std::move(*B)});
  return Out;
}

} // namespace aoti::audit
