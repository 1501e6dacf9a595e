//===- State.cpp - A model's buffers across runs --------------------------===//
//
// A model's registered buffers (constants of kind Buffer: a static KV
// cache written with index_copy_, a step counter, running statistics) live in
// the loaded container, so a run's in-place updates persist to the next run,
// as in eager. At load, keepInitialState() copies each (LoadOptions::
// KeepInitialState); resetState() hands the copies back through
// UpdateConstantBuffer, which copies each into the container's storage.
//
//===----------------------------------------------------------------------===//
#include "ModelImpl.h"

namespace aoti::backend {

using namespace detail;

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
} // namespace aoti::backend
