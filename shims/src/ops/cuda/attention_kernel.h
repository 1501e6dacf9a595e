//===- cuda/attention_kernel.h - The attention kernel's launcher -----------===//
//
// Seen by cuda/attention.cpp and cuda/attention.cu only; nvcc parses nothing
// but this, attention_args.h and the CUDA runtime.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_ATTENTION_KERNEL_H
#define AOTI_SHIMS_OPS_CUDA_ATTENTION_KERNEL_H

#include "ops/attention_args.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace aoti::shims::ops {

/// The largest query/key and value head dim the kernel takes: each lane of
/// a warp keeps kMaxHeadDim / 32 values of its query row and accumulator in
/// registers. torch's flash kernels stop at 256 too.
constexpr int64_t kMaxCudaHeadDim = 256;

/// Enqueues the attention of `args` (device pointers, head dims within
/// kMaxCudaHeadDim) on `stream` of the current device.
cudaError_t launchAttentionKernel(const AttentionArgs &args,
                                  cudaStream_t stream);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CUDA_ATTENTION_KERNEL_H
