//===- link/Options.h - The pieces that parse a link command -------------===//
//
// Private to audit/lib/link. parseLinkCommand (Driver.cpp) reads a command in
// three layers: the compiler driver's flags translated into linker words
// (CompilerDriver.cpp), then the linker's words read by the option table of
// its flavour: GNU ld and lld (GnuOptions.cpp) or ld64 (Ld64Options.cpp).
// Words.cpp holds what they share (response files, program names);
// Subprocess.cpp runs the real driver and linker.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_LINK_OPTIONS_H
#define AOTI_AUDIT_LIB_LINK_OPTIONS_H

#include "aoti/audit/link/CommandLine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aoti::audit::linker {

using llvm::ArrayRef;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

// --- Words.cpp ----------------------------------------------------------

/// Path, relative to Cwd unless it is absolute.
std::string absolute(StringRef Cwd, StringRef Path);

/// "x86_64-linux-gnu-g++-12" -> "g++"; "ld.lld-19" -> "ld.lld".
StringRef programStem(StringRef Program);

/// ccache, distcc, env: programs that run the command after them.
bool isLauncher(StringRef Program);

/// `@FILE` (and not a dyld path such as `@rpath/...`).
bool isResponseFile(StringRef W);

/// Replaces every `@FILE` in Words with the words of FILE, recursively;
/// the files read go to *Read.
Error expandResponseFiles(std::vector<std::string> &Words, StringRef Cwd,
                          std::vector<std::string> *Read, unsigned Depth = 0);

/// -fuse-ld=lld, --ld-path=/usr/bin/ld.lld, "ld.lld" as the program.
std::optional<LinkFlavor> flavorOfLinkerName(StringRef Name);

/// Whether a linker command (the words after argv[0] included) is ld64's:
/// the program is ld64 or ld64.lld, or Apple's `ld` with its -arch or
/// platform options (GNU ld has none of them).
bool looksLikeLd64(ArrayRef<std::string> Words);

// --- CompilerDriver.cpp -------------------------------------------------

/// The user's command translated into linker words.
struct DriverView {
  std::vector<std::string> Words;
  std::vector<int> WordToken; // original token per word, -1 when ambiguous
  std::string FuseLd;         // -fuse-ld=
  std::string LdPath;         // --ld-path=
  std::string Output = "a.out";
  bool Shared = false, Static = false, StaticPie = false, NoPie = false,
       Pie = false, NoStdLib = false, NoDefaultLibs = false,
       NoStartFiles = false;
  /// The driver targets Apple platforms (-target *-apple-*, -arch): it
  /// runs ld64, whose words the driver flags below translate to.
  bool Apple = false;
  bool Bundle = false;
  std::vector<std::string> Sources;
};

DriverView translateDriver(ArrayRef<std::string> Argv);

// --- the option tables ----------------------------------------------------

/// A linker flavour's option table, read through one interface: Driver.cpp
/// picks the flavour's (gnuOptions, ld64Options) and reads every word
/// through it.
class LinkerOptions {
public:
  virtual ~LinkerOptions() = default;
  /// Linker words into the command line. Tokens: each word's index in
  /// LinkCommandLine::Argv (missing or -1: none). Written: the user wrote
  /// them (false: the compiler driver added them).
  virtual Error parse(std::vector<std::string> Words, std::vector<int> Tokens,
                      bool Written) = 0;
  /// The compiler driver's flags translated by hand (it could not be asked
  /// for its linker line): the words, and what -shared, -static, -pie and
  /// the like ask of this linker; the implicit inputs are noted as left out.
  virtual Error parseTranslated(const DriverView &V) = 0;
  /// After the last word: the output kind. DriverStatic: the compiler
  /// driver was given -static (not -static-pie).
  virtual void finish(bool DriverStatic) = 0;
};

std::unique_ptr<LinkerOptions> gnuOptions(LinkCommandLine &L, StringRef Cwd);
std::unique_ptr<LinkerOptions> ld64Options(LinkCommandLine &L, StringRef Cwd);

// --- GnuOptions.cpp ------------------------------------------------------

/// GNU ld's and lld's words (one dash or two) into LinkCommandLine, by the
/// option table in GnuOptions.cpp.
struct GnuOptionParser final : LinkerOptions {
  GnuOptionParser(LinkCommandLine &L, StringRef Cwd) : L(L), Cwd(Cwd) {}

  LinkCommandLine &L;
  StringRef Cwd;
  bool SawPie = false, SawNoPie = false, SawShared = false,
       SawDynamicLinker = false;

  Error parse(std::vector<std::string> Words, std::vector<int> Tokens,
              bool Written) override;
  Error parseTranslated(const DriverView &V) override;
  void finish(bool DriverStatic) override;
  void addLibrary(StringRef Name, int Tok, bool Written);
  void addSearchDir(StringRef D);
};

// --- Ld64Options.cpp -----------------------------------------------------

/// ld64's and ld64.lld's words into LinkCommandLine, by the option table
/// in Ld64Options.cpp.
struct Ld64OptionParser final : LinkerOptions {
  Ld64OptionParser(LinkCommandLine &L, StringRef Cwd) : L(L), Cwd(Cwd) {}

  LinkCommandLine &L;
  StringRef Cwd;
  bool SawDylib = false, SawBundle = false, SawStatic = false;

  Error parse(std::vector<std::string> Words, std::vector<int> Tokens,
              bool Written) override;
  Error parseTranslated(const DriverView &V) override;
  /// DriverStatic does not apply: ld64's -static is a word of its own.
  void finish(bool DriverStatic) override;
  void add(LinkArg::Kind K, StringRef V, int Tok, bool Written);
  void addSearchDir(std::vector<std::string> &Into, StringRef D);
  /// -filelist FILE[,DIRNAME].
  Error readFileList(StringRef Arg, bool Written);
  /// -needed-lNAME, -weak-lNAME, ...: a library read as -lNAME is.
  bool joinedLibrary(StringRef W, int Tok, bool Written);
};

// --- Subprocess.cpp ------------------------------------------------------

/// Finds the linker command in `DRIVER -###` output.
Expected<std::vector<std::string>> linkerLineFromDriver(StringRef Output,
                                                        StringRef Driver);

} // namespace aoti::audit::linker

#endif
