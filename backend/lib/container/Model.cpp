//===- Model.cpp - Loading and running AOTInductor models -----------------===//
//
// The order of loading matters and is the point of this file:
//
//   1. find the model's files (package or .so) and its device;
//   2. read its undefined dynamic symbols and check each against this
//      process, so that one error names them all;
//   3. dlopen(RTLD_NOW | RTLD_LOCAL): binding is complete before any code of
//      the model runs past its static initialisers;
//   4. create the container, read what it declares, then make sure its
//      weights are there and load the weights blob;
//   5. copy its buffers (constants of kind Buffer) as loaded, for
//      resetState(): a run updates them in place in the container's own
//      storage (a KV cache, a counter), so they persist from run to run and
//      only these copies remember where they started. resetState() hands
//      them back through UpdateConstantBuffer, which copies each into that
//      storage.
//
// Where a model's weights are. AOTInductor links a constants section into
// every model (_binary_constants_bin_start.._end, model_base.h), and the
// export options decide what it holds (codecache.py, cpp_wrapper_cpu.py):
//
//   package_constants_in_so=True (the default): the weights themselves, at
//     least the sum of the data sizes of the non-folded constants; the model
//     loads them when the container is created. GetConstantsBlobSize fails
//     (weights are not mmap'd).
//   package_constants_on_disk_format="binary_blob": 8 bytes, the size of the
//     <stem>_weights.blob the model reads through UpdateConstantsFromBlob;
//     GetConstantsBlobSize returns it.
//   weights over 2 GB with package_constants_in_so=True: appended to the .so
//     and mmap'd by the model; 16 bytes (their size + 8, a magic number), and
//     GetConstantsBlobSize returns size + 8, but the model reads no blob.
//   package_constants_in_so=False and no on-disk format (or "pickle_weights",
//     which only torch's Python loader reads): 1 byte (0 when the section is
//     built from C++), GetConstantsBlobSize fails, and the container is
//     created without any constant. Its run dereferences null constants: an
//     illegal memory access on CUDA, a failed shim call on the CPU.
//
// So a model that expects no blob, whose constants section is shorter than
// the data its non-folded constants need, holds no weights, and is refused
// before anything runs. (A model whose only constant is one byte and
// exported without weights cannot be told apart from one that holds it.)
//
// Everything after that goes through the container entry points and the
// aoti_torch_* shims; a model reports failures by printing to stderr and
// returning non-zero, so stderr is captured around the calls that can fail.
//
//===----------------------------------------------------------------------===//
#include "aoti/backend/Model.h"

#include "CpuIsa.h"
#include "CudaModules.h"
#include "DynamicImports.h"
#include "package/EmbeddedConstants.h"
#include "package/JsonCursor.h"
#include "package/ModelFiles.h"
#include "process/StderrCapture.h"
#include "package/WrapperSource.h"

#include <aoti/shim.h>

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <map>
#include <unordered_map>

