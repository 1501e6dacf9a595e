//===- ops/cuda/bias_add.h - Per-channel bias, when cuDNN refuses it -------===//
//
// cudnnAddTensor adds the convolution's bias. Where cuDNN does not take the
// dtype for that call (it answers CUDNN_STATUS_NOT_SUPPORTED), this kernel
// does the same: out[i] += bias[channel(i)] over a dense output, computed in
// float32 and rounded once. Only the CUDA runtime is visible here, so nvcc
// never parses the rest of the library.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_BIAS_ADD_H
#define AOTI_SHIMS_OPS_CUDA_BIAS_ADD_H

#include <cuda_runtime_api.h>

#include <cstdint>

namespace aoti::shims::ops::cuda {

enum class BiasType : int32_t { Float32, Float16, BFloat16 };

/// Enqueues out[i] += bias[(i / inner) % channels] for i < numel on `stream`
/// (of the current device): inner is the spatial size for NCHW outputs, 1
/// for NHWC ones.
cudaError_t launchAddBias(void *out, const void *bias, int64_t numel,
                          int64_t channels, int64_t inner, BiasType type,
                          cudaStream_t stream);

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_BIAS_ADD_H
