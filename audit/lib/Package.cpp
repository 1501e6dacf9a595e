//===- Package.cpp - Model libraries inside .pt2 packages ----------------===//
//
// A .pt2 is opened with libzip (as the backend's ZipArchive.cpp does) and each
// *.so member is inflated into an LLVM memory buffer that the resulting
// Binary owns: libObject reads from memory, so nothing is extracted to disk.
// A member's declared size is checked against a limit before it is
// allocated, so a hostile package cannot ask for an unbounded buffer.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Package.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <zip.h>

#include <algorithm>

using namespace llvm;

namespace aoti::audit {

namespace {

/// No real model library comes near this; a larger declared size is bad
/// input rather than a reason to allocate it.
constexpr uint64_t MaxMemberBytes = uint64_t(4) << 30;

class Zip {
public:
  ~Zip() {
    if (Z)
      zip_discard(Z);
  }
  Error open(StringRef Path) {
    int Err = 0;
    Z = zip_open(Path.str().c_str(), ZIP_RDONLY, &Err);
    if (Z)
      return Error::success();
    zip_error_t E;
    zip_error_init_with_code(&E, Err);
    std::string Msg = std::string("not a readable zip archive: ") + zip_error_strerror(&E);
    zip_error_fini(&E);
    return fileError(Path, Msg);
  }
  /// Member Index inflated into a buffer named Name.
  Expected<std::unique_ptr<MemoryBuffer>> read(zip_uint64_t Index,
                                               StringRef Name) {
    zip_stat_t St;
    zip_stat_init(&St);
    if (zip_stat_index(Z, Index, 0, &St) != 0 || !(St.valid & ZIP_STAT_SIZE))
      return fileError(Name, "cannot stat the member in its package");
    if (St.size > MaxMemberBytes)
      return fileError(Name, formatv("the member declares {0} bytes; a model "
                                     "library over {1} bytes is refused",
                                     St.size, MaxMemberBytes));
    zip_file_t *F = zip_fopen_index(Z, Index, 0);
    if (!F)
      return fileError(Name, Twine("cannot open the member: ") + zip_strerror(Z));
    auto Buf = WritableMemoryBuffer::getNewUninitMemBuffer(St.size, Name);
    if (!Buf) {
      zip_fclose(F);
      return fileError(Name, "out of memory");
    }
    zip_int64_t Got = St.size ? zip_fread(F, Buf->getBufferStart(), St.size) : 0;
    std::string FileErr = Got < 0 ? zip_file_strerror(F) : "";
    zip_fclose(F);
    if (Got < 0)
      return fileError(Name, "cannot inflate the member: " + FileErr);
    if (uint64_t(Got) != St.size)
      return fileError(Name, formatv("short read: {0} of {1} bytes", Got, St.size));
    return std::unique_ptr<MemoryBuffer>(std::move(Buf));
  }
  zip_t *Z = nullptr;
};

Error readPackage(StringRef Path, const ReadOptions &Opts,
                  std::vector<ModelLibrary> &Out) {
  Zip Z;
  if (Error E = Z.open(Path))
    return E;
  size_t Before = Out.size();
  zip_int64_t N = zip_get_num_entries(Z.Z, 0);
  for (zip_int64_t I = 0; I < N; ++I) {
    const char *Raw = zip_get_name(Z.Z, zip_uint64_t(I), 0);
    if (!Raw)
      continue;
    StringRef Member(Raw);
    if (!Member.ends_with(".so") || Member.ends_with("/"))
      continue;
    std::string Display =
        (Path + Twine(PackageMemberSeparator) + Member).str();
    auto Buf = Z.read(zip_uint64_t(I), Display);
    if (!Buf)
      return Buf.takeError();
    auto B = readBinaryFromBuffer((*Buf)->getMemBufferRef(), Display, Opts);
    if (!B)
      return B.takeError();
    (*B)->setBuffer(std::move(*Buf));
    Out.push_back({Display, Path.str(), Member.str(), std::move(*B)});
  }
  if (Out.size() == Before)
    return fileError(Path, "a zip without a *.so member: not an AOTInductor "
                           "package (aoti_compile_and_package writes the "
                           "model library under data/aotinductor/)");
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
  Out.push_back({Path.str(), "", "", std::move(*B)});
  return Out;
}

} // namespace aoti::audit