namespace aoti::backend {

const char *toString(ErrorKind K) {
  switch (K) {
  case ErrorKind::InvalidArgument: return "invalid argument";
  case ErrorKind::BadFile: return "bad file";
  case ErrorKind::NotAModel: return "not an AOTInductor model";
  case ErrorKind::DeviceMismatch: return "device mismatch";
  case ErrorKind::MissingSymbols: return "missing symbols";
  case ErrorKind::Weights: return "weights";
  case ErrorKind::LoadFailed: return "load failed";
  case ErrorKind::RunFailed: return "run failed";
  case ErrorKind::Io: return "i/o";
  }
  return "error";
}

// --- Devices -------------------------------------------------------------

Expected<Device> Device::parse(const std::string &Text) {
  if (Text == "cpu")
    return Device{DeviceType::CPU, 0};
  if (Text == "cuda")
    return Device{DeviceType::CUDA, 0};
  if (Text.rfind("cuda:", 0) == 0 && Text.size() > 5 && Text.size() < 9 &&
      std::all_of(Text.begin() + 5, Text.end(), [](char C) { return C >= '0' && C <= '9'; }))
    return Device{DeviceType::CUDA, std::atoi(Text.c_str() + 5)};
  return Error(ErrorKind::InvalidArgument,
               "bad device '" + Text + "' (expected cpu, cuda or cuda:N)");
}

std::string Device::str() const {
  return Type == DeviceType::CPU ? "cpu" : "cuda:" + std::to_string(Index);
}

// --- Tensor handles ----------------------------------------------------------

TensorHandle &TensorHandle::operator=(TensorHandle &&O) noexcept {
  if (this != &O) {
    reset();
    H = O.release();
  }
  return *this;
}

void TensorHandle::reset() {
  if (H)
    aoti_torch_delete_tensor_object(H);
  H = nullptr;
}

static std::string shimError(const char *What) {
  std::string Msg = What;
  const char *Detail = aoti_shims_last_error();
  if (Detail && *Detail)
    Msg += std::string(": ") + Detail;
  return Msg;
}

Expected<TensorSpec> TensorHandle::describe(std::string Name) const {
  int32_t Code = 0;
  int64_t Dim = 0, *Sizes = nullptr;
  if (aoti_torch_get_dtype(H, &Code) != 0 || aoti_torch_get_dim(H, &Dim) != 0 ||
      aoti_torch_get_sizes(H, &Sizes) != 0)
    return Error(ErrorKind::RunFailed, shimError("cannot describe a tensor"));
  TensorSpec S{std::move(Name), dtypeFromCode(Code), std::vector<int64_t>(Sizes, Sizes + Dim)};
  return S;
}

// --- The container ABI ---------------------------------------------------------

namespace {

/// The CPUs this process may run on (its affinity mask), 0 if unknown.
int availableCpus() {
  cpu_set_t Mask;
  CPU_ZERO(&Mask);
  if (sched_getaffinity(0, sizeof Mask, &Mask) != 0)
    return 0;
  return CPU_COUNT(&Mask);
}

struct ContainerOpaque;
using ContainerHandle = ContainerOpaque *;
using RuntimeError = int32_t;

/// Calls a model entry point. A model is C++ behind a C ABI; an exception
/// that escapes one (the generated wrappers catch theirs, a hand-written or
/// broken model may not) stops here as an error code and a message instead
/// of unwinding through the runner.
/// Calls into the model: what it throws is caught here, and the CUDA modules
/// it loads meanwhile are recorded in Modules (CudaModules.h).
template <typename Fn>
RuntimeError callModel(std::vector<void *> &Modules, std::string &Thrown, Fn &&F) {
  detail::ModuleCapture Capture(Modules);
  try {
    return F();
  } catch (const std::exception &E) {
    Thrown = std::string("the model threw an exception: ") + E.what();
  } catch (...) {
    Thrown = "the model threw an exception of unknown type";
  }
  return 1;
}

/// "what it printed", "what it threw", or both, for an error message.
std::string joined(std::string Said, const std::string &Thrown) {
  if (!Thrown.empty())
    Said += (Said.empty() ? "" : "; ") + Thrown;
  return Said;
}

using CreateWithDeviceFn = RuntimeError (*)(ContainerHandle *, size_t, const char *, const char *);
using DeleteFn = RuntimeError (*)(ContainerHandle);
using RunFn = RuntimeError (*)(ContainerHandle, AtenTensorHandle *, size_t, AtenTensorHandle *,
                               size_t, void *, void *);
using CountFn = RuntimeError (*)(ContainerHandle, size_t *);
using NameFn = RuntimeError (*)(ContainerHandle, size_t, const char **);
using DTypeFn = RuntimeError (*)(ContainerHandle, size_t, int32_t *);
using DataSizeFn = RuntimeError (*)(ContainerHandle, size_t, size_t *);
using FlagFn = RuntimeError (*)(ContainerHandle, size_t, bool *);
using BlobSizeFn = RuntimeError (*)(ContainerHandle, uint64_t *);
using UpdateFromBlobFn = RuntimeError (*)(ContainerHandle, const uint8_t *);
using ConstantTypeFn = RuntimeError (*)(ContainerHandle, size_t, int32_t *);
/// AOTInductorConstantMapHandle: a std::unordered_map<std::string,
/// AtenTensorHandle>, which the container fills (ExtractConstantsMap, keyed
/// by original FQN) or reads (UpdateConstantBuffer, keyed by constant name),
/// the handles borrowed either way.
using ConstantMap = std::unordered_map<std::string, AtenTensorOpaque *>;
using ExtractConstantsFn = RuntimeError (*)(ContainerHandle, ConstantMap *, bool);
using UpdateConstantsFn = RuntimeError (*)(ContainerHandle, ConstantMap *, bool, bool);

constexpr const char *CreateSymbol = "AOTInductorModelContainerCreateWithDevice";

/// Makes Stream the current CUDA stream for the shims while alive, so their
/// stream-ordered allocations, copies and frees follow the model's work.
class StreamScope {
public:
  StreamScope(const Device &D, void *Stream) {
    if (D.Type == DeviceType::CUDA &&
        aoti_torch_create_cuda_stream_guard(Stream, D.Index, &Guard) != 0)
      Guard = nullptr;
  }
  ~StreamScope() {
    if (Guard)
      aoti_torch_delete_cuda_stream_guard(Guard);
  }
  StreamScope(const StreamScope &) = delete;
  StreamScope &operator=(const StreamScope &) = delete;

private:
  CUDAStreamGuardHandle Guard = nullptr;
};

std::string trimmed(std::string S) {
  while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
    S.pop_back();
  return S;
}

std::string describeMissing(const std::string &So,
                            const std::vector<UnresolvedSymbol> &Missing) {
  std::string Msg = So + " cannot be loaded: " + std::to_string(Missing.size()) +
                    (Missing.size() == 1 ? " symbol it needs is" : " symbols it needs are") +
                    " not defined in this process:";
  bool Shims = false, Cuda = false;
  std::string NewerLibc;
  for (const UnresolvedSymbol &S : Missing) {
    Msg += "\n  " + S.Name;
    if (!S.Version.empty())
      Msg += " (version " + S.Version + ")";
    Shims |= S.Name.rfind("aoti_torch_", 0) == 0;
    Cuda |= S.Name.rfind("cuda", 0) == 0;
    if (S.Version.rfind("GLIBC_", 0) == 0 && S.Version > NewerLibc)
      NewerLibc = S.Version;
  }
  if (Shims)
    Msg += "\nhint: the host must export the aoti_torch_* shims: link libaoti_shims.a with "
           "--whole-archive and --export-dynamic, or link libaoti_shims.so";
  if (Cuda)
    Msg += "\nhint: the host must provide the CUDA runtime in its global scope: link the "
           "shared libcudart.so (the model has no DT_NEEDED on it)";
  if (!NewerLibc.empty())
    Msg += "\nhint: the model was built against a newer C library (" + NewerLibc +
           ") than this system has";
  return Msg;
}

} // namespace

class Model::Impl {
public:
  ~Impl();

  Status load(const std::string &Path, const LoadOptions &Options);
  Status createContainer();
  Status loadWeights();
  Status requireEmbeddedConstants();
  void describe();
  /// Copies the buffers as loaded into InitialState (KeepInitialState).
  Status keepInitialState();

  template <typename Fn> Fn symbol(const char *Name) {
    return reinterpret_cast<Fn>(dlsym(Library, Name));
  }

  std::string Path;
  LoadOptions Options;
  ModelFiles Files;
  Device Dev;
  std::string CompiledFor;
  void *Library = nullptr;
  ContainerHandle Container = nullptr;
  /// The CUDA modules the container loaded, unloaded after it is deleted.
  std::vector<void *> Modules;

