//===- Files.cpp - Model files: packages, metadata, generated source ------===//
#include "Files.h"

#include <zip.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/xxhash.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <random>

namespace fs = std::filesystem;

namespace aoti::backend {

// --- Temporary directories ------------------------------------------------

Expected<TempDir> TempDir::create() {
  const char *Base = std::getenv("TMPDIR");
  std::string Template = std::string(Base && *Base ? Base : "/tmp") + "/aoti-model-XXXXXX";
  if (!mkdtemp(Template.data()))
    return Error(ErrorKind::Io, "cannot create a temporary directory under " +
                                    Template + ": " + std::strerror(errno));
  return TempDir(std::move(Template));
}

TempDir &TempDir::operator=(TempDir &&O) noexcept {
  if (this != &O) {
    this->~TempDir();
    Path = std::move(O.Path);
    Key = std::move(O.Key);
    O.Path.clear();
    O.Key.clear();
  }
  return *this;
}

namespace {

/// The content-keyed directories of this process, under one private parent
/// that exists while any of them does. Its name is fixed for the process,
/// so the same content always gets the same path.
class ContentDirs {
public:
  static ContentDirs &get() {
    static ContentDirs *D = new ContentDirs(); // outlives every Model
    return *D;
  }

  Expected<std::string> acquire(const std::string &Key, bool &Fresh) {
    std::lock_guard<std::mutex> Lock(M);
    if (Uses.empty())
      if (Status S = makeParent(); !S)
        return S.takeError();
    const std::string Dir = Parent + "/" + Key;
    unsigned &N = Uses[Key];
    Fresh = N == 0;
    if (Fresh && mkdir(Dir.c_str(), 0700) != 0) {
      const int E = errno;
      Uses.erase(Key);
      return Error(ErrorKind::Io, "cannot create " + Dir + ": " + std::strerror(E));
    }
    ++N;
    return Dir;
  }

  void release(const std::string &Key) {
    std::lock_guard<std::mutex> Lock(M);
    auto It = Uses.find(Key);
    if (It == Uses.end() || --It->second != 0)
      return;
    Uses.erase(It);
    std::error_code EC;
    fs::remove_all(Parent + "/" + Key, EC);
    if (Uses.empty())
      rmdir(Parent.c_str());
  }

private:
  ContentDirs() {
    std::random_device R;
    char Suffix[17];
    std::snprintf(Suffix, sizeof Suffix, "%08x%08x", R(), R());
    Name = "aoti-model-" + std::to_string(getpid()) + "-" + Suffix;
  }

  /// mkdir, not mkdtemp: the name must stay the same. A directory of that
  /// name made by someone else (a race in a shared /tmp) is not used.
  Status makeParent() {
    const char *Base = std::getenv("TMPDIR");
    Parent = std::string(Base && *Base ? Base : "/tmp") + "/" + Name;
    if (mkdir(Parent.c_str(), 0700) == 0)
      return Status();
    const int E = errno;
    struct stat St;
    if (E == EEXIST && lstat(Parent.c_str(), &St) == 0 && S_ISDIR(St.st_mode) &&
        St.st_uid == geteuid() && (St.st_mode & 077) == 0)
      return Status();
    return Error(ErrorKind::Io, "cannot create the private directory " + Parent + ": " +
                                    (E == EEXIST ? std::string("it exists and is not ours")
                                                 : std::string(std::strerror(E))));
  }

