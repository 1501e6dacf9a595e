//===- ops/cuda/scan.cu - cumsum kernel ------------------------------------===//
//
// Our own kernel (cuBLAS and cuDNN have no prefix sum; CUB's would need a
// segmented scan over strided lines). It is deliberately simple: one thread
// per line (see ops/scan.h), grid-stride over the lines, each thread
// summing its line in order from the first element to the last:
//   acc = 0; for j: acc += Out(self[j]); out[j] = Out(acc)
// The line index is split into outer coordinates with the outer sizes and
// dotted with each side's strides. Work per thread is the line length, so
// a tensor with few long lines uses few threads; reads of neighbouring
// threads are coalesced when the scanned dimension is not the innermost
// one. Good enough for a fallback; a model whose cumsum is hot should get a
// decoupled-lookback scan.
//
// The input is converted to the result dtype first (ATen sums
// self.to(result dtype)); the accumulator is double for float32 and
// float64, float for float16 and bfloat16, and a wrapping 64-bit integer
// for the integer types. (torch's CUDA kernel accumulates float32 in float
// and in a tree order, so float32 results may differ from torch's by
// rounding, ~1e-6 relative per element; never by more than float32
// summation error.) The result dtype is a template parameter; the input
// dtype is a switch per element, which keeps this file to 9 kernels.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/scan_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace aoti::shims::cuda {
namespace {

template <typename Out> struct Accumulator {
  using type = long long;
};
template <> struct Accumulator<float> {
  using type = double;
};
template <> struct Accumulator<double> {
  using type = double;
};
template <> struct Accumulator<__half> {
  using type = float;
};
template <> struct Accumulator<__nv_bfloat16> {
  using type = float;
};

// An arithmetic value as element type Out (a floating value becomes an
// integer through int64, as c10 converts).
template <typename Out, typename V> __device__ Out castTo(V v) {
  if constexpr (std::is_same_v<Out, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<Out, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else if constexpr (std::is_integral_v<Out> && std::is_floating_point_v<V>)
    return static_cast<Out>(static_cast<long long>(v));
  else
    return static_cast<Out>(v);
}

// An element of Out as its accumulator's type.
template <typename Out> __device__ auto accumulable(Out x) {
  if constexpr (std::is_same_v<Out, __half>)
    return __half2float(x);
  else if constexpr (std::is_same_v<Out, __nv_bfloat16>)
    return __bfloat162float(x);
  else
    return x;
}

template <typename Out>
__device__ Out loadAs(const void *src, int64_t at, ScanElement type) {
  switch (type) {
  case ScanElement::Bool:
    return castTo<Out>(static_cast<const unsigned char *>(src)[at] != 0 ? 1
                                                                        : 0);
  case ScanElement::UInt8:
    return castTo<Out>(static_cast<const uint8_t *>(src)[at]);
  case ScanElement::Int8:
    return castTo<Out>(static_cast<const int8_t *>(src)[at]);
  case ScanElement::Int16:
    return castTo<Out>(static_cast<const int16_t *>(src)[at]);
  case ScanElement::Int32:
    return castTo<Out>(static_cast<const int32_t *>(src)[at]);
  case ScanElement::Int64:
    return castTo<Out>(static_cast<const int64_t *>(src)[at]);
  case ScanElement::UInt16:
    return castTo<Out>(static_cast<const uint16_t *>(src)[at]);
  case ScanElement::UInt32:
    return castTo<Out>(static_cast<const uint32_t *>(src)[at]);
  case ScanElement::UInt64:
    return castTo<Out>(static_cast<const uint64_t *>(src)[at]);
  case ScanElement::Float16:
    return castTo<Out>(__half2float(static_cast<const __half *>(src)[at]));
  case ScanElement::BFloat16:
    return castTo<Out>(
        __bfloat162float(static_cast<const __nv_bfloat16 *>(src)[at]));
  case ScanElement::Float32:
    return castTo<Out>(static_cast<const float *>(src)[at]);
  case ScanElement::Float64:
  default:
    return castTo<Out>(static_cast<const double *>(src)[at]);
  }
}

template <typename Acc, typename V> __device__ Acc add(Acc acc, V value) {
  if constexpr (std::is_integral_v<Acc>)
    return static_cast<Acc>(static_cast<unsigned long long>(acc) +
                            static_cast<unsigned long long>(
                                static_cast<Acc>(value)));
  else
    return acc + static_cast<Acc>(value);
}

template <typename Out> __global__ void cumsumKernel(CumsumArgs args) {
  using Acc = typename Accumulator<Out>::type;
  Out *dst = static_cast<Out *>(args.dst);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x +
                      threadIdx.x;
       line < args.lines; line += step) {
    int64_t rest = line;
    int64_t srcAt = 0;
    int64_t dstAt = 0;
    for (int32_t d = args.outerDims - 1; d >= 0; --d) {
      const int64_t index = rest % args.outerSizes[d];
      rest /= args.outerSizes[d];
      srcAt += index * args.srcOuterStrides[d];
      dstAt += index * args.dstOuterStrides[d];
    }
    Acc acc = 0;
    for (int64_t j = 0; j < args.length; ++j) {
      const Out value = loadAs<Out>(args.src, srcAt, args.inType);
      acc = add(acc, accumulable(value));
      dst[dstAt] = castTo<Out>(acc);
      srcAt += args.srcStride;
      dstAt += args.dstStride;
    }
  }
}

template <typename Out>
cudaError_t launch(const CumsumArgs &args, cudaStream_t stream) {
  constexpr int64_t kThreads = 256;
  constexpr int64_t kMaxBlocks = 65536;
  int64_t blocks = (args.lines + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks)
    blocks = kMaxBlocks;
  cumsumKernel<Out><<<static_cast<unsigned>(blocks),
                      static_cast<unsigned>(kThreads), 0, stream>>>(args);
  return cudaGetLastError();
}

} // namespace

cudaError_t launchCumsum(const CumsumArgs &args, cudaStream_t stream) {
  switch (args.outType) {
  case ScanElement::UInt8:
    return launch<uint8_t>(args, stream);
  case ScanElement::Int8:
    return launch<int8_t>(args, stream);
  case ScanElement::Int16:
    return launch<int16_t>(args, stream);
  case ScanElement::Int32:
    return launch<int32_t>(args, stream);
  case ScanElement::Int64:
    return launch<int64_t>(args, stream);
  case ScanElement::Float16:
    return launch<__half>(args, stream);
  case ScanElement::BFloat16:
    return launch<__nv_bfloat16>(args, stream);
  case ScanElement::Float32:
    return launch<float>(args, stream);
  case ScanElement::Float64:
    return launch<double>(args, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace aoti::shims::cuda
