//===- Model.h - Loading and running AOTInductor models ---------*- C++ -*-===//
//
// A Model is one AOTInductor model container loaded into this process: from a
// .pt2 package (a zip whose <root>/data/aotinductor/<name>/ folders each hold
// one model's .so, its metadata, an optional weights blob and cubins; a
// package may hold several models, and LoadOptions::ModelName picks one), or
// from a bare .so with its weights blob and cubin directory beside it or
// given.
//
// A model whose weights are missing is refused at load (ErrorKind::Weights):
// one exported with package_constants_in_so=False and no on-disk weights
// declares its constants but carries no data for them, and would run with
// null constants. See Model.cpp for how that is told.
//
// Loading never crashes the process on a bad model. Before dlopen the
// model's undefined dynamic symbols are checked against this process, and a
// load error names every one that is missing; the model is then opened with
// RTLD_NOW | RTLD_LOCAL, so nothing is left to fail at first call.
//
// The process must provide the aoti_torch_* shims (libaoti_shims) in its
// global scope, and for CUDA models the CUDA runtime (libcudart.so): a model
// has no DT_NEEDED on either. All tensor work here goes through those same
// shims, so the backend itself does not depend on CUDA.
//
// Ownership follows the container ABI: Run steals the input handles and
// hands back owning output handles, one handle possibly in several slots.
// OutputSet owns each distinct handle once.
//
// A Model is not thread-safe; run it from one thread at a time.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_MODEL_H
#define AOTI_BACKEND_MODEL_H

#include "aoti/backend/Error.h"
#include "aoti/backend/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct AtenTensorOpaque;

namespace aoti::backend {

enum class DeviceType : int32_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType Type = DeviceType::CPU;
  int32_t Index = 0;

  /// "cpu", "cuda" (device 0) or "cuda:N".
  static Expected<Device> parse(const std::string &Text);
  /// The string the container's CreateWithDevice takes ("cpu", "cuda:N").
  std::string str() const;
};

class ConstantPool;

struct LoadOptions {
  /// For a package: which of its models (listPackageModels). By default
  /// torch's "model", or the package's only model when it has one by another
  /// name; an unknown name is an InvalidArgument error naming those there.
  std::optional<std::string> ModelName;
  /// The device to run on; by default the one the model was compiled for
  /// (its metadata's AOTI_DEVICE_KEY), else cuda:0.
  std::optional<Device> TargetDevice;
  /// For a .so: the weights blob; default <stem>_weights.blob beside it.
  std::optional<std::string> WeightsPath;
  /// For a .so: where its .cubin files are; default the .so's directory.
  std::optional<std::string> CubinDir;
  /// Turn on the model's own input checks (dtype, shape, strides, device) by
  /// setting AOTI_RUNTIME_CHECK_INPUTS=1 before the model first runs, unless
  /// the environment already sets it.
  bool CheckInputs = true;
  /// Check the model's undefined symbols before dlopen (see above). Off only
  /// to observe what dlopen itself reports.
  bool PrecheckSymbols = true;
  /// Use RunSingleThreaded when the model has it.
  bool SingleThreaded = false;
  /// Seed the shims' random generator (aoti_shims_manual_seed) when the
  /// model has loaded, so that its random ops (rand, dropout, the seeds
  /// inductor draws for its own RNG) give the same values from the first
  /// run on, on either device. The generator is the process's, shared by
  /// every model in it; nullopt leaves it as it is (AOTI_SHIMS_SEED, else
  /// torch's default seed: docs/ops/random.md).
  std::optional<uint64_t> Seed;
  /// Keep a copy of the model's buffers as loaded (constants of kind Buffer:
  /// a KV cache, a step counter, running statistics), so that resetState()
  /// can put them back. Costs their size once more, on the model's device;
  /// parameters are not copied.
  bool KeepInitialState = true;
  /// Share constants with the other models loaded into this pool (the
  /// prefill and decode models of one export, two packages from one
  /// export). See ConstantPool. Null: the model keeps its own.
  std::shared_ptr<ConstantPool> SharedConstants;
  size_t NumModels = 1;
};

