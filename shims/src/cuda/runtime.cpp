//===- runtime.cpp - Devices, current streams and stream-ordered memory ----===//
//
// The current stream. torch keeps one current stream per (thread, device);
// a model wraps each run in a stream guard for the stream its caller passed
// and expects every allocation, copy and cuBLAS call made on its behalf to be
// ordered on that stream. currentStreams below is the only place this state
// lives: the guards write it, and the allocator, the copies and cuBLAS read
// it. (Link exactly one copy of the shims into a process, so that there is
// exactly one such definition.)
//
// Memory. Device tensors come from cudaMallocAsync on the current stream, out
// of the device's default memory pool, and go back with cudaFreeAsync on the
// stream current when their last reference is dropped. For a model's
// intermediates both are the run's stream, so a freed block is reusable by
// the next allocation on that stream without any synchronisation. The pool's
// release threshold is raised to "never" the first time a device is used, so
// memory freed during one run is still cached for the next instead of going
// back to the driver at every synchronisation (the pool's default); this is
// what keeps per-run intermediates from paying for cudaMalloc.
//
//===----------------------------------------------------------------------===//
#include "copy.h"
#include "cuda_api.h"
#include "cuda_internal.h"
#include "device_scope.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>

namespace aoti::shims::cuda {
namespace {

thread_local cudaStream_t currentStreams[kMaxDevices] = {};

// The visible device count, asked once: it cannot change while the process
// runs.
Expected<int32_t> deviceCount() {
  static const auto result = [] {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      count = 0;
    }
    return std::pair<cudaError_t, int32_t>(status, count);
  }();
  if (result.first != cudaSuccess)
    return checkCuda(result.first, "cudaGetDeviceCount");
  return result.second;
}

// How device memory is obtained on each device: the stream-ordered pool when
// the device supports it, plain cudaMalloc otherwise.
enum class PoolState : uint8_t { Unknown, Pooled, Unpooled };
// Written once per device under poolMutex; read without it when freeing.
std::atomic<PoolState> poolStates[kMaxDevices];
std::mutex poolMutex;

// Called with `device` current.
Expected<PoolState> poolStateFor(int32_t device) {
  std::lock_guard<std::mutex> lock(poolMutex);
  std::atomic<PoolState> &state = poolStates[device];
  if (state.load() != PoolState::Unknown)
    return state.load();
  int supported = 0;
  if (Error err = checkCuda(cudaDeviceGetAttribute(
                            &supported, cudaDevAttrMemoryPoolsSupported, device),
                        "cudaDeviceGetAttribute(MemoryPoolsSupported)"))
    return err;
  if (!supported) {
    state.store(PoolState::Unpooled);
    return PoolState::Unpooled;
  }
  cudaMemPool_t pool = nullptr;
  if (Error err = checkCuda(cudaDeviceGetDefaultMemPool(&pool, device),
                        "cudaDeviceGetDefaultMemPool"))
    return err;
  uint64_t threshold = std::numeric_limits<uint64_t>::max();
  if (Error err = checkCuda(cudaMemPoolSetAttribute(
                            pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                        "cudaMemPoolSetAttribute(ReleaseThreshold)"))
    return err;
  state.store(PoolState::Pooled);
  return PoolState::Pooled;
}

} // namespace

bool compiledIn() { return true; }

Expected<int32_t> currentDevice() {
  int device = 0;
  if (Error err = checkCuda(cudaGetDevice(&device), "cudaGetDevice"))
    return err;
  return static_cast<int32_t>(device);
}

Expected<int32_t> resolveDeviceIndex(int32_t index) {
  Expected<int32_t> count = deviceCount();
  if (!count)
    return count.takeError();
  if (index == -1)
    return currentDevice();
  if (index < 0 || index >= *count || index >= kMaxDevices)
    return Error::failure("CUDA device index ", index, " out of range (",
                          *count, " device(s) visible)");
  return index;
}

Error setDevice(int32_t index) {
  return checkCuda(cudaSetDevice(index), "cudaSetDevice");
}

void *currentStream(int32_t device) {
  if (device < 0 || device >= kMaxDevices)
    return nullptr;
  return currentStreams[device];
}

void setCurrentStream(int32_t device, void *stream) {
  if (device >= 0 && device < kMaxDevices)
    currentStreams[device] = static_cast<cudaStream_t>(stream);
}

Expected<void *> allocate(int32_t device, size_t nbytes) {
  if (nbytes == 0)
    return static_cast<void *>(nullptr);
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  Expected<PoolState> state = poolStateFor(device);
  if (!state)
    return state.takeError();
  void *data = nullptr;
  if (*state == PoolState::Pooled) {
    if (Error err = checkCuda(cudaMallocAsync(&data, nbytes, currentStreams[device]),
                          "cudaMallocAsync"))
      return Error::failure(err.message(), " (", nbytes, " bytes on cuda:",
                            device, ")");
    return data;
  }
  if (Error err = checkCuda(cudaMalloc(&data, nbytes), "cudaMalloc"))
    return Error::failure(err.message(), " (", nbytes, " bytes on cuda:",
                          device, ")");
  return data;
}

void release(void *data, Device device) noexcept {
  if (!data)
    return;
  const int32_t index = device.index;
  ScopedDevice scope(index);
  if (Error err = scope.takeStatus()) {
    // Leaks the block; a deleter has no one to report to but the last error.
    recordError("cuda free", err.message().c_str());
    return;
  }
  // The pool state is known: allocate() set it before this block existed.
  const cudaError_t status =
      poolStates[index].load() == PoolState::Pooled
          ? cudaFreeAsync(data, currentStreams[index])
          : cudaFree(data);
  // At process exit the runtime may already be gone; nothing to free then.
  if (status != cudaSuccess && status != cudaErrorCudartUnloading) {
    (void)cudaGetLastError();
    recordError("cuda free", cudaGetErrorString(status));
  }
}

Error copyBytes(void *dst, const void *src, size_t nbytes,
                int32_t streamDevice) {
  if (nbytes == 0)
    return Error::success();
  ScopedDevice scope(streamDevice);
  if (Error err = scope.takeStatus())
    return err;
  return checkCuda(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault,
                               currentStreams[streamDevice]),
               "cudaMemcpyAsync");
}

