//===- ElfReader.cpp - ELF files into the binary model --------------------===//
//
// Reads what the dynamic loader reads: the program headers (PT_INTERP,
// PT_DYNAMIC), the dynamic section (needed libraries, soname, search paths,
// flags), the dynamic symbol table and its version sections. The static symbol
// table is read only when someone asks (to explain a missing symbol).
//
// The dynamic string table is located through DT_STRTAB, the way ld.so finds
// it, so a file whose section headers lie about .dynstr still reads the way it
// loads. Symbol tables are read through their section headers, as libObject
// (and every tool but the loader) does.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Reader.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {
namespace {

Error fileError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "%s: %s",
                           Path.str().c_str(), Msg.str().c_str());
}

Error fileError(StringRef Path, Error E) {
  std::string Msg = toString(std::move(E));
  return fileError(Path, Msg);
}

SymbolBinding binding(uint8_t B) {
  switch (B) {
  case ELF::STB_LOCAL: return SymbolBinding::Local;
  case ELF::STB_WEAK: return SymbolBinding::Weak;
  case ELF::STB_GNU_UNIQUE: return SymbolBinding::Unique;
  default: return SymbolBinding::Global;
  }
}

SymbolVisibility visibility(uint8_t Other) {
  switch (Other & 0x3) {
  case ELF::STV_PROTECTED: return SymbolVisibility::Protected;
  case ELF::STV_HIDDEN: return SymbolVisibility::Hidden;
  case ELF::STV_INTERNAL: return SymbolVisibility::Internal;
  default: return SymbolVisibility::Default;
  }
}

SymbolType type(uint8_t T, uint16_t Shndx) {
  if (Shndx == ELF::SHN_COMMON)
    return SymbolType::Common;
  switch (T) {
  case ELF::STT_NOTYPE: return SymbolType::NoType;
  case ELF::STT_FUNC: return SymbolType::Function;
  case ELF::STT_OBJECT: return SymbolType::Object;
  case ELF::STT_GNU_IFUNC: return SymbolType::IFunc;
  case ELF::STT_TLS: return SymbolType::TLS;
  case ELF::STT_COMMON: return SymbolType::Common;
  case ELF::STT_SECTION: return SymbolType::Section;
  case ELF::STT_FILE: return SymbolType::File;
  default: return SymbolType::Other;
  }
}

template <class ELFT>
Symbol makeSymbol(const typename ELFT::Sym &S, StringRef Name) {
  Symbol Out;
  Out.Name = Name;
  Out.Binding = binding(S.getBinding());
  Out.Visibility = visibility(S.st_other);
  Out.Type = type(S.getType(), S.st_shndx);
  Out.Defined = S.st_shndx != ELF::SHN_UNDEF;
  return Out;
}

/// Reads one symbol table section; symbol 0 (the null symbol) is skipped.
template <class ELFT>
Error readSymbolTable(const ELFFile<ELFT> &Obj, const typename ELFT::Shdr &Sec,
                      std::vector<Symbol> &Out) {
  auto Syms = Obj.symbols(&Sec);
  if (!Syms)
    return Syms.takeError();
  auto StrTab = Obj.getStringTableForSymtab(Sec);
  if (!StrTab)
    return StrTab.takeError();
  Out.reserve(Syms->size());
  bool First = true;
  for (const auto &S : *Syms) {
    if (First) {
      First = false;
      continue;
    }
    auto Name = S.getName(*StrTab);
    if (!Name)
      return Name.takeError();
    Out.push_back(makeSymbol<ELFT>(S, *Name));
  }
  return Error::success();
}

template <class ELFT> class ElfStaticSymbols final : public StaticSymbolSource {
public:
  ElfStaticSymbols(ELFFile<ELFT> Obj, const typename ELFT::Shdr *Sec)
      : Obj(Obj), Sec(Sec) {}
  void load(const Binary &, std::vector<Symbol> &Out) const override {
    // A broken .symtab only costs explanations; what the loader sees was
    // already validated. Keep what was read before the damage.
    consumeError(readSymbolTable(Obj, *Sec, Out));
  }

private:
  ELFFile<ELFT> Obj;
  const typename ELFT::Shdr *Sec;
};

/// libObject's version structs may carry the rest of the string table after
/// the name; the name ends at the first NUL.
StringRef cString(const std::string &S) {
  return StringRef(S).take_until([](char C) { return C == 0; });
}

std::vector<StringRef> splitPath(Binary &B, StringRef List) {
  std::vector<StringRef> Out;
  SmallVector<StringRef, 4> Parts;
  List.split(Parts, ':', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts)
    Out.push_back(B.save(P));
  return Out;
}

