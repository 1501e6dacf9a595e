//===- Dups.cpp - The facts behind `aoti-audit dups` ----------------------===//
//
// Five passes, shaped so that the expensive part -- parsing archive members
// -- happens only for members that define a name somebody else defines too:
//
//  1. Read every input, several at once (one input per task; an Archive
//     caches its members and is not thread-safe, so no two threads share
//     one). An archive with a symbol index contributes its index entries
//     as-is -- name and member, nothing parsed. A loose object contributes
//     its global definitions, a shared library its exported ones.
//  2. Merge every definition into one table, name -> definitions. The names'
//     hashes were computed in pass 1, in parallel.
//  3. A name with definitions in two or more places, that the options ask
//     about, is a candidate. Only now are archive members opened (again one
//     archive per task) to learn each candidate definition's binding and
//     type. An index entry the member does not back (a stale index) is
//     dropped.
//  4. Each candidate becomes a Duplicate unless, once the shared builds of
//     archives are set aside (libfoo.so next to libfoo.a: a link takes one
//     or the other), fewer than two definitions are left.
//  5. Only if some duplicate has a definition in an archive member or a
//     shared library: walk the references from the loose objects to find
//     out which members and libraries a plain link pulls in (Dups.h says
//     what "a plain link" means). Members are opened here only when they are
//     pulled in, to follow their own references.
//  6. C++ names of the duplicates are demangled, in parallel. (With
//     prefixes a mangled name is demangled in pass 3 already: the prefix is
//     matched against the demangled name.)
//
// Before pass 1 the command line is expanded: @files, directories (only
// the binaries in them; other files are skipped and counted) and GNU ld
// input scripts, which are replaced by the files they name (libm.a is
// GROUP(libm-2.36.a libmvec.a)). An input named on the line that cannot be
// read is reported and the others are still analysed, as nm does; one found
// in a directory is skipped.
//
// Everything is built in its final order -- duplicates by name, each one's
// definitions by file and member -- by sorting small handles before the
// facts are made, never the facts themselves.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/dups/Dups.h"
#include "aoti/audit/link/Scripts.h"

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

using namespace llvm;

namespace aoti::audit {

StringRef toString(DuplicateKind K) {
  switch (K) {
  case DuplicateKind::StrongStrong: return "strong-strong";
  case DuplicateKind::StrongWeak: return "strong-weak";
  case DuplicateKind::WeakWeak: return "weak-weak";
  case DuplicateKind::Common: return "common";
  }
  return "?";
}

StringRef toString(DefinitionOrigin O) {
  switch (O) {
  case DefinitionOrigin::Object: return "object";
  case DefinitionOrigin::ArchiveMember: return "archive-member";
  case DefinitionOrigin::SharedLibrary: return "shared-library";
  }
  return "?";
}

StringRef toString(DefinitionStrength S) {
  switch (S) {
  case DefinitionStrength::Strong: return "strong";
  case DefinitionStrength::Weak: return "weak";
  case DefinitionStrength::Common: return "common";
  }
  return "?";
}

StringRef toString(PullIn P) {
  switch (P) {
  case PullIn::Always: return "always";
  case PullIn::Maybe: return "maybe";
  case PullIn::Never: return "never";
  }
  return "?";
}

std::string DuplicateDefinition::displayName() const {
  std::string S;
  S.reserve(File.size() + Member.size() + 2);
  S.append(File.data(), File.size());
  if (!Member.empty()) {
    S += '(';
    S.append(Member.data(), Member.size());
    S += ')';
  }
  return S;
}

namespace {

// --- Expanding the command line ---------------------------------------------

struct InputPath {
  std::string Path;
  bool FromDirectory = false; // executables found there are skipped
};

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

class InputExpander {
public:
  void add(StringRef Arg, unsigned Depth = 0);
  std::vector<InputPath> take() { return std::move(Out); }

  /// Named inputs that cannot be read: "PATH: why".
  std::vector<std::string> Problems;
  /// Files of directories that are not binaries.
  std::vector<SkippedFile> Skipped;

private:
  void push(StringRef Path, bool FromDirectory) {
    sys::fs::UniqueID ID;
    if (!sys::fs::getUniqueID(Path, ID) && !Seen.insert(ID).second)
      return; // the same file again, or through a symlink
    Out.push_back({Path.str(), FromDirectory});
  }
  void problem(StringRef Path, const Twine &Msg) {
    Problems.push_back((Path + ": " + Msg).str());
  }
  void addDirectory(StringRef Dir);
  bool addScript(StringRef Path, unsigned Depth);

