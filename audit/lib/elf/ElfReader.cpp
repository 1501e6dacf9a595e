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
#include "Elf.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {
namespace {

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
  Out.Value = S.st_value;
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
    size_t Base = Out.size();
    consumeError(readSymbolTable(Obj, *Sec, Out));
    if (Obj.getHeader().e_type == ELF::ET_REL)
      consumeError(addComdatSignatures(Out, Base)); // without: no dedup
  }

private:
  /// Symbol::Comdat of every definition in a section of a COMDAT group. A
  /// group section lists its member sections after a flag word; its
  /// signature is the name of the symbol sh_info names in the table sh_link
  /// names (this .symtab, in every object a compiler writes).
  Error addComdatSignatures(std::vector<Symbol> &Out, size_t Base) const {
    auto Sections = Obj.sections();
    if (!Sections)
      return Sections.takeError();
    auto Syms = Obj.symbols(Sec);
    if (!Syms)
      return Syms.takeError();
    auto StrTab = Obj.getStringTableForSymtab(*Sec);
    if (!StrTab)
      return StrTab.takeError();
    DenseMap<uint32_t, StringRef> GroupOf; // section index -> signature
    for (const auto &G : *Sections) {
      if (G.sh_type != ELF::SHT_GROUP ||
          G.sh_link >= Sections->size() || &(*Sections)[G.sh_link] != Sec)
        continue;
      auto Words = Obj.template getSectionContentsAsArray<
          typename ELFT::Word>(G);
      if (!Words)
        return Words.takeError();
      if (Words->empty() || !((*Words)[0] & ELF::GRP_COMDAT) ||
          G.sh_info == 0 || G.sh_info >= Syms->size())
        continue;
      auto Signature = (*Syms)[G.sh_info].getName(*StrTab);
      if (!Signature)
        return Signature.takeError();
      for (uint32_t Member : Words->drop_front())
        GroupOf[Member] = *Signature;
    }
    if (GroupOf.empty())
      return Error::success();
    // Out[Base..] holds the table minus the null symbol, in order
    // (readSymbolTable), or a prefix of it when the table is damaged.
    for (size_t I = 1; I < Syms->size() && Base + I - 1 < Out.size(); ++I) {
      const auto &S = (*Syms)[I];
      if (S.st_shndx == ELF::SHN_UNDEF || S.st_shndx >= ELF::SHN_LORESERVE)
        continue;
      auto It = GroupOf.find(S.st_shndx);
      if (It != GroupOf.end())
        Out[Base + I - 1].Comdat = It->second;
    }
    return Error::success();
  }

  ELFFile<ELFT> Obj;
  const typename ELFT::Shdr *Sec;
};

struct VersionSlot {
  StringRef Name, File;
  bool Known = false;
  /// What ld.so's l_versions[index] holds: vd_hash (never the base node's)
  /// or vna_hash, and vna_other's hidden bit.
  uint32_t Hash = 0;
  bool RequirementHidden = false;
};

