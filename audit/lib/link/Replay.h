//===- link/Replay.h - The replay of a static link -----------------------===//
//
// Private to audit/lib/link. simulateLink (Model.cpp) replays a link in the
// order the linkers do their work, one file a pass:
//
//   1. the symbol table (SymbolTable.cpp): objects and shared libraries
//      enter it in command-line order, COMDAT groups are deduplicated,
//      definitions collide or override;
//   2. archive extraction (ArchiveExtraction.cpp): which members the link
//      takes, and whether an --as-needed library is kept;
//   3. exports (Exports.cpp): which definitions reach the dynamic symbol
//      table (ELF) or the export trie (Mach-O);
//   4. the mark-live pass (MarkLive.cpp): --gc-sections, -dead_strip;
//   5. the undefined references the link reports (Undefined.cpp).
//
// What differs between the linkers is one FlavorPolicy per replay, chosen
// once (policyFor): GNU ld's one pass, lld's lazy table, ld64's rules. Each
// pass file defines its part of every policy, side by side.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_LINK_REPLAY_H
#define AOTI_AUDIT_LIB_LINK_REPLAY_H

#include "aoti/audit/link/Model.h"
#include "aoti/audit/link/Scripts.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace aoti::audit::linker {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

// --- SymbolTable.cpp ----------------------------------------------------

/// A dynamic symbol a shared library exports to the link (not a
/// version-hidden one).
bool isExportableDefinition(const Symbol &S);

/// A symbol the linker resolves: global or weak, named, not a section or
/// file symbol.
bool linkerSymbol(const Symbol &S);

/// The more constraining of two visibilities.
SymbolVisibility stricter(SymbolVisibility A, SymbolVisibility B);

// --- Undefined.cpp ------------------------------------------------------

/// Names the linker itself defines when something refers to them.
bool isLinkerDefined(StringRef N);

/// What ld64 and ld64.lld define themselves.
bool isLd64Defined(StringRef N);

// --- Exports.cpp --------------------------------------------------------

/// The parsed export/local lists of a command line.
struct ExportLists {
  // ld64: -exported_symbol(s_list), -unexported_symbol(s_list).
  bool HasExportList = false;
  SymbolPatternList Exported, Unexported;
  std::vector<VersionScript> VersionScripts;
  SymbolPatternList ExportSymbols; // --export-dynamic-symbol
  std::vector<SymbolPatternList> ExportSymbolLists; // ...-symbol-list
  std::vector<SymbolPatternList> DynamicLists;
};

Expected<ExportLists> readExportLists(const LinkCommandLine &L);

// --- the flavours -------------------------------------------------------

class Replay;

/// What one linker flavour decides its own way. The passes ask it; none of
/// them tests the flavour.
class FlavorPolicy {
public:
  virtual ~FlavorPolicy() = default;

  // Archive extraction (ArchiveExtraction.cpp).
  /// Before the first input: GNU ld enters the -u names, so that the
  /// archives read next are scanned for them.
  virtual Error beforeInputs(Replay &Rp);
  /// An object on the line.
  virtual Error readObject(Replay &Rp, unsigned I);
  /// An archive on the line, not read --whole-archive.
  virtual Error readArchive(Replay &Rp, unsigned I) = 0;
  /// A shared library (dylib) on the line.
  virtual void readSharedLibrary(Replay &Rp, unsigned I) = 0;
  /// The last input of a --start-group region (or a script's GROUP()).
  virtual Error endOfGroup(Replay &Rp, size_t Last);
  /// After the last input: the -u names, where GNU ld did not take them
  /// first, and what the flavour decides at the end.
  virtual Error afterInputs(Replay &Rp);
  /// A weak reference extracts the member that defines the name.
  virtual bool weakReferenceExtracts() const { return false; }

  /// The entry point when -e does not name one.
  virtual StringRef defaultEntry() const = 0;

  // Exports (Exports.cpp): the output's dynamic symbol table.
  virtual void exports(Replay &Rp) = 0;
  // Mark-live (MarkLive.cpp): the names that keep their sections, beyond
  // the sections every link keeps.
  virtual void liveRoots(Replay &Rp,
                         llvm::function_ref<void(StringRef)> MarkSymbol) = 0;
  // Undefined references (Undefined.cpp); LiveUndefined: the names a live
  // section refers to, under --gc-sections.
  virtual void reportUndefined(Replay &Rp,
                               const std::set<unsigned> &LiveUndefined) = 0;
};

/// GNU ld and lld write ELF: the same exports, roots and errors.
class ElfPolicy : public FlavorPolicy {
public:
  StringRef defaultEntry() const override { return "_start"; }
  void exports(Replay &Rp) override;
  void liveRoots(Replay &Rp,
                 llvm::function_ref<void(StringRef)> MarkSymbol) override;
  void reportUndefined(Replay &Rp,
                       const std::set<unsigned> &LiveUndefined) override;
};

/// GNU ld (and gold): one pass, left to right.
class GnuPolicy final : public ElfPolicy {
public:
  Error beforeInputs(Replay &Rp) override;
  Error readArchive(Replay &Rp, unsigned I) override;
  void readSharedLibrary(Replay &Rp, unsigned I) override;
  Error endOfGroup(Replay &Rp, size_t Last) override;
  Error afterInputs(Replay &Rp) override;
};

