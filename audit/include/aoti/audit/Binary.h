//===- Binary.h - The format-neutral model of a binary file ---------------===//
//
// Every reader (ELF, Mach-O) turns a file into the types below, and everything
// downstream -- the loader model, the static-link model, the rules -- works on
// these types alone. Nothing here may assume ELF: where ELF and Mach-O differ
// (versions, library ordinals, re-exports) the model carries the union of what
// both formats can say, and a field a format cannot express stays empty.
//
// Strings are llvm::StringRef into memory the Binary owns: the mapped file or
// its own string saver. A Binary is immutable once read and is safe to share
// between threads.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_BINARY_H
#define AOTI_AUDIT_BINARY_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace aoti::audit {

/// The formats the readers know, one per folder of audit/lib (Formats.def).
enum class BinaryFormat : uint8_t {
#define AOTI_FORMAT(Id, Accessor) Id,
#include "aoti/audit/Formats.def"
};

enum class FileKind : uint8_t {
  Executable,    // ELF ET_EXEC or PIE ET_DYN with PT_INTERP; MH_EXECUTE
  SharedLibrary, // ELF ET_DYN; MH_DYLIB
  Bundle,        // MH_BUNDLE (a plugin that cannot be linked against)
  Relocatable,   // ELF ET_REL; MH_OBJECT
  Other,
};

enum class SymbolBinding : uint8_t {
  Local,
  Global,
  Weak,
  Unique, // STB_GNU_UNIQUE: one definition wins process-wide
};

enum class SymbolVisibility : uint8_t { Default, Protected, Hidden, Internal };

enum class SymbolType : uint8_t {
  NoType,
  Function,
  Object,
  IFunc, // resolved by a function at load time; still a definition
  TLS,
  Common, // tentative definition in a relocatable object
  Section,
  File,
  Other,
};

/// Which table of a file a symbol came from. The loader sees only the dynamic
/// table; the static table tells the audit why something is missing.
enum class SymbolTable : uint8_t { Dynamic, Static };

struct Symbol {
  llvm::StringRef Name;
  /// The version name (ELF symbol versioning), empty when unversioned.
  llvm::StringRef Version;
  /// For an undefined reference: the library the version (ELF vn_file) or the
  /// two-level-namespace ordinal (Mach-O) names; empty when none.
  llvm::StringRef SourceLibrary;
  SymbolBinding Binding = SymbolBinding::Global;
  SymbolVisibility Visibility = SymbolVisibility::Default;
  SymbolType Type = SymbolType::NoType;
  bool Defined = false;
  /// The symbol's value: ELF st_value (an address, for a definition in a
  /// linked file; a common symbol's alignment), Mach-O n_value for a
  /// symbol-table entry (a common symbol's size) and the address for an
  /// export-trie one; 0 for an import.
  uint64_t Value = 0;
  /// ELF: the version is a non-default one (`foo@V`, not `foo@@V`); such a
  /// definition satisfies only references that ask for V explicitly. For a
  /// reference: its requirement is marked hidden (vna_other's bit 15).
  bool VersionHidden = false;
  /// ELF: the .gnu.version index (bit 15 cleared): 0 local, 1 global, 2 and
  /// up a version node. glibc's lookup treats index 2 apart (Loader.cpp).
  uint16_t VersionIndex = 0;
  /// ELF: the hash of the version node (vd_hash of a definition's node,
  /// vna_hash of a reference's requirement); 0 for index 0 and 1, as in
  /// ld.so's l_versions.
  uint32_t VersionHash = 0;
  /// Mach-O: this export re-exports another library's symbol.
  bool ReExport = false;
  /// Mach-O: a re-export's name in SourceLibrary, when it is renamed
  /// (empty: the same name).
  llvm::StringRef ImportName;
  /// ELF relocatable objects: the signature of the COMDAT group (SHT_GROUP
  /// with GRP_COMDAT) whose section holds this definition; empty when none.
  /// A static link keeps the first group of each signature and discards the
  /// others whole, definitions included, before it resolves symbols: that is
  /// why GCC's STB_GNU_UNIQUE statics of inline functions and template
  /// static members, defined in every object that uses them, never collide.
  llvm::StringRef Comdat;
  /// Mach-O: the library ordinal of an undefined symbol in a two-level image
  /// (0 = self, 1..n = n-th dylib load command, 0xFE dynamic lookup, 0xFF main
  /// executable); -1 when the format has none.
  int LibraryOrdinal = -1;

