//===- Reader.cpp - Opening files and dispatching on their format ---------===//
//
// The one place that knows the list of formats. Each format folder (elf/,
// macho/) exposes one detail::Format (Format.h); the table below holds them
// in Formats.def's order. A file is mapped (never slurped), its first bytes
// are offered to each format in turn, and the first that claims them reads
// it -- into the Binary model, into the --gc-sections graph, or into the
// list of a universal file's slices. Archives are no format's: they hold
// objects of any format, and Archive below reads them, leaving each member
// to the same dispatch.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Reader.h"

#include "aoti/audit/Error.h"
#include "aoti/audit/link/Sections.h"

#include "Format.h"

#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace aoti::audit {

namespace {

using detail::Detected;
using detail::Format;

/// The dispatch table: one Format per folder, in Formats.def's order, which
/// is also BinaryFormat's.
ArrayRef<const Format *> formats() {
  static const Format *const Table[] = {
#define AOTI_FORMAT(Id, Accessor) &detail::Accessor(),
#include "aoti/audit/Formats.def"
  };
  return Table;
}

/// The format that claims a buffer's first bytes, and how; nullptr when
/// none does.
std::pair<const Format *, Detected> formatOf(MemoryBufferRef Buffer) {
  for (const Format *F : formats())
    if (Detected D = F->detect(Buffer); D != Detected::No)
      return {F, D};
  return {nullptr, Detected::No};
}

/// The formats' names for a message: "ELF or Mach-O", "ELF and Mach-O".
std::string formatNames(StringRef Conjunction) {
  std::string Out;
  ArrayRef<const Format *> All = formats();
  for (size_t I = 0; I != All.size(); ++I) {
    if (I != 0)
      Out += I + 1 == All.size() ? (" " + Conjunction + " ").str() : ", ";
    Out += All[I]->info().Name;
  }
  return Out;
}

bool isArchive(MemoryBufferRef Buffer) {
  return identify_magic(Buffer.getBuffer()) == file_magic::archive;
}

// libObject (LLVM 19) walks an archive's symbol index without bounds checks:
// a count larger than the table, names without their NULs, or a member
// offset past the end of the file make Archive::Symbol read outside the
// buffer. This checks the index's shape before anything iterates it.
Error checkSymbolIndex(const object::Archive &Ar, StringRef Path) {
  StringRef T = Ar.getSymbolTable();
  uint64_t FileSize = Ar.getData().size();
  const uint64_t HeaderSize = 60; // struct ar_hdr
  auto Bad = [&](const Twine &Why) { return fileError(Path, "symbol index: " + Why); };
  auto MemberFits = [&](uint64_t Off) { return Off <= FileSize && FileSize - Off >= HeaderSize; };
  switch (Ar.kind()) {
  case object::Archive::K_GNU:
  case object::Archive::K_GNU64: {
    bool Is64 = Ar.kind() == object::Archive::K_GNU64;
    uint64_t W = Is64 ? 8 : 4;
    if (T.size() < W)
      return Bad("too short for its symbol count");
    uint64_t N = Is64 ? support::endian::read64be(T.data())
                      : support::endian::read32be(T.data());
    if (N > (T.size() - W) / W)
      return Bad(formatv("{0} symbols do not fit in {1} bytes", N, T.size()));
    for (uint64_t I = 0; I < N; ++I) {
      const char *P = T.data() + W + I * W;
      uint64_t Off = Is64 ? support::endian::read64be(P) : support::endian::read32be(P);
      if (!MemberFits(Off))
        return Bad(formatv("symbol {0} names a member at offset {1}, past the "
                           "end of the file", I, Off));
    }
    if (uint64_t(T.drop_front(W + N * W).count('\0')) < N)
      return Bad("the symbol names run past the end of the index");
    return Error::success();
  }
  case object::Archive::K_BSD:
  case object::Archive::K_DARWIN:
  case object::Archive::K_DARWIN64: {
    bool Is64 = Ar.kind() == object::Archive::K_DARWIN64;
    uint64_t W = Is64 ? 8 : 4;
    auto Read = [&](uint64_t At) {
      return Is64 ? support::endian::read64le(T.data() + At)
                  : support::endian::read32le(T.data() + At);
    };
    if (T.size() < W)
      return Bad("too short for its size field");
    uint64_t RanlibBytes = Read(0);
    if (RanlibBytes > T.size() - W || T.size() - W - RanlibBytes < W)
      return Bad("the ranlib table does not fit in the index");
    uint64_t StrSize = Read(W + RanlibBytes);
    StringRef Str = T.drop_front(2 * W + RanlibBytes);
    if (StrSize > Str.size())
      return Bad("the string table does not fit in the index");
    Str = Str.take_front(StrSize);
    for (uint64_t E = 0; E + 2 * W <= RanlibBytes; E += 2 * W) {
      uint64_t StrX = Read(W + E), Off = Read(W + E + W);
      if (StrX >= Str.size() || Str.find('\0', StrX) == StringRef::npos)
        return Bad(formatv("a name at {0} is outside the string table", StrX));
      if (!MemberFits(Off))
        return Bad(formatv("a member at offset {0} is past the end of the file", Off));
    }
    return Error::success();
  }
  default:
    return Error::success();
  }
}
} // namespace

