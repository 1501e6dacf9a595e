//===- Check.h - Will these plugins load in this host? --------------------===//
//
// analyzeCheck() runs the loader model for `aoti-audit check` and returns facts:
// for every reference a plugin makes, what it binds to and, when it binds to
// nothing, every place the name is defined but cannot be used from, and why.
// It decides nothing about severity or wording; rules/ does that.
//
// A command reads its host once: openCheckHost() maps the file and decides
// which slices to audit (one, unless the host is a universal file without
// the audit machine's slice), and each analyzeCheck() reads its slice from
// that one mapping. The host's format, as the reader dispatch found it
// (Formats.def), picks the loader model: dyld for Mach-O, ld.so otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_CHECK_H
#define AOTI_AUDIT_CHECK_H

#include "aoti/audit/loader/Loader.h"
#include "aoti/audit/Reader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace aoti::audit {

/// The prefix of SLEEF's vector math functions (Sleef_expf8_u10, ...),
/// which a model compiled with SIMD CPU kernels imports from its host.
inline constexpr llvm::StringLiteral VectorMathPrefix = "Sleef_";

/// The options of `aoti-audit check`, as its command line sets them.
struct CheckOptions {
  std::string Host;
  /// Model .so files, .pt2 packages (every *.so inside), and directories
  /// of .pt2 packages.
  std::vector<std::string> Plugins;
  /// NAME=VALUE settings the host runs with, in order. The loader model
  /// takes its own loader's: LD_LIBRARY_PATH and LD_PRELOAD for ld.so
  /// (LoaderConfig), DYLD_* for dyld (DyldConfig); others are ignored.
  std::vector<std::string> Environment;
  /// Directories searched like LD_LIBRARY_PATH (Mach-O: DYLD_LIBRARY_PATH)
  /// entries, after Environment's.
  std::vector<std::string> LibraryPath;
  /// A copied file system: absolute paths are taken inside it.
  std::string Sysroot;
  /// The slice to audit in universal (fat) Mach-O files; empty: the host
  /// executable's, which is the audit machine's when present, else the first.
  std::string Arch;
  /// Names under these prefixes must bind, and bind to exactly one provider.
  std::vector<std::string> Prefixes{"aoti_torch_"};
  /// Names under these prefixes must bind too, with or without --all, but
  /// to any number of providers: what a model imports from its host besides
  /// the shims. SLEEF's vector math (Sleef_expf8_u10, ...), which inductor's
  /// SIMD CPU kernels call through at::vec; LibTorch and libsleef (linked by
  /// libaoti_shims) define the same functions, so two of them are no clash.
  std::vector<std::string> BindPrefixes{std::string(VectorMathPrefix)};
  /// Check every undefined reference, not only the prefixed ones; a weak
  /// one that nothing defines is a note (AOTI012), not a failure.
  bool All = false;
  /// Archives the host was (or should have been) linked with.
  std::vector<std::string> Archives;
  /// Libraries the host opens with RTLD_GLOBAL before the plugin.
  std::vector<std::string> Preloads;
  /// Libraries that exist but are not loaded; they explain "outside scope".
  std::vector<std::string> Candidates;
};

enum class SymbolStatus : uint8_t {
  Bound,
  Missing,
  Ambiguous,       // several providers for a name that must be unique
  VersionMismatch, // defined, but not with a version the reference accepts
  WeakUnresolved,  // a weak reference nothing defines: it resolves to 0
};
llvm::StringRef toString(SymbolStatus S);

/// Why a definition the loader was shown cannot be bound to (the first six),
/// or, where there is none, why the name is missing. A name defined in
/// several such places has several reasons; which one is reported is the
/// rules' decision (rules/Rules.def ranks them), not the model's.
enum class MissingReason : uint8_t {
  None,
  StaticHost,        // the host is a static executable: it provides nothing
  NotExported,       // in the executable's .symtab, not in its .dynsym
  Hidden,            // defined with hidden/internal visibility
  LocalBinding,      // made local by a version script (or `static`)
  NotLinked,         // in an archive member the link did not pull in
  OutsideScope,      // exported by a library the plugin cannot see
  /// An ATen fallback op (aoti_torch_<cpu|cuda>_<op>) that the shim library
  /// in scope -- an object exporting many aoti_torch_* -- does not define.
  UnimplementedFallback,
  NotDefined,        // nowhere the audit was shown
};

/// "convolution" for aoti_torch_cuda_convolution: the ATen op of a fallback
/// name, or empty when Name is not one (the non-op names of shim.h, such as
/// aoti_torch_cuda_guard_set_index, are not).
llvm::StringRef fallbackOp(llvm::StringRef Name);
/// "cuda" or "cpu" for a fallback name; empty otherwise.
llvm::StringRef fallbackDevice(llvm::StringRef Name);
/// Whether Name (a C name) is one of SLEEF's vector math functions.
bool isVectorMath(llvm::StringRef Name);