/// lld and mold: every archive member remembered, lazily.
class LldPolicy final : public ElfPolicy {
public:
  Error readObject(Replay &Rp, unsigned I) override;
  Error readArchive(Replay &Rp, unsigned I) override;
  void readSharedLibrary(Replay &Rp, unsigned I) override;
  Error afterInputs(Replay &Rp) override;
};

/// ld64 and ld64.lld: lazy as lld, with their own rules; Mach-O output.
class Ld64Policy final : public FlavorPolicy {
public:
  Error readArchive(Replay &Rp, unsigned I) override;
  void readSharedLibrary(Replay &Rp, unsigned I) override;
  Error afterInputs(Replay &Rp) override;
  bool weakReferenceExtracts() const override { return true; }
  StringRef defaultEntry() const override { return "_main"; }
  void exports(Replay &Rp) override;
  void liveRoots(Replay &Rp,
                 llvm::function_ref<void(StringRef)> MarkSymbol) override;
  void reportUndefined(Replay &Rp,
                       const std::set<unsigned> &LiveUndefined) override;
};

/// The one place the flavour is tested (ArchiveExtraction.cpp).
std::unique_ptr<FlavorPolicy> policyFor(LinkFlavor F);

// --- the replay ---------------------------------------------------------

/// One replay: the state the passes share (as lld's passes share its
/// context), and the mechanics of each pass that every flavour uses.
class Replay {
public:
  Replay(const LinkCommandLine &L, const std::vector<LinkInput> &In,
         const LinkWhatIf &W, const ExportLists &Lists)
      : L(L), In(In), W(W), Lists(Lists), F(W.Flavor.value_or(L.Flavor)),
        Policy(policyFor(F)) {}

  Expected<LinkResult> run();

  // --- the symbol table (SymbolTable.cpp) ----------------------------------

  unsigned sym(StringRef Name);
  bool taken(unsigned Input, int Member) const;
  bool whole(unsigned I) const;
  static Extraction whyFrom(const LinkSymbol &S);
  /// The member as an object, or null when it is not one (a text file, a
  /// member of another architecture): both linkers skip those.
  Expected<const Binary *> memberObject(unsigned I, int M);
  Error loadObject(unsigned I, int M, Extraction Why);
  void define(int Obj, const Symbol &D);
  Error reference(int Obj, const Symbol &U);
  Error extractLazy(unsigned Idx);
  Error addLazy(StringRef Name, unsigned I, int M);
  Error addUndefinedOption(StringRef Name, bool Entry = false);
  /// -u, --undefined, --require-defined.
  Error addUndefinedOptions();
  /// An ELF shared library's dynamic symbols: definitions, and references
  /// that extract lazy members. Needed: it gets DT_NEEDED.
  void addSharedLibrary(unsigned I, bool Needed);
  /// A dylib: for ld64 it only defines.
  void addDylib(unsigned I);

  // --- archive extraction (ArchiveExtraction.cpp) ----------------------------

  Error readInput(unsigned I);
  std::string refusal(const LinkInput &Cur) const;
  Error addLazyArchive(unsigned I);
  /// ld64 -ObjC: members that define an Objective-C class, or hold a
  /// category list or Swift code, are loaded whatever refers to them.
  Error loadObjCMembers(unsigned I);
  Error addLazyObject(unsigned I);
  Expected<bool> scanArchive(unsigned I);
  Error rescanGroup(size_t Last);
  /// GNU --as-needed: the library is needed if it defines a name that is
  /// undefined now, referred to by a regular object, or by a shared library
  /// that does not already depend on it.
  bool neededNow(unsigned I) const;

  // --- exports (Exports.cpp) -------------------------------------------------

  /// ld64: what keeps Name out of the export trie, if anything.
  LinkSymbol::Local ld64Unexported(StringRef Name) const;
  static bool anyMatch(const std::vector<SymbolPatternList> &Lists,
                       StringRef Name);
  bool excludedLib(int Obj) const;

  // --- mark-live (MarkLive.cpp) ----------------------------------------------

  /// The section graph of an object on the line (Member < 0) or of an
  /// archive member, read once and kept in the input (LinkInput::Sections).
  /// Failures are not kept.
  Expected<const ObjectSections *> memberSections(unsigned Input, int Member,
                                                  StringRef Display);
  const ObjectSections *sectionsOf(int Obj);
  void markLive(std::set<unsigned> &LiveUndefined);

  // --- undefined references (Undefined.cpp) ----------------------------------

  bool definedByAnySharedInput(StringRef Name) const;
  bool allNeededOnLine(int Lib);

  // --- what every pass asks ------------------------------------------------

  /// The driver's implicit inputs (libc, crt files) were read.
  bool implicitInputsRead() const;
  bool executableOutput() const;
  std::string entry() const;

  const LinkCommandLine &L;
  const std::vector<LinkInput> &In;
  const LinkWhatIf &W;
  const ExportLists &Lists;
  LinkFlavor F;
  std::unique_ptr<FlavorPolicy> Policy;
  LinkResult R;
  std::vector<std::vector<char>> Taken;
  llvm::StringSet<> KeptComdats; // signatures of the COMDAT groups linked
  std::set<unsigned> SharedRefd; // names a shared library refers to
  std::set<unsigned> Reported;
  std::set<int> Unreadable;
  std::map<int, bool> NeededKnown;
};

} // namespace aoti::audit::linker

#endif
