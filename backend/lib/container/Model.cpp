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
//   5. copy its buffers (constants of kind Buffer) as loaded (State.cpp), for
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
#include "ModelImpl.h"

#include "CpuIsa.h"
#include "CudaModules.h"
#include "DynamicImports.h"
#include "package/JsonCursor.h"
#include "package/ModelFiles.h"
#include "package/WrapperSource.h"
#include "process/StderrCapture.h"

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

// --- Loading ------------------------------------------------------------------

using namespace detail;

namespace {

/// The CPUs this process may run on (its affinity mask), 0 if unknown.
int availableCpus() {
  cpu_set_t Mask;
  CPU_ZERO(&Mask);
  if (sched_getaffinity(0, sizeof Mask, &Mask) != 0)
    return 0;
  return CPU_COUNT(&Mask);
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
  EmbeddedConstantsSize = Imports->EmbeddedConstantsSize;
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
  if (Options.SharedConstants) {
    Pool = Options.SharedConstants;
    if (Status S = joinPool(); !S)
      return S;
  }
  return Options.KeepInitialState ? keepInitialState() : Status::success();
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
  if (SizeKnown && BlobSize > 0 && EmbeddedConstantsSize == 16u) {
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
  const std::optional<uint64_t> Embedded = EmbeddedConstantsSize;
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

} // namespace aoti::backend