template <class ELFT>
Expected<std::unique_ptr<Binary>> readELFT(MemoryBufferRef Buffer,
                                           std::string DisplayPath) {
  using Elf_Shdr = typename ELFT::Shdr;
  auto ObjOrErr = ELFFile<ELFT>::create(Buffer.getBuffer());
  if (!ObjOrErr)
    return fileError(DisplayPath, ObjOrErr.takeError());
  const ELFFile<ELFT> &Obj = *ObjOrErr;
  const auto &Hdr = Obj.getHeader();

  auto B = std::make_unique<Binary>(DisplayPath, BinaryFormat::ELF);
  B->Machine = {Hdr.e_machine, ELFT::Is64Bits,
                ELFT::Endianness == llvm::endianness::little};
  B->ArchName = ELF::convertEMachineToArchName(Hdr.e_machine).str();
  if (B->ArchName == "x86-64")
    B->ArchName = "x86_64";

  auto Sections = Obj.sections();
  if (!Sections)
    return fileError(DisplayPath, Sections.takeError());
  auto Phdrs = Obj.program_headers();
  if (!Phdrs)
    return fileError(DisplayPath, Phdrs.takeError());

  bool HasInterp = false;
  for (const auto &P : *Phdrs) {
    if (P.p_type != ELF::PT_INTERP)
      continue;
    HasInterp = true;
    if (P.p_offset + P.p_filesz > Buffer.getBufferSize() || P.p_filesz == 0)
      return fileError(DisplayPath, "PT_INTERP points past the end of the file");
    StringRef Interp(Buffer.getBufferStart() + P.p_offset, P.p_filesz);
    B->Interpreter = B->save(Interp.take_until([](char C) { return C == 0; }));
  }

  // --- dynamic section ------------------------------------------------------
  uint64_t Flags = 0, Flags1 = 0;
  if (Hdr.e_type != ELF::ET_REL) {
    auto Dyn = Obj.dynamicEntries();
    if (!Dyn)
      return fileError(DisplayPath, Dyn.takeError());
    uint64_t StrTabAddr = 0, StrSz = 0;
    bool HaveStrTab = false;
    for (const auto &D : *Dyn) {
      if (D.d_tag == ELF::DT_STRTAB) {
        StrTabAddr = D.getPtr();
        HaveStrTab = true;
      } else if (D.d_tag == ELF::DT_STRSZ) {
        StrSz = D.getVal();
      }
    }
    StringRef DynStr;
    if (HaveStrTab) {
      auto Mapped = Obj.toMappedAddr(StrTabAddr);
      if (!Mapped)
        return fileError(DisplayPath, Mapped.takeError());
      const char *Start = reinterpret_cast<const char *>(*Mapped);
      const char *End = Buffer.getBufferEnd();
      if (Start < Buffer.getBufferStart() || Start >= End ||
          StrSz > uint64_t(End - Start))
        return fileError(DisplayPath,
                         "DT_STRTAB/DT_STRSZ point past the end of the file");
      DynStr = StringRef(Start, StrSz);
    }
    auto DynString = [&](uint64_t Off) -> Expected<StringRef> {
      if (Off >= DynStr.size())
        return fileError(DisplayPath,
                         formatv("dynamic string offset {0} is out of range "
                                 "(DT_STRSZ is {1})",
                                 Off, DynStr.size()));
      return DynStr.drop_front(Off).take_until([](char C) { return C == 0; });
    };
    for (const auto &D : *Dyn) {
      switch (D.d_tag) {
      case ELF::DT_NEEDED:
      case ELF::DT_SONAME:
      case ELF::DT_RPATH:
      case ELF::DT_RUNPATH: {
        auto S = DynString(D.getVal());
        if (!S)
          return S.takeError();
        if (D.d_tag == ELF::DT_NEEDED)
          B->Deps.push_back({*S, Dependency::Kind::Needed});
        else if (D.d_tag == ELF::DT_SONAME)
          B->SoName = *S;
        else if (D.d_tag == ELF::DT_RPATH)
          B->RPath = splitPath(*B, *S);
        else
          B->RunPath = splitPath(*B, *S);
        break;
      }
      case ELF::DT_FLAGS:
        Flags = D.getVal();
        break;
      case ELF::DT_FLAGS_1:
        Flags1 = D.getVal();
        break;
      default:
        break;
      }
    }
  }
  B->NoDefaultLib = Flags1 & ELF::DF_1_NODEFLIB;
  B->BindNow = (Flags & ELF::DF_BIND_NOW) || (Flags1 & ELF::DF_1_NOW);

  switch (Hdr.e_type) {
  case ELF::ET_EXEC:
    B->Kind = FileKind::Executable;
    break;
  case ELF::ET_DYN:
    // A PIE is ET_DYN too. Modern linkers mark it DF_1_PIE; older ones are
    // told apart by an interpreter and no soname (libc.so.6 has PT_INTERP
    // but also a soname).
    B->Kind = (Flags1 & ELF::DF_1_PIE) || (HasInterp && B->SoName.empty())
                  ? FileKind::Executable
                  : FileKind::SharedLibrary;
    break;
  case ELF::ET_REL:
    B->Kind = FileKind::Relocatable;
    break;
  default:
    B->Kind = FileKind::Other;
    break;
  }

  // --- symbol tables and versions ------------------------------------------
  const Elf_Shdr *DynSymSec = nullptr, *SymTabSec = nullptr,
                 *VerSymSec = nullptr, *VerDefSec = nullptr,
                 *VerNeedSec = nullptr;
  for (const Elf_Shdr &S : *Sections) {
    switch (S.sh_type) {
    case ELF::SHT_DYNSYM: DynSymSec = &S; break;
    case ELF::SHT_SYMTAB: SymTabSec = &S; break;
    case ELF::SHT_GNU_versym: VerSymSec = &S; break;
    case ELF::SHT_GNU_verdef: VerDefSec = &S; break;
    case ELF::SHT_GNU_verneed: VerNeedSec = &S; break;
    default: break;
    }
  }

  if (DynSymSec)
    if (Error E = readSymbolTable(Obj, *DynSymSec, B->DynSyms))
      return fileError(DisplayPath, std::move(E));

  // Version index -> (name, file it is required from, is a definition).
  struct VersionSlot {
    StringRef Name, File;
    bool Known = false;
  };
  std::vector<VersionSlot> Slots;
  auto Slot = [&](unsigned N) -> VersionSlot & {
    if (N >= Slots.size())
      Slots.resize(N + 1);
    return Slots[N];
  };
  if (VerDefSec) {
    auto Defs = Obj.getVersionDefinitions(*VerDefSec);
    if (!Defs)
      return fileError(DisplayPath, Defs.takeError());
    for (const VerDef &D : *Defs) {
      StringRef Name = B->save(cString(D.Name));
      bool IsBase = D.Flags & ELF::VER_FLG_BASE;
      B->VerDefs.push_back({Name, IsBase});
      VersionSlot &S = Slot(D.Ndx & ELF::VERSYM_VERSION);
      // The base node names the file; symbols at that index are unversioned.
      if (!IsBase)
        S.Name = Name;
      S.Known = true;
    }
  }
  if (VerNeedSec) {
    auto Needs = Obj.getVersionDependencies(*VerNeedSec);
    if (!Needs)
      return fileError(DisplayPath, Needs.takeError());
    for (const VerNeed &N : *Needs) {
      VersionRequirement R;
      R.File = B->save(cString(N.File));
      for (const VernAux &A : N.AuxV) {
        StringRef Name = B->save(cString(A.Name));
        R.Versions.push_back({Name, bool(A.Flags & ELF::VER_FLG_WEAK)});
        VersionSlot &S = Slot(A.Other & ELF::VERSYM_VERSION);
        S.Name = Name;
        S.File = R.File;
        S.Known = true;
      }
      B->VerNeeds.push_back(std::move(R));
    }
  }
  if (VerSymSec && DynSymSec) {
    B->HasVersions = true;
    auto Data = Obj.template getSectionContentsAsArray<uint16_t>(*VerSymSec);
    if (!Data)
      return fileError(DisplayPath, Data.takeError());
    // versym[0] belongs to the null symbol we skipped.
    if (Data->size() < B->DynSyms.size() + 1)
      return fileError(DisplayPath,
                       formatv(".gnu.version has {0} entries for {1} dynamic "
                               "symbols",
                               Data->size(), B->DynSyms.size() + 1));
    for (size_t I = 0, E = B->DynSyms.size(); I != E; ++I) {
      uint16_t V = (*Data)[I + 1];
      unsigned Ndx = V & ELF::VERSYM_VERSION;
      if (Ndx <= ELF::VER_NDX_GLOBAL)
        continue;
      if (Ndx >= Slots.size() || !Slots[Ndx].Known)
        return fileError(DisplayPath,
                         formatv("dynamic symbol {0} has version index {1}, "
                                 "which no version section defines",
                                 I + 1, Ndx));
      Symbol &S = B->DynSyms[I];
      S.Version = Slots[Ndx].Name;
      S.SourceLibrary = Slots[Ndx].File;
      S.VersionHidden = (V & ELF::VERSYM_HIDDEN) != 0;
    }
  }

  if (SymTabSec)
    B->setStaticSymbolSource(
        std::make_unique<ElfStaticSymbols<ELFT>>(Obj, SymTabSec), true);
  return B;
}

} // namespace

Expected<std::unique_ptr<Binary>> readELF(MemoryBufferRef Buffer,
                                          std::string DisplayPath) {
  auto [Class, Data] = getElfArchType(Buffer.getBuffer());
  if (Class == ELF::ELFCLASS64 && Data == ELF::ELFDATA2LSB)
    return readELFT<ELF64LE>(Buffer, std::move(DisplayPath));
  if (Class == ELF::ELFCLASS32 && Data == ELF::ELFDATA2LSB)
    return readELFT<ELF32LE>(Buffer, std::move(DisplayPath));
  if (Class == ELF::ELFCLASS64 && Data == ELF::ELFDATA2MSB)
    return readELFT<ELF64BE>(Buffer, std::move(DisplayPath));
  if (Class == ELF::ELFCLASS32 && Data == ELF::ELFDATA2MSB)
    return readELFT<ELF32BE>(Buffer, std::move(DisplayPath));
  return fileError(DisplayPath, "unknown ELF class or data encoding");
}

} // namespace aoti::audit::detail
