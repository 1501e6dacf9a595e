//===- InputList.cpp - The command line, expanded into files --------------===//
//
// Before anything is read, the inputs of `aoti-audit dups` become a list of
// files, in order and each file once (by its device and inode, so a file
// reached again, or through a symlink, is not read twice):
//   * @FILE names a list of inputs, one a line ('#' starts a comment),
//     expanded in turn, up to 8 levels deep;
//   * a directory stands for the binaries under it, found recursively in
//     sorted order (symlinked directories are not followed, so there are no
//     cycles); every other file there is skipped and counted, and an
//     executable found there is skipped later, by pass 1;
//   * a GNU ld input script (libm.a is GROUP(libm-2.36.a libmvec.a)) is
//     replaced by the files it names, looked for as ld looks for them.
// An input named on the command line that cannot be read is a problem the
// command reports; the others are still analysed, as nm does.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "aoti/audit/link/Scripts.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit::dups {

namespace {

bool isBinaryMagic(file_magic M) {
  switch (M) {
  case file_magic::archive:
  case file_magic::elf_relocatable:
  case file_magic::elf_shared_object:
  case file_magic::elf_executable:
  case file_magic::macho_object:
  case file_magic::macho_dynamically_linked_shared_lib:
  case file_magic::macho_dynamically_linked_shared_lib_stub:
  case file_magic::macho_universal_binary:
    return true;
  default:
    return false;
  }
}

/// Whether a file is one dups reads: an object, archive, shared library or
/// .tbd stub. identify_magic() calls any JSON a .tbd stub; the reader's
/// detectKind() asks the text itself.
bool isBinaryFile(StringRef Path) {
  file_magic M;
  if (identify_magic(Path, M))
    return false;
  if (M != file_magic::tapi_file)
    return isBinaryMagic(M);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  return Buf && detectKind((*Buf)->getMemBufferRef()) == DetectedKind::MachO;
}

} // namespace

void InputExpander::add(StringRef Arg, unsigned Depth) {
  if (Arg.starts_with("@")) {
    StringRef List = Arg.drop_front();
    if (Depth > 8)
      return problem(List, "@file nesting is deeper than 8 levels");
    auto Buf = MemoryBuffer::getFile(List, /*IsText=*/true);
    if (!Buf)
      return problem(List, "cannot read input list: " +
                               Buf.getError().message());
    SmallVector<StringRef, 0> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (StringRef Line : Lines) {
      Line = Line.trim();
      if (Line.empty() || Line.starts_with("#"))
        continue;
      add(Line, Depth + 1);
    }
    return;
  }
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Arg, St))
    return problem(Arg, EC.message());
  if (St.type() == sys::fs::file_type::directory_file)
    return addDirectory(Arg);
  if (St.type() != sys::fs::file_type::regular_file)
    return problem(Arg, "is not a regular file or a directory");
  if (!isBinaryFile(Arg) && addScript(Arg, Depth))
    return;
  push(Arg, /*FromDirectory=*/false); // the reader says what is wrong
}

/// A GNU ld input script names the files a link reads in its place: take
/// those. False when the text is not an input script (LinkScripts.h).
bool InputExpander::addScript(StringRef Path, unsigned Depth) {
  uint64_t Size = 0;
  if (sys::fs::file_size(Path, Size) || Size > (1u << 20))
    return false; // a script is a few lines; this is something else
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return false;
  auto Script = parseInputScript((*Buf)->getBuffer(), Path);
  if (!Script) {
    consumeError(Script.takeError());
    return false;
  }
  if (Depth > 8) {
    problem(Path, "input scripts nest deeper than 8 levels");
    return true;
  }
  // Where a name is looked for: as written (the working directory), then
  // next to the script, then in its SEARCH_DIRs; -lNAME in the script's
  // directory and its SEARCH_DIRs, libNAME.so before libNAME.a as ld does.
  SmallString<256> Here(Path);
  sys::path::remove_filename(Here);
  std::vector<std::string> Dirs{Here.empty() ? "." : Here.str().str()};
  Dirs.insert(Dirs.end(), Script->SearchDirs.begin(), Script->SearchDirs.end());
  auto IsFile = [](const Twine &P) { return sys::fs::is_regular_file(P); };
  for (const InputScript::Command &C : Script->Commands)
    for (const InputScript::Entry &E : C.Entries) {
      std::optional<std::string> Found;
      if (E.IsLibrary) {
        for (const std::string &D : Dirs)
          for (const char *Ext : {".so", ".a"})
            if (!Found && IsFile(D + "/lib" + E.Name + Ext))
              Found = D + "/lib" + E.Name + Ext;
      } else if (sys::path::is_absolute(E.Name) || IsFile(E.Name)) {
        Found = E.Name;
      } else {
        for (const std::string &D : Dirs)
          if (!Found && IsFile(D + "/" + E.Name))
            Found = D + "/" + E.Name;
      }
      std::string Shown = E.IsLibrary ? "-l" + E.Name : E.Name;
      if (!Found) {
        problem(Shown, "cannot find it (named by the linker script " + Path +
                           ")");
        continue;
      }
      add(*Found, Depth + 1);
    }
  return true;
}

void InputExpander::addDirectory(StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  // Symlinked directories are not followed (no cycles); symlinked files are.
  for (sys::fs::recursive_directory_iterator It(Dir, EC, /*follow=*/false), E;
       It != E && !EC; It.increment(EC)) {
    sys::fs::file_status St;
    if (sys::fs::status(It->path(), St) ||
        St.type() != sys::fs::file_type::regular_file)
      continue;
    Files.push_back(It->path());
  }
  if (EC)
    return problem(Dir, "cannot list directory: " + EC.message());
  std::sort(Files.begin(), Files.end());
  for (const std::string &F : Files) {
    if (!isBinaryFile(F)) {
      // Sources, JSON, linker scripts (the files a script in a directory
      // names are in directories too), data: not link inputs.
      Skipped.push_back({F, "not an object, archive or shared library"});
      continue;
    }
    push(F, /*FromDirectory=*/true);
  }
}

} // namespace aoti::audit::dups
