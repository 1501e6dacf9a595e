//===- BinaryFuzzer.cpp - libFuzzer target: readBinaryFromBuffer ----------===//
//
// Any bytes, read as an ELF or Mach-O object, executable or shared library:
// the read must either fail with an error value or give a Binary whose every
// fact can be read (Touch.h). A relocatable object is also read the way
// `link --gc-sections` / `-dead_strip` reads it (link/Sections.h: ELF
// sections, Mach-O atoms, relocations). Seeds: real binaries (ci/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "Touch.h"

#include "aoti/audit/link/Sections.h"
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
  if ((*BinOrErr)->kind() == aoti::audit::FileKind::Relocatable) {
    auto Sections = aoti::audit::readObjectSections(Buffer, "fuzz-input");
    if (!Sections) {
      std::string Msg = llvm::toString(Sections.takeError());
      if (Msg.find("fuzz-input") == std::string::npos)
        __builtin_trap();
      return 0;
    }
    size_t H = 0;
    for (const auto &S : Sections->Sections) {
      H += S.Name.size() + S.Root + S.Inert;
      for (uint32_t T : S.LocalTargets) {
        // An edge must stay inside the graph.
        if (T >= Sections->Sections.size())
          __builtin_trap();
        H += T;
      }
      for (const std::string &N : S.SymbolTargets)
        H += N.size();
    }
    for (const auto &D : Sections->DefinedIn)
      H += D.getKey().size() + D.getValue();
    Sink = Sink + H;
  }
  (void)Sink;
  return 0;
}
