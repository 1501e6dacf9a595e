//===- ops/cuda/sort.cu - sort, topk, kthvalue, median, mode on a GPU -----===//
//
// Every op orders (key, index) pairs, the key being the element's
// orderedKey (ops/sort.h) and the index its position along the row; the
// pairs are all distinct, so any correct sort of them gives the stable
// order, the same as the CPU's element for element. Two algorithms, by row
// length, all on the current stream of self's device, nothing waited for:
//
//  - Rows of at most kSmallRowMax (2048) elements: one kernel, no
//    temporaries (sortSmallRows). A block takes one or more whole rows
//    (rowsPerBlock = max(1, 512 / width), width the row length rounded up
//    to a power of two), reads them through self's strides into shared
//    memory as packed (key, index) integers (key in the high half, so that
//    integer order is the pairs' order; padding sorts last), sorts each
//    row's width-long segment with a bitonic network (log2(width) *
//    (log2(width) + 1) / 2 steps of width / 2 compare-exchanges, one per
//    thread), and writes positions [first, first + count) of each row
//    (sort, topk, kthvalue), the value gathered from self at the index so
//    that -0.0 and NaN payloads survive, or walks each row's runs (mode,
//    one thread per row). Descending order flips the key's bits, so that
//    equal keys still come in index order.
//  - Longer rows (and median, which orders all elements as one row): one
//    cub::DeviceRadixSort::SortPairs over every element at once, keyed by
//    (row, key) packed into 64 bits (the row above the key's own kBits;
//    a 128-bit key through CUB's decomposer when they do not fit, i.e. for
//    64-bit elements in several rows) with uint32 indices as values, over
//    only the bits that matter. The radix sort is stable and the row is the
//    most significant digit, so rows stay apart, in order, each sorted
//    stably: the few-long-rows case uses the whole GPU, which
//    cub::DeviceSegmentedSort does not (one block per segment). A key
//    kernel before (makeRadixKeys) and a result kernel after (writeSlice,
//    modeRows: one thread per row walking its runs; medianPick: one thread,
//    the NaN count by binary search, then medianPosition()). The keys,
//    indices (both double-buffered) and CUB's scratch are one allocation.
//
// Indices are 32-bit inside the sorts; a row (or median's tensor) of
// 2^32 or more elements is refused (it would need more than 80 GiB of
// temporaries anyway). See docs/ops/sort.md for the costs.
//
//===----------------------------------------------------------------------===//
#include "ops/sort.h"

#include "ops/cuda/element.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/util_type.cuh>

#include <cuda/std/tuple>

#include <cstdint>
#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

/// The most outer (not sorted) dimensions a launch takes.
constexpr int32_t kMaxOuterDims = 16;

// ops/sort.h's SortRows as kernel arguments, strides in elements.
struct RowShape {
  int64_t rows;
  int64_t length;
  int32_t outerDims;
  int64_t outerSizes[kMaxOuterDims];
};
struct RowPlace {
  int64_t along;
  int64_t outer[kMaxOuterDims];
};

RowShape shapeOf(const SortRows &rows) {
  RowShape shape = {};
  shape.rows = rows.rows;
  shape.length = rows.length;
  shape.outerDims = static_cast<int32_t>(rows.outerSizes.size());
  for (size_t d = 0; d < rows.outerSizes.size(); ++d)
    shape.outerSizes[d] = rows.outerSizes[d];
  return shape;
}

RowPlace placeOf(const RowStrides &strides) {
  RowPlace place = {};
  place.along = strides.along;
  for (size_t d = 0; d < strides.outer.size(); ++d)
    place.outer[d] = strides.outer[d];
  return place;
}

__device__ int64_t rowOffset(int64_t row, const RowShape &shape,
                             const RowPlace &place) {
  int64_t offset = 0;
  for (int32_t d = shape.outerDims - 1; d >= 0; --d) {
    offset += (row % shape.outerSizes[d]) * place.outer[d];
    row /= shape.outerSizes[d];
  }
  return offset;
}

__device__ int64_t firstItem() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ int64_t itemStep() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// --- Keys -----------------------------------------------------------------

