//===- MachOSections.cpp - Mach-O atoms and relocations for -dead_strip ---===//
//
// ld64 dead-strips atoms, not sections: an object built with
// MH_SUBSECTIONS_VIA_SYMBOLS (every compiler's default) is cut at each
// symbol, and each piece lives or dies on its own. Here every atom is one
// ObjectSections::Section, so the format-neutral graph walk in link/MarkLive.cpp
// works unchanged.
//
// Kept whatever refers to them: S_MOD_INIT_FUNC_POINTERS and
// S_MOD_TERM_FUNC_POINTERS sections, S_INIT_FUNC_OFFSETS, sections with
// S_ATTR_NO_DEAD_STRIP, and atoms of symbols marked N_NO_DEAD_STRIP or
// REFERENCED_DYNAMICALLY. __compact_unwind and __eh_frame refer to every
// function they describe but keep none alive; debug sections neither.
//
// A relocation to a symbol targets that symbol; one to a section (r_extern
// 0) is taken to target every atom of that section, which can only keep
// more alive than ld64 does.
//
//===----------------------------------------------------------------------===//
#include "MachO.h"
#include "MachONList.h"

#include "aoti/audit/Error.h"

#include "llvm/BinaryFormat/MachO.h"
#include "llvm/Object/MachO.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {

