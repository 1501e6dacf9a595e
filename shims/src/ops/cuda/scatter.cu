//===- ops/cuda/scatter.cu - scatter and scatter_reduce on a CUDA device --===//
//
// Our own kernels (no library scatters along one dimension of strided
// tensors), one thread per element of index, grid-stride, on the current
// stream of out's device. Element e is (line, i) of ops/scatter.h's
// lines: its outer coordinates come from dividing the line number by the
// outer sizes, then dotting them with each tensor's strides.
//  - checkScatterIndex: one kernel keeps the smallest e whose index is out
//    of range (an atomicMax on its complement, so that zeroed memory means
//    "none"); the host reads it back, which waits for the stream, and then
//    the offending value (torch asserts inside its kernel instead, which
//    kills the CUDA context; a fallback refuses cleanly at the cost of
//    that wait);
//  - scatter: a plain store. Several elements of one line with the same
//    index race, and which one lands is unspecified, exactly as in torch's
//    CUDA kernel (its CPU kernel, and ours, keep the last);
//  - scatter_reduce: atomics on out's element. Sums use the hardware
//    atomicAdd for float32, float64, float16 (__half, sm_70+), bfloat16
//    (__nv_bfloat16, sm_80+), int32 and int64 (unsigned, so it wraps);
//    products, amax/amin and the 8/16-bit integer and bool sums use a
//    compare-and-swap loop on the aligned word that holds the element.
//    The values accumulate in T (each float16 addition rounds to float16,
//    as torch's CUDA kernel does; torch's CPU kernel and ours accumulate
//    16-bit floats in float), and in the order the atomics happen to land:
//    floating sums, products and means are not deterministic from run to
//    run (torch flags scatter_reduce on CUDA as nondeterministic for the
//    same reason); amax/amin and integer results are. amax/amin propagate
//    NaN (torch's safe_max: a NaN source wins, std::max keeps a NaN
//    already there). include_self=false first stores the reduction's
//    identity at every position reached (one launch), then reduces.
//    "mean" also counts, per position, the values it reduced (an int32
//    atomicAdd into a zeroed count per element of out), and a last launch
//    over index divides: the first thread to take a position's count
//    (atomicExch to 0) divides by it, plus one for self when included,
//    held in T as torch holds it (0 read as 1; floor division for
//    integers).
//  - segment_reduce: one thread per element of out, reducing its segment
//    in order in data's dtype's arithmetic (torch's N-d kernel does the
//    same; for a 1-d result torch uses cub::DeviceSegmentedReduce, whose
//    tree order can round float sums differently in the last bits).
//
//===----------------------------------------------------------------------===//
#include "ops/scatter.h"

#include "ops/cuda/element.cuh"

#include <cstring>
#include <limits>
#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

constexpr int32_t kMaxOuterDims = 16;

// ops/scatter.h's ScatterLines as a kernel argument.
struct LineArgs {
  int64_t elements; // lines * length
  int64_t length;
  int64_t bound;
  int64_t indexStride, srcStride, outStride, denseStride;
  int32_t outerDims;
  int64_t outerSizes[kMaxOuterDims];
  int64_t indexOuter[kMaxOuterDims];
  int64_t srcOuter[kMaxOuterDims];
  int64_t outOuter[kMaxOuterDims];
  int64_t denseOuter[kMaxOuterDims];
};

// Offsets of element e = (line, i) in each tensor.
struct Place {
  int64_t index, src, out, dense;
};

__device__ inline Place placeOf(const LineArgs &a, int64_t e) {
  int64_t line = e / a.length;
  const int64_t i = e - line * a.length;
  Place p{i * a.indexStride, i * a.srcStride, 0, 0};
  for (int32_t d = a.outerDims - 1; d >= 0; --d) {
    const int64_t c = line % a.outerSizes[d];
    line /= a.outerSizes[d];
    p.index += c * a.indexOuter[d];
    p.src += c * a.srcOuter[d];
    p.out += c * a.outOuter[d];
    p.dense += c * a.denseOuter[d];
  }
  return p;
}

template <typename I>
__global__ void findBadIndexKernel(const I *index, LineArgs a,
                                   unsigned long long *firstBad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const int64_t at = static_cast<int64_t>(index[placeOf(a, e).index]);
    if (at < 0 || at >= a.bound)
      atomicMax(firstBad, ~static_cast<unsigned long long>(e));
  }
}

