//===- ops/cuda/search.cu - searchsorted and histc on a CUDA device -------===//
//
// Our own kernels, on the current stream of the input's device:
//  - searchSorted: one thread per value (grid-stride), a binary search
//    over its row of boundaries with torch's comparisons (ops/search.h).
//    Values and boundaries keep their own dtypes in memory; each element
//    read is converted to the comparison dtype T on the fly (a switch on
//    the source dtype, the same conversion torch's .to(common) makes), so
//    no converted copies are made. CUB has no batched search with torch's
//    NaN rule, and one thread per value is what torch does too.
//    With a sorter, the same launch also checks every sorter entry
//    (grid-stride over them) and records one outside [0, length)
//    (ops/checks.h: nothing waits; torch reads its aminmax back); the
//    search reads a bad entry's own position instead of following it.
//  - histc's range from the data (min == max): per-block minimum and
//    maximum (NaN-propagating, in double), then one block reduces the
//    partials and settles the range on the device as the host would (1
//    added on each side when empty; a range that is not finite, or empty,
//    is recorded and the histogram stays zero). Nothing is read back
//    (torch's histc reads self.min() and self.max() back).
//  - histc: torch's bin arithmetic in its accumulation type (float for
//    float32, double for float64, exact 128-bit integer arithmetic for the
//    integers, where torch's int64 products could overflow), the high edge
//    in the last bin, NaN and outside values skipped. Counts go to a
//    per-block shared-memory histogram of 32-bit counters when bins fit
//    (48 KiB: 12288 bins), then one atomicAdd per bin and block into 64-bit
//    global counters; more bins count straight into the global counters. A
//    last launch converts the exact counts to self's dtype (integers wrap,
//    as torch's atomic adds in the dtype do; a float32 count above 2^24
//    rounds where torch's would stop growing). cub::DeviceHistogram is not
//    used: its even-bin mapping is not torch's formula, so values near an
//    edge could land in the neighbouring bin.
//
//===----------------------------------------------------------------------===//
#include "ops/search.h"

#include "copy.h"
#include "ops/cuda/checks.cuh"
#include "ops/cuda/element.cuh"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

// Element k of `data` (of dtype `code`) converted to T, as Compute<T>.
template <typename T>
__device__ inline Compute<T> readAs(const void *data, int32_t code, int64_t k) {
  switch (static_cast<ScalarType>(code)) {
  case ScalarType::Bool:
    return load(store<T>(load(static_cast<const Bool *>(data)[k])));
  case ScalarType::UInt8:
    return load(store<T>(static_cast<const uint8_t *>(data)[k]));
  case ScalarType::Int8:
    return load(store<T>(static_cast<const int8_t *>(data)[k]));
  case ScalarType::Int16:
    return load(store<T>(static_cast<const int16_t *>(data)[k]));
  case ScalarType::Int32:
    return load(store<T>(static_cast<const int32_t *>(data)[k]));
  case ScalarType::Int64:
    return load(store<T>(static_cast<const int64_t *>(data)[k]));
  case ScalarType::Float16:
    return load(store<T>(load(static_cast<const __half *>(data)[k])));
  case ScalarType::BFloat16:
    return load(store<T>(load(static_cast<const __nv_bfloat16 *>(data)[k])));
  case ScalarType::Float32:
    return load(store<T>(static_cast<const float *>(data)[k]));
  default:
    return load(store<T>(static_cast<const double *>(data)[k]));
  }
}

struct SearchArgs {
  const void *input;
  int32_t inputCode;
  const void *boundaries;
  int32_t boundaryCode;
  const int64_t *sorter;
  int64_t sorterNumel;
  int64_t values, valuesPerRow, length;
  bool oneRow, right, scalarInput;
  double scalar;
};

