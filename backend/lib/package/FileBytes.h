//===- FileBytes.h - Whole files, aligned; formats --------------*- C++ -*-===//
//
// Files read whole into 64-byte-aligned memory (a weights blob may be used
// in place), and the first bytes that tell a package from a shared object.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_FILEBYTES_H
#define AOTI_BACKEND_LIB_FILEBYTES_H

#include "aoti/backend/Error.h"

#include <cstddef>
#include <memory>
#include <string>

namespace aoti::backend {

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

Expected<AlignedBytes> readFile(const std::string &Path);

enum class FileFormat { Zip, Elf, Other };
Expected<FileFormat> sniff(const std::string &Path);

} // namespace aoti::backend

#endif