// The bits of a value as an unsigned word of its size, and back.
template <typename T> __device__ inline auto bitsOf(T value) {
  using W = std::conditional_t<
      sizeof(T) == 8, unsigned long long,
      std::conditional_t<sizeof(T) == 4, unsigned,
                         std::conditional_t<sizeof(T) == 2, unsigned short,
                                            unsigned char>>>;
  W w;
  memcpy(&w, &value, sizeof(T));
  return w;
}
template <typename T, typename W> __device__ inline T fromBits(W w) {
  T value;
  memcpy(&value, &w, sizeof(T));
  return value;
}

// *address = update(*address), atomically, by compare-and-swap on the
// aligned word holding the element (8/16-bit elements share a 32-bit word
// with their neighbours, which the loop leaves as it found them).
template <typename T, typename Update>
__device__ void atomicUpdate(T *address, Update update) {
  if constexpr (sizeof(T) == 8 || sizeof(T) == 4 || sizeof(T) == 2) {
    using W = decltype(bitsOf(T{}));
    W *word = reinterpret_cast<W *>(address);
    W old = *word, assumed;
    do {
      assumed = old;
      const W next = bitsOf(update(fromBits<T>(assumed)));
      if (next == assumed)
        return;
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  } else {
    const auto raw = reinterpret_cast<uintptr_t>(address);
    unsigned *word = reinterpret_cast<unsigned *>(raw & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(raw & 3) * 8;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const unsigned char byte = static_cast<unsigned char>(assumed >> shift);
      const unsigned char next = bitsOf(update(fromBits<T>(byte)));
      if (next == byte)
        return;
      const unsigned replaced =
          (assumed & ~(0xffu << shift)) | (static_cast<unsigned>(next) << shift);
      old = atomicCAS(word, assumed, replaced);
    } while (old != assumed);
  }
}

template <typename C> __device__ inline C addWrapped(C a, C b) {
  if constexpr (std::is_same_v<C, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<C>)
    return static_cast<C>(static_cast<unsigned long long>(a) +
                          static_cast<unsigned long long>(b));
  else
    return a + b;
}

template <typename C> __device__ inline C mulWrapped(C a, C b) {
  if constexpr (std::is_same_v<C, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<C>)
    return static_cast<C>(static_cast<unsigned long long>(a) *
                          static_cast<unsigned long long>(b));
  else
    return a * b;
}

template <typename C> __device__ inline C maxNan(C a, C b) {
  return isNan(b) ? b : (a < b ? b : a);
}
template <typename C> __device__ inline C minNan(C a, C b) {
  return isNan(b) ? b : (b < a ? b : a);
}

template <ScatterOp Op, typename T>
__device__ inline void reduceAt(T *address, T value) {
  using C = Compute<T>;
  if constexpr (Op == ScatterOp::Sum || Op == ScatterOp::Mean) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, __half> ||
                  std::is_same_v<T, __nv_bfloat16> ||
                  std::is_same_v<T, int32_t>) {
      atomicAdd(address, value);
    } else if constexpr (std::is_same_v<T, int64_t>) {
      atomicAdd(reinterpret_cast<unsigned long long *>(address),
                static_cast<unsigned long long>(value));
    } else {
      atomicUpdate(address, [value](T old) {
        return store<T>(addWrapped<C>(load(old), load(value)));
      });
    }
  } else if constexpr (Op == ScatterOp::Prod) {
    atomicUpdate(address, [value](T old) {
      return store<T>(mulWrapped<C>(load(old), load(value)));
    });
  } else if constexpr (Op == ScatterOp::Amax) {
    atomicUpdate(address,
                 [value](T old) { return store<T>(maxNan<C>(load(old), load(value))); });
  } else if constexpr (Op == ScatterOp::Amin) {
    atomicUpdate(address,
                 [value](T old) { return store<T>(minNan<C>(load(old), load(value))); });
  }
}

template <typename T, typename I>
__global__ void assignKernel(T *out, const I *index, const T *src, T fill,
                             LineArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = static_cast<int64_t>(index[p.index]);
    out[p.out + at * a.outStride] = src ? src[p.src] : fill;
  }
}

