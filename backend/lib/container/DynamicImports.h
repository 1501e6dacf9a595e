//===- DynamicImports.h - What a model needs from the process --*- C++ -*-===//
//
// Before a model is opened, its undefined dynamic symbols are checked against
// this process, so that a load error names every missing symbol instead of
// the first one dlopen trips over. Reading the symbols sits behind
// readDynamicImports() so another reader (the audit library's) can replace
// the built-in ELF one without touching the check.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_DYNAMICIMPORTS_H
#define AOTI_BACKEND_DYNAMICIMPORTS_H

#include "aoti/backend/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aoti::backend {

struct ImportedSymbol {
  std::string Name;
  /// The version the reference asks for (ELF .gnu.version_r), or empty.
  std::string Version;
  bool Weak = false;
};

struct DynamicImports {
  std::vector<ImportedSymbol> Imports;
  /// DT_NEEDED entries, in order.
  std::vector<std::string> Needed;
  /// Names this object defines and exports (only those the backend asks about
  /// are needed, but the reader reports all).
  std::vector<std::string> Exports;
  /// The bytes between _binary_constants_bin_start and
  /// _binary_constants_bin_end, both defined in one symbol table (.dynsym
  /// first; a model linked with hidden visibility keeps them in .symtab):
  /// the constants section AOTInductor links into every model (model_base.h).
  /// It holds the weights when they were exported into the .so; 8 bytes (the
  /// external blob's size) with package_constants_on_disk_format=
  /// "binary_blob"; 16 (size and magic) for weights appended to the .so and
  /// mmap'd; 1 or 0 bytes when the weights were left out. nullopt when no
  /// table defines both (not a model AOTInductor generated, or stripped).
  std::optional<uint64_t> EmbeddedConstantsSize;
};

/// Reads the symbol tables of the shared object at Path, once: the loader's
/// view for the check, and the constants section's span for the weights.
Expected<DynamicImports> readDynamicImports(const std::string &Path);

struct UnresolvedSymbol {
  std::string Name;
  std::string Version;
};

/// The non-weak imports that neither the process's global scope nor the
/// object's own DT_NEEDED libraries define, in the order the object lists
/// them. Libraries in Needed are opened (RTLD_LAZY | RTLD_LOCAL) as dlopen of
/// the object itself would; one that cannot be found is skipped, and left to
/// dlopen to report.
std::vector<UnresolvedSymbol> findUnresolved(const DynamicImports &D);

} // namespace aoti::backend

#endif
