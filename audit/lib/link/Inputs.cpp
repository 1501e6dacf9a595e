//===- link/Inputs.cpp - Finding and reading what a link line names -------===//
//
// -lNAME: every -L directory in order (all of them, wherever they stand on
// the line), and in each one libNAME.so before libNAME.a unless -Bstatic is
// in effect; -l:FILE names the file exactly. A file that is neither ELF nor
// an archive is read as an input script (glibc's libc.so is one): its
// GROUP(...) becomes a group, AS_NEEDED(...) entries are read --as-needed,
// and a name it gives is looked up as a path, then in the search
// directories, as GNU ld does.
//
// When the driver was not asked for its command line (or the command runs
// the linker directly), the default directories are not on the line; they
// are asked for (`-print-search-dirs`, `ld --verbose`) the first time a
// library is not found in the -L directories.
//
// ld64 searches its own way: -L directories then /usr/lib and
// /usr/local/lib (under -syslibroot; -Z drops them), and in each directory
// libNAME.tbd, libNAME.dylib, libNAME.so, then libNAME.a
// (-search_dylibs_first: every directory for a dylib before any for an
// archive); -framework NAME is NAME.framework/NAME(.tbd) in the -F
// directories, then /Library/Frameworks and /System/Library/Frameworks.
// -force_load and -all_load read archives whole. Its inputs are Mach-O (the
// -arch slice of a universal file) and text stubs; there are no input
// scripts.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/Model.h"

#include "aoti/audit/link/Scripts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace aoti::audit {

namespace {

std::string joinPath(StringRef Dir, StringRef Name) {
  SmallString<256> P(Dir);
  sys::path::append(P, Name);
  return std::string(P);
}

bool isFile(const Twine &P) { return sys::fs::is_regular_file(P); }

struct ReadState {
  bool Whole = false;
  bool AsNeeded = false;
  bool Static = false;
};

class InputReader {
public:
  explicit InputReader(LinkCommandLine &L) : L(L) {}

  Error run() {
    ReadState S;
    std::vector<ReadState> Stack;
    int Group = -1;
    bool Lazy = false;
    using K = LinkArg::Kind;
    for (size_t I = 0; I < L.Args.size(); ++I) {
      const LinkArg &A = L.Args[I];
      switch (A.ArgKind) {
      case K::File:
      case K::ForceLoad: {
        std::string Path = A.Value;
        if (!sys::path::is_absolute(Path))
          Path = joinPath(L.Cwd, Path);
        ReadState FS = S;
        FS.Whole |= A.ArgKind == K::ForceLoad;
        if (Error E = addFile(Path, A.Value, int(I), FS, Group, Lazy, "", 0))
          return E;
        break;
      }
      case K::Library: {
        if (L.isMachO()) {
          if (Error E = addMachOLibrary(A.Value, int(I), S))
            return E;
          break;
        }
        std::string Written = "-l" + A.Value;
        auto Path = findLibrary(A.Value, S.Static);
        if (!Path) {
          LinkInput In;
          In.AsWritten = Written;
          In.Arg = int(I);
          In.Missing = formatv("cannot find {0}{1}", Written,
                               S.Static ? " (-Bstatic: only .a files)" : "")
                           .str();
          Out.push_back(std::move(In));
          break;
        }
        if (Error E = addFile(*Path, Written, int(I), S, Group, Lazy, "", 0))
          return E;
        break;
      }
      case K::WholeArchiveOn: S.Whole = true; break;
      case K::WholeArchiveOff: S.Whole = false; break;
      case K::GroupStart: Group = NextGroup++; break;
      case K::GroupEnd: Group = -1; break;
      case K::StaticOn: S.Static = true; break;
      case K::StaticOff: S.Static = false; break;
      case K::AsNeededOn: S.AsNeeded = true; break;
      case K::AsNeededOff: S.AsNeeded = false; break;
      case K::PushState: Stack.push_back(S); break;
      case K::PopState:
        if (!Stack.empty()) {
          S = Stack.back();
          Stack.pop_back();
        }
        break;
      case K::LibStart: Lazy = true; break;
      case K::LibEnd: Lazy = false; break;
      }
    }
    return Error::success();
  }

  std::vector<LinkInput> Out;

private:
  // --- ld64 -------------------------------------------------------------

  /// A directory as ld64 reads it: an absolute one under -syslibroot when
  /// it is there.
  std::string underRoot(StringRef D) const {
    if (L.Sysroot.empty() || !sys::path::is_absolute(D))
      return D.str();
    std::string R = L.Sysroot + D.str();
    return sys::fs::is_directory(R) ? R : D.str();
  }

