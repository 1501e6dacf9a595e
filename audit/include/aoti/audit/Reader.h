//===- Reader.h - Reading files into the binary model ---------------------===//
//
// The only entry points that open files. They map the file (never slurp it),
// identify its format, and hand it to the format's reader: Reader.cpp
// dispatches over the formats Formats.def lists, each a folder of audit/lib
// (elf/, macho/). Callers get the format-neutral model of Binary.h and never
// see libObject types.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_READER_H
#define AOTI_AUDIT_READER_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/Error.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm::object {
class Archive;
}

namespace aoti::audit {

/// A static archive (`ar`), GNU or BSD, regular or thin. Members are parsed
/// lazily: the symbol index alone answers "which member defines X".
class Archive {
public:
  struct Member {
    std::string Name;
    uint64_t Offset = 0; // of the member header, for messages
  };
  struct IndexEntry {
    llvm::StringRef Name;
    uint32_t MemberIndex;
  };

  ~Archive();
  llvm::StringRef path() const { return Path; }
  bool isThin() const { return Thin; }
  const std::vector<Member> &members() const { return Members; }
  /// The archive's own symbol index (ranlib), in index order. Empty when the
  /// archive has none; see hasSymbolIndex().
  const std::vector<IndexEntry> &symbolIndex() const { return Index; }
  bool hasSymbolIndex() const { return HasIndex; }
  /// Reads member I (cached). An unreadable member is an error value.
  llvm::Expected<const Binary &> member(size_t I) const;
  /// "libfoo.a(bar.o)", the way linkers name a member.
  std::string memberDisplayName(size_t I) const;

  static llvm::Expected<std::unique_ptr<Archive>>
  create(std::string Path, std::unique_ptr<llvm::MemoryBuffer> Buffer);

private:
  Archive() = default;
  std::string Path;
  bool Thin = false;
  bool HasIndex = false;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<llvm::object::Archive> Ar;
  std::vector<Member> Members;
  std::vector<llvm::MemoryBufferRef> MemberBuffers;
  std::vector<IndexEntry> Index;
  mutable std::vector<std::unique_ptr<Binary>> Parsed;
  mutable std::vector<std::optional<std::string>> ParseErrors;
};

/// Any file the tools accept: a binary (object, executable, shared library)
/// or an archive of objects.
struct InputFile {
  std::unique_ptr<Binary> Bin;
  std::unique_ptr<Archive> Ar;
};

/// What a file's first bytes say it is: one image of a format (the formats
/// come first, in BinaryFormat's order), a universal file of several images
/// (Mach-O's fat files: no other format has them), an archive, or nothing
/// the audit reads.
enum class DetectedKind {
#define AOTI_FORMAT(Id, Accessor) Id,
#include "aoti/audit/Formats.def"
  MachOUniversal,
  Archive,
  Unknown,
};

/// Looks at the first bytes only.
DetectedKind detectKind(llvm::MemoryBufferRef Buffer);

/// Options for picking a slice out of a universal (fat) Mach-O file.
struct ReadOptions {
  /// Architecture name for fat files ("arm64", "x86_64"); empty: the first
  /// slice matching the host, else the first slice.
  std::string Arch;
};

/// The architectures of a universal (fat) Mach-O file, in slice order
/// ("arm64", "x86_64"); empty for any other file.
llvm::Expected<std::vector<std::string>> universalArchs(llvm::StringRef Path);
/// The same for a file already mapped, named DisplayPath in messages.
llvm::Expected<std::vector<std::string>>
universalArchs(llvm::MemoryBufferRef Buffer, llvm::StringRef DisplayPath);

/// The architecture of the machine running the audit, named the way
/// universal files name their slices ("arm64", "x86_64"): the slice a
/// universal file is read for when no --arch is given.
std::string auditMachineArch();

/// Reads an object, executable or shared library of any format the audit
/// knows (ELF, Mach-O).
llvm::Expected<std::unique_ptr<Binary>> readBinary(llvm::StringRef Path,
                                                   const ReadOptions &Opts = {});
/// Reads an archive or a binary.
llvm::Expected<InputFile> readInput(llvm::StringRef Path,
                                    const ReadOptions &Opts = {});

/// Reads a binary out of memory that the caller keeps alive (archive members).
llvm::Expected<std::unique_ptr<Binary>>
readBinaryFromBuffer(llvm::MemoryBufferRef Buffer, std::string DisplayPath,
                     const ReadOptions &Opts = {});

/// Maps a file read-only.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> mapFile(llvm::StringRef Path);

} // namespace aoti::audit

#endif