Expected<ObjectSections> readMachOSections(MemoryBufferRef Buf,
                                           StringRef Name) {
  auto ObjOrErr = ObjectFile::createMachOObjectFile(Buf);
  if (!ObjOrErr)
    return fileError(Name, toString(ObjOrErr.takeError()));
  const MachOObjectFile &O = **ObjOrErr;
  bool Split = O.getHeader().flags & MachO::MH_SUBSECTIONS_VIA_SYMBOLS;
  bool Arm64 = O.getHeader().cputype == MachO::CPU_TYPE_ARM64;

  struct Sec {
    uint64_t Addr = 0, Size = 0;
    std::vector<std::pair<uint64_t, uint32_t>> Starts; // address -> atom
  };
  std::vector<Sec> Secs;
  ObjectSections Out;
  std::vector<std::pair<bool, bool>> SecRootInert;
  std::vector<std::string> SecNames;
  for (const SectionRef &S : O.sections()) {
    DataRefImpl D = S.getRawDataRefImpl();
    uint32_t Flags = O.is64Bit() ? O.getSection64(D).flags
                                 : O.getSection(D).flags;
    uint32_t Type = Flags & MachO::SECTION_TYPE;
    StringRef Seg = O.getSectionFinalSegmentName(D);
    auto SN = S.getName();
    StringRef Sect = SN ? *SN : StringRef();
    if (!SN)
      consumeError(SN.takeError());
    bool Root = Type == MachO::S_MOD_INIT_FUNC_POINTERS ||
                Type == MachO::S_MOD_TERM_FUNC_POINTERS ||
                Type == MachO::S_INIT_FUNC_OFFSETS ||
                (Flags & MachO::S_ATTR_NO_DEAD_STRIP);
    bool Inert = (Flags & MachO::S_ATTR_DEBUG) || Seg == "__DWARF" ||
                 Sect == "__compact_unwind" || Sect == "__eh_frame";
    Secs.push_back({S.getAddress(), S.getSize(), {}});
    SecRootInert.push_back({Root, Inert});
    SecNames.push_back((Seg + "," + Sect).str());
  }

  // Atom boundaries: the section start, then each symbol's address when the
  // object is split (alternate entry points start no atom).
  std::vector<std::pair<DataRefImpl, NList>> Syms;
  for (const SymbolRef &SR : O.symbols()) {
    DataRefImpl D = SR.getRawDataRefImpl();
    NList N = nlistOf(O, D);
    Syms.push_back({D, N});
  }
  std::vector<std::vector<uint64_t>> Bounds(Secs.size());
  for (size_t K = 0; K < Secs.size(); ++K)
    Bounds[K].push_back(Secs[K].Addr);
  for (const auto &[D, N] : Syms) {
    if ((N.Type & MachO::N_STAB) || (N.Type & MachO::N_TYPE) != MachO::N_SECT)
      continue;
    if (N.Sect == 0 || N.Sect > Secs.size())
      continue;
    if (Split && !(N.Desc & MachO::N_ALT_ENTRY))
      Bounds[N.Sect - 1].push_back(N.Value);
  }
  for (size_t K = 0; K < Secs.size(); ++K) {
    std::vector<uint64_t> &B = Bounds[K];
    std::sort(B.begin(), B.end());
    B.erase(std::unique(B.begin(), B.end()), B.end());
    for (uint64_t A : B) {
      uint32_t Atom = uint32_t(Out.Sections.size());
      Secs[K].Starts.push_back({A, Atom});
      ObjectSections::Section S;
      S.Name = SecNames[K];
      S.Root = SecRootInert[K].first;
      S.Inert = SecRootInert[K].second;
      Out.Sections.push_back(std::move(S));
    }
  }
  auto AtomAt = [&](size_t K, uint64_t Addr) -> uint32_t {
    const auto &St = Secs[K].Starts;
    auto It = std::upper_bound(
        St.begin(), St.end(), Addr,
        [](uint64_t A, const std::pair<uint64_t, uint32_t> &P) {
          return A < P.first;
        });
    if (It == St.begin())
      return St.empty() ? ObjectSections::NoSection : St.front().second;
    return std::prev(It)->second;
  };

  // Symbol index -> (atom, or global name).
  struct SymInfo {
    uint32_t Atom = ObjectSections::NoSection;
    std::string Global;
  };
  std::vector<SymInfo> Info(Syms.size());
  for (size_t I = 0; I < Syms.size(); ++I) {
    const NList &N = Syms[I].second;
    if (N.Type & MachO::N_STAB)
      continue;
    uint8_t T = N.Type & MachO::N_TYPE;
    uint32_t Atom = ObjectSections::NoSection;
    if (T == MachO::N_SECT && N.Sect > 0 && N.Sect <= Secs.size())
      Atom = AtomAt(N.Sect - 1, N.Value);
    bool External = N.Type & MachO::N_EXT;
    if (Atom != ObjectSections::NoSection &&
        (N.Desc & (MachO::N_NO_DEAD_STRIP | MachO::REFERENCED_DYNAMICALLY)))
      Out.Sections[Atom].Root = true;
    if (External) {
      std::optional<StringRef> Found = nlistName(O, N);
      if (!Found || Found->empty())
        continue;
      StringRef SName = *Found;
      Info[I].Global = SName.str();
      bool Defined = T == MachO::N_SECT || T == MachO::N_ABS ||
                     (T == MachO::N_UNDF && N.Value != 0); // common
      if (Defined)
        Out.DefinedIn[SName] = Atom;
    } else {
      Info[I].Atom = Atom;
    }
  }

  size_t K = 0;
  for (const SectionRef &S : O.sections()) {
    for (const RelocationRef &R : S.relocations()) {
      DataRefImpl RD = R.getRawDataRefImpl();
      MachO::any_relocation_info RE = O.getRelocation(RD);
      if (O.isRelocationScattered(RE))
        continue; // 32-bit only; not dead-stripped here
      if (Arm64 && O.getAnyRelocationType(RE) == MachO::ARM64_RELOC_ADDEND)
        continue; // its "symbol" field is the addend
      uint32_t From = AtomAt(K, Secs[K].Addr + R.getOffset());
      if (From == ObjectSections::NoSection || Out.Sections[From].Inert)
        continue;
      uint32_t Num = O.getPlainRelocationSymbolNum(RE);
      if (O.getPlainRelocationExternal(RE)) {
        if (Num >= Info.size())
          continue;
        if (!Info[Num].Global.empty())
          Out.Sections[From].SymbolTargets.push_back(Info[Num].Global);
        else if (Info[Num].Atom != ObjectSections::NoSection)
          Out.Sections[From].LocalTargets.push_back(Info[Num].Atom);
        continue;
      }
      if (Num >= 1 && Num <= Secs.size())
        for (const auto &[A, Atom] : Secs[Num - 1].Starts)
          Out.Sections[From].LocalTargets.push_back(Atom);
    }
    ++K;
  }
  return Out;
}

} // namespace aoti::audit::detail
