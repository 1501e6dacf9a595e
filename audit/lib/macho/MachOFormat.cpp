//===- MachOFormat.cpp - Mach-O behind the reader's dispatch --------------===//
//
// The macho/ folder's one entry point: machOFormat(), the Format Reader.cpp
// asks (Format.h). Three kinds of file are Mach-O here: a thin image, a
// universal (fat) file of several, one per architecture, and a .tbd text
// stub, which stands for the dylib it describes (SDKs ship stubs, not
// dylibs). The readers themselves are MachOReader.cpp (the binary model,
// a slice of a universal file) and MachOSections.cpp (the -dead_strip atom
// graph). The compiler puts '_' before every C name, and a machine is named
// by its cputype, the way lipo and ld64 name slices.
//
//===----------------------------------------------------------------------===//
#include "Format.h"
#include "MachO.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/BinaryFormat/MachO.h"
#include "llvm/Object/MachOUniversal.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace llvm::object;

namespace aoti::audit::detail {
namespace {

/// identify_magic() takes any text that opens with '{' for a JSON .tbd stub
/// (TAPI v5), and so every JSON file: CMake's File API replies, compile
/// databases, package metadata. A stub says what it is: a JSON one has a
/// "tapi_tbd_version" key, a YAML one opens with "--- !tapi" (or "---"
/// and the v1 keys, which identify_magic checks itself).
bool isTextStub(StringRef Text) {
  if (!Text.starts_with("{"))
    return true;
  return Text.contains("\"tapi_tbd_version\"");
}

/// MachineId keeps cputype folded to 16 bits (MachOReader.cpp); unfolded,
/// it names the slice the way lipo does.
std::string machineName(const MachineId &M) {
  uint32_t CpuType = uint32_t(M.Machine & 0xff) | (uint32_t(M.Machine & 0xff00) << 16);
  switch (CpuType) {
  case MachO::CPU_TYPE_ARM64: return "arm64";
  case MachO::CPU_TYPE_ARM64_32: return "arm64_32";
  case MachO::CPU_TYPE_X86_64: return "x86_64";
  case MachO::CPU_TYPE_ARM: return "arm";
  case MachO::CPU_TYPE_I386: return "i386";
  case MachO::CPU_TYPE_POWERPC: return "ppc";
  case MachO::CPU_TYPE_POWERPC64: return "ppc64";
  default: return formatv("cputype {0}", CpuType).str();
  }
}

const FormatInfo Info{BinaryFormat::MachO, "Mach-O", /*CNamePrefix=*/"_",
                      machineName};

class MachOFormat final : public Format {
public:
  const FormatInfo &info() const override { return Info; }

  Detected detect(MemoryBufferRef Buffer) const override {
    switch (identify_magic(Buffer.getBuffer())) {
    case file_magic::macho_object:
    case file_magic::macho_executable:
    case file_magic::macho_fixed_virtual_memory_shared_lib:
    case file_magic::macho_core:
    case file_magic::macho_preload_executable:
    case file_magic::macho_dynamically_linked_shared_lib:
    case file_magic::macho_dynamic_linker:
    case file_magic::macho_bundle:
    case file_magic::macho_dynamically_linked_shared_lib_stub:
    case file_magic::macho_dsym_companion:
    case file_magic::macho_kext_bundle:
    case file_magic::macho_file_set:
    case file_magic::tapi_file: // a .tbd stub stands for a dylib (SDKs)
      return isTextStub(Buffer.getBuffer()) ? Detected::Image : Detected::No;
    case file_magic::macho_universal_binary:
      return Detected::Universal;
    default:
      return Detected::No;
    }
  }

  Expected<std::unique_ptr<Binary>> read(MemoryBufferRef Buffer,
                                         std::string DisplayPath,
                                         const ReadOptions &Opts) const override {
    return readMachO(Buffer, std::move(DisplayPath), Opts);
  }

  Expected<ObjectSections> readSections(MemoryBufferRef Object,
                                        StringRef DisplayName) const override {
    return readMachOSections(Object, DisplayName);
  }

  Expected<std::vector<std::string>>
  slices(MemoryBufferRef Universal, StringRef DisplayPath) const override {
    auto UB = MachOUniversalBinary::create(Universal);
    if (!UB)
      return fileError(DisplayPath, UB.takeError());
    std::vector<std::string> Out;
    for (const MachOUniversalBinary::ObjectForArch &O : (*UB)->objects())
      Out.push_back(O.getArchFlagName());
    return Out;
  }

  Expected<std::unique_ptr<MemoryBuffer>>
  takeArchiveSlice(std::unique_ptr<MemoryBuffer> &File,
                   const ReadOptions &Opts) const override {
    return takeUniversalArchiveSlice(File, Opts);
  }
};

} // namespace

const Format &machOFormat() {
  static const MachOFormat F;
  return F;
}

} // namespace aoti::audit::detail