template <typename T, typename Out>
__global__ void searchKernel(Out *out, SearchArgs a, DeviceCheck *check) {
  using C = Compute<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a.sorter)
    for (int64_t k = first; k < a.sorterNumel; k += step)
      if (a.sorter[k] < 0 || a.sorter[k] >= a.length)
        recordCheck(check, CheckKind::SorterOutOfRange, a.sorter[k], a.length);
  for (int64_t i = first; i < a.values; i += step) {
    const C value = a.scalarInput ? load(store<T>(a.scalar))
                                  : readAs<T>(a.input, a.inputCode, i);
    const int64_t origin = a.oneRow ? 0 : i / a.valuesPerRow * a.length;
    int64_t start = origin, end = origin + a.length;
    while (start < end) {
      const int64_t mid = start + ((end - start) >> 1);
      int64_t at = mid;
      if (a.sorter) {
        const int64_t sorted = a.sorter[mid];
        if (sorted >= 0 && sorted < a.length)
          at = sorted + origin;
      }
      const C bound = readAs<T>(a.boundaries, a.boundaryCode, at);
      const bool before = a.right ? !(bound > value) : !(bound >= value);
      if (before)
        start = mid + 1;
      else
        end = mid;
    }
    out[i] = static_cast<Out>(start - origin);
  }
}

constexpr unsigned kRangeBlocks = 1024;

struct Partial {
  double low, high;
  int nan, any;
};

__device__ inline Partial merge(Partial a, Partial b) {
  if (!b.any)
    return a;
  if (!a.any)
    return b;
  return {fmin(a.low, b.low), fmax(a.high, b.high), a.nan | b.nan, 1};
}

// Reduces the threads' partials of one block; thread 0 returns the result.
__device__ inline Partial blockMerge(Partial mine) {
  __shared__ Partial shared[kThreadsPerBlock];
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      shared[threadIdx.x] = merge(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  return shared[0];
}

template <typename T>
__global__ void rangeKernel(const T *data, int64_t n, Partial *partials) {
  Partial mine{0, 0, 0, 0};
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += step) {
    const double x = static_cast<double>(load(data[i]));
    mine = merge(mine, Partial{x, x, x != x ? 1 : 0, 1});
  }
  const Partial block = blockMerge(mine);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = block;
}

// histc's range as settled on the device; the histogram counts nothing
// unless valid.
struct HistRange {
  double low, high;
  int valid;
};

// The data's [min, max] (NaN when it holds one), widened by 1 on each side
// when empty, then checked as ops/search.cpp checks a range it was given.
__global__ void rangeFinishKernel(const Partial *partials, unsigned count,
                                  HistRange *range, DeviceCheck *check) {
  Partial mine{0, 0, 0, 0};
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
    mine = merge(mine, partials[i]);
  const Partial all = blockMerge(mine);
  if (threadIdx.x != 0)
    return;
  const double nan = __longlong_as_double(0x7ff8000000000000ll);
  double low = all.nan ? nan : all.low;
  double high = all.nan ? nan : all.high;
  if (low == high) {
    low -= 1;
    high += 1;
  }
  int valid = 1;
  if (!isfinite(low) || !isfinite(high)) {
    recordCheck(check, CheckKind::HistcNotFinite, 0, __double_as_longlong(low),
                __double_as_longlong(high));
    valid = 0;
  } else if (!(low < high)) {
    recordCheck(check, CheckKind::HistcEmptyRange, 0, __double_as_longlong(low),
                __double_as_longlong(high));
    valid = 0;
  }
  range->low = low;
  range->high = high;
  range->valid = valid;
}

constexpr int64_t kSharedBins = 12288; // 48 KiB of 32-bit counters

template <typename T> struct Bounds {
  using type = long long;
};
template <> struct Bounds<float> {
  using type = float;
};
template <> struct Bounds<double> {
  using type = double;
};

// torch's getBin in the bounds type, or -1 when x is outside or NaN.
template <typename T>
__device__ inline int64_t binOf(T x, typename Bounds<T>::type low,
                                typename Bounds<T>::type high, int64_t bins) {
  using B = typename Bounds<T>::type;
  const B value = static_cast<B>(x);
  if (!(value >= low && value <= high))
    return -1;
  int64_t bin;
  if constexpr (std::is_floating_point_v<B>) {
    bin = static_cast<int>((value - low) * static_cast<B>(bins) / (high - low));
  } else {
    const __int128 q = (static_cast<__int128>(value) - low) * bins /
                       (static_cast<__int128>(high) - low);
    bin = static_cast<int64_t>(q);
  }
  return bin >= bins ? bins - 1 : (bin < 0 ? 0 : bin);
}