/// A definition that exists but that the reference cannot bind to.
struct DefinitionSite {
  std::string File;   // a loaded object's path, an archive, a candidate
  std::string Member; // archive member name, when File is an archive
  const Symbol *Sym = nullptr;
  int Object = -1;    // index in the process model, when loaded
  MissingReason Reason = MissingReason::None; // why it cannot be bound to
};

struct SymbolFacts {
  const Symbol *Ref = nullptr;
  /// The name falls under a required prefix (uniqueness is required).
  bool Required = false;
  SymbolStatus Status = SymbolStatus::Missing;
  /// Acceptable definitions in lookup order; the first one wins.
  std::vector<Binding> Providers;
  /// Definitions with the right name and an unacceptable version.
  std::vector<Binding> VersionRejected;
  /// Missing: every definition of the name that the reference cannot bind
  /// to, each with its reason, in the order they were found.
  std::vector<DefinitionSite> Evidence;
  /// Missing, a fallback op that nothing defines (Evidence is empty): the
  /// shim library in scope that lacks the op (an index in the process
  /// model); -1 when no shim library is in scope.
  int ShimProvider = -1;
};

struct PluginFacts {
  /// The path as given, or "PACKAGE.pt2!MEMBER" for a library in a package.
  std::string Path;
  /// For a library inside a .pt2: the package, the member's path in it and
  /// the model it is the library of (its folder under data/aotinductor/).
  std::string Package;
  std::string Member;
  std::string Model;
  unsigned Object = 0;
  std::vector<SymbolFacts> Symbols;
  std::vector<MissingLibrary> MissingLibraries;
  std::vector<MissingVersionNode> MissingVersions;
  /// Objects ld.so refuses to map in this dlopen (the plugin itself, when it
  /// is an executable).
  std::vector<RefusedObject> Refused;
};

struct CheckFacts;

/// Whether ld.so would load the plugin: every checked reference binds, every
/// needed library and version exists. Policy (uniqueness) is not part of it.
bool loaderAccepts(const CheckFacts &F, const PluginFacts &P);

struct CheckFacts {
  CheckOptions Options;
  /// ProcessModel (glibc) for an ELF host, DyldModel for a Mach-O host.
  std::unique_ptr<LoaderModel> Process;
  /// Dependencies the host itself cannot find (it would not start).
  std::vector<MissingLibrary> HostMissingLibraries;
  std::vector<MissingVersionNode> HostMissingVersions;
  /// Objects the host's own start refuses to map (an executable as DT_NEEDED).
  std::vector<RefusedObject> HostRefused;
  std::vector<PluginFacts> Plugins;
  std::vector<std::unique_ptr<Archive>> Archives;
  /// Members of Archives that cannot be read, each a message naming the
  /// member and why: what they define is left out of every explanation.
  std::vector<std::string> ArchiveWarnings;
  std::vector<std::unique_ptr<Binary>> Candidates;

  const LoadedObject &host() const { return Process->object(0); }
  bool hostStripped() const { return !host().Bin->hasStaticSymbolTable(); }
  bool isRequired(llvm::StringRef Name) const;
  /// Under BindPrefixes: checked by default, uniqueness not required.
  bool mustBind(llvm::StringRef Name) const;
};

/// The host of one `check` command, read once for every audit it makes.
struct CheckHost {
  /// The host's bytes, shared by the Binary of every slice audited. Null
  /// when Options.Arch names the slice: then nothing needs them before the
  /// one audit, which maps them where it reads the host (after the
  /// archives and candidates, whose errors come first).
  std::shared_ptr<const llvm::MemoryBuffer> File;
  /// The slices to audit, one audit each: Options.Arch alone (empty: the
  /// host's own), or, for a universal host without the audit machine's
  /// slice and no --arch, every slice in the file's order.
  std::vector<std::string> Slices;
  /// Slices are every slice of a universal host, each audited on its own.
  bool EverySlice = false;
};

/// Maps the host, unless Options.Arch names the slice, and lists the audits
/// to make. Errors are for an unreadable host.
llvm::Expected<CheckHost> openCheckHost(const CheckOptions &Options);

/// Builds the facts of one audit: of Host's slice Slice (one of
/// Host.Slices; Options.Arch of the facts is Slice). Errors are for
/// unreadable inputs only (exit status 2); everything the loader would trip
/// over is a fact.
llvm::Expected<std::unique_ptr<CheckFacts>>
analyzeCheck(const CheckOptions &Options, const CheckHost &Host,
             llvm::StringRef Slice);

} // namespace aoti::audit

#endif
