//===- ops/cuda/index.cu - index, index_put, index_reduce on CUDA ---------===//
//
// Our own kernels (no library gathers through several index tensors), with
// CUB's radix sort where duplicates need an order:
//
//  - index: one thread per result element (grid-stride). The row-major
//    linear index is split into coordinates of the IndexPlan's iteration
//    shape, dotted with the base strides and each index tensor's strides;
//    each index value is range-checked, wrapped and scaled by its
//    dimension's stride. Elements move as words of their size.
//  - index_put: the same offsets are computed into a key array (one thread
//    per put element), then CUB's stable radix sort orders (offset,
//    element) pairs by offset, so each run of equal offsets holds the puts
//    to one target in row-major order. One thread per run start then
//    writes the run's last value (no accumulate: the CPU's "last write
//    wins", deterministic here too) or adds the run's values to the target
//    in order in float (double for float64; wrapping 64-bit integers; OR
//    for bool) and rounds once, which is what torch's CUDA
//    index_put_with_sort does for accumulate. No atomics, so float16 and
//    bfloat16 accumulate like the others.
//  - index_reduce: index values are range-checked into keys, sorted stably
//    with their positions; one thread per (sorted position, slice element)
//    whose position starts a run reduces that run in index order, with the
//    CPU's per-step rounding, so both devices give the same bits.
//
// Range checks never wait (ops/checks.h): an index out of range is not
// dereferenced. index writes zero bits for its element; index_put and
// index_reduce give it a sentinel key past every real target, which sorts
// last and is skipped. The first one met is recorded in the device's
// DeviceCheck. With AOTI_SHIMS_CUDA_CHECKS=sync the record is read back
// (one synchronisation of the current stream) before anything is sorted
// or returned, and the call fails with torch's message. Indices that came
// from a mask's nonzero() are in range by construction: an index with only
// such operands reads nothing back.
//
//===----------------------------------------------------------------------===//
#include "ops/index.h"

#include "ops/cuda/checks.cuh"
#include "ops/cuda/index_common.cuh"

#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

/// The most index tensors an indexing takes here.
constexpr int32_t kMaxIndices = 16;

// ops/index.h's IndexPlan as a kernel argument. `other` is the result's
// strides for index and the values' for index_put.
struct IndexArgs {
  int32_t ndim;
  int32_t nindices;
  int64_t numel;
  int64_t sizes[kMaxDims];
  int64_t baseStrides[kMaxDims];
  int64_t otherStrides[kMaxDims];
  const void *index[kMaxIndices];
  int64_t indexStrides[kMaxIndices][kMaxDims];
  int64_t indexSize[kMaxIndices];
  int64_t indexStride[kMaxIndices];
  int64_t indexDim[kMaxIndices]; // for the record of a bad value
  int32_t indexInt32[kMaxIndices];
};

Expected<IndexArgs> indexArgs(const IndexPlan &plan,
                              std::span<const int64_t> otherStrides,
                              const char *op) {
  if (plan.sizes.size() > static_cast<size_t>(kMaxDims))
    return Error::failure(op, " on CUDA takes at most ", kMaxDims,
                          " result dimensions (got ", plan.sizes.size(), ")");
  if (plan.indices.size() > static_cast<size_t>(kMaxIndices))
    return Error::failure(op, " on CUDA takes at most ", kMaxIndices,
                          " index tensors (got ", plan.indices.size(), ")");
  IndexArgs a = {};
  a.ndim = static_cast<int32_t>(plan.sizes.size());
  a.nindices = static_cast<int32_t>(plan.indices.size());
  a.numel = plan.numel();
  for (size_t d = 0; d < plan.sizes.size(); ++d) {
    a.sizes[d] = plan.sizes[d];
    a.baseStrides[d] = plan.baseStrides[d];
    a.otherStrides[d] = otherStrides[d];
  }
  for (size_t k = 0; k < plan.indices.size(); ++k) {
    const IndexOperand &op = plan.indices[k];
    a.index[k] = op.index.data();
    for (size_t d = 0; d < plan.sizes.size(); ++d)
      a.indexStrides[k][d] = op.strides[d];
    a.indexSize[k] = op.size;
    a.indexStride[k] = op.stride;
    a.indexDim[k] = op.dim;
    a.indexInt32[k] = op.index.dtype() == ScalarType::Int32;
  }
  return a;
}

