//===- State.cpp - A model's buffers across runs, and shared constants ----===//
//
// A model's registered buffers (constants of kind Buffer: a static KV
// cache written with index_copy_, a step counter, running statistics) live in
// the loaded container, so a run's in-place updates persist to the next run,
// as in eager. At load, keepInitialState() copies each (LoadOptions::
// KeepInitialState); resetState() copies them back into the tensors the
// container uses now (ExtractConstantsMap), in place, so it works the same
// whether the container owns that storage or a ConstantPool does.
//
// Sharing (joinPool), for a model loaded with LoadOptions::SharedConstants:
//
//   1. read the container's constants (ExtractConstantsMap, by original FQN);
//   2. for each one not computed by constant folding, copy its bytes to the
//      host and hash them (xxh3); a pool entry of the same FQN, dtype,
//      sizes, strides, device and hash is used as it is; otherwise the bytes
//      are uploaded into a new tensor, which becomes the pool's entry (or,
//      when the pool has that name with another value, the model's own);
//   3. hand the container every tensor, user-managed (not copied), as its
//      inactive constant buffer (UpdateUserManagedConstantBuffer[Pairs]),
//      swap it in, and free the inactive one: the container's own copy of
//      its weights; then the same once more, to end on the primary buffer.
//      Folded constants are computed again at the next run.
//
// Every constant not folded is handed over: for the tensors it is not given,
// the container would keep pointers into the storage step 3 frees.
//
//===----------------------------------------------------------------------===//
#include "ModelImpl.h"

#include "llvm/Support/xxhash.h"

#include <map>
#include <mutex>

namespace aoti::backend {

using namespace detail;

namespace {

std::string keyOf(const ConstantInfo &C) { return C.OriginalFQN.empty() ? C.Name : C.OriginalFQN; }

/// What must agree for one tensor to stand in for another.
struct Layout {
  int32_t DType = 0, DeviceType = 0, DeviceIndex = 0;
  std::vector<int64_t> Sizes, Strides;
  bool operator==(const Layout &O) const {
    return DType == O.DType && DeviceType == O.DeviceType && DeviceIndex == O.DeviceIndex &&
           Sizes == O.Sizes && Strides == O.Strides;
  }
};

Expected<Layout> layoutOf(AtenTensorOpaque *T) {
  Layout L;
  int64_t Dim = 0, *Sizes = nullptr, *Strides = nullptr;
  if (aoti_torch_get_dtype(T, &L.DType) != 0 || aoti_torch_get_device_type(T, &L.DeviceType) != 0 ||
      aoti_torch_get_device_index(T, &L.DeviceIndex) != 0 || aoti_torch_get_dim(T, &Dim) != 0 ||
      aoti_torch_get_sizes(T, &Sizes) != 0 || aoti_torch_get_strides(T, &Strides) != 0)
    return Error(ErrorKind::LoadFailed, shimError("cannot describe a constant"));
  L.Sizes.assign(Sizes, Sizes + Dim);
  L.Strides.assign(Strides, Strides + Dim);
  return L;
}

/// A tensor's elements, dense in C order, in host memory.
struct HostCopy {
  std::vector<uint8_t> Bytes;
  std::vector<int64_t> Strides; // C-order strides of Sizes
};

/// A CPU tensor over H's bytes, with L's sizes and dtype.
Expected<TensorHandle> hostView(HostCopy &H, const Layout &L) {
  AtenTensorOpaque *Host = nullptr;
  if (aoti_torch_create_tensor_from_blob(H.Bytes.data(), static_cast<int64_t>(L.Sizes.size()),
                                         L.Sizes.data(), H.Strides.data(), 0, L.DType,
                                         aoti_torch_device_type_cpu(), 0, &Host) != 0)
    return Error(ErrorKind::LoadFailed, shimError("cannot wrap host memory"));
  return TensorHandle(Host);
}

Expected<HostCopy> toHost(AtenTensorOpaque *T, const Layout &L) {
  HostCopy H;
  H.Strides = contiguousStrides(L.Sizes);
  int64_t N = 1;
  for (int64_t S : L.Sizes)
    N *= S;
  H.Bytes.resize(static_cast<size_t>(N) * aoti_torch_dtype_element_size(L.DType));
  if (N == 0)
    return H;
  Expected<TensorHandle> Host = hostView(H, L);
  if (!Host)
    return Host.takeError();
  if (aoti_torch_copy_(Host->get(), T, /*non_blocking=*/0) != 0)
    return Error(ErrorKind::LoadFailed, shimError("cannot copy a constant to the host"));
  return H;
}

/// A new tensor of layout L holding H (a synchronous copy).
Expected<TensorHandle> fromHost(HostCopy &H, const Layout &L) {
  AtenTensorOpaque *T = nullptr;
  if (aoti_torch_empty_strided(static_cast<int64_t>(L.Sizes.size()), L.Sizes.data(),
                               L.Strides.data(), L.DType, L.DeviceType, L.DeviceIndex, &T) != 0)
    return Error(ErrorKind::LoadFailed, shimError("cannot allocate a shared constant"));
  TensorHandle Owned(T);
  if (H.Bytes.empty())
    return Owned;
  Expected<TensorHandle> Host = hostView(H, L);
  if (!Host)
    return Host.takeError();
  if (aoti_torch_copy_(T, Host->get(), /*non_blocking=*/0) != 0)
    return Error(ErrorKind::LoadFailed, shimError("cannot copy a shared constant"));
  return Owned;
}

std::string mib(uint64_t Bytes) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.1f MiB", static_cast<double>(Bytes) / (1 << 20));
  return Buf;
}

} // namespace

