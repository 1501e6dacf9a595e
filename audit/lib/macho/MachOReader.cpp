//===- MachOReader.cpp - Mach-O files into the binary model ---------------===//
//
// Reads what dyld reads, through libObject:
//
//   * the load commands: the install name (LC_ID_DYLIB), the dylibs in
//     ordinal order (LC_LOAD_DYLIB, _WEAK_, REEXPORT_, LAZY_LOAD_, UPWARD_),
//     LC_RPATH, the dynamic linker, and MH_TWOLEVEL;
//   * the exports: the export trie (LC_DYLD_INFO_ONLY or LC_DYLD_EXPORTS_TRIE)
//     with its weak, re-export and stub-resolver flags. An image without a
//     trie exports its external nlist definitions, the way dyld's old lookup
//     does;
//   * the imports: the chained-fixup import table, or the bind and lazy-bind
//     opcodes, each with the ordinal of the library it binds to and its
//     weak-import flag. The nlist table adds N_WEAK_REF and the imports of an
//     image that has neither (dyld would find none, but ld64 never writes
//     such an image with imports, and yaml2obj fixtures may).
//
// The nlist table itself is the static symbol table, read on first use.
// Ordinals are stored the nlist way: 0 this image, 1..n the n-th dylib load
// command, 0xFE dynamic lookup (flat), 0xFF the main executable; bind opcodes'
// negative specials are mapped to those. Weak-coalescing binds
// (BIND_SPECIAL_DYLIB_WEAK_LOOKUP) are not imports and are not listed.
//
// A universal file is one slice: ReadOptions::Arch when given, else the slice
// of the machine running the audit, else the first. A text stub (.tbd, as in
// an SDK) reads as the dylib it stands for.
//
//===----------------------------------------------------------------------===//
#include "MachO.h"
#include "MachONList.h"

#include "aoti/audit/Reader.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/BinaryFormat/MachO.h"
#include "llvm/Object/MachO.h"
#include "llvm/Object/MachOUniversal.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TextAPI/InterfaceFile.h"
#include "llvm/TextAPI/TextAPIReader.h"