bool needsRangeCheck(const IndexPlan &plan) {
  for (const IndexOperand &op : plan.indices)
    if (!op.fromMask)
      return true;
  return false;
}

// The indexed tensor's offset of element `linear` (base) and its offset in
// the other operand (always set); false (after recording it) for an index
// out of range.
__device__ bool planOffset(const IndexArgs &a, int64_t linear, int64_t &base,
                           int64_t &other, DeviceCheck *check) {
  int64_t coord[kMaxDims];
  base = 0;
  other = 0;
  for (int32_t d = a.ndim - 1; d >= 0; --d) {
    const int64_t c = linear % a.sizes[d];
    linear /= a.sizes[d];
    coord[d] = c;
    base += c * a.baseStrides[d];
    other += c * a.otherStrides[d];
  }
  for (int32_t k = 0; k < a.nindices; ++k) {
    int64_t at = 0;
    for (int32_t d = 0; d < a.ndim; ++d)
      at += coord[d] * a.indexStrides[k][d];
    long long v = a.indexInt32[k]
                      ? static_cast<long long>(
                            static_cast<const int32_t *>(a.index[k])[at])
                      : static_cast<const long long *>(a.index[k])[at];
    const long long size = a.indexSize[k];
    if (v < -size || v >= size) {
      recordCheck(check, CheckKind::IndexOutOfBounds, v, a.indexDim[k], size);
      return false;
    }
    if (v < 0)
      v += size;
    base += v * a.indexStride[k];
  }
  return true;
}

// An element whose index is out of range reads nothing and is zero.
template <typename W>
__global__ void indexKernel(W *out, const W *self, IndexArgs a,
                            DeviceCheck *check) {
  for (int64_t i = firstItem(); i < a.numel; i += itemStep()) {
    int64_t at = 0, outAt = 0;
    const bool inRange = planOffset(a, i, at, outAt, check);
    out[outAt] = inRange ? self[at] : W(0);
  }
}

// index_put, pass 1: each put's target offset and its position; a put
// whose index is out of range gets `sentinel` (past every offset).
__global__ void putTargetsKernel(IndexArgs a, unsigned long long *keys,
                                 long long *positions,
                                 unsigned long long sentinel,
                                 DeviceCheck *check) {
  for (int64_t i = firstItem(); i < a.numel; i += itemStep()) {
    int64_t at = 0, valueAt = 0;
    keys[i] = planOffset(a, i, at, valueAt, check)
                  ? static_cast<unsigned long long>(at)
                  : sentinel;
    positions[i] = i;
  }
}

// index_put without accumulate, pass 2: the last put of each run wins.
template <typename W>
__global__ void putLastKernel(W *out, const W *values, ViewArgs valueView,
                              const unsigned long long *keys,
                              const long long *positions, int64_t n,
                              unsigned long long sentinel) {
  for (int64_t p = firstItem(); p < n; p += itemStep()) {
    if (keys[p] == sentinel || (p + 1 < n && keys[p + 1] == keys[p]))
      continue;
    out[keys[p]] = values[offsetIn(valueView, positions[p])];
  }
}

// What accumulate adds in: float (double for float64), wrapping 64-bit
// integers, or bool (OR).
template <typename T> struct PutAccumulator {
  using type = std::conditional_t<std::is_floating_point_v<Compute<T>>,
                                  Compute<T>, long long>;
};
template <> struct PutAccumulator<Bool> { using type = bool; };

template <typename A, typename V> __device__ A accumulateAdd(A acc, V value) {
  if constexpr (std::is_same_v<A, bool>)
    return acc || value;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(
        static_cast<unsigned long long>(acc) +
        static_cast<unsigned long long>(static_cast<long long>(value)));
  else
    return acc + static_cast<A>(value);
}

// index_put with accumulate, pass 2: each run summed in order into its
// target, rounded once.
template <typename T>
__global__ void putSumKernel(T *out, const T *values, ViewArgs valueView,
                             const unsigned long long *keys,
                             const long long *positions, int64_t n,
                             unsigned long long sentinel) {
  using A = typename PutAccumulator<T>::type;
  for (int64_t p = firstItem(); p < n; p += itemStep()) {
    const unsigned long long key = keys[p];
    if (key == sentinel || (p > 0 && keys[p - 1] == key))
      continue;
    A acc = static_cast<A>(load(out[key]));
    for (int64_t q = p; q < n && keys[q] == key; ++q)
      acc = accumulateAdd(acc, load(values[offsetIn(valueView, positions[q])]));
    out[key] = store<T>(acc);
  }
}

