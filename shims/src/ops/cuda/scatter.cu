//===- ops/cuda/scatter.cu - scatter and scatter_reduce on a CUDA device --===//
//
// Our own kernels (no library scatters along one dimension of strided
// tensors), one thread per element of index, grid-stride, on the current
// stream of out's device. The elements are numbered in an order of index's
// dimensions chosen as torch's TensorIterator chooses it (ScatterArgs): the
// dimension in which out, then src, then index moves least is the fastest,
// so that a warp reads src and lands its atomics on consecutive addresses.
// (Numbering along `dim` fastest, as the lines of ops/scatter.h would, puts
// a warp's 32 reads and atomics in 32 different rows: a sum of a [1e6, 64]
// src into [1e5, 64] ran 19 times slower than torch's.) Coordinates come
// from dividing the element number by the sizes (in 32 bits when the
// count allows), then dotting them with each tensor's strides.
//  - every kernel reads its element's index and, when it is outside [0,
//    out.size(dim)), skips the element and records it (ops/checks.h:
//    nothing waits; torch asserts inside its kernel instead, which kills
//    the CUDA context);
//  - checkScatterIndex: with AOTI_SHIMS_CUDA_CHECKS=sync only, one kernel
//    records a bad index and the host reads the record back (waiting for
//    the stream) before out is written, so that the call fails with out
//    untouched; by default it does nothing;
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
//    tree order can round float sums differently in the last bits). The
//    segments come from the lengths or offsets on the device, never read
//    back: offsets are read by the kernel itself (the threads of inner
//    position 0 check their segment's two offsets); lengths go through one
//    block per row that scans them (cub::BlockScan) into a table of
//    bounds, checking signs, the running end and the row's total. A bad
//    value is recorded and the bounds are clamped into [0,
//    data.size(axis)] with end >= begin, so nothing is read out of range.
//
//===----------------------------------------------------------------------===//
#include "ops/scatter.h"

#include "ops/cuda/checks.cuh"
#include "ops/cuda/element.cuh"

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cuda {
namespace {

constexpr int32_t kMaxOuterDims = 16;
constexpr int32_t kMaxDims = kMaxOuterDims + 1;

// ops/scatter.h's ScatterLines as a kernel argument: index's dimensions
// (dim among them) in iteration order, outermost first, each tensor's
// strides along them. Along dim out and dense move by the index value
// (outStride, denseStride), so their strides there are 0.
struct ScatterArgs {
  int64_t elements;
  int64_t bound; // out.size(dim)
  int64_t dim;   // for the record of a bad index
  int64_t outStride, denseStride;
  int32_t ndim;
  int32_t narrow; // elements (so every coordinate) fit in 32 bits
  int64_t sizes[kMaxDims];
  int64_t indexStrides[kMaxDims], srcStrides[kMaxDims], outStrides[kMaxDims],
      denseStrides[kMaxDims];
};

// Offsets of element e in each tensor (out's and dense's without dim).
struct Place {
  int64_t index, src, out, dense;
};

__device__ inline void addCoordinate(Place &p, const ScatterArgs &a,
                                     int32_t d, int64_t c) {
  p.index += c * a.indexStrides[d];
  p.src += c * a.srcStrides[d];
  p.out += c * a.outStrides[d];
  p.dense += c * a.denseStrides[d];
}

__device__ inline Place placeOf(const ScatterArgs &a, int64_t e) {
  Place p{0, 0, 0, 0};
  // The outermost coordinate is what remains: e < elements.
  if (a.narrow) {
    auto rest = static_cast<uint32_t>(e);
    for (int32_t d = a.ndim - 1; d > 0; --d) {
      const auto size = static_cast<uint32_t>(a.sizes[d]);
      const uint32_t next = rest / size;
      addCoordinate(p, a, d, rest - next * size);
      rest = next;
    }
    addCoordinate(p, a, 0, rest);
  } else {
    int64_t rest = e;
    for (int32_t d = a.ndim - 1; d > 0; --d) {
      const int64_t next = rest / a.sizes[d];
      addCoordinate(p, a, d, rest - next * a.sizes[d]);
      rest = next;
    }
    addCoordinate(p, a, 0, rest);
  }
  return p;
}

// Element e's index value, or -1 (after recording it when `record`) when
// it is outside [0, bound).
template <typename I>
__device__ inline int64_t targetOf(const I *index, const Place &p,
                                   const ScatterArgs &a, DeviceCheck *check,
                                   bool record) {
  const auto at = static_cast<int64_t>(index[p.index]);
  if (at >= 0 && at < a.bound)
    return at;
  if (record)
    recordCheck(check, CheckKind::IndexOutOfBounds, at, a.dim, a.bound);
  return -1;
}

template <typename I>
__global__ void findBadIndexKernel(const I *index, ScatterArgs a,
                                   DeviceCheck *check) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step)
    (void)targetOf(index, placeOf(a, e), a, check, true);
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
                             ScatterArgs a, DeviceCheck *check) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = targetOf(index, p, a, check, true);
    if (at < 0)
      continue;
    out[p.out + at * a.outStride] = src ? src[p.src] : fill;
  }
}

