//===- ops/pooling_windows.h - Which inputs each pooled output reads ------===//
//
// The window arithmetic of torch 2.11's pooling kernels, written once for
// the CPU (ops/cpu/pooling.cpp) and the CUDA (ops/cuda/pooling.cu) halves:
// plain data and inline functions, host and device, no library includes.
//
// Every op is seen as five dimensions (N, C, D, H, W); a 2-d op has D = 1
// (kernel 1, stride 1, no padding), an unbatched input N = 1. Along each
// spatial dimension an output index o reads a span [begin, end) of input
// indices with a step:
//  - max_pool (dilated):  begin = o*stride - pad, end = min(begin +
//    (kernel-1)*dilation + 1, in), then begin moves up by dilation until it
//    is >= 0 (ATen's `while (start < 0) start += dilation`).
//  - avg_pool:            begin = o*stride - pad, end = min(begin + kernel,
//    in + pad); the divisor with count_include_pad is (end - begin) before
//    both are clipped to [0, in) (so the ceil_mode overhang past the right
//    padding never counts); without it, the clipped count.
//  - adaptive pools:      [floor(o*in/out), ceil((o+1)*in/out)), in ATen's
//    overflow-free integer form (ATen/native/AdaptivePooling.h).
//  - fractional_max_pool: [start, start + kernel) with start from the plane's
//    random sample u:  alpha = (in - kernel) / (out - 1),
//    start = int((o + u) * alpha) - int(u * alpha), and in - kernel for the
//    last output. The arithmetic type differs by device in torch: the CPU
//    kernel computes in the input's dtype (a float16 input rounds to
//    float16 after every operation), the CUDA kernel in its accumulation
//    type (float for float16/bfloat16/float32, double for float64), so the
//    function takes the type and a rounding step.
//
// An index a max op returns is the flat position in the input's spatial
// plane or volume: (d*H + h)*W + w, whatever self's strides.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_POOLING_WINDOWS_H
#define AOTI_SHIMS_OPS_POOLING_WINDOWS_H

#include <cstdint>

#if defined(__CUDACC__)
#define AOTI_POOL_HD __host__ __device__
#else
#define AOTI_POOL_HD
#endif

namespace aoti::shims::ops {

/// Sizes and strides (in elements) of one pooling problem as (N, C, D, H, W).
/// Plain data: the CUDA kernels take it by value.
struct PoolGeometry {
  int64_t batch = 1;
  int64_t channels = 1;
  int64_t in[3] = {1, 1, 1};  // D, H, W of self
  int64_t out[3] = {1, 1, 1}; // D, H, W of the result(s)
  // N, C, D, H, W of self (0 along a dimension self does not have)
  int64_t inStrides[5] = {0, 0, 0, 0, 0};
  // ... of the result(s); values and indices share one layout
  int64_t outStrides[5] = {0, 0, 0, 0, 0};

  AOTI_POOL_HD int64_t planes() const { return batch * channels; }
  AOTI_POOL_HD int64_t outPlane() const { return out[0] * out[1] * out[2]; }
  AOTI_POOL_HD int64_t inPlane() const { return in[0] * in[1] * in[2]; }
  AOTI_POOL_HD int64_t outputs() const { return planes() * outPlane(); }
};

/// kernel_size, stride, padding and dilation per spatial dimension (D, H, W)
/// of max_pool and avg_pool, already expanded from torch's 1-or-n lists.
struct PoolWindow {
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
};

struct MaxPoolArgs {
  PoolWindow window;
  // torch's CUDA channels-last max_pool2d kernel starts each window's
  // index at 0 instead of its first position: only visible where no
  // element beats the initial -inf (a window of -inf only).
  bool firstIndexZero = false;
};

struct AvgPoolArgs {
  PoolWindow window;
  bool countIncludePad = true;
  int64_t divisor = 0; // divisor_override; 0 when not given (never 0 given)
};

struct FractionalArgs {
  int64_t kernel[3] = {1, 1, 1};
  // Strides of random_samples (N, C, K) and which K each spatial dimension
  // reads (-1: none, the D of a 2-d op). torch's 2-d op reads W from 0 and
  // H from 1; the 3-d op T, H, W from 0, 1, 2.
  int64_t sampleStrides[3] = {0, 0, 0};
  int32_t sampleIndex[3] = {-1, -1, -1};
};

struct UnpoolArgs {
  int64_t indexStrides[5] = {0, 0, 0, 0, 0}; // N, C, D, H, W of indices
  int spatialDims = 2;                        // 2 or 3: for messages
};

/// A span of input indices [begin, end) read with `step`.
struct PoolSpan {
  int64_t begin;
  int64_t end;
  int64_t step;
  int64_t extent; // avg_pool's count_include_pad divisor factor
};

AOTI_POOL_HD inline PoolSpan maxPoolSpan(int64_t o, const PoolWindow &w,
                                         int dim, int64_t in) {
  int64_t begin = o * w.stride[dim] - w.pad[dim];
  int64_t end = begin + (w.kernel[dim] - 1) * w.dilation[dim] + 1;
  if (end > in)
    end = in;
  const int64_t step = w.dilation[dim];
  if (begin < 0)
    begin += ((-begin + step - 1) / step) * step;
  return {begin, end, step, 0};
}

AOTI_POOL_HD inline PoolSpan avgPoolSpan(int64_t o, const PoolWindow &w,
                                         int dim, int64_t in) {
  int64_t begin = o * w.stride[dim] - w.pad[dim];
  int64_t end = begin + w.kernel[dim];
  if (end > in + w.pad[dim])
    end = in + w.pad[dim];
  const int64_t extent = end - begin;
  if (begin < 0)
    begin = 0;
  if (end > in)
    end = in;
  return {begin, end, 1, extent};
}

AOTI_POOL_HD inline PoolSpan adaptiveSpan(int64_t o, int64_t out, int64_t in) {
  const int64_t begin = (o / out) * in + ((o % out) * in) / out;
  const int64_t end = 1 + ((o + 1) * in - 1) / out;
  return {begin, end, 1, end - begin};
}

/// The first input index of fractional output `o`, computed in type C with
/// `round` applied after every operation (identity where torch computes in
/// C itself).
template <typename C, typename Round>
AOTI_POOL_HD inline int64_t fractionalStart(C sample, int64_t o, int64_t in,
                                            int64_t out, int64_t kernel,
                                            Round round) {
  if (o == out - 1)
    return in - kernel;
  const C alpha = round(round(static_cast<C>(in - kernel)) /
                        round(static_cast<C>(out - 1)));
  const C shifted = round(round(round(static_cast<C>(o)) + sample) * alpha);
  const C offset = round(sample * alpha);
  return static_cast<int64_t>(static_cast<int>(shifted)) -
         static_cast<int64_t>(static_cast<int>(offset));
}

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_POOLING_WINDOWS_H