  CreateWithDeviceFn Create = nullptr;
  DeleteFn Delete = nullptr;
  RunFn Run = nullptr;
  CountFn NumInputs = nullptr, NumOutputs = nullptr;
  NameFn InputName = nullptr, OutputName = nullptr;

  std::vector<TensorSpec> Inputs;
  std::vector<std::string> OutputNames;
  std::vector<TensorSpec> OutputSpecs; // names; dtype and shape once run
  std::vector<ConstantInfo> Constants;
  /// The buffers as loaded, by constant name, for resetState().
  std::vector<std::pair<std::string, TensorHandle>> InitialState;
  bool StateKept = false;
  uint64_t BlobSize = 0;
  std::vector<std::string> Notes;
};

Model::Impl::~Impl() {
  if (Container && Delete) {
    std::string Thrown;
    callModel(Modules, Thrown, [&] { return Delete(Container); });
  }
  // Its kernels died with the container; without this every load/unload
  // cycle would leave them in the driver.
  detail::unloadModules(Modules);
  if (Library)
    dlclose(Library);
}

Status Model::Impl::load(const std::string &P, const LoadOptions &O) {
  Path = P;
  Options = O;
  Expected<FileFormat> Format = sniff(Path);
  if (!Format)
    return Format.takeError();
  if (*Format == FileFormat::Other)
    return Error(ErrorKind::NotAModel,
                 Path + ": not an AOTInductor model (neither a .pt2 package nor an ELF .so)");
  Expected<ModelFiles> F =
      *Format == FileFormat::Zip
          ? openPackage(Path, Options.ModelName)
          : openSharedObject(Path, {Options.WeightsPath, Options.CubinDir});
  if (!F)
    return F.takeError();
  Files = std::move(*F);

  // The device: what was asked for must be what the model was compiled for.
  if (std::optional<std::string> Key = jsonStringField(Files.Metadata, "AOTI_DEVICE_KEY"))
    CompiledFor = *Key;
  if (Options.TargetDevice) {
    Dev = *Options.TargetDevice;
  } else {
    Dev = CompiledFor == "cpu" ? Device{DeviceType::CPU, 0} : Device{DeviceType::CUDA, 0};
  }
  const std::string Asked = Dev.Type == DeviceType::CPU ? "cpu" : "cuda";
  if (!CompiledFor.empty() && CompiledFor != Asked)
    return Error(ErrorKind::DeviceMismatch,
                 Path + ": the model was compiled for " + CompiledFor + " and cannot run on " +
                     Dev.str());

  // A CPU model's kernels use the vector instructions of the CPU it was
  // exported on: without them it would die of SIGILL in its first kernel.
  // Scalar kernels run anywhere, but on a CPU with AVX2 they are most often
  // not what the user chose: torch's ISA probe fails for a LibTorch-free
  // export and compiles it scalar (docs/shims.md, "Vectorized CPU models").
  if (Dev.Type == DeviceType::CPU)
    if (std::optional<std::string> Isa = jsonStringField(Files.Metadata, "AOTI_CPU_ISA")) {
      const std::set<std::string> Host = hostCpuFeatures();
      if (*Isa == "INVALID_VEC_ISA" && Host.count("avx2"))
        Notes.push_back(
            "the model's CPU kernels are scalar (AOTI_CPU_ISA: INVALID_VEC_ISA) and this "
            "CPU has AVX2: torch compiles a package exported with "
            "aot_inductor.link_libtorch=False scalar unless told otherwise; export it with "
            "inductor_configs={\"cpp.vec_isa_ok\": True} for vectorized kernels (they "
            "import SLEEF's Sleef_* functions, which the shims provide; docs/shims.md, "
            "\"Vectorized CPU models\")");
      std::vector<std::string> Missing = missingCpuFeatures(*Isa, Host);
      if (!Missing.empty()) {
        std::string List;
        for (const std::string &Feature : Missing)
          List += (List.empty() ? "" : ", ") + Feature;
        return Error(ErrorKind::DeviceMismatch,
                     Path + ": the model's CPU kernels were compiled for " + *Isa +
                         " (AOTI_CPU_ISA) and this CPU lacks " + List +
                         "; export it on a CPU like this one (inductor compiles a CPU "
                         "model for the exporting machine's CPU: -march=native and that "
                         "instruction set)");
      }
    }

  // Inductor writes the exporting process's thread count into every
  // parallel region of a CPU model's kernels. More threads than this process
  // may run on and every region waits on descheduled threads at its barrier.
  if (Dev.Type == DeviceType::CPU && Files.KernelThreads)
    if (const int Cpus = availableCpus(); Cpus > 0 && *Files.KernelThreads > Cpus)
      Notes.push_back(
          "the model's CPU kernels run on " + std::to_string(*Files.KernelThreads) +
          " threads each (num_threads(" + std::to_string(*Files.KernelThreads) +
          ") in its generated kernels: torch.get_num_threads() where it was exported) and "
          "this process may run on " + std::to_string(Cpus) +
          " CPUs: they oversubscribe them; export it with torch.set_num_threads(" +
          std::to_string(Cpus) + ") (or the count it will have) before compiling");

  // What it needs from us, before dlopen gets a chance to fail on the first.
  Expected<DynamicImports> Imports = readDynamicImports(Files.SoPath);
  if (!Imports)
    return Imports.takeError();
  if (std::find(Imports->Exports.begin(), Imports->Exports.end(), CreateSymbol) ==
      Imports->Exports.end())
    return Error(ErrorKind::NotAModel, Path + ": defines no " + std::string(CreateSymbol) +
                                           ": not an AOTInductor model");
  if (Options.PrecheckSymbols) {
    std::vector<UnresolvedSymbol> Missing = findUnresolved(*Imports);
    if (!Missing.empty())
      return Error(ErrorKind::MissingSymbols, describeMissing(Path, Missing));
  }

  // The generated code reads this once, at its first run.
  if (Options.CheckInputs)
    setenv("AOTI_RUNTIME_CHECK_INPUTS", "1", /*overwrite=*/0);

  Library = dlopen(Files.SoPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    const char *Why = dlerror();
    return Error(ErrorKind::LoadFailed, Path + ": dlopen failed: " + (Why ? Why : "unknown error"));
  }
  Create = symbol<CreateWithDeviceFn>(CreateSymbol);
  Delete = symbol<DeleteFn>("AOTInductorModelContainerDelete");
  Run = symbol<RunFn>(Options.SingleThreaded ? "AOTInductorModelContainerRunSingleThreaded"
                                             : "AOTInductorModelContainerRun");
  if (!Run && Options.SingleThreaded)
    Run = symbol<RunFn>("AOTInductorModelContainerRun");
  NumInputs = symbol<CountFn>("AOTInductorModelContainerGetNumInputs");
  NumOutputs = symbol<CountFn>("AOTInductorModelContainerGetNumOutputs");
  InputName = symbol<NameFn>("AOTInductorModelContainerGetInputName");
  OutputName = symbol<NameFn>("AOTInductorModelContainerGetOutputName");
  if (!Create || !Delete || !Run || !NumInputs || !NumOutputs)
    return Error(ErrorKind::NotAModel,
                 Path + ": lacks the AOTInductor container entry points (Delete, Run, "
                        "GetNumInputs, GetNumOutputs)");
  if (Status S = createContainer(); !S)
    return S;
  describe();
  if (Status S = loadWeights(); !S)
    return S;
  return Options.KeepInitialState ? keepInitialState() : Status::success();
}

Status Model::Impl::keepInitialState() {
  std::vector<const ConstantInfo *> Buffers;
  for (const ConstantInfo &C : Constants)
    if (C.Kind == ConstantKind::Buffer && !C.FromFolded)
      Buffers.push_back(&C);
  auto Extract = symbol<ExtractConstantsFn>("AOTInductorModelContainerExtractConstantsMap");
  if (Buffers.empty() || !Extract || !symbol<UpdateConstantsFn>(
                                          "AOTInductorModelContainerUpdateConstantBuffer"))
    return Status::success(); // resetState() says why it cannot
  ConstantMap Live;
  std::string Thrown;
  if (callModel(Modules, Thrown, [&] { return Extract(Container, &Live, false); }) != 0)
    return Error(ErrorKind::LoadFailed,
                 Path + ": cannot read the model's buffers (ExtractConstantsMap)" +
                     (Thrown.empty() ? "" : ": " + Thrown));
  StreamScope Scope(Dev, nullptr);
  for (const ConstantInfo *C : Buffers) {
    auto It = Live.find(C->OriginalFQN.empty() ? C->Name : C->OriginalFQN);
    if (It == Live.end())
      return Error(ErrorKind::LoadFailed,
                   Path + ": the model lists buffer " + C->Name + " but does not hold it");
    AtenTensorOpaque *Copy = nullptr;
    if (aoti_torch_clone(It->second, &Copy) != 0)
      return Error(ErrorKind::LoadFailed,
                   Path + ": cannot copy buffer " + C->Name + ": " + shimError("clone"));
    InitialState.emplace_back(C->Name, TensorHandle(Copy));
  }
  StateKept = true;
  return Status::success();
}

Status Model::Impl::createContainer() {
  StderrCapture Capture;
  const std::string DeviceText = Dev.str();
  std::string Thrown;
  RuntimeError E = callModel(Modules, Thrown, [&] {
    return Create(&Container, Options.NumModels, DeviceText.c_str(),
                  Files.CubinDir.empty() ? nullptr : Files.CubinDir.c_str());
  });
  std::string Said = joined(trimmed(Capture.finish()), Thrown);
  if (E != 0 || !Container) {
    Container = nullptr;
    return Error(ErrorKind::LoadFailed,
                 Path + ": creating the model container on " + DeviceText + " failed" +
                     (Said.empty() ? "" : ": " + Said));
  }
  if (!Said.empty())
    Notes.push_back(Said);
  return Status::success();
}

Status Model::Impl::loadWeights() {
  auto BlobSizeOf = symbol<BlobSizeFn>("AOTInductorModelContainerGetConstantsBlobSize");
  auto Update = symbol<UpdateFromBlobFn>("AOTInductorModelUpdateConstantsFromBlob");
  // A model whose weights are not mmap'd throws from GetConstantsBlobSize
  // ("constant blob size is only available for mmap'd weights") and prints
  // that: it only means there is no blob to ask for, so it is not shown.
  bool SizeKnown = false;
  if (BlobSizeOf) {
    StderrCapture Quiet;
    std::string Thrown;
    SizeKnown = callModel(Modules, Thrown, [&] { return BlobSizeOf(Container, &BlobSize); }) == 0;
    Quiet.finish();
  }
  if (!SizeKnown)
    BlobSize = 0;
  const size_t Have = Files.Weights ? Files.Weights->size() : 0;
  // Weights appended to the .so and mmap'd by the model (USE_MMAP_SELF)
  // also report a blob size, but their section is 16 bytes (size and magic)
  // where an external blob's is 8: the model has them, and reads no blob.
  if (SizeKnown && BlobSize > 0 && embeddedConstantsSize(Files.SoPath) == 16u) {
    if (Files.Weights)
      Notes.push_back(Files.WeightsPath + " is not used: the model's weights are appended "
                      "to its .so");
    BlobSize = 0;
    return Status::success();
  }
  if (SizeKnown && BlobSize > 0) {
    if (!Files.Weights)
      return Error(ErrorKind::Weights,
                   Path + ": the model needs a weights blob of " + std::to_string(BlobSize) +
                       " bytes and none was found (give it with the weights option, or put "
                       "<stem>_weights.blob beside the .so)");
    if (Have < BlobSize)
      return Error(ErrorKind::Weights, Files.WeightsPath + " is " + std::to_string(Have) +
                                           " bytes; the model needs " +
                                           std::to_string(BlobSize) + " (short or wrong blob)");
    if (Have > BlobSize)
      Notes.push_back(Files.WeightsPath + " is " + std::to_string(Have) +
                      " bytes, more than the " + std::to_string(BlobSize) +
                      " the model reads");
  } else if (Status S = requireEmbeddedConstants(); !S) {
    return S;
  }
  if (!Files.Weights || Have == 0 || (SizeKnown && BlobSize == 0))
    return Status::success();
  if (!Update)
    return Error(ErrorKind::Weights,
                 Path + ": has a weights blob but no AOTInductorModelUpdateConstantsFromBlob");
  StderrCapture Capture;
  std::string Thrown;
  RuntimeError E = callModel(Modules, Thrown, [&] {
    return Update(Container, reinterpret_cast<const uint8_t *>(Files.Weights->data()));
  });
  std::string Said = joined(trimmed(Capture.finish()), Thrown);
  if (E != 0)
    return Error(ErrorKind::Weights, Path + ": loading the weights blob " + Files.WeightsPath +
                                         " failed" + (Said.empty() ? "" : ": " + Said));
  if (!Said.empty())
    Notes.push_back(Said);
  return Status::success();
}

/// For a model that reads no weights blob: its constants must be in its .so.
Status Model::Impl::requireEmbeddedConstants() {
  std::vector<const ConstantInfo *> Needed;
  uint64_t NeededBytes = 0;
  for (const ConstantInfo &C : Constants)
    if (!C.FromFolded && C.DataSize > 0) {
      Needed.push_back(&C);
      NeededBytes += C.DataSize;
    }
  if (Needed.empty())
    return Status::success();
  const std::optional<uint64_t> Embedded = embeddedConstantsSize(Files.SoPath);
  if (!Embedded) {
    Notes.push_back(Path + ": cannot tell whether the model holds its " +
                    std::to_string(Needed.size()) +
                    " constants (its .so defines no _binary_constants_bin_start/_end)");
    return Status::success();
  }
  if (*Embedded >= NeededBytes)
    return Status::success();

  constexpr size_t Named = 5;
  std::string Names;
  for (size_t I = 0; I < Needed.size() && I < Named; ++I)
    Names += (I ? ", " : "") +
             (Needed[I]->OriginalFQN.empty() ? Needed[I]->Name : Needed[I]->OriginalFQN);
  if (Needed.size() > Named)
    Names += ", and " + std::to_string(Needed.size() - Named) + " more";
  std::string Msg = Path + ": the model's weights are missing: " +
                    std::to_string(Needed.size()) + " constant" +
                    (Needed.size() == 1 ? "" : "s") + " (" + std::to_string(NeededBytes) +
                    " bytes) " + (Needed.size() == 1 ? "is" : "are") +
                    " neither in its .so nor in a weights blob: " + Names + ".";
  if (Files.PickledWeights)
    Msg += "\nThe package holds them pickled under data/weights/ "
           "(package_constants_on_disk_format=\"pickle_weights\"), which only torch's "
           "Python loader reads.";
  else
    Msg += "\nIt was exported with aot_inductor.package_constants_in_so=False and no "
           "on-disk weights.";
  if (Files.Weights)
    Msg += "\nThe weights blob " + Files.WeightsPath +
           " cannot stand in: this model reads no blob.";
  Msg += "\nhint: export it again with aot_inductor.package_constants_in_so=True (the weights "
         "inside the .so), or with aot_inductor.package_constants_on_disk_format="
         "\"binary_blob\" (a weights blob in the package)";
  return Error(ErrorKind::Weights, Msg);
}

void Model::Impl::describe() {
  size_t NIn = 0, NOut = 0;
  NumInputs(Container, &NIn);
  NumOutputs(Container, &NOut);
  std::vector<TensorSpec> Declared = declaredInputs(Files.WrapperSource);
  if (Declared.size() != NIn)
    Declared.assign(NIn, TensorSpec{});
  for (size_t I = 0; I < NIn; ++I) {
    const char *Name = nullptr;
    if (!InputName || InputName(Container, I, &Name) != 0 || !Name)
      Name = "";
    Declared[I].Name = *Name ? Name : "input" + std::to_string(I);
  }
  Inputs = std::move(Declared);
  for (size_t I = 0; I < NOut; ++I) {
    const char *Name = nullptr;
    if (!OutputName || OutputName(Container, I, &Name) != 0 || !Name || !*Name)
      OutputNames.push_back("output" + std::to_string(I));
    else
      OutputNames.emplace_back(Name);
    OutputSpecs.push_back(TensorSpec{OutputNames.back(), std::nullopt, std::nullopt});
  }

  auto NumConstants = symbol<CountFn>("AOTInductorModelContainerGetNumConstants");
  auto ConstantName = symbol<NameFn>("AOTInductorModelContainerGetConstantName");
  auto ConstantFQN = symbol<NameFn>("AOTInductorModelContainerGetConstantOriginalFQN");
  auto ConstantDType = symbol<DTypeFn>("AOTInductorModelContainerGetConstantDtype");
  auto ConstantSize = symbol<DataSizeFn>("AOTInductorModelContainerGetConstantDataSize");
  auto ConstantFolded = symbol<FlagFn>("AOTInductorModelContainerGetConstantFromFolded");
  auto ConstantType = symbol<ConstantTypeFn>("AOTInductorModelContainerGetConstantType");
  size_t NC = 0;
  if (!NumConstants || NumConstants(Container, &NC) != 0)
    return;
  for (size_t I = 0; I < NC; ++I) {
    ConstantInfo C;
    const char *S = nullptr;
    if (ConstantName && ConstantName(Container, I, &S) == 0 && S)
      C.Name = S;
    if (ConstantFQN && ConstantFQN(Container, I, &S) == 0 && S)
      C.OriginalFQN = S;
    int32_t Code = 0;
    if (ConstantDType && ConstantDType(Container, I, &Code) == 0)
      C.Type = dtypeFromCode(Code);
    if (ConstantSize)
      ConstantSize(Container, I, &C.DataSize);
    bool Folded = false;
    if (ConstantFolded && ConstantFolded(Container, I, &Folded) == 0)
      C.FromFolded = Folded;
    int32_t Kind = 0;
    if (ConstantType && ConstantType(Container, I, &Kind) == 0 && Kind >= 0 && Kind <= 4)
      C.Kind = static_cast<ConstantKind>(Kind);
    Constants.push_back(std::move(C));
  }
}

// --- Model -------------------------------------------------------------------

Model::Model(std::unique_ptr<Impl> I) : P(std::move(I)) {}
Model::~Model() = default;

Expected<std::unique_ptr<Model>> Model::load(const std::string &Path,
                                             const LoadOptions &Options) {
  auto I = std::make_unique<Impl>();
  if (Status S = I->load(Path, Options); !S)
    return S.takeError();
  if (Options.Seed)
    aoti_shims_manual_seed(*Options.Seed);
  return std::unique_ptr<Model>(new Model(std::move(I)));
}

const std::string &Model::path() const { return P->Path; }

Status Model::resetState() {
  Impl &M = *P;
  if (!M.StateKept) {
    bool HasBuffers = false;
    for (const ConstantInfo &C : M.Constants)
      HasBuffers |= C.Kind == ConstantKind::Buffer && !C.FromFolded;
    if (!HasBuffers)
      return Status::success();
    return Error(ErrorKind::InvalidArgument,
                 M.Path + (M.Options.KeepInitialState
                               ? ": the model does not export ExtractConstantsMap and "
                                 "UpdateConstantBuffer, so its buffers cannot be reset"
                               : ": loaded without LoadOptions::KeepInitialState, so its "
                                 "buffers' first values are gone"));
  }
  if (M.InitialState.empty())
    return Status::success();
  // The container copies each tensor given into its own buffer's storage.
  ConstantMap Values;
  for (const auto &[Name, T] : M.InitialState)
    Values.emplace(Name, T.get());
  auto Update = M.symbol<UpdateConstantsFn>("AOTInductorModelContainerUpdateConstantBuffer");
  std::string Thrown;
  StreamScope Scope(M.Dev, nullptr);
  if (callModel(M.Modules, Thrown, [&] { return Update(M.Container, &Values, false, false); }) !=
      0)
    return Error(ErrorKind::RunFailed, M.Path + ": cannot reset the model's buffers" +
                                           (Thrown.empty() ? "" : ": " + Thrown));
  return Status::success();
}

std::vector<std::string> Model::stateNames() const {
  std::vector<std::string> Names;
  for (const ConstantInfo &C : P->Constants)
    if (C.Kind == ConstantKind::Buffer && !C.FromFolded)
      Names.push_back(C.Name);
  return Names;
}
const std::string &Model::modelName() const { return P->Files.ModelName; }
Device Model::device() const { return P->Dev; }
const std::string &Model::compiledForDevice() const { return P->CompiledFor; }
const std::vector<TensorSpec> &Model::inputs() const { return P->Inputs; }
const std::vector<std::string> &Model::outputNames() const { return P->OutputNames; }
const std::vector<TensorSpec> &Model::outputs() const { return P->OutputSpecs; }
const std::vector<ConstantInfo> &Model::constants() const { return P->Constants; }
uint64_t Model::constantsBlobSize() const { return P->BlobSize; }
const std::string &Model::weightsPath() const { return P->Files.WeightsPath; }
const std::vector<std::string> &Model::notes() const { return P->Notes; }

static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &Shape) {
  std::vector<int64_t> Strides(Shape.size());
  int64_t S = 1;
  for (size_t I = Shape.size(); I-- > 0;) {
    Strides[I] = S;
    S *= std::max<int64_t>(Shape[I], 1);
  }
  return Strides;
}

