//===- link/Subprocess.cpp - Asking the real driver and linker ------------===//
//
// The model never guesses what a compiler driver adds when it can ask:
// `DRIVER -### ARGS` prints the linker command without running anything
// (crt files, default -L directories and libraries, --as-needed), and
// `DRIVER -print-search-dirs` or `ld --verbose` name the default library
// directories. runAndCapture runs them through `sh -c 'cd DIR && exec
// ...'` so this process never changes directory.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace aoti::audit {

namespace linker {

Expected<std::vector<std::string>> linkerLineFromDriver(StringRef Output,
                                                        StringRef Driver) {
  SmallVector<StringRef, 16> Lines;
  Output.split(Lines, '\n');
  std::vector<std::string> Found;
  for (StringRef Line : Lines) {
    if (!Line.starts_with(" "))
      continue;
    std::vector<std::string> Words = splitShellWords(Line);
    if (Words.empty())
      continue;
    StringRef Stem = programStem(Words[0]);
    if (Stem == "cc1" || Stem == "cc1plus" || Stem == "as" ||
        (Words.size() > 1 && Words[1] == "-cc1") ||
        (Words.size() > 1 && Words[1] == "-cc1as"))
      return makeError(formatv("{0} would compile sources with this command; "
                               "lint the command that links the objects",
                               Driver));
    if (classifyProgram(Words[0]) == LinkCommandKind::Linker)
      Found = std::move(Words);
  }
  if (Found.empty())
    return makeError(formatv("`{0} -###` printed no linker command", Driver));
  return Found;
}

} // namespace linker

Expected<std::string> runAndCapture(StringRef Program, ArrayRef<std::string> Args,
                                    StringRef Dir, int *Status) {
  std::string Exe = Program.str();
  if (!Program.contains('/')) {
    auto Found = sys::findProgramByName(Program);
    if (!Found)
      return makeError(formatv("{0}: not found on PATH", Program));
    Exe = *Found;
  }
  auto Shell = sys::findProgramByName("sh");
  if (!Shell)
    return makeError("sh: not found on PATH");
  SmallString<128> Tmp;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("aoti-audit-run", "txt", Tmp))
    return makeError("cannot create a temporary file: " + EC.message());
  // `sh -c 'cd "$0" && exec "$@"' DIR PROGRAM ARGS...`: runs in DIR without
  // changing this process's directory.
  std::vector<StringRef> Argv{*Shell, "-c", "cd \"$0\" && exec \"$@\"",
                              Dir.empty() ? StringRef(".") : Dir, Exe};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Tmp),
                                          StringRef(Tmp)};
  std::string ErrMsg;
  int RC = sys::ExecuteAndWait(*Shell, Argv, std::nullopt, Redirects,
                               /*SecondsToWait=*/120, 0, &ErrMsg);
  auto Buf = MemoryBuffer::getFile(Tmp);
  sys::fs::remove(Tmp);
  if (RC < 0)
    return makeError(formatv("{0}: {1}", Program, ErrMsg));
  if (Status)
    *Status = RC;
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

std::vector<std::string> queryDefaultSearchDirs(const LinkCommandLine &L) {
  std::vector<std::string> Dirs;
  int RC = 0;
  if (L.isDriver()) {
    auto Out = runAndCapture(L.Program, {"-print-search-dirs"}, L.Cwd, &RC);
    if (!Out) {
      consumeError(Out.takeError());
      return Dirs;
    }
    SmallVector<StringRef, 8> Lines;
    StringRef(*Out).split(Lines, '\n');
    for (StringRef Line : Lines) {
      if (!Line.consume_front("libraries: "))
        continue;
      Line.consume_front("=");
      SmallVector<StringRef, 16> Parts;
      Line.split(Parts, ':', -1, false);
      for (StringRef P : Parts)
        Dirs.push_back(P.str());
    }
    return Dirs;
  }
  if (L.Flavor != LinkFlavor::GNU)
    return Dirs; // lld has no built-in directories
  auto Out = runAndCapture(L.Program, {"--verbose"}, L.Cwd, &RC);
  if (!Out) {
    consumeError(Out.takeError());
    return Dirs;
  }
  StringRef Rest = *Out;
  while (true) {
    size_t At = Rest.find("SEARCH_DIR(\"");
    if (At == StringRef::npos)
      break;
    Rest = Rest.drop_front(At + 12);
    StringRef D = Rest.take_until([](char C) { return C == '"'; });
    D.consume_front("=");
    Dirs.push_back((L.Sysroot + D).str());
  }
  return Dirs;
}

} // namespace aoti::audit
