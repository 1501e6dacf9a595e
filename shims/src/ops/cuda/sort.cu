//===- ops/cuda/sort.cu - sort, topk, kthvalue, median, mode on a GPU -----===//
//
// One pipeline for every op, all on the current stream of self's device,
// nothing waited for:
//  1. makeKeys: one thread per element reads self through its strides (any
//     layout, no copy first) and writes the element's orderedKey
//     (ops/sort.h) and its index, row after row, densely. Keys of 8- and
//     16-bit elements are widened to 32 bits, so that CUB is instantiated
//     for two key types only (32 and 64 bits); the radix sorts still look
//     at the element's own bits only (end_bit).
//  2. CUB sorts the (key, index) pairs of every row, stably, ascending or
//     descending: cub::DeviceRadixSort::SortPairs when there is one row (a
//     long one, or median's whole tensor), else
//     cub::DeviceSegmentedSort::StableSortPairs, whose segments are the
//     rows (it sorts small segments in a warp or block and large ones with
//     a radix sort, so 3000 rows of 7 and 4 rows of 5000 both run well).
//     Equal keys keep their index order in both, which makes the result
//     the same as the CPU's element for element.
//  3. One kernel per op reads the sorted pairs and writes the results
//     through their strides: writeSlice (sort, topk, kthvalue: positions
//     [first, first + count) of each row, the value gathered from self at
//     the sorted index so that -0.0 and NaN payloads survive), modeRows
//     (one thread per row walks its runs of equal keys), medianPick (one
//     thread: the NaN count by binary search for kNanKey, then
//     medianPosition()).
// Temporaries (keys and indices twice, segment offsets, CUB's scratch) are
// tensors from Tensor::emptyContiguous, released stream-ordered. Cost: a
// full sort for every op, O(n) radix passes; topk, kthvalue and median
// would be cheaper with a radix select (docs/ops/sort.md).
//
//===----------------------------------------------------------------------===//
#include "ops/sort.h"

#include "ops/cuda/element.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

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

// --- Kernels --------------------------------------------------------------

// keys[e], indices[e] for element e = row * length + j of self: its key,
// and j (or e itself, `linear`: median sorts all elements as one row).
template <typename T>
__global__ void makeKeys(typename KeyOf<T>::Key *keys, int64_t *indices,
                         const T *self, RowShape shape, RowPlace place,
                         bool linear) {
  const int64_t n = shape.rows * shape.length;
  for (int64_t e = firstItem(); e < n; e += itemStep()) {
    const int64_t row = e / shape.length, j = e % shape.length;
    keys[e] = KeyOf<T>::key(self[rowOffset(row, shape, place) + j * place.along]);
    indices[e] = linear ? e : j;
  }
}

__global__ void fillOffsets(int64_t *offsets, int64_t segments,
                            int64_t length) {
  for (int64_t i = firstItem(); i <= segments; i += itemStep())
    offsets[i] = i * length;
}

