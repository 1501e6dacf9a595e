//===- FileBytes.cpp - Whole files, aligned; formats ----------------------===//
#include "FileBytes.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace aoti::backend {

AlignedBytes::AlignedBytes(size_t N) : Size(N) {
  // aligned_alloc wants a multiple of the alignment; never zero bytes.
  const size_t Rounded = (N + 63) / 64 * 64;
  Data.reset(static_cast<std::byte *>(std::aligned_alloc(64, Rounded ? Rounded : 64)));
}

void AlignedBytes::Free::operator()(std::byte *P) const { std::free(P); }

Expected<AlignedBytes> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary | std::ios::ate);
  if (!In)
    return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
  const std::streamoff Size = In.tellg();
  if (Size < 0)
    return Error(ErrorKind::BadFile, Path + ": cannot tell its size");
  AlignedBytes Out(static_cast<size_t>(Size));
  if (!Out.data())
    return Error(ErrorKind::Io, Path + ": out of memory reading " + std::to_string(Size) + " bytes");
  In.seekg(0);
  In.read(reinterpret_cast<char *>(Out.data()), Size);
  if (In.gcount() != Size)
    return Error(ErrorKind::BadFile, Path + ": short read");
  return Out;
}

Expected<FileFormat> sniff(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
  char Head[4] = {};
  In.read(Head, 4);
  if (In.gcount() == 4 && std::memcmp(Head, "PK\x03\x04", 4) == 0)
    return FileFormat::Zip;
  if (In.gcount() == 4 && std::memcmp(Head, "\x7f" "ELF", 4) == 0)
    return FileFormat::Elf;
  return FileFormat::Other;
}

} // namespace aoti::backend
