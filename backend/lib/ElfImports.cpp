//===- ElfImports.cpp - The dynamic symbols of an ELF shared object -------===//
//
// A deliberately small reader: 64-bit little-endian ELF, through the section
// headers (.dynsym and its string table, .gnu.version, .gnu.version_r,
// .dynamic). Every offset is bounds-checked against the file; a file this
// reader cannot make sense of is reported as such rather than guessed at.
//
//===----------------------------------------------------------------------===//
#include "DynamicImports.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>

namespace aoti::backend {

namespace {

class MappedFile {
public:
  ~MappedFile() {
    if (Data)
      munmap(const_cast<unsigned char *>(Data), Size);
  }
  Status open(const std::string &Path) {
    int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    if (Fd < 0)
      return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
    struct stat St;
    if (fstat(Fd, &St) != 0 || St.st_size == 0) {
      ::close(Fd);
      return Error(ErrorKind::NotAModel, Path + ": empty or unreadable file");
    }
    Size = static_cast<size_t>(St.st_size);
    void *P = mmap(nullptr, Size, PROT_READ, MAP_PRIVATE, Fd, 0);
    ::close(Fd);
    if (P == MAP_FAILED)
      return Error(ErrorKind::BadFile, Path + ": cannot map: " + std::strerror(errno));
    Data = static_cast<const unsigned char *>(P);
    return Status::success();
  }
  const unsigned char *Data = nullptr;
  size_t Size = 0;
};

class ElfView {
public:
  ElfView(const unsigned char *Bytes, size_t Size) : D(Bytes), N(Size) {}

