//===- fake_model.cpp - A model-like plugin for the CPU tests -------------===//
//
// Implements the AOTInductor container entry points with the signatures a
// real model exports, and, like a LibTorch-free model, leaves every
// aoti_torch_* it calls undefined for the host to provide. It computes
//
//   y = x * w + b            x: float32 [N, 4]; w, b: float32 [4] (weights blob)
//
// and returns three outputs: y, y again in a second slot (one handle in two
// slots), and x[0] as a view of the input (its storage outlives the stolen
// input handle). Its input check mimics the generated one: enabled by
// AOTI_RUNTIME_CHECK_INPUTS, a message on stderr, failure before the inputs
// are taken.
//
// Built with FAKE_MODEL_EXTRA_IMPORTS it also references two symbols no host
// defines, so that loading it must name both.
//
// Built with FAKE_MODEL_STATE it has state, as a model with a static KV
// cache does: a third constant, the buffer "steps" (float32 [4], zeros at
// creation), which every run adds to y and then increments in place, so run
// k gives y + k. It exports what real models export for their constants and
// the others here do not (GetConstantType, ExtractConstantsMap keyed by
// original FQN, UpdateConstantBuffer keyed by constant name, copying), and
// the user-managed constants of torch's container: UpdateUserManaged-
// ConstantBufferPairs stages borrowed tensors as the inactive buffer,
// SwapConstantBuffer makes them the ones runs read and write, and
// FreeInactiveConstantBuffer poisons the model's own (NaN), so a constant
// left pointing at them shows in the output.
//
// Where its weights are follows what AOTInductor's export options make of a
// model (model_base.h, codecache.py), down to the constants section it links
// in (_binary_constants_bin_start.._end):
//   default                 package_constants_on_disk_format="binary_blob":
//                           the section holds the blob's size (8 bytes);
//                           GetConstantsBlobSize returns it; the weights come
//                           through UpdateConstantsFromBlob
//   FAKE_MODEL_WEIGHTS_IN_SO  package_constants_in_so=True: the section holds
//                           w and b, loaded when the container is created;
//                           GetConstantsBlobSize fails, UpdateConstantsFromBlob
//                           does nothing
//   FAKE_MODEL_WEIGHTS_MMAP_SELF  weights over 2 GB, appended to the .so and
//                           mmap'd by the model itself: the section holds
//                           their size + 8 and a magic number (16 bytes);
//                           GetConstantsBlobSize returns size + 8; the
//                           constants are loaded at creation (here from the
//                           weights this file carries)
//   FAKE_MODEL_NO_SECTION   no constants section; weights it carries, loaded
//                           at creation; GetConstantsBlobSize fails
//   FAKE_MODEL_NO_WEIGHTS   package_constants_in_so=False, no on-disk format:
//                           a 1-byte section, no constants loaded; its run
//                           crashes as such a model does on a GPU
//
// FAKE_MODEL_FAULT injects the faults a broken model has (the runner must
// survive each and say what happened):
//   throw-create, throw-run   a C++ exception out of the entry point
//   error-run                 an error code after the inputs were taken
//   null-output               success with an output slot left empty
//   oob-run                   a write one element past the output (ASan)
//   leak-container            Delete forgets the container (a leak)
//   abort-run                 says why on stderr, then abort()s
//
//===----------------------------------------------------------------------===//
#include <aoti/shim.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Container {
  float W[4] = {};
  float B[4] = {};
  float Steps[4] = {};
  /// What runs read (and update, for steps): its own arrays, or the data of
  /// tensors handed over user-managed; Staged until they are swapped in.
  float *Active[3] = {W, B, Steps};
  float *Staged[3] = {};
  bool ConstantsLoaded = false;
  /// Borrowed by ExtractConstantsMap's callers; made at the first call.
  AtenTensorHandle Views[3] = {};
};

constexpr uint64_t BlobBytes = 8 * sizeof(float);

