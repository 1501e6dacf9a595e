//===- ModelFiles.cpp - A model's files: package or .so -------------------===//
#include "ModelFiles.h"

#include "WrapperSource.h"

#include "aoti/audit/Pt2Archive.h"
#include "aoti/backend/Model.h"

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

Status writeBytes(const std::string &Path, const AlignedBytes &B) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(reinterpret_cast<const char *>(B.data()), static_cast<std::streamsize>(B.size()));
  Out.close();
  if (!Out)
    return Error(ErrorKind::Io, Path + ": cannot write");
  return Status::success();
}

} // namespace

/// An audit error (the package reader's) as the backend's.
static Error fromAudit(llvm::Error E, ErrorKind Kind) {
  return Error(Kind, llvm::toString(std::move(E)));
}

Expected<std::vector<PackageModel>> listPackageModels(const std::string &Path) {
  auto A = audit::Pt2Archive::open(Path);
  if (!A)
    return fromAudit(A.takeError(), ErrorKind::NotAModel);
  std::vector<PackageModel> Out;
  for (const audit::Pt2Archive::Model &M : (*A)->models())
    if (M.Library != audit::Pt2Archive::Model::npos)
      Out.push_back({M.Name, (*A)->members()[M.Library].Name});
  if (Out.empty())
    return Error(ErrorKind::NotAModel,
                 Path + ": a zip without a data/aotinductor/<model>/*.so: not an "
                        "AOTInductor package");
  return Out;
}

/// Which model of A to open: Name when given; else torch's default "model",
/// or the package's only model when it has one by another name.
static Expected<const audit::Pt2Archive::Model *>
chooseModel(const audit::Pt2Archive &A, const std::optional<std::string> &Name) {
  const std::string &Path = A.path();
  if (A.models().empty())
    return Error(ErrorKind::NotAModel,
                 Path + ": a zip without a data/aotinductor/<model>/*.so: not an "
                        "AOTInductor package");
  const audit::Pt2Archive::Model *M = nullptr;
  if (Name) {
    M = A.model(*Name);
    if (!M)
      return Error(ErrorKind::InvalidArgument, Path + ": no model named " + *Name +
                                                   "; the package holds " + A.modelNames());
  } else if ((M = A.model(audit::Pt2DefaultModel)) == nullptr) {
    if (A.models().size() != 1)
      return Error(ErrorKind::InvalidArgument,
                   Path + ": holds " + std::to_string(A.models().size()) +
                       " models and none named model; name one (aoti-run --model NAME): " +
                       A.modelNames());
    M = &A.models().front();
  }
  if (M->Libraries.empty())
    return Error(ErrorKind::NotAModel, Path + ": " + M->Folder +
                                           " holds no .so: not an AOTInductor package");
  if (M->Libraries.size() > 1)
    return Error(ErrorKind::NotAModel,
                 Path + ": " + M->Folder + " holds more than one .so (" +
                     M->fileName(A, M->Libraries[0]).str() + ", " +
                     M->fileName(A, M->Libraries[1]).str() + ")");
  return M;
}

Expected<ModelFiles> openPackage(const std::string &Path,
                                 const std::optional<std::string> &ModelName) {
  auto Opened = audit::Pt2Archive::open(Path);
  if (!Opened)
    return fromAudit(Opened.takeError(), ErrorKind::NotAModel);
  const audit::Pt2Archive &A = **Opened;
  Expected<const audit::Pt2Archive::Model *> Chosen = chooseModel(A, ModelName);
  if (!Chosen)
    return Chosen.takeError();
  const audit::Pt2Archive::Model &Folder = **Chosen;

  ModelFiles M;
  M.ModelName = Folder.Name;
  M.PickledWeights = A.hasPickledWeights();
  const std::string SoName = Folder.fileName(A, Folder.Library).str();
  const std::string Stem = SoName.substr(0, SoName.size() - 3);
  // What goes to disk (the library and its cubins), named by its content.
  std::vector<std::pair<std::string, AlignedBytes>> ToDisk;
  llvm::SmallString<0> Identity;
  for (size_t File : Folder.Files) {
    const audit::Pt2Archive::Member &E = A.members()[File];
    const std::string Name = Folder.fileName(A, File).str();
    const bool IsSo = File == Folder.Library, IsCubin = Name.ends_with(".cubin");
    const bool IsMeta = Name == Stem + "_metadata.json";
    const bool IsBlob = Name == Stem + "_weights.blob";
    const bool IsSource = Name == Stem + ".cpp";
    const bool IsKernels = Name.ends_with(".kernel.cpp");
    if (!IsSo && !IsCubin && !IsMeta && !IsBlob && !IsSource && !IsKernels)
      continue;
    AlignedBytes Bytes(E.Size);
    if (E.Size && !Bytes.data())
      return Error(ErrorKind::Io, A.displayName(E) + ": out of memory for " +
                                      std::to_string(E.Size) + " bytes");
    if (llvm::Error Err = A.readInto(
            E, llvm::MutableArrayRef<char>(reinterpret_cast<char *>(Bytes.data()), E.Size)))
      return fromAudit(std::move(Err), ErrorKind::BadFile);
    if (IsSo || IsCubin) {
      const llvm::XXH128_hash_t H = llvm::xxh3_128bits(
          llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
      Identity += Name;
      Identity += '\0';
      Identity += llvm::utohexstr(H.high64, true, 16) + llvm::utohexstr(H.low64, true, 16) + "\n";
      ToDisk.emplace_back(Name, std::move(Bytes));
    } else if (IsMeta) {
      M.Metadata = asText(Bytes);
    } else if (IsSource) {
      M.WrapperSource = asText(Bytes);
    } else if (IsKernels) {
      if (std::optional<int> Threads = kernelThreadCount(asText(Bytes)))
        M.KernelThreads = std::max(M.KernelThreads.value_or(0), *Threads);
    } else {
      M.WeightsPath = A.displayName(E);
      M.Weights = std::move(Bytes);
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
  M.SoPath = Root + "/" + SoName;
  M.CubinDir = Root;
  if (Fresh) // else a live model of the same package wrote them there
    for (const auto &[Name, Bytes] : ToDisk)
      if (Status S = writeBytes(Root + "/" + Name, Bytes); !S)
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