  std::mutex M;
  std::string Name, Parent;
  std::map<std::string, unsigned> Uses;
};

} // namespace

Expected<TempDir> TempDir::forContent(const std::string &Key, bool &Fresh) {
  Expected<std::string> Dir = ContentDirs::get().acquire(Key, Fresh);
  if (!Dir)
    return Dir.takeError();
  return TempDir(std::move(*Dir), Key);
}

TempDir::~TempDir() {
  if (!Key.empty()) {
    ContentDirs::get().release(Key);
    return;
  }
  if (Path.empty())
    return;
  std::error_code EC;
  fs::remove_all(Path, EC);
}

// --- Reading files ---------------------------------------------------------

AlignedBytes::AlignedBytes(size_t N) : Size(N) {
  // aligned_alloc wants a multiple of the alignment; never zero bytes.
  const size_t Rounded = (N + 63) / 64 * 64;
  Data.reset(static_cast<std::byte *>(std::aligned_alloc(64, Rounded ? Rounded : 64)));
}

void AlignedBytes::Free::operator()(std::byte *P) const { std::free(P); }

Expected<AlignedBytes> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary | std::ios::ate);
  if (!In)
    return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
  const std::streamoff Size = In.tellg();
  if (Size < 0)
    return Error(ErrorKind::BadFile, Path + ": cannot tell its size");
  AlignedBytes Out(static_cast<size_t>(Size));
  if (!Out.data())
    return Error(ErrorKind::Io, Path + ": out of memory reading " + std::to_string(Size) + " bytes");
  In.seekg(0);
  In.read(reinterpret_cast<char *>(Out.data()), Size);
  if (In.gcount() != Size)
    return Error(ErrorKind::BadFile, Path + ": short read");
  return Out;
}

static std::string asText(const AlignedBytes &B) {
  return std::string(reinterpret_cast<const char *>(B.data()), B.size());
}

Expected<FileFormat> sniff(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
  char Head[4] = {};
  In.read(Head, 4);
  if (In.gcount() == 4 && std::memcmp(Head, "PK\x03\x04", 4) == 0)
    return FileFormat::Zip;
  if (In.gcount() == 4 && std::memcmp(Head, "\x7f" "ELF", 4) == 0)
    return FileFormat::Elf;
  return FileFormat::Other;
}

// --- .pt2 packages ---------------------------------------------------------

namespace {

constexpr std::string_view ModelFolder = "data/aotinductor/model/";
/// Where package_constants_on_disk_format="pickle_weights" puts the weights.
constexpr std::string_view PickledWeightsFolder = "data/weights/";

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

class ZipArchive {
public:
  ~ZipArchive() {
    if (Z)
      zip_discard(Z);
  }
  Status open(const std::string &Path) {
    int Err = 0;
    Z = zip_open(Path.c_str(), ZIP_RDONLY, &Err);
    if (!Z) {
      zip_error_t E;
      zip_error_init_with_code(&E, Err);
      std::string Msg = Path + ": not a readable zip archive: " + zip_error_strerror(&E);
      zip_error_fini(&E);
      return Error(ErrorKind::NotAModel, Msg);
    }
    return Status::success();
  }
  Expected<AlignedBytes> read(zip_uint64_t Index, const std::string &Name) {
    zip_stat_t St;
    if (zip_stat_index(Z, Index, 0, &St) != 0 || !(St.valid & ZIP_STAT_SIZE))
      return Error(ErrorKind::BadFile, Name + ": cannot stat in the archive");
    zip_file_t *F = zip_fopen_index(Z, Index, 0);
    if (!F)
      return Error(ErrorKind::BadFile, Name + ": cannot open in the archive: " +
                                           zip_strerror(Z));
    AlignedBytes Out(St.size);
    if (!Out.data()) {
      zip_fclose(F);
      return Error(ErrorKind::Io, Name + ": out of memory");
    }
    zip_int64_t Got = zip_fread(F, Out.data(), St.size);
    zip_fclose(F);
    if (Got < 0 || static_cast<zip_uint64_t>(Got) != St.size)
      return Error(ErrorKind::BadFile, Name + ": short read from the archive");
    return Out;
  }
  zip_t *Z = nullptr;
};

Status writeBytes(const std::string &Path, const AlignedBytes &B) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(reinterpret_cast<const char *>(B.data()), static_cast<std::streamsize>(B.size()));
  Out.close();
  if (!Out)
    return Error(ErrorKind::Io, Path + ": cannot write");
  return Status::success();
}

} // namespace