// An element type's key: its bits (Bits) in orderedKey's order, widened to
// Key, the type CUB sorts; kBits of them matter.
template <typename T> struct KeyOf;
template <typename B, KeyKind K, B Infinity = 0> struct KeyFrom {
  using Bits = B;
  using Key = std::conditional_t<sizeof(B) <= 4, uint32_t, uint64_t>;
  static constexpr int kBits = static_cast<int>(sizeof(B) * 8);
  static constexpr bool kHasNan = K == KeyKind::Floating;
  __device__ static Key fromBits(B bits) {
    return static_cast<Key>(orderedKey<K, B>(bits, Infinity));
  }
};
template <> struct KeyOf<Bool> : KeyFrom<uint8_t, KeyKind::Unsigned> {
  __device__ static Key key(Bool x) { return x.byte != 0 ? 1u : 0u; }
};
template <typename T, typename B, KeyKind K>
struct IntegerKey : KeyFrom<B, K> {
  __device__ static typename KeyFrom<B, K>::Key key(T x) {
    return KeyFrom<B, K>::fromBits(static_cast<B>(x));
  }
};
template <> struct KeyOf<uint8_t> : IntegerKey<uint8_t, uint8_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint16_t> : IntegerKey<uint16_t, uint16_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint32_t> : IntegerKey<uint32_t, uint32_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint64_t> : IntegerKey<uint64_t, uint64_t, KeyKind::Unsigned> {};
template <> struct KeyOf<int8_t> : IntegerKey<int8_t, uint8_t, KeyKind::Signed> {};
template <> struct KeyOf<int16_t> : IntegerKey<int16_t, uint16_t, KeyKind::Signed> {};
template <> struct KeyOf<int32_t> : IntegerKey<int32_t, uint32_t, KeyKind::Signed> {};
template <> struct KeyOf<int64_t> : IntegerKey<int64_t, uint64_t, KeyKind::Signed> {};
template <>
struct KeyOf<__half> : KeyFrom<uint16_t, KeyKind::Floating, 0x7c00> {
  __device__ static Key key(__half x) { return fromBits(__half_as_ushort(x)); }
};
template <>
struct KeyOf<__nv_bfloat16>
    : KeyFrom<uint16_t, KeyKind::Floating, 0x7f80> {
  __device__ static Key key(__nv_bfloat16 x) {
    return fromBits(__bfloat16_as_ushort(x));
  }
};
template <>
struct KeyOf<float> : KeyFrom<uint32_t, KeyKind::Floating, 0x7f800000u> {
  __device__ static Key key(float x) { return fromBits(__float_as_uint(x)); }
};
template <>
struct KeyOf<double>
    : KeyFrom<uint64_t, KeyKind::Floating, 0x7ff0000000000000ull> {
  __device__ static Key key(double x) {
    return fromBits(static_cast<uint64_t>(__double_as_longlong(x)));
  }
};

// Whether a (widened) key is a NaN's.
template <typename T>
__device__ bool isNanKey(typename KeyOf<T>::Key key) {
  using K = KeyOf<T>;
  if constexpr (K::kHasNan)
    return key == static_cast<typename K::Key>(kNanKey<typename K::Bits>);
  else
    return false;
}

/// The longest row the shared-memory path sorts; longer ones go to the
/// radix sort over all rows.
constexpr int64_t kSmallRowMax = 2048;
/// The fewest entries a block of the shared-memory path sorts: short rows
/// are grouped so that a block keeps 256 threads busy.
constexpr int32_t kSmallTile = 512;

// The key's kBits low bits set: flipping them reverses the order.
template <typename T> __host__ __device__ constexpr uint64_t keyMask() {
  constexpr int bits = KeyOf<T>::kBits;
  if constexpr (bits >= 64)
    return ~uint64_t{0};
  else
    return (uint64_t{1} << bits) - 1;
}

// --- Short rows: one block sorts whole rows in shared memory ---------------

// A (key, index) pair as one unsigned integer twice the key's width, the
// key in the high half: their integer order is the pairs' order.
template <typename Key> struct PackedOf;
template <> struct PackedOf<uint32_t> {
  using type = uint64_t;
};
template <> struct PackedOf<uint64_t> {
  using type = unsigned __int128;
};
template <typename Key> using Packed = typename PackedOf<Key>::type;