Expected<std::unique_ptr<MemoryBuffer>> mapFile(StringRef Path) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return fileError(Path, EC.message());
  if (St.type() == sys::fs::file_type::directory_file)
    return fileError(Path, "is a directory");
  if (St.type() != sys::fs::file_type::regular_file)
    return fileError(Path, "is not a regular file");
  // No null terminator: lets MemoryBuffer mmap the file instead of copying.
  auto BufOrErr = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return fileError(Path, BufOrErr.getError().message());
  return std::move(*BufOrErr);
}

const FormatInfo &formatInfo(BinaryFormat F) {
  const FormatInfo &Info = formats()[size_t(F)]->info();
  assert(Info.Id == F && "Formats.def's order is BinaryFormat's");
  return Info;
}

std::string auditMachineArch() {
  Triple T(sys::getProcessTriple());
  switch (T.getArch()) {
  case Triple::aarch64: return "arm64";
  case Triple::x86_64: return "x86_64";
  default: return T.getArchName().str();
  }
}

DetectedKind detectKind(MemoryBufferRef Buffer) {
  if (isArchive(Buffer))
    return DetectedKind::Archive;
  auto [F, D] = formatOf(Buffer);
  if (!F)
    return DetectedKind::Unknown;
  if (D == Detected::Universal)
    return DetectedKind::MachOUniversal;
  // DetectedKind lists the formats first, in BinaryFormat's order.
  return DetectedKind(unsigned(F->info().Id));
}

Expected<std::unique_ptr<Binary>>
readBinaryFromBuffer(MemoryBufferRef Buffer, std::string DisplayPath,
                     const ReadOptions &Opts) {
  if (const Format *F = formatOf(Buffer).first)
    return F->read(Buffer, std::move(DisplayPath), Opts);
  if (isArchive(Buffer))
    return fileError(DisplayPath, "is an archive, not an object, executable "
                                  "or shared library");
  if (Buffer.getBufferSize() == 0)
    return fileError(DisplayPath, "is empty");
  return fileError(DisplayPath, "is not an " + formatNames("or") + " file");
}

Expected<std::vector<std::string>> universalArchs(StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return universalArchs((*Buf)->getMemBufferRef(), Path);
}

Expected<std::vector<std::string>> universalArchs(MemoryBufferRef Buffer,
                                                  StringRef DisplayPath) {
  auto [F, D] = formatOf(Buffer);
  if (D != Detected::Universal)
    return std::vector<std::string>();
  return F->slices(Buffer, DisplayPath);
}

Expected<std::unique_ptr<Binary>> readBinary(StringRef Path,
                                             const ReadOptions &Opts) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  auto B = readBinaryFromBuffer((*Buf)->getMemBufferRef(), Path.str(), Opts);
  if (!B)
    return B.takeError();
  (*B)->setBuffer(std::move(*Buf));
  return B;
}

