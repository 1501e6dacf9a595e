//===- ops/cuda/scan.cu - The scan family on a CUDA device ------------------===//
//
// Our own kernels (cuBLAS and cuDNN have no prefix scan; CUB's would need a
// segmented scan over strided lines, and cummax's index rule is not a CUB
// operator). They are deliberately simple: one thread per line (see
// ops/scan.h), grid-stride over the lines, each thread scanning its line in
// order from the first element to the last, as ops/cpu/scan.cpp does:
//   acc = init; for j: acc = op(acc, Out(self[j])); out[j] = Out(acc)
// The line index is split into outer coordinates with the outer sizes and
// dotted with each side's strides. Work per thread is the line length, so
// a tensor with few long lines uses few threads; reads of neighbouring
// threads are coalesced when the scanned dimension is not the innermost
// one. Good enough for a fallback; a model whose scan is hot should get a
// decoupled-lookback scan.
//
// The accumulator is double for float32 and float64, float for float16 and
// bfloat16, and a wrapping 64-bit integer for the integer types, as on the
// CPU. (torch's CUDA kernels accumulate float32 in float and in a tree
// order, so float32 results may differ from torch's by rounding, ~1e-6
// relative per element; never by more than float32 rounding error.)
// logcumsumexp's step and cummax/cummin's tie and NaN rule are the CPU's
// (ops/cpu/scan.cpp).
//
// Kernels are templates over the result's element type; the input's (which
// differs only for cumsum/cumprod with a dtype argument) is a switch per
// element, which keeps this file to a few dozen kernels. Launches run on the
// current stream of self's device; nothing waits.
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

Expected<LineArgs> lineArgs(const ScanLines &lines, const Tensor &self,
                            const char *op) {
  if (lines.outerSizes.size() > static_cast<size_t>(kMaxOuterDims))
    return Error::failure(op, " over a ", self.dim(), "-d tensor: at most ",
                          kMaxOuterDims + 1,
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
  return args;
}

// The first element of `line` on each side.
__device__ void lineStart(const LineArgs &args, int64_t line, int64_t &srcAt,
                          int64_t &dstAt) {
  srcAt = 0;
  dstAt = 0;
  for (int32_t d = args.outerDims - 1; d >= 0; --d) {
    const int64_t index = line % args.outerSizes[d];
    line /= args.outerSizes[d];
    srcAt += index * args.srcOuterStrides[d];
    dstAt += index * args.dstOuterStrides[d];
  }
}

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

// Element `at` of `src`, whose dtype is `type`, as element type Out.
template <typename Out>
__device__ Out loadAs(const void *src, int64_t at, ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return store<Out>(load(static_cast<const Bool *>(src)[at]));
  case ScalarType::UInt8:
    return store<Out>(static_cast<const uint8_t *>(src)[at]);
  case ScalarType::Int8:
    return store<Out>(static_cast<const int8_t *>(src)[at]);
  case ScalarType::Int16:
    return store<Out>(static_cast<const int16_t *>(src)[at]);
  case ScalarType::Int32:
    return store<Out>(static_cast<const int32_t *>(src)[at]);
  case ScalarType::Int64:
    return store<Out>(static_cast<const int64_t *>(src)[at]);
  case ScalarType::UInt16:
    return store<Out>(static_cast<const uint16_t *>(src)[at]);
  case ScalarType::UInt32:
    return store<Out>(static_cast<const uint32_t *>(src)[at]);
  case ScalarType::UInt64:
    return store<Out>(static_cast<const uint64_t *>(src)[at]);
  case ScalarType::Float16:
    return store<Out>(load(static_cast<const __half *>(src)[at]));
  case ScalarType::BFloat16:
    return store<Out>(load(static_cast<const __nv_bfloat16 *>(src)[at]));
  case ScalarType::Float32:
    return store<Out>(static_cast<const float *>(src)[at]);
  default:
    return store<Out>(static_cast<const double *>(src)[at]);
  }
}

template <typename Acc> __device__ Acc logAddExp(Acc a, Acc b) {
  if (isNan(a) || isNan(b))
    return a + b; // NaN
  const Acc lo = a < b ? a : b;
  const Acc hi = a < b ? b : a;
  if (lo == hi && isinf(lo))
    return lo;
  return hi + log1p(exp(lo - hi));
}

template <ScanOp Op, typename Acc> __device__ Acc initial() {
  if constexpr (Op == ScanOp::Sum)
    return Acc(0);
  else if constexpr (Op == ScanOp::Prod)
    return Acc(1);
  else
    return -static_cast<Acc>(INFINITY);
}