  template <typename T> const T *at(uint64_t Off, uint64_t Count = 1) const {
    if (Off > N || Count > (N - Off) / sizeof(T))
      return nullptr;
    return reinterpret_cast<const T *>(D + Off);
  }
  std::optional<std::string_view> str(const Elf64_Shdr &Tab, uint64_t Off) const {
    if (Off >= Tab.sh_size || Tab.sh_offset > N || Tab.sh_size > N - Tab.sh_offset)
      return std::nullopt;
    const char *S = reinterpret_cast<const char *>(D + Tab.sh_offset + Off);
    size_t Max = Tab.sh_size - Off;
    size_t Len = strnlen(S, Max);
    if (Len == Max)
      return std::nullopt;
    return std::string_view(S, Len);
  }

private:
  const unsigned char *D;
  size_t N;
};

Error malformed(const std::string &Path, const std::string &What) {
  return Error(ErrorKind::NotAModel, Path + ": malformed ELF file: " + What);
}

} // namespace

Expected<DynamicImports> readDynamicImports(const std::string &Path) {
  MappedFile F;
  if (Status S = F.open(Path); !S)
    return S.takeError();
  if (F.Size < EI_NIDENT || std::memcmp(F.Data, ELFMAG, SELFMAG) != 0)
    return Error(ErrorKind::NotAModel, Path + ": not an ELF file");
  if (F.Data[EI_CLASS] != ELFCLASS64 || F.Data[EI_DATA] != ELFDATA2LSB)
    return Error(ErrorKind::NotAModel,
                 Path + ": only 64-bit little-endian ELF models are supported");
  ElfView V(F.Data, F.Size);
  const Elf64_Ehdr *Eh = V.at<Elf64_Ehdr>(0);
  if (!Eh)
    return malformed(Path, "truncated ELF header");
  if (Eh->e_type != ET_DYN)
    return Error(ErrorKind::NotAModel, Path + ": not a shared object (ELF type " +
                                           std::to_string(Eh->e_type) + ")");
  if (Eh->e_shentsize != sizeof(Elf64_Shdr) || Eh->e_shnum == 0)
    return malformed(Path, "no section headers");
  const Elf64_Shdr *Sh = V.at<Elf64_Shdr>(Eh->e_shoff, Eh->e_shnum);
  if (!Sh)
    return malformed(Path, "section headers run past the end of the file");

  const Elf64_Shdr *DynSym = nullptr, *VerSym = nullptr, *VerNeed = nullptr,
                   *Dynamic = nullptr;
  for (unsigned I = 0; I < Eh->e_shnum; ++I) {
    switch (Sh[I].sh_type) {
    case SHT_DYNSYM: DynSym = &Sh[I]; break;
    case SHT_GNU_versym: VerSym = &Sh[I]; break;
    case SHT_GNU_verneed: VerNeed = &Sh[I]; break;
    case SHT_DYNAMIC: Dynamic = &Sh[I]; break;
    default: break;
    }
  }
  if (!DynSym)
    return Error(ErrorKind::NotAModel, Path + ": has no dynamic symbol table");
  auto Link = [&](const Elf64_Shdr *S) -> const Elf64_Shdr * {
    return S->sh_link < Eh->e_shnum ? &Sh[S->sh_link] : nullptr;
  };

  DynamicImports R;

  // Version requirements: version index -> version name.
  std::map<uint16_t, std::string> VersionNames;
  if (VerNeed) {
    const Elf64_Shdr *Str = Link(VerNeed);
    if (!Str)
      return malformed(Path, ".gnu.version_r has no string table");
    uint64_t Off = VerNeed->sh_offset;
    for (uint64_t I = 0; I < VerNeed->sh_info; ++I) {
      const Elf64_Verneed *Vn = V.at<Elf64_Verneed>(Off);
      if (!Vn)
        return malformed(Path, "truncated .gnu.version_r");
      uint64_t AuxOff = Off + Vn->vn_aux;
      for (unsigned J = 0; J < Vn->vn_cnt; ++J) {
        const Elf64_Vernaux *Va = V.at<Elf64_Vernaux>(AuxOff);
        if (!Va)
          return malformed(Path, "truncated .gnu.version_r entry");
        if (std::optional<std::string_view> Name = V.str(*Str, Va->vna_name))
          VersionNames[Va->vna_other] = std::string(*Name);
        if (Va->vna_next == 0)
          break;
        AuxOff += Va->vna_next;
      }
      if (Vn->vn_next == 0)
        break;
      Off += Vn->vn_next;
    }
  }

  const Elf64_Shdr *DynStr = Link(DynSym);
  if (!DynStr || DynSym->sh_entsize != sizeof(Elf64_Sym))
    return malformed(Path, "bad .dynsym");
  const uint64_t NumSyms = DynSym->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *Syms = V.at<Elf64_Sym>(DynSym->sh_offset, NumSyms);
  if (!Syms)
    return malformed(Path, ".dynsym runs past the end of the file");
  const Elf64_Half *Versyms = nullptr;
  if (VerSym) {
    Versyms = V.at<Elf64_Half>(VerSym->sh_offset, NumSyms);
    if (!Versyms)
      return malformed(Path, ".gnu.version runs past the end of the file");
  }
  for (uint64_t I = 1; I < NumSyms; ++I) {
    const Elf64_Sym &S = Syms[I];
    std::optional<std::string_view> Name = V.str(*DynStr, S.st_name);
    if (!Name)
      return malformed(Path, "symbol name outside the string table");
    if (Name->empty())
      continue;
    const unsigned Bind = ELF64_ST_BIND(S.st_info);
    if (S.st_shndx == SHN_UNDEF) {
      ImportedSymbol Imp{std::string(*Name), "", Bind == STB_WEAK};
      if (Versyms) {
        auto It = VersionNames.find(Versyms[I] & 0x7FFF);
        if (It != VersionNames.end())
          Imp.Version = It->second;
      }
      R.Imports.push_back(std::move(Imp));
    } else if (Bind != STB_LOCAL &&
               ELF64_ST_VISIBILITY(S.st_other) != STV_HIDDEN &&
               ELF64_ST_VISIBILITY(S.st_other) != STV_INTERNAL) {
      R.Exports.emplace_back(*Name);
    }
  }

  if (Dynamic) {
    const Elf64_Shdr *Str = Link(Dynamic);
    const uint64_t Count = Dynamic->sh_size / sizeof(Elf64_Dyn);
    const Elf64_Dyn *Dyn = V.at<Elf64_Dyn>(Dynamic->sh_offset, Count);
    if (!Dyn || !Str)
      return malformed(Path, "bad .dynamic");
    for (uint64_t I = 0; I < Count && Dyn[I].d_tag != DT_NULL; ++I)
      if (Dyn[I].d_tag == DT_NEEDED)
        if (std::optional<std::string_view> Name = V.str(*Str, Dyn[I].d_un.d_val))
          R.Needed.emplace_back(*Name);
  }
  return R;
}

} // namespace aoti::backend