Error zeroBytes(void *dst, size_t nbytes, int32_t device) {
  if (nbytes == 0)
    return Error::success();
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  return checkCuda(cudaMemsetAsync(dst, 0, nbytes, currentStreams[device]),
               "cudaMemsetAsync");
}

Error synchronize(int32_t device) {
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  return checkCuda(cudaStreamSynchronize(currentStreams[device]),
               "cudaStreamSynchronize");
}

Error stridedCopy(const CopyPlan &plan, void *dst, const void *src,
                  size_t itemSize, int32_t device) {
  const int64_t numel = plan.numel();
  if (numel == 0)
    return Error::success();
  // One contiguous run on both sides: a plain device-to-device memcpy.
  if (plan.sizes.size() == 1 && plan.dstStrides[0] == 1 &&
      plan.srcStrides[0] == 1)
    return copyBytes(dst, src, static_cast<size_t>(numel) * itemSize, device);
  if (plan.sizes.size() > static_cast<size_t>(kMaxCopyDims))
    return Error::failure("strided copy needs ", plan.sizes.size(),
                          " dimensions after merging; at most ", kMaxCopyDims,
                          " are supported");
  StridedCopyArgs args = {};
  args.dst = dst;
  args.src = src;
  args.numel = numel;
  args.ndim = static_cast<int32_t>(plan.sizes.size());
  args.itemSize = static_cast<int32_t>(itemSize);
  for (size_t d = 0; d < plan.sizes.size(); ++d) {
    args.sizes[d] = plan.sizes[d];
    args.dstStrides[d] = plan.dstStrides[d];
    args.srcStrides[d] = plan.srcStrides[d];
  }
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  return checkCuda(launchStridedCopy(args, currentStreams[device]),
               "strided copy kernel launch");
}

static_assert(sizeof(DeviceCheck) == kDeviceCheckBytes,
              "device_check.cu holds a DeviceCheck");

Expected<DeviceCheck *> deviceCheckWord(int32_t device) {
  if (device < 0 || device >= kMaxDevices)
    return Error::failure("CUDA device index ", device, " out of range");
  static std::atomic<DeviceCheck *> words[kMaxDevices];
  if (DeviceCheck *word = words[device].load(std::memory_order_acquire))
    return word;
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  // The lookup may load the module; relaxed capture mode for its duration,
  // so that a first call while this thread captures a graph is not refused
  // as a potentially unsafe call (it enqueues nothing).
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  const bool exchanged =
      cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  void *address = nullptr;
  const cudaError_t status = deviceCheckAddress(&address);
  if (exchanged)
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
  else
    (void)cudaGetLastError();
  if (Error err = checkCuda(status, "cudaGetSymbolAddress(device check)"))
    return err;
  auto *word = static_cast<DeviceCheck *>(address);
  words[device].store(word, std::memory_order_release);
  return word;
}

Expected<DeviceCheck> takeDeviceCheck(int32_t device) {
  Expected<DeviceCheck *> word = deviceCheckWord(device);
  if (!word)
    return word.takeError();
  DeviceCheck host = {};
  if (Error err = copyBytes(&host, *word, sizeof host, device))
    return err;
  if (Error err = synchronize(device))
    return err;
  // Zeroed only when set: ordered before any later kernel on the stream.
  if (host.set != 0)
    if (Error err = zeroBytes(*word, sizeof host, device))
      return err;
  return host;
}

} // namespace aoti::shims::cuda
