//===- ArchiveFuzzer.cpp - libFuzzer target: Archive::create --------------===//
//
// Any bytes, read as a static archive: the symbol index, every member's
// header and name, and every member read as a binary (Touch.h). A thin
// archive's members are files on disk; ci/fuzz.sh runs the fuzzer in a
// scratch directory so the paths it names are empty or absent.
//
//===----------------------------------------------------------------------===//
#include "Touch.h"

#include "aoti/audit/Reader.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto Buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size), "fuzz.a");
  auto ArOrErr = aoti::audit::Archive::create("fuzz.a", std::move(Buffer));
  if (!ArOrErr) {
    llvm::consumeError(ArOrErr.takeError());
    return 0;
  }
  const aoti::audit::Archive &Ar = **ArOrErr;
  size_t H = Ar.isThin() + Ar.hasSymbolIndex();
  for (const auto &E : Ar.symbolIndex()) {
    H += E.Name.size();
    // An index entry must name a member that exists.
    if (E.MemberIndex >= Ar.members().size())
      __builtin_trap();
  }
  for (size_t I = 0; I < Ar.members().size(); ++I) {
    H += Ar.members()[I].Name.size() + Ar.members()[I].Offset +
         Ar.memberDisplayName(I).size();
    auto MemberOrErr = Ar.member(I);
    if (!MemberOrErr) {
      llvm::consumeError(MemberOrErr.takeError());
      continue;
    }
    H += aoti::fuzz::touch(*MemberOrErr);
  }
  volatile size_t Sink = H;
  (void)Sink;
  return 0;
}