// The constants section, as AOTInductor's weights.S defines it: two global
// labels around the data, in the model's dynamic symbol table (AOTInductor
// compiles without -fvisibility; this file is built with hidden, so the
// declarations below say default). FAKE_MODEL_HIDDEN_SECTION keeps them out
// of .dynsym, in .symtab only.
#if defined(FAKE_MODEL_NO_SECTION)
// No constants section at all (a model AOTInductor did not generate).
#elif defined(FAKE_MODEL_WEIGHTS_IN_SO)
#define FAKE_CONSTANTS_DATA ".float 1.0, 2.0, -3.0, 0.5\n .float 0.25, -1.0, 0.0, 4.0\n"
#elif defined(FAKE_MODEL_NO_WEIGHTS)
#define FAKE_CONSTANTS_DATA ".space 1\n"
#elif defined(FAKE_MODEL_WEIGHTS_MMAP_SELF)
#define FAKE_CONSTANTS_DATA ".quad 40, 0x5eed5eed5eed5eed\n"
#else
#define FAKE_CONSTANTS_DATA ".quad 32\n"
#endif
#ifdef FAKE_CONSTANTS_DATA
#ifdef FAKE_MODEL_HIDDEN_SECTION
#define FAKE_SECTION_HIDDEN ".hidden _binary_constants_bin_start, _binary_constants_bin_end\n"
#else
#define FAKE_SECTION_HIDDEN ""
#endif
asm(".pushsection .rodata\n"
    ".balign 64\n"
    ".globl _binary_constants_bin_start\n"
    "_binary_constants_bin_start:\n" FAKE_CONSTANTS_DATA
    ".globl _binary_constants_bin_end\n" FAKE_SECTION_HIDDEN
    "_binary_constants_bin_end:\n"
    ".popsection\n");
#ifdef FAKE_MODEL_HIDDEN_SECTION
#define FAKE_SECTION_VISIBILITY "hidden"
#else
#define FAKE_SECTION_VISIBILITY "default"
#endif
extern "C" __attribute__((visibility(FAKE_SECTION_VISIBILITY))) const unsigned char
    _binary_constants_bin_start[];
extern "C" __attribute__((visibility(FAKE_SECTION_VISIBILITY))) const unsigned char
    _binary_constants_bin_end[];
const unsigned char *const Section = _binary_constants_bin_start;
#else
const unsigned char *const Section = nullptr;
#endif
constexpr bool WeightsInSo =
#if defined(FAKE_MODEL_WEIGHTS_IN_SO)
    true;
#else
    false;
#endif
constexpr bool WeightsMmapSelf =
#if defined(FAKE_MODEL_WEIGHTS_MMAP_SELF)
    true;
#else
    false;
#endif
// Whether the model asks for an external blob (USE_MMAP_EXTERNAL).
constexpr bool ReadsABlob =
#if defined(FAKE_MODEL_WEIGHTS_IN_SO) || defined(FAKE_MODEL_NO_WEIGHTS) || \
    defined(FAKE_MODEL_WEIGHTS_MMAP_SELF) || defined(FAKE_MODEL_NO_SECTION)
    false;
#else
    true;
#endif
// Loads AppendedWeights at creation: what the self-mmap'd variant finds at
// the end of its file, and the weights the variant without a section holds.
constexpr bool CarriesWeights =
#if defined(FAKE_MODEL_WEIGHTS_MMAP_SELF) || defined(FAKE_MODEL_NO_SECTION)
    true;
#else
    false;
#endif
const float AppendedWeights[8] = {1.0f, 2.0f, -3.0f, 0.5f, 0.25f, -1.0f, 0.0f, 4.0f};
const char *const InputNames[] = {"x"};
const char *const OutputNames[] = {"y", "y_again", "x_row0"};
// FAKE_MODEL_MANY_CONSTANTS declares five more constants (an error that
// names constants names only the first few).
#if defined(FAKE_MODEL_MANY_CONSTANTS)
constexpr size_t NumConstants = 7;
const char *const ConstantNames[] = {"w", "b", "l2", "l3", "l4", "l5", "l6"};
const char *const ConstantFQNs[] = {"fc.weight",       "fc.bias",         "layers.2.weight",
                                    "layers.3.weight", "layers.4.weight", "layers.5.weight",
                                    "layers.6.weight"};
#elif defined(FAKE_MODEL_STATE)
constexpr size_t NumConstants = 3;
const char *const ConstantNames[] = {"w", "b", "steps"};
const char *const ConstantFQNs[] = {"fc.weight", "fc.bias", "steps"};
#else
constexpr size_t NumConstants = 2;
const char *const ConstantNames[] = {"w", "b"};
const char *const ConstantFQNs[] = {"fc.weight", "fc.bias"};
#endif

