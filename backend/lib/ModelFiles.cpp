//===- ModelFiles.cpp - A model's files: package or .so -------------------===//
#include "ModelFiles.h"

#include "WrapperSource.h"
#include "ZipArchive.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace aoti::backend {

static std::string asText(const AlignedBytes &B) {
  return std::string(reinterpret_cast<const char *>(B.data()), B.size());
}

namespace {

constexpr std::string_view ModelFolder = "data/aotinductor/model/";
/// Where package_constants_on_disk_format="pickle_weights" puts the weights.
constexpr std::string_view PickledWeightsFolder = "data/weights/";

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
  const zip_uint64_t N = Zip.size();
  for (zip_uint64_t I = 0; I < N; ++I) {
    const char *Raw = Zip.name(I);
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
    Entries.push_back({I, std::string(File)});
  }

  const Entry *So = nullptr;
  for (const Entry &E : Entries)
    if (E.Name.ends_with(".so")) {
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
    const bool IsSo = &E == So, IsCubin = E.Name.ends_with(".cubin");
    const bool IsMeta = E.Name == Stem + "_metadata.json";
    const bool IsBlob = E.Name == Stem + "_weights.blob";
    const bool IsSource = E.Name == Stem + ".cpp";
    const bool IsKernels = E.Name.ends_with(".kernel.cpp");
    if (!IsSo && !IsCubin && !IsMeta && !IsBlob && !IsSource && !IsKernels)
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
    } else if (IsKernels) {
      if (std::optional<int> Threads = kernelThreadCount(asText(*Bytes)))
        M.KernelThreads = std::max(M.KernelThreads.value_or(0), *Threads);
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
                                      const SideFiles &Side) {
  ModelFiles M;
  M.SoPath = Path;
  const std::string Stem = Path.ends_with(".so") ? Path.substr(0, Path.size() - 3) : Path;
  std::error_code EC;
  if (fs::exists(Stem + "_metadata.json", EC))
    if (Expected<AlignedBytes> B = readFile(Stem + "_metadata.json"))
      M.Metadata = asText(*B);
  if (fs::exists(Stem + ".cpp", EC))
    if (Expected<AlignedBytes> B = readFile(Stem + ".cpp"))
      M.WrapperSource = asText(*B);

  std::string Blob;
  if (Side.WeightsPath)
    Blob = *Side.WeightsPath;
  else if (fs::exists(Stem + "_weights.blob", EC))
    Blob = Stem + "_weights.blob";
  if (!Blob.empty()) {
    Expected<AlignedBytes> B = readFile(Blob);
    if (!B)
      return Error(ErrorKind::Weights, "weights blob " + B.error().message());
    M.WeightsPath = Blob;
    M.Weights = std::move(*B);
  }
  if (Side.CubinDir)
    M.CubinDir = *Side.CubinDir;
  else
    M.CubinDir = fs::path(Path).parent_path().string();
  if (M.CubinDir.empty())
    M.CubinDir = ".";
  return M;
}

} // namespace aoti::backend