  std::vector<InputPath> Out;
  std::set<sys::fs::UniqueID> Seen;
};

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

// --- Pass 1: reading ---------------------------------------------------------

constexpr uint32_t NoMember = ~0u;

enum class DefState : uint8_t {
  Known,      // Sym is the definition
  FromIndex,  // only the archive index says so, not confirmed yet
  Stale,      // the index says so, the member does not define it
  Unreadable, // the index says so, the member cannot be read
};

struct RawDef {
  CachedHashStringRef Name;
  uint32_t Member = NoMember;
  DefState State = DefState::Known;
  const Symbol *Sym = nullptr;
};

enum class InputKind : uint8_t { Object, Archive, SharedLibrary, Skipped };

struct LoadedInput {
  InputPath Where;
  InputFile In;
  InputKind Kind = InputKind::Skipped;
  BinaryFormat Format = BinaryFormat::ELF;
  bool FormatKnown = false; // an indexed archive's, until a member is read
  /// "libfoo" for libfoo.a and libfoo.so.1: pairs the two builds of a library.
  std::string LibraryStem;
  std::vector<RawDef> Defs;
  std::vector<std::string> Warnings;
  std::optional<std::string> Failure;
  uint64_t Size = 0;
  /// Which archive members were parsed (Archive::member() caches them).
  std::vector<bool> Opened;