Expected<DeviceInputs> Model::upload(const std::vector<HostTensor> &Inputs, void *Stream) {
  const std::vector<TensorSpec> &Specs = P->Inputs;
  if (Inputs.size() != Specs.size()) {
    std::string Names;
    for (const TensorSpec &S : Specs)
      Names += (Names.empty() ? "" : ", ") + S.Name;
    return Error(ErrorKind::InvalidArgument,
                 "the model takes " + std::to_string(Specs.size()) + " input" +
                     (Specs.size() == 1 ? "" : "s") + (Names.empty() ? "" : " (" + Names + ")") +
                     ", got " + std::to_string(Inputs.size()));
  }
  const int32_t DevType = P->Dev.Type == DeviceType::CUDA ? aoti_torch_device_type_cuda()
                                                           : aoti_torch_device_type_cpu();
  StreamScope Scope(P->Dev, Stream);
  DeviceInputs Out;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const HostTensor *Src = &Inputs[I];
    std::optional<HostTensor> Converted;
    if (Specs[I].Type && *Specs[I].Type != Src->Type && isFloatingPoint(*Specs[I].Type) &&
        isFloatingPoint(Src->Type)) {
      Expected<HostTensor> C = convert(*Src, *Specs[I].Type);
      if (!C)
        return C.takeError();
      Converted = std::move(*C);
      Src = &*Converted;
    }
    const std::vector<int64_t> Strides = contiguousStrides(Src->Shape);
    const auto NDim = static_cast<int64_t>(Src->Shape.size());
    const auto Code = static_cast<int32_t>(Src->Type);
    AtenTensorHandle Dev = nullptr, Host = nullptr;
    if (aoti_torch_empty_strided(NDim, Src->Shape.data(), Strides.data(), Code, DevType,
                                 P->Dev.Index, &Dev) != 0)
      return Error(ErrorKind::RunFailed,
                   shimError(("cannot allocate input " + Specs[I].Name + " on " + P->Dev.str()).c_str()));
    TensorHandle Owned(Dev);
    if (Src->numel() > 0) {
      if (aoti_torch_create_tensor_from_blob(const_cast<std::byte *>(Src->Data.data()), NDim,
                                             Src->Shape.data(), Strides.data(), 0, Code,
                                             aoti_torch_device_type_cpu(), 0, &Host) != 0)
        return Error(ErrorKind::RunFailed, shimError("cannot wrap host input data"));
      TensorHandle HostOwned(Host);
      if (aoti_torch_copy_(Dev, Host, /*non_blocking=*/0) != 0)
        return Error(ErrorKind::RunFailed,
                     shimError(("cannot copy input " + Specs[I].Name + " to " + P->Dev.str()).c_str()));
    }
    Out.Tensors.push_back(std::move(Owned));
  }
  return Out;
}

