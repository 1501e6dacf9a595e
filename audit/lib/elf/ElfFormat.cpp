//===- ElfFormat.cpp - ELF behind the reader's dispatch -------------------===//
//
// The elf/ folder's one entry point: elfFormat(), the Format Reader.cpp
// asks (Format.h). An ELF file is one image, never universal; the readers
// themselves are ElfReader.cpp (the binary model) and ElfSections.cpp (the
// --gc-sections graph). ELF adds nothing to a C name, and names a machine
// by e_machine, the way LLVM's tools do.
//
//===----------------------------------------------------------------------===//
#include "Format.h"
#include "Elf.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace aoti::audit::detail {
namespace {

/// LLVM's name for e_machine; it names every machine it does not know
/// "None", EM_NONE included, and the audit says which number it saw.
std::string machineName(const MachineId &M) {
  std::string Arch = ELF::convertEMachineToArchName(M.Machine).str();
  if (Arch == "None")
    Arch = formatv("e_machine {0}", M.Machine).str();
  return Arch;
}

const FormatInfo Info{BinaryFormat::ELF, "ELF", /*CNamePrefix=*/"",
                      machineName};

class ElfFormat final : public Format {
public:
  const FormatInfo &info() const override { return Info; }

  Detected detect(MemoryBufferRef Buffer) const override {
    switch (identify_magic(Buffer.getBuffer())) {
    case file_magic::elf:
    case file_magic::elf_relocatable:
    case file_magic::elf_executable:
    case file_magic::elf_shared_object:
    case file_magic::elf_core:
      return Detected::Image;
    default:
      return Detected::No;
    }
  }

  Expected<std::unique_ptr<Binary>> read(MemoryBufferRef Buffer,
                                         std::string DisplayPath,
                                         const ReadOptions &) const override {
    return readELF(Buffer, std::move(DisplayPath));
  }

  Expected<ObjectSections> readSections(MemoryBufferRef Object,
                                        StringRef DisplayName) const override {
    return readELFSections(Object, DisplayName);
  }
};

} // namespace

const Format &elfFormat() {
  static const ElfFormat F;
  return F;
}

} // namespace aoti::audit::detail