template <ScanOp Op, typename Acc, typename V>
__device__ Acc step(Acc acc, V value) {
  const Acc v = static_cast<Acc>(value);
  if constexpr (std::is_integral_v<Acc>) {
    const auto a = static_cast<unsigned long long>(acc);
    const auto b = static_cast<unsigned long long>(v);
    return static_cast<Acc>(Op == ScanOp::Sum ? a + b : a * b);
  } else if constexpr (Op == ScanOp::Sum) {
    return acc + v;
  } else if constexpr (Op == ScanOp::Prod) {
    return acc * v;
  } else {
    return logAddExp(acc, v);
  }
}

template <ScanOp Op, typename Out>
__global__ void scanKernel(Out *dst, const void *src, ScalarType inType,
                           LineArgs args) {
  using Acc = typename Accumulator<Out>::type;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x +
                      threadIdx.x;
       line < args.lines; line += stride) {
    int64_t srcAt, dstAt;
    lineStart(args, line, srcAt, dstAt);
    Acc acc = initial<Op, Acc>();
    for (int64_t j = 0; j < args.length; ++j) {
      acc = step<Op>(acc, load(loadAs<Out>(src, srcAt, inType)));
      dst[dstAt] = store<Out>(acc);
      srcAt += args.srcStride;
      dstAt += args.dstStride;
    }
  }
}

template <bool Max, typename T>
__global__ void extremeKernel(T *values, int64_t *indices, const T *src,
                              LineArgs args) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x +
                      threadIdx.x;
       line < args.lines; line += stride) {
    int64_t srcAt, dstAt;
    lineStart(args, line, srcAt, dstAt);
    T best = src[srcAt];
    int64_t at = 0;
    for (int64_t j = 0; j < args.length; ++j) {
      const T element = src[srcAt];
      const auto x = load(element), b = load(best);
      const bool takes = Max ? x >= b : x <= b;
      if (isNan(x) || (!isNan(b) && takes)) {
        best = element;
        at = j;
      }
      values[dstAt] = best;
      indices[dstAt] = at;
      srcAt += args.srcStride;
      dstAt += args.dstStride;
    }
  }
}

// The result dtypes of each op (ops/scan.cpp has refused the others).
template <ScanOp Op, typename Out> constexpr bool kIsResult =
    Op == ScanOp::LogSumExp
        ? std::is_floating_point_v<Compute<Out>>
        : !std::is_same_v<Out, Bool> && !std::is_same_v<Out, uint16_t> &&
              !std::is_same_v<Out, uint32_t> && !std::is_same_v<Out, uint64_t>;

template <ScanOp Op>
Error scanAs(const Tensor &out, const Tensor &self, const ScanLines &lines,
             const char *name) {
  Expected<LineArgs> args = lineArgs(lines, self, name);
  if (!args)
    return args.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(out.dtype(), name, [&]<typename Out>() -> Error {
    if constexpr (!kIsResult<Op, Out>) {
      return Error::failure(name, " cannot produce ", dtypeName(out.dtype()));
    } else {
      scanKernel<Op, Out>
          <<<blocksFor(args->lines), kThreadsPerBlock, 0, on.stream()>>>(
              static_cast<Out *>(out.data()), self.data(), self.dtype(),
              *args);
      return on.launched("scan kernel launch");
    }
  });
}

} // namespace

Error scan(ScanOp op, const Tensor &out, const Tensor &self,
           const ScanLines &lines) {
  switch (op) {
  case ScanOp::Sum:
    return scanAs<ScanOp::Sum>(out, self, lines, "cumsum");
  case ScanOp::Prod:
    return scanAs<ScanOp::Prod>(out, self, lines, "cumprod");
  case ScanOp::LogSumExp:
    return scanAs<ScanOp::LogSumExp>(out, self, lines, "logcumsumexp");
  }
  return Error::failure("unknown scan op");
}

Error scanExtreme(bool max, const Tensor &values, const Tensor &indices,
                  const Tensor &self, const ScanLines &lines) {
  const char *name = max ? "cummax" : "cummin";
  Expected<LineArgs> args = lineArgs(lines, self, name);
  if (!args)
    return args.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), name, [&]<typename T>() {
    auto *kernel = max ? extremeKernel<true, T> : extremeKernel<false, T>;
    kernel<<<blocksFor(args->lines), kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<T *>(values.data()),
        static_cast<int64_t *>(indices.data()),
        static_cast<const T *>(self.data()), *args);
    return on.launched("cummax/cummin kernel launch");
  });
}

} // namespace aoti::shims::ops::cuda