enum class RowResult { Slice, Mode };

// Rows [r0, r0 + rowsPerBlock) per block (grid-stride), each padded to
// 2^widthLog2 entries. Slice: positions [first, first + count) of each
// sorted row into values and indices; Mode: each row's mode.
template <typename T, RowResult Result>
__global__ void __launch_bounds__(1024)
    sortSmallRows(T *values, int64_t *indices, const T *self, RowShape shape,
                  RowPlace selfPlace, RowPlace valuesPlace,
                  RowPlace indicesPlace, int32_t widthLog2,
                  int32_t rowsPerBlock, bool descending, int32_t first,
                  int32_t count) {
  using K = KeyOf<T>;
  using Key = typename K::Key;
  using P = Packed<Key>;
  constexpr int kShift = static_cast<int>(sizeof(Key) * 8);
  extern __shared__ __align__(16) unsigned char sortShared[];
  P *tile = reinterpret_cast<P *>(sortShared);
  const int32_t width = 1 << widthLog2;
  const int32_t entries = width * rowsPerBlock;
  const Key flip = descending ? static_cast<Key>(keyMask<T>()) : Key{0};
  const int64_t rowStep = static_cast<int64_t>(gridDim.x) * rowsPerBlock;
  for (int64_t firstRow = static_cast<int64_t>(blockIdx.x) * rowsPerBlock;
       firstRow < shape.rows; firstRow += rowStep) {
    for (int32_t e = threadIdx.x; e < entries; e += blockDim.x) {
      const int64_t row = firstRow + (e >> widthLog2);
      const int32_t j = e & (width - 1);
      P entry = ~P{0}; // padding, after every real pair
      if (row < shape.rows && j < shape.length) {
        const Key key = static_cast<Key>(
            K::key(self[rowOffset(row, shape, selfPlace) +
                        j * selfPlace.along]) ^
            flip);
        entry = (static_cast<P>(key) << kShift) | static_cast<P>(j);
      }
      tile[e] = entry;
    }
    __syncthreads();
    // Bitonic sort of every width-long segment, ascending: stage k merges
    // runs of k / 2 into runs of k, alternating direction except at the
    // last stage (k == width), where every segment ends ascending.
    for (int32_t k = 2; k <= width; k <<= 1) {
      for (int32_t j = k >> 1; j > 0; j >>= 1) {
        for (int32_t c = threadIdx.x; c < entries / 2; c += blockDim.x) {
          const int32_t low = ((c & ~(j - 1)) << 1) | (c & (j - 1));
          const int32_t high = low | j;
          const bool ascending = k == width || (low & k) == 0;
          const P a = tile[low], b = tile[high];
          if ((a > b) == ascending) {
            tile[low] = b;
            tile[high] = a;
          }
        }
        __syncthreads();
      }
    }
    if constexpr (Result == RowResult::Slice) {
      for (int32_t o = threadIdx.x; o < rowsPerBlock * count; o += blockDim.x) {
        const int32_t local = o / count, p = o % count;
        const int64_t row = firstRow + local;
        if (row >= shape.rows)
          break;
        const int64_t index = static_cast<uint32_t>(
            tile[(local << widthLog2) + first + p]);
        values[rowOffset(row, shape, valuesPlace) + p * valuesPlace.along] =
            self[rowOffset(row, shape, selfPlace) + index * selfPlace.along];
        indices[rowOffset(row, shape, indicesPlace) +
                p * indicesPlace.along] = index;
      }
    } else {
      // The first run of equal keys longer than every earlier one (every
      // NaN a run of its own), and the last index in it.
      for (int32_t local = threadIdx.x; local < rowsPerBlock;
           local += blockDim.x) {
        const int64_t row = firstRow + local;
        if (row >= shape.rows)
          break;
        const P *sorted = tile + (local << widthLog2);
        const int32_t length = static_cast<int32_t>(shape.length);
        int32_t bestCount = 0, bestEnd = 0, runStart = 0;
        Key key = static_cast<Key>(sorted[0] >> kShift);
        for (int32_t p = 0; p < length; ++p) {
          const Key next = p + 1 < length
                               ? static_cast<Key>(sorted[p + 1] >> kShift)
                               : key;
          const bool runEnds =
              p + 1 == length || key != next || isNanKey<T>(key);
          if (runEnds) {
            if (p - runStart + 1 > bestCount) {
              bestCount = p - runStart + 1;
              bestEnd = p;
            }
            runStart = p + 1;
          }
          key = next;
        }
        const int64_t index = static_cast<uint32_t>(sorted[bestEnd]);
        values[rowOffset(row, shape, valuesPlace)] =
            self[rowOffset(row, shape, selfPlace) + index * selfPlace.along];
        indices[rowOffset(row, shape, indicesPlace)] = index;
      }
    }
    __syncthreads();
  }
}