// --- The pool -----------------------------------------------------------------

class ConstantPool::Impl {
public:
  struct Entry {
    TensorHandle Tensor;
    Layout Shape;
    uint64_t Hash = 0;
    uint64_t Bytes = 0;
  };
  mutable std::mutex Mutex;
  std::map<std::string, Entry> Entries; // by original FQN
  uint64_t Bytes = 0;
};

ConstantPool::ConstantPool() : P(std::make_unique<Impl>()) {}
ConstantPool::~ConstantPool() = default;

size_t ConstantPool::size() const {
  std::lock_guard Lock(P->Mutex);
  return P->Entries.size();
}

uint64_t ConstantPool::bytes() const {
  std::lock_guard Lock(P->Mutex);
  return P->Bytes;
}

// --- The container's constants ---------------------------------------------------

Expected<ConstantMap> Model::Impl::liveConstants() {
  auto Extract = symbol<ExtractConstantsFn>("AOTInductorModelContainerExtractConstantsMap");
  if (!Extract)
    return Error(ErrorKind::InvalidArgument,
                 Path + ": the model does not export ExtractConstantsMap");
  ConstantMap Live;
  std::string Thrown;
  if (callModel(Modules, Thrown, [&] { return Extract(Container, &Live, false); }) != 0)
    return Error(ErrorKind::LoadFailed,
                 Path + ": cannot read the model's constants (ExtractConstantsMap)" +
                     (Thrown.empty() ? "" : ": " + Thrown));
  return Live;
}

Status Model::Impl::joinPool() {
  auto Pairs = symbol<UserManagedPairsFn>(
      "AOTInductorModelContainerUpdateUserManagedConstantBufferPairs");
  auto MapUpdate =
      symbol<UpdateConstantsFn>("AOTInductorModelContainerUpdateUserManagedConstantBuffer");
  auto Swap = symbol<ContainerFn>("AOTInductorModelContainerSwapConstantBuffer");
  auto FreeInactive = symbol<ContainerFn>("AOTInductorModelContainerFreeInactiveConstantBuffer");
  if ((!Pairs && !MapUpdate) || !Swap || !FreeInactive)
    return Error(ErrorKind::LoadFailed,
                 Path + ": cannot share its constants: the model does not export "
                        "UpdateUserManagedConstantBuffer, SwapConstantBuffer and "
                        "FreeInactiveConstantBuffer (a torch older than 2.6 built it)");
  Expected<ConstantMap> Live = liveConstants();
  if (!Live)
    return Live.takeError();

  StreamScope Scope(Dev, nullptr);
  ConstantPool::Impl &Shared = *Pool->P;
  std::lock_guard Lock(Shared.Mutex);
  std::vector<std::pair<std::string, AtenTensorOpaque *>> Use; // by constant name
  size_t Differ = 0;
  for (const ConstantInfo &C : Constants) {
    if (C.FromFolded)
      continue;
    const std::string Key = keyOf(C);
    auto It = Live->find(Key);
    if (It == Live->end()) {
      if (C.DataSize == 0)
        continue;
      return Error(ErrorKind::LoadFailed, Path + ": cannot share its constants: the container "
                                                 "holds no tensor for " + Key);
    }
    Expected<Layout> L = layoutOf(It->second);
    if (!L)
      return L.takeError();
    Expected<HostCopy> Bytes = toHost(It->second, *L);
    if (!Bytes)
      return Bytes.takeError();
    const uint64_t Hash = llvm::xxh3_64bits(Bytes->Bytes);
    auto Found = Shared.Entries.find(Key);
    if (Found != Shared.Entries.end() && Found->second.Shape == *L &&
        Found->second.Hash == Hash) {
      Use.emplace_back(C.Name, Found->second.Tensor.get());
      ++Sharing.Shared;
      Sharing.SharedBytes += Bytes->Bytes.size();
      continue;
    }
    Expected<TensorHandle> Copy = fromHost(*Bytes, *L);
    if (!Copy)
      return Copy.takeError();
    Use.emplace_back(C.Name, Copy->get());
    ++Sharing.Added;
    Sharing.AddedBytes += Bytes->Bytes.size();
    if (Found == Shared.Entries.end()) {
      Shared.Bytes += Bytes->Bytes.size();
      Shared.Entries.emplace(Key, ConstantPool::Impl::Entry{std::move(*Copy), *L, Hash,
                                                             Bytes->Bytes.size()});
    } else {
      ++Differ;
      OwnConstants.push_back(std::move(*Copy));
    }
  }

  std::string Thrown;
  std::vector<ConstantMapEntry> Entries;
  for (const auto &[Name, T] : Use)
    Entries.push_back({Name.c_str(), T});
  auto HandOver = [&] {
    if (Pairs)
      return callModel(Modules, Thrown, [&] {
        return Pairs(Container, Entries.data(), Entries.size(), /*use_inactive=*/true,
                     /*validate_full_update=*/false);
      });
    ConstantMap Map(Use.begin(), Use.end());
    return callModel(Modules, Thrown, [&] { return MapUpdate(Container, &Map, true, false); });
  };
  auto SwapIn = [&] { return callModel(Modules, Thrown, [&] { return Swap(Container); }); };
  // Handed over, swapped in, the container's own freed; then handed over
  // again and swapped back, so that the primary buffer is the active one:
  // torch's RunSingleThreaded checks the primary's folding state whichever
  // is active, and refuses every run after the first on the secondary
  // ("Unknown constant state").
  if (HandOver() != 0 || SwapIn() != 0)
    return Error(ErrorKind::LoadFailed, Path + ": cannot point the model at shared constants" +
                                            (Thrown.empty() ? "" : ": " + Thrown));
  if (callModel(Modules, Thrown, [&] { return FreeInactive(Container); }) != 0)
    Notes.push_back("the model's own copy of its constants could not be freed" +
                    (Thrown.empty() ? std::string() : ": " + Thrown));
  if (HandOver() != 0 || SwapIn() != 0)
    return Error(ErrorKind::LoadFailed, Path + ": cannot point the model at shared constants" +
                                            (Thrown.empty() ? "" : ": " + Thrown));
  Sharing.Pooled = true;
  Notes.push_back("shares " + std::to_string(Sharing.Shared) + " of its " +
                  std::to_string(Sharing.Shared + Sharing.Added) + " constants (" +
                  mib(Sharing.SharedBytes) + ") with models loaded before it; the pool holds " +
                  std::to_string(Shared.Entries.size()) + " (" + mib(Shared.Bytes) + ")");
  if (Differ)
    Notes.push_back(std::to_string(Differ) + " of its constants have a name in the pool but "
                                             "another value, and are its own");
  return Status::success();
}

