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

/// The two kernels of attention.cu: Chunked (the default) scores 32 keys
/// per warp step, PerKey one (simpler; kept as the cross-check, selected
/// with AOTI_SHIMS_CUDA_ATTENTION=per-key).
enum class AttentionKernel { Chunked, PerKey };

/// Enqueues the attention of `args` (device pointers, head dims within
/// kMaxCudaHeadDim) on `stream` of the current device.
cudaError_t launchAttentionKernel(const AttentionArgs &args,
                                  AttentionKernel kernel, cudaStream_t stream);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CUDA_ATTENTION_KERNEL_H