/// .dynsym, read lazily. Construction validates what every later read relies
/// on (name offsets, version indices, hash table bounds), so the lazy reads
/// cannot fail. Lookups walk .gnu.hash (or .hash) the way ld.so does and touch
/// only the chain of the name looked up.
template <class ELFT> class ElfDynamicSymbols final : public DynamicSymbolSource {
  using Elf_Sym = typename ELFT::Sym;
  using Elf_Shdr = typename ELFT::Shdr;
  using Elf_Word = typename ELFT::Word;
  using Elf_Off = typename ELFT::Off;

public:
  static Expected<std::unique_ptr<ElfDynamicSymbols>>
  create(const ELFFile<ELFT> &Obj, const Elf_Shdr &DynSym,
         const Elf_Shdr *VerSym, std::vector<VersionSlot> Slots,
         const Elf_Shdr *SectionsBegin, size_t NumSections) {
    std::unique_ptr<ElfDynamicSymbols> T(new ElfDynamicSymbols());
    auto Syms = Obj.symbols(&DynSym);
    if (!Syms)
      return Syms.takeError();
    auto StrTab = Obj.getStringTableForSymtab(DynSym);
    if (!StrTab)
      return StrTab.takeError();
    T->Syms = *Syms;
    T->StrTab = *StrTab;
    T->Slots = std::move(Slots);
    for (size_t I = 1; I < T->Syms.size(); ++I)
      if (T->Syms[I].st_name >= T->StrTab.size())
        return makeError(formatv("dynamic symbol {0} has name offset {1} past "
                                 "the end of its string table ({2} bytes)",
                                 I, unsigned(T->Syms[I].st_name),
                                 T->StrTab.size()));
    if (VerSym) {
      auto Data = Obj.template getSectionContentsAsArray<uint16_t>(*VerSym);
      if (!Data)
        return Data.takeError();
      if (Data->size() < T->Syms.size())
        return makeError(formatv(".gnu.version has {0} entries for {1} "
                                 "dynamic symbols",
                                 Data->size(), T->Syms.size()));
      T->VerSym = *Data;
      for (size_t I = 1; I < T->Syms.size(); ++I) {
        unsigned Ndx = T->VerSym[I] & ELF::VERSYM_VERSION;
        if (Ndx > ELF::VER_NDX_GLOBAL &&
            (Ndx >= T->Slots.size() || !T->Slots[Ndx].Known))
          return makeError(formatv("dynamic symbol {0} has version index {1}, "
                                   "which no version section defines",
                                   I, Ndx));
      }
    }
    // A hash section libObject cannot read is skipped (lookups then scan the
    // table); one that reads but would send ld.so out of bounds is refused.
    ArrayRef<Elf_Shdr> Sections(SectionsBegin, NumSections);
    for (const Elf_Shdr &S : Sections) {
      if (S.sh_type != ELF::SHT_GNU_HASH && S.sh_type != ELF::SHT_HASH)
        continue;
      auto Bytes = Obj.getSectionContents(S);
      if (!Bytes) {
        consumeError(Bytes.takeError());
        continue;
      }
      // ld.so walks this table without checking it: a file whose table does
      // not fit cannot be loaded safely, so it is bad input, not a fallback.
      if (S.sh_type == ELF::SHT_GNU_HASH) {
        if (Error E = T->setGnuHash(*Bytes))
          return E;
      } else if (!T->Gnu && !T->setSysVHash(*Bytes)) {
        return makeError(".hash does not fit its section or names symbols "
                         "past the end of .dynsym");
      }
    }
    return T;
  }

  void loadAll(std::vector<Symbol> &Out) const override {
    Out.reserve(Syms.size());
    for (size_t I = 1; I < Syms.size(); ++I)
      Out.push_back(make(I));
  }

  bool hasHashTable() const override { return Gnu || SysV; }

  void lookup(StringRef Name, std::vector<Symbol> &Out) const override {
    uint32_t N = Syms.size();
    if (Gnu) {
      uint32_t H = hashGnu(Name);
      // do_lookup_x tests the bloom filter first and walks no chain when
      // either bit is clear: a name the filter rejects is not found.
      constexpr unsigned Bits = sizeof(Elf_Off) * 8; // __ELF_NATIVE_CLASS
      uint64_t Word = GnuBloom[(H / Bits) & (GnuBloom.size() - 1)];
      uint64_t Bit1 = H & (Bits - 1), Bit2 = (uint64_t(H) >> GnuShift) & (Bits - 1);
      if (!((Word >> Bit1) & (Word >> Bit2) & 1))
        return;
      uint32_t I = GnuBuckets[H % GnuBuckets.size()];
      if (I == 0 || I < GnuSymNdx) // 0 is an empty bucket, as in ld.so
        return;
      for (; I - GnuSymNdx < GnuValues.size(); ++I) {
        uint32_t V = GnuValues[I - GnuSymNdx];
        if ((V | 1) == (H | 1) && nameAt(I) == Name)
          Out.push_back(make(I));
        if (V & 1)
          break;
      }
      return;
    }
    uint32_t Steps = 0;
    for (uint32_t I = SysVBuckets[hashSysV(Name) % SysVBuckets.size()];
         I != 0 && I < N && Steps++ < N; I = SysVChains[I])
      if (Syms[I].st_shndx != ELF::SHN_UNDEF && nameAt(I) == Name)
        Out.push_back(make(I));
  }

private:
  ElfDynamicSymbols() = default;

  StringRef nameAt(size_t I) const {
    return StrTab.drop_front(Syms[I].st_name).take_until([](char C) {
      return C == 0;
    });
  }

  Symbol make(size_t I) const {
    Symbol S = makeSymbol<ELFT>(Syms[I], nameAt(I));
    if (!VerSym.empty()) {
      uint16_t V = VerSym[I];
      unsigned Ndx = V & ELF::VERSYM_VERSION;
      S.VersionIndex = Ndx;
      if (Ndx > ELF::VER_NDX_GLOBAL) {
        S.Version = Slots[Ndx].Name;
        S.SourceLibrary = Slots[Ndx].File;
        S.VersionHash = Slots[Ndx].Hash;
        S.VersionHidden = S.Defined ? (V & ELF::VERSYM_HIDDEN) != 0
                                    : Slots[Ndx].RequirementHidden;
      }
    }
    return S;
  }

  template <typename T> static ArrayRef<T> words(ArrayRef<uint8_t> B, size_t Off, size_t N) {
    return ArrayRef<T>(reinterpret_cast<const T *>(B.data() + Off), N);
  }

  /// The chain array has no length of its own: ld.so walks it from a bucket
  /// until an entry with the low bit set. A linker may emit fewer entries than
  /// .dynsym has symbols past symoffset (ld.bfd does, for an executable whose
  /// only dynamic symbols are undefined), so what must hold is that every
  /// bucket starts a chain that ends, inside the section and .dynsym. Such a
  /// chain exists from index J exactly when some entry at or after J ends one,
  /// so one pass for the last terminator checks every bucket.
  ///
  /// The bloom filter comes before the buckets: ld.so masks the word index
  /// with maskwords - 1 and shifts the hash right by the table's shift,
  /// neither checked when the file is mapped. A shift of the bits of a word
  /// or more (the hash is an ElfW(Addr)-sized value there) is undefined in C;
  /// glibc on x86-64 then tests bit 0 of the word twice, and so misses
  /// nearly every name the table holds: the file's exports cannot be bound
  /// through it, and the file is refused (docs/robustness.md).
  Error setGnuHash(ArrayRef<uint8_t> B) {
    auto DoesNotFit = [] {
      return makeError(".gnu.hash does not fit its section or names symbols "
                       "past the end of .dynsym");
    };
    if (B.size() < 16 || reinterpret_cast<uintptr_t>(B.data()) % alignof(Elf_Off))
      return DoesNotFit();
    auto Hdr = words<Elf_Word>(B, 0, 4);
    uint64_t NBuckets = Hdr[0], SymNdx = Hdr[1], MaskWords = Hdr[2], Shift = Hdr[3];
    uint64_t N = Syms.size();
    if (NBuckets == 0 || SymNdx > N || MaskWords == 0)
      return DoesNotFit();
    constexpr uint64_t Bits = sizeof(Elf_Off) * 8;
    if (Shift >= Bits)
      return makeError(formatv(
          ".gnu.hash has bloom shift {0}, not less than the {1} bits of a "
          "bloom word: ld.so's lookups through it miss the names it "
          "exports, so none of them can be bound",
          Shift, Bits));
    uint64_t Off = 16 + MaskWords * sizeof(Elf_Off) + NBuckets * 4;
    if (Off > B.size())
      return DoesNotFit();
    uint64_t NValues = std::min<uint64_t>(N - SymNdx, (B.size() - Off) / 4);
    auto Values = words<Elf_Word>(B, Off, NValues);
    uint64_t Ends = 0; // one past the last chain terminator
    for (uint64_t J = NValues; J > 0; --J)
      if (Values[J - 1] & 1) {
        Ends = J;
        break;
      }
    GnuBuckets = words<Elf_Word>(B, Off - NBuckets * 4, NBuckets);
    for (Elf_Word Bucket : GnuBuckets)
      if (Bucket != 0 && (Bucket < SymNdx || Bucket - SymNdx >= Ends))
        return DoesNotFit();
    // ld.so indexes the filter with maskwords - 1 as a mask (linkers write a
    // power of two), which never reaches past the last word.
    GnuBloom = words<Elf_Off>(B, 16, MaskWords);
    GnuShift = Shift;
    GnuValues = Values.take_front(Ends);
    GnuSymNdx = SymNdx;
    Gnu = true;
    return Error::success();
  }

  bool setSysVHash(ArrayRef<uint8_t> B) {
    if (B.size() < 8 || reinterpret_cast<uintptr_t>(B.data()) % 4)
      return false;
    auto Hdr = words<Elf_Word>(B, 0, 2);
    uint64_t NBucket = Hdr[0], NChain = Hdr[1];
    if (NBucket == 0 || NChain != Syms.size() || 8 + (NBucket + NChain) * 4 > B.size())
      return false;
    SysVBuckets = words<Elf_Word>(B, 8, NBucket);
    SysVChains = words<Elf_Word>(B, 8 + NBucket * 4, NChain);
    SysV = true;
    return true;
  }

  ArrayRef<Elf_Sym> Syms;
  StringRef StrTab;
  ArrayRef<uint16_t> VerSym;
  std::vector<VersionSlot> Slots;
  bool Gnu = false, SysV = false;
  ArrayRef<Elf_Word> GnuBuckets, GnuValues, SysVBuckets, SysVChains;
  ArrayRef<Elf_Off> GnuBloom;
  uint32_t GnuSymNdx = 0, GnuShift = 0;
};