Expected<OutputSet> Model::run(const DeviceInputs &Inputs, void *Stream, bool Capture) {
  Impl &M = *P;
  if (Inputs.Tensors.size() != M.Inputs.size())
    return Error(ErrorKind::InvalidArgument, "the model takes " + std::to_string(M.Inputs.size()) +
                                                 " inputs, got " +
                                                 std::to_string(Inputs.Tensors.size()));
  // The model steals what it is given: hand it new handles onto the same
  // storage, so the uploaded inputs serve the next run too.
  std::vector<AtenTensorHandle> In(Inputs.Tensors.size(), nullptr);
  for (size_t I = 0; I < In.size(); ++I)
    if (aoti_torch_new_tensor_handle(Inputs.Tensors[I].get(), &In[I]) != 0) {
      for (size_t J = 0; J < I; ++J)
        aoti_torch_delete_tensor_object(In[J]);
      return Error(ErrorKind::RunFailed, shimError("cannot make an input handle"));
    }
  std::vector<AtenTensorHandle> Out(M.OutputNames.size(), nullptr);
  StreamScope Scope(M.Dev, Stream);
  std::optional<StderrCapture> Captured;
  if (Capture)
    Captured.emplace();
  std::string Thrown;
  RuntimeError E = callModel(M.Modules, Thrown, [&] {
    return M.Run(M.Container, In.data(), In.size(), Out.data(), Out.size(), Stream,
                 /*proxy_executor=*/nullptr);
  });
  if (E != 0) {
    std::string Said = joined(Captured ? trimmed(Captured->finish()) : std::string(), Thrown);
    // Whether the model deleted the input handles depends on how far it got
    // (its input checks run before it takes them). Leaking them is the only
    // choice that cannot double-free.
    std::string Msg = "the model's run failed";
    if (!Said.empty())
      Msg += ": " + Said;
    return Error(ErrorKind::RunFailed, Msg);
  }
  // What a run that succeeded printed (warnings) goes on to the real stderr.
  if (Captured)
    Captured->replay();
  OutputSet R;
  std::map<AtenTensorHandle, size_t> Seen;
  for (size_t I = 0; I < Out.size(); ++I) {
    auto [It, New] = Seen.emplace(Out[I], R.Unique.size());
    if (New)
      R.Unique.emplace_back(Out[I]);
    R.SlotToUnique.push_back(It->second);
  }
  if (Seen.count(nullptr))
    return Error(ErrorKind::RunFailed, "the model returned an empty output slot");
  for (size_t I = 0; I < R.size(); ++I)
    if (Expected<TensorSpec> Spec = R.Unique[R.SlotToUnique[I]].describe(M.OutputNames[I]))
      M.OutputSpecs[I] = std::move(*Spec);
  return R;
}