bool checksEnabled() {
  static const bool On = [] {
    const char *V = std::getenv("AOTI_RUNTIME_CHECK_INPUTS");
    return V && V[0] != '0';
  }();
  return On;
}

bool fault(const char *Name) {
  const char *V = std::getenv("FAKE_MODEL_FAULT");
  return V && std::strcmp(V, Name) == 0;
}

int32_t fail(const std::string &Msg) {
  std::cerr << "Error: " << Msg << std::endl;
  return 1;
}

} // namespace

using Handle = Container *;

FAKE_EXPORT int32_t AOTInductorModelContainerCreateWithDevice(Handle *Ret, size_t NumModels,
                                                              const char *DeviceStr,
                                                              const char * /*CubinDir*/) {
  if (fault("throw-create"))
    throw std::runtime_error("fake model: injected exception in create");
  if (NumModels == 0)
    return fail("num_models must be positive");
  if (!DeviceStr || std::strcmp(DeviceStr, "cpu") != 0)
    return fail(std::string("fake model is compiled for cpu, got ") + (DeviceStr ? DeviceStr : "null"));
  *Ret = new Container;
  if (WeightsInSo) { // load_constants() of a model that holds its weights
    std::memcpy((*Ret)->W, Section, sizeof(Container::W));
    std::memcpy((*Ret)->B, Section + sizeof(Container::W),
                sizeof(Container::B));
    (*Ret)->ConstantsLoaded = true;
  }
  if (CarriesWeights) {
    std::memcpy((*Ret)->W, AppendedWeights, sizeof(Container::W));
    std::memcpy((*Ret)->B, AppendedWeights + 4, sizeof(Container::B));
    (*Ret)->ConstantsLoaded = true;
  }
  return 0;
}

FAKE_EXPORT int32_t AOTInductorModelContainerDelete(Handle H) {
  if (fault("leak-container"))
    return 0; // forgets its container: the leak the cycle test must see
  for (AtenTensorHandle V : H->Views)
    if (V)
      aoti_torch_delete_tensor_object(V);
  delete H;
  return 0;
}

