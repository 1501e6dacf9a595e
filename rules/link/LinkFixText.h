//===- LinkFixText.h - Fix wording shared by the link rules ---------------===//
//
// A fix is written for the link line it came from: the user's own word
// (`-lshims`, `lib/libshims.a`) wrapped in the spelling that command takes
// (-Wl,... for a driver, bare for a linker), or the CMake command that makes
// CMake write it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_LINK_LINKFIXTEXT_H
#define AOTI_RULES_LINK_LINKFIXTEXT_H

#include "check/FixText.h"

#include "aoti/audit/link/Model.h"

#include <string>

namespace aoti::rules::linkfix {

/// `name` in backquotes: FixText.h's, the one spelling of a quote.
using fixtext::quote;

/// How the user wrote the input (`-lshims`), for messages.
std::string written(const audit::LinkFacts &F, int Input);

/// "wrap `-lshims` in `-Wl,--whole-archive … -Wl,--no-whole-archive`".
std::string wholeArchive(const audit::LinkFacts &F, int Input);

/// "add `-rdynamic` (or ...)".
std::string exportDynamic(const audit::LinkFacts &F);

/// The fix for a required name the link leaves out: force-link, then (when
/// the replay says so) export.
std::string pullInAndExport(const audit::LinkFacts &F, int Input);

/// A symbol the way the linker names it in its messages: GNU ld, lld and
/// ld64 demangle C++ names by default ("undefined reference to
/// `ns::f(int)'"); a Mach-O name loses the leading '_' first.
std::string linkerSpelling(const audit::LinkFacts &F, llvm::StringRef Name);

/// "ld.lld" / "GNU ld": the linker's own name, for quoting its messages.
std::string linkerName(const audit::LinkFacts &F);

/// `*` after the first prefix, for --export-dynamic-symbol globs.
std::string prefixGlob(const audit::LinkFacts &F);

} // namespace aoti::rules::linkfix

#endif