  Expected<const Binary &> member(uint32_t I) {
    if (Opened.empty())
      Opened.resize(In.Ar->members().size());
    if (I < Opened.size())
      Opened[I] = true;
    return In.Ar->member(I);
  }
};

/// A definition a static linker resolves against: global or weak, in a
/// section, absolute or common. Hidden visibility does not matter between
/// relocatable objects (two hidden definitions still collide).
bool isLinkDefinition(const Symbol &S) {
  return S.Defined && !S.isLocal() && !S.Name.empty() &&
         S.Type != SymbolType::Section && S.Type != SymbolType::File;
}

/// A definition a shared library offers other objects: exported, and not a
/// non-default version (`foo@V` binds only references asking for V).
bool isSharedDefinition(const Symbol &S) {
  return S.isExportedDefinition() && !S.VersionHidden && !S.Name.empty();
}

/// Non-weak undefined references, the ones that extract archive members
/// (a weak reference never does).
template <typename Fn> void forEachStrongReference(const Binary &B, Fn &&Do) {
  for (const Symbol &S : B.linkSymbols())
    if (!S.Defined && !S.isWeak() && !S.Name.empty())
      Do(S.Name);
}

std::string libraryStem(StringRef FileName, bool Shared) {
  if (!Shared)
    return FileName.ends_with(".a") ? FileName.drop_back(2).str() : FileName.str();
  size_t So = FileName.find(".so");
  if (So != StringRef::npos &&
      (So + 3 == FileName.size() || FileName[So + 3] == '.'))
    return FileName.take_front(So).str();
  if (FileName.consume_back(".dylib") || FileName.consume_back(".tbd"))
    while (true) { // libfoo.1.2.dylib -> libfoo
      size_t Dot = FileName.rfind('.');
      if (Dot == StringRef::npos ||
          FileName.drop_front(Dot + 1).find_first_not_of("0123456789") !=
              StringRef::npos)
        break;
      FileName = FileName.take_front(Dot);
    }
  return FileName.str();
}

void addBinaryDefs(const Binary &B, uint32_t Member, std::vector<RawDef> &Out) {
  if (B.kind() == FileKind::Relocatable) {
    for (const Symbol &S : B.staticSymbols())
      if (isLinkDefinition(S))
        Out.push_back({CachedHashStringRef(S.Name), Member, DefState::Known, &S});
  } else {
    for (const Symbol &S : B.dynamicSymbols())
      if (isSharedDefinition(S) && !isLinkerDefined(B, S))
        Out.push_back({CachedHashStringRef(S.Name), Member, DefState::Known, &S});
  }
}

void loadInput(LoadedInput &L) {
  auto In = readInput(L.Where.Path);
  if (!In) {
    L.Failure = toString(In.takeError());
    return;
  }
  L.In = std::move(*In);
  if (const Archive *A = L.In.Ar.get()) {
    L.Kind = InputKind::Archive;
    L.LibraryStem = libraryStem(sys::path::filename(A->path()), false);
    auto Open = [&](uint32_t I) -> const Binary * {
      auto B = L.member(I);
      if (!B) {
        L.Warnings.push_back(toString(B.takeError()));
        return nullptr;
      }
      return &*B;
    };
    if (A->hasSymbolIndex()) {
      L.Defs.reserve(A->symbolIndex().size());
      for (const Archive::IndexEntry &E : A->symbolIndex())
        L.Defs.push_back({CachedHashStringRef(E.Name), E.MemberIndex,
                          DefState::FromIndex, nullptr});
      // The object format (Mach-O names carry '_') is learnt later, from
      // the first member, and only if a name needs it (formatOf()).
    } else {
      // No index (`ar q` without `s`): every member has to be read.
      for (uint32_t I = 0, E = A->members().size(); I != E; ++I)
        if (const Binary *B = Open(I)) {
          L.Format = B->format();
          L.FormatKnown = true;
          addBinaryDefs(*B, I, L.Defs);
        }
    }
    return;
  }
  const Binary &B = *L.In.Bin;
  L.Format = B.format();
  L.FormatKnown = true;
  switch (B.kind()) {
  case FileKind::Relocatable:
    L.Kind = InputKind::Object;
    break;
  case FileKind::SharedLibrary:
    // A section header, .symtab or version section that lies where ld.so
    // never looks: the library loads, but no link takes it, so its names
    // are no link's definitions.
    if (!B.linkerRefusal().empty()) {
      L.Failure = formatv("{0}: a linker refuses it: {1}", L.Where.Path,
                          B.linkerRefusal())
                      .str();
      return;
    }
    L.Kind = InputKind::SharedLibrary;
    L.LibraryStem = libraryStem(
        B.soname().empty() ? B.fileName() : sys::path::filename(B.soname()),
        true);
    break;
  case FileKind::Executable:
  case FileKind::Bundle:
    if (!L.Where.FromDirectory)
      L.Failure = formatv("{0}: is {1}, not a link input; dups reads objects, "
                          "archives and shared libraries",
                          L.Where.Path,
                          B.kind() == FileKind::Bundle ? "a bundle"
                                                       : "an executable")
                      .str();
    return;
  case FileKind::Other:
    L.Failure = formatv("{0}: is not an object, an archive or a shared library",
                        L.Where.Path)
                    .str();
    return;
  }
  addBinaryDefs(B, NoMember, L.Defs);
}

/// Runs Do(I) for I in Order on up to Jobs threads.
template <typename Fn>
void parallelFor(const std::vector<size_t> &Order, unsigned Jobs, Fn &&Do) {
  Jobs = std::min<size_t>(Jobs, Order.size());
  if (Jobs <= 1) {
    for (size_t I : Order)
      Do(I);
    return;
  }
  std::atomic<size_t> Next{0};
  std::vector<std::thread> Workers;
  for (unsigned J = 0; J != Jobs; ++J)
    Workers.emplace_back([&] {
      for (size_t K; (K = Next.fetch_add(1)) < Order.size();)
        Do(Order[K]);
    });
  for (std::thread &T : Workers)
    T.join();
}

// --- Passes 2 to 5 -------------------------------------------------------------

struct DefRef {
  uint32_t Input;
  uint32_t Def; // index into LoadedInput::Defs
};

/// A place that is linked as a whole: a loose object, an archive member, a
/// shared library.
using UnitKey = uint64_t;
UnitKey unitOf(uint32_t Input, uint32_t Member) {
  return (uint64_t(Input) << 32) | Member;
}

class DupsAnalyzer {
public:
  DupsAnalyzer(DupsFacts &F, std::vector<LoadedInput> &Inputs, unsigned Jobs)
      : F(F), Inputs(Inputs), Jobs(Jobs) {}
  void run();

private:
  const RawDef &def(DefRef R) const { return Inputs[R.Input].Defs[R.Def]; }
  RawDef &def(DefRef R) { return Inputs[R.Input].Defs[R.Def]; }
  UnitKey unit(DefRef R) const { return unitOf(R.Input, def(R).Member); }

  void buildTable();
  bool wanted(StringRef Name, uint32_t Input, std::string &Demangled,
              StringRef &ToDemangle);
  BinaryFormat formatOf(uint32_t Input);
  void confirmCandidates();
  void buildDuplicates();
  void computePullIn();
  void finish();
  void demangle();

  DupsFacts &F;
  std::vector<LoadedInput> &Inputs;
  unsigned Jobs;
  mutable ItaniumPartialDemangler Partial; // wanted() runs on one thread