/// Reads .gnu.version_d and .gnu.version_r into the model and the version
/// slots. libObject's getVersionDefinitions/getVersionDependencies copy the
/// rest of the string table into every name they return, which is quadratic
/// on a library like libLLVM; this walks the same records through libObject's
/// record types and keeps StringRefs instead.
///
/// ld.so follows vd_next, vn_next and vna_next until one is zero and ignores
/// the counts (sh_info, vn_cnt), so a chain that leaves the section is bad
/// input even when the counts would stop short of it: dlopen would read past
/// the mapping. Offsets only grow, so every walk ends.
template <class ELFT>
Error readVersionSections(const ELFFile<ELFT> &Obj,
                          const typename ELFT::Shdr *VerDefSec,
                          const typename ELFT::Shdr *VerNeedSec, Binary &B,
                          std::vector<VersionSlot> &Slots) {
  auto Slot = [&](unsigned N) -> VersionSlot & {
    if (N >= Slots.size())
      Slots.resize(N + 1);
    return Slots[N];
  };
  auto Records = [&](const typename ELFT::Shdr &Sec)
      -> Expected<std::pair<ArrayRef<uint8_t>, StringRef>> {
    auto Bytes = Obj.getSectionContents(Sec);
    if (!Bytes)
      return Bytes.takeError();
    auto StrSec = Obj.getSection(Sec.sh_link);
    if (!StrSec)
      return StrSec.takeError();
    auto Str = Obj.getStringTable(**StrSec);
    if (!Str)
      return Str.takeError();
    return std::make_pair(*Bytes, *Str);
  };
  auto NameAt = [](StringRef Str, uint64_t Off, StringRef What) -> Expected<StringRef> {
    if (Off >= Str.size())
      return makeError(formatv("{0} name offset {1} is past the end of the "
                               "string table",
                               What, Off));
    return Str.drop_front(Off).take_until([](char C) { return C == 0; });
  };
  auto Bad = [](StringRef What) {
    return makeError(What + " records run past the end of the section");
  };

  if (VerDefSec) {
    auto R = Records(*VerDefSec);
    if (!R)
      return R.takeError();
    auto [Bytes, Str] = *R;
    uint64_t Off = 0;
    for (;;) {
      if (Off + sizeof(typename ELFT::Verdef) > Bytes.size())
        return Bad(".gnu.version_d");
      const auto *D = reinterpret_cast<const typename ELFT::Verdef *>(Bytes.data() + Off);
      uint64_t AuxOff = Off + D->vd_aux;
      // glibc reads vd_aux whatever vd_cnt says.
      if (AuxOff + sizeof(typename ELFT::Verdaux) > Bytes.size())
        return Bad(".gnu.version_d");
      if (D->vd_cnt) {
        const auto *A = reinterpret_cast<const typename ELFT::Verdaux *>(Bytes.data() + AuxOff);
        auto Name = NameAt(Str, A->vda_name, "version definition");
        if (!Name)
          return Name.takeError();
        bool IsBase = D->vd_flags & ELF::VER_FLG_BASE;
        B.VerDefs.push_back({*Name, IsBase, D->vd_hash});
        VersionSlot &S = Slot(D->vd_ndx & ELF::VERSYM_VERSION);
        // The base node names the file; symbols at that index are unversioned
        // (ld.so leaves its l_versions entry, hash included, zero).
        if (!IsBase) {
          S.Name = *Name;
          S.Hash = D->vd_hash;
        }
        S.Known = true;
      }
      if (D->vd_next == 0)
        break;
      Off += D->vd_next;
    }
  }
  if (VerNeedSec) {
    auto R = Records(*VerNeedSec);
    if (!R)
      return R.takeError();
    auto [Bytes, Str] = *R;
    uint64_t Off = 0;
    for (;;) {
      if (Off + sizeof(typename ELFT::Verneed) > Bytes.size())
        return Bad(".gnu.version_r");
      const auto *V = reinterpret_cast<const typename ELFT::Verneed *>(Bytes.data() + Off);
      auto File = NameAt(Str, V->vn_file, "version requirement file");
      if (!File)
        return File.takeError();
      VersionRequirement Req;
      Req.File = *File;
      uint64_t AuxOff = Off + V->vn_aux;
      for (;;) { // glibc reads the first entry whatever vn_cnt says
        if (AuxOff + sizeof(typename ELFT::Vernaux) > Bytes.size())
          return Bad(".gnu.version_r");
        const auto *A = reinterpret_cast<const typename ELFT::Vernaux *>(Bytes.data() + AuxOff);
        auto Name = NameAt(Str, A->vna_name, "version requirement");
        if (!Name)
          return Name.takeError();
        Req.Versions.push_back(
            {*Name, bool(A->vna_flags & ELF::VER_FLG_WEAK), A->vna_hash});
        VersionSlot &S = Slot(A->vna_other & ELF::VERSYM_VERSION);
        S.Name = *Name;
        S.File = Req.File;
        S.Known = true;
        S.Hash = A->vna_hash;
        S.RequirementHidden = A->vna_other & ELF::VERSYM_HIDDEN;
        if (A->vna_next == 0)
          break;
        AuxOff += A->vna_next;
      }
      B.VerNeeds.push_back(std::move(Req));
      if (V->vn_next == 0)
        break;
      Off += V->vn_next;
    }
  }
  return Error::success();
}

