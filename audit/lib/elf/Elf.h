//===- elf/Elf.h - The ELF reader's entry points (private) ----------------===//
//
// Internal to the folder: the readers its files define, which ElfFormat.cpp
// puts behind the folder's one entry point, elfFormat() (Format.h).
// Nothing outside elf/ includes this.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_ELF_ELF_H
#define AOTI_AUDIT_LIB_ELF_ELF_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/link/Sections.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace aoti::audit::detail {

/// An ELF object, executable or shared library, any class and byte order
/// (ElfReader.cpp).
llvm::Expected<std::unique_ptr<Binary>> readELF(llvm::MemoryBufferRef Buffer,
                                                std::string DisplayPath);

/// The section graph --gc-sections walks, of an ELF relocatable object
/// (ElfSections.cpp).
llvm::Expected<ObjectSections> readELFSections(llvm::MemoryBufferRef Object,
                                               llvm::StringRef DisplayName);

} // namespace aoti::audit::detail

#endif