Expected<InputFile> readInput(StringRef Path, const ReadOptions &Opts) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  InputFile In;
  auto [F, D] = formatOf((*Buf)->getMemBufferRef());
  if (D == Detected::Universal) {
    // A universal static library: its slice is the archive.
    auto Slice = F->takeArchiveSlice(*Buf, Opts);
    if (!Slice)
      return Slice.takeError();
    if (*Slice)
      *Buf = std::move(*Slice);
  }
  if (isArchive((*Buf)->getMemBufferRef())) {
    auto A = Archive::create(Path.str(), std::move(*Buf));
    if (!A)
      return A.takeError();
    In.Ar = std::move(*A);
    return In;
  }
  auto B = readBinaryFromBuffer((*Buf)->getMemBufferRef(), Path.str(), Opts);
  if (!B)
    return B.takeError();
  (*B)->setBuffer(std::move(*Buf));
  In.Bin = std::move(*B);
  return In;
}

Expected<ObjectSections> readObjectSections(MemoryBufferRef Buf,
                                            StringRef Name) {
  auto [F, D] = formatOf(Buf);
  if (D != Detected::Image)
    return fileError(Name, "not an " + formatNames("or") + " object");
  return F->readSections(Buf, Name);
}

Expected<std::unique_ptr<MemoryBuffer>> readObjectBytes(StringRef Path,
                                                        int Member) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  if (Member < 0)
    return std::move(*Buf);
  auto Ar = object::Archive::create((*Buf)->getMemBufferRef());
  if (!Ar)
    return fileError(Path, toString(Ar.takeError()));
  Error Err = Error::success();
  int I = 0;
  for (const object::Archive::Child &C : (*Ar)->children(Err)) {
    if (I++ != Member)
      continue;
    auto Ref = C.getMemoryBufferRef();
    if (!Ref) {
      consumeError(std::move(Err));
      return fileError(Path, toString(Ref.takeError()));
    }
    consumeError(std::move(Err));
    return MemoryBuffer::getMemBufferCopy(Ref->getBuffer(),
                                          Ref->getBufferIdentifier());
  }
  if (Err)
    return fileError(Path, toString(std::move(Err)));
  return fileError(Path, formatv("no member {0}", Member));
}


// --- Archive ----------------------------------------------------------------

Archive::~Archive() = default;

namespace {

/// object::Archive's constructor reads the first member's name to learn the
/// format, and for a BSD name "#1/N" it compares N bytes after the header
/// without checking that the archive holds them (LLVM 19: a read past the
/// end of the buffer, found by fuzz_Archive, in regular and in thin
/// archives alike). Refuse that archive first. Every other member's name is
/// checked in Archive::create below.
Error checkFirstBSDName(StringRef Path, StringRef Whole) {
  constexpr size_t Magic = 8, Header = 60;
  if (Whole.size() < Magic + Header ||
      !(Whole.starts_with("!<arch>\n") || Whole.starts_with("!<thin>\n")))
    return Error::success(); // short files and other formats: libObject checks
  // The raw name ends at the first space, as libObject reads it.
  StringRef Name = Whole.substr(Magic, 16).take_until([](char C) { return C == ' '; });
  if (!Name.consume_front("#1/"))
    return Error::success();
  uint64_t Len = 0;
  if (Name.getAsInteger(10, Len))
    return Error::success(); // not a number: libObject reports it
  if (Len > Whole.size() - Magic - Header)
    return fileError(Path, formatv("bad member header at offset {0}: the member "
                                   "name runs past the end of the archive",
                                   Magic));
  return Error::success();
}

} // namespace