  std::vector<std::string> machODirs(const std::vector<std::string> &Given,
                                     std::initializer_list<StringRef> Defaults) {
    std::vector<std::string> Dirs;
    for (const std::string &D : Given)
      Dirs.push_back(underRoot(D));
    if (!L.NoDefaultSearchDirs)
      for (StringRef D : Defaults)
        Dirs.push_back(L.Sysroot + D.str());
    return Dirs;
  }

  std::optional<std::string> findMachOLibrary(StringRef Name) {
    if (Name.consume_front("framework:")) {
      for (const std::string &D :
           machODirs(L.FrameworkDirs,
                     {"/Library/Frameworks", "/System/Library/Frameworks"})) {
        std::string Base = joinPath(D, (Name + ".framework/" + Name).str());
        if (isFile(Base + ".tbd"))
          return Base + ".tbd";
        if (isFile(Base))
          return Base;
      }
      return std::nullopt;
    }
    std::vector<std::string> Dirs =
        machODirs(L.SearchDirs, {"/usr/lib", "/usr/local/lib"});
    auto Dylib = [&](const std::string &D) -> std::optional<std::string> {
      for (StringRef Ext : {".tbd", ".dylib", ".so"}) {
        std::string P = joinPath(D, ("lib" + Name + Ext).str());
        if (isFile(P))
          return P;
      }
      return std::nullopt;
    };
    auto Static = [&](const std::string &D) -> std::optional<std::string> {
      std::string P = joinPath(D, ("lib" + Name + ".a").str());
      if (isFile(P))
        return P;
      return std::nullopt;
    };
    if (L.SearchDylibsFirst) {
      for (const std::string &D : Dirs)
        if (auto P = Dylib(D))
          return P;
      for (const std::string &D : Dirs)
        if (auto P = Static(D))
          return P;
      return std::nullopt;
    }
    for (const std::string &D : Dirs) {
      if (auto P = Dylib(D))
        return P;
      if (auto P = Static(D))
        return P;
    }
    return std::nullopt;
  }

  Error addMachOLibrary(StringRef Value, int Arg, ReadState S) {
    bool Framework = Value.starts_with("framework:");
    std::string Written = Framework
                              ? ("-framework " + Value.drop_front(10)).str()
                              : ("-l" + Value).str();
    if (auto Path = findMachOLibrary(Value))
      return addFile(*Path, Written, Arg, S, -1, false, "", 0);
    LinkInput In;
    In.AsWritten = Written;
    In.Arg = Arg;
    In.Missing =
        Framework ? formatv("framework not found {0}", Value.drop_front(10))
                        .str()
                  : formatv("library not found for {0}", Written).str();
    if (L.Sysroot.empty())
      In.Missing += " (no SDK: give the driver -isysroot SDK, or ld64 "
                    "-syslibroot SDK, for the system libraries)";
    Out.push_back(std::move(In));
    return Error::success();
  }

  std::optional<std::string> findIn(const std::vector<std::string> &Dirs,
                                    StringRef Name, bool Static) {
    for (const std::string &D : Dirs) {
      if (Name.starts_with(":")) {
        std::string P = joinPath(D, Name.drop_front());
        if (isFile(P))
          return P;
        continue;
      }
      if (!Static) {
        std::string So = joinPath(D, ("lib" + Name + ".so").str());
        if (isFile(So))
          return So;
      }
      std::string A = joinPath(D, ("lib" + Name + ".a").str());
      if (isFile(A))
        return A;
    }
    return std::nullopt;
  }

  std::optional<std::string> findLibrary(StringRef Name, bool Static) {
    if (auto P = findIn(L.SearchDirs, Name, Static))
      return P;
    if (!DefaultsAsked && !L.DriverQueried) {
      DefaultsAsked = true;
      std::vector<std::string> Defaults = queryDefaultSearchDirs(L);
      if (!Defaults.empty())
        L.Approximations.push_back(formatv("library directories the line does "
                                           "not name were asked of {0}",
                                           sys::path::filename(L.Program))
                                       .str());
      for (std::string &D : Defaults)
        L.SearchDirs.push_back(std::move(D));
      return findIn(L.SearchDirs, Name, Static);
    }
    return std::nullopt;
  }

