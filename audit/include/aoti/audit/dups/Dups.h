//===- dups/Dups.h - Names defined more than once among link inputs -------===//
//
// analyzeDups() reads a set of link inputs (objects, archives, shared
// libraries) and returns, for every name that two or more of them define, each
// definition with its binding and whether a plain link of these inputs already
// pulls it in. It decides nothing about severity or wording; rules/dups/ does.
//
// "A plain link" is one link of every input together, archives without
// --whole-archive and shared libraries under --as-needed, resolved the way
// lld and mold resolve (order-independent; GNU ld agrees when the objects
// come first, then the shared libraries, then the archives inside
// --start-group/--end-group):
//   * every loose object is linked;
//   * an archive member is linked when a linked file has a non-weak undefined
//     reference to a name the member defines and no other input defines that
//     name (then every link order extracts it);
//   * a shared library is loaded (kept as DT_NEEDED) on the same condition;
//     its own undefined references then pull in members too.
// A definition that is referenced but has a competing provider is "maybe"
// pulled in (it depends on link order, or on which provider wins); one that
// nothing references is "never" pulled in by a plain link: only
// --whole-archive / link_whole / -force_load (or --no-as-needed) brings it in.
// A duplicate is latent when fewer than two of its clashing definitions are
// "always" pulled in.
//
// Inputs that are GNU ld input scripts (libm.a: GROUP(libm-2.36.a
// libmvec.a)) are replaced by the files they name, as a link does. In a
// directory only binaries are read; other files are skipped and counted.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_DUPS_H
#define AOTI_AUDIT_DUPS_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

struct DupsOptions {
  /// Objects, archives, shared libraries, directories (searched recursively
  /// for those) and `@file`s listing more inputs, one per line.
  std::vector<std::string> Inputs;
  /// Names under these prefixes are looked at (matched against the demangled
  /// name for C++ names).
  std::vector<std::string> Prefixes{"aoti_torch_"};
  /// Every name, not only the prefixed ones.
  bool All = false;
  /// Look at mangled C++ names too (by default only extern "C" names).
  bool Cxx = false;
  /// Worker threads for reading inputs; 0: one per hardware thread.
  unsigned Jobs = 0;
};

/// A file the analysis left out, and why.
struct SkippedFile {
  std::string Path;
  std::string Why;
};

/// Where a definition lives.
enum class DefinitionOrigin : uint8_t { Object, ArchiveMember, SharedLibrary };

/// How a definition takes part in symbol resolution.
enum class DefinitionStrength : uint8_t {
  Strong, // STB_GLOBAL: two of them in one link are "multiple definition"
  Weak,   // STB_WEAK (and STB_GNU_UNIQUE): loses to a strong one, or to the first weak one
  Common, // a tentative definition (-fcommon): merged with the others
};

/// Whether a plain link of the inputs pulls a definition in (see top).
enum class PullIn : uint8_t { Always, Maybe, Never };

/// File, Member and Version point into the DupsFacts that holds the
/// definition (its Files and Read).
struct DuplicateDefinition {
  llvm::StringRef File;   // the object, archive or shared library
  llvm::StringRef Member; // the member name when File is an archive
  DefinitionOrigin Origin = DefinitionOrigin::Object;
  SymbolBinding Binding = SymbolBinding::Global;
  SymbolVisibility Visibility = SymbolVisibility::Default;
  SymbolType Type = SymbolType::NoType;
  llvm::StringRef Version; // ELF symbol version of a shared library's export
  DefinitionStrength Strength = DefinitionStrength::Strong;
  /// False when the member named by the archive's symbol index could not be
  /// read: the index says it defines the name, the binding is assumed strong.
  bool Confirmed = true;
  PullIn Pulled = PullIn::Never;

  /// "libfoo.a(bar.o)", "libfoo.so", "bar.o", as linkers name them.
  std::string displayName() const;
};