  DenseMap<CachedHashStringRef, uint32_t> GroupOf;
  std::vector<SmallVector<DefRef, 2>> Groups;
  struct Candidate {
    uint32_t Group;
    std::string Demangled;
    StringRef ToDemangle; // a C++ name demangled later (pass 6), in parallel
  };
  std::vector<Candidate> Candidates;
  /// For each F.Duplicates[I], the definitions behind it, and the C++ name
  /// still to demangle.
  std::vector<std::vector<DefRef>> DupDefs;
  std::vector<StringRef> DupToDemangle;
};

void DupsAnalyzer::buildTable() {
  size_t Total = 0;
  for (const LoadedInput &L : Inputs)
    Total += L.Defs.size();
  GroupOf.reserve(Total);
  for (uint32_t I = 0; I != Inputs.size(); ++I)
    for (uint32_t D = 0; D != Inputs[I].Defs.size(); ++D) {
      auto [It, New] = GroupOf.try_emplace(Inputs[I].Defs[D].Name, Groups.size());
      if (New)
        Groups.emplace_back();
      Groups[It->second].push_back({I, D});
    }
}

BinaryFormat DupsAnalyzer::formatOf(uint32_t Input) {
  LoadedInput &L = Inputs[Input];
  if (!L.FormatKnown && L.Kind == InputKind::Archive) {
    // Single-threaded here (pass 3, before the parallel part).
    L.FormatKnown = true;
    if (!L.In.Ar->members().empty()) {
      if (auto B = L.member(0))
        L.Format = B->format();
      else
        consumeError(B.takeError()); // reported if a candidate is in it
    }
  }
  return L.Format;
}

bool DupsAnalyzer::wanted(StringRef Name, uint32_t Input,
                          std::string &Demangled, StringRef &ToDemangle) {
  const DupsOptions &O = F.Options;
  // Without knowing the object format: could the name be wanted at all,
  // read as ELF (as is) or as Mach-O (one '_' less)? Most names are decided
  // here, and an archive's format is read only for the others.
  auto MaybeMangled = [](StringRef N) {
    return N.starts_with("_Z") || N.starts_with("__Z");
  };
  if (!O.All || !O.Cxx) {
    bool Maybe = O.Cxx && MaybeMangled(Name);
    if (O.All)
      Maybe |= !MaybeMangled(Name);
    for (size_t P = 0; !Maybe && P != O.Prefixes.size(); ++P)
      Maybe = Name.starts_with(O.Prefixes[P]) ||
              Name.drop_front(Name.starts_with("_")).starts_with(O.Prefixes[P]);
    if (!Maybe)
      return false;
  }
  // The C name (Mach-O puts '_' before it).
  StringRef Source = formatInfo(formatOf(Input)).cName(Name);
  bool Mangled = Source.starts_with("_Z");
  if (Mangled) {
    if (!O.Cxx)
      return false;
    if (O.All) { // nothing to match: demangle only what turns out duplicate
      ToDemangle = Source;
      return true;
    }
    Demangled = llvm::demangle(std::string_view(Source.data(), Source.size()));
    if (Demangled == Source)
      Demangled.clear(); // not valid Itanium mangling after all
  }
  if (O.All)
    return true;
  // A prefix matches a function's qualified name ("ns::aoti_torch_clamp<int>"
  // of "int ns::aoti_torch_clamp<int>(int)"), anything else's demangled name.
  std::string Qualified;
  if (!Demangled.empty()) {
    std::string Z = Source.str(); // the demangler wants a NUL
    if (!Partial.partialDemangle(Z.c_str()) && Partial.isFunction())
      if (char *N = Partial.getFunctionName(nullptr, nullptr)) {
        Qualified = N;
        std::free(N);
      }
  }
  StringRef Match = !Qualified.empty()  ? StringRef(Qualified)
                    : !Demangled.empty() ? StringRef(Demangled)
                                         : Source;
  for (const std::string &P : O.Prefixes)
    if (Match.starts_with(P))
      return true;
  return false;
}

void DupsAnalyzer::confirmCandidates() {
  // Which (member, definition) pairs each archive has to confirm.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> Work(Inputs.size());
  for (uint32_t G = 0; G != Groups.size(); ++G) {
    const SmallVector<DefRef, 2> &Defs = Groups[G];
    if (Defs.size() < 2)
      continue;
    UnitKey First = unit(Defs[0]);
    if (std::all_of(Defs.begin() + 1, Defs.end(),
                    [&](DefRef R) { return unit(R) == First; }))
      continue; // one place lists the name twice
    std::string Demangled;
    StringRef ToDemangle;
    if (!wanted(def(Defs[0]).Name.val(), Defs[0].Input, Demangled, ToDemangle))
      continue;
    Candidates.push_back({G, std::move(Demangled), ToDemangle});
    for (DefRef R : Defs)
      if (def(R).State == DefState::FromIndex)
        Work[R.Input].push_back({def(R).Member, R.Def});
  }

  std::vector<size_t> Order;
  for (size_t I = 0; I != Work.size(); ++I)
    if (!Work[I].empty())
      Order.push_back(I);
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Work[A].size() > Work[B].size();
  });
  parallelFor(Order, Jobs, [&](size_t I) {
    LoadedInput &L = Inputs[I];
    std::vector<std::pair<uint32_t, uint32_t>> &W = Work[I];
    std::sort(W.begin(), W.end());
    SmallDenseMap<CachedHashStringRef, uint32_t, 16> Rest;
    for (size_t B = 0; B != W.size();) {
      uint32_t Member = W[B].first;
      size_t E = B;
      while (E != W.size() && W[E].first == Member)
        ++E;
      auto Bin = L.member(Member);
      if (!Bin) {
        L.Warnings.push_back(toString(Bin.takeError()));
        for (size_t K = B; K != E; ++K)
          L.Defs[W[K].second].State = DefState::Unreadable;
        B = E;
        continue;
      }
      bool Relocatable = Bin->kind() == FileKind::Relocatable;
      const std::vector<Symbol> &Syms =
          Relocatable ? Bin->staticSymbols() : Bin->dynamicSymbols();
      auto Defines = [&](const Symbol &S) {
        return Relocatable ? isLinkDefinition(S)
                           : isSharedDefinition(S) && !isLinkerDefined(*Bin, S);
      };
      auto Found = [&](uint32_t Def, const Symbol &S) {
        L.Defs[Def].State = DefState::Known;
        L.Defs[Def].Sym = &S;
      };
      for (size_t K = B; K != E; ++K)
        L.Defs[W[K].second].State = DefState::Stale; // until found
      // ar writes a member's index entries in the order of its symbol table,
      // so one merge-like walk usually finds them all without hashing.
      size_t Next = B;
      for (const Symbol &S : Syms) {
        if (Next == E)
          break;
        if (S.Name == L.Defs[W[Next].second].Name.val() && Defines(S))
          Found(W[Next++].second, S);
      }
      // Whatever the walk missed (another index order), by name.
      Rest.clear();
      for (size_t K = B; K != E; ++K)
        if (L.Defs[W[K].second].State == DefState::Stale)
          Rest.try_emplace(L.Defs[W[K].second].Name, W[K].second);
      if (!Rest.empty())
        for (const Symbol &S : Syms)
          if (Defines(S)) {
            auto It = Rest.find(CachedHashStringRef(S.Name));
            if (It != Rest.end())
              Found(It->second, S);
          }
      B = E;
    }
  });
}