#include <algorithm>

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {
namespace {

/// cputype folded to 16 bits: the low byte of the type and the ABI bits
/// (CPU_ARCH_ABI64) in the high byte, so arm64 and arm differ.
uint16_t foldCpuType(uint32_t CpuType) {
  return uint16_t((CpuType & 0xff) | ((CpuType >> 16) & 0xff00));
}

/// "aarch64" and "x86-64" are what people type; Mach-O says "arm64", "x86_64".
std::string normalizeArch(StringRef A) {
  if (A == "aarch64")
    return "arm64";
  if (A == "x86-64" || A == "amd64")
    return "x86_64";
  return A.str();
}

std::string archFlag(uint32_t CpuType, uint32_t CpuSubType) {
  const char *Flag = nullptr;
  MachOObjectFile::getArchTriple(CpuType, CpuSubType, nullptr, &Flag);
  return Flag ? std::string(Flag) : formatv("cputype {0}", CpuType).str();
}

/// A NUL-terminated string at Offset inside a load command.
StringRef loadCommandString(const MachOObjectFile::LoadCommandInfo &L,
                            uint32_t Offset) {
  if (Offset >= L.C.cmdsize)
    return {};
  StringRef S(L.Ptr + Offset, L.C.cmdsize - Offset);
  return S.take_until([](char C) { return C == 0; });
}

/// Per-section facts, indexed by n_sect - 1.
struct SectionInfo {
  uint64_t Addr = 0, Size = 0;
  uint32_t Flags = 0;
  bool isCode() const {
    return Flags & (MachO::S_ATTR_PURE_INSTRUCTIONS |
                    MachO::S_ATTR_SOME_INSTRUCTIONS);
  }
  bool isTLS() const {
    uint32_t T = Flags & MachO::SECTION_TYPE;
    return T == MachO::S_THREAD_LOCAL_REGULAR ||
           T == MachO::S_THREAD_LOCAL_ZEROFILL ||
           T == MachO::S_THREAD_LOCAL_VARIABLES;
  }
};

std::vector<SectionInfo> readSections(const MachOObjectFile &Obj) {
  std::vector<SectionInfo> Out;
  for (const SectionRef &S : Obj.sections()) {
    SectionInfo I;
    DataRefImpl D = S.getRawDataRefImpl();
    if (Obj.is64Bit()) {
      MachO::section_64 Sec = Obj.getSection64(D);
      I = {Sec.addr, Sec.size, Sec.flags};
    } else {
      MachO::section Sec = Obj.getSection(D);
      I = {Sec.addr, Sec.size, Sec.flags};
    }
    Out.push_back(I);
  }
  return Out;
}

SymbolType typeOfSection(const std::vector<SectionInfo> &Secs, unsigned NSect) {
  if (NSect == 0 || NSect > Secs.size())
    return SymbolType::NoType;
  const SectionInfo &S = Secs[NSect - 1];
  if (S.isTLS())
    return SymbolType::TLS;
  return S.isCode() ? SymbolType::Function : SymbolType::Object;
}

SymbolType typeOfAddress(const std::vector<SectionInfo> &Secs, uint64_t VA) {
  for (unsigned I = 0; I != Secs.size(); ++I)
    if (VA >= Secs[I].Addr && VA < Secs[I].Addr + Secs[I].Size)
      return typeOfSection(Secs, I + 1);
  return SymbolType::NoType;
}

/// One nlist entry, the same for 32- and 64-bit files.
/// An nlist entry in the neutral model. Debugging (stab) entries return
/// false. Private externs (N_PEXT) are hidden: in an object they are global
/// but not exported; in a linked image the linker has already made them local.
bool makeStaticSymbol(const MachOObjectFile &Obj,
                      const std::vector<SectionInfo> &Secs, bool TwoLevel,
                      const SymbolRef &SR, Symbol &Out) {
  NList N = nlistOf(Obj, SR.getRawDataRefImpl());
  if (N.Type & MachO::N_STAB)
    return false;
  std::optional<StringRef> Name = nlistName(Obj, N);
  if (!Name)
    return false; // a name outside the string table
  Out = Symbol();
  Out.Name = *Name;
  Out.Value = N.Value;
  bool External = N.Type & MachO::N_EXT;
  if (N.Type & MachO::N_PEXT)
    Out.Visibility = SymbolVisibility::Hidden;
  switch (N.Type & MachO::N_TYPE) {
  case MachO::N_UNDF:
    if (External && N.Value != 0) { // a tentative (common) definition
      Out.Defined = true;
      Out.Type = SymbolType::Common;
    }
    break;
  case MachO::N_ABS:
    Out.Defined = true;
    break;
  case MachO::N_SECT:
    Out.Defined = true;
    Out.Type = typeOfSection(Secs, N.Sect);
    break;
  case MachO::N_INDR:
    Out.Defined = true;
    Out.Type = SymbolType::Other;
    break;
  default:
    Out.Type = SymbolType::Other;
    break;
  }
  if (!External)
    Out.Binding = SymbolBinding::Local;
  else if (Out.Defined && Out.Type != SymbolType::Common)
    Out.Binding = (N.Desc & MachO::N_WEAK_DEF) ? SymbolBinding::Weak
                                               : SymbolBinding::Global;
  else if (!Out.Defined)
    Out.Binding = (N.Desc & MachO::N_WEAK_REF) ? SymbolBinding::Weak
                                               : SymbolBinding::Global;
  if (!Out.Defined && External && TwoLevel &&
      Obj.getHeader().filetype != MachO::MH_OBJECT)
    Out.LibraryOrdinal = MachO::GET_LIBRARY_ORDINAL(N.Desc);
  return true;
}

class MachOStaticSymbols final : public StaticSymbolSource {
public:
  MachOStaticSymbols(std::unique_ptr<MachOObjectFile> Obj,
                     std::vector<SectionInfo> Secs, bool TwoLevel)
      : Obj(std::move(Obj)), Secs(std::move(Secs)), TwoLevel(TwoLevel) {}

  void load(const Binary &B, std::vector<Symbol> &Out) const override {
    for (const SymbolRef &SR : Obj->symbols()) {
      Symbol S;
      if (!makeStaticSymbol(*Obj, Secs, TwoLevel, SR, S))
        continue;
      if (S.LibraryOrdinal > 0 && S.LibraryOrdinal < 0xFE &&
          size_t(S.LibraryOrdinal) <= B.dependencies().size())
        S.SourceLibrary = B.dependencies()[S.LibraryOrdinal - 1].Name;
      Out.push_back(S);
    }
  }

private:
  std::unique_ptr<MachOObjectFile> Obj;
  std::vector<SectionInfo> Secs;
  bool TwoLevel;
};

/// Bind-opcode and chained-fixup ordinals are signed specials; the model
/// keeps the nlist encoding.
int nlistOrdinal(int BindOrdinal) {
  switch (BindOrdinal) {
  case MachO::BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE: return MachO::EXECUTABLE_ORDINAL;
  case MachO::BIND_SPECIAL_DYLIB_FLAT_LOOKUP: return MachO::DYNAMIC_LOOKUP_ORDINAL;
  default: return BindOrdinal;
  }
}

/// Imports collected from the fixup information, one per (name, ordinal).
class ImportTable {
public:
  void add(StringRef Name, int Ordinal, bool WeakImport) {
    auto [It, New] = Index.try_emplace(Key(Name, Ordinal), Entries.size());
    if (New) {
      Entries.push_back({Name, Ordinal, WeakImport});
      return;
    }
    // ld64 and lld flag every bind of a weak import; stay weak only if all do.
    Entries[It->second].Weak &= WeakImport;
  }
  struct Entry {
    StringRef Name;
    int Ordinal;
    bool Weak;
  };
  std::vector<Entry> Entries;

private:
  static std::string Key(StringRef Name, int Ordinal) {
    return (Twine(Ordinal) + ":" + Name).str();
  }
  StringMap<size_t> Index;
};

Error readFixupImports(MachOObjectFile &Obj, StringRef Path, ImportTable &T,
                       bool &HaveFixupInfo) {
  bool HaveDyldInfo = false, HaveChained = false;
  for (const MachOObjectFile::LoadCommandInfo &L : Obj.load_commands()) {
    HaveDyldInfo |= L.C.cmd == MachO::LC_DYLD_INFO ||
                    L.C.cmd == MachO::LC_DYLD_INFO_ONLY;
    HaveChained |= L.C.cmd == MachO::LC_DYLD_CHAINED_FIXUPS;
  }
  HaveFixupInfo = HaveDyldInfo || HaveChained;
  if (HaveChained) {
    auto Targets = Obj.getDyldChainedFixupTargets();
    if (!Targets)
      return fileError(Path, "LC_DYLD_CHAINED_FIXUPS: " +
                                 toString(Targets.takeError()));
    for (ChainedFixupTarget &CT : *Targets) {
      if (CT.weakBind())
        continue;
      T.add(CT.symbolName(), nlistOrdinal(CT.libOrdinal()), CT.weakImport());
    }
  }
  if (HaveDyldInfo) {
    for (int Lazy = 0; Lazy != 2; ++Lazy) {
      Error Err = Error::success();
      auto Table = Lazy ? Obj.lazyBindTable(Err) : Obj.bindTable(Err);
      for (const MachOBindEntry &E : Table) {
        if (E.ordinal() == MachO::BIND_SPECIAL_DYLIB_WEAK_LOOKUP)
          continue;
        T.add(E.symbolName(), nlistOrdinal(E.ordinal()),
              E.flags() & MachO::BIND_SYMBOL_FLAGS_WEAK_IMPORT);
      }
      if (Err)
        return fileError(Path, formatv("{0} opcodes: {1}",
                                       Lazy ? "lazy bind" : "bind",
                                       toString(std::move(Err))));
    }
  }
  return Error::success();
}

FileKind kindOf(uint32_t FileType) {
  switch (FileType) {
  case MachO::MH_EXECUTE: return FileKind::Executable;
  case MachO::MH_DYLIB:
  case MachO::MH_DYLIB_STUB: return FileKind::SharedLibrary;
  case MachO::MH_BUNDLE: return FileKind::Bundle;
  case MachO::MH_OBJECT: return FileKind::Relocatable;
  default: return FileKind::Other;
  }
}

/// <mach-o/loader.h>'s name for a filetype, for messages.
std::string fileTypeName(uint32_t FileType) {
  switch (FileType) {
  case MachO::MH_OBJECT: return "MH_OBJECT";
  case MachO::MH_EXECUTE: return "MH_EXECUTE";
  case MachO::MH_DYLIB: return "MH_DYLIB";
  case MachO::MH_BUNDLE: return "MH_BUNDLE";
  case MachO::MH_DYLIB_STUB: return "MH_DYLIB_STUB";
  case MachO::MH_DYLINKER: return "MH_DYLINKER";
  case MachO::MH_CORE: return "MH_CORE";
  default: return formatv("filetype {0:x}", FileType).str();
  }
}

Expected<std::unique_ptr<Binary>> readThin(MemoryBufferRef Buffer,
                                           std::string DisplayPath,
                                           uint32_t UniversalCpu = 0,
                                           uint32_t UniversalIndex = 0) {
  StringRef Head = Buffer.getBuffer();
  if (Head.size() < 4)
    return fileError(DisplayPath, "truncated Mach-O header");
  uint32_t M = support::endian::read32le(Head.data());
  bool LE = M == MachO::MH_MAGIC || M == MachO::MH_MAGIC_64;
  bool Is64 = M == MachO::MH_MAGIC_64 || M == MachO::MH_CIGAM_64;
  auto ObjOrErr =
      MachOObjectFile::create(Buffer, LE, Is64, UniversalCpu, UniversalIndex);
  if (!ObjOrErr)
    return fileError(DisplayPath, ObjOrErr.takeError());
  std::unique_ptr<MachOObjectFile> Obj = std::move(*ObjOrErr);

  auto B = std::make_unique<Binary>(DisplayPath, BinaryFormat::MachO);
  const MachO::mach_header &H = Obj->getHeader();
  B->Kind = kindOf(H.filetype);
  B->TypeName = fileTypeName(H.filetype);
  B->Machine = {foldCpuType(H.cputype), Is64, LE};
  B->ArchName = archFlag(H.cputype, H.cpusubtype);
  B->TwoLevel = H.flags & MachO::MH_TWOLEVEL;
  bool Dynamic = H.filetype != MachO::MH_OBJECT;

  // --- load commands --------------------------------------------------------
  for (const MachOObjectFile::LoadCommandInfo &L : Obj->load_commands()) {
    switch (L.C.cmd) {
    case MachO::LC_ID_DYLIB: {
      MachO::dylib_command D = Obj->getDylibIDLoadCommand(L);
      B->SoName = B->save(loadCommandString(L, D.dylib.name));
      break;
    }
    case MachO::LC_LOAD_DYLIB:
    case MachO::LC_LOAD_WEAK_DYLIB:
    case MachO::LC_REEXPORT_DYLIB:
    case MachO::LC_LAZY_LOAD_DYLIB:
    case MachO::LC_LOAD_UPWARD_DYLIB: {
      // The same layout for all five; libObject validated the name offset.
      MachO::dylib_command D = Obj->getDylibIDLoadCommand(L);
      Dependency Dep;
      Dep.Name = B->save(loadCommandString(L, D.dylib.name));
      Dep.DepKind = L.C.cmd == MachO::LC_LOAD_WEAK_DYLIB ? Dependency::Kind::Weak
                    : L.C.cmd == MachO::LC_REEXPORT_DYLIB
                        ? Dependency::Kind::ReExport
                    : L.C.cmd == MachO::LC_LOAD_UPWARD_DYLIB
                        ? Dependency::Kind::Upward
                        : Dependency::Kind::Needed;
      B->Deps.push_back(Dep);
      break;
    }
    case MachO::LC_RPATH: {
      MachO::rpath_command R = Obj->getRpathCommand(L);
      B->RPath.push_back(B->save(loadCommandString(L, R.path)));
      break;
    }
    case MachO::LC_LOAD_DYLINKER: {
      MachO::dylinker_command D = Obj->getDylinkerCommand(L);
      B->Interpreter = B->save(loadCommandString(L, D.name));
      break;
    }
    default:
      break;
    }
  }
  auto LibraryName = [&](int Ordinal) -> StringRef {
    if (Ordinal > 0 && Ordinal < MachO::DYNAMIC_LOOKUP_ORDINAL &&
        size_t(Ordinal) <= B->Deps.size())
      return B->Deps[Ordinal - 1].Name;
    return {};
  };
  auto BadOrdinal = [&](StringRef What, StringRef Name, int Ordinal) {
    return fileError(DisplayPath,
                     formatv("{0} '{1}' names library ordinal {2}, but the "
                             "file has {3} dylib load command(s)",
                             What, Name, Ordinal, B->Deps.size()));
  };

  std::vector<SectionInfo> Secs = readSections(*Obj);
  uint64_t ImageBase = 0;
  for (const MachOObjectFile::LoadCommandInfo &L : Obj->load_commands()) {
    if (L.C.cmd == MachO::LC_SEGMENT_64) {
      MachO::segment_command_64 S = Obj->getSegment64LoadCommand(L);
      if (S.fileoff == 0 && S.filesize != 0) {
        ImageBase = S.vmaddr;
        break;
      }
    } else if (L.C.cmd == MachO::LC_SEGMENT) {
      MachO::segment_command S = Obj->getSegmentLoadCommand(L);
      if (S.fileoff == 0 && S.filesize != 0) {
        ImageBase = S.vmaddr;
        break;
      }
    }
  }

  // --- exports ----------------------------------------------------------------
  bool HaveTrie = !Obj->getDyldInfoExportsTrie().empty() ||
                  !Obj->getDyldExportsTrie().empty();
  if (Dynamic && HaveTrie) {
    Error Err = Error::success();
    for (const ExportEntry &E : Obj->exports(Err)) {
      uint64_t Flags = E.flags();
      Symbol S;
      S.Name = B->save(E.name());
      S.Defined = true;
      S.Value = E.address();
      S.Binding = (Flags & MachO::EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION)
                      ? SymbolBinding::Weak
                      : SymbolBinding::Global;
      if (Flags & MachO::EXPORT_SYMBOL_FLAGS_REEXPORT) {
        S.ReExport = true;
        S.LibraryOrdinal = int(E.other());
        S.SourceLibrary = LibraryName(S.LibraryOrdinal);
        if (S.SourceLibrary.empty())
          return BadOrdinal("re-export", S.Name, S.LibraryOrdinal);
        if (!E.otherName().empty() && E.otherName() != E.name())
          S.ImportName = B->save(E.otherName());
      } else if (Flags & MachO::EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER) {
        S.Type = SymbolType::IFunc;
      } else {
        switch (Flags & MachO::EXPORT_SYMBOL_FLAGS_KIND_MASK) {
        case MachO::EXPORT_SYMBOL_FLAGS_KIND_THREAD_LOCAL:
          S.Type = SymbolType::TLS;
          break;
        case MachO::EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE:
          S.Type = SymbolType::NoType;
          break;
        default:
          S.Type = typeOfAddress(Secs, ImageBase + E.address());
          break;
        }
      }
      B->DynSyms.push_back(S);
    }
    if (Err)
      return fileError(DisplayPath,
                       "export trie: " + toString(std::move(Err)));
  }

  // --- imports, and the nlist table ----------------------------------------------
  ImportTable Imports;
  bool HaveFixupInfo = false;
  if (Dynamic)
    if (Error E = readFixupImports(*Obj, DisplayPath, Imports, HaveFixupInfo))
      return E;

  // The nlist table is the static table, read when an explanation needs it.
  // What the dynamic side needs from it now is N_WEAK_REF on the undefined
  // symbols -- a range LC_DYSYMTAB delimits -- unless the image has no trie
  // or no fixup information, when the whole table stands in for them.
  StringMap<bool> WeakRefs;                 // undefined nlist name -> N_WEAK_REF
  std::vector<Symbol> NListImports;
  bool HaveSymbols = Obj->getSymtabLoadCommand().nsyms != 0;
  bool HaveDysymtab = false;
  for (const MachOObjectFile::LoadCommandInfo &L : Obj->load_commands())
    HaveDysymtab |= L.C.cmd == MachO::LC_DYSYMTAB;
  auto Scan = [&](const SymbolRef &SR) {
    Symbol S;
    if (!makeStaticSymbol(*Obj, Secs, B->TwoLevel, SR, S))
      return;
    if (!S.Defined && !S.isLocal()) {
      WeakRefs[S.Name] = S.isWeak();
      NListImports.push_back(S);
    } else if (!HaveTrie && S.Defined && !S.isLocal() &&
               S.Visibility == SymbolVisibility::Default) {
      // No trie: dyld searches the external nlist definitions instead.
      S.Name = B->save(S.Name);
      B->DynSyms.push_back(S);
    }
  };
  if (Dynamic && HaveSymbols) {
    MachO::dysymtab_command DS = Obj->getDysymtabLoadCommand();
    if (HaveTrie && HaveFixupInfo && HaveDysymtab) {
      // libObject checked that the range lies inside the symbol table.
      for (uint32_t I = DS.iundefsym, E = DS.iundefsym + DS.nundefsym; I != E; ++I)
        Scan(*Obj->getSymbolByIndex(I));
    } else {
      for (const SymbolRef &SR : Obj->symbols())
        Scan(SR);
    }
  }

  if (Dynamic) {
    auto AddImport = [&](StringRef Name, int Ordinal, bool Weak) -> Error {
      Symbol S;
      S.Name = B->save(Name);
      S.Defined = false;
      auto W = WeakRefs.find(Name);
      S.Binding = Weak || (W != WeakRefs.end() && W->second)
                      ? SymbolBinding::Weak
                      : SymbolBinding::Global;
      S.LibraryOrdinal = Ordinal;
      if (B->TwoLevel && Ordinal > 0 && Ordinal < MachO::DYNAMIC_LOOKUP_ORDINAL) {
        S.SourceLibrary = LibraryName(Ordinal);
        if (S.SourceLibrary.empty())
          return BadOrdinal("import", Name, Ordinal);
      }
      B->DynSyms.push_back(S);
      return Error::success();
    };
    if (HaveFixupInfo) {
      for (const ImportTable::Entry &E : Imports.Entries)
        if (Error Err = AddImport(E.Name, E.Ordinal, E.Weak))
          return Err;
    } else {
      // Nothing but nlist: flat images and objects carry no usable ordinal.
      for (const Symbol &S : NListImports)
        if (Error Err = AddImport(S.Name,
                                  B->TwoLevel ? S.LibraryOrdinal
                                              : int(MachO::DYNAMIC_LOOKUP_ORDINAL),
                                  S.isWeak()))
          return Err;
    }
  }

  B->setStaticSymbolSource(
      std::make_unique<MachOStaticSymbols>(std::move(Obj), std::move(Secs),
                                           B->TwoLevel),
      HaveSymbols);
  return B;
}

/// A text stub (.tbd) stands for the dylib it describes: its install name,
/// its re-exported libraries and the symbols it exports for the slice's
/// architecture. Inlined documents (libSystem's tbd holds its re-exported
/// libraries inline) are flattened into it.
Expected<std::unique_ptr<Binary>> readTextStub(MemoryBufferRef Buffer,
                                               std::string DisplayPath,
                                               const ReadOptions &Opts) {
  auto IFOrErr = MachO::TextAPIReader::get(Buffer);
  if (!IFOrErr)
    return fileError(DisplayPath, IFOrErr.takeError());
  const MachO::InterfaceFile &IF = **IFOrErr;

  std::string Want = Opts.Arch.empty() ? auditMachineArch() : normalizeArch(Opts.Arch);
  MachO::ArchitectureSet Archs = IF.getArchitectures();
  MachO::Architecture Arch = MachO::getArchitectureFromName(Want);
  if (!Archs.has(Arch)) {
    if (!Opts.Arch.empty() || Archs.empty())
      return fileError(DisplayPath,
                       formatv("text stub has no {0} target", Want));
    Arch = *Archs.begin();
  }

  auto B = std::make_unique<Binary>(DisplayPath, BinaryFormat::MachO);
  B->Kind = FileKind::SharedLibrary;
  B->TypeName = "text stub (.tbd)";
  auto [CpuType, CpuSubType] = MachO::getCPUTypeFromArchitecture(Arch);
  B->Machine = {foldCpuType(CpuType), bool(CpuType & MachO::CPU_ARCH_ABI64),
                true};
  B->ArchName = MachO::getArchitectureName(Arch).str();
  B->TwoLevel = IF.isTwoLevelNamespace();
  B->SoName = B->save(IF.getInstallName());

  StringMap<bool> Seen;
  auto AddSymbols = [&](const MachO::InterfaceFile &F) {
    for (const MachO::InterfaceFileRef &R : F.reexportedLibraries()) {
      bool ForArch = R.targets().empty();
      for (const MachO::Target &T : R.targets())
        ForArch |= T.Arch == Arch;
      if (ForArch)
        B->Deps.push_back(
            {B->save(R.getInstallName()), Dependency::Kind::ReExport});
    }
    for (const MachO::Symbol *Sym : F.symbols()) {
      if (Sym->isUndefined() || !Sym->hasArchitecture(Arch))
        continue;
      auto Add = [&](StringRef Name) {
        if (!Seen.try_emplace(Name, true).second)
          return;
        Symbol S;
        S.Name = B->save(Name);
        S.Defined = true;
        S.Binding = Sym->isWeakDefined() ? SymbolBinding::Weak
                                         : SymbolBinding::Global;
        S.Type = Sym->isThreadLocalValue() ? SymbolType::TLS
                 : Sym->isText()           ? SymbolType::Function
                 : Sym->isData()           ? SymbolType::Object
                                           : SymbolType::NoType;
        B->DynSyms.push_back(S);
      };
      StringRef N = Sym->getName();
      switch (Sym->getKind()) {
      case MachO::EncodeKind::GlobalSymbol:
        Add(N);
        break;
      case MachO::EncodeKind::ObjectiveCClass:
        Add(("_OBJC_CLASS_$_" + N).str());
        Add(("_OBJC_METACLASS_$_" + N).str());
        break;
      case MachO::EncodeKind::ObjectiveCClassEHType:
        Add(("_OBJC_EHTYPE_$_" + N).str());
        break;
      case MachO::EncodeKind::ObjectiveCInstanceVariable:
        Add(("_OBJC_IVAR_$_" + N).str());
        break;
      }
    }
  };
  AddSymbols(IF);
  StringMap<bool> Inlined;
  for (const auto &Doc : IF.documents()) {
    Inlined[Doc->getInstallName()] = true;
    AddSymbols(*Doc);
  }
  // A re-exported library inlined in the same stub is already flattened in.
  llvm::erase_if(B->Deps, [&](const Dependency &D) {
    return Inlined.count(D.Name) != 0;
  });
  return B;
}

/// The slice of a universal file that ReadOptions picks: Arch when given,
/// else the audit machine's, else the first.
struct PickedSlice {
  MemoryBufferRef Buffer;
  std::string Arch;
  uint32_t CpuType = 0;
  uint32_t Index = 0;
};

Expected<PickedSlice> pickSlice(MemoryBufferRef Buffer, StringRef DisplayPath,
                                const ReadOptions &Opts) {
  auto UB = MachOUniversalBinary::create(Buffer);
  if (!UB)
    return fileError(DisplayPath, UB.takeError());
  std::vector<MachOUniversalBinary::ObjectForArch> Slices;
  std::string Names;
  for (const MachOUniversalBinary::ObjectForArch &O : (*UB)->objects()) {
    Slices.push_back(O);
    Names += (Names.empty() ? "" : ", ") + O.getArchFlagName();
  }
  if (Slices.empty())
    return fileError(DisplayPath, "universal file with no slices");

  std::string Want = Opts.Arch.empty() ? auditMachineArch() : normalizeArch(Opts.Arch);
  const MachOUniversalBinary::ObjectForArch *Pick = nullptr;
  for (const auto &O : Slices)
    if (O.getArchFlagName() == Want) {
      Pick = &O;
      break;
    }
  if (!Pick) {
    if (!Opts.Arch.empty())
      return fileError(DisplayPath,
                       formatv("universal file has no {0} slice (it has {1})",
                               Opts.Arch, Names));
    Pick = &Slices.front();
  }

  uint64_t Off = Pick->getOffset(), Size = Pick->getSize();
  if (Off > Buffer.getBufferSize() || Size > Buffer.getBufferSize() - Off)
    return fileError(DisplayPath,
                     formatv("the {0} slice lies past the end of the file",
                             Pick->getArchFlagName()));
  PickedSlice Out;
  Out.Buffer = MemoryBufferRef(Buffer.getBuffer().substr(Off, Size),
                               Buffer.getBufferIdentifier());
  Out.Arch = Pick->getArchFlagName();
  Out.CpuType = Pick->getCPUType();
  Out.Index = unsigned(Pick - Slices.data());
  return Out;
}

/// A slice of a mapped universal file that keeps the whole mapping alive.
class SliceBuffer final : public MemoryBuffer {
public:
  SliceBuffer(std::unique_ptr<MemoryBuffer> Whole, StringRef Slice)
      : Whole(std::move(Whole)) {
    init(Slice.begin(), Slice.end(), /*RequiresNullTerminator=*/false);
  }
  StringRef getBufferIdentifier() const override {
    return Whole->getBufferIdentifier();
  }
  BufferKind getBufferKind() const override { return Whole->getBufferKind(); }

private:
  std::unique_ptr<MemoryBuffer> Whole;
};

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
takeUniversalArchiveSlice(std::unique_ptr<MemoryBuffer> &File,
                          const ReadOptions &Opts) {
  MemoryBufferRef Ref = File->getMemBufferRef();
  auto Pick = pickSlice(Ref, Ref.getBufferIdentifier(), Opts);
  if (!Pick)
    return Pick.takeError();
  if (identify_magic(Pick->Buffer.getBuffer()) != file_magic::archive)
    return nullptr;
  StringRef Slice = Pick->Buffer.getBuffer();
  return std::make_unique<SliceBuffer>(std::move(File), Slice);
}

Expected<std::unique_ptr<Binary>> readMachO(MemoryBufferRef Buffer,
                                            std::string DisplayPath,
                                            const ReadOptions &Opts) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::tapi_file)
    return readTextStub(Buffer, std::move(DisplayPath), Opts);
  // ReadOptions::Arch picks a slice; a thin file is what it is, and the
  // loader model says whether it fits.
  if (Magic != file_magic::macho_universal_binary)
    return readThin(Buffer, std::move(DisplayPath));

  auto Pick = pickSlice(Buffer, DisplayPath, Opts);
  if (!Pick)
    return Pick.takeError();
  const MemoryBufferRef &Slice = Pick->Buffer;
  file_magic SliceMagic = identify_magic(Slice.getBuffer());
  if (SliceMagic == file_magic::archive)
    return fileError(DisplayPath,
                     formatv("the {0} slice is a static archive, not an object, "
                             "executable or shared library",
                             Pick->Arch));
  switch (SliceMagic) {
  case file_magic::macho_object:
  case file_magic::macho_executable:
  case file_magic::macho_dynamically_linked_shared_lib:
  case file_magic::macho_dynamically_linked_shared_lib_stub:
  case file_magic::macho_bundle:
    break;
  default:
    return fileError(DisplayPath, formatv("the {0} slice is not a Mach-O file",
                                          Pick->Arch));
  }
  return readThin(Slice, std::move(DisplayPath), Pick->CpuType, Pick->Index);
}

} // namespace aoti::audit::detail
