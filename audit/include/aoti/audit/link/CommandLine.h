//===- link/CommandLine.h - A link command, as the linker will read it ----===//
//
// parseLinkCommand() turns the command a build runs to link (`g++ ... -o
// runner`, `clang++ ...`, `ld ...`) into the linker's view of it: the ordered
// list of inputs with the state each is read in (whole-archive, group,
// -Bstatic, --as-needed), and the options that decide what the output exports.
//
// A compiler driver adds inputs the user never wrote: crt files, default
// library directories, libc, libstdc++, and distribution defaults such as
// `--as-needed` (Debian's gcc passes it before every input). Only the driver
// knows them, so by default the driver is asked: `DRIVER -### ARGS` prints
// the linker command without running anything, and that command is parsed.
// When the driver cannot be asked (not installed here, or the caller said
// not to) the driver flags are translated by hand and the implicit inputs are
// left out; LinkCommandLine::Approximations says so.
//
// Nothing here reads an input file; link/Model.h does that. The code is in
// audit/lib/link: Driver.cpp (parseLinkCommand), CompilerDriver.cpp (gcc's
// and clang's flags), GnuOptions.cpp and Ld64Options.cpp (one option table
// per linker flavour), Words.cpp (shell words, response files, program
// names), Subprocess.cpp (runAndCapture, `-###`, default directories).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LINKCOMMANDLINE_H
#define AOTI_AUDIT_LINKCOMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace aoti::audit {

/// How the linker treats archives. GNU ld (and gold) read the command line
/// once, left to right; lld and mold remember every archive's symbols and
/// resolve references to them from anywhere. LD64 is Apple's ld64 and
/// ld64.lld, which write Mach-O: archives as lld does, and their own
/// options, library search, exports and dead-stripping.
enum class LinkFlavor : uint8_t { GNU, LLD, LD64 };
llvm::StringRef toString(LinkFlavor F);

/// What ran the link: a compiler driver or the linker itself.
enum class LinkCommandKind : uint8_t { GccDriver, ClangDriver, Linker };

enum class LinkOutputKind : uint8_t {
  Executable,       // non-PIE, dynamically linked
  PIE,
  SharedLibrary,
  StaticExecutable, // nothing is exported: there is no dynamic symbol table
  Bundle,           // Mach-O MH_BUNDLE (-bundle): a plugin, like a DSO
};
llvm::StringRef toString(LinkOutputKind K);

/// One word of the linker's command line that the model acts on, in order.
struct LinkArg {
  enum class Kind : uint8_t {
    File,            // a path: object, archive, shared library or script
    Library,         // -lNAME (Value "NAME") or -l:FILE (Value ":FILE")
    WholeArchiveOn,  // --whole-archive
    WholeArchiveOff, // --no-whole-archive
    GroupStart,      // --start-group, -(
    GroupEnd,        // --end-group, -)
    StaticOn,        // -Bstatic, -static, -dn, -non_shared
    StaticOff,       // -Bdynamic, -dy, -call_shared
    AsNeededOn,
    AsNeededOff,
    PushState,       // --push-state
    PopState,        // --pop-state
    LibStart,        // --start-lib (lld: objects that follow are lazy)
    LibEnd,
    ForceLoad,       // ld64 -force_load PATH: the archive, every member
  };
  Kind ArgKind = Kind::File;
  std::string Value;
  /// The word of LinkCommandLine::Argv that wrote this input, or -1 when the
  /// driver added it or it sits inside a word that holds more (`-Wl,a,b`).
  int Token = -1;
  /// The user wrote it (false: the driver added it, e.g. crt1.o, -lc).
  bool Written = true;
};

struct LinkCommandLine {
  /// The command as given, response files expanded. Fixes edit this.
  std::vector<std::string> Argv;
  /// Response files read while expanding (a fix to them must be made there).
  std::vector<std::string> ResponseFiles;
  /// Directory the command runs in; relative paths are taken from here.
  std::string Cwd;
  LinkCommandKind Kind = LinkCommandKind::Linker;
  /// argv[0], as written.
  std::string Program;
  LinkFlavor Flavor = LinkFlavor::GNU;
  /// Why this flavor ("-fuse-ld=lld", "the driver runs /usr/bin/ld", ...).
  std::string FlavorReason;
  std::string Output = "a.out";
  LinkOutputKind OutputKind = LinkOutputKind::Executable;

  std::vector<LinkArg> Args;
  /// -L directories, in order, then the linker's own (SEARCH_DIR) when known.
  std::vector<std::string> SearchDirs;
  std::string Sysroot;

  // --- what decides extraction -------------------------------------------
  std::vector<std::string> Undefined;      // -u, --undefined
  std::vector<std::string> RequireDefined; // --require-defined
  std::string Entry;                       // -e; empty: _start