DefinitionStrength strengthOf(const RawDef &D) {
  if (!D.Sym)
    return DefinitionStrength::Strong; // unreadable member: assume the worst
  if (D.Sym->Type == SymbolType::Common)
    return DefinitionStrength::Common;
  // STB_GNU_UNIQUE, like weak: one definition wins by design.
  if (D.Sym->Binding == SymbolBinding::Weak ||
      D.Sym->Binding == SymbolBinding::Unique)
    return DefinitionStrength::Weak;
  return DefinitionStrength::Strong;
}

void DupsAnalyzer::buildDuplicates() {
  // Built in the order the facts promise -- by name, each duplicate's
  // definitions by file and member -- by sorting small handles, not the
  // finished structures.
  auto NameOf = [&](const Candidate &C) { return def(Groups[C.Group][0]).Name.val(); };
  std::sort(Candidates.begin(), Candidates.end(),
            [&](const Candidate &A, const Candidate &B) {
              return NameOf(A) < NameOf(B);
            });
  auto Place = [&](DefRef R) {
    const LoadedInput &L = Inputs[R.Input];
    StringRef Member = L.Kind == InputKind::Archive
                           ? StringRef(L.In.Ar->members()[def(R).Member].Name)
                           : StringRef();
    return std::make_pair(StringRef(F.Files[R.Input]), Member);
  };
  auto ByPlace = [&](DefRef A, DefRef B) { return Place(A) < Place(B); };
  for (Candidate &C : Candidates) {
    // One definition per place; stale index entries dropped.
    std::vector<DefRef> Defs;
    SmallDenseSet<UnitKey, 8> Places;
    bool HasShared = false;
    for (DefRef R : Groups[C.Group]) {
      DefState S = def(R).State;
      if (S == DefState::Stale || S == DefState::FromIndex)
        continue;
      if (Places.insert(unit(R)).second)
        Defs.push_back(R);
      HasShared |= Inputs[R.Input].Kind == InputKind::SharedLibrary;
    }
    // The shared build of an archive that defines the name is not a second
    // definition: a link uses libfoo.a or libfoo.so.
    std::vector<StringRef> ArchiveStems;
    for (DefRef R : Defs)
      if (HasShared && Inputs[R.Input].Kind == InputKind::Archive)
        ArchiveStems.push_back(Inputs[R.Input].LibraryStem);
    std::vector<std::string> Variants;
    if (HasShared)
      llvm::erase_if(Defs, [&](DefRef R) {
      const LoadedInput &L = Inputs[R.Input];
      if (L.Kind != InputKind::SharedLibrary ||
          !llvm::is_contained(ArchiveStems, StringRef(L.LibraryStem)))
        return false;
      Variants.push_back(L.Where.Path);
      return true;
    });
    if (Defs.size() < 2)
      continue;
    if (!std::is_sorted(Defs.begin(), Defs.end(), ByPlace))
      std::sort(Defs.begin(), Defs.end(), ByPlace);

    Duplicate D;
    D.Definitions.reserve(Defs.size());
    D.Name = def(Defs[0]).Name.val().str();
    D.Demangled = std::move(C.Demangled);
    D.SharedVariants = std::move(Variants);
    bool Torch = false, Other = false;
    for (DefRef R : Defs)
      (isLibTorchFile(F.Files[R.Input]) ? Torch : Other) = true;
    // Only a shim name (under the prefixes, which --all keeps) is two
    // tensor ABIs; LibTorch shares libstdc++'s weak inline copies, say,
    // with everything else.
    StringRef Bare = StringRef(D.Name);
    bool Shim = false;
    for (const std::string &P : F.Options.Prefixes)
      Shim |= Bare.starts_with(P) || Bare.drop_front(Bare.starts_with("_"))
                                         .starts_with(P);
    D.LibTorchClash = Torch && Other && Shim;
    unsigned Strong = 0, Common = 0;
    for (DefRef R : Defs) {
      const RawDef &RD = def(R);
      const LoadedInput &L = Inputs[R.Input];
      DuplicateDefinition DD;
      DD.File = F.Files[R.Input]; // Files is complete and stays put
      if (L.Kind == InputKind::Archive) {
        DD.Member = L.In.Ar->members()[RD.Member].Name;
        DD.Origin = DefinitionOrigin::ArchiveMember;
      } else {
        DD.Origin = L.Kind == InputKind::SharedLibrary
                        ? DefinitionOrigin::SharedLibrary
                        : DefinitionOrigin::Object;
      }
      DD.Confirmed = RD.Sym != nullptr;
      if (RD.Sym) {
        DD.Binding = RD.Sym->Binding;
        DD.Visibility = RD.Sym->Visibility;
        DD.Type = RD.Sym->Type;
        DD.Version = RD.Sym->Version;
      }
      DD.Strength = strengthOf(RD);
      DD.Pulled = DD.Origin == DefinitionOrigin::Object ? PullIn::Always
                                                        : PullIn::Never;
      Strong += DD.Strength == DefinitionStrength::Strong;
      Common += DD.Strength == DefinitionStrength::Common;
      D.Definitions.push_back(std::move(DD));
    }
    D.Kind = Strong >= 2   ? DuplicateKind::StrongStrong
             : Common      ? DuplicateKind::Common
             : Strong == 1 ? DuplicateKind::StrongWeak
                           : DuplicateKind::WeakWeak;
    F.Duplicates.push_back(std::move(D));
    DupDefs.push_back(std::move(Defs));
    DupToDemangle.push_back(C.ToDemangle);
  }
}