  bool isWeak() const { return Binding == SymbolBinding::Weak; }
  bool isLocal() const { return Binding == SymbolBinding::Local; }
  /// A definition the dynamic loader may bind a reference to.
  bool isExportedDefinition() const {
    return Defined && !isLocal() && (Visibility == SymbolVisibility::Default ||
                                     Visibility == SymbolVisibility::Protected);
  }
  /// A strong (non-weak, non-common) global definition.
  bool isStrongDefinition() const {
    return Defined && (Binding == SymbolBinding::Global ||
                       Binding == SymbolBinding::Unique) &&
           Type != SymbolType::Common;
  }
};

/// How one object asks for another (ELF DT_NEEDED, Mach-O LC_LOAD_*_DYLIB).
struct Dependency {
  enum class Kind : uint8_t { Needed, Weak, ReExport, Upward };
  llvm::StringRef Name;
  Kind DepKind = Kind::Needed;
};

/// A version node a library defines (ELF .gnu.version_d).
struct VersionDefinition {
  llvm::StringRef Name;
  bool IsBase = false; // the node naming the file itself
  uint32_t Hash = 0;   // vd_hash, as the file records it
};

/// Versions an object needs from one library (ELF .gnu.version_r).
struct VersionRequirement {
  llvm::StringRef File;
  struct Entry {
    llvm::StringRef Name;
    bool Weak = false;
    uint32_t Hash = 0; // vna_hash, as the file records it
  };
  std::vector<Entry> Versions;
};

/// A machine identity: two objects can be loaded together only when equal.
struct MachineId {
  uint16_t Machine = 0; // ELF e_machine, or Mach-O cputype folded to 16 bits
  bool Is64 = true;
  bool LittleEndian = true;
  friend bool operator==(const MachineId &, const MachineId &) = default;
};

/// What a format says about itself, for messages and for rules that word a
/// fix per platform instead of testing the format. Each format folder
/// defines its own (the dispatch table in Reader.cpp holds them).
struct FormatInfo {
  BinaryFormat Id;
  /// "ELF", "Mach-O".
  llvm::StringRef Name;
  /// What the compiler puts before a C name in the symbol table: "_" on
  /// Mach-O (C's `foo` is the symbol `_foo`), nothing on ELF.
  llvm::StringRef CNamePrefix;
  /// A machine in the format's own words: ELF's e_machine names ("x86_64",
  /// "aarch64"), Mach-O's slice names ("arm64"); its number for one the
  /// format's tables do not know ("e_machine 4660", "cputype 99").
  std::string (*MachineName)(const MachineId &M);

  /// The C name a symbol name stands for: Name without CNamePrefix.
  llvm::StringRef cName(llvm::StringRef SymbolName) const {
    SymbolName.consume_front(CNamePrefix);
    return SymbolName;
  }
};

/// The facts of format F.
const FormatInfo &formatInfo(BinaryFormat F);

/// "64-bit x86_64", "32-bit 386", "64-bit e_machine 4660" for one LLVM does
/// not know: M in format F's words (ELF's, unless told: the glibc loader
/// model and the GNU linkers speak of e_machine).
std::string describeMachine(const MachineId &M,
                            BinaryFormat F = BinaryFormat::ELF);

/// A LibTorch library, by file name: libtorch*, libc10* (libtorch_cpu.so,
/// libc10_cuda.so, libtorch.a). The rule of check's AOTI010
/// (LoadedObject::isLibTorch) and of dups' AOTI105.
bool isLibTorchFile(llvm::StringRef Path);

class Binary;