// The (key, position) pairs of index_put and index_reduce, their sorted
// copies and CUB's sort temporary, in one allocation (a small call's cost
// is mostly its launches and allocations).
class SortBuffers {
public:
  static Expected<SortBuffers> make(int64_t n, int bits, const OnStream &on,
                                    const Device &device) {
    size_t tempBytes = 0;
    if (Error err = shims::cuda::checkCuda(
            cub::DeviceRadixSort::SortPairs(
                nullptr, tempBytes,
                static_cast<const unsigned long long *>(nullptr),
                static_cast<unsigned long long *>(nullptr),
                static_cast<const long long *>(nullptr),
                static_cast<long long *>(nullptr), n, 0, bits, on.stream()),
            "cub::DeviceRadixSort::SortPairs"))
      return err;
    // CUB's temporary first, where the allocation's alignment is.
    const size_t pairsAt = (tempBytes + 255) / 256 * 256;
    Expected<Tensor> all =
        scratch(pairsAt + 4 * static_cast<size_t>(n) * 8, device);
    if (!all)
      return all.takeError();
    return SortBuffers(std::move(*all), n, bits, tempBytes, pairsAt);
  }
  unsigned long long *keys() const { return words(0); }
  long long *positions() const {
    return reinterpret_cast<long long *>(words(1));
  }
  const unsigned long long *sortedKeys() const { return words(2); }
  const long long *sortedPositions() const {
    return reinterpret_cast<const long long *>(words(3));
  }
  /// Sorts the pairs by the low `bits` of the key, stably.
  Error sort(const OnStream &on) const {
    size_t bytes = tempBytes_;
    return shims::cuda::checkCuda(
        cub::DeviceRadixSort::SortPairs(
            all_.data(), bytes, static_cast<const unsigned long long *>(keys()),
            words(2), static_cast<const long long *>(positions()),
            reinterpret_cast<long long *>(words(3)), n_, 0, bits_,
            on.stream()),
        "cub::DeviceRadixSort::SortPairs");
  }

private:
  SortBuffers(Tensor all, int64_t n, int bits, size_t tempBytes,
              size_t pairsAt)
      : all_(std::move(all)), n_(n), bits_(bits), tempBytes_(tempBytes),
        pairsAt_(pairsAt) {}
  unsigned long long *words(int64_t part) const {
    return reinterpret_cast<unsigned long long *>(
               static_cast<char *>(all_.data()) + pairsAt_) +
           part * n_;
  }
  Tensor all_;
  int64_t n_;
  int bits_;
  size_t tempBytes_, pairsAt_;
};

// --- index_reduce ------------------------------------------------------------

struct ReduceArgs {
  ViewArgs outSlice;    // out's dimensions but dim
  ViewArgs sourceSlice; // source's, the same sizes
  int64_t outStride;    // along dim
  int64_t sourceStride;
  int64_t n;          // index.numel()
  int64_t sliceNumel; // elements per slice
  int32_t reduce;     // IndexReduce
  int32_t includeSelf;
  unsigned long long sentinel; // the key of an index out of range: out.size(dim)
};

// Keys (index values) and positions; an index out of range gets the key
// `size`, past every real one.
__global__ void reduceKeysKernel(const void *index, int32_t int32,
                                 int64_t stride, int64_t n, int64_t size,
                                 int64_t dim, unsigned long long *keys,
                                 long long *positions, DeviceCheck *check) {
  for (int64_t i = firstItem(); i < n; i += itemStep()) {
    const long long v =
        int32 ? static_cast<long long>(
                    static_cast<const int32_t *>(index)[i * stride])
              : static_cast<const long long *>(index)[i * stride];
    if (v < 0 || v >= size) {
      recordCheck(check, CheckKind::IndexReduceOutOfRange, v, dim, size);
      keys[i] = static_cast<unsigned long long>(size);
    } else {
      keys[i] = static_cast<unsigned long long>(v);
    }
    positions[i] = i;
  }
}

template <typename V> __device__ V wrapAdd(V a, V b) {
  if constexpr (std::is_integral_v<V>)
    return static_cast<V>(static_cast<unsigned long long>(a) +
                          static_cast<unsigned long long>(b));
  else
    return a + b;
}

template <typename V> __device__ V wrapMul(V a, V b) {
  if constexpr (std::is_integral_v<V>)
    return static_cast<V>(static_cast<unsigned long long>(a) *
                          static_cast<unsigned long long>(b));
  else
    return a * b;
}

