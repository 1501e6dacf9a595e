//===- link/Model.h - What a static link will pull in and export ----------===//
//
// The static-link model: given a parsed link command (link/CommandLine.h), it
// reads the real input files and replays the link the way the linker will:
//
//   readLinkInputs   -l search (.so before .a per directory, -Bstatic),
//                    input scripts (libc.so), groups, whole-archive regions;
//   simulateLink     symbol resolution and archive extraction under the GNU
//                    rule (one pass left to right; an archive is scanned only
//                    for what is undefined when it is read; groups loop) or
//                    the lld rule (every archive member is remembered; a
//                    reference from anywhere extracts it), then exports,
//                    --gc-sections, and the errors the link will hit;
//   analyzeLink      the above for the command, plus the facts the link rules
//                    judge: the status of every required symbol, and the same
//                    link replayed with the fix applied.
//
// The code is in audit/lib/link, a file a pass: Inputs.cpp (readLinkInputs);
// the replay in Model.cpp (simulateLink), SymbolTable.cpp,
// ArchiveExtraction.cpp (with the GNU, lld and ld64 policies), Exports.cpp,
// MarkLive.cpp and Undefined.cpp; Analysis.cpp (analyzeLink).
//
// Nothing here words a finding; rules/link does that.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LINKMODEL_H
#define AOTI_AUDIT_LINKMODEL_H

#include "aoti/audit/link/CommandLine.h"
#include "aoti/audit/link/Sections.h"
#include "aoti/audit/Reader.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aoti::audit {

/// One file the link reads, after -l search and input scripts, with the
/// state it is read in.
struct LinkInput {
  enum class Kind : uint8_t { Object, Archive, SharedLibrary, Missing };
  Kind InputKind = Kind::Missing;
  std::string Path;      // as opened
  std::string AsWritten; // "-lshims", "lib/libshims.a"
  /// Index in LinkCommandLine::Args of the word that named it (for a file an
  /// input script named: the word that named the script).
  int Arg = -1;
  std::string Script; // the input script that named it
  bool WholeArchive = false;
  bool AsNeeded = false;
  bool Lazy = false; // lld --start-lib
  int Group = -1;    // --start-group region, or GROUP() of a script
  std::string Missing; // why it could not be opened: "cannot find -lfoo"
  std::unique_ptr<Binary> Bin;
  std::unique_ptr<Archive> Ar;
  /// --gc-sections only: section graphs, per member (index 0 for an object).
  mutable std::vector<std::optional<ObjectSections>> Sections;

  bool isArchive() const { return InputKind == Kind::Archive; }
  bool isShared() const { return InputKind == Kind::SharedLibrary; }
};
/// The JSON spelling ("shared-library").
llvm::StringRef toString(LinkInput::Kind K);

/// Why the link took an object.
struct Extraction {
  enum class Why : uint8_t {
    CommandLine,      // an object on the line
    WholeArchive,     // --whole-archive
    Reference,        // a regular object referred to a symbol it defines
    SharedReference,  // a shared library on the line referred to it
    UndefinedOption,  // -u / --undefined / --require-defined
    ObjC,             // ld64 -ObjC: the member holds Objective-C classes,
                      // categories or Swift code
  };
  Why Reason = Why::CommandLine;
  std::string Symbol;
  int ByObject = -1; // LinkResult::Objects index
  int ByInput = -1;  // the shared library, for SharedReference
};
/// The JSON spelling ("whole-archive").
llvm::StringRef toString(Extraction::Why W);

/// An object the link took: a file on the line or an archive member.
struct LinkedObject {
  unsigned Input = 0;
  int Member = -1;
  const Binary *Bin = nullptr;
  Extraction Why;
};

/// A reference to a symbol: from a linked object, a shared library on the
/// line, or a -u option.
struct SymbolRef {
  int Object = -1;
  int SharedInput = -1;
  bool Option = false;
};

struct LinkSymbol {
  enum class State : uint8_t { Undefined, Defined, Shared, Lazy };
  enum class Export : uint8_t {
    No,
    ExportDynamic,       // -E / --export-dynamic / -rdynamic
    ExportSymbol,        // --export-dynamic-symbol[-list]
    DynamicList,         // --dynamic-list, --dynamic-list-data
    ReferencedByShared,  // a shared library on the line refers to it
    DefinedByShared,     // a shared library on the line defines it too
    SharedOutput,        // the output is a shared library
    AllGlobals,          // ld64: every global of an executable or bundle
  };
  /// ld64: ExportList, -exported_symbol(s_list) leave it out (or
  /// -no_exported_symbols); Unexported, -unexported_symbol(s_list) name it.
  enum class Local : uint8_t {
    No,
    Visibility,
    VersionScript,
    ExcludeLibs,
    ExportList,
    Unexported,
  };