template <ScatterOp Op, typename T, typename I>
__global__ void reduceKernel(T *out, const I *index, const T *src,
                             int32_t *counts, LineArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = static_cast<int64_t>(index[p.index]);
    reduceAt<Op>(out + p.out + at * a.outStride, src[p.src]);
    if constexpr (Op == ScatterOp::Mean)
      atomicAdd(counts + p.dense + at * a.denseStride, 1);
  }
}

// Integer floor division as torch's div(rounding_mode="floor").
__device__ inline long long floorDivide(long long a, long long b) {
  if (b == -1)
    return static_cast<long long>(0ull - static_cast<unsigned long long>(a));
  long long q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

template <typename T, typename I>
__global__ void meanKernel(T *out, const I *index, int32_t *counts,
                           int32_t selfCount, LineArgs a) {
  using C = Compute<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = static_cast<int64_t>(index[p.index]);
    const int32_t hits = atomicExch(counts + p.dense + at * a.denseStride, 0);
    if (hits == 0)
      continue; // another thread divides this position
    T *slot = out + p.out + at * a.outStride;
    const long long count = static_cast<long long>(hits) + selfCount;
    if constexpr (std::is_floating_point_v<C>) {
      C divisor = load(store<T>(static_cast<double>(count)));
      if (divisor == C(0))
        divisor = C(1);
      *slot = store<T>(load(*slot) / divisor);
    } else {
      long long divisor = static_cast<long long>(store<T>(count));
      if (divisor == 0)
        divisor = 1;
      *slot = store<T>(floorDivide(static_cast<long long>(load(*slot)), divisor));
    }
  }
}

template <typename T, typename I>
__global__ void fillReachedKernel(T *out, const I *index, T fill, LineArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    out[p.out + static_cast<int64_t>(index[p.index]) * a.outStride] = fill;
  }
}

// The value torch fills reached positions with when self is excluded.
template <typename T> T identityOf(ScatterOp op) {
  using C = Compute<T>;
  switch (op) {
  case ScatterOp::Prod:
    return store<T>(C(1));
  case ScatterOp::Amax:
    if constexpr (std::numeric_limits<C>::has_infinity)
      return store<T>(-std::numeric_limits<C>::infinity());
    else
      return store<T>(std::numeric_limits<C>::lowest());
  case ScatterOp::Amin:
    if constexpr (std::numeric_limits<C>::has_infinity)
      return store<T>(std::numeric_limits<C>::infinity());
    else
      return store<T>(std::numeric_limits<C>::max());
  default:
    return store<T>(C(0));
  }
}

Expected<LineArgs> argsOf(const ScatterLines &l) {
  if (l.outerSizes.size() > static_cast<size_t>(kMaxOuterDims))
    return Error::failure("scatter over ", l.outerSizes.size() + 1,
                          "-d tensors: at most ", kMaxOuterDims + 1,
                          " dimensions are supported on CUDA");
  LineArgs a = {};
  a.elements = l.lines * l.length;
  a.length = l.length;
  a.bound = l.bound;
  a.indexStride = l.indexStride;
  a.srcStride = l.srcStride;
  a.outStride = l.outStride;
  a.denseStride = l.denseStride;
  a.outerDims = static_cast<int32_t>(l.outerSizes.size());
  for (size_t d = 0; d < l.outerSizes.size(); ++d) {
    a.outerSizes[d] = l.outerSizes[d];
    a.indexOuter[d] = l.indexOuterStrides[d];
    a.srcOuter[d] = l.srcOuterStrides[d];
    a.outOuter[d] = l.outOuterStrides[d];
    a.denseOuter[d] = l.denseOuterStrides[d];
  }
  return a;
}

template <typename T> constexpr bool kIsScatterType =
    !std::is_same_v<T, uint16_t> && !std::is_same_v<T, uint32_t> &&
    !std::is_same_v<T, uint64_t>;

