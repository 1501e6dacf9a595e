//===- cuda_internal.h - Shared by the CUDA implementation files -----------===//
//
// Only cuda/*.cpp and cuda/*.cu include this. The kernel file sees nothing
// but this header, grid.h and the CUDA runtime, so nvcc never has to parse
// the rest of the library.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_CUDA_INTERNAL_H
#define AOTI_SHIMS_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aoti::shims::cuda {

/// Devices a process may use; indices beyond this are rejected.
constexpr int32_t kMaxDevices = 64;

/// The most dimensions a strided copy kernel takes after planCopy() merged
/// what it could (real tensors need far fewer).
constexpr int32_t kMaxCopyDims = 16;

/// Arguments of one strided copy kernel launch; strides in elements.
struct StridedCopyArgs {
  void *dst;
  const void *src;
  int64_t numel;
  int32_t ndim;
  int32_t itemSize; // 1, 2, 4, 8 or 16
  int64_t sizes[kMaxCopyDims];
  int64_t dstStrides[kMaxCopyDims];
  int64_t srcStrides[kMaxCopyDims];
};

/// Enqueues the copy on `stream` (of the current device).
cudaError_t launchStridedCopy(const StridedCopyArgs &args, cudaStream_t stream);

/// The bytes of one device's DeviceCheck (cuda_api.h), as device_check.cu
/// holds them.
constexpr size_t kDeviceCheckBytes = 32;

/// The address, on the current device, of the DeviceCheck device_check.cu
/// defines (a __device__ variable: one per device, zero when the module is
/// loaded).
cudaError_t deviceCheckAddress(void **address);

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_CUDA_INTERNAL_H