/// One copy of the constants that several loaded models have in common, on
/// their device, as ExecuTorch shares a prefill and a decode method's
/// weights. A model loaded with LoadOptions::SharedConstants matches each of
/// its constants against the pool by original FQN, dtype, shape, strides,
/// device and content (a 64-bit hash of its bytes at load): a match is used
/// in place, anything else is copied into the pool. The model's container
/// is then pointed at the pool's tensors (UpdateUserManagedConstantBuffer on
/// its inactive buffer, swapped in) and frees its own copy, so at rest the
/// models hold one copy between them; while one loads, its own copy exists
/// besides. A constant of the same name and another value stays the model's
/// own. Shared buffers are shared state: a KV cache that prefill fills is
/// the one decode reads, and resetState() on either resets it for both.
/// The pool lives as long as the last model loaded into it.
class ConstantPool {
public:
  ConstantPool();
  ~ConstantPool();
  ConstantPool(const ConstantPool &) = delete;
  ConstantPool &operator=(const ConstantPool &) = delete;

  /// Tensors the pool holds, and their bytes.
  size_t size() const;
  uint64_t bytes() const;

  class Impl;

private:
  std::unique_ptr<Impl> P;
  friend class Model;
};

/// What a model loaded into a ConstantPool found there.
struct ConstantSharing {
  bool Pooled = false;
  /// Constants it uses from models loaded before it, and their bytes.
  size_t Shared = 0;
  uint64_t SharedBytes = 0;
  /// Constants it brought to the pool (or kept: same name, other value).
  size_t Added = 0;
  uint64_t AddedBytes = 0;
};

/// One model of a .pt2 package.
struct PackageModel {
  /// Its folder's name under data/aotinductor/ ("model", "prefill", ...).
  std::string Name;
  /// Its library's path inside the package.
  std::string Library;
};

/// The models of the package at Path, in the package's order.
Expected<std::vector<PackageModel>> listPackageModels(const std::string &Path);

/// What a constant is to torch (AOTInductor's ConstantType).
enum class ConstantKind : int32_t {
  Unknown = 0,
  Parameter = 1,
  Buffer = 2, ///< registered buffers: what a run may update in place
  TensorConstant = 3,
  FoldedConstant = 4,
};

struct ConstantInfo {
  std::string Name;
  std::string OriginalFQN;
  std::optional<DType> Type;
  size_t DataSize = 0;
  /// Computed by the model's constant folding at its first run, so never
  /// part of its weights.
  bool FromFolded = false;
  /// Unknown when the model does not say (GetConstantType is newer than
  /// some models).
  ConstantKind Kind = ConstantKind::Unknown;
};

/// An owning aoti_torch tensor handle.
class TensorHandle {
public:
  TensorHandle() = default;
  explicit TensorHandle(AtenTensorOpaque *Handle) : H(Handle) {}
  TensorHandle(TensorHandle &&O) noexcept : H(O.release()) {}
  TensorHandle &operator=(TensorHandle &&O) noexcept;
  TensorHandle(const TensorHandle &) = delete;
  TensorHandle &operator=(const TensorHandle &) = delete;
  ~TensorHandle() { reset(); }

  AtenTensorOpaque *get() const { return H; }
  AtenTensorOpaque *release() {
    AtenTensorOpaque *R = H;
    H = nullptr;
    return R;
  }
  void reset();

  /// dtype and shape through the shims.
  Expected<TensorSpec> describe(std::string Name) const;

private:
  AtenTensorOpaque *H = nullptr;
};

/// A dense C-order tensor in memory the caller owns: host memory for a CPU
/// model, device memory on the model's device (a CUDA device pointer) for a
/// CUDA model. The backend never frees it.
struct BufferRef {
  void *Data = nullptr;
  DType Type = DType::Float32;
  std::vector<int64_t> Shape;
};

/// Inputs resident on the model's device. Each run passes new handles that
/// share these tensors' storage, so one upload serves many runs.
struct DeviceInputs {
  std::vector<TensorHandle> Tensors;
};

/// The outputs of one run. Slot I holds Unique[SlotToUnique[I]]; a model may
/// return one handle in several slots, and it is owned (deleted) once.
struct OutputSet {
  std::vector<TensorHandle> Unique;
  std::vector<size_t> SlotToUnique;

  size_t size() const { return SlotToUnique.size(); }
  AtenTensorOpaque *slot(size_t I) const {
    return Unique[SlotToUnique[I]].get();
  }
};