enum class DuplicateKind : uint8_t {
  StrongStrong, // two or more strong definitions
  StrongWeak,   // one strong definition and weak ones
  WeakWeak,     // weak definitions only
  Common,       // a common (tentative) definition with others, no two strong
};
llvm::StringRef toString(DuplicateKind K);
llvm::StringRef toString(DefinitionOrigin O);
llvm::StringRef toString(DefinitionStrength S);
llvm::StringRef toString(PullIn P);

struct Duplicate {
  /// The name as the symbol tables spell it (mangled for C++).
  std::string Name;
  /// The demangled name of a C++ symbol; empty for extern "C" names.
  std::string Demangled;
  DuplicateKind Kind = DuplicateKind::StrongStrong;
  /// Fewer than two of the clashing definitions are always pulled in: the
  /// duplicate bites only when archives are force-linked or both shared
  /// libraries are loaded.
  bool Latent = true;
  /// The strong definitions that clash include shared libraries and fewer
  /// than two relocatable ones: no link fails, the loader silently uses the
  /// first one loaded.
  bool Interposition = false;
  /// Sorted by file, then member.
  std::vector<DuplicateDefinition> Definitions;
  /// Shared libraries that export the name and are the shared build of an
  /// archive among the inputs that defines it too (libfoo.so next to
  /// libfoo.a): a link takes one or the other, so they are not counted.
  std::vector<std::string> SharedVariants;
  /// One of the definitions is LibTorch's (isLibTorchFile), another is not,
  /// and the name is a shim (under the prefixes): two implementations of
  /// the shim ABI over different tensor types.
  bool LibTorchClash = false;

  bool isCxx() const { return !Demangled.empty(); }
  /// The name for people: demangled when C++.
  llvm::StringRef displayName() const {
    return Demangled.empty() ? llvm::StringRef(Name) : llvm::StringRef(Demangled);
  }
};

struct DupsStats {
  unsigned Objects = 0;
  unsigned Archives = 0;
  unsigned SharedLibraries = 0;
  /// Executables found in directories; they are link outputs, not inputs.
  unsigned SkippedExecutables = 0;
  /// Other files found in directories and left out: not a binary dups
  /// reads (JSON, sources, linker scripts), or one that cannot be read.
  unsigned SkippedFiles = 0;
  size_t IndexEntries = 0;  // archive symbol-index entries read
  size_t MembersOpened = 0; // archive members parsed
  /// Wall-clock seconds per pass (see Dups.cpp), for --stats.
  std::vector<std::pair<std::string, double>> PassSeconds;
};

struct DupsFacts {
  DupsOptions Options;
  /// Every input file after expanding directories and @files, in order.
  std::vector<std::string> Files;
  /// Sorted by name.
  std::vector<Duplicate> Duplicates;
  /// Problems that do not stop the analysis (an unreadable archive member).
  std::vector<std::string> Warnings;
  /// Files found in directories and left out, with the reason (--verbose).
  std::vector<SkippedFile> Skipped;
  /// Inputs named on the command line, in an @file or by a linker script
  /// that cannot be read ("PATH: why"). The analysis covers the others;
  /// the command reports these as errors and exits 2, as nm reports the
  /// files it can read and fails for the others.
  std::vector<std::string> Unreadable;
  DupsStats Stats;
  /// The inputs as read. Nothing above points into them; they are kept so
  /// that a caller about to exit can skip tearing them down.
  std::vector<InputFile> Read;
};

/// Builds the facts from every input that can be read; the others are
/// listed in DupsFacts::Unreadable. An error only for no inputs at all.
llvm::Expected<std::unique_ptr<DupsFacts>> analyzeDups(DupsOptions Options);

/// A name the linker itself defines in every ELF output it writes, so that
/// every shared library exports its own: the default linker script's
/// _edata, _end, __bss_start (and their PROVIDEd aliases), crti.o's
/// _init/_fini, crt1.o's and crtbegin.o's names, and a version node's own
/// symbol (`NAME@@NAME`, absolute). Not duplicates between inputs.
bool isLinkerDefined(const Binary &B, const Symbol &S);

} // namespace aoti::audit

#endif
