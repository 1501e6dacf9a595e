//===- FixText.h - The wording every rule shares --------------------------===//
//
// The same cause must read the same way everywhere, in the terms of the
// platform it is about (GNU/ELF flags or Apple ld64 flags). One module for
// every command: the words (quote, base), then the fixes in terms of a
// binary (check), of a link line (link: the user's own word, `-lshims`,
// wrapped in the spelling that command takes -- -Wl,... for a driver, bare
// for a linker -- or the CMake command that makes CMake write it), and of a
// duplicate (dups). The platform's own words come from its Vocabulary
// (Vocabulary.h), chosen once from the binary or the link line; neither
// this module nor a rule asks which platform it is.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_FIXTEXT_H
#define AOTI_RULES_FIXTEXT_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/dups/Dups.h"
#include "aoti/audit/link/Model.h"
#include "aoti/rules/Finding.h"

#include "Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>
#include <vector>

namespace aoti::rules::fixtext {

// --- one wording per cause, for both commands ------------------------------

/// The link a fix changes: the one that makes Image, in the words it takes.
/// check knows only the image and speaks the compiler driver's flags (naming
/// CMake's and Bazel's too); link knows its command line and its build.
struct LinkSite {
  const Vocabulary *Words;
  std::string Image; ///< file name of what the link makes
  enum class Spelling { Driver, Linker, CMake } How;
  std::string Target; ///< the CMake target; else the image's name
  bool StaticOutput;  ///< a static executable, which exports nothing
};

/// A static archive to force-link.
struct ArchiveToLink {
  std::string Written; ///< as the link names it: `-lshims`, a path
  std::string Path;    ///< where it is, for -force_load
  std::string Library; ///< the library a build system knows it by
  std::string Script;  ///< the input script that named it, or ""
};

/// "link `app` with `-Wl,--export-dynamic` (...)": the fix for names an
/// executable defines but does not export (AOTI002, AOTI003, AOTI202,
/// AOTI203).
std::string exportDynamic(const LinkSite &S, llvm::StringRef Glob);

/// "force-link `-lshims`: wrap it in ...": the fix for archive members the
/// link left out (AOTI003, AOTI201).
std::string wholeArchive(const LinkSite &S, const ArchiveToLink &A);

/// wholeArchive, then, with Export, "; then " exportDynamic.
std::string pullInAndExport(const LinkSite &S, const ArchiveToLink &A,
                            llvm::StringRef Glob, bool Export);

/// The fix for a SIMD CPU model's missing SLEEF function (AOTI001): which
/// library defines it, how this project's shims bring it, and the export
/// option that makes a model without it.
std::string vectorMath();

/// "give the definition default visibility: ...": the fix for a definition
/// hidden by its visibility (AOTI004 in check, AOTI204 in link). Subject is
/// what to change ("the definition", "the shims"); Plural says whether it
/// is one declaration or several.
std::string defaultVisibility(llvm::StringRef Subject, bool Plural);

/// The site of the link that made Image (check).
LinkSite linkSiteOf(const audit::Binary &Image);
/// The site of a link line (link).
LinkSite linkSiteOf(const audit::LinkFacts &F);

// --- words, and fixes in terms of a binary (check) -------------------------

/// `name` in backquotes, as diagnostics quote identifiers.
std::string quote(llvm::StringRef S);

/// A vocabulary phrase (a formatv pattern) with its arguments filled in.
template <typename... Ts>
std::string phrase(llvm::StringRef Pattern, Ts &&...Args) {
  return llvm::formatv(Pattern.data(), std::forward<Ts>(Args)...).str();
}

/// The file name alone, for messages; full paths go in Finding::File.
llvm::StringRef base(llvm::StringRef Path);

/// exportDynamic(LinkSite) for the link that made Host, for the names
/// under Prefix.
std::string exportDynamic(const audit::Binary &Host, llvm::StringRef Prefix);

/// pullInAndExport(LinkSite) for the link that made Host: force-link
/// Archive, then export the names under Prefix.
std::string pullInAndExport(const audit::Binary &Host, llvm::StringRef Archive,
                            llvm::StringRef Prefix);

/// The first required prefix, for globs in fixes ("aoti_torch_").
std::string firstPrefix(const std::vector<std::string> &Prefixes);

/// The glob a linker option takes for the names under Prefix: "aoti_torch_*"
/// for ELF, "_aoti_torch_*" for Mach-O (C names carry a leading '_');
/// "<name>" without a prefix.
std::string symbolGlob(const audit::Binary &B, llvm::StringRef Prefix);

/// How to make a library (not an executable) export Glob.
std::string exportFromLibrary(const audit::Binary &Lib, llvm::StringRef Glob);

// --- fixes in terms of a link line (link) ----------------------------------

/// How the user wrote the input (`-lshims`), for messages.
std::string written(const audit::LinkFacts &F, int Input);

/// wholeArchive(LinkSite) for input Input of the line.
std::string wholeArchive(const audit::LinkFacts &F, int Input);

/// exportDynamic(LinkSite) for the line's output and required names.
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

// --- duplicates (dups) ------------------------------------------------------

/// The duplicate's name in backquotes; the demangled name for C++.
std::string quote(const audit::Duplicate &D);

/// "`libfoo.a(bar.o)`, `libbaz.so`" for the definitions of one strength, or
/// all of them when Only is empty.
std::string definitions(const audit::Duplicate &D,
                        std::optional<audit::DefinitionStrength> Only = {});

/// How many definitions of one strength.
unsigned count(const audit::Duplicate &D, audit::DefinitionStrength S);

/// "(latent: ...)" / "(a plain link ... pulls in both)" for non-fatal kinds.
std::string linkState(const audit::Duplicate &D);

/// The finding every rule starts from: symbol and file filled in.
Finding start(Finding F, const audit::Duplicate &D);

} // namespace aoti::rules::fixtext

#endif
