//===- ElfSections.cpp - ELF sections and relocations for gc --------------===//
//
// What GNU ld's default script and lld keep regardless of references: the
// init/fini arrays and .ctors/.dtors (KEEP in the script), .init/.fini,
// notes, and SHF_GNU_RETAIN sections. .eh_frame refers to every function it
// describes but keeps none alive; both linkers special-case it, and so does
// this reader.
//
//===----------------------------------------------------------------------===//
#include "Elf.h"

#include "aoti/audit/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {
namespace {

bool keptByName(StringRef N) {
  return N == ".init" || N == ".fini" || N.starts_with(".ctors") ||
         N.starts_with(".dtors") || N == ".jcr" ||
         N.starts_with(".init_array") || N.starts_with(".fini_array") ||
         N.starts_with(".preinit_array");
}

template <class ELFT>
Expected<ObjectSections> readSectionsOf(MemoryBufferRef Buf, StringRef Name) {
  auto ObjOrErr = ELFFile<ELFT>::create(Buf.getBuffer());
  if (!ObjOrErr)
    return fileError(Name, toString(ObjOrErr.takeError()));
  const ELFFile<ELFT> &Obj = *ObjOrErr;
  auto Secs = Obj.sections();
  if (!Secs)
    return fileError(Name, toString(Secs.takeError()));
  ObjectSections Out;
  Out.Sections.resize(Secs->size());
  const typename ELFT::Shdr *SymTab = nullptr;
  for (size_t I = 0; I < Secs->size(); ++I) {
    const auto &S = (*Secs)[I];
    auto SecName = Obj.getSectionName(S);
    ObjectSections::Section &O = Out.Sections[I];
    O.Name = SecName ? SecName->str() : std::string();
    if (!SecName)
      consumeError(SecName.takeError());
    O.Inert = !(S.sh_flags & ELF::SHF_ALLOC) || O.Name == ".eh_frame";
    O.Root = S.sh_type == ELF::SHT_INIT_ARRAY ||
             S.sh_type == ELF::SHT_FINI_ARRAY ||
             S.sh_type == ELF::SHT_PREINIT_ARRAY ||
             S.sh_type == ELF::SHT_NOTE || (S.sh_flags & ELF::SHF_GNU_RETAIN) ||
             keptByName(O.Name);
    if (S.sh_type == ELF::SHT_SYMTAB)
      SymTab = &S;
  }
  if (!SymTab)
    return Out;
  auto Syms = Obj.symbols(SymTab);
  if (!Syms)
    return fileError(Name, toString(Syms.takeError()));
  auto StrTab = Obj.getStringTableForSymtab(*SymTab);
  if (!StrTab)
    return fileError(Name, toString(StrTab.takeError()));

  // Symbol index -> (section, or global name).
  struct SymInfo {
    uint32_t Section = ObjectSections::NoSection;
    StringRef GlobalName;
  };
  std::vector<SymInfo> Info(Syms->size());
  for (size_t I = 1; I < Syms->size(); ++I) {
    const auto &S = (*Syms)[I];
    bool Global = S.getBinding() != ELF::STB_LOCAL;
    uint16_t Shndx = S.st_shndx;
    if (Global) {
      auto N = S.getName(*StrTab);
      if (!N) {
        consumeError(N.takeError());
        continue;
      }
      Info[I].GlobalName = *N;
      if (Shndx != ELF::SHN_UNDEF)
        Out.DefinedIn[*N] = (Shndx < ELF::SHN_LORESERVE && Shndx < Secs->size())
                                ? Shndx
                                : ObjectSections::NoSection;
    } else if (Shndx != ELF::SHN_UNDEF && Shndx < ELF::SHN_LORESERVE &&
               Shndx < Secs->size()) {
      Info[I].Section = Shndx;
    }
  }

  auto AddEdge = [&](uint32_t From, uint32_t SymIndex) {
    if (SymIndex == 0 || SymIndex >= Info.size() || From >= Out.Sections.size())
      return;
    const SymInfo &SI = Info[SymIndex];
    if (!SI.GlobalName.empty())
      Out.Sections[From].SymbolTargets.push_back(SI.GlobalName.str());
    else if (SI.Section != ObjectSections::NoSection)
      Out.Sections[From].LocalTargets.push_back(SI.Section);
  };
  for (const auto &S : *Secs) {
    if (S.sh_type != ELF::SHT_RELA && S.sh_type != ELF::SHT_REL)
      continue;
    uint32_t Target = S.sh_info;
    if (Target >= Out.Sections.size() || Out.Sections[Target].Inert)
      continue;
    if (S.sh_type == ELF::SHT_RELA) {
      auto Rels = Obj.relas(S);
      if (!Rels)
        return fileError(Name, toString(Rels.takeError()));
      for (const auto &R : *Rels)
        AddEdge(Target, R.getSymbol(false));
    } else {
      auto Rels = Obj.rels(S);
      if (!Rels)
        return fileError(Name, toString(Rels.takeError()));
      for (const auto &R : *Rels)
        AddEdge(Target, R.getSymbol(false));
    }
  }
  return Out;
}

} // namespace

Expected<ObjectSections> readELFSections(MemoryBufferRef Buf, StringRef Name) {
  auto [Class, Data] = getElfArchType(Buf.getBuffer());
  if (Class == ELF::ELFCLASS64 && Data == ELF::ELFDATA2LSB)
    return readSectionsOf<ELF64LE>(Buf, Name);
  if (Class == ELF::ELFCLASS32 && Data == ELF::ELFDATA2LSB)
    return readSectionsOf<ELF32LE>(Buf, Name);
  if (Class == ELF::ELFCLASS64 && Data == ELF::ELFDATA2MSB)
    return readSectionsOf<ELF64BE>(Buf, Name);
  if (Class == ELF::ELFCLASS32 && Data == ELF::ELFDATA2MSB)
    return readSectionsOf<ELF32BE>(Buf, Name);
  return fileError(Name, "unknown ELF class");
}

} // namespace aoti::audit::detail
