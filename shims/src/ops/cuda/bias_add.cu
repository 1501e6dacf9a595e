//===- ops/cuda/bias_add.cu - Per-channel bias, when cuDNN refuses it ------===//
//
// A grid-stride loop over the dense output: each element finds its channel
// from its linear index and adds that channel's bias in float32. Written
// here only because cudnnAddTensor may not take a dtype (see bias_add.h).
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/bias_add.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace aoti::shims::ops::cuda {
namespace {

template <typename T>
__global__ void addBias(T *out, const T *bias, int64_t numel, int64_t channels,
                        int64_t inner) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < numel; i += step) {
    const int64_t c = (i / inner) % channels;
    out[i] = static_cast<T>(static_cast<float>(out[i]) +
                            static_cast<float>(bias[c]));
  }
}

template <typename T>
cudaError_t launch(void *out, const void *bias, int64_t numel,
                   int64_t channels, int64_t inner, cudaStream_t stream) {
  constexpr int threads = 256;
  const int64_t wanted = (numel + threads - 1) / threads;
  const unsigned blocks =
      static_cast<unsigned>(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
  addBias<T><<<blocks, threads, 0, stream>>>(static_cast<T *>(out),
                                             static_cast<const T *>(bias),
                                             numel, channels, inner);
  return cudaGetLastError();
}

} // namespace

cudaError_t launchAddBias(void *out, const void *bias, int64_t numel,
                          int64_t channels, int64_t inner, BiasType type,
                          cudaStream_t stream) {
  switch (type) {
  case BiasType::Float16:
    return launch<__half>(out, bias, numel, channels, inner, stream);
  case BiasType::BFloat16:
    return launch<__nv_bfloat16>(out, bias, numel, channels, inner, stream);
  default:
    return launch<float>(out, bias, numel, channels, inner, stream);
  }
}

} // namespace aoti::shims::ops::cuda
