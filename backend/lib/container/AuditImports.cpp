//===- AuditImports.cpp - A model's dynamic symbols, read by aoti::audit --===//
//
// The model's imports, exports and needed libraries, and the span of its
// constants section, from the audit library's format-neutral model (LLVM
// libObject underneath): the model's file is read here once.
//
//===----------------------------------------------------------------------===//
#include "DynamicImports.h"

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"

#include "llvm/Support/Error.h"

namespace aoti::backend {

/// End minus start of the constants section, when Symbols defines both.
static std::optional<uint64_t> constantsSpan(const std::vector<audit::Symbol> &Symbols) {
  std::optional<uint64_t> Start, End;
  for (const audit::Symbol &S : Symbols) {
    if (!S.Defined)
      continue;
    if (S.Name == "_binary_constants_bin_start")
      Start = S.Value;
    else if (S.Name == "_binary_constants_bin_end")
      End = S.Value;
  }
  if (Start && End && *End >= *Start)
    return *End - *Start;
  return std::nullopt;
}

Expected<DynamicImports> readDynamicImports(const std::string &Path) {
  llvm::Expected<std::unique_ptr<audit::Binary>> B = audit::readBinary(Path);
  if (!B)
    return Error(ErrorKind::NotAModel, Path + ": " + llvm::toString(B.takeError()));
  const audit::Binary &Bin = **B;
  if (Bin.format() != audit::BinaryFormat::ELF ||
      Bin.kind() != audit::FileKind::SharedLibrary)
    return Error(ErrorKind::NotAModel, Path + ": not an ELF shared object");
  DynamicImports R;
  for (const audit::Symbol &S : Bin.dynamicSymbols()) {
    if (S.Name.empty())
      continue;
    if (!S.Defined)
      R.Imports.push_back({S.Name.str(), S.Version.str(), S.isWeak()});
    else if (S.isExportedDefinition())
      R.Exports.push_back(S.Name.str());
  }
  for (const audit::Dependency &D : Bin.dependencies())
    R.Needed.push_back(D.Name.str());
  R.EmbeddedConstantsSize = constantsSpan(Bin.dynamicSymbols());
  if (!R.EmbeddedConstantsSize)
    R.EmbeddedConstantsSize = constantsSpan(Bin.staticSymbols());
  return R;
}

} // namespace aoti::backend
