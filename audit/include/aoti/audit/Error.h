//===- Error.h - The audit's error values ---------------------------------===//
//
// Every failure in the audit library is an llvm::Error whose message is a
// sentence a user can act on. Most are about one file and read
// "PATH: what is wrong"; the rest name what they are about themselves. These
// two helpers are the only way the library spells either, so the shape of a
// message does not depend on which file raised it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_ERROR_H
#define AOTI_AUDIT_ERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <system_error>

namespace aoti::audit {

/// An error whose message is \p Msg.
inline llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// An error about the file \p Path: "PATH: MSG".
inline llvm::Error fileError(llvm::StringRef Path, const llvm::Twine &Msg) {
  return makeError(Path + ": " + Msg);
}

/// \p E, prefixed with the file it is about.
inline llvm::Error fileError(llvm::StringRef Path, llvm::Error E) {
  return fileError(Path, llvm::toString(std::move(E)));
}

/// A system error (open, read, write) on \p Path, keeping its error code.
inline llvm::Error fileError(llvm::StringRef Path, std::error_code EC) {
  return llvm::createStringError(EC, Path + ": " + EC.message());
}

} // namespace aoti::audit

#endif // AOTI_AUDIT_ERROR_H
