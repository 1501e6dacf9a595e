//===- BinaryFuzzer.cpp - libFuzzer target: readBinaryFromBuffer ----------===//
//
// Any bytes, read as an ELF or Mach-O object, executable or shared library:
// the read must either fail with an error value or give a Binary whose every
// fact can be read (Touch.h). Seeds: real binaries (ci/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "Touch.h"

#include "aoti/audit/Reader.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::MemoryBufferRef Buffer(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size), "fuzz-input");
  auto BinOrErr = aoti::audit::readBinaryFromBuffer(Buffer, "fuzz-input");
  if (!BinOrErr) {
    // The message must name the file; building it exercises the formatting.
    std::string Msg = llvm::toString(BinOrErr.takeError());
    if (Msg.find("fuzz-input") == std::string::npos)
      __builtin_trap();
    return 0;
  }
  volatile size_t Sink = aoti::fuzz::touch(**BinOrErr);
  (void)Sink;
  return 0;
}