Expected<std::unique_ptr<Archive>>
Archive::create(std::string Path, std::unique_ptr<MemoryBuffer> Buffer) {
  std::unique_ptr<Archive> A(new Archive());
  A->Path = std::move(Path);
  if (Error E = checkFirstBSDName(A->Path, Buffer->getBuffer()))
    return E;
  auto ArOrErr = object::Archive::create(Buffer->getMemBufferRef());
  if (!ArOrErr)
    return fileError(A->Path, toString(ArOrErr.takeError()));
  A->Ar = std::move(*ArOrErr);
  A->Buffer = std::move(Buffer);
  A->Thin = A->Ar->isThin();

  // Members, in order. Offsets identify members in the symbol index.
  DenseMap<uint64_t, uint32_t> ByOffset;
  Error Err = Error::success();
  for (const object::Archive::Child &C : A->Ar->children(Err)) {
    auto Name = C.getName();
    if (!Name) {
      consumeError(std::move(Err));
      return fileError(A->Path, "bad member header: " +
                                    toString(Name.takeError()));
    }
    // A BSD "#1/N" name longer than its member makes libObject hand back a
    // name that runs past the end of the archive; check before reading it.
    StringRef Whole = A->Buffer->getBuffer();
    if (Name->data() < Whole.begin() || Name->data() + Name->size() > Whole.end()) {
      consumeError(std::move(Err));
      return fileError(A->Path,
                       formatv("bad member header at offset {0}: the member "
                               "name runs past the end of the archive",
                               C.getChildOffset()));
    }
    Member M;
    M.Name = Name->str();
    M.Offset = C.getChildOffset();
    ByOffset[C.getChildOffset()] = A->Members.size();
    auto Ref = C.getMemoryBufferRef();
    if (!Ref) {
      // A thin archive whose member file is gone, or a lying size field.
      consumeError(std::move(Err));
      return fileError(A->Path, formatv("member '{0}': {1}", M.Name,
                                        toString(Ref.takeError())));
    }
    A->MemberBuffers.push_back(*Ref);
    A->Members.push_back(std::move(M));
  }
  if (Err)
    return fileError(A->Path, "bad member header: " + toString(std::move(Err)));

  // Windows (two "/" members) and AIX big archives hold no ELF or Mach-O
  // objects, and their symbol tables are not checked above: libObject walks
  // a COFF linker member's counts unchecked (a fuzz_Archive crash).
  if (A->Ar->kind() == object::Archive::K_COFF ||
      A->Ar->kind() == object::Archive::K_AIXBIG)
    return fileError(A->Path,
                     (A->Ar->kind() == object::Archive::K_COFF
                          ? "is a Windows (COFF) archive"
                          : "is an AIX big archive") +
                         Twine("; aoti-audit reads ") + formatNames("and") +
                         " archives");
  A->HasIndex = A->Ar->hasSymbolTable();
  if (A->HasIndex) {
    if (Error E = checkSymbolIndex(*A->Ar, A->Path))
      return E;
    for (const object::Archive::Symbol &S : A->Ar->symbols()) {
      auto C = S.getMember();
      if (!C)
        return fileError(A->Path, "symbol index: " + toString(C.takeError()));
      auto It = ByOffset.find(C->getChildOffset());
      if (It == ByOffset.end())
        return fileError(A->Path,
                         formatv("symbol index names '{0}' in a member at "
                                 "offset {1}, where no member starts",
                                 S.getName(), C->getChildOffset()));
      A->Index.push_back({S.getName(), It->second});
    }
  }
  A->Parsed.resize(A->Members.size());
  A->ParseErrors.resize(A->Members.size());
  return A;
}

std::string Archive::memberDisplayName(size_t I) const {
  return Path + "(" + Members[I].Name + ")";
}

Expected<const Binary &> Archive::member(size_t I) const {
  if (I >= Members.size())
    return fileError(Path, formatv("no member {0}", I));
  if (ParseErrors[I])
    return makeError(*ParseErrors[I]);
  if (!Parsed[I]) {
    auto B = readBinaryFromBuffer(MemberBuffers[I], memberDisplayName(I));
    if (!B) {
      ParseErrors[I] = toString(B.takeError());
      return makeError(*ParseErrors[I]);
    }
    // Only a linker reads an archive member, and it links relocatable
    // objects of a machine it targets: lld skips any other member with a
    // warning ("is neither ET_REL nor LLVM bitcode") and refuses one of an
    // unknown machine ("is incompatible with ...").
    if ((*B)->kind() != FileKind::Relocatable) {
      ParseErrors[I] =
          formatv("{0}: is not a relocatable object ({1}): a link skips the "
                  "member (lld: \"is neither ET_REL nor LLVM bitcode\")",
                  memberDisplayName(I), (*B)->typeName())
              .str();
      return makeError(*ParseErrors[I]);
    }
    if ((*B)->archName().starts_with("e_machine ")) {
      ParseErrors[I] = formatv("{0}: {1} is not a machine any linker targets; "
                               "a link that extracts the member fails",
                               memberDisplayName(I), (*B)->archName())
                           .str();
      return makeError(*ParseErrors[I]);
    }
    Parsed[I] = std::move(*B);
  }
  return *Parsed[I];
}

} // namespace aoti::audit
