//===- MachONList.h - Mach-O symbol table entries, read safely -----------===//
//
// Internal to the audit library: the Mach-O reader and the -dead_strip atom
// reader both walk nlist entries.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_MACHONLIST_H
#define AOTI_AUDIT_LIB_MACHONLIST_H

#include "llvm/BinaryFormat/MachO.h"
#include "llvm/Object/MachO.h"

#include <optional>

namespace aoti::audit::detail {

/// One nlist or nlist_64 entry, widened.
struct NList {
  uint32_t Strx = 0;
  uint8_t Type = 0, Sect = 0;
  uint16_t Desc = 0;
  uint64_t Value = 0;
};

inline NList nlistOf(const llvm::object::MachOObjectFile &Obj,
                     llvm::object::DataRefImpl D) {
  if (Obj.is64Bit()) {
    llvm::MachO::nlist_64 N = Obj.getSymbol64TableEntry(D);
    return {N.n_strx, N.n_type, N.n_sect, N.n_desc, N.n_value};
  }
  llvm::MachO::nlist N = Obj.getSymbolTableEntry(D);
  return {N.n_strx, N.n_type, N.n_sect, uint16_t(N.n_desc), N.n_value};
}

/// The entry's name, read inside the string table. (SymbolRef::getName()
/// checks only where the name starts, then runs strlen: a string table
/// without a final NUL made it read past the end of the file.)
inline std::optional<llvm::StringRef>
nlistName(const llvm::object::MachOObjectFile &Obj, const NList &N) {
  llvm::StringRef Table = Obj.getStringTableData();
  if (N.Strx >= Table.size())
    return std::nullopt;
  llvm::StringRef Rest = Table.drop_front(N.Strx);
  size_t End = Rest.find('\0');
  if (End == llvm::StringRef::npos)
    return std::nullopt;
  return Rest.take_front(End);
}

} // namespace aoti::audit::detail

#endif
