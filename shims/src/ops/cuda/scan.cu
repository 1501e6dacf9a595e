//===- ops/cuda/scan.cu - The scan family on a CUDA device ------------------===//
//
// Our own kernels around CUB's block-wide scan (cuBLAS and cuDNN have no
// prefix scan; CUB's device-wide scans take one sequence, not many strided
// lines). Two shapes of work, each line (see ops/scan.h) an independent
// scan:
//  - lines of at least kBlockLineMin elements: one block per line
//    (grid-stride over the lines). The line goes through in tiles of
//    kScanThreads x kScanItems elements; each thread reduces its
//    kScanItems consecutive elements, cub::BlockScan's exclusive scan of
//    those partial results gives each thread its prefix within the tile,
//    and the tile's total is carried into the next tile. So a [64, 4096]
//    scan uses 64 x 256 threads instead of 64;
//  - shorter lines: one thread per line, grid-stride over the lines, each
//    scanning its line in order from the first element to the last, as
//    ops/cpu/scan.cpp does (reads of neighbouring threads are coalesced when
//    the scanned dimension is not the innermost one).
// Every operation is associative, so the two shapes compute the same
// function: sums and products of integers wrap identically in any order,
// cummax/cummin's rule (below) is associative, and floating sums, products
// and log-add-exps differ from the in-order result by rounding only
// (accumulated in double for float32 and float64, float for the 16-bit
// floats). The line index is split into outer coordinates with the outer
// sizes and dotted with each side's strides.
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

#include <cub/block/block_scan.cuh>

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

// --- One block per line -----------------------------------------------------

constexpr int kScanThreads = 256;
constexpr int kScanItems = 4;
/// The shortest line that gets a block of its own.
constexpr int64_t kBlockLineMin = 64;

// ScanOp's step as a binary operator on accumulators, with its identity.
template <ScanOp Op, typename Acc> struct Combine {
  __device__ Acc operator()(Acc a, Acc b) const { return step<Op>(a, b); }
};

// Carries the scan of the tiles before the current one into it.
template <typename Acc, typename Op> struct RunningPrefix {
  Acc total;
  Op op;
  __device__ Acc operator()(Acc tileTotal) {
    const Acc before = total;
    total = op(total, tileTotal);
    return before;
  }
};

template <ScanOp Op, typename Out>
__global__ void __launch_bounds__(kScanThreads)
    scanLinesKernel(Out *dst, const void *src, ScalarType inType,
                    LineArgs args) {
  using Acc = typename Accumulator<Out>::type;
  using BlockScan = cub::BlockScan<Acc, kScanThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const Combine<Op, Acc> op;
  const Acc identity = initial<Op, Acc>();
  constexpr int64_t kTile = int64_t(kScanThreads) * kScanItems;
  for (int64_t line = blockIdx.x; line < args.lines; line += gridDim.x) {
    int64_t srcLine, dstLine;
    lineStart(args, line, srcLine, dstLine);
    Acc carried = identity;
    for (int64_t base = 0; base < args.length; base += kTile) {
      const int64_t first = base + int64_t(threadIdx.x) * kScanItems;
      Acc items[kScanItems];
      Acc mine = identity;
#pragma unroll
      for (int i = 0; i < kScanItems; ++i) {
        const int64_t j = first + i;
        items[i] = j < args.length ? static_cast<Acc>(load(loadAs<Out>(
                                         src, srcLine + j * args.srcStride,
                                         inType)))
                                   : identity;
        mine = op(mine, items[i]);
      }
      Acc before;
      RunningPrefix<Acc, Combine<Op, Acc>> prefix{carried, op};
      BlockScan(temp).ExclusiveScan(mine, before, op, prefix);
      // Thread 0's exclusive result is the callback's prefix; the others'
      // already include it.
      carried = prefix.total;
      Acc acc = before;
#pragma unroll
      for (int i = 0; i < kScanItems; ++i) {
        const int64_t j = first + i;
        acc = op(acc, items[i]);
        if (j < args.length)
          dst[dstLine + j * args.dstStride] = store<Out>(acc);
      }
      __syncthreads(); // temp is reused by the next tile
    }
  }
}