// The bounds a histogram kernel uses: its arguments, or the range settled
// on the device (false: count nothing).
template <typename B>
__device__ inline bool boundsFrom(const HistRange *range, B &low, B &high) {
  if (!range)
    return true;
  if (!range->valid)
    return false;
  low = static_cast<B>(range->low);
  high = static_cast<B>(range->high);
  return true;
}

template <typename T>
__global__ void histcSharedKernel(const T *data, int64_t n,
                                  typename Bounds<T>::type low,
                                  typename Bounds<T>::type high,
                                  const HistRange *range, int64_t bins,
                                  unsigned long long *counts) {
  if (!boundsFrom(range, low, high))
    return;
  extern __shared__ unsigned sharedCounts[];
  for (int64_t b = threadIdx.x; b < bins; b += blockDim.x)
    sharedCounts[b] = 0;
  __syncthreads();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += step) {
    const int64_t bin = binOf(data[i], low, high, bins);
    if (bin >= 0)
      atomicAdd(sharedCounts + bin, 1u);
  }
  __syncthreads();
  for (int64_t b = threadIdx.x; b < bins; b += blockDim.x)
    if (sharedCounts[b])
      atomicAdd(counts + b, static_cast<unsigned long long>(sharedCounts[b]));
}

template <typename T>
__global__ void histcGlobalKernel(const T *data, int64_t n,
                                  typename Bounds<T>::type low,
                                  typename Bounds<T>::type high,
                                  const HistRange *range, int64_t bins,
                                  unsigned long long *counts) {
  if (!boundsFrom(range, low, high))
    return;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += step) {
    const int64_t bin = binOf(data[i], low, high, bins);
    if (bin >= 0)
      atomicAdd(counts + bin, 1ull);
  }
}

template <typename T>
__global__ void countsToDtypeKernel(const unsigned long long *counts,
                                    int64_t bins, T *hist) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       b < bins; b += step) {
    if constexpr (std::is_floating_point_v<T>)
      hist[b] = static_cast<T>(static_cast<double>(counts[b]));
    else
      hist[b] = static_cast<T>(counts[b]);
  }
}

template <typename T> constexpr bool kIsHistcType =
    std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, double>;

} // namespace

Error searchSorted(const Tensor &out, const Tensor *input,
                   const Tensor &boundaries, const Tensor *sorter,
                   const SearchSorted &p) {
  OnStream on(boundaries);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  SearchArgs a = {};
  a.input = input ? input->data() : nullptr;
  a.inputCode = input ? static_cast<int32_t>(input->dtype()) : 0;
  a.boundaries = boundaries.data();
  a.boundaryCode = static_cast<int32_t>(boundaries.dtype());
  a.sorter = sorter ? static_cast<const int64_t *>(sorter->data()) : nullptr;
  a.sorterNumel = sorter ? sorter->numel() : 0;
  a.values = p.values;
  a.valuesPerRow = p.valuesPerRow;
  a.length = p.boundaryLength;
  a.oneRow = p.oneRow;
  a.right = p.right;
  a.scalarInput = p.scalarInput;
  a.scalar = p.scalar;
  const unsigned blocks = blocksFor(std::max(p.values, a.sorterNumel));
  Error launched =
      visitDtype(p.common, "searchsorted", [&]<typename T>() -> Error {
        if constexpr (std::is_same_v<T, Bool> || std::is_same_v<T, uint16_t> ||
                      std::is_same_v<T, uint32_t> ||
                      std::is_same_v<T, uint64_t>) {
          return Error::failure("searchsorted has no CUDA kernel for ",
                                dtypeName(p.common));
        } else {
          if (out.dtype() == ScalarType::Int32)
            searchKernel<T, int32_t>
                <<<blocks, kThreadsPerBlock, 0, on.stream()>>>(
                    static_cast<int32_t *>(out.data()), a, *check);
          else
            searchKernel<T, int64_t>
                <<<blocks, kThreadsPerBlock, 0, on.stream()>>>(
                    static_cast<int64_t *>(out.data()), a, *check);
          return on.launched("searchsorted kernel launch");
        }
      });
  if (launched)
    return launched;
  if (!sorter)
    return Error::success();
  return verdictIfSync(on);
}

