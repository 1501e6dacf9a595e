//===- link/Words.cpp - Words of a command --------------------------------===//
//
// What every layer of the command-line parser shares: shell words (split
// and quoted as ninja and CMake write them), response files (`@FILE`, read
// with GNU's quoting, nested), and program names (which argv[0] is a
// compiler driver, which a linker, and of which flavour).
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace aoti::audit {

StringRef toString(LinkFlavor F) {
  switch (F) {
  case LinkFlavor::GNU: return "gnu";
  case LinkFlavor::LLD: return "lld";
  case LinkFlavor::LD64: return "ld64";
  }
  return "?";
}

StringRef toString(LinkOutputKind K) {
  switch (K) {
  case LinkOutputKind::Executable: return "executable";
  case LinkOutputKind::PIE: return "pie";
  case LinkOutputKind::SharedLibrary: return "shared-library";
  case LinkOutputKind::StaticExecutable: return "static-executable";
  case LinkOutputKind::Bundle: return "bundle";
  }
  return "?";
}

namespace linker {

std::string absolute(StringRef Cwd, StringRef Path) {
  if (Path.empty() || sys::path::is_absolute(Path))
    return Path.str();
  SmallString<256> P(Cwd);
  sys::path::append(P, Path);
  return std::string(P);
}

/// "x86_64-linux-gnu-g++-12" -> "g++"; "ld.lld-19" -> "ld.lld".
StringRef programStem(StringRef Program) {
  StringRef Base = sys::path::filename(Program);
  // A trailing version: "-12", "-19.1".
  size_t Dash = Base.rfind('-');
  if (Dash != StringRef::npos && Dash + 1 < Base.size() &&
      Base.drop_front(Dash + 1).find_first_not_of("0123456789.") ==
          StringRef::npos)
    Base = Base.take_front(Dash);
  return Base;
}

bool isLauncher(StringRef Program) {
  StringRef S = sys::path::filename(Program);
  return S == "ccache" || S == "sccache" || S == "distcc" || S == "icecc" ||
         S == "env";
}

// --- response files -----------------------------------------------------

/// dyld's path prefixes (`-rpath @loader_path/../lib`, `-install_name
/// @rpath/libx.dylib`): words that start with `@` and are not response files.
bool isDyldPath(StringRef W) {
  return W.starts_with("@loader_path") || W.starts_with("@executable_path") ||
         W.starts_with("@rpath");
}

bool isResponseFile(StringRef W) {
  return W.size() > 1 && W[0] == '@' && !isDyldPath(W);
}

Error expandResponseFiles(std::vector<std::string> &Words, StringRef Cwd,
                          std::vector<std::string> *Read, unsigned Depth) {
  if (Depth > 20)
    return makeError("response files nest more than 20 deep");
  std::vector<std::string> Out;
  for (std::string &W : Words) {
    if (!isResponseFile(W)) {
      Out.push_back(std::move(W));
      continue;
    }
    std::string Path = absolute(Cwd, StringRef(W).drop_front());
    auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buf)
      return makeError(formatv("response file {0}: {1}", Path,
                               Buf.getError().message()));
    if (Read)
      Read->push_back(Path);
    BumpPtrAllocator A;
    StringSaver Saver(A);
    SmallVector<const char *, 32> Toks;
    cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
    std::vector<std::string> Inner(Toks.begin(), Toks.end());
    if (Error E = expandResponseFiles(Inner, Cwd, Read, Depth + 1))
      return E;
    for (std::string &I : Inner)
      Out.push_back(std::move(I));
  }
  Words = std::move(Out);
  return Error::success();
}

/// -fuse-ld=lld, --ld-path=/usr/bin/ld.lld, "ld.lld" as the program.
std::optional<LinkFlavor> flavorOfLinkerName(StringRef Name) {
  StringRef S = programStem(Name);
  if (S.consume_front("ld."))
    return S == "lld" || S == "mold" ? LinkFlavor::LLD : LinkFlavor::GNU;
  if (S == "ld64.lld" || S == "ld64" || S.ends_with("-ld64"))
    return LinkFlavor::LD64;
  if (S == "lld" || S == "mold" || S.ends_with("-ld.lld"))
    return LinkFlavor::LLD;
  if (S == "bfd" || S == "gold" || S == "ld" || S.ends_with("-ld") ||
      S == "collect2")
    return LinkFlavor::GNU;
  return std::nullopt;
}

/// Whether a linker command (the words after argv[0] included) is ld64's:
/// the program is ld64 or ld64.lld, or Apple's `ld` with its -arch or
/// platform options (GNU ld has none of them).
bool looksLikeLd64(ArrayRef<std::string> Words) {
  if (Words.empty())
    return false;
  if (flavorOfLinkerName(Words.front()) == LinkFlavor::LD64)
    return true;
  for (size_t I = 1; I < Words.size(); ++I) {
    StringRef W = Words[I];
    if (W == "-arch" || W == "-platform_version" ||
        W == "-macosx_version_min" || W == "-macos_version_min" ||
        W == "-syslibroot" || W == "-dylib" || W == "-bundle")
      return true;
  }
  return false;
}

} // namespace linker

using namespace linker;

std::optional<LinkCommandKind> classifyProgram(StringRef Program) {
  StringRef S = programStem(Program);
  auto EndsWithTool = [&](StringRef Tool) {
    return S == Tool || S.ends_with(("-" + Tool).str());
  };
  if (EndsWithTool("clang") || EndsWithTool("clang++"))
    return LinkCommandKind::ClangDriver;
  if (EndsWithTool("gcc") || EndsWithTool("g++") || EndsWithTool("cc") ||
      EndsWithTool("c++"))
    return LinkCommandKind::GccDriver;
  if (flavorOfLinkerName(Program))
    return LinkCommandKind::Linker;
  return std::nullopt;
}

std::vector<std::string> splitShellWords(StringRef Line) {
  BumpPtrAllocator A;
  StringSaver Saver(A);
  SmallVector<const char *, 64> Toks;
  cl::TokenizeGNUCommandLine(Line, Saver, Toks);
  return std::vector<std::string>(Toks.begin(), Toks.end());
}

std::vector<std::string> pickLinkCommand(StringRef ShellLine, std::string &Cwd) {
  std::vector<std::string> Words = splitShellWords(ShellLine);
  std::vector<std::vector<std::string>> Commands(1);
  for (std::string &W : Words) {
    if (W == "&&" || W == ";" || W == "||") {
      Commands.emplace_back();
      continue;
    }
    Commands.back().push_back(std::move(W));
  }
  std::vector<std::string> Picked;
  std::string Dir = Cwd, PickedDir;
  for (std::vector<std::string> &C : Commands) {
    if (C.empty())
      continue;
    if (C[0] == "cd" && C.size() > 1) {
      Dir = absolute(Dir, C[1]);
      continue;
    }
    size_t First = 0;
    while (First < C.size() && isLauncher(C[First]))
      ++First;
    if (First < C.size() && classifyProgram(C[First])) {
      Picked = C;
      PickedDir = Dir;
    }
  }
  if (!Picked.empty())
    Cwd = PickedDir;
  return Picked;
}

std::string joinShellWords(ArrayRef<std::string> Words) {
  std::string Out;
  for (const std::string &W : Words) {
    if (!Out.empty())
      Out += ' ';
    bool Plain = !W.empty() && W.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
                                   "RSTUVWXYZ0123456789-_./=,:+@%") ==
                                   std::string::npos;
    if (Plain) {
      Out += W;
      continue;
    }
    Out += '\'';
    for (char C : W) {
      if (C == '\'')
        Out += "'\\''";
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

} // namespace aoti::audit
