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

/// The kernels of attention.cu. Tiled (the default) gives a block a tile of
/// 64 or 32 query rows (32 where 64-row blocks would leave SMs idle) and
/// register-blocks Q K^T and P V through shared memory; TiledRows64 and
/// TiledRows32 force the tile (AOTI_SHIMS_CUDA_ATTENTION=tiled-64 or
/// tiled-32: tests and A/B timing); where the device lacks the shared
/// memory they run Chunked instead.
/// Chunked (one warp per query row, 32 keys per step; the kernel before
/// Tiled, AOTI_SHIMS_CUDA_ATTENTION=row) and PerKey (one key per step;
/// the simplest, AOTI_SHIMS_CUDA_ATTENTION=per-key) stay as cross-checks
/// and for A/B timing.
enum class AttentionKernel { Tiled, TiledRows64, TiledRows32, Chunked, PerKey };

/// Enqueues the attention of `args` (device pointers, head dims within
/// kMaxCudaHeadDim) on `stream` of the current device.
cudaError_t launchAttentionKernel(const AttentionArgs &args,
                                  AttentionKernel kernel, cudaStream_t stream);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CUDA_ATTENTION_KERNEL_H
