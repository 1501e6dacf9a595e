//===- Run.cpp - Tensors in and out of a model, and its runs --------------===//
//
// Inputs are uploaded once (or wrapped in place) and each run hands the
// model new handles onto their storage, since Run steals what it is given;
// outputs come back as owning handles, one handle possibly in several slots,
// and are owned once (OutputSet). Every copy goes through the shims on the
// model's device and stream, so this file does not depend on CUDA.
//
//===----------------------------------------------------------------------===//
#include "ModelImpl.h"

#include "process/StderrCapture.h"

#include <map>
#include <optional>

namespace aoti::backend {

using namespace detail;

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

Expected<TensorSpec> TensorHandle::describe(std::string Name) const {
  int32_t Code = 0;
  int64_t Dim = 0, *Sizes = nullptr;
  if (aoti_torch_get_dtype(H, &Code) != 0 || aoti_torch_get_dim(H, &Dim) != 0 ||
      aoti_torch_get_sizes(H, &Sizes) != 0)
    return Error(ErrorKind::RunFailed, shimError("cannot describe a tensor"));
  TensorSpec S{std::move(Name), dtypeFromCode(Code), std::vector<int64_t>(Sizes, Sizes + Dim)};
  return S;
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

Expected<DeviceInputs> inputsFrom(const OutputSet &Outputs, const std::vector<size_t> &Slots) {
  DeviceInputs In;
  for (size_t Slot : Slots) {
    if (Slot >= Outputs.size())
      return Error(ErrorKind::InvalidArgument,
                   "output slot " + std::to_string(Slot) + " of a run with " +
                       std::to_string(Outputs.size()) + " outputs");
    AtenTensorHandle H = nullptr;
    if (aoti_torch_new_tensor_handle(Outputs.slot(Slot), &H) != 0)
      return Error(ErrorKind::RunFailed, shimError("cannot make an input handle"));
    In.Tensors.emplace_back(H);
  }
  return In;
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