Expected<ModelFiles> openPackage(const std::string &Path) {
  ZipArchive Zip;
  if (Status S = Zip.open(Path); !S)
    return S.takeError();

  // The package's top folder is named after the file it was saved as; find
  // the model folder under whatever it is called.
  struct Entry {
    zip_uint64_t Index;
    std::string Name; // file name inside the model folder
  };
  std::vector<Entry> Entries;
  std::string Folder;
  bool Pickled = false;
  const zip_int64_t N = zip_get_num_entries(Zip.Z, 0);
  for (zip_int64_t I = 0; I < N; ++I) {
    const char *Raw = zip_get_name(Zip.Z, static_cast<zip_uint64_t>(I), 0);
    if (!Raw)
      continue;
    std::string_view Name(Raw);
    if (size_t W = Name.find(PickledWeightsFolder);
        W != std::string_view::npos && Name.size() > W + PickledWeightsFolder.size() &&
        Name.substr(0, W).find('/') == (W ? W - 1 : std::string_view::npos))
      Pickled = true;
    size_t At = Name.find(ModelFolder);
    if (At == std::string_view::npos)
      continue;
    // The model folder sits at the top or one folder down.
    std::string_view Prefix = Name.substr(0, At);
    if (!Prefix.empty() && (Prefix.back() != '/' || Prefix.find('/') != Prefix.size() - 1))
      continue;
    std::string_view File = Name.substr(At + ModelFolder.size());
    if (File.empty() || File.find('/') != std::string_view::npos || File == "." || File == "..")
      continue;
    std::string ThisFolder(Name.substr(0, At + ModelFolder.size()));
    if (!Folder.empty() && Folder != ThisFolder)
      return Error(ErrorKind::NotAModel,
                   Path + ": holds more than one model folder (" + Folder + ", " +
                       ThisFolder + ")");
    Folder = ThisFolder;
    Entries.push_back({static_cast<zip_uint64_t>(I), std::string(File)});
  }

  const Entry *So = nullptr;
  for (const Entry &E : Entries)
    if (endsWith(E.Name, ".so")) {
      if (So)
        return Error(ErrorKind::NotAModel, Path + ": " + Folder +
                                               " holds more than one .so (" + So->Name +
                                               ", " + E.Name + ")");
      So = &E;
    }
  if (!So)
    return Error(ErrorKind::NotAModel,
                 Path + ": a zip without a " + std::string(ModelFolder) +
                     "*.so: not an AOTInductor package");

  ModelFiles M;
  M.PickledWeights = Pickled;
  const std::string Stem = So->Name.substr(0, So->Name.size() - 3);
  // What goes to disk (the library and its cubins), named by its content.
  std::vector<std::pair<const Entry *, AlignedBytes>> ToDisk;
  llvm::SmallString<0> Identity;
  for (const Entry &E : Entries) {
    const bool IsSo = &E == So, IsCubin = endsWith(E.Name, ".cubin");
    const bool IsMeta = E.Name == Stem + "_metadata.json";
    const bool IsBlob = E.Name == Stem + "_weights.blob";
    const bool IsSource = E.Name == Stem + ".cpp";
    if (!IsSo && !IsCubin && !IsMeta && !IsBlob && !IsSource)
      continue;
    Expected<AlignedBytes> Bytes = Zip.read(E.Index, Path + ":" + Folder + E.Name);
    if (!Bytes)
      return Bytes.takeError();
    if (IsSo || IsCubin) {
      const llvm::XXH128_hash_t H = llvm::xxh3_128bits(
          llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Bytes->data()), Bytes->size()));
      Identity += E.Name;
      Identity += '\0';
      Identity += llvm::utohexstr(H.high64, true, 16) + llvm::utohexstr(H.low64, true, 16) + "\n";
      ToDisk.emplace_back(&E, std::move(*Bytes));
    } else if (IsMeta) {
      M.Metadata = asText(*Bytes);
    } else if (IsSource) {
      M.WrapperSource = asText(*Bytes);
    } else {
      M.WeightsPath = Path + ":" + Folder + E.Name;
      M.Weights = std::move(*Bytes);
    }
  }
  const llvm::XXH128_hash_t Key = llvm::xxh3_128bits(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Identity.data()), Identity.size()));
  bool Fresh = false;
  Expected<TempDir> Dir = TempDir::forContent(
      llvm::utohexstr(Key.high64, /*LowerCase=*/true, 16) +
          llvm::utohexstr(Key.low64, /*LowerCase=*/true, 16),
      Fresh);
  if (!Dir)
    return Dir.takeError();
  M.Extracted.emplace(std::move(*Dir));
  const std::string &Root = M.Extracted->path();
  M.SoPath = Root + "/" + So->Name;
  M.CubinDir = Root;
  if (Fresh) // else a live model of the same package wrote them there
    for (const auto &[E, Bytes] : ToDisk)
      if (Status S = writeBytes(Root + "/" + E->Name, Bytes); !S)
        return S.takeError();
  return M;
}