/// Reads the static symbol table on first use. Readers implement it so that
/// an audit that never needs an explanation never pays for .symtab.
class StaticSymbolSource {
public:
  virtual ~StaticSymbolSource();
  virtual void load(const Binary &B, std::vector<Symbol> &Out) const = 0;
};

/// The dynamic symbol table, read on demand. Readers implement it so that a
/// library the loader model only looks names up in is never read whole: a
/// lookup goes through the file's own hash table, as ld.so's does.
class DynamicSymbolSource {
public:
  virtual ~DynamicSymbolSource();
  /// Every dynamic symbol in table order (the null symbol excluded).
  virtual void loadAll(std::vector<Symbol> &Out) const = 0;
  /// Whether lookup() can answer without loadAll().
  virtual bool hasHashTable() const = 0;
  /// Appends every defined symbol named Name, found through the hash table.
  virtual void lookup(llvm::StringRef Name, std::vector<Symbol> &Out) const = 0;
};

class Binary {
public:
  Binary(std::string Path, BinaryFormat Format);
  Binary(const Binary &) = delete;
  Binary &operator=(const Binary &) = delete;
  ~Binary();

  llvm::StringRef path() const { return Path; }
  BinaryFormat format() const { return Format; }
  /// The format's name, C-name prefix and machine names.
  const FormatInfo &formatInfo() const { return audit::formatInfo(Format); }
  FileKind kind() const { return Kind; }
  /// The format's own name for the file's type, for messages: "ET_REL",
  /// "e_type 0x1234", "MH_OBJECT"; empty when the reader does not say.
  llvm::StringRef typeName() const { return TypeName; }
  MachineId machine() const { return Machine; }
  /// Human-readable architecture ("x86_64", "aarch64", "arm64").
  llvm::StringRef archName() const { return ArchName; }
  llvm::StringRef fileName() const;

  /// ELF DT_SONAME / Mach-O install name (LC_ID_DYLIB).
  llvm::StringRef soname() const { return SoName; }
  llvm::StringRef interpreter() const { return Interpreter; }
  const std::vector<Dependency> &dependencies() const { return Deps; }
  const std::vector<llvm::StringRef> &rpath() const { return RPath; }
  const std::vector<llvm::StringRef> &runpath() const { return RunPath; }

  /// ELF DF_1_NODEFLIB: skip ld.so.cache and the default directories.
  bool noDefaultLib() const { return NoDefaultLib; }
  /// ELF DF_BIND_NOW / DF_1_NOW (-z now).
  bool bindNow() const { return BindNow; }
  /// Mach-O MH_TWOLEVEL (false for flat-namespace images and for ELF).
  bool twoLevelNamespace() const { return TwoLevel; }
  /// ELF: the file carries .gnu.version. A defining object without version
  /// information satisfies a reference of any version.
  bool hasSymbolVersions() const { return HasVersions; }

  /// What the dynamic loader sees: ELF .dynsym, Mach-O exports and imports.
  /// Read on first use when the reader supplied a DynamicSymbolSource.
  const std::vector<Symbol> &dynamicSymbols() const;
  /// The link-time symbol table (ELF .symtab, Mach-O nlist). Empty when
  /// stripped; read lazily.
  const std::vector<Symbol> &staticSymbols() const;
  bool hasStaticSymbolTable() const { return HasStaticTable; }
  /// What a static linker sees: the static table of a relocatable object,
  /// the dynamic table of anything else.
  const std::vector<Symbol> &linkSymbols() const {
    return Kind == FileKind::Relocatable ? staticSymbols() : dynamicSymbols();
  }

  const std::vector<VersionDefinition> &versionDefinitions() const {
    return VerDefs;
  }
  const std::vector<VersionRequirement> &versionRequirements() const {
    return VerNeeds;
  }

  /// Looks a name up among the dynamic symbols this file defines and may
  /// export; returns every such definition (several versions may exist).
  std::vector<const Symbol *> findExportedDefinitions(llvm::StringRef Name) const;