/// Outputs of one run as the inputs of another, in place on the device (new
/// handles onto their storage, nothing copied): input I is output slot
/// Slots[I]. A decode step's next token and position feed the next step this
/// way, with no trip to the host and no wait. The outputs must stay alive
/// while runs use these.
Expected<DeviceInputs> inputsFrom(const OutputSet &Outputs, const std::vector<size_t> &Slots);

class Model {
public:
  /// Loads a .pt2 package or a .so. Never throws.
  static Expected<std::unique_ptr<Model>> load(const std::string &Path,
                                               const LoadOptions &Options = {});
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const std::string &path() const;
  /// The package's model this is (LoadOptions::ModelName resolved); empty
  /// for a bare .so.
  const std::string &modelName() const;
  Device device() const;
  /// Metadata's AOTI_DEVICE_KEY ("cuda", "cpu"), empty when unknown.
  const std::string &compiledForDevice() const;
  /// Input names, with the dtype and shape the model was compiled for when
  /// its generated source is at hand (a .pt2 holds it); otherwise name only.
  const std::vector<TensorSpec> &inputs() const;
  const std::vector<std::string> &outputNames() const;
  /// Output names, with dtype and shape as of the last successful run: a
  /// container declares neither before it has run (nullopt until then).
  const std::vector<TensorSpec> &outputs() const;
  const std::vector<ConstantInfo> &constants() const;
  /// Bytes the model wants from a weights blob (0: none).
  uint64_t constantsBlobSize() const;
  /// The weights file that was loaded, empty if none.
  const std::string &weightsPath() const;
  /// Lines worth telling a user (a blob longer than expected, a model's
  /// warnings printed during load).
  const std::vector<std::string> &notes() const;

  /// State. A model's buffers that its runs update in place (a static KV
  /// cache written with index_copy_, a counter) are constants of the loaded
  /// container: they persist from one run to the next, as in eager. This
  /// puts every buffer back to its value at load (LoadOptions::
  /// KeepInitialState), for example between two prompts. Synchronous. An
  /// InvalidArgument error when the model was loaded without
  /// KeepInitialState or does not export the container's constant-buffer
  /// entry points; a model without buffers has nothing to reset.
  Status resetState();
  /// The buffers resetState() restores (their constant names), in the
  /// model's order.
  std::vector<std::string> stateNames() const;
  /// How this model shares its constants (LoadOptions::SharedConstants).
  const ConstantSharing &sharing() const;

  /// Converts host inputs to what the model declares (float32 data for a
  /// bfloat16 or float16 input is rounded to nearest even) and copies them
  /// to the device. Fails on a wrong count; leaves dtype and shape checks to
  /// the model.
  Expected<DeviceInputs> upload(const std::vector<HostTensor> &Inputs,
                                void *Stream);
  /// Inputs in buffers the caller owns, already on the model's device:
  /// wrapped, not copied (every run reads them in place), so they must stay
  /// alive and unchanged while runs use them. Checks the count, that no
  /// buffer is null, and dtypes and static shapes where the model declares
  /// them (inputs()); no conversion.
  Expected<DeviceInputs> wrap(const std::vector<BufferRef> &Inputs);
  /// One run on Stream (a cudaStream_t for CUDA models; ignored on CPU).
  /// When CaptureDiagnostics is set, what the model prints to stderr during
  /// the run is captured and, on failure, becomes part of the error.
  Expected<OutputSet> run(const DeviceInputs &Inputs, void *Stream,
                          bool CaptureDiagnostics = true);
  /// Copies outputs to the host, as dense C-order tensors. Synchronous. On
  /// CUDA it then reports the problems a fallback op recorded on the device
  /// instead of refusing them (aoti_shims_cuda_check_errors;
  /// docs/ops/checks.md) as a RunFailed error.
  Expected<std::vector<HostTensor>> download(const OutputSet &Outputs,
                                             void *Stream);
  /// Copies each output slot into a buffer the caller owns on the model's
  /// device, on Stream; returns once the copies are complete. Into[i] must
  /// have output i's dtype and shape.
  Status copyOutputs(const OutputSet &Outputs, const std::vector<BufferRef> &Into,
                     void *Stream);
  /// upload, run, download.
  Expected<std::vector<HostTensor>> run(const std::vector<HostTensor> &Inputs,
                                        void *Stream = nullptr);
  /// Frees outputs on Stream's order (stream-ordered device frees).
  void release(OutputSet &Outputs, void *Stream);

  class Impl;

private:
  explicit Model(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace aoti::backend

#endif