// --- Long rows: one radix sort over all rows ---------------------------------

// (row, key) when they do not fit in 64 bits: CUB sorts it through
// WideKeyParts, the row the more significant part.
struct WideKey {
  uint64_t row;
  uint64_t key;
};
struct WideKeyParts {
  __host__ __device__ ::cuda::std::tuple<uint64_t &, uint64_t &>
  operator()(WideKey &k) const {
    return {k.row, k.key};
  }
};

// The sort key of element key `key` (kBits wide) in row `row`, and back.
template <typename SortKey>
__device__ SortKey composeKey(uint64_t row, uint64_t key, int kBits) {
  if constexpr (std::is_same_v<SortKey, WideKey>)
    return WideKey{row, key};
  else
    return kBits >= 64 ? key : (row << kBits) | key;
}
__device__ uint64_t elementKey(uint64_t sortKey, int kBits) {
  return kBits >= 64 ? sortKey : sortKey & ((uint64_t{1} << kBits) - 1);
}
__device__ uint64_t elementKey(const WideKey &sortKey, int) {
  return sortKey.key;
}

// keys[e], indices[e] for element e = row * length + j of self: its sort
// key (the row 0 for `linear`) and j (e itself for `linear`: median sorts
// all elements as one row).
template <typename T, typename SortKey>
__global__ void makeRadixKeys(SortKey *keys, uint32_t *indices, const T *self,
                              RowShape shape, RowPlace place, bool descending,
                              bool linear) {
  const int64_t n = shape.rows * shape.length;
  const uint64_t flip = descending ? keyMask<T>() : 0;
  for (int64_t e = firstItem(); e < n; e += itemStep()) {
    const int64_t row = e / shape.length, j = e % shape.length;
    const uint64_t key = static_cast<uint64_t>(KeyOf<T>::key(
                             self[rowOffset(row, shape, place) +
                                  j * place.along])) ^
                         flip;
    keys[e] = composeKey<SortKey>(linear ? 0 : static_cast<uint64_t>(row),
                                  key, KeyOf<T>::kBits);
    indices[e] = static_cast<uint32_t>(linear ? e : j);
  }
}

// Positions [first, first + count) of every sorted row into the results.
template <typename T>
__global__ void writeSlice(T *values, int64_t *indices, const T *self,
                           const uint32_t *sorted, RowShape shape,
                           RowPlace selfPlace, RowPlace valuesPlace,
                           RowPlace indicesPlace, int64_t first,
                           int64_t count) {
  const int64_t total = shape.rows * count;
  for (int64_t o = firstItem(); o < total; o += itemStep()) {
    const int64_t row = o / count, p = o % count;
    const int64_t index = sorted[row * shape.length + first + p];
    values[rowOffset(row, shape, valuesPlace) + p * valuesPlace.along] =
        self[rowOffset(row, shape, selfPlace) + index * selfPlace.along];
    indices[rowOffset(row, shape, indicesPlace) + p * indicesPlace.along] =
        index;
  }
}

