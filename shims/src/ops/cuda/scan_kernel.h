//===- ops/cuda/scan_kernel.h - cumsum kernel arguments --------------------===//
//
// Shared by ops/cuda/scan.cpp (host) and ops/cuda/scan.cu (kernel), which
// sees nothing but this header and the CUDA runtime.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_SCAN_KERNEL_H
#define AOTI_SHIMS_OPS_CUDA_SCAN_KERNEL_H

#include <cuda_runtime_api.h>

#include <cstdint>

namespace aoti::shims::cuda {

/// Element types the kernel reads (all) and writes (UInt8..Int64, Float16,
/// BFloat16, Float32, Float64).
enum class ScanElement : int32_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};

/// The most outer (not scanned) dimensions a launch takes.
constexpr int32_t kMaxScanOuterDims = 16;

/// One cumsum launch: ops/scan.h's ScanLines, strides in elements.
struct CumsumArgs {
  void *dst;
  const void *src;
  ScanElement inType;
  ScanElement outType;
  int64_t lines;
  int64_t length;
  int64_t srcStride;
  int64_t dstStride;
  int32_t outerDims;
  int64_t outerSizes[kMaxScanOuterDims];
  int64_t srcOuterStrides[kMaxScanOuterDims];
  int64_t dstOuterStrides[kMaxScanOuterDims];
};

/// Enqueues the cumsum on `stream` (of the current device).
cudaError_t launchCumsum(const CumsumArgs &args, cudaStream_t stream);

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_OPS_CUDA_SCAN_KERNEL_H
