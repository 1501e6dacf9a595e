//===- link/BuildSystem.h - Link commands out of a build tree -------------===//
//
// `aoti-audit link` lints the link a build will run. Two sources:
//
//   CMake's File API. The query file DIR/.cmake/api/v1/query/codemodel-v2 is
//   written (nothing is run); the next cmake run answers it under
//   .cmake/api/v1/reply/. Each EXECUTABLE, SHARED_LIBRARY and MODULE_LIBRARY
//   target's link is rebuilt from the reply the way CMake's link rule writes
//   it: compiler, flags, the target's objects, `-o` artifact, then the
//   link.commandFragments (libraryPath, libraries) in order.
//
//   Ninja. `ninja -C DIR -t commands TARGET` prints every command TARGET
//   needs; the last one links it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LINKBUILDSYSTEM_H
#define AOTI_AUDIT_LINKBUILDSYSTEM_H

#include "aoti/audit/link/Model.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace aoti::audit {

struct BuildSystemLink {
  std::string Target;
  std::string Type; // EXECUTABLE, SHARED_LIBRARY, MODULE_LIBRARY
  std::vector<std::string> Argv;
  std::string Cwd;
  LinkBuildContext Context;
  /// Objects the reply names that are not built yet.
  std::vector<std::string> MissingObjects;
};

/// What the File API gave. When cmake has not answered the query yet,
/// NeedsCMakeRun is set (the query is in place for its next run).
struct CMakeLinks {
  bool NeedsCMakeRun = false;
  std::string QueryPath;
  std::vector<BuildSystemLink> Links;
};

llvm::Expected<CMakeLinks> readCMakeLinks(llvm::StringRef BuildDir);

llvm::Expected<BuildSystemLink> readNinjaLink(llvm::StringRef BuildDir,
                                              llvm::StringRef Target);

} // namespace aoti::audit

#endif
