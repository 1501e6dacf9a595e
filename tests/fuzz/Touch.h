//===- Touch.h - Reading every fact of a Binary, for the fuzzers ----------===//
//
// A reader that defers work (the lazy symbol tables, the hash-table lookups)
// hides its bugs from a fuzzer that only constructs the Binary, so both
// fuzzers read every fact the model offers, the way the loader model and the
// rules would.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_FUZZ_TOUCH_H
#define AOTI_TESTS_FUZZ_TOUCH_H

#include "aoti/audit/Binary.h"

#include <cstddef>

namespace aoti::fuzz {

/// Folds every string and flag into a value the optimizer cannot drop.
inline size_t touch(const audit::Symbol &S) {
  return S.Name.size() + S.Version.size() + S.SourceLibrary.size() +
         S.ImportName.size() + size_t(S.Binding) + size_t(S.Visibility) +
         size_t(S.Type) + S.Defined + S.VersionHidden + S.ReExport +
         size_t(S.LibraryOrdinal) + S.VersionIndex + S.VersionHash;
}

inline size_t touch(const audit::Binary &B) {
  size_t H = B.path().size() + B.fileName().size() + B.archName().size() +
             B.soname().size() + B.interpreter().size() + size_t(B.kind()) +
             B.machine().Machine + B.noDefaultLib() + B.bindNow() +
             B.twoLevelNamespace() + B.hasSymbolVersions() + B.fixedAddress() +
             B.markedPie() + B.noDlopen() + B.isStaticExecutable();
  for (const audit::Dependency &D : B.dependencies())
    H += D.Name.size() + size_t(D.DepKind);
  for (llvm::StringRef P : B.rpath())
    H += P.size();
  for (llvm::StringRef P : B.runpath())
    H += P.size();
  for (const audit::VersionDefinition &V : B.versionDefinitions())
    H += V.Name.size() + V.IsBase + V.Hash;
  for (const audit::VersionRequirement &R : B.versionRequirements()) {
    H += R.File.size();
    for (const auto &E : R.Versions)
      H += E.Name.size() + E.Weak + E.Hash;
  }
  // Look names up before and after reading the whole table: the first
  // lookups go through the file's hash table, the later ones may not.
  for (llvm::StringRef Name : {"aoti_torch_get_device", "good_function", "",
                               "AOTInductorModelContainerCreateWithDevice"})
    for (const audit::Symbol *S : B.findExportedDefinitions(Name))
      H += touch(*S);
  const auto &Dyn = B.dynamicSymbols();
  for (const audit::Symbol &S : Dyn)
    H += touch(S);
  for (size_t I = 0; I < Dyn.size() && I < 64; ++I)
    for (const audit::Symbol *S : B.findExportedDefinitions(Dyn[I].Name))
      H += touch(*S);
  for (const audit::Symbol &S : B.staticSymbols())
    H += touch(S);
  for (const audit::Symbol &S : B.linkSymbols())
    H += touch(S);
  return H;
}

} // namespace aoti::fuzz

#endif