/// "float32 [3, 4]", or what is unknown of it.
static std::string specString(const TensorSpec &S) {
  return std::string(S.Type ? dtypeName(*S.Type) : "?") + " " +
         (S.Shape ? shapeString(*S.Shape) : "[?]");
}

Expected<DeviceInputs> Model::wrap(const std::vector<BufferRef> &Inputs) {
  const std::vector<TensorSpec> &Specs = P->Inputs;
  if (Inputs.size() != Specs.size())
    return Error(ErrorKind::InvalidArgument,
                 "the model takes " + std::to_string(Specs.size()) + " input" +
                     (Specs.size() == 1 ? "" : "s") + ", got " + std::to_string(Inputs.size()) +
                     " buffers");
  const int32_t DevType = P->Dev.Type == DeviceType::CUDA ? aoti_torch_device_type_cuda()
                                                           : aoti_torch_device_type_cpu();
  DeviceInputs Out;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const BufferRef &B = Inputs[I];
    const std::string What = "input " + std::to_string(I) + " " + Specs[I].Name;
    const std::optional<int64_t> N = numelOf(B.Shape);
    if (!N)
      return Error(ErrorKind::InvalidArgument, What + ": bad shape " + shapeString(B.Shape));
    if (!B.Data && *N > 0)
      return Error(ErrorKind::InvalidArgument, What + ": the buffer is null");
    bool Matches = !Specs[I].Type || *Specs[I].Type == B.Type;
    if (Specs[I].Shape) {
      const std::vector<int64_t> &Want = *Specs[I].Shape;
      Matches = Matches && Want.size() == B.Shape.size();
      for (size_t D = 0; Matches && D < Want.size(); ++D)
        Matches = Want[D] < 0 || Want[D] == B.Shape[D];
    }
    if (!Matches)
      return Error(ErrorKind::InvalidArgument,
                   What + ": the model takes " + specString(Specs[I]) + ", the buffer is " +
                       specString(TensorSpec{"", B.Type, B.Shape}));
    const std::vector<int64_t> Strides = contiguousStrides(B.Shape);
    AtenTensorHandle H = nullptr;
    if (aoti_torch_create_tensor_from_blob(B.Data, static_cast<int64_t>(B.Shape.size()),
                                           B.Shape.data(), Strides.data(), 0,
                                           static_cast<int32_t>(B.Type), DevType, P->Dev.Index,
                                           &H) != 0)
      return Error(ErrorKind::InvalidArgument, shimError(("cannot wrap " + What).c_str()));
    Out.Tensors.emplace_back(H);
  }
  return Out;
}