  std::string Name;
  State St = State::Undefined;
  int Definer = -1;       // object, when Defined
  int SharedDefiner = -1; // input, when Shared
  const Symbol *Def = nullptr;
  int LazyInput = -1, LazyMember = -1; // lld: the member that would define it
  std::vector<SymbolRef> StrongRefs;
  std::vector<int> WeakRefs;   // objects
  std::vector<int> SharedDefs; // shared libraries on the line defining it
  bool UndefinedOption = false;
  /// The most constraining visibility among the regular objects' symbols.
  SymbolVisibility Visibility = SymbolVisibility::Default;
  Export Exported = Export::No;
  Local MadeLocal = Local::No;
  bool Live = true; // survives --gc-sections

  bool hasStrongRef() const { return !StrongRefs.empty(); }
  bool hasRegularStrongRef() const;
};
/// The JSON spelling ("export-dynamic"; "" for No).
llvm::StringRef toString(LinkSymbol::Export E);

struct MultipleDefinition {
  std::string Symbol;
  int First = -1, Second = -1; // objects
};

struct UndefinedReference {
  std::string Symbol;
  int ByObject = -1;      // a regular object, or
  int BySharedInput = -1; // a shared library (--no-allow-shlib-undefined)
  bool RequireDefined = false;
  /// An archive member on the line that defines it but was not linked (GNU:
  /// read before the reference), when there is one.
  int DefinedInInput = -1, DefinedInMember = -1;
};

/// A link error that is not about one symbol: "cannot find -lfoo",
/// "archive has no index".
struct InputProblem {
  int Input = -1;
  std::string Message;
  /// The file was found and read, and the linker refuses it (an executable,
  /// section headers that lie), rather than a file that is not there.
  bool Refused = false;
};

/// Changes to replay the link with (the fix, the other flavor).
struct LinkWhatIf {
  std::optional<LinkFlavor> Flavor;
  std::set<unsigned> WholeArchive; // inputs
  /// Shared libraries to read as if under --no-as-needed.
  std::set<unsigned> NoAsNeeded;
  bool ExportDynamic = false;
};

/// One replay of the link.
struct LinkResult {
  LinkFlavor Flavor = LinkFlavor::GNU;
  std::vector<LinkedObject> Objects;
  std::vector<LinkSymbol> Symbols;
  llvm::StringMap<unsigned> Index;
  std::vector<MultipleDefinition> MultipleDefinitions;
  std::vector<UndefinedReference> Undefined;
  std::vector<InputProblem> Problems;
  std::vector<bool> Needed; // per input: a shared library that gets DT_NEEDED
  std::vector<bool> Read;   // per input: its symbols took part (GNU drops
                            // an --as-needed library nothing needs)
  /// The output has a dynamic symbol table.
  bool Dynamic = true;
  LinkOutputKind OutputKind = LinkOutputKind::Executable;
  /// Notes from the replay ("section graph of x.o unreadable: kept whole").
  std::vector<std::string> Notes;

  const LinkSymbol *find(llvm::StringRef Name) const;
  int objectOf(unsigned Input, int Member) const;
  /// Defined names in the output's dynamic symbol table that come from the
  /// link's own objects, sorted.
  std::vector<std::string> exportedNames() const;
  /// Global names the output defines (its .symtab), sorted.
  std::vector<std::string> definedNames() const;
};

enum class RequiredStatus : uint8_t {
  Exported,          // defined in the output and in its .dynsym
  NotExported,       // defined, only in .symtab
  Discarded,         // the member was linked, --gc-sections removed it
  MadeLocal,         // hidden visibility, version script local:, --exclude-libs
  FromSharedLibrary, // not in the output, but a shared library on the line
  NotPulledIn,       // in an archive member the link leaves out
  NotDefined,        // nothing on the line defines it
  /// A shared library on the line defines it, but --as-needed leaves the
  /// library without DT_NEEDED (nothing the link takes refers to it): the
  /// output never loads it. Debian's and Ubuntu's gcc pass --as-needed.
  DroppedAsNeeded,
};
llvm::StringRef toString(RequiredStatus S);