// One thread per sorted row: the first run of equal keys longer than every
// earlier one (every NaN a run of its own), and the last index in it.
template <typename T, typename SortKey>
__global__ void modeRows(T *values, int64_t *indices, const T *self,
                         const SortKey *keys, const uint32_t *sorted,
                         RowShape shape, RowPlace selfPlace,
                         RowPlace valuesPlace, RowPlace indicesPlace) {
  using Key = typename KeyOf<T>::Key;
  constexpr int kBits = KeyOf<T>::kBits;
  for (int64_t row = firstItem(); row < shape.rows; row += itemStep()) {
    const int64_t base = row * shape.length;
    int64_t bestCount = 0, bestEnd = 0, runStart = 0;
    for (int64_t p = 0; p < shape.length; ++p) {
      const uint64_t key = elementKey(keys[base + p], kBits);
      const bool runEnds =
          p + 1 == shape.length ||
          key != elementKey(keys[base + p + 1], kBits) ||
          isNanKey<T>(static_cast<Key>(key));
      if (!runEnds)
        continue;
      if (p - runStart + 1 > bestCount) {
        bestCount = p - runStart + 1;
        bestEnd = p;
      }
      runStart = p + 1;
    }
    const int64_t index = sorted[base + bestEnd];
    values[rowOffset(row, shape, valuesPlace)] =
        self[rowOffset(row, shape, selfPlace) + index * selfPlace.along];
    indices[rowOffset(row, shape, indicesPlace)] = index;
  }
}

// One thread: the median of all n sorted elements (NaNs last), their sort
// keys being the element keys (one row).
template <typename T>
__global__ void medianPick(T *out, const T *self, const uint64_t *keys,
                           const uint32_t *sorted, RowShape shape,
                           RowPlace place, bool ignoreNan) {
  using Key = typename KeyOf<T>::Key;
  const int64_t n = shape.rows * shape.length;
  int64_t nans = 0;
  if constexpr (KeyOf<T>::kHasNan) {
    int64_t low = 0, high = n; // the first NaN key
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (isNanKey<T>(static_cast<Key>(keys[middle])))
        high = middle;
      else
        low = middle + 1;
    }
    nans = n - low;
  }
  const int64_t linear = sorted[medianPosition(n, nans, ignoreNan)];
  const int64_t row = linear / shape.length, j = linear % shape.length;
  *out = self[rowOffset(row, shape, place) + j * place.along];
}

// torch's median of an empty tensor: NaN, which CUDA converts to 0 for the
// integer dtypes.
template <typename T> __global__ void emptyMedian(T *out) {
  if constexpr (std::is_floating_point_v<Compute<T>>)
    *out = store<T>(__int_as_float(0x7fc00000));
  else
    *out = store<T>(0);
}

// --- Host side ------------------------------------------------------------

/// Uninitialised device memory, stream-ordered.
Expected<Tensor> deviceBytes(size_t bytes, const Device &device) {
  const int64_t sizes[] = {static_cast<int64_t>(bytes)};
  return Tensor::emptyContiguous(sizes, ScalarType::UInt8, device);
}

Error checkCub(cudaError_t status, const char *what) {
  return shims::cuda::checkCuda(status, what);
}

// The shared-memory path: one launch for all rows (length <= kSmallRowMax).
template <typename T, RowResult Result>
Error sortSmall(const OnStream &on, const Tensor &values,
                const Tensor &indices, const Tensor &self,
                const SortRows &rows, bool descending, int64_t first,
                int64_t count) {
  using P = Packed<typename KeyOf<T>::Key>;
  int32_t widthLog2 = 0;
  while ((int64_t{1} << widthLog2) < rows.length)
    ++widthLog2;
  const int32_t width = 1 << widthLog2;
  const int32_t entries = width > kSmallTile ? width : kSmallTile;
  const int32_t rowsPerBlock = entries / width;
  const unsigned threads = static_cast<unsigned>(entries / 2 > 1024 ? 1024 : entries / 2);
  const int64_t groups = (rows.rows + rowsPerBlock - 1) / rowsPerBlock;
  const unsigned blocks =
      static_cast<unsigned>(groups < 65536 ? groups : 65536);
  const size_t shared = static_cast<size_t>(entries) * sizeof(P);
  sortSmallRows<T, Result><<<blocks, threads, shared, on.stream()>>>(
      static_cast<T *>(values.data()), static_cast<int64_t *>(indices.data()),
      static_cast<const T *>(self.data()), shapeOf(rows), placeOf(rows.self),
      placeOf(rows.values), placeOf(rows.indices), widthLog2, rowsPerBlock,
      descending, static_cast<int32_t>(first), static_cast<int32_t>(count));
  return on.launched("sort (short rows) kernel launch");
}

