//===- dups/Passes.h - The pieces of analyzeDups --------------------------===//
//
// Private to audit/lib/dups. analyzeDups() (Dups.cpp) runs the passes listed
// at the top of Dups.cpp; each part lives in a file of its own:
//   InputList.cpp   the command line expanded into files: @files,
//                   directories, GNU ld input scripts;
//   ReadInputs.cpp  pass 1: each file read, its definitions listed;
//   Candidates.cpp  passes 2 and 3: one table of names; the names defined in
//                   two places confirmed against their archive members;
//   Duplicates.cpp  passes 4 and 6: each candidate made a Duplicate (or set
//                   aside), its kind decided, its C++ name demangled;
//   PullIn.cpp      pass 5: what a plain link pulls in, and so which
//                   duplicates are latent.
// This header holds what they share: the files as read (LoadedInput) and
// DupsAnalyzer, which carries passes 2 to 6 over them.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_DUPS_PASSES_H
#define AOTI_AUDIT_LIB_DUPS_PASSES_H

#include "aoti/audit/dups/Dups.h"

#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace aoti::audit::dups {

using llvm::CachedHashStringRef;
using llvm::DenseMap;
using llvm::Expected;
using llvm::ItaniumPartialDemangler;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

// --- InputList.cpp -----------------------------------------------------------

struct InputPath {
  std::string Path;
  bool FromDirectory = false; // executables found there are skipped
};

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
    llvm::sys::fs::UniqueID ID;
    if (!llvm::sys::fs::getUniqueID(Path, ID) && !Seen.insert(ID).second)
      return; // the same file again, or through a symlink
    Out.push_back({Path.str(), FromDirectory});
  }
  void problem(StringRef Path, const Twine &Msg) {
    Problems.push_back((Path + ": " + Msg).str());
  }
  void addDirectory(StringRef Dir);
  bool addScript(StringRef Path, unsigned Depth);

  std::vector<InputPath> Out;
  std::set<llvm::sys::fs::UniqueID> Seen;
};

// --- ReadInputs.cpp ----------------------------------------------------------

inline constexpr uint32_t NoMember = ~0u;

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
bool isLinkDefinition(const Symbol &S);

/// A definition a shared library offers other objects: exported, and not a
/// non-default version (`foo@V` binds only references asking for V).
bool isSharedDefinition(const Symbol &S);

/// Pass 1 for one input: reads L.Where.Path into L.In and lists its
/// definitions in L.Defs (an archive's from its index when it has one), or
/// says in L.Failure why it is no link input.
void loadInput(LoadedInput &L);

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

// --- Passes 2 to 6: Candidates.cpp, Duplicates.cpp, PullIn.cpp ---------------

struct DefRef {
  uint32_t Input;
  uint32_t Def; // index into LoadedInput::Defs
};

/// A place that is linked as a whole: a loose object, an archive member, a
/// shared library.
using UnitKey = uint64_t;
inline UnitKey unitOf(uint32_t Input, uint32_t Member) {
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

} // namespace aoti::audit::dups

#endif // AOTI_AUDIT_LIB_DUPS_PASSES_H