template <typename T, typename I>
Error launchScatter(const OnStream &on, const Tensor &out, const Tensor &index,
                    const LineArgs &a, const ScatterWork &work) {
  T *dst = static_cast<T *>(out.data());
  const I *idx = static_cast<const I *>(index.data());
  const T *src = work.src ? static_cast<const T *>(work.src->data()) : nullptr;
  const unsigned blocks = blocksFor(a.elements);
  cudaStream_t stream = on.stream();
  if (work.op == ScatterOp::Assign) {
    assignKernel<T, I><<<blocks, kThreadsPerBlock, 0, stream>>>(
        dst, idx, src, store<T>(work.value), a);
    return on.launched("scatter kernel launch");
  }
  if (!work.includeSelf) {
    fillReachedKernel<T, I><<<blocks, kThreadsPerBlock, 0, stream>>>(
        dst, idx, identityOf<T>(work.op), a);
    if (Error err = on.launched("scatter_reduce identity fill launch"))
      return err;
  }
  switch (work.op) {
  case ScatterOp::Sum:
    reduceKernel<ScatterOp::Sum, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a);
    break;
  case ScatterOp::Prod:
    reduceKernel<ScatterOp::Prod, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a);
    break;
  case ScatterOp::Amax:
    reduceKernel<ScatterOp::Amax, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a);
    break;
  case ScatterOp::Amin:
    reduceKernel<ScatterOp::Amin, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a);
    break;
  case ScatterOp::Mean: {
    if constexpr (std::is_same_v<T, Bool>) {
      return Error::failure("scatter_reduce 'mean' is not implemented for bool");
    } else {
      const int64_t outNumel = out.numel();
      Expected<Tensor> counts = Tensor::emptyContiguous(
          std::span<const int64_t>(&outNumel, 1), ScalarType::Int32,
          out.device());
      if (!counts)
        return counts.takeError();
      int32_t *countData = static_cast<int32_t *>(counts->data());
      if (Error err = shims::cuda::zeroBytes(
              countData, static_cast<size_t>(outNumel) * sizeof(int32_t),
              on.device()))
        return err;
      reduceKernel<ScatterOp::Mean, T, I>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, countData, a);
      if (Error err = on.launched("scatter_reduce mean kernel launch"))
        return err;
      meanKernel<T, I><<<blocks, kThreadsPerBlock, 0, stream>>>(
          dst, idx, countData, work.includeSelf ? 1 : 0, a);
    }
    break;
  }
  case ScatterOp::Assign:
    break;
  }
  return on.launched("scatter_reduce kernel launch");
}

struct SegmentArgs {
  int64_t outer, segments, inner, dataAxis;
  int32_t op;
  bool hasInitial;
};

template <typename T>
__global__ void segmentKernel(T *out, const T *data, const int64_t *bounds,
                              T start, SegmentArgs a) {
  using C = Compute<T>;
  const int64_t total = a.outer * a.segments * a.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < total; e += step) {
    const int64_t i = e % a.inner;
    const int64_t s = (e / a.inner) % a.segments;
    const int64_t o = e / (a.inner * a.segments);
    const int64_t begin = bounds[o * (a.segments + 1) + s];
    const int64_t end = bounds[o * (a.segments + 1) + s + 1];
    C acc = load(start);
    for (int64_t j = begin; j < end; ++j) {
      const C v = load(data[(o * a.dataAxis + j) * a.inner + i]);
      switch (static_cast<SegmentOp>(a.op)) {
      case SegmentOp::Max:
        acc = isNan(v) ? v : (acc < v ? v : acc);
        break;
      case SegmentOp::Min:
        acc = isNan(v) ? v : (v < acc ? v : acc);
        break;
      case SegmentOp::Prod:
        acc = load(store<T>(acc * v));
        break;
      default:
        acc = load(store<T>(acc + v));
      }
    }
    const int64_t length = end - begin;
    if (static_cast<SegmentOp>(a.op) == SegmentOp::Mean) {
      if (length == 0 && !a.hasInitial)
        acc = static_cast<C>(NAN);
      else if (length > 0 && !isNan(acc))
        acc = load(store<T>(acc / load(store<T>(static_cast<C>(length)))));
    }
    out[e] = store<T>(acc);
  }
}

} // namespace