std::vector<StringRef> splitPath(Binary &B, StringRef List) {
  std::vector<StringRef> Out;
  SmallVector<StringRef, 4> Parts;
  List.split(Parts, ':', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts)
    Out.push_back(B.save(P));
  return Out;
}

std::string typeName(uint16_t Type) {
  switch (Type) {
  case ELF::ET_NONE: return "ET_NONE";
  case ELF::ET_REL: return "ET_REL";
  case ELF::ET_EXEC: return "ET_EXEC";
  case ELF::ET_DYN: return "ET_DYN";
  case ELF::ET_CORE: return "ET_CORE";
  default: return formatv("e_type {0:x4}", Type).str();
  }
}

/// What GNU ld and lld check in the section headers before they link a file,
/// and ld.so never reads: the first problem found, or success. A lie here
/// leaves a shared library loadable but makes the link fail ("file format
/// not recognized", lld's "invalid sh_entsize", "section ... past the end").
///   - e_shstrndx names a string table (both read section names);
///   - every sh_link, and the sh_info of relocation sections and
///     SHF_INFO_LINK ones, names a section (BFD's elf_object_p);
///   - .symtab and .dynsym have the entry size of a symbol (BFD);
///   - .dynamic, read through its section header (both), fits the file in
///     whole entries;
///   - .gnu.version_d and .gnu.version_r hold the number of records sh_info
///     says, and every verdaux a verdef counts (BFD's
///     _bfd_elf_slurp_version_tables; ld.so follows the chains instead);
///   - a relocatable object's header is the size of its class's header
///     (e_ehsize: a class byte that lies reads as an object without
///     sections), and its .symtab, string table included, reads whole, each
///     symbol in a section that exists.
template <class ELFT>
Error linkerChecks(const ELFFile<ELFT> &Obj,
                   ArrayRef<typename ELFT::Shdr> Sections) {
  using Elf_Shdr = typename ELFT::Shdr;
  const auto &Hdr = Obj.getHeader();
  bool Relocatable = Hdr.e_type == ELF::ET_REL;
  if (Relocatable && Hdr.e_ehsize != sizeof(typename ELFT::Ehdr))
    return makeError(formatv(
        "the ELF header says it is {0} bytes (e_ehsize), not the {1} of an "
        "ELFCLASS{2} header: its class byte (EI_CLASS) or its header lies",
        unsigned(Hdr.e_ehsize), sizeof(typename ELFT::Ehdr),
        ELFT::Is64Bits ? 64 : 32));
  auto Names = Obj.getSectionStringTable(Sections);
  if (!Names)
    return Names.takeError();
  uint64_t N = Sections.size();
  for (uint64_t I = 1; I < N; ++I) {
    const Elf_Shdr &S = Sections[I];
    if (S.sh_link >= N)
      return makeError(formatv("section [{0}] has sh_link {1}, but the file "
                               "has {2} sections",
                               I, unsigned(S.sh_link), N));
    if ((S.sh_type == ELF::SHT_REL || S.sh_type == ELF::SHT_RELA ||
         (S.sh_flags & ELF::SHF_INFO_LINK)) &&
        S.sh_info >= N)
      return makeError(formatv("section [{0}] has sh_info {1}, but the file "
                               "has {2} sections",
                               I, unsigned(S.sh_info), N));
    switch (S.sh_type) {
    case ELF::SHT_SYMTAB:
    case ELF::SHT_DYNSYM:
      if (S.sh_entsize != sizeof(typename ELFT::Sym))
        return makeError(formatv("section [{0}] ({1}) has sh_entsize {2}, "
                                 "not the {3} bytes of a symbol",
                                 I, S.sh_type == ELF::SHT_SYMTAB ? ".symtab" : ".dynsym",
                                 uint64_t(S.sh_entsize), sizeof(typename ELFT::Sym)));
      break;
    case ELF::SHT_DYNAMIC:
      if (auto Dyn = Obj.template getSectionContentsAsArray<typename ELFT::Dyn>(S); !Dyn)
        return Dyn.takeError();
      break;
    case ELF::SHT_GNU_verdef:
    case ELF::SHT_GNU_verneed: {
      bool Def = S.sh_type == ELF::SHT_GNU_verdef;
      StringRef What = Def ? ".gnu.version_d" : ".gnu.version_r";
      uint64_t Rec = Def ? sizeof(typename ELFT::Verdef) : sizeof(typename ELFT::Verneed);
      if (S.sh_info > S.sh_size / Rec)
        return makeError(formatv("{0} says it holds {1} records (sh_info), "
                                 "but {2} bytes hold at most {3}",
                                 What, unsigned(S.sh_info), uint64_t(S.sh_size),
                                 uint64_t(S.sh_size) / Rec));
      if (!Def)
        break;
      auto Bytes = Obj.getSectionContents(S);
      if (!Bytes)
        return Bytes.takeError();
      uint64_t Off = 0;
      for (unsigned D = 0; D < S.sh_info; ++D) {
        if (Off + Rec > Bytes->size())
          return makeError(What + " records run past the end of the section");
        const auto *V = reinterpret_cast<const typename ELFT::Verdef *>(Bytes->data() + Off);
        uint64_t Aux = Off + V->vd_aux;
        for (unsigned A = 0; A < V->vd_cnt; ++A) {
          if (Aux + sizeof(typename ELFT::Verdaux) > Bytes->size())
            return makeError(formatv("{0}: version definition {1} counts {2} "
                                     "names, which run past the end of the "
                                     "section",
                                     What, D, unsigned(V->vd_cnt)));
          Aux += reinterpret_cast<const typename ELFT::Verdaux *>(Bytes->data() + Aux)->vda_next;
        }
        if (V->vd_next == 0)
          break;
        Off += V->vd_next;
      }
      break;
    }
    default:
      break;
    }
  }
  if (!Relocatable)
    return Error::success();
  for (const Elf_Shdr &S : Sections) {
    if (S.sh_type != ELF::SHT_SYMTAB)
      continue;
    std::vector<Symbol> Ignored;
    if (Error E = readSymbolTable(Obj, S, Ignored))
      return E;
    auto Syms = Obj.symbols(&S);
    if (!Syms)
      return Syms.takeError();
    for (size_t I = 1; I < Syms->size(); ++I) {
      uint16_t Shndx = (*Syms)[I].st_shndx;
      if (Shndx >= N && Shndx != ELF::SHN_ABS && Shndx != ELF::SHN_COMMON &&
          Shndx != ELF::SHN_XINDEX &&
          !(Hdr.e_machine == ELF::EM_X86_64 && Shndx == 0xff02)) // SHN_X86_64_LCOMMON
        return makeError(formatv("symbol {0} of .symtab is in section {1}, "
                                 "which does not exist",
                                 I, Shndx));
    }
  }
  return Error::success();
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
  B->TypeName = typeName(Hdr.e_type);
  B->Machine = {Hdr.e_machine, ELFT::Is64Bits,
                ELFT::Endianness == llvm::endianness::little};
  B->ArchName = ELF::convertEMachineToArchName(Hdr.e_machine).str();
  if (B->ArchName == "None") // LLVM's name for every machine it does not know
    B->ArchName = formatv("e_machine {0}", uint16_t(Hdr.e_machine)).str();
  else if (B->ArchName == "x86-64")
    B->ArchName = "x86_64";

  auto Sections = Obj.sections();
  if (!Sections)
    return fileError(DisplayPath, Sections.takeError());
  auto Phdrs = Obj.program_headers();
  if (!Phdrs)
    return fileError(DisplayPath, Phdrs.takeError());
  // Only linkers read a relocatable object, so what they refuse is bad
  // input; a library or executable may still load, and its commands decide.
  if (Error E = linkerChecks(Obj, *Sections)) {
    if (Hdr.e_type == ELF::ET_REL)
      return fileError(DisplayPath, std::move(E));
    B->LinkerRefusal = toString(std::move(E));
  }

  bool HasInterp = false;
  for (const auto &P : *Phdrs) {
    if (P.p_type != ELF::PT_INTERP)
      continue;
    HasInterp = true;
    if (P.p_offset > Buffer.getBufferSize() ||
        P.p_filesz > Buffer.getBufferSize() - P.p_offset || P.p_filesz == 0)
      return fileError(DisplayPath, "PT_INTERP points past the end of the file");
    StringRef Interp(Buffer.getBufferStart() + P.p_offset, P.p_filesz);
    B->Interpreter = B->save(Interp.take_until([](char C) { return C == 0; }));
  }

  // --- dynamic section ------------------------------------------------------
  uint64_t Flags = 0, Flags1 = 0;
  if (Hdr.e_type != ELF::ET_REL) {
    // libObject's dynamicEntries() trusts PT_DYNAMIC's extent and reads its
    // last entry wherever that points (LLVM 19): check it first.
    for (const auto &P : *Phdrs)
      if (P.p_type == ELF::PT_DYNAMIC &&
          (P.p_offset > Buffer.getBufferSize() ||
           P.p_filesz > Buffer.getBufferSize() - P.p_offset))
        return fileError(DisplayPath, "PT_DYNAMIC points past the end of the file");
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
  B->FixedAddress = Hdr.e_type == ELF::ET_EXEC;
  B->MarkedPie = Flags1 & ELF::DF_1_PIE;
  B->NoDlopen = Flags1 & ELF::DF_1_NOOPEN;
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

  // Version index -> (name, file it is required from).
  std::vector<VersionSlot> Slots;
  if (VerDefSec || VerNeedSec)
    if (Error E = readVersionSections<ELFT>(Obj, VerDefSec, VerNeedSec, *B, Slots))
      return fileError(DisplayPath, std::move(E));

  if (DynSymSec) {
    auto Table = ElfDynamicSymbols<ELFT>::create(Obj, *DynSymSec, VerSymSec,
                                                 std::move(Slots), Sections->data(),
                                                 Sections->size());
    if (!Table)
      return fileError(DisplayPath, Table.takeError());
    B->HasVersions = VerSymSec != nullptr;
    B->setDynamicSymbolSource(std::move(*Table));
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
