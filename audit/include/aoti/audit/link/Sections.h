//===- link/Sections.h - What --gc-sections needs from an object ----------===//
//
// Garbage collection of sections keeps what is reachable from the roots
// (the entry point, exported symbols, -u, sections the default linker script
// KEEPs) through relocations. This is the one part of the static-link model
// that needs more than symbol tables, so it reads sections and relocations
// itself, only when a link uses --gc-sections (ld64: -dead_strip). The ELF
// reader is elf/ElfSections.cpp, the Mach-O one (atoms, not sections)
// macho/MachOSections.cpp; the graph below is format-neutral.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LINKSECTIONS_H
#define AOTI_AUDIT_LINKSECTIONS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

struct ObjectSections {
  static constexpr uint32_t NoSection = UINT32_MAX; // absolute, common

  struct Section {
    std::string Name;
    /// Kept whatever refers to it: .init_array and friends, notes,
    /// SHF_GNU_RETAIN, .init/.fini.
    bool Root = false;
    /// Neither collected nor a source of liveness: non-allocated sections
    /// (debug info) and .eh_frame, whose references do not keep code alive.
    bool Inert = false;
    std::vector<uint32_t> LocalTargets;     // sections of this object
    std::vector<std::string> SymbolTargets; // global names it refers to
  };
  std::vector<Section> Sections;
  /// Global definitions: name -> section (NoSection for absolute/common).
  llvm::StringMap<uint32_t> DefinedIn;
};

/// Reads the section graph of a relocatable object, through its format's
/// reader (Reader.cpp dispatches).
llvm::Expected<ObjectSections> readObjectSections(llvm::MemoryBufferRef Object,
                                                  llvm::StringRef DisplayName);

/// The bytes of a file (Member < 0) or of member Member of an archive.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readObjectBytes(llvm::StringRef Path, int Member);

} // namespace aoti::audit

#endif
