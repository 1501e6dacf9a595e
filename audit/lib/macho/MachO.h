//===- macho/MachO.h - The Mach-O reader's entry points (private) ---------===//
//
// Internal to the folder: the readers its files define, which MachOFormat.cpp
// puts behind the folder's one entry point, machOFormat() (Format.h).
// Nothing outside macho/ includes this.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_MACHO_MACHO_H
#define AOTI_AUDIT_LIB_MACHO_MACHO_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"
#include "aoti/audit/link/Sections.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace aoti::audit::detail {

/// A thin or universal Mach-O file, or a .tbd text stub (MachOReader.cpp).
llvm::Expected<std::unique_ptr<Binary>>
readMachO(llvm::MemoryBufferRef Buffer, std::string DisplayPath,
          const ReadOptions &Opts);

/// A universal file whose picked slice is a static archive (lipo'd .a
/// files): takes File and returns that slice, which keeps it mapped;
/// nullptr (File untouched) when the slice is not an archive.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
takeUniversalArchiveSlice(std::unique_ptr<llvm::MemoryBuffer> &File,
                          const ReadOptions &Opts);

/// The atom graph ld64 dead-strips, one ObjectSections::Section per atom
/// (MachOSections.cpp).
llvm::Expected<ObjectSections> readMachOSections(llvm::MemoryBufferRef Object,
                                                 llvm::StringRef DisplayName);

} // namespace aoti::audit::detail

#endif
