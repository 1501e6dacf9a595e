//===- EmbeddedConstants.cpp - Size of the constants section --------------===//
#include "EmbeddedConstants.h"

#include "llvm/Object/ELFObjectFile.h"

namespace aoti::backend {

std::optional<uint64_t> embeddedConstantsSize(const std::string &SoPath) {
  constexpr llvm::StringRef Start = "_binary_constants_bin_start";
  constexpr llvm::StringRef End = "_binary_constants_bin_end";
  llvm::Expected<llvm::object::OwningBinary<llvm::object::ObjectFile>> File =
      llvm::object::ObjectFile::createObjectFile(SoPath);
  if (!File) {
    llvm::consumeError(File.takeError());
    return std::nullopt;
  }
  const auto *Elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(File->getBinary());
  if (!Elf)
    return std::nullopt;
  // A table whose header claims more than the file holds is not read (LLVM
  // would walk every entry it claims).
  const uint64_t FileSize = Elf->getData().size();
  auto Sound = [&](unsigned Type) {
    for (llvm::object::ELFSectionRef Sec : Elf->sections())
      if (Sec.getType() == Type)
        return Sec.getOffset() <= FileSize && Sec.getSize() <= FileSize - Sec.getOffset();
    return false;
  };
  // Both symbols from one table: AOTInductor emits them global (so in
  // .dynsym), a model linked with hidden visibility keeps them in .symtab.
  auto Span = [&](auto Symbols) -> std::optional<uint64_t> {
    std::optional<uint64_t> S, E;
    for (const llvm::object::ELFSymbolRef &Sym : Symbols) {
      llvm::Expected<llvm::StringRef> Name = Sym.getName();
      llvm::Expected<uint64_t> Value = Sym.getValue();
      llvm::Expected<uint32_t> Flags = Sym.getFlags();
      if (!Name || !Value || !Flags) { // a malformed table: stop reading it
        llvm::consumeError(Name.takeError());
        llvm::consumeError(Value.takeError());
        llvm::consumeError(Flags.takeError());
        break;
      }
      if (*Flags & llvm::object::SymbolRef::SF_Undefined)
        continue;
      if (*Name == Start)
        S = *Value;
      else if (*Name == End)
        E = *Value;
    }
    if (S && E && *E >= *S)
      return *E - *S;
    return std::nullopt;
  };
  if (Sound(llvm::ELF::SHT_DYNSYM))
    if (std::optional<uint64_t> D = Span(Elf->getDynamicSymbolIterators()))
      return D;
  if (Sound(llvm::ELF::SHT_SYMTAB))
    return Span(Elf->symbols());
  return std::nullopt;
}

} // namespace aoti::backend
