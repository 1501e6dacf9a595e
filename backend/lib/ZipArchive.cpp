//===- ZipArchive.cpp - Members of a zip archive --------------------------===//
#include "ZipArchive.h"

namespace aoti::backend {

ZipArchive::~ZipArchive() {
  if (Z)
    zip_discard(Z);
}

Status ZipArchive::open(const std::string &Path) {
  int Err = 0;
  Z = zip_open(Path.c_str(), ZIP_RDONLY, &Err);
  if (!Z) {
    zip_error_t E;
    zip_error_init_with_code(&E, Err);
    std::string Msg = Path + ": not a readable zip archive: " + zip_error_strerror(&E);
    zip_error_fini(&E);
    return Error(ErrorKind::NotAModel, Msg);
  }
  return Status::success();
}

zip_uint64_t ZipArchive::size() const {
  const zip_int64_t N = zip_get_num_entries(Z, 0);
  return N < 0 ? 0 : static_cast<zip_uint64_t>(N);
}

const char *ZipArchive::name(zip_uint64_t Index) const {
  return zip_get_name(Z, Index, 0);
}

Expected<AlignedBytes> ZipArchive::read(zip_uint64_t Index, const std::string &Name) {
  zip_stat_t St;
  if (zip_stat_index(Z, Index, 0, &St) != 0 || !(St.valid & ZIP_STAT_SIZE))
    return Error(ErrorKind::BadFile, Name + ": cannot stat in the archive");
  zip_file_t *F = zip_fopen_index(Z, Index, 0);
  if (!F)
    return Error(ErrorKind::BadFile, Name + ": cannot open in the archive: " +
                                         zip_strerror(Z));
  AlignedBytes Out(St.size);
  if (!Out.data()) {
    zip_fclose(F);
    return Error(ErrorKind::Io, Name + ": out of memory");
  }
  zip_int64_t Got = zip_fread(F, Out.data(), St.size);
  zip_fclose(F);
  if (Got < 0 || static_cast<zip_uint64_t>(Got) != St.size)
    return Error(ErrorKind::BadFile, Name + ": short read from the archive");
  return Out;
}

} // namespace aoti::backend
