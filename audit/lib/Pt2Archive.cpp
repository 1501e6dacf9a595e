//===- Pt2Archive.cpp - A .pt2 package: its members and its models ------===//
//
// open() reads the zip's central directory once with libzip and sorts each
// member into place: a member whose name is [<root>/]data/aotinductor/<m>/<f>
// (<root> one folder at most, <f> no folder) belongs to model <m>; one under
// [<root>/]data/weights/ marks pickled weights; the rest are the package's
// own bookkeeping (version, archive_format, constants) and stay listed in
// members() only. Two folders that give one model name (two roots) make the
// package ambiguous and are refused, as is a member name that climbs out of
// its folder ("..").
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Pt2Archive.h"

#include "aoti/audit/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <zip.h>

using namespace llvm;

namespace aoti::audit {

namespace {

/// The most deflate can expand: a 258-byte match costs at least 2 bits, so
/// one compressed byte yields at most 1032 inflated bytes.
constexpr uint64_t MaxDeflateRatio = 1032;
constexpr StringLiteral WeightsFolder = "data/weights/";

/// Where Folder ("data/aotinductor/") starts in Name when it sits at the top
/// or one folder down; npos otherwise.
size_t rootedAt(StringRef Name, StringRef Folder) {
  if (Name.starts_with(Folder))
    return 0;
  size_t Slash = Name.find('/');
  if (Slash == StringRef::npos || Slash == 0)
    return StringRef::npos;
  return Name.substr(Slash + 1).starts_with(Folder) ? Slash + 1 : StringRef::npos;
}

} // namespace

struct Pt2Archive::ZipHandle {
  zip_t *Z = nullptr;
  ~ZipHandle() {
    if (Z)
      zip_discard(Z);
  }
};

Pt2Archive::~Pt2Archive() = default;

StringRef Pt2Archive::Model::fileName(const Pt2Archive &A, size_t File) const {
  return StringRef(A.Members[File].Name).drop_front(Folder.size());
}

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open(StringRef Path) {
  std::unique_ptr<Pt2Archive> A(new Pt2Archive());
  A->Path = Path.str();
  A->Zip = std::make_unique<ZipHandle>();
  int Err = 0;
  A->Zip->Z = zip_open(A->Path.c_str(), ZIP_RDONLY, &Err);
  if (!A->Zip->Z) {
    zip_error_t E;
    zip_error_init_with_code(&E, Err);
    std::string Msg = std::string("not a readable zip archive: ") + zip_error_strerror(&E);
    zip_error_fini(&E);
    return fileError(Path, Msg);
  }

  StringMap<size_t> ByName; // model name -> index into Models
  const zip_int64_t N = zip_get_num_entries(A->Zip->Z, 0);
  for (zip_int64_t I = 0; I < N; ++I) {
    zip_stat_t St;
    zip_stat_init(&St);
    if (zip_stat_index(A->Zip->Z, zip_uint64_t(I), 0, &St) != 0 || !(St.valid & ZIP_STAT_NAME))
      return fileError(Path, formatv("cannot read the name of member {0}: {1}", I,
                                     zip_strerror(A->Zip->Z)));
    StringRef Name(St.name);
    if (Name.ends_with("/"))
      continue; // a folder entry
    if (!(St.valid & ZIP_STAT_SIZE))
      return fileError(Path, "member " + Name + " declares no size");
    A->Members.push_back({uint64_t(I), Name.str(), uint64_t(St.size)});
    const size_t Index = A->Members.size() - 1;

    if (size_t W = rootedAt(Name, WeightsFolder);
        W != StringRef::npos && Name.size() > W + WeightsFolder.size())
      A->PickledWeights = true;
    size_t At = rootedAt(Name, Pt2ModelsFolder);
    if (At == StringRef::npos)
      continue;
    StringRef Rest = Name.substr(At + Pt2ModelsFolder.size());
    auto [ModelName, File] = Rest.split('/');
    if (ModelName.empty() || File.empty() || File.contains('/'))
      continue; // not directly in a model folder
    if (ModelName == "." || ModelName == ".." || File == "." || File == "..")
      return fileError(Path, "member " + Name + " climbs out of its model folder");
    std::string Folder = Name.substr(0, At + Pt2ModelsFolder.size() + ModelName.size() + 1).str();
    auto [Slot, New] = ByName.try_emplace(ModelName, A->Models.size());
    if (New)
      A->Models.push_back({ModelName.str(), Folder, {}, Model::npos, {}});
    Model &M = A->Models[Slot->second];
    if (M.Folder != Folder)
      return fileError(Path, formatv("two folders hold a model named {0} ({1}, {2}): "
                                     "which one is meant is ambiguous",
                                     ModelName, M.Folder, Folder));
    M.Files.push_back(Index);
    if (File.ends_with(".so"))
      M.Libraries.push_back(Index);
  }
  for (Model &M : A->Models)
    if (M.Libraries.size() == 1)
      M.Library = M.Libraries.front();
  return A;
}

const Pt2Archive::Model *Pt2Archive::model(StringRef Name) const {
  for (const Model &M : Models)
    if (M.Name == Name)
      return &M;
  return nullptr;
}

std::string Pt2Archive::modelNames() const {
  std::vector<StringRef> Names;
  for (const Model &M : Models)
    Names.push_back(M.Name);
  llvm::sort(Names);
  return join(Names, ", ");
}

std::string Pt2Archive::displayName(const Member &M) const {
  return Path + "!" + M.Name;
}

Error Pt2Archive::checkDeclaredSize(const Member &M) const {
  zip_stat_t St;
  zip_stat_init(&St);
  if (zip_stat_index(Zip->Z, M.Index, 0, &St) != 0)
    return fileError(displayName(M), "cannot stat the member in its package");
  if (!(St.valid & ZIP_STAT_COMP_SIZE) || !(St.valid & ZIP_STAT_COMP_METHOD))
    return Error::success(); // libzip checks what it reads against the size
  const uint64_t Packed = St.comp_size;
  if (St.comp_method == ZIP_CM_STORE && M.Size != Packed)
    return fileError(displayName(M),
                     formatv("a stored member that declares {0} bytes in {1}: a corrupt or "
                             "hostile package",
                             M.Size, Packed));
  if (St.comp_method == ZIP_CM_DEFLATE && M.Size / MaxDeflateRatio > Packed)
    return fileError(displayName(M),
                     formatv("declares {0} bytes inflated from {1}: more than deflate can "
                             "produce; a corrupt or hostile package",
                             M.Size, Packed));
  return Error::success();
}

Error Pt2Archive::readInto(const Member &M, MutableArrayRef<char> Out) const {
  if (Out.size() != M.Size)
    return fileError(displayName(M), formatv("read into {0} bytes, but the member holds {1}",
                                             Out.size(), M.Size));
  if (Error E = checkDeclaredSize(M))
    return E;
  zip_file_t *F = zip_fopen_index(Zip->Z, M.Index, 0);
  if (!F)
    return fileError(displayName(M), Twine("cannot open the member: ") + zip_strerror(Zip->Z));
  // zip_fread reads at most INT64_MAX at a time; a member is read in pieces
  // so that its CRC is checked at the end however large it is.
  uint64_t Done = 0;
  std::string Failure;
  while (Done < M.Size) {
    const uint64_t Want = std::min<uint64_t>(M.Size - Done, uint64_t(1) << 30);
    zip_int64_t Got = zip_fread(F, Out.data() + Done, Want);
    if (Got < 0) {
      Failure = std::string("cannot inflate the member: ") + zip_file_strerror(F);
      break;
    }
    if (Got == 0) {
      Failure = formatv("short read: {0} of {1} bytes", Done, M.Size).str();
      break;
    }
    Done += uint64_t(Got);
  }
  if (Failure.empty()) { // past the end: libzip verifies the CRC here
    char Probe;
    if (zip_fread(F, &Probe, 1) < 0)
      Failure = std::string("cannot inflate the member: ") + zip_file_strerror(F);
  }
  zip_fclose(F);
  if (!Failure.empty())
    return fileError(displayName(M), Failure);
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> Pt2Archive::read(const Member &M) const {
  if (Error E = checkDeclaredSize(M))
    return E;
  auto Buf = WritableMemoryBuffer::getNewUninitMemBuffer(M.Size, displayName(M), Align(64));
  if (!Buf)
    return fileError(displayName(M), formatv("out of memory for {0} bytes", M.Size));
  if (Error E = readInto(M, MutableArrayRef<char>(Buf->getBufferStart(), M.Size)))
    return E;
  return std::unique_ptr<MemoryBuffer>(std::move(Buf));
}

} // namespace aoti::audit