  Error addFile(const std::string &Path, const std::string &Written, int Arg,
                ReadState S, int Group, bool Lazy, const std::string &Script,
                unsigned Depth) {
    LinkInput In;
    In.Path = Path;
    In.AsWritten = Written;
    In.Arg = Arg;
    In.Script = Script;
    In.WholeArchive = S.Whole;
    In.AsNeeded = S.AsNeeded;
    In.Lazy = Lazy;
    In.Group = Group;
    if (!isFile(Path)) {
      In.Missing = sys::fs::exists(Path)
                       ? formatv("{0} is not a regular file", Written).str()
                       : formatv("{0}: no such file", Written).str();
      Out.push_back(std::move(In));
      return Error::success();
    }
    auto Buf = mapFile(Path);
    if (!Buf)
      return Buf.takeError();
    DetectedKind DK = detectKind((*Buf)->getMemBufferRef());
    bool MachOFile =
        DK == DetectedKind::MachO || DK == DetectedKind::MachOUniversal;
    if (L.isMachO()) {
      if (DK == DetectedKind::Unknown || DK == DetectedKind::ELF)
        return createStringError(
            inconvertibleErrorCode(),
            "%s: %s on an ld64 (Mach-O) link line", Path.c_str(),
            DK == DetectedKind::ELF ? "an ELF file"
                                    : "neither Mach-O nor an archive");
    } else {
      if (DK == DetectedKind::Unknown)
        return addScript(Path, (*Buf)->getBuffer(), Written, Arg, S, Group,
                         Lazy, Depth);
      if (MachOFile)
        return createStringError(
            inconvertibleErrorCode(),
            "%s: a Mach-O file on a GNU ld / lld (ELF) link line; an ld64 "
            "line names its -arch or an Apple -target",
            Path.c_str());
    }
    Buf->reset();
    ReadOptions RO;
    RO.Arch = L.Arch;
    auto File = readInput(Path, RO);
    if (!File)
      return File.takeError();
    if (File->Ar) {
      In.InputKind = LinkInput::Kind::Archive;
      In.Ar = std::move(File->Ar);
      In.WholeArchive |= L.AllLoad;
    } else {
      FileKind FK = File->Bin->kind();
      if (FK == FileKind::Relocatable)
        In.InputKind = LinkInput::Kind::Object;
      else if (FK == FileKind::SharedLibrary || FK == FileKind::Executable)
        In.InputKind = LinkInput::Kind::SharedLibrary;
      else
        return createStringError(inconvertibleErrorCode(),
                                 "%s: not an object, archive or shared "
                                 "library",
                                 Path.c_str());
      In.Bin = std::move(File->Bin);
    }
    Out.push_back(std::move(In));
    return Error::success();
  }

  Error addScript(const std::string &Path, StringRef Text,
                  const std::string &Written, int Arg, ReadState S, int Group,
                  bool Lazy, unsigned Depth) {
    if (Depth > 8)
      return createStringError(inconvertibleErrorCode(),
                               "%s: input scripts nest too deep", Path.c_str());
    auto Script = parseInputScript(Text, Path);
    if (!Script)
      return Script.takeError();
    for (const std::string &D : Script->SearchDirs)
      L.SearchDirs.push_back(D);
    for (const InputScript::Command &C : Script->Commands) {
      int G = Group;
      if (C.Group && G < 0)
        G = NextGroup++;
      for (const InputScript::Entry &E : C.Entries) {
        ReadState ES = S;
        ES.AsNeeded = S.AsNeeded || E.AsNeeded;
        std::optional<std::string> Found;
        std::string Shown = E.IsLibrary ? "-l" + E.Name : E.Name;
        if (E.IsLibrary) {
          Found = findLibrary(E.Name, S.Static);
        } else if (sys::path::is_absolute(E.Name)) {
          // A script inside the sysroot names files inside it.
          if (!L.Sysroot.empty() && StringRef(Path).starts_with(L.Sysroot) &&
              isFile(L.Sysroot + E.Name))
            Found = L.Sysroot + E.Name;
          else
            Found = E.Name;
        } else {
          std::string Rel = joinPath(L.Cwd, E.Name);
          if (isFile(Rel))
            Found = Rel;
          else
            Found = findIn(L.SearchDirs, ":" + E.Name, false);
        }
        if (!Found) {
          LinkInput In;
          In.AsWritten = Shown;
          In.Arg = Arg;
          In.Script = Path;
          In.Missing =
              formatv("cannot find {0} (named by {1})", Shown, Path).str();
          Out.push_back(std::move(In));
          continue;
        }
        if (Error Err =
                addFile(*Found, Shown, Arg, ES, G, Lazy, Path, Depth + 1))
          return Err;
      }
    }
    return Error::success();
  }

  LinkCommandLine &L;
  int NextGroup = 0;
  bool DefaultsAsked = false;
};

} // namespace

Expected<std::vector<LinkInput>> readLinkInputs(LinkCommandLine &Line) {
  InputReader R(Line);
  if (Error E = R.run())
    return E;
  return std::move(R.Out);
}

} // namespace aoti::audit