void DupsAnalyzer::computePullIn() {
  bool AnyLazy = false;
  for (const Duplicate &D : F.Duplicates)
    for (const DuplicateDefinition &DD : D.Definitions)
      AnyLazy |= DD.Origin != DefinitionOrigin::Object;
  if (!AnyLazy)
    return;

  DenseMap<UnitKey, PullIn> State;
  std::vector<UnitKey> Queue;
  for (uint32_t I = 0; I != Inputs.size(); ++I)
    if (Inputs[I].Kind == InputKind::Object) {
      State[unitOf(I, NoMember)] = PullIn::Always;
      Queue.push_back(unitOf(I, NoMember));
    }
  SmallVector<UnitKey, 4> Providers;
  auto Reference = [&](StringRef Name) {
    auto It = GroupOf.find(CachedHashStringRef(Name));
    if (It == GroupOf.end())
      return;
    Providers.clear();
    for (DefRef R : Groups[It->second])
      if (def(R).State != DefState::Stale &&
          !llvm::is_contained(Providers, unit(R)))
        Providers.push_back(unit(R));
    if (Providers.size() == 1) {
      PullIn &S = State.try_emplace(Providers[0], PullIn::Never).first->second;
      if (S != PullIn::Always) {
        S = PullIn::Always;
        Queue.push_back(Providers[0]);
      }
      return;
    }
    for (UnitKey U : Providers) {
      PullIn &S = State.try_emplace(U, PullIn::Never).first->second;
      if (S == PullIn::Never)
        S = PullIn::Maybe;
    }
  };
  while (!Queue.empty()) {
    UnitKey U = Queue.back();
    Queue.pop_back();
    LoadedInput &L = Inputs[U >> 32];
    uint32_t Member = uint32_t(U);
    const Binary *B = L.In.Bin.get();
    if (Member != NoMember) {
      // Single-threaded here, so sharing the archive's member cache is safe.
      auto M = L.member(Member);
      if (!M) {
        consumeError(M.takeError()); // reported when it mattered, in pass 3
        continue;
      }
      B = &*M;
    }
    forEachStrongReference(*B, Reference);
  }

  for (size_t I = 0; I != F.Duplicates.size(); ++I)
    for (size_t K = 0; K != DupDefs[I].size(); ++K) {
      auto It = State.find(unit(DupDefs[I][K]));
      F.Duplicates[I].Definitions[K].Pulled =
          It == State.end() ? PullIn::Never : It->second;
    }
}