Error histc(const Tensor &hist, const Tensor &input, const Histc &p) {
  Expected<Tensor> contiguous =
      input.isContiguous() ? Expected<Tensor>(input) : cloneContiguous(input);
  if (!contiguous)
    return contiguous.takeError();
  OnStream on(input);
  if (Error err = on.takeStatus())
    return err;
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  const int64_t bins = p.bins;
  const int64_t n = contiguous->numel();
  // One scratch: the 64-bit counts, then (for a range from the data) the
  // range's partials and the settled range.
  const unsigned rangeBlocks =
      p.fromData ? std::min(blocksFor(n), kRangeBlocks) : 0u;
  const size_t countBytes = static_cast<size_t>(bins) * sizeof(int64_t);
  const size_t partialBytes = rangeBlocks * sizeof(Partial);
  const int64_t words = static_cast<int64_t>(
      (countBytes + partialBytes + sizeof(HistRange) + 7) / 8);
  Expected<Tensor> scratch = Tensor::emptyContiguous(
      std::span<const int64_t>(&words, 1), ScalarType::Int64, input.device());
  if (!scratch)
    return scratch.takeError();
  auto *base = static_cast<char *>(scratch->data());
  auto *countData = reinterpret_cast<unsigned long long *>(base);
  auto *partials = reinterpret_cast<Partial *>(base + countBytes);
  auto *range = p.fromData ? reinterpret_cast<HistRange *>(
                                 base + countBytes + partialBytes)
                           : nullptr;
  if (Error err = shims::cuda::zeroBytes(countData, countBytes, on.device()))
    return err;
  Error launched = visitDtype(input.dtype(), "histc", [&]<typename T>() -> Error {
    if constexpr (!kIsHistcType<T>) {
      return Error::failure("histc has no CUDA kernel for ",
                            dtypeName(input.dtype()));
    } else {
      using B = typename Bounds<T>::type;
      const B low = static_cast<B>(p.low), high = static_cast<B>(p.high);
      const T *data = static_cast<const T *>(contiguous->data());
      if (p.fromData) {
        rangeKernel<T><<<rangeBlocks, kThreadsPerBlock, 0, on.stream()>>>(
            data, n, partials);
        if (Error err = on.launched("histc range kernel launch"))
          return err;
        rangeFinishKernel<<<1, kThreadsPerBlock, 0, on.stream()>>>(
            partials, rangeBlocks, range, *check);
        if (Error err = on.launched("histc range kernel launch"))
          return err;
      }
      if (n > 0) {
        if (bins <= kSharedBins) {
          const unsigned blocks = std::min(blocksFor(n), 1024u);
          histcSharedKernel<T><<<blocks, kThreadsPerBlock,
                                 static_cast<size_t>(bins) * sizeof(unsigned),
                                 on.stream()>>>(data, n, low, high, range,
                                                bins, countData);
        } else {
          histcGlobalKernel<T><<<blocksFor(n), kThreadsPerBlock, 0,
                                 on.stream()>>>(data, n, low, high, range,
                                                bins, countData);
        }
        if (Error err = on.launched("histc kernel launch"))
          return err;
      }
      countsToDtypeKernel<T><<<blocksFor(bins), kThreadsPerBlock, 0,
                               on.stream()>>>(countData, bins,
                                              static_cast<T *>(hist.data()));
      return on.launched("histc conversion launch");
    }
  });
  if (launched)
    return launched;
  if (!p.fromData)
    return Error::success();
  return verdictIfSync(on);
}

} // namespace aoti::shims::ops::cuda
