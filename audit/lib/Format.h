//===- Format.h - One binary format behind the reader's dispatch ----------===//
//
// Private to the audit library. As llvm-readobj keeps one dumper per format
// behind one interface, the audit keeps one Format per folder (elf/,
// macho/) behind this class, and each folder's only entry point is the
// function that returns its instance (Formats.def names them). Reader.cpp
// holds the one table of formats and is the only file that asks them:
//
//   detect         is this buffer mine: one image, or a universal file of
//                  several (Mach-O's fat files)?
//   read           the image, into the format-neutral Binary (Binary.h);
//   readSections   the section graph --gc-sections walks (link/Sections.h),
//                  or the atom graph of -dead_strip, of a relocatable object;
//   slices         the architectures of a universal file;
//   takeArchiveSlice  the static archive a universal file holds;
//   info           the name, the C-name prefix and the machine names
//                  (FormatInfo, public: rules word their fixes with it).
//
// A format without universal files keeps the defaults of the last two.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_AUDIT_LIB_FORMAT_H
#define AOTI_AUDIT_LIB_FORMAT_H

#include "aoti/audit/Binary.h"
#include "aoti/audit/Reader.h"
#include "aoti/audit/link/Sections.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace aoti::audit::detail {

/// What a format makes of a buffer's first bytes.
enum class Detected : uint8_t {
  No,        // not this format
  Image,     // one object, executable, shared library (or a stub of one)
  Universal, // several images, one per architecture (Mach-O fat files)
};

class Format {
public:
  virtual ~Format() = default;

  virtual const FormatInfo &info() const = 0;

  /// Looks at the first bytes only.
  virtual Detected detect(llvm::MemoryBufferRef Buffer) const = 0;

  /// Reads a buffer detect() claimed. Opts picks a universal file's slice.
  virtual llvm::Expected<std::unique_ptr<Binary>>
  read(llvm::MemoryBufferRef Buffer, std::string DisplayPath,
       const ReadOptions &Opts) const = 0;

  /// The section (or atom) graph of a relocatable object detect() calls an
  /// Image.
  virtual llvm::Expected<ObjectSections>
  readSections(llvm::MemoryBufferRef Object,
               llvm::StringRef DisplayName) const = 0;

  /// The architectures of a universal file, in slice order.
  virtual llvm::Expected<std::vector<std::string>>
  slices(llvm::MemoryBufferRef Universal, llvm::StringRef DisplayPath) const {
    return std::vector<std::string>();
  }

  /// A universal file whose picked slice is a static archive (lipo'd .a
  /// files): takes File and returns that slice, which keeps it mapped;
  /// nullptr (File untouched) when the slice is not an archive.
  virtual llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  takeArchiveSlice(std::unique_ptr<llvm::MemoryBuffer> &File,
                   const ReadOptions &Opts) const {
    return std::unique_ptr<llvm::MemoryBuffer>();
  }
};

// Each format folder's one entry point, e.g. `const Format &elfFormat()`.
#define AOTI_FORMAT(Id, Accessor) const Format &Accessor();
#include "aoti/audit/Formats.def"

} // namespace aoti::audit::detail

#endif
