//===- AuditImports.cpp - A model's dynamic symbols, read by aoti::audit --===//
//
// The model's imports, exports and needed libraries, from the audit library's
// format-neutral model (LLVM libObject underneath).
//
//===----------------------------------------------------------------------===//
#include "DynamicImports.h"

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"

#include "llvm/Support/Error.h"

namespace aoti::backend {

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
  return R;
}

} // namespace aoti::backend
