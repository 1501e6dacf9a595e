//===- link/Replay.h - The replay of a static link -----------------------===//
//
// Private to audit/lib/link. simulateLink (Model.cpp) runs the replay in
// the order the linkers do their work:
//
//   1. the symbol table (SymbolTable.cpp): objects enter it, COMDAT groups
//      are deduplicated, definitions collide or override;
//   2. archive extraction (ArchiveExtraction.cpp): which members and which
//      shared libraries the link takes;
//   3. exports (Exports.cpp): which definitions reach the dynamic symbol
//      table or the export trie;
//   4. the mark-live pass (MarkLive.cpp): --gc-sections, -dead_strip;
//   5. the errors the link will hit (Undefined.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_LINK_REPLAY_H
#define AOTI_AUDIT_LIB_LINK_REPLAY_H

#include "aoti/audit/link/Model.h"
#include "aoti/audit/link/Scripts.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <map>
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

// --- the replay ---------------------------------------------------------

class Replay {
public:
  Replay(const LinkCommandLine &L, const std::vector<LinkInput> &In,
         const LinkWhatIf &W, const ExportLists &Lists)
      : L(L), In(In), W(W), Lists(Lists),
        F(W.Flavor.value_or(L.Flavor)) {}

  Expected<LinkResult> run();

private:
  // --- the symbol table ---------------------------------------------------

  unsigned sym(StringRef Name);

  bool taken(unsigned Input, int Member) const;

  bool whole(unsigned I) const;

  static Extraction whyFrom(const LinkSymbol &S);

  // --- reading inputs -----------------------------------------------------

  Error readInput(unsigned I);

  /// The member as an object, or null when it is not one (a text file, a
  /// member of another architecture): both linkers skip those.
  Expected<const Binary *> memberObject(unsigned I, int M);

  Error loadObject(unsigned I, int M, Extraction Why);

  void define(int Obj, const Symbol &D);

  Error reference(int Obj, const Symbol &U);

  Error extractLazy(unsigned Idx);

  Error addLazy(StringRef Name, unsigned I, int M);

  Error addLazyArchive(unsigned I);

  /// ld64 -ObjC: members that define an Objective-C class, or hold a
  /// category list or Swift code, are loaded whatever refers to them.
  Error loadObjCMembers(unsigned I);

  Error addLazyObject(unsigned I);

  Expected<bool> scanArchive(unsigned I);

  Error rescanGroup(size_t Last);

  Error addUndefinedOption(StringRef Name, bool Entry = false);

  /// GNU --as-needed: the library is needed if it defines a name that is
  /// undefined now, referred to by a regular object, or by a shared library
  /// that does not already depend on it.
  bool neededNow(unsigned I) const;

  void loadShared(unsigned I);

  // --- after the last input -----------------------------------------------

  bool implicitInputsRead() const;

  bool executableOutput() const;

  std::string entry() const;

  /// ld64: what keeps Name out of the export trie, if anything.
  LinkSymbol::Local ld64Unexported(StringRef Name) const;

  void finishLd64();

  void finish();

  static bool anyMatch(const std::vector<SymbolPatternList> &Lists,
                       StringRef Name);

  bool excludedLib(int Obj) const;

  bool definedByAnySharedInput(StringRef Name) const;

  bool allNeededOnLine(int Lib);

  // --- --gc-sections --------------------------------------------------------

  /// The section graph of an object on the line (Member < 0) or of an
  /// archive member, read once and kept in the input (LinkInput::Sections).
  /// Failures are not kept.
  Expected<const ObjectSections *> memberSections(unsigned Input, int Member,
                                                  StringRef Display);

  const ObjectSections *sectionsOf(int Obj);

  void collectGarbage(std::set<unsigned> &LiveUndefined);

  const LinkCommandLine &L;
  const std::vector<LinkInput> &In;
  const LinkWhatIf &W;
  const ExportLists &Lists;
  LinkFlavor F;
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