template <typename V> __device__ V reduceIdentity(int32_t reduce) {
  using Limits = ::cuda::std::numeric_limits<V>;
  switch (static_cast<IndexReduce>(reduce)) {
  case IndexReduce::Prod:
    return V(1);
  case IndexReduce::Mean:
    return V(0);
  case IndexReduce::Amax:
    if constexpr (Limits::has_infinity)
      return -Limits::infinity();
    else
      return Limits::lowest();
  case IndexReduce::Amin:
    if constexpr (Limits::has_infinity)
      return Limits::infinity();
    else
      return Limits::max();
  }
  return V(0);
}

template <typename V> __device__ V combine(int32_t reduce, V acc, V value) {
  switch (static_cast<IndexReduce>(reduce)) {
  case IndexReduce::Prod:
    return wrapMul(acc, value);
  case IndexReduce::Mean:
    return wrapAdd(acc, value);
  case IndexReduce::Amax:
    if (isNan(acc))
      return acc;
    if (isNan(value))
      return value;
    return acc < value ? value : acc;
  case IndexReduce::Amin:
    if (isNan(acc))
      return acc;
    if (isNan(value))
      return value;
    return value < acc ? value : acc;
  }
  return acc;
}

template <typename V> __device__ V meanDivide(V sum, V count) {
  if constexpr (std::is_floating_point_v<V>) {
    return sum / count;
  } else if constexpr (std::is_signed_v<V>) {
    if (count == V(-1))
      return static_cast<V>(0ull - static_cast<unsigned long long>(sum));
    const V q = static_cast<V>(sum / count);
    const V r = static_cast<V>(sum % count);
    return (r != 0 && ((r < 0) != (count < 0))) ? static_cast<V>(q - 1) : q;
  } else {
    return static_cast<V>(sum / count);
  }
}

template <typename T>
__global__ void reduceKernel(T *out, const T *source, ReduceArgs a,
                             const unsigned long long *keys,
                             const long long *positions) {
  using V = Compute<T>;
  const int64_t total = a.n * a.sliceNumel;
  const bool mean = a.reduce == static_cast<int32_t>(IndexReduce::Mean);
  for (int64_t item = firstItem(); item < total; item += itemStep()) {
    const int64_t p = item / a.sliceNumel;
    const int64_t e = item % a.sliceNumel;
    const unsigned long long key = keys[p];
    if (key == a.sentinel || (p > 0 && keys[p - 1] == key))
      continue;
    const int64_t outAt =
        offsetIn(a.outSlice, e) + static_cast<int64_t>(key) * a.outStride;
    const int64_t sourceBase = offsetIn(a.sourceSlice, e);
    T acc = a.includeSelf ? out[outAt] : store<T>(reduceIdentity<V>(a.reduce));
    T count = store<T>(a.includeSelf ? 1 : 0);
    for (int64_t q = p; q < a.n && keys[q] == key; ++q) {
      const T value = source[sourceBase + positions[q] * a.sourceStride];
      acc = store<T>(combine(a.reduce, load(acc), load(value)));
      if (mean)
        count = store<T>(wrapAdd(load(count), V(1)));
    }
    if (mean) {
      V c = load(count);
      if (c == V(0))
        c = V(1);
      acc = store<T>(meanDivide(load(acc), load(store<T>(c))));
    }
    out[outAt] = acc;
  }
}

} // namespace

Error index(const Tensor &out, const Tensor &self, const IndexPlan &plan) {
  Expected<IndexArgs> args = indexArgs(plan, out.strides(), "index");
  if (!args)
    return args.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  if (Error e = visitWord(self.itemSize(), [&]<typename W>() {
        indexKernel<W>
            <<<blocksFor(args->numel), kThreadsPerBlock, 0, on.stream()>>>(
                static_cast<W *>(out.data()),
                static_cast<const W *>(self.data()), *args, *check);
        return on.launched("index kernel launch");
      }))
    return e;
  if (!needsRangeCheck(plan))
    return Error::success();
  return verdictIfSync(on);
}