Status Model::copyOutputs(const OutputSet &Outputs, const std::vector<BufferRef> &Into,
                          void *Stream) {
  if (Into.size() != Outputs.size())
    return Error(ErrorKind::InvalidArgument,
                 "the run has " + std::to_string(Outputs.size()) + " outputs, got " +
                     std::to_string(Into.size()) + " buffers");
  const int32_t DevType = P->Dev.Type == DeviceType::CUDA ? aoti_torch_device_type_cuda()
                                                           : aoti_torch_device_type_cpu();
  StreamScope Scope(P->Dev, Stream);
  for (size_t I = 0; I < Into.size(); ++I) {
    const std::string Name = I < P->OutputNames.size() ? P->OutputNames[I] : "";
    const std::string What = "output " + std::to_string(I) + " " + Name;
    Expected<TensorSpec> Spec = Outputs.Unique[Outputs.SlotToUnique[I]].describe(Name);
    if (!Spec)
      return Spec.takeError();
    const BufferRef &B = Into[I];
    if (!Spec->Type || *Spec->Type != B.Type || *Spec->Shape != B.Shape)
      return Error(ErrorKind::InvalidArgument,
                   What + " is " + specString(*Spec) + ", the buffer is " +
                       specString(TensorSpec{"", B.Type, B.Shape}));
    const std::optional<int64_t> N = numelOf(B.Shape);
    if (!N || *N == 0)
      continue;
    if (!B.Data)
      return Error(ErrorKind::InvalidArgument, What + ": the buffer is null");
    const std::vector<int64_t> Strides = contiguousStrides(B.Shape);
    AtenTensorHandle Dst = nullptr;
    if (aoti_torch_create_tensor_from_blob(B.Data, static_cast<int64_t>(B.Shape.size()),
                                           B.Shape.data(), Strides.data(), 0,
                                           static_cast<int32_t>(B.Type), DevType, P->Dev.Index,
                                           &Dst) != 0)
      return Error(ErrorKind::InvalidArgument, shimError(("cannot wrap the buffer for " + What).c_str()));
    TensorHandle Owned(Dst);
    if (aoti_torch_copy_(Dst, Outputs.slot(I), /*non_blocking=*/0) != 0)
      return Error(ErrorKind::RunFailed, shimError(("cannot copy " + What).c_str()));
  }
  return Status::success();
}

