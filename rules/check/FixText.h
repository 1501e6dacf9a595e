//===- FixText.h - Fix wording shared by the check rules ------------------===//
//
// The same cause must read the same way everywhere, in the terms of the
// host's platform (GNU/ELF flags or Apple ld64 flags).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_CHECK_FIXTEXT_H
#define AOTI_RULES_CHECK_FIXTEXT_H

#include "aoti/audit/Binary.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace aoti::rules::fixtext {

/// `name` in backquotes, as diagnostics quote identifiers.
std::string quote(llvm::StringRef S);

/// The file name alone, for messages; full paths go in Finding::File.
llvm::StringRef base(llvm::StringRef Path);

/// "link HOST with -Wl,--export-dynamic (...)".
std::string exportDynamic(const audit::Binary &Host, llvm::StringRef Prefix);

/// "force-link ARCHIVE with -Wl,--whole-archive (...)".
std::string wholeArchive(const audit::Binary &Host, llvm::StringRef Archive);

/// The first required prefix, for globs in fixes ("aoti_torch_").
std::string firstPrefix(const std::vector<std::string> &Prefixes);

bool isMachO(const audit::Binary &B);

/// The glob a linker option takes for the names under Prefix: "aoti_torch_*"
/// for ELF, "_aoti_torch_*" for Mach-O (C names carry a leading '_');
/// "<name>" without a prefix.
std::string symbolGlob(const audit::Binary &B, llvm::StringRef Prefix);

/// Mach-O: how to make a library (not an executable) export Glob.
std::string appleExportFromLibrary(const audit::Binary &Lib, llvm::StringRef Glob);

} // namespace aoti::rules::fixtext

#endif