void DupsAnalyzer::finish() {
  for (Duplicate &D : F.Duplicates) {
    // The definitions that clash: for two strong ones, the strong ones (a
    // weak one beside them changes nothing); otherwise all of them.
    unsigned Always = 0, Relocatable = 0, Shared = 0;
    for (const DuplicateDefinition &DD : D.Definitions) {
      if (D.Kind == DuplicateKind::StrongStrong &&
          DD.Strength != DefinitionStrength::Strong)
        continue;
      Always += DD.Pulled == PullIn::Always;
      (DD.Origin == DefinitionOrigin::SharedLibrary ? Shared : Relocatable)++;
    }
    D.Latent = Always < 2;
    D.Interposition = Shared > 0 && Relocatable < 2;
  }
}

void DupsAnalyzer::demangle() {
  std::vector<size_t> Order;
  for (size_t I = 0; I != DupToDemangle.size(); ++I)
    if (!DupToDemangle[I].empty())
      Order.push_back(I);
  // In chunks: one demangling is a few microseconds.
  constexpr size_t Chunk = 256;
  std::vector<size_t> Chunks;
  for (size_t C = 0; C < Order.size(); C += Chunk)
    Chunks.push_back(C);
  parallelFor(Chunks, Jobs, [&](size_t C) {
    for (size_t K = C; K < std::min(C + Chunk, Order.size()); ++K) {
      StringRef S = DupToDemangle[Order[K]];
      std::string Out = llvm::demangle(std::string_view(S.data(), S.size()));
      if (Out != S)
        F.Duplicates[Order[K]].Demangled = std::move(Out);
    }
  });
}

/// Adds the seconds since the last lap to the stats under a name.
class PassTimer {
public:
  explicit PassTimer(DupsStats &S) : S(S) {}
  void lap(const char *Pass) {
    auto Now = std::chrono::steady_clock::now();
    S.PassSeconds.emplace_back(Pass,
                               std::chrono::duration<double>(Now - Last).count());
    Last = Now;
  }

private:
  DupsStats &S;
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
};

void DupsAnalyzer::run() {
  PassTimer T(F.Stats);
  buildTable();
  T.lap("table");
  confirmCandidates();
  T.lap("confirm");
  buildDuplicates();
  T.lap("duplicates");
  computePullIn();
  T.lap("pull-in");
  finish();
  T.lap("latent");
  demangle();
  T.lap("demangle");
}

} // namespace