Expected<std::vector<HostTensor>> Model::download(const OutputSet &Outputs, void *Stream) {
  StreamScope Scope(P->Dev, Stream);
  std::vector<HostTensor> Unique;
  for (size_t U = 0; U < Outputs.Unique.size(); ++U) {
    AtenTensorHandle H = Outputs.Unique[U].get();
    Expected<TensorSpec> Spec = Outputs.Unique[U].describe("");
    if (!Spec)
      return Spec.takeError();
    if (!Spec->Type) {
      int32_t Code = -1;
      aoti_torch_get_dtype(H, &Code);
      return Error(ErrorKind::RunFailed, "an output has dtype code " + std::to_string(Code) +
                                             ", which the backend cannot read");
    }
    HostTensor T(*Spec->Type, *Spec->Shape);
    if (T.numel() > 0) {
      const std::vector<int64_t> Strides = contiguousStrides(T.Shape);
      AtenTensorHandle Host = nullptr;
      if (aoti_torch_create_tensor_from_blob(T.Data.data(), static_cast<int64_t>(T.Shape.size()),
                                             T.Shape.data(), Strides.data(), 0,
                                             static_cast<int32_t>(T.Type),
                                             aoti_torch_device_type_cpu(), 0, &Host) != 0)
        return Error(ErrorKind::RunFailed, shimError("cannot wrap host output buffer"));
      TensorHandle HostOwned(Host);
      if (aoti_torch_copy_(Host, H, /*non_blocking=*/0) != 0)
        return Error(ErrorKind::RunFailed, shimError("cannot copy an output to the host"));
    }
    Unique.push_back(std::move(T));
  }
  std::vector<HostTensor> R;
  for (size_t I = 0; I < Outputs.size(); ++I)
    R.push_back(Unique[Outputs.SlotToUnique[I]]);
  // The CUDA fallbacks record an out-of-range index on the device instead
  // of waiting to refuse it (docs/ops/checks.md): outputs just read back,
  // after the run's work is done, are where to ask, at no extra wait.
  if (P->Dev.Type == DeviceType::CUDA && aoti_shims_cuda_check_errors(P->Dev.Index) != 0)
    return Error(ErrorKind::RunFailed,
                 shimError("a fallback op of the model was given bad data"));
  return R;
}

void Model::release(OutputSet &Outputs, void *Stream) {
  StreamScope Scope(P->Dev, Stream);
  Outputs.Unique.clear();
  Outputs.SlotToUnique.clear();
}

Expected<std::vector<HostTensor>> Model::run(const std::vector<HostTensor> &Inputs,
                                             void *Stream) {
  Expected<DeviceInputs> In = upload(Inputs, Stream);
  if (!In)
    return In.takeError();
  Expected<OutputSet> Out = run(*In, Stream);
  if (!Out)
    return Out.takeError();
  Expected<std::vector<HostTensor>> Host = download(*Out, Stream);
  release(*Out, Stream);
  StreamScope Scope(P->Dev, Stream);
  In->Tensors.clear();
  return Host;
}

} // namespace aoti::backend
