//===- ModelImpl.h - A loaded model, for the backend's own files -*- C++ -*-===//
//
// Model::Impl and what its files share to call into a container: the entry
// points' types, callModel (which keeps an exception inside the model), the
// stream scope for the shims, and the shims' last error in a message.
// Model.cpp loads, State.cpp keeps and restores buffers, Run.cpp moves
// tensors in and out and runs.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_CONTAINER_MODELIMPL_H
#define AOTI_BACKEND_LIB_CONTAINER_MODELIMPL_H

#include "aoti/backend/Model.h"

#include "CudaModules.h"
#include "package/ModelFiles.h"

#include <aoti/shim.h>

#include <dlfcn.h>

#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoti::backend {

namespace detail {

inline std::string shimError(const char *What) {
  std::string Msg = What;
  const char *Detail = aoti_shims_last_error();
  if (Detail && *Detail)
    Msg += std::string(": ") + Detail;
  return Msg;
}

/// C-order strides of Shape (a size-0 or size-1 dimension counts as 1).
inline std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &Shape) {
  std::vector<int64_t> Strides(Shape.size());
  int64_t S = 1;
  for (size_t I = Shape.size(); I-- > 0;) {
    Strides[I] = S;
    S *= std::max<int64_t>(Shape[I], 1);
  }
  return Strides;
}

struct ContainerOpaque;
using ContainerHandle = ContainerOpaque *;
using RuntimeError = int32_t;

/// Calls a model entry point. A model is C++ behind a C ABI; an exception
/// that escapes one (the generated wrappers catch theirs, a hand-written or
/// broken model may not) stops here as an error code and a message instead
/// of unwinding through the runner. The CUDA modules it loads meanwhile are
/// recorded in Modules (CudaModules.h).
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
inline std::string joined(std::string Said, const std::string &Thrown) {
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
/// AOTInductorConstantMapEntry: the same, as pairs, for the entry points
/// that take no std::unordered_map across the library boundary.
struct ConstantMapEntry {
  const char *Name;
  AtenTensorOpaque *Handle;
};
using UserManagedPairsFn = RuntimeError (*)(ContainerHandle, const ConstantMapEntry *, size_t,
                                            bool, bool);
using ContainerFn = RuntimeError (*)(ContainerHandle);
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

inline std::string trimmed(std::string S) {
  while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
    S.pop_back();
  return S;
}

} // namespace detail

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
  /// Points the container at the pool's constants (LoadOptions::
  /// SharedConstants) and frees its own.
  Status joinPool();
  /// The tensors the container uses now, by original FQN (borrowed).
  Expected<detail::ConstantMap> liveConstants();

  template <typename Fn> Fn symbol(const char *Name) {
    return reinterpret_cast<Fn>(dlsym(Library, Name));
  }

  std::string Path;
  LoadOptions Options;
  ModelFiles Files;
  Device Dev;
  std::string CompiledFor;
  void *Library = nullptr;
  detail::ContainerHandle Container = nullptr;
  /// The CUDA modules the container loaded, unloaded after it is deleted.
  std::vector<void *> Modules;

  detail::CreateWithDeviceFn Create = nullptr;
  detail::DeleteFn Delete = nullptr;
  detail::RunFn Run = nullptr;
  detail::CountFn NumInputs = nullptr, NumOutputs = nullptr;
  detail::NameFn InputName = nullptr, OutputName = nullptr;

  std::vector<TensorSpec> Inputs;
  std::vector<std::string> OutputNames;
  std::vector<TensorSpec> OutputSpecs; // names; dtype and shape once run
  std::vector<ConstantInfo> Constants;
  /// The buffers as loaded, by constant name, for resetState().
  std::vector<std::pair<std::string, TensorHandle>> InitialState;
  bool StateKept = false;
  uint64_t BlobSize = 0;
  /// The pool it shares constants through, what it found there, and the
  /// constants of a pool's name but another value, which it keeps itself.
  std::shared_ptr<ConstantPool> Pool;
  ConstantSharing Sharing;
  std::vector<TensorHandle> OwnConstants;
  /// The span of its constants section (DynamicImports).
  std::optional<uint64_t> EmbeddedConstantsSize;
  std::vector<std::string> Notes;
};

} // namespace aoti::backend

#endif
