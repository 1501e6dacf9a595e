//===- ops/cuda/scan.cu - cumsum on a CUDA device ---------------------------===//
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
// summation error.) Both dtypes are template parameters, one kernel per
// (input, result) pair. The launch runs on the current stream of self's
// device; nothing waits.
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "ops/cuda/element.cuh"

#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

/// The most outer (not scanned) dimensions a launch takes.
constexpr int32_t kMaxOuterDims = 16;

// ops/scan.h's ScanLines as a kernel argument, strides in elements.
struct LineArgs {
  int64_t lines;
  int64_t length;
  int64_t srcStride;
  int64_t dstStride;
  int32_t outerDims;
  int64_t outerSizes[kMaxOuterDims];
  int64_t srcOuterStrides[kMaxOuterDims];
  int64_t dstOuterStrides[kMaxOuterDims];
};

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

template <typename Acc, typename V> __device__ Acc add(Acc acc, V value) {
  if constexpr (std::is_integral_v<Acc>)
    return static_cast<Acc>(static_cast<unsigned long long>(acc) +
                            static_cast<unsigned long long>(
                                static_cast<Acc>(value)));
  else
    return acc + static_cast<Acc>(value);
}

template <typename In, typename Out>
__global__ void cumsumKernel(Out *dst, const In *src, LineArgs args) {
  using Acc = typename Accumulator<Out>::type;
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
      const Out value = store<Out>(load(src[srcAt]));
      acc = add(acc, load(value));
      dst[dstAt] = store<Out>(acc);
      srcAt += args.srcStride;
      dstAt += args.dstStride;
    }
  }
}

// The result dtypes torch's cumsum kernels are instantiated for, less complex.
template <typename Out> constexpr bool kIsResult =
    !std::is_same_v<Out, Bool> && !std::is_same_v<Out, uint16_t> &&
    !std::is_same_v<Out, uint32_t> && !std::is_same_v<Out, uint64_t>;

} // namespace

Error cumsum(const Tensor &out, const Tensor &self, const ScanLines &lines) {
  if (lines.outerSizes.size() > static_cast<size_t>(kMaxOuterDims))
    return Error::failure("cumsum over a ", self.dim(),
                          "-d tensor: at most ", kMaxOuterDims + 1,
                          " dimensions are supported on CUDA");
  LineArgs args = {};
  args.lines = lines.lines;
  args.length = lines.length;
  args.srcStride = lines.selfStride;
  args.dstStride = lines.outStride;
  args.outerDims = static_cast<int32_t>(lines.outerSizes.size());
  for (size_t d = 0; d < lines.outerSizes.size(); ++d) {
    args.outerSizes[d] = lines.outerSizes[d];
    args.srcOuterStrides[d] = lines.selfOuterStrides[d];
    args.dstOuterStrides[d] = lines.outOuterStrides[d];
  }
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(out.dtype(), "cumsum", [&]<typename Out>() -> Error {
    if constexpr (!kIsResult<Out>) {
      return Error::failure("cumsum cannot produce ", dtypeName(out.dtype()));
    } else {
      return visitDtype(self.dtype(), "cumsum", [&]<typename In>() {
        cumsumKernel<In, Out>
            <<<blocksFor(args.lines), kThreadsPerBlock, 0, on.stream()>>>(
                static_cast<Out *>(out.data()),
                static_cast<const In *>(self.data()), args);
        return on.launched("cumsum kernel launch");
      });
    }
  });
}

} // namespace aoti::shims::ops::cuda