Expected<std::unique_ptr<DupsFacts>> analyzeDups(DupsOptions Options) {
  auto F = std::make_unique<DupsFacts>();
  F->Options = std::move(Options);
  if (F->Options.Inputs.empty())
    return createStringError(inconvertibleErrorCode(), "no inputs");

  InputExpander X;
  for (const std::string &Arg : F->Options.Inputs)
    X.add(Arg);
  std::vector<InputPath> Paths = X.take();
  F->Unreadable = std::move(X.Problems);
  F->Skipped = std::move(X.Skipped);

  unsigned Jobs = F->Options.Jobs ? F->Options.Jobs
                                  : std::max(1u, std::thread::hardware_concurrency());
  std::vector<LoadedInput> Inputs(Paths.size());
  std::vector<size_t> Order(Paths.size());
  for (size_t I = 0; I != Paths.size(); ++I) {
    Inputs[I].Where = std::move(Paths[I]);
    sys::fs::file_size(Inputs[I].Where.Path, Inputs[I].Size);
    Order[I] = I;
  }
  // Largest first, so that one big archive does not finish last alone.
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Inputs[A].Size > Inputs[B].Size;
  });
  auto ReadStart = std::chrono::steady_clock::now();
  parallelFor(Order, Jobs, [&](size_t I) { loadInput(Inputs[I]); });
  F->Stats.PassSeconds.emplace_back(
      "read", std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            ReadStart)
                  .count());

  // A named input that cannot be read is an error the command reports; one
  // found in a directory is skipped (a directory is whatever it holds).
  for (const LoadedInput &L : Inputs)
    if (L.Failure) {
      if (L.Where.FromDirectory)
        F->Skipped.push_back({L.Where.Path, *L.Failure});
      else
        F->Unreadable.push_back(*L.Failure);
    }
  llvm::erase_if(Inputs, [&](const LoadedInput &L) {
    if (L.Kind != InputKind::Skipped)
      return false;
    F->Stats.SkippedExecutables += !L.Failure;
    return true;
  });
  F->Stats.SkippedFiles = F->Skipped.size();
  std::sort(F->Skipped.begin(), F->Skipped.end(),
            [](const SkippedFile &A, const SkippedFile &B) {
              return A.Path < B.Path;
            });
  for (const LoadedInput &L : Inputs) {
    F->Files.push_back(L.Where.Path);
    F->Stats.Objects += L.Kind == InputKind::Object;
    F->Stats.Archives += L.Kind == InputKind::Archive;
    F->Stats.SharedLibraries += L.Kind == InputKind::SharedLibrary;
    if (L.Kind == InputKind::Archive && L.In.Ar->hasSymbolIndex())
      F->Stats.IndexEntries += L.In.Ar->symbolIndex().size();
  }

  DupsAnalyzer(*F, Inputs, Jobs).run();

  for (LoadedInput &L : Inputs) {
    F->Stats.MembersOpened += std::count(L.Opened.begin(), L.Opened.end(), true);
    for (std::string &W : L.Warnings)
      F->Warnings.push_back(std::move(W));
    F->Read.push_back(std::move(L.In));
  }
  return F;
}

bool isLinkerDefined(const Binary &B, const Symbol &S) {
  if (B.format() != BinaryFormat::ELF || B.kind() == FileKind::Relocatable)
    return false;
  // GNU ld and lld define a version node's own name, absolute, in that
  // version (`NCURSES6_TINFO_5.0.19991023@@NCURSES6_TINFO_5.0.19991023`).
  if (!S.Version.empty() && S.Name == S.Version)
    return true;
  static const StringSet<> Names = {
      // The default linker scripts (`ld --verbose`, `ld -shared --verbose`)
      // and lld's built-in equivalents: end of text, data, bss.
      "__bss_start", "_edata", "edata", "_end", "end", "_etext", "etext",
      "__etext", "__executable_start", "__end__",
      // Defined by the linker for its own tables (usually hidden; some
      // linkers and old binutils export them).
      "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_", "_PROCEDURE_LINKAGE_TABLE_",
      "__ehdr_start", "__GNU_EH_FRAME_HDR", "_TLS_MODULE_BASE_",
      "__init_array_start", "__init_array_end", "__fini_array_start",
      "__fini_array_end", "__preinit_array_start", "__preinit_array_end",
      "__rela_iplt_start", "__rela_iplt_end",
      // crti.o (every gcc/clang link): the DT_INIT/DT_FINI entry points.
      "_init", "_fini",
      // crt1.o / Scrt1.o (executables) and crtbegin*.o / crtend*.o.
      "_start", "_IO_stdin_used", "__data_start", "data_start",
      "_dl_relocate_static_pie", "__dso_handle", "__TMC_END__"};
  return Names.contains(S.Name);
}

} // namespace aoti::audit