// Positions [first, first + count) of every sorted row into the results.
template <typename T>
__global__ void writeSlice(T *values, int64_t *indices, const T *self,
                           const int64_t *sorted, RowShape shape,
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
template <typename T>
__global__ void modeRows(T *values, int64_t *indices, const T *self,
                         const typename KeyOf<T>::Key *keys,
                         const int64_t *sorted, RowShape shape,
                         RowPlace selfPlace, RowPlace valuesPlace,
                         RowPlace indicesPlace) {
  for (int64_t row = firstItem(); row < shape.rows; row += itemStep()) {
    const int64_t base = row * shape.length;
    int64_t bestCount = 0, bestEnd = 0, runStart = 0;
    for (int64_t p = 0; p < shape.length; ++p) {
      const auto key = keys[base + p];
      const bool runEnds = p + 1 == shape.length ||
                           key != keys[base + p + 1] || isNanKey<T>(key);
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

// One thread: the median of all n sorted elements (NaNs last).
template <typename T>
__global__ void medianPick(T *out, const T *self,
                           const typename KeyOf<T>::Key *keys,
                           const int64_t *sorted, RowShape shape,
                           RowPlace place, bool ignoreNan) {
  const int64_t n = shape.rows * shape.length;
  int64_t nans = 0;
  if constexpr (KeyOf<T>::kHasNan) {
    int64_t low = 0, high = n; // the first NaN key
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (isNanKey<T>(keys[middle]))
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

/// Uninitialised device memory for `count` elements of E, stream-ordered.
template <typename E> struct DeviceArray {
  Tensor tensor;
  E *data() const { return static_cast<E *>(tensor.data()); }
};
template <typename E>
Expected<DeviceArray<E>> deviceArray(int64_t count, const Device &device) {
  const int64_t sizes[] = {static_cast<int64_t>(count * sizeof(E))};
  Expected<Tensor> bytes =
      Tensor::emptyContiguous(sizes, ScalarType::UInt8, device);
  if (!bytes)
    return bytes.takeError();
  return DeviceArray<E>{std::move(*bytes)};
}

Error checkCub(cudaError_t status, const char *what) {
  return shims::cuda::checkCuda(status, what);
}

// The (key, index) pairs of `segments` rows of `length`, sorted stably:
// keysOut, indicesOut.
template <typename T>
Error sortPairs(const OnStream &on, const Device &device,
                const typename KeyOf<T>::Key *keysIn,
                typename KeyOf<T>::Key *keysOut, const int64_t *indicesIn,
                int64_t *indicesOut, int64_t segments, int64_t length,
                bool descending) {
  const int64_t n = segments * length;
  size_t bytes = 0;
  if (segments == 1) {
    constexpr int kEndBit = KeyOf<T>::kBits;
    auto sort = [&](void *scratch) {
      return descending
                 ? cub::DeviceRadixSort::SortPairsDescending(
                       scratch, bytes, keysIn, keysOut, indicesIn, indicesOut,
                       n, 0, kEndBit, on.stream())
                 : cub::DeviceRadixSort::SortPairs(
                       scratch, bytes, keysIn, keysOut, indicesIn, indicesOut,
                       n, 0, kEndBit, on.stream());
    };
    if (Error err = checkCub(sort(nullptr), "cub::DeviceRadixSort (size)"))
      return err;
    Expected<DeviceArray<uint8_t>> scratch =
        deviceArray<uint8_t>(static_cast<int64_t>(bytes) + 1, device);
    if (!scratch)
      return scratch.takeError();
    return checkCub(sort(scratch->data()), "cub::DeviceRadixSort");
  }
  Expected<DeviceArray<int64_t>> offsets =
      deviceArray<int64_t>(segments + 1, device);
  if (!offsets)
    return offsets.takeError();
  fillOffsets<<<blocksFor(segments + 1), kThreadsPerBlock, 0, on.stream()>>>(
      offsets->data(), segments, length);
  if (Error err = on.launched("sort offsets kernel launch"))
    return err;
  const int64_t *begins = offsets->data();
  const int64_t *ends = offsets->data() + 1;
  auto sort = [&](void *scratch) {
    return descending
               ? cub::DeviceSegmentedSort::StableSortPairsDescending(
                     scratch, bytes, keysIn, keysOut, indicesIn, indicesOut, n,
                     segments, begins, ends, on.stream())
               : cub::DeviceSegmentedSort::StableSortPairs(
                     scratch, bytes, keysIn, keysOut, indicesIn, indicesOut, n,
                     segments, begins, ends, on.stream());
  };
  if (Error err = checkCub(sort(nullptr), "cub::DeviceSegmentedSort (size)"))
    return err;
  Expected<DeviceArray<uint8_t>> scratch =
      deviceArray<uint8_t>(static_cast<int64_t>(bytes) + 1, device);
  if (!scratch)
    return scratch.takeError();
  return checkCub(sort(scratch->data()), "cub::DeviceSegmentedSort");
}

// Self's elements as sorted (key, index) pairs, `segments` rows of `length`
// (every row, or all elements as one row with linear indices).
template <typename T> struct SortedPairs {
  DeviceArray<typename KeyOf<T>::Key> keys;
  DeviceArray<int64_t> indices;
};
template <typename T>
Expected<SortedPairs<T>> sortedPairs(const OnStream &on, const Tensor &self,
                                     const SortRows &rows, bool descending,
                                     bool asOneRow) {
  using Key = typename KeyOf<T>::Key;
  const int64_t n = rows.rows * rows.length;
  const Device &device = self.device();
  Expected<DeviceArray<Key>> keysIn = deviceArray<Key>(n, device);
  Expected<DeviceArray<Key>> keysOut = deviceArray<Key>(n, device);
  Expected<DeviceArray<int64_t>> indicesIn = deviceArray<int64_t>(n, device);
  Expected<DeviceArray<int64_t>> indicesOut = deviceArray<int64_t>(n, device);
  if (!keysIn)
    return keysIn.takeError();
  if (!keysOut)
    return keysOut.takeError();
  if (!indicesIn)
    return indicesIn.takeError();
  if (!indicesOut)
    return indicesOut.takeError();
  makeKeys<T><<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
      keysIn->data(), indicesIn->data(), static_cast<const T *>(self.data()),
      shapeOf(rows), placeOf(rows.self), asOneRow);
  if (Error err = on.launched("sort keys kernel launch"))
    return err;
  const int64_t segments = asOneRow ? 1 : rows.rows;
  const int64_t length = asOneRow ? n : rows.length;
  if (Error err = sortPairs<T>(on, device, keysIn->data(), keysOut->data(),
                               indicesIn->data(), indicesOut->data(), segments,
                               length, descending))
    return err;
  return SortedPairs<T>{std::move(*keysOut), std::move(*indicesOut)};
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
    Expected<SortedPairs<T>> sorted =
        sortedPairs<T>(on, self, rows, slice.descending, false);
    if (!sorted)
      return sorted.takeError();
    const int64_t total = rows.rows * slice.count;
    writeSlice<T><<<blocksFor(total), kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<T *>(values.data()), static_cast<int64_t *>(indices.data()),
        static_cast<const T *>(self.data()), sorted->indices.data(),
        shapeOf(rows), placeOf(rows.self), placeOf(rows.values),
        placeOf(rows.indices), slice.first, slice.count);
    return on.launched("sort results kernel launch");
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
    Expected<SortedPairs<T>> sorted = sortedPairs<T>(on, self, rows, false, false);
    if (!sorted)
      return sorted.takeError();
    modeRows<T><<<blocksFor(rows.rows), kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<T *>(values.data()), static_cast<int64_t *>(indices.data()),
        static_cast<const T *>(self.data()), sorted->keys.data(),
        sorted->indices.data(), shapeOf(rows), placeOf(rows.self),
        placeOf(rows.values), placeOf(rows.indices));
    return on.launched("mode kernel launch");
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
    Expected<SortedPairs<T>> sorted = sortedPairs<T>(on, self, rows, false, true);
    if (!sorted)
      return sorted.takeError();
    medianPick<T><<<1, 1, 0, on.stream()>>>(
        result, static_cast<const T *>(self.data()), sorted->keys.data(),
        sorted->indices.data(), shapeOf(rows), placeOf(rows.self), ignoreNan);
    return on.launched("median kernel launch");
  });
}

} // namespace aoti::shims::ops::cuda