// --- State --------------------------------------------------------------------------

Status Model::Impl::keepInitialState() {
  std::vector<const ConstantInfo *> Buffers;
  for (const ConstantInfo &C : Constants)
    if (C.Kind == ConstantKind::Buffer && !C.FromFolded)
      Buffers.push_back(&C);
  if (Buffers.empty() || !symbol<ExtractConstantsFn>("AOTInductorModelContainerExtractConstantsMap"))
    return Status::success(); // resetState() says why it cannot
  Expected<ConstantMap> Live = liveConstants();
  if (!Live)
    return Live.takeError();
  StreamScope Scope(Dev, nullptr);
  for (const ConstantInfo *C : Buffers) {
    auto It = Live->find(keyOf(*C));
    if (It == Live->end())
      return Error(ErrorKind::LoadFailed,
                   Path + ": the model lists buffer " + C->Name + " but does not hold it");
    AtenTensorOpaque *Copy = nullptr;
    if (aoti_torch_clone(It->second, &Copy) != 0)
      return Error(ErrorKind::LoadFailed,
                   Path + ": cannot copy buffer " + C->Name + ": " + shimError("clone"));
    InitialState.emplace_back(keyOf(*C), TensorHandle(Copy));
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
                               ? ": the model does not export ExtractConstantsMap, so its "
                                 "buffers cannot be reset"
                               : ": loaded without LoadOptions::KeepInitialState, so its "
                                 "buffers' first values are gone"));
  }
  if (M.InitialState.empty())
    return Status::success();
  Expected<ConstantMap> Live = M.liveConstants();
  if (!Live)
    return Live.takeError();
  // Into the storage the container uses now, its own or a pool's.
  StreamScope Scope(M.Dev, nullptr);
  for (const auto &[Key, T] : M.InitialState) {
    auto It = Live->find(Key);
    if (It == Live->end())
      return Error(ErrorKind::RunFailed, M.Path + ": the model no longer holds buffer " + Key);
    if (aoti_torch_copy_(It->second, T.get(), /*non_blocking=*/0) != 0)
      return Error(ErrorKind::RunFailed,
                   shimError((M.Path + ": cannot reset buffer " + Key).c_str()));
  }
  return Status::success();
}

std::vector<std::string> Model::stateNames() const {
  std::vector<std::string> Names;
  for (const ConstantInfo &C : P->Constants)
    if (C.Kind == ConstantKind::Buffer && !C.FromFolded)
      Names.push_back(C.Name);
  return Names;
}

const ConstantSharing &Model::sharing() const { return P->Sharing; }

} // namespace aoti::backend