Expected<ModelFiles> openSharedObject(const std::string &Path,
                                      const LoadOptions &Options) {
  ModelFiles M;
  M.SoPath = Path;
  const std::string Stem = endsWith(Path, ".so") ? Path.substr(0, Path.size() - 3) : Path;
  std::error_code EC;
  if (fs::exists(Stem + "_metadata.json", EC))
    if (Expected<AlignedBytes> B = readFile(Stem + "_metadata.json"))
      M.Metadata = asText(*B);
  if (fs::exists(Stem + ".cpp", EC))
    if (Expected<AlignedBytes> B = readFile(Stem + ".cpp"))
      M.WrapperSource = asText(*B);

  std::string Blob;
  if (Options.WeightsPath)
    Blob = *Options.WeightsPath;
  else if (fs::exists(Stem + "_weights.blob", EC))
    Blob = Stem + "_weights.blob";
  if (!Blob.empty()) {
    Expected<AlignedBytes> B = readFile(Blob);
    if (!B)
      return Error(ErrorKind::Weights, "weights blob " + B.error().message());
    M.WeightsPath = Blob;
    M.Weights = std::move(*B);
  }
  if (Options.CubinDir)
    M.CubinDir = *Options.CubinDir;
  else
    M.CubinDir = fs::path(Path).parent_path().string();
  if (M.CubinDir.empty())
    M.CubinDir = ".";
  return M;
}

std::optional<uint64_t> embeddedConstantsSize(const std::string &SoPath) {
  constexpr llvm::StringRef Start = "_binary_constants_bin_start";
  constexpr llvm::StringRef End = "_binary_constants_bin_end";
  llvm::Expected<llvm::object::OwningBinary<llvm::object::ObjectFile>> File =
      llvm::object::ObjectFile::createObjectFile(SoPath);
  if (!File) {
    llvm::consumeError(File.takeError());
    return std::nullopt;
  }
  const auto *Elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(File->getBinary());
  if (!Elf)
    return std::nullopt;
  // A table whose header claims more than the file holds is not read (LLVM
  // would walk every entry it claims).
  const uint64_t FileSize = Elf->getData().size();
  auto Sound = [&](unsigned Type) {
    for (llvm::object::ELFSectionRef Sec : Elf->sections())
      if (Sec.getType() == Type)
        return Sec.getOffset() <= FileSize && Sec.getSize() <= FileSize - Sec.getOffset();
    return false;
  };
  // Both symbols from one table: AOTInductor emits them global (so in
  // .dynsym), a model linked with hidden visibility keeps them in .symtab.
  auto Span = [&](auto Symbols) -> std::optional<uint64_t> {
    std::optional<uint64_t> S, E;
    for (const llvm::object::ELFSymbolRef &Sym : Symbols) {
      llvm::Expected<llvm::StringRef> Name = Sym.getName();
      llvm::Expected<uint64_t> Value = Sym.getValue();
      llvm::Expected<uint32_t> Flags = Sym.getFlags();
      if (!Name || !Value || !Flags) { // a malformed table: stop reading it
        llvm::consumeError(Name.takeError());
        llvm::consumeError(Value.takeError());
        llvm::consumeError(Flags.takeError());
        break;
      }
      if (*Flags & llvm::object::SymbolRef::SF_Undefined)
        continue;
      if (*Name == Start)
        S = *Value;
      else if (*Name == End)
        E = *Value;
    }
    if (S && E && *E >= *S)
      return *E - *S;
    return std::nullopt;
  };
  if (Sound(llvm::ELF::SHT_DYNSYM))
    if (std::optional<uint64_t> D = Span(Elf->getDynamicSymbolIterators()))
      return D;
  if (Sound(llvm::ELF::SHT_SYMTAB))
    return Span(Elf->symbols());
  return std::nullopt;
}

// --- A minimal JSON object reader ------------------------------------------