// CUB's radix sort of the pairs, ascending on bits [0, endBit) of the key.
cudaError_t radixSort(void *scratch, size_t &bytes,
                      cub::DoubleBuffer<uint64_t> &keys,
                      cub::DoubleBuffer<uint32_t> &indices, int64_t n,
                      int endBit, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys, indices, n, 0,
                                         endBit, stream);
}
cudaError_t radixSort(void *scratch, size_t &bytes,
                      cub::DoubleBuffer<WideKey> &keys,
                      cub::DoubleBuffer<uint32_t> &indices, int64_t n,
                      int endBit, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys, indices, n,
                                         WideKeyParts{}, 0, endBit, stream);
}

// Self's elements as sorted (sort key, index) pairs: rows.rows rows of
// rows.length, or all elements as one row with linear indices (asOneRow).
template <typename SortKey> struct RadixSorted {
  Tensor storage; // keeps keys and indices alive
  const SortKey *keys;
  const uint32_t *indices;
};

size_t roundUp(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The bits needed for row numbers below `rows`.
int rowBitsFor(int64_t rows) {
  int bits = 0;
  while (bits < 63 && (int64_t{1} << bits) < rows)
    ++bits;
  return bits;
}

template <typename T, typename SortKey>
Expected<RadixSorted<SortKey>> radixSorted(const OnStream &on,
                                           const Tensor &self,
                                           const SortRows &rows,
                                           bool descending, bool asOneRow) {
  const int64_t n = rows.rows * rows.length;
  if ((asOneRow ? n : rows.length) > int64_t{UINT32_MAX})
    return Error::failure("sort over ", asOneRow ? n : rows.length,
                          " elements: CUDA sorts at most 4294967295 at once");
  const int rowBits = asOneRow ? 0 : rowBitsFor(rows.rows);
  const int endBit = KeyOf<T>::kBits + (std::is_same_v<SortKey, WideKey>
                                            ? 64 - KeyOf<T>::kBits + rowBits
                                            : rowBits);
  cub::DoubleBuffer<SortKey> keys(nullptr, nullptr);
  cub::DoubleBuffer<uint32_t> indices(nullptr, nullptr);
  size_t scratchBytes = 0;
  if (Error err = checkCub(radixSort(nullptr, scratchBytes, keys, indices, n,
                                     endBit, on.stream()),
                           "cub::DeviceRadixSort (size)"))
    return err;
  const size_t keyBytes = roundUp(static_cast<size_t>(n) * sizeof(SortKey));
  const size_t indexBytes = roundUp(static_cast<size_t>(n) * sizeof(uint32_t));
  Expected<Tensor> storage = deviceBytes(
      2 * keyBytes + 2 * indexBytes + scratchBytes + 1, self.device());
  if (!storage)
    return storage.takeError();
  auto *base = static_cast<unsigned char *>(storage->data());
  keys = cub::DoubleBuffer<SortKey>(reinterpret_cast<SortKey *>(base),
                                    reinterpret_cast<SortKey *>(base + keyBytes));
  base += 2 * keyBytes;
  indices = cub::DoubleBuffer<uint32_t>(
      reinterpret_cast<uint32_t *>(base),
      reinterpret_cast<uint32_t *>(base + indexBytes));
  base += 2 * indexBytes;
  makeRadixKeys<T, SortKey><<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
      keys.Current(), indices.Current(), static_cast<const T *>(self.data()),
      shapeOf(rows), placeOf(rows.self), descending, asOneRow);
  if (Error err = on.launched("sort keys kernel launch"))
    return err;
  if (Error err = checkCub(radixSort(base, scratchBytes, keys, indices, n,
                                     endBit, on.stream()),
                           "cub::DeviceRadixSort"))
    return err;
  return RadixSorted<SortKey>{std::move(*storage), keys.Current(),
                              indices.Current()};
}