struct RequiredSymbol {
  enum class NotPulled : uint8_t {
    None,
    NeverReferenced, // nothing refers to it (before the archive, for GNU)
    WeakOnly,        // only weak references, which never extract
    ReferencedAfter, // GNU: referred to only by objects read after
  };
  std::string Name;
  RequiredStatus Status = RequiredStatus::NotDefined;
  int Object = -1;             // the defining object, when linked
  int Input = -1, Member = -1; // the archive member (or shared library)
  NotPulled Why = NotPulled::None;
  int LaterReference = -1;     // ReferencedAfter: the first such object
  LinkSymbol::Export ExportedBy = LinkSymbol::Export::No;
  LinkSymbol::Local LocalBy = LinkSymbol::Local::No;
};
/// The JSON spelling of why a member was not pulled in ("weak-references-only").
llvm::StringRef toString(RequiredSymbol::NotPulled N);

/// Where the command came from, for fixes in the build system's terms.
struct LinkBuildContext {
  enum class Kind : uint8_t { None, CMake, Ninja };
  Kind System = Kind::None;
  std::string Target;   // the target being linked
  std::string BuildDir;
  /// Archive path (as opened) -> the static library target that builds it.
  std::map<std::string, std::string> ArchiveTargets;
};

struct LinkRequest {
  std::vector<std::string> Argv;
  LinkParseOptions Parse;
  /// Names under these prefixes are the shims (default: aoti_torch_).
  std::vector<std::string> Prefixes{"aoti_torch_"};
  /// Required: every global definition in these archives ...
  std::vector<std::string> RequireFrom;
  /// ... these names ...
  std::vector<std::string> RequireNames;
  /// ... what these models leave undefined under the prefixes.
  std::vector<std::string> Plugins;
  /// With none of the three: every name under the prefixes that an input on
  /// the line defines.
  LinkBuildContext Context;
};

struct LinkFacts {
  LinkRequest Request;
  LinkCommandLine Line;
  std::vector<LinkInput> Inputs;
  LinkResult Result;
  /// Where the required names came from ("libshims.a", "model.so", ...).
  std::vector<std::string> RequiredFrom;
  /// Archives on the line whose members define names under the prefixes.
  std::vector<unsigned> ShimArchives;
  std::vector<RequiredSymbol> Required;

  /// The fix: archives to force-link, whether exports must be turned on,
  /// the edited command (empty when the words cannot be edited in place:
  /// inside a response file or a multi-option -Wl,), and the replay with it.
  std::set<unsigned> FixWholeArchive;
  /// Shared libraries --as-needed drops, to keep with --no-as-needed.
  std::set<unsigned> FixNoAsNeeded;
  bool FixExportDynamic = false;
  std::vector<std::string> FixedArgv;
  std::string FixedArgvWhyNot;
  std::optional<LinkResult> Fixed;
  std::vector<RequiredSymbol> FixedRequired;
  /// Strong duplicates the fix would add (in Fixed, not in Result).
  std::vector<MultipleDefinition> AddedByFix;

  /// For an lld link: the replay under GNU ld's rule, and the required
  /// names it would leave out.
  std::optional<LinkResult> GnuReplay;
  std::vector<RequiredSymbol> GnuRequired;

  /// "libshims.a(a.o)", "main.o"; paths relative to the link's directory.
  std::string objectName(const LinkResult &R, int Object) const;
  std::string inputName(int Input) const;
  std::string displayPath(llvm::StringRef Path) const;
  bool isRequired(llvm::StringRef Name) const;
};

/// Reads every input of the command line. Missing files are facts
/// (InputProblem); unreadable ones are errors.
llvm::Expected<std::vector<LinkInput>> readLinkInputs(LinkCommandLine &Line);

/// Replays the link.
llvm::Expected<LinkResult> simulateLink(const LinkCommandLine &Line,
                                        const std::vector<LinkInput> &Inputs,
                                        const LinkWhatIf &WhatIf = {});

/// Status of each required name in one replay.
std::vector<RequiredSymbol>
classifyRequired(const LinkCommandLine &Line,
                 const std::vector<LinkInput> &Inputs, const LinkResult &R,
                 const std::vector<std::string> &Names);

/// Parses the command, reads the inputs, replays the link and the fix.
llvm::Expected<std::unique_ptr<LinkFacts>> analyzeLink(LinkRequest Request);

/// Whether Name falls under one of Prefixes (every name when empty).
bool underPrefix(llvm::StringRef Name, const std::vector<std::string> &Prefixes);

} // namespace aoti::audit

#endif
