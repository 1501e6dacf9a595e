//===- ZipArchive.h - Members of a zip archive ------------------*- C++ -*-===//
//
// A .pt2 package is a zip archive; libzip reads it. Only ModelFiles.cpp
// opens one.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_ZIPARCHIVE_H
#define AOTI_BACKEND_LIB_ZIPARCHIVE_H

#include "FileBytes.h"

#include "aoti/backend/Error.h"

#include <zip.h>

#include <string>

namespace aoti::backend {

/// A zip archive open for reading, closed (discarded) on destruction.
class ZipArchive {
public:
  ZipArchive() = default;
  ZipArchive(const ZipArchive &) = delete;
  ZipArchive &operator=(const ZipArchive &) = delete;
  ~ZipArchive();
  Status open(const std::string &Path);
  /// How many members the archive has; they are numbered from 0.
  zip_uint64_t size() const;
  /// The name of member Index, or null when libzip cannot tell it.
  const char *name(zip_uint64_t Index) const;
  /// The bytes of member Index; Name is for messages.
  Expected<AlignedBytes> read(zip_uint64_t Index, const std::string &Name);

private:
  zip_t *Z = nullptr;
};

} // namespace aoti::backend

#endif