// Sorts the rows with the narrowest sort key that holds (row, key) and
// hands the result to `then`.
template <typename T, typename Then>
Error withRadixSorted(const OnStream &on, const Tensor &self,
                      const SortRows &rows, bool descending, Then &&then) {
  if (KeyOf<T>::kBits + rowBitsFor(rows.rows) <= 64) {
    Expected<RadixSorted<uint64_t>> sorted =
        radixSorted<T, uint64_t>(on, self, rows, descending, false);
    if (!sorted)
      return sorted.takeError();
    return then(*sorted);
  }
  Expected<RadixSorted<WideKey>> sorted =
      radixSorted<T, WideKey>(on, self, rows, descending, false);
  if (!sorted)
    return sorted.takeError();
  return then(*sorted);
}

Error checkRank(const SortRows &rows, const char *op) {
  if (rows.outerSizes.size() <= static_cast<size_t>(kMaxOuterDims))
    return Error::success();
  return Error::failure(op, " over a ", rows.outerSizes.size() + 1,
                        "-d tensor: at most ", kMaxOuterDims + 1,
                        " dimensions are supported on CUDA");
}

} // namespace

Error sortedSlice(const Tensor &values, const Tensor &indices,
                  const Tensor &self, const SortRows &rows,
                  const SortSlice &slice) {
  if (slice.count <= 0 || rows.rows == 0)
    return Error::success();
  if (Error err = checkRank(rows, "sort"))
    return err;
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), "sort", [&]<typename T>() -> Error {
    if (rows.length <= kSmallRowMax)
      return sortSmall<T, RowResult::Slice>(on, values, indices, self, rows,
                                            slice.descending, slice.first,
                                            slice.count);
    return withRadixSorted<T>(
        on, self, rows, slice.descending, [&](const auto &sorted) -> Error {
          const int64_t total = rows.rows * slice.count;
          writeSlice<T><<<blocksFor(total), kThreadsPerBlock, 0,
                          on.stream()>>>(
              static_cast<T *>(values.data()),
              static_cast<int64_t *>(indices.data()),
              static_cast<const T *>(self.data()), sorted.indices,
              shapeOf(rows), placeOf(rows.self), placeOf(rows.values),
              placeOf(rows.indices), slice.first, slice.count);
          return on.launched("sort results kernel launch");
        });
  });
}

Error mode(const Tensor &values, const Tensor &indices, const Tensor &self,
           const SortRows &rows) {
  if (rows.rows == 0 || rows.length == 0)
    return Error::success();
  if (Error err = checkRank(rows, "mode"))
    return err;
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), "mode", [&]<typename T>() -> Error {
    if (rows.length <= kSmallRowMax)
      return sortSmall<T, RowResult::Mode>(on, values, indices, self, rows,
                                           false, 0, 1);
    return withRadixSorted<T>(
        on, self, rows, false, [&](const auto &sorted) -> Error {
          using SortKey = std::remove_cv_t<
              std::remove_pointer_t<decltype(sorted.keys)>>;
          modeRows<T, SortKey><<<blocksFor(rows.rows), kThreadsPerBlock, 0,
                                 on.stream()>>>(
              static_cast<T *>(values.data()),
              static_cast<int64_t *>(indices.data()),
              static_cast<const T *>(self.data()), sorted.keys,
              sorted.indices, shapeOf(rows), placeOf(rows.self),
              placeOf(rows.values), placeOf(rows.indices));
          return on.launched("mode kernel launch");
        });
  });
}

Error median(const Tensor &out, const Tensor &self, const SortRows &rows,
             bool ignoreNan) {
  if (Error err = checkRank(rows, "median"))
    return err;
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), "median", [&]<typename T>() -> Error {
    T *result = static_cast<T *>(out.data());
    if (rows.rows * rows.length == 0) {
      emptyMedian<T><<<1, 1, 0, on.stream()>>>(result);
      return on.launched("median kernel launch");
    }
    Expected<RadixSorted<uint64_t>> sorted =
        radixSorted<T, uint64_t>(on, self, rows, false, true);
    if (!sorted)
      return sorted.takeError();
    medianPick<T><<<1, 1, 0, on.stream()>>>(
        result, static_cast<const T *>(self.data()), sorted->keys,
        sorted->indices, shapeOf(rows), placeOf(rows.self), ignoreNan);
    return on.launched("median kernel launch");
  });
}

} // namespace aoti::shims::ops::cuda