// cummax/cummin's running extreme as an accumulator: the element, where it
// is, and whether there is one yet (the identity has none). The rule is
// ATen's: b takes a's place when b is NaN, or a is not and b >= a (<= for
// cummin). It is associative: combining in any grouping gives the last of
// the NaNs if there are any, else the last of the extremes.
template <typename V> struct Extreme {
  V value;
  int64_t index;
  bool some;
};

template <bool Max, typename V> struct CombineExtreme {
  __device__ Extreme<V> operator()(Extreme<V> a, Extreme<V> b) const {
    if (!b.some)
      return a;
    if (!a.some)
      return b;
    const bool takes = Max ? b.value >= a.value : b.value <= a.value;
    return isNan(b.value) || (!isNan(a.value) && takes) ? b : a;
  }
};

template <bool Max, typename T>
__global__ void __launch_bounds__(kScanThreads)
    extremeLinesKernel(T *values, int64_t *indices, const T *src,
                       LineArgs args) {
  using V = Compute<T>;
  using Acc = Extreme<V>;
  using BlockScan = cub::BlockScan<Acc, kScanThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const CombineExtreme<Max, V> op;
  const Acc none = {V(), 0, false};
  constexpr int64_t kTile = int64_t(kScanThreads) * kScanItems;
  for (int64_t line = blockIdx.x; line < args.lines; line += gridDim.x) {
    int64_t srcLine, dstLine;
    lineStart(args, line, srcLine, dstLine);
    Acc carried = none;
    for (int64_t base = 0; base < args.length; base += kTile) {
      const int64_t first = base + int64_t(threadIdx.x) * kScanItems;
      Acc items[kScanItems];
      Acc mine = none;
#pragma unroll
      for (int i = 0; i < kScanItems; ++i) {
        const int64_t j = first + i;
        items[i] = j < args.length
                       ? Acc{load(src[srcLine + j * args.srcStride]), j, true}
                       : none;
        mine = op(mine, items[i]);
      }
      Acc before;
      RunningPrefix<Acc, CombineExtreme<Max, V>> prefix{carried, op};
      BlockScan(temp).ExclusiveScan(mine, before, op, prefix);
      carried = prefix.total;
      Acc acc = before;
#pragma unroll
      for (int i = 0; i < kScanItems; ++i) {
        const int64_t j = first + i;
        acc = op(acc, items[i]);
        if (j < args.length) {
          values[dstLine + j * args.dstStride] = store<T>(acc.value);
          indices[dstLine + j * args.dstStride] = acc.index;
        }
      }
      __syncthreads();
    }
  }
}

// Blocks for one block per line (at most 65536: the loops stride).
unsigned lineBlocks(int64_t lines) {
  return static_cast<unsigned>(lines < 65536 ? (lines < 1 ? 1 : lines) : 65536);
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
      if (args->length >= kBlockLineMin)
        scanLinesKernel<Op, Out>
            <<<lineBlocks(args->lines), kScanThreads, 0, on.stream()>>>(
                static_cast<Out *>(out.data()), self.data(), self.dtype(),
                *args);
      else
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
    auto *valuesOut = static_cast<T *>(values.data());
    auto *indicesOut = static_cast<int64_t *>(indices.data());
    auto *in = static_cast<const T *>(self.data());
    if (args->length >= kBlockLineMin) {
      auto *kernel =
          max ? extremeLinesKernel<true, T> : extremeLinesKernel<false, T>;
      kernel<<<lineBlocks(args->lines), kScanThreads, 0, on.stream()>>>(
          valuesOut, indicesOut, in, *args);
    } else {
      auto *kernel = max ? extremeKernel<true, T> : extremeKernel<false, T>;
      kernel<<<blocksFor(args->lines), kThreadsPerBlock, 0, on.stream()>>>(
          valuesOut, indicesOut, in, *args);
    }
    return on.launched("cummax/cummin kernel launch");
  });
}

} // namespace aoti::shims::ops::cuda
