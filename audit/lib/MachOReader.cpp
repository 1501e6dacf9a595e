//===- MachOReader.cpp - Mach-O files into the binary model ---------------===//
#include "aoti/audit/Reader.h"

using namespace llvm;

namespace aoti::audit::detail {

Expected<std::unique_ptr<Binary>> readMachO(MemoryBufferRef,
                                            std::string DisplayPath,
                                            const ReadOptions &) {
  return createStringError(inconvertibleErrorCode(),
                           "%s: Mach-O files are not supported yet",
                           DisplayPath.c_str());
}

} // namespace aoti::audit::detail