namespace {

class JsonCursor {
public:
  explicit JsonCursor(std::string_view Text) : S(Text) {}
  void ws() {
    while (P < S.size() && std::isspace(static_cast<unsigned char>(S[P])))
      ++P;
  }
  bool eat(char C) {
    ws();
    if (P < S.size() && S[P] == C) {
      ++P;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    ws();
    if (P >= S.size() || S[P] != '"')
      return std::nullopt;
    std::string Out;
    for (++P; P < S.size(); ++P) {
      char C = S[P];
      if (C == '"') {
        ++P;
        return Out;
      }
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (++P >= S.size())
        return std::nullopt;
      switch (S[P]) {
      case 'n': Out += '\n'; break;
      case 't': Out += '\t'; break;
      case 'r': Out += '\r'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'u': // keep \uXXXX escapes verbatim: metadata values are ASCII
        Out += "\\u";
        break;
      default: Out += S[P]; break;
      }
    }
    return std::nullopt;
  }
  bool skipValue(int Depth = 0) {
    ws();
    if (P >= S.size() || Depth > 64)
      return false;
    char C = S[P];
    if (C == '"')
      return string().has_value();
    if (C == '{' || C == '[') {
      const char Close = C == '{' ? '}' : ']';
      ++P;
      if (eat(Close))
        return true;
      do {
        if (C == '{' && (!string() || !eat(':')))
          return false;
        if (!skipValue(Depth + 1))
          return false;
      } while (eat(','));
      return eat(Close);
    }
    size_t Start = P;
    while (P < S.size() && (std::isalnum(static_cast<unsigned char>(S[P])) ||
                            S[P] == '-' || S[P] == '+' || S[P] == '.'))
      ++P;
    return P > Start;
  }

private:
  std::string_view S;
  size_t P = 0;
};

} // namespace

std::optional<std::string> jsonStringField(std::string_view Json, std::string_view Key) {
  JsonCursor C(Json);
  if (!C.eat('{') || C.eat('}'))
    return std::nullopt;
  do {
    std::optional<std::string> K = C.string();
    if (!K || !C.eat(':'))
      return std::nullopt;
    if (*K == Key) {
      JsonCursor Probe = C;
      if (std::optional<std::string> V = Probe.string())
        return V;
    }
    if (!C.skipValue())
      return std::nullopt;
  } while (C.eat(','));
  return std::nullopt;
}

// --- Input declarations in the generated wrapper ----------------------------

std::vector<TensorSpec> declaredInputs(std::string_view Src) {
  // AOTInductor emits, per input i:
  //   AOTI_NOINLINE static void check_input_<i>(AtenTensorHandle* input_handles) {
  //     ... int32_t <v>_expected_dtype = aoti_torch_dtype_<name>();
  //     if (<n> != <v>_size[<d>]) ...           (a static dimension)
  //     if (<v>_size[<d>] < <lo>) ...           (a dynamic one, with bounds)
  std::vector<TensorSpec> Specs;
  constexpr std::string_view Def = "static void check_input_";
  size_t At = Src.find(Def);
  while (At != std::string_view::npos) {
    size_t Next = Src.find(Def, At + Def.size());
    std::string_view Block = Src.substr(At, Next == std::string_view::npos ? std::string_view::npos : Next - At);
    if (size_t End = Block.find("_check_aoti_runtime_check_inputs_env"); End != std::string_view::npos)
      Block = Block.substr(0, End);
    TensorSpec Spec;
    constexpr std::string_view DT = "_expected_dtype = aoti_torch_dtype_";
    if (size_t D = Block.find(DT); D != std::string_view::npos) {
      size_t B = D + DT.size(), E = Block.find('(', B);
      if (E != std::string_view::npos)
        Spec.Type = parseDType(Block.substr(B, E - B));
    }
    std::vector<int64_t> Dims;
    std::vector<bool> Seen;
    constexpr std::string_view SizeRef = "_size[";
    for (size_t S = Block.find(SizeRef); S != std::string_view::npos;
         S = Block.find(SizeRef, S + 1)) {
      size_t IdxStart = S + SizeRef.size();
      size_t IdxEnd = Block.find(']', IdxStart);
      if (IdxEnd == std::string_view::npos)
        break;
      int64_t Index = std::atoll(std::string(Block.substr(IdxStart, IdxEnd - IdxStart)).c_str());
      if (Index < 0 || Index > 64)
        continue;
      if (Dims.size() <= static_cast<size_t>(Index)) {
        Dims.resize(Index + 1, -1);
        Seen.resize(Index + 1, false);
      }
      // "if (8 != arg_size[0])": the number before "!=" on this line.
      size_t LineStart = Block.rfind('\n', S);
      std::string_view Line = Block.substr(LineStart == std::string_view::npos ? 0 : LineStart + 1,
                                           S - (LineStart == std::string_view::npos ? 0 : LineStart + 1));
      if (size_t If = Line.find("if ("); If != std::string_view::npos &&
                                         Line.find("!=") != std::string_view::npos) {
        std::string Num(Line.substr(If + 4));
        if (!Num.empty() && std::isdigit(static_cast<unsigned char>(Num[0])))
          Dims[Index] = std::atoll(Num.c_str());
      }
      Seen[Index] = true;
    }
    // A dimension that only appears in a message, or not at all, leaves the
    // shape unknown rather than wrong.
    bool Complete = !Dims.empty();
    for (bool B : Seen)
      Complete = Complete && B;
    if (Complete)
      Spec.Shape = Dims;
    Specs.push_back(std::move(Spec));
    At = Next;
  }
  return Specs;
}

// --- Capturing stderr -------------------------------------------------------

namespace {

// The capture a crash handler flushes: one at a time (a nested or concurrent
// capture leaves the handlers to the first).
std::atomic<int> CrashSink{-1}, CrashSaved{-1};
constexpr int CrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
struct sigaction OldActions[std::size(CrashSignals)];

// Async-signal-safe: pread, write, dup2, sigaction, raise.
void flushOnCrash(int Sig) {
  int Sink = CrashSink.load(), Saved = CrashSaved.load();
  if (Sink >= 0 && Saved >= 0) {
    char Buf[4096];
    off_t Off = 0;
    ssize_t N;
    while ((N = pread(Sink, Buf, sizeof Buf, Off)) > 0) {
      if (write(Saved, Buf, static_cast<size_t>(N)) < 0)
        break;
      Off += N;
    }
    dup2(Saved, 2);
  }
  for (size_t I = 0; I < std::size(CrashSignals); ++I)
    sigaction(CrashSignals[I], &OldActions[I], nullptr);
  raise(Sig); // delivered, to the previous handler, when this one returns
}

} // namespace

StderrCapture::StderrCapture() {
  std::fflush(stderr);
  Sink = memfd_create("aoti-model-stderr", MFD_CLOEXEC);
  if (Sink < 0)
    return;
  Saved = dup(2);
  if (Saved < 0 || dup2(Sink, 2) < 0) {
    close(Sink);
    Sink = -1;
    if (Saved >= 0)
      close(Saved);
    Saved = -1;
    return;
  }
  int None = -1;
  if (CrashSink.compare_exchange_strong(None, Sink)) {
    CrashSaved.store(Saved);
    struct sigaction A = {};
    A.sa_handler = flushOnCrash;
    sigemptyset(&A.sa_mask);
    for (size_t I = 0; I < std::size(CrashSignals); ++I)
      sigaction(CrashSignals[I], &A, &OldActions[I]);
    CrashHandlers = true;
  }
}

std::string StderrCapture::finish() {
  if (Done)
    return {};
  Done = true;
  if (Sink < 0)
    return {};
  std::fflush(stderr);
  if (CrashHandlers) {
    for (size_t I = 0; I < std::size(CrashSignals); ++I)
      sigaction(CrashSignals[I], &OldActions[I], nullptr);
    CrashSaved.store(-1);
    CrashSink.store(-1);
  }
  dup2(Saved, 2);
  close(Saved);
  std::string Text;
  if (lseek(Sink, 0, SEEK_SET) == 0) {
    char Buf[4096];
    ssize_t N;
    while ((N = read(Sink, Buf, sizeof Buf)) > 0)
      Text.append(Buf, static_cast<size_t>(N));
  }
  close(Sink);
  return Text;
}

void StderrCapture::replay() {
  std::string Text = finish();
  if (!Text.empty()) {
    std::fwrite(Text.data(), 1, Text.size(), stderr);
    std::fflush(stderr);
  }
}

StderrCapture::~StderrCapture() { replay(); }

} // namespace aoti::backend