template <ScatterOp Op, typename T, typename I>
__global__ void reduceKernel(T *out, const I *index, const T *src,
                             int32_t *counts, ScatterArgs a,
                             DeviceCheck *check) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = targetOf(index, p, a, check, true);
    if (at < 0)
      continue;
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
                           int32_t selfCount, ScatterArgs a) {
  using C = Compute<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = targetOf(index, p, a, nullptr, false);
    if (at < 0)
      continue;
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
__global__ void fillReachedKernel(T *out, const I *index, T fill,
                                  ScatterArgs a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < a.elements; e += step) {
    const Place p = placeOf(a, e);
    const int64_t at = targetOf(index, p, a, nullptr, false);
    if (at >= 0)
      out[p.out + at * a.outStride] = fill;
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

// One dimension of index with the strides every tensor moves by along it.
struct IterDim {
  int64_t size, index, src, out, dense;
};

// torch's TensorIterator reorder_dimensions (should_swap) for the
// operands of its CUDA scatter (out with 0 along dim, src, index): 1 when
// `faster` should move slower than `slower` (its stride is larger in the
// first operand where neither stride is 0, or equal with a larger size),
// -1 when it should not, 0 when no operand tells.
int shouldSwap(const IterDim &faster, const IterDim &slower) {
  const int64_t strides[][2] = {{faster.out, slower.out},
                                {faster.src, slower.src},
                                {faster.index, slower.index}};
  for (const auto &s : strides) {
    if (s[0] == 0 || s[1] == 0)
      continue;
    if (s[0] > s[1])
      return 1;
    if (s[0] < s[1])
      return -1;
    if (faster.size > slower.size)
      return 1;
  }
  return 0;
}

Expected<ScatterArgs> argsOf(const ScatterLines &l) {
  if (l.outerSizes.size() > static_cast<size_t>(kMaxOuterDims))
    return Error::failure("scatter over ", l.outerSizes.size() + 1,
                          "-d tensors: at most ", kMaxOuterDims + 1,
                          " dimensions are supported on CUDA");
  // index's dimensions in order, dim at its place among the outer ones.
  std::vector<IterDim> dims;
  const size_t rank = l.outerSizes.size() + 1;
  for (size_t d = 0, o = 0; d < rank; ++d) {
    if (static_cast<int64_t>(d) == l.dim) {
      dims.push_back({l.length, l.indexStride, l.srcStride, 0, 0});
      continue;
    }
    dims.push_back({l.outerSizes[o], l.indexOuterStrides[o],
                    l.srcOuterStrides[o], l.outOuterStrides[o],
                    l.denseOuterStrides[o]});
    ++o;
  }
  // `order`, fastest first, sorted as TensorIterator sorts (an insertion
  // sort that steps over the pairs no stride orders).
  std::vector<IterDim> order(dims.rbegin(), dims.rend());
  for (size_t i = 1; i < order.size(); ++i) {
    size_t moving = i;
    for (size_t j = i; j-- > 0;) {
      const int c = shouldSwap(order[j], order[moving]);
      if (c > 0) {
        std::swap(order[j], order[moving]);
        moving = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  ScatterArgs a = {};
  a.elements = l.lines * l.length;
  a.bound = l.bound;
  a.dim = l.dim;
  a.outStride = l.outStride;
  a.denseStride = l.denseStride;
  a.ndim = static_cast<int32_t>(order.size());
  a.narrow = a.elements <= static_cast<int64_t>(UINT32_MAX) ? 1 : 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const IterDim &d = order[order.size() - 1 - k]; // outermost first
    a.sizes[k] = d.size;
    a.indexStrides[k] = d.index;
    a.srcStrides[k] = d.src;
    a.outStrides[k] = d.out;
    a.denseStrides[k] = d.dense;
  }
  return a;
}

template <typename T> constexpr bool kIsScatterType =
    !std::is_same_v<T, uint16_t> && !std::is_same_v<T, uint32_t> &&
    !std::is_same_v<T, uint64_t>;

template <typename T, typename I>
Error launchScatter(const OnStream &on, const Tensor &out, const Tensor &index,
                    const ScatterArgs &a, const ScatterWork &work,
                    DeviceCheck *check) {
  T *dst = static_cast<T *>(out.data());
  const I *idx = static_cast<const I *>(index.data());
  const T *src = work.src ? static_cast<const T *>(work.src->data()) : nullptr;
  const unsigned blocks = blocksFor(a.elements);
  cudaStream_t stream = on.stream();
  if (work.op == ScatterOp::Assign) {
    assignKernel<T, I><<<blocks, kThreadsPerBlock, 0, stream>>>(
        dst, idx, src, store<T>(work.value), a, check);
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
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a,
                                                   check);
    break;
  case ScatterOp::Prod:
    reduceKernel<ScatterOp::Prod, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a,
                                                   check);
    break;
  case ScatterOp::Amax:
    reduceKernel<ScatterOp::Amax, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a,
                                                   check);
    break;
  case ScatterOp::Amin:
    reduceKernel<ScatterOp::Amin, T, I>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, nullptr, a,
                                                   check);
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
          <<<blocks, kThreadsPerBlock, 0, stream>>>(dst, idx, src, countData, a,
                                                    check);
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
  // The bounds: [outer, segments + 1], int64 (a scanned table) or the
  // offsets as given (int32 or int64), which the kernel checks.
  const void *bounds;
  bool boundsInt32;
  bool checkOffsets;
};

__device__ inline int64_t boundAt(const SegmentArgs &a, int64_t k) {
  return a.boundsInt32 ? static_cast<int64_t>(
                             static_cast<const int32_t *>(a.bounds)[k])
                       : static_cast<const int64_t *>(a.bounds)[k];
}

// Segment s of row o, clamped into [0, dataAxis] with end >= begin. The
// threads of inner position 0 check offsets (every adjacent pair is some
// segment's).
__device__ inline void segmentOf(const SegmentArgs &a, int64_t o, int64_t s,
                                 bool checks, DeviceCheck *check,
                                 int64_t &begin, int64_t &end) {
  const int64_t lo = boundAt(a, o * (a.segments + 1) + s);
  const int64_t hi = boundAt(a, o * (a.segments + 1) + s + 1);
  if (checks && a.checkOffsets) {
    if (lo < 0 || lo > a.dataAxis)
      recordCheck(check, CheckKind::SegmentOffsetOutside, lo, a.dataAxis);
    else if (hi < 0 || hi > a.dataAxis)
      recordCheck(check, CheckKind::SegmentOffsetOutside, hi, a.dataAxis);
    else if (hi < lo)
      recordCheck(check, CheckKind::SegmentOffsetsFall, hi, lo);
  }
  begin = lo < 0 ? 0 : (lo > a.dataAxis ? a.dataAxis : lo);
  end = hi < begin ? begin : (hi > a.dataAxis ? a.dataAxis : hi);
}

// One block per row of lengths: table[o][0] = 0, table[o][k + 1] = the sum
// of the row's first k + 1 lengths, each checked (>= 0, the running end
// within data.size(axis), the row's total equal to it unless unsafe).
template <typename I>
__global__ void lengthBoundsKernel(const I *lengths, int64_t width,
                                   int64_t dataAxis, bool unsafe,
                                   int64_t *table, DeviceCheck *check) {
  using Scan = cub::BlockScan<long long, kThreadsPerBlock>;
  __shared__ typename Scan::TempStorage temp;
  const int64_t row = blockIdx.x;
  const I *in = lengths + row * width;
  int64_t *bounds = table + row * (width + 1);
  if (threadIdx.x == 0)
    bounds[0] = 0;
  long long carried = 0;
  for (int64_t base = 0; base < width; base += kThreadsPerBlock) {
    const int64_t k = base + threadIdx.x;
    const long long length = k < width ? static_cast<long long>(in[k]) : 0;
    if (length < 0)
      recordCheck(check, CheckKind::SegmentNegativeLength, length);
    long long inclusive = 0, tile = 0;
    Scan(temp).InclusiveSum(length, inclusive, tile);
    __syncthreads(); // temp is reused by the next tile
    if (k < width) {
      const long long end = carried + inclusive;
      bounds[k + 1] = end;
      if (end > dataAxis)
        recordCheck(check, CheckKind::SegmentLengthsPastEnd, end, dataAxis);
    }
    carried += tile;
  }
  if (threadIdx.x == 0 && !unsafe && carried != dataAxis)
    recordCheck(check, CheckKind::SegmentLengthsSum, carried, dataAxis);
}

template <typename T>
__global__ void segmentKernel(T *out, const T *data, T start, SegmentArgs a,
                              DeviceCheck *check) {
  using C = Compute<T>;
  const int64_t total = a.outer * a.segments * a.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < total; e += step) {
    const int64_t i = e % a.inner;
    const int64_t s = (e / a.inner) % a.segments;
    const int64_t o = e / (a.inner * a.segments);
    int64_t begin = 0, end = 0;
    segmentOf(a, o, s, i == 0, check, begin, end);
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

Error segmentReduce(const Tensor &out, const Tensor &data,
                    const Tensor &segments, bool byOffsets, bool unsafe,
                    const SegmentReduce &p) {
  OnStream on(data);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  SegmentArgs a{p.outer, p.segments, p.inner, p.dataAxis,
                static_cast<int32_t>(p.op), p.hasInitial,
                segments.data(), segments.dtype() == ScalarType::Int32,
                byOffsets};
  Tensor table = segments; // lengths: replaced by their scanned bounds
  if (!byOffsets && p.outer > 0) {
    const int64_t width = p.segments;
    const int64_t count = p.outer * (width + 1);
    Expected<Tensor> scanned = Tensor::emptyContiguous(
        std::span<const int64_t>(&count, 1), ScalarType::Int64, data.device());
    if (!scanned)
      return scanned.takeError();
    table = std::move(*scanned);
    auto *bounds = static_cast<int64_t *>(table.data());
    if (segments.dtype() == ScalarType::Int32)
      lengthBoundsKernel<int32_t><<<static_cast<unsigned>(p.outer),
                                    kThreadsPerBlock, 0, on.stream()>>>(
          static_cast<const int32_t *>(segments.data()), width, p.dataAxis,
          unsafe, bounds, *check);
    else
      lengthBoundsKernel<int64_t><<<static_cast<unsigned>(p.outer),
                                    kThreadsPerBlock, 0, on.stream()>>>(
          static_cast<const int64_t *>(segments.data()), width, p.dataAxis,
          unsafe, bounds, *check);
    if (Error err = on.launched("segment_reduce lengths kernel launch"))
      return err;
    a.bounds = bounds;
    a.boundsInt32 = false;
  }
  const int64_t total = p.outer * p.segments * p.inner;
  if (total > 0) {
    Error launched =
        visitDtype(data.dtype(), "segment_reduce", [&]<typename T>() -> Error {
          if constexpr (std::is_same_v<T, __half> ||
                        std::is_same_v<T, __nv_bfloat16> ||
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
            segmentKernel<T>
                <<<blocksFor(total), kThreadsPerBlock, 0, on.stream()>>>(
                    static_cast<T *>(out.data()),
                    static_cast<const T *>(data.data()),
                    p.hasInitial ? store<T>(p.initial) : store<T>(start), a,
                    *check);
            return on.launched("segment_reduce kernel launch");
          } else {
            return Error::failure("segment_reduce has no CUDA kernel for ",
                                  dtypeName(data.dtype()));
          }
        });
    if (launched)
      return launched;
  }
  return verdictIfSync(on);
}

Error checkScatterIndex(const Tensor &index, const ScatterLines &lines) {
  // By default the scatter kernels check as they go (nothing waits).
  if (!cudaChecksSync())
    return Error::success();
  Expected<ScatterArgs> args = argsOf(lines);
  if (!args)
    return args.takeError();
  OnStream on(index);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  const unsigned blocks = blocksFor(args->elements);
  if (index.dtype() == ScalarType::Int32)
    findBadIndexKernel<int32_t><<<blocks, kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<const int32_t *>(index.data()), *args, *check);
  else
    findBadIndexKernel<int64_t><<<blocks, kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<const int64_t *>(index.data()), *args, *check);
  if (Error err = on.launched("scatter index check launch"))
    return err;
  return takeCheckFailure(on.device());
}

Error scatter(const Tensor &out, const Tensor &index, const ScatterLines &lines,
              const ScatterWork &work) {
  Expected<ScatterArgs> args = argsOf(lines);
  if (!args)
    return args.takeError();
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  return visitDtype(out.dtype(), "scatter", [&]<typename T>() -> Error {
    if constexpr (!kIsScatterType<T>) {
      return Error::failure("scatter has no CUDA kernel for ",
                            dtypeName(out.dtype()));
    } else {
      if (index.dtype() == ScalarType::Int32)
        return launchScatter<T, int32_t>(on, out, index, *args, work, *check);
      return launchScatter<T, int64_t>(on, out, index, *args, work, *check);
    }
  });
}

} // namespace aoti::shims::ops::cuda
