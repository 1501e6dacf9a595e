//===- Vocabulary.h - A platform's words, chosen once ---------------------===//
//
// The rules explain the same causes on every platform, but the words differ:
// the flag that exports a main executable's names, the one that force-links
// an archive, the loader's search variables, what the symbol tables are
// called. A Vocabulary holds one platform's words; a rule asks for the one
// its binary (check) or its link line (link) speaks, once, and formats its
// message and fix from its fields. No rule tests the format itself.
//
// The phrases are llvm::formatv patterns; each field says what {0}, {1}, ...
// stand for. A pattern may leave an argument out where the platform has no
// use for it (ld64 has no input scripts, so its force-link pattern drops
// the script note). A field is a whole phrase, not a flag, where the
// platforms' sentences differ in shape and not only in one word.
//
// Why here and not beside the reader's FormatInfo (Binary.h): FormatInfo is
// what the file format says (the C-name prefix, the machine names); these are
// the toolchains' spellings and the advice the rules give (driver flags,
// CMake properties, loader variables), which the audit library has no use
// for. The vocabulary is keyed by the format's public id, so a new format is
// a new instance in Vocabulary.cpp and one case in vocabularyFor.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_VOCABULARY_H
#define AOTI_RULES_VOCABULARY_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/link/Model.h"

#include "llvm/ADT/StringRef.h"

namespace aoti::rules::fixtext {

struct Vocabulary {
  audit::BinaryFormat Format;

  // --- both commands: fixes to the link that makes an image ---------------
  // One pattern per way of saying it: the compiler driver's flags (check
  // says these, naming the CMake and Bazel spellings too), the linker's own,
  // and CMake's commands when the link is a CMake target's.

  /// Export the required names from an executable: {0} "link dynamically
  /// (drop `-static` ...), then " for a static executable, else "", {1} the
  /// quoted executable, {2} the CMake target (else the executable's name),
  /// {3} the glob of the names.
  llvm::StringRef ExportDynamicDriver;
  llvm::StringRef ExportDynamicLinker;
  llvm::StringRef ExportDynamicCMake;

  /// Force-link a static archive: {0} the archive quoted as the link names it
  /// (`-lshims`, or its file name), {1} its path, {2} the CMake target (else
  /// the image's name), {3} the library CMake knows it by, {4} a note on the
  /// input script it came from ("" for none).
  llvm::StringRef ForceLinkDriver;
  llvm::StringRef ForceLinkLinker;
  llvm::StringRef ForceLinkCMake;

  // --- check: a loaded process -------------------------------------------

  /// A library exports a name it defines: {0} the quoted library, {1} the
  /// glob.
  llvm::StringRef ExportFromLibrary;
  /// AOTI001, a required name defined nowhere: {0} the prefix, {1} the
  /// quoted host.
  llvm::StringRef ImplementRequiredFix;
  /// AOTI001, any other name: how to bring in the library that defines it.
  llvm::StringRef LinkProviderFix;

  /// AOTI002: {0} the quoted name, {1} the quoted file that defines it.
  llvm::StringRef NotExportedMessage;

  /// AOTI004, a hidden definition: {0} the quoted name, {1} the quoted
  /// file, {2} the visibility.
  llvm::StringRef HiddenMessage;
  /// {0} fixtext::defaultVisibility's sentence, {1} how to export it from
  /// its image (exportDynamic for an executable, ExportFromLibrary for a
  /// library).
  llvm::StringRef HiddenFix;
  /// AOTI004, a local definition: {0} the quoted name, {1} the quoted file.
  llvm::StringRef LocalMessage;
  /// {0} the glob a version script takes, {1} how to export it.
  llvm::StringRef LocalFix;
  /// AOTI004, an external definition the image's export table leaves out:
  /// {0} the quoted name, {1} the quoted file.
  llvm::StringRef LeftOutMessage;
  /// {0} the glob a version script takes, {1} how to export it.
  llvm::StringRef LeftOutFix;

  /// AOTI005, a provider outside the lookup scope: {0} the quoted name, {1}
  /// the quoted library.
  llvm::StringRef OutsideScopeMessage;
  /// {0} the quoted library, {1} the quoted host, {2} the library's path.
  llvm::StringRef OutsideScopeFix;

  /// AOTI008: {0} the quoted library, {1} the quoted requester, {2} how many
  /// paths were tried, {3} "; skipped ..." notes, {4} the consequence.
  llvm::StringRef LibraryNotFoundMessage;
  /// The consequence for a plugin's library ("" to say none).
  llvm::StringRef PluginLibraryNotFound;
  /// {0} the library's name, {1} it quoted, {2} its file name, {3} the
  /// quoted requester.
  llvm::StringRef LibraryNotFoundFix;

  // --- link: a link line ---------------------------------------------------

  /// AOTI203: {0} the quoted name, {1} the object; then what follows the
  /// export fix (why exporting keeps it).
  llvm::StringRef DiscardedMessage;
  llvm::StringRef DiscardedFixNote;

  /// AOTI204, hidden in the output: {0} the quoted name, {1} the object.
  llvm::StringRef MadeHiddenMessage;

  /// AOTI208. Whether the linker fails on an undefined entry point (ld64
  /// reports it as it reports -u); then the message, {0} the quoted name,
  /// {1} the name, and the fix, which takes none. Both "" where it does not.
  bool UndefinedEntryFails;
  llvm::StringRef UndefinedEntryMessage;
  llvm::StringRef UndefinedEntryFix;
  /// A name the line requires defined: {0} the name.
  llvm::StringRef RequireDefinedMessage;
  /// Whether an archive read before a reference is not searched again (the
  /// GNU rule the model applies to ELF lines), so that order is the fix.
  bool InputOrderMatters;
  /// After "add the object or library that defines X to the link line":
  /// {0} the input that refers to it.
  llvm::StringRef AddDefinerWhere;
  /// And for a shared library or bundle, whose host may define it.
  llvm::StringRef PluginMayLeaveUndefined;

  const audit::FormatInfo &formatInfo() const {
    return audit::formatInfo(Format);
  }
};

/// The words of format F's platform.
const Vocabulary &vocabularyFor(audit::BinaryFormat F);
/// The words of B's platform.
const Vocabulary &vocabularyFor(const audit::Binary &B);
/// The words of the platform a link line targets (ld64: Mach-O).
const Vocabulary &vocabularyFor(const audit::LinkFacts &F);

} // namespace aoti::rules::fixtext

#endif