Error indexPut(const Tensor &out, const Tensor &values,
               const std::vector<int64_t> &valueStrides, const IndexPlan &plan,
               bool accumulate) {
  Expected<IndexArgs> args = indexArgs(plan, valueStrides, "index_put");
  if (!args)
    return args.takeError();
  Expected<ViewArgs> valueView =
      viewArgs(plan.sizes, valueStrides, "index_put");
  if (!valueView)
    return valueView.takeError();
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  const Device &device = out.device();
  const int64_t n = args->numel;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  Expected<int64_t> span = spanElements(out.sizes(), out.strides());
  if (!span)
    return span.takeError();
  // Every real target offset is below the span; the sentinel is the span.
  const auto sentinel = static_cast<unsigned long long>(*span);
  Expected<SortBuffers> buffers = SortBuffers::make(
      n, bitsFor(static_cast<uint64_t>(*span) + 1), on, device);
  if (!buffers)
    return buffers.takeError();
  putTargetsKernel<<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
      *args, buffers->keys(), buffers->positions(), sentinel, *check);
  if (Error err = on.launched("index_put target kernel launch"))
    return err;
  if (needsRangeCheck(plan))
    if (Error err = verdictIfSync(on))
      return err;
  if (Error err = buffers->sort(on))
    return err;
  const unsigned long long *sortedKeys = buffers->sortedKeys();
  const long long *sortedPositions = buffers->sortedPositions();
  if (!accumulate)
    return visitWord(out.itemSize(), [&]<typename W>() {
      putLastKernel<W><<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
          static_cast<W *>(out.data()), static_cast<const W *>(values.data()),
          *valueView, sortedKeys, sortedPositions, n, sentinel);
      return on.launched("index_put kernel launch");
    });
  return visitDtype(out.dtype(), "index_put", [&]<typename T>() {
    putSumKernel<T><<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<T *>(out.data()), static_cast<const T *>(values.data()),
        *valueView, sortedKeys, sortedPositions, n, sentinel);
    return on.launched("index_put accumulate kernel launch");
  });
}

Error indexReduce(const Tensor &out, const Tensor &index, const Tensor &source,
                  const IndexReducePlan &plan) {
  const size_t dim = static_cast<size_t>(plan.dim);
  const int64_t size = out.sizes()[dim];
  const int64_t n = index.numel();
  std::vector<int64_t> sliceSizes, outSlice, sourceSlice;
  for (size_t d = 0; d < static_cast<size_t>(out.dim()); ++d) {
    if (d == dim)
      continue;
    sliceSizes.push_back(out.sizes()[d]);
    outSlice.push_back(out.strides()[d]);
    sourceSlice.push_back(source.strides()[d]);
  }
  ReduceArgs a = {};
  {
    Expected<ViewArgs> o = viewArgs(sliceSizes, outSlice, "index_reduce");
    if (!o)
      return o.takeError();
    Expected<ViewArgs> s = viewArgs(sliceSizes, sourceSlice, "index_reduce");
    if (!s)
      return s.takeError();
    a.outSlice = *o;
    a.sourceSlice = *s;
  }
  a.outStride = out.strides()[dim];
  a.sourceStride = source.strides()[dim];
  a.n = n;
  a.sliceNumel = a.outSlice.numel;
  a.reduce = static_cast<int32_t>(plan.reduce);
  a.includeSelf = plan.includeSelf ? 1 : 0;
  a.sentinel = static_cast<unsigned long long>(size);
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  const Device &device = out.device();
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  Expected<SortBuffers> buffers = SortBuffers::make(
      n, bitsFor(static_cast<uint64_t>(size) + 1), on, device);
  if (!buffers)
    return buffers.takeError();
  reduceKeysKernel<<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
      index.data(), index.dtype() == ScalarType::Int32, index.strides()[0], n,
      size, plan.dim, buffers->keys(), buffers->positions(), *check);
  if (Error err = on.launched("index_reduce key kernel launch"))
    return err;
  if (Error err = verdictIfSync(on))
    return err;
  if (a.sliceNumel == 0)
    return Error::success();
  if (Error err = buffers->sort(on))
    return err;
  return visitDtype(out.dtype(), "index_reduce", [&]<typename T>() -> Error {
    if constexpr (std::is_same_v<T, Bool>) {
      return Error::failure("index_reduce does not support bool");
    } else {
      reduceKernel<T>
          <<<blocksFor(n * a.sliceNumel), kThreadsPerBlock, 0, on.stream()>>>(
              static_cast<T *>(out.data()),
              static_cast<const T *>(source.data()), a,
              buffers->sortedKeys(), buffers->sortedPositions());
      return on.launched("index_reduce kernel launch");
    }
  });
}

} // namespace aoti::shims::ops::cuda