  /// ELF: loaded at a fixed address (ET_EXEC); glibc maps such a file only
  /// as the main program.
  bool fixedAddress() const { return FixedAddress; }
  /// ELF DF_1_PIE: a position-independent executable; glibc's dlopen (and
  /// DT_NEEDED) refuses it.
  bool markedPie() const { return MarkedPie; }
  /// ELF DF_1_NOOPEN: dlopen refuses it (a DT_NEEDED at startup does not).
  bool noDlopen() const { return NoDlopen; }
  /// ELF: an executable without an interpreter (static, or static-pie). It
  /// starts without ld.so: what it dlopen()s never sees its symbols.
  bool isStaticExecutable() const {
    return Format == BinaryFormat::ELF && Kind == FileKind::Executable &&
           Interpreter.empty();
  }

  /// Why a static linker (GNU ld, lld) refuses this file although the
  /// dynamic loader may take it: a section header, .symtab or version
  /// section that lies, which ld.so never reads (ELF). Empty when none. A
  /// relocatable object is only ever read by linkers, so its reader fails
  /// instead.
  llvm::StringRef linkerRefusal() const { return LinkerRefusal; }

  bool isDynamicObject() const {
    return Kind == FileKind::Executable || Kind == FileKind::SharedLibrary ||
           Kind == FileKind::Bundle;
  }

  // --- for readers ------------------------------------------------------
  llvm::StringRef save(llvm::StringRef S) { return Saver.save(S); }
  /// The mapped file the reader read from, kept for as long as the Binary
  /// reads it lazily; shared: the slices of one universal file are read
  /// from one mapping.
  void setBuffer(std::shared_ptr<const llvm::MemoryBuffer> B) {
    Buffer = std::move(B);
  }
  void setStaticSymbolSource(std::unique_ptr<StaticSymbolSource> S,
                             bool Present) {
    StaticSource = std::move(S);
    HasStaticTable = Present;
  }
  /// Readers either fill DynSyms eagerly or supply a source for it.
  void setDynamicSymbolSource(std::unique_ptr<DynamicSymbolSource> S) {
    DynSource = std::move(S);
  }

  FileKind Kind = FileKind::Other;
  std::string TypeName;
  std::string LinkerRefusal;
  MachineId Machine;
  std::string ArchName;
  llvm::StringRef SoName;
  llvm::StringRef Interpreter;
  std::vector<Dependency> Deps;
  std::vector<llvm::StringRef> RPath;
  std::vector<llvm::StringRef> RunPath;
  bool NoDefaultLib = false;
  bool BindNow = false;
  bool TwoLevel = false;
  bool HasVersions = false;
  bool FixedAddress = false;
  bool MarkedPie = false;
  bool NoDlopen = false;
  std::vector<Symbol> DynSyms;
  std::vector<VersionDefinition> VerDefs;
  std::vector<VersionRequirement> VerNeeds;

private:
  void buildExportIndex() const;

  std::string Path;
  BinaryFormat Format;
  std::shared_ptr<const llvm::MemoryBuffer> Buffer;
  llvm::BumpPtrAllocator Alloc;
  llvm::UniqueStringSaver Saver{Alloc};

  bool HasStaticTable = false;
  std::unique_ptr<StaticSymbolSource> StaticSource;
  mutable std::once_flag StaticOnce;
  mutable std::vector<Symbol> StaticSyms;

  std::unique_ptr<DynamicSymbolSource> DynSource;
  mutable std::once_flag DynOnce;
  mutable std::mutex LookupMutex;
  mutable llvm::StringMap<std::vector<const Symbol *>> LookupCache;
  mutable std::deque<Symbol> LookedUp; // stable addresses for LookupCache

  mutable std::once_flag IndexOnce;
  // Sorted (name, index into DynSyms) pairs of exportable definitions.
  mutable std::vector<std::pair<llvm::StringRef, uint32_t>> ExportIndex;
};

llvm::StringRef toString(SymbolBinding B);
llvm::StringRef toString(SymbolVisibility V);
llvm::StringRef toString(SymbolType T);
llvm::StringRef toString(FileKind K);
llvm::StringRef toString(BinaryFormat F);

} // namespace aoti::audit

#endif