FAKE_EXPORT int32_t AOTInductorModelContainerGetNumInputs(Handle, size_t *N) {
  *N = 1;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetNumOutputs(Handle, size_t *N) {
  *N = 3;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetInputName(Handle, size_t I, const char **Name) {
  if (I >= 1)
    return 1;
  *Name = InputNames[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetOutputName(Handle, size_t I, const char **Name) {
  if (I >= 3)
    return 1;
  *Name = OutputNames[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetNumConstants(Handle, size_t *N) {
  *N = NumConstants;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantName(Handle, size_t I, const char **Name) {
  if (I >= NumConstants)
    return 1;
  *Name = ConstantNames[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantOriginalFQN(Handle, size_t I,
                                                                    const char **Name) {
  if (I >= NumConstants)
    return 1;
  *Name = ConstantFQNs[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantDtype(Handle, size_t I, int32_t *DType) {
  if (I >= NumConstants)
    return 1;
  *DType = aoti_torch_dtype_float32();
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantDataSize(Handle, size_t I, size_t *Size) {
  if (I >= NumConstants)
    return 1;
  *Size = 4 * sizeof(float);
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantFromFolded(Handle, size_t I,
                                                                   bool *Folded) {
  if (I >= NumConstants)
    return 1;
  *Folded = false;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantsBlobSize(Handle, uint64_t *Size) {
  if (WeightsMmapSelf) { // the section's first word
    std::memcpy(Size, Section, sizeof *Size);
    return 0;
  }
  if (!ReadsABlob) // what the generated wrapper prints for weights not mmap'd
    return fail("constant blob size is only available for mmap'd weights");
  *Size = BlobBytes;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelUpdateConstantsFromBlob(Handle H, const uint8_t *Blob) {
  if (!ReadsABlob) // update_constants_from_blob without USE_MMAP_EXTERNAL
    return 0;
  std::memcpy(H->W, Blob, sizeof H->W);
  std::memcpy(H->B, Blob + sizeof H->W, sizeof H->B);
  H->ConstantsLoaded = true;
  return 0;
}

FAKE_EXPORT int32_t AOTInductorModelContainerRun(Handle H, AtenTensorHandle *Inputs,
                                                 size_t NumInputs, AtenTensorHandle *Outputs,
                                                 size_t NumOutputs, void * /*Stream*/,
                                                 void * /*ProxyExecutor*/) {
  if (fault("throw-run"))
    throw std::logic_error("fake model: injected exception in run");
  if (fault("abort-run")) {
    std::cerr << "fake model: CUDA error: an illegal memory access was encountered" << std::endl;
    std::abort();
  }
  if (NumInputs != 1)
    return fail("expected 1 inputs, but got " + std::to_string(NumInputs));
  if (NumOutputs != 3)
    return fail("expected 3 outputs, but got " + std::to_string(NumOutputs));
  AtenTensorHandle X = Inputs[0];
  int32_t DType = -1;
  int64_t Dim = 0, *Sizes = nullptr;
  if (aoti_torch_get_dtype(X, &DType) || aoti_torch_get_dim(X, &Dim) ||
      aoti_torch_get_sizes(X, &Sizes))
    return fail("cannot read the input");
  if (checksEnabled()) {
    if (DType != aoti_torch_dtype_float32())
      return fail("input_handles[0]: unmatched dtype, expected: 6(at::kFloat), but got: " +
                  std::to_string(DType));
    if (Dim != 2)
      return fail("input_handles[0]: expected 2 dims, but got: " + std::to_string(Dim));
    if (Sizes[1] != 4)
      return fail("input_handles[0]: unmatched dim value at 1, expected: 4, but got: " +
                  std::to_string(Sizes[1]));
  }
  if (!H->ConstantsLoaded) {
#ifdef FAKE_MODEL_NO_WEIGHTS
    // A real model goes on with null constants; this one says so and dies.
    std::cerr << "fake model: ran with null constants: an illegal memory access" << std::endl;
    std::abort();
#endif
    return fail("constants were never loaded");
  }

  // From here on the input belongs to us (the real models steal it here).
  const int64_t N = Sizes[0];
  const int64_t YSizes[] = {N, 4}, YStrides[] = {4, 1};
  AtenTensorHandle Y = nullptr, Row = nullptr;
  int32_t Err = aoti_torch_empty_strided(2, YSizes, YStrides, aoti_torch_dtype_float32(),
                                         aoti_torch_device_type_cpu(), 0, &Y);
  const int64_t RowSizes[] = {4}, RowStrides[] = {1};
  if (!Err)
    Err = aoti_torch__reinterpret_tensor(X, 1, RowSizes, RowStrides, 0, &Row);
  void *XData = nullptr, *YData = nullptr;
  if (!Err)
    Err = aoti_torch_get_data_ptr(X, &XData) || aoti_torch_get_data_ptr(Y, &YData);
  if (Err) {
    aoti_torch_delete_tensor_object(X);
    return fail("a shim failed");
  }
  const float *XF = static_cast<const float *>(XData);
  float *YF = static_cast<float *>(YData);
  for (int64_t I = 0; I < N; ++I)
    for (int J = 0; J < 4; ++J)
      YF[I * 4 + J] = XF[I * 4 + J] * H->Active[0][J] + H->Active[1][J] + H->Active[2][J];
#ifdef FAKE_MODEL_STATE
  for (int J = 0; J < 4; ++J) // updated in place, as index_copy_ into a cache is
    H->Active[2][J] += 1.0f;
#endif
  aoti_torch_delete_tensor_object(X);
  if (fault("oob-run"))
    YF[N * 4] = 1.0f; // one past the end of y's storage
  if (fault("error-run")) {
    aoti_torch_delete_tensor_object(Y);
    aoti_torch_delete_tensor_object(Row);
    return fail("fake model: injected error after taking the inputs");
  }

  Outputs[0] = Y;
  Outputs[1] = Y; // the same handle in two slots, as AOTInductor may return
  Outputs[2] = Row;
  if (fault("null-output")) {
    aoti_torch_delete_tensor_object(Row);
    Outputs[2] = nullptr;
  }
  return 0;
}

FAKE_EXPORT int32_t AOTInductorModelContainerRunSingleThreaded(Handle H, AtenTensorHandle *In,
                                                               size_t NIn, AtenTensorHandle *Out,
                                                               size_t NOut, void *Stream,
                                                               void *Proxy) {
  return AOTInductorModelContainerRun(H, In, NIn, Out, NOut, Stream, Proxy);
}

#ifdef FAKE_MODEL_STATE
namespace {
/// AOTInductorConstantMapHandle.
using ConstantMap = std::unordered_map<std::string, AtenTensorHandle>;
float *constantData(Handle H, size_t I) { return H->Active[I]; }
} // namespace

FAKE_EXPORT int32_t AOTInductorModelContainerGetConstantType(Handle, size_t I, int32_t *Type) {
  if (I >= NumConstants)
    return 1;
  *Type = I == 2 ? 2 /* Buffer */ : 1 /* Parameter */;
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerExtractConstantsMap(Handle H, ConstantMap *Map,
                                                                 bool UseInactive) {
  if (UseInactive)
    return fail("fake model: no inactive constant buffer");
  const int64_t Sizes[] = {4}, Strides[] = {1};
  for (size_t I = 0; I < NumConstants; ++I) {
    void *Now = nullptr;
    if (H->Views[I] && (aoti_torch_get_data_ptr(H->Views[I], &Now) != 0 || Now != H->Active[I])) {
      aoti_torch_delete_tensor_object(H->Views[I]); // the constant was swapped since
      H->Views[I] = nullptr;
    }
    if (!H->Views[I] && aoti_torch_create_tensor_from_blob(
                            constantData(H, I), 1, Sizes, Strides, 0,
                            aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0,
                            &H->Views[I]) != 0)
      return fail("fake model: cannot make a constant's tensor");
    Map->emplace(ConstantFQNs[I], H->Views[I]);
  }
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerUpdateConstantBuffer(Handle H, ConstantMap *Map,
                                                                  bool UseInactive,
                                                                  bool /*ValidateFull*/) {
  if (UseInactive)
    return fail("fake model: no inactive constant buffer");
  for (size_t I = 0; I < NumConstants; ++I) {
    auto It = Map->find(ConstantNames[I]);
    if (It == Map->end())
      continue;
    void *Data = nullptr;
    if (aoti_torch_get_data_ptr(It->second, &Data) != 0)
      return fail("fake model: cannot read a constant given");
    std::memcpy(constantData(H, I), Data, 4 * sizeof(float));
  }
  return 0;
}
/// AOTInductorConstantMapEntry.
struct ConstantMapEntry {
  const char *Name;
  AtenTensorHandle Handle;
};
FAKE_EXPORT int32_t AOTInductorModelContainerUpdateUserManagedConstantBufferPairs(
    Handle H, const ConstantMapEntry *Pairs, size_t N, bool UseInactive, bool /*Validate*/) {
  if (!UseInactive)
    return fail("fake model: user-managed constants go to the inactive buffer here");
  for (size_t I = 0; I < NumConstants; ++I)
    H->Staged[I] = nullptr;
  for (size_t P = 0; P < N; ++P)
    for (size_t I = 0; I < NumConstants; ++I)
      if (std::strcmp(Pairs[P].Name, ConstantNames[I]) == 0) {
        void *Data = nullptr;
        if (aoti_torch_get_data_ptr(Pairs[P].Handle, &Data) != 0)
          return fail("fake model: cannot read a constant given");
        H->Staged[I] = static_cast<float *>(Data);
      }
  // What is not given stays pointing at the model's own (as torch does),
  // which FreeInactiveConstantBuffer then poisons.
  for (size_t I = 0; I < NumConstants; ++I)
    if (!H->Staged[I])
      H->Staged[I] = H->Active[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerSwapConstantBuffer(Handle H) {
  if (!H->Staged[0])
    return fail("fake model: nothing staged to swap in");
  for (size_t I = 0; I < NumConstants; ++I)
    H->Active[I] = H->Staged[I];
  return 0;
}
FAKE_EXPORT int32_t AOTInductorModelContainerFreeInactiveConstantBuffer(Handle H) {
  for (float *Own : {H->W, H->B, H->Steps})
    for (int J = 0; J < 4; ++J)
      Own[J] = __builtin_nanf("");
  return 0;
}
#endif

#ifdef FAKE_MODEL_EXTRA_IMPORTS
// Two references no host defines: a shim that does not exist and a CUDA
// runtime call. Never called; binding them is what must fail.
extern "C" int32_t aoti_torch_fake_missing_shim(void);
extern "C" int cudaFakeMissingRuntimeCall(void);
FAKE_EXPORT int32_t fake_model_needs_missing_symbols(void) {
  return aoti_torch_fake_missing_shim() + cudaFakeMissingRuntimeCall();
}
#endif