Error segmentReduce(const Tensor &out, const Tensor &data, const Tensor &bounds,
                    const SegmentReduce &p) {
  OnStream on(data);
  if (Error err = on.takeStatus())
    return err;
  SegmentArgs a{p.outer, p.segments, p.inner, p.dataAxis,
                static_cast<int32_t>(p.op), p.hasInitial};
  const int64_t total = p.outer * p.segments * p.inner;
  return visitDtype(data.dtype(), "segment_reduce", [&]<typename T>() -> Error {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using C = Compute<T>;
      C start;
      if (p.hasInitial)
        start = static_cast<C>(p.initial);
      else if (p.op == SegmentOp::Max)
        start = -std::numeric_limits<C>::infinity();
      else if (p.op == SegmentOp::Min)
        start = std::numeric_limits<C>::infinity();
      else if (p.op == SegmentOp::Prod)
        start = C(1);
      else
        start = C(0);
      segmentKernel<T><<<blocksFor(total), kThreadsPerBlock, 0, on.stream()>>>(
          static_cast<T *>(out.data()), static_cast<const T *>(data.data()),
          static_cast<const int64_t *>(bounds.data()),
          p.hasInitial ? store<T>(p.initial) : store<T>(start), a);
      return on.launched("segment_reduce kernel launch");
    } else {
      return Error::failure("segment_reduce has no CUDA kernel for ",
                            dtypeName(data.dtype()));
    }
  });
}

Error checkScatterIndex(const Tensor &index, const ScatterLines &lines) {
  Expected<LineArgs> args = argsOf(lines);
  if (!args)
    return args.takeError();
  OnStream on(index);
  if (Error err = on.takeStatus())
    return err;
  const int64_t one = 1;
  Expected<Tensor> flag = Tensor::emptyContiguous(
      std::span<const int64_t>(&one, 1), ScalarType::Int64, index.device());
  if (!flag)
    return flag.takeError();
  auto *firstBad = static_cast<unsigned long long *>(flag->data());
  if (Error err = shims::cuda::zeroBytes(firstBad, sizeof(*firstBad), on.device()))
    return err;
  if (index.dtype() == ScalarType::Int32)
    findBadIndexKernel<int32_t><<<blocksFor(args->elements), kThreadsPerBlock,
                                  0, on.stream()>>>(
        static_cast<const int32_t *>(index.data()), *args, firstBad);
  else
    findBadIndexKernel<int64_t><<<blocksFor(args->elements), kThreadsPerBlock,
                                  0, on.stream()>>>(
        static_cast<const int64_t *>(index.data()), *args, firstBad);
  if (Error err = on.launched("scatter index check launch"))
    return err;
  unsigned long long found = 0;
  if (Error err = shims::cuda::copyBytes(&found, firstBad, sizeof(found),
                                         on.device()))
    return err;
  if (Error err = shims::cuda::synchronize(on.device()))
    return err;
  if (found == 0)
    return Error::success();
  // The offending element: its offset from (line, i), then its value.
  const int64_t e = static_cast<int64_t>(~found);
  int64_t line = e / lines.length;
  int64_t offset = (e - line * lines.length) * lines.indexStride;
  for (size_t d = lines.outerSizes.size(); d-- > 0;) {
    offset += (line % lines.outerSizes[d]) * lines.indexOuterStrides[d];
    line /= lines.outerSizes[d];
  }
  int64_t value = 0;
  const char *at = static_cast<const char *>(index.data()) +
                   offset * static_cast<int64_t>(index.itemSize());
  if (index.dtype() == ScalarType::Int32) {
    int32_t narrow = 0;
    if (Error err = shims::cuda::copyBytes(&narrow, at, sizeof(narrow), on.device()))
      return err;
    if (Error err = shims::cuda::synchronize(on.device()))
      return err;
    value = narrow;
  } else {
    if (Error err = shims::cuda::copyBytes(&value, at, sizeof(value), on.device()))
      return err;
    if (Error err = shims::cuda::synchronize(on.device()))
      return err;
  }
  return Error::failure("index ", value, " is out of bounds for dimension ",
                        lines.dim, " with size ", lines.bound);
}

Error scatter(const Tensor &out, const Tensor &index, const ScatterLines &lines,
              const ScatterWork &work) {
  Expected<LineArgs> args = argsOf(lines);
  if (!args)
    return args.takeError();
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(out.dtype(), "scatter", [&]<typename T>() -> Error {
    if constexpr (!kIsScatterType<T>) {
      return Error::failure("scatter has no CUDA kernel for ",
                            dtypeName(out.dtype()));
    } else {
      if (index.dtype() == ScalarType::Int32)
        return launchScatter<T, int32_t>(on, out, index, *args, work);
      return launchScatter<T, int64_t>(on, out, index, *args, work);
    }
  });
}

} // namespace aoti::shims::ops::cuda