  // --- what decides exports ----------------------------------------------
  bool ExportDynamic = false;                    // -E, -rdynamic
  std::vector<std::string> ExportDynamicSymbols; // globs
  std::vector<std::string> ExportDynamicSymbolLists;
  std::vector<std::string> DynamicLists;
  std::vector<std::string> VersionScripts;
  bool DynamicListData = false;                  // --dynamic-list-data
  std::vector<std::string> ExcludeLibs;          // --exclude-libs; "ALL"
  bool GcSections = false;

  // --- what decides errors -----------------------------------------------
  bool AllowMultipleDefinition = false; // -z muldefs
  bool NoUndefined = false;             // -z defs, --no-undefined
  /// --[no-]allow-shlib-undefined; unset: the default (error for executables).
  std::optional<bool> AllowShlibUndefined;

  // --- ld64 (LinkFlavor::LD64) ---------------------------------------------
  std::string Arch;                           // -arch
  bool AllLoad = false;                       // -all_load
  bool ObjC = false;                          // -ObjC
  std::vector<std::string> ExportedSymbols;   // -exported_symbol (globs)
  std::vector<std::string> ExportedSymbolsLists;
  std::vector<std::string> UnexportedSymbols; // -unexported_symbol
  std::vector<std::string> UnexportedSymbolsLists;
  bool NoExportedSymbols = false;             // -no_exported_symbols
  /// -undefined: "error" (the default), "warning", "suppress",
  /// "dynamic_lookup".
  std::string UndefinedTreatment = "error";
  std::vector<std::string> AllowedUndefined;  // -U NAME
  bool FlatNamespace = false;
  std::string BundleLoader;                   // -bundle_loader
  bool SearchDylibsFirst = false;
  bool NoDefaultSearchDirs = false;           // -Z
  std::vector<std::string> FrameworkDirs;     // -F

  /// Options read but not modelled ("--wrap=malloc", "-T script.ld").
  std::vector<std::string> Ignored;
  /// Where the model is an approximation for this command line.
  std::vector<std::string> Approximations;
  /// The implicit inputs came from asking the driver (`-###`).
  bool DriverQueried = false;

  bool isDriver() const { return Kind != LinkCommandKind::Linker; }
  bool isShared() const { return OutputKind == LinkOutputKind::SharedLibrary; }
  /// The output is Mach-O: the line is ld64's.
  bool isMachO() const { return Flavor == LinkFlavor::LD64; }
  /// Archives are remembered and members extracted for references from
  /// anywhere on the line (lld, mold, ld64).
  bool lazyArchives() const { return Flavor != LinkFlavor::GNU; }
};

struct LinkParseOptions {
  /// Directory the command runs in; empty: the current directory.
  std::string Cwd;
  /// Ask the driver for its implicit inputs (`-###`, `-print-search-dirs`).
  bool QueryDriver = true;
  /// Overrides the flavor the command line implies.
  std::optional<LinkFlavor> Flavor;
};

/// Parses a link command. Errors: an empty command, a response file that
/// cannot be read, a command that compiles sources (lint its link step), a
/// driver that fails on the arguments.
llvm::Expected<LinkCommandLine> parseLinkCommand(llvm::ArrayRef<std::string> Argv,
                                                 const LinkParseOptions &Opts);

/// Splits one line of shell (as ninja and CMake write commands) into words,
/// honouring quotes and backslashes.
std::vector<std::string> splitShellWords(llvm::StringRef Line);

/// From a shell line of several commands (`: && /usr/bin/c++ ... && :`, `cd
/// DIR && ld ...`), the link command: the last one that runs a compiler
/// driver or a linker. Updates Cwd for a `cd` before it. Empty when none.
std::vector<std::string> pickLinkCommand(llvm::StringRef ShellLine,
                                         std::string &Cwd);

/// Whether argv[0] is a compiler driver or a linker this model knows.
std::optional<LinkCommandKind> classifyProgram(llvm::StringRef Program);

/// The default library directories of a driver (`-print-search-dirs`) or of
/// GNU ld (`ld --verbose`, its SEARCH_DIR list); empty when it cannot be run.
std::vector<std::string> queryDefaultSearchDirs(const LinkCommandLine &Line);

/// Runs Program with Args in Dir, returning what it wrote to stdout and
/// stderr (together), or an error when it cannot be started. The exit status
/// goes to *Status.
llvm::Expected<std::string> runAndCapture(llvm::StringRef Program,
                                          llvm::ArrayRef<std::string> Args,
                                          llvm::StringRef Dir, int *Status);

/// Joins words into one shell-quoted line, for messages and fixed commands.
std::string joinShellWords(llvm::ArrayRef<std::string> Words);

} // namespace aoti::audit

#endif
