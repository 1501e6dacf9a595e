//===- LdSoCache.cpp - Reading glibc's /etc/ld.so.cache -------------------===//
//
// The cache is glibc's own format, not ELF, so it is read here by hand. The
// layout (glibc sysdeps/generic/dl-cache.h):
//
//   new format, "glibc-ld.so.cache1.1":
//     char magic[20]; uint32 nlibs; uint32 len_strings; uint8 flags;
//     uint8 pad[3]; uint32 extension_offset; uint32 unused[3];
//     then nlibs entries { int32 flags; uint32 key; uint32 value;
//                          uint32 osversion; uint64 hwcap; }
//     key and value are offsets of NUL-terminated strings, counted from the
//     start of the new-format header.
//   old format, "ld.so-1.7.0": { char magic[11]; uint32 nlibs; } then nlibs
//     entries { int32 flags; uint32 key; uint32 value; }, optionally followed
//     (8-byte aligned) by a new-format table, which is what glibc reads.
//
// An entry is for this machine when its flags equal the loader's default id
// (FLAG_ELF_LIBC6 plus the machine's FLAG_*_LIB64 bits). Entries with a hwcap
// value describe glibc-hwcaps variants; the model keeps the plain entry.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/loader/Loader.h"
#include "aoti/audit/Error.h"
#include "aoti/audit/Reader.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace aoti::audit {

namespace {
constexpr StringLiteral NewMagic = "glibc-ld.so.cache1.1";
constexpr StringLiteral OldMagic = "ld.so-1.7.0";
constexpr size_t NewHeaderSize = 48;
constexpr size_t NewEntrySize = 24;
constexpr size_t OldHeaderSize = 16;
constexpr size_t OldEntrySize = 12;

constexpr int32_t FlagElfLibc6 = 0x0003;

std::optional<int32_t> cacheIdFor(const MachineId &M) {
  switch (M.Machine) {
  case ELF::EM_X86_64:
    return M.Is64 ? FlagElfLibc6 | 0x0300 : FlagElfLibc6 | 0x0800; // x32
  case ELF::EM_AARCH64:
    return FlagElfLibc6 | 0x0a00;
  case ELF::EM_386:
  case ELF::EM_ARM:
    return FlagElfLibc6;
  case ELF::EM_PPC64:
    return FlagElfLibc6 | 0x0500;
  case ELF::EM_S390:
    return FlagElfLibc6 | 0x0400;
  case ELF::EM_RISCV:
    return FlagElfLibc6 | 0x1000;
  default:
    return std::nullopt;
  }
}

} // namespace

Expected<StringMap<std::string>> readLdSoCache(StringRef Path,
                                               const MachineId &Machine) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  StringRef Data = (*Buf)->getBuffer();

  size_t Start = 0;
  if (Data.starts_with(OldMagic)) {
    if (Data.size() < OldHeaderSize)
      return fileError(Path, "truncated header");
    uint32_t N = support::endian::read32le(Data.data() + 12);
    uint64_t End = OldHeaderSize + uint64_t(N) * OldEntrySize;
    Start = alignTo(End, 8);
    if (Start >= Data.size() || !Data.drop_front(Start).starts_with(NewMagic))
      return fileError(Path, "old-format cache without a new-format table "
                              "(glibc has not read those since 2.32)");
  } else if (!Data.starts_with(NewMagic)) {
    return fileError(Path, "not an ld.so.cache file");
  }
  StringRef Table = Data.drop_front(Start);
  if (Table.size() < NewHeaderSize)
    return fileError(Path, "truncated header");
  uint32_t NLibs = support::endian::read32le(Table.data() + 20);
  if (uint64_t(NLibs) * NewEntrySize > Table.size() - NewHeaderSize)
    return fileError(Path, formatv("{0} entries do not fit in the file", NLibs));

  StringMap<std::string> Out;
  std::optional<int32_t> Want = cacheIdFor(Machine);
  if (!Want)
    return Out;
  auto StringAt = [&](uint32_t Off) -> std::optional<StringRef> {
    if (Off >= Table.size())
      return std::nullopt;
    StringRef S = Table.drop_front(Off);
    size_t Nul = S.find('\0');
    if (Nul == StringRef::npos)
      return std::nullopt;
    return S.take_front(Nul);
  };
  for (uint32_t I = 0; I != NLibs; ++I) {
    const char *E = Table.data() + NewHeaderSize + size_t(I) * NewEntrySize;
    int32_t Flags = int32_t(support::endian::read32le(E));
    uint32_t Key = support::endian::read32le(E + 4);
    uint32_t Value = support::endian::read32le(E + 8);
    uint64_t HwCap = support::endian::read64le(E + 16);
    if ((Flags != *Want && Flags != 1) || HwCap != 0)
      continue;
    auto K = StringAt(Key), V = StringAt(Value);
    if (!K || !V)
      return fileError(Path, formatv("entry {0} has a string offset past the "
                                      "end of the file",
                                      I));
    Out.try_emplace(*K, V->str()); // first entry wins, as in glibc
  }
  return Out;
}

} // namespace aoti::audit
