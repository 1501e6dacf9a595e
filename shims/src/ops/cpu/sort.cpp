//===- ops/cpu/sort.cpp - sort, topk, kthvalue, median, mode on the host --===//
//
// Each row (ops/sort.h) is read into (key, index) pairs, key the element's
// orderedKey, and the standard algorithms order the pairs
// lexicographically: by key, then by index (in both directions: equal keys
// keep their index order). The pairs are all distinct, so every algorithm
// that puts the right pairs at the right positions gives the one result a
// stable sort would:
//  - sortedSlice: std::sort for all of a row (sort), std::partial_sort for
//    its first `count` (topk, O(n log k)), std::nth_element for one
//    position (kthvalue, O(n)), nth_element then partial_sort otherwise;
//  - mode: a full sort, then one pass over the runs of equal keys;
//  - median: nth_element over all elements at medianPosition().
// The values written are self's elements at the chosen indices, copied as
// they are (a -0.0 stays -0.0, a NaN keeps its payload).
//
// Rows are independent: above kParallelElements elements in all, they are
// spread over cpuThreadCount() OpenMP threads (ops/cpu/parallel.h), each
// with its own buffer, allocated before the parallel region (whose body
// must not throw).
//
//===----------------------------------------------------------------------===//
#include "ops/sort.h"

#include "ops/cpu/element.h"
#include "ops/cpu/parallel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

/// Work below which a call stays on the calling thread.
constexpr int64_t kParallelElements = 1 << 16;

// How an element type orders: its key's width and kind, and +infinity's
// bits for the floating ones.
template <typename T> struct KeyOf;
template <> struct KeyOf<Bool> {
  using Bits = uint8_t;
  static Bits key(Bool x) { return x.byte != 0 ? 1 : 0; }
};
template <typename T, typename B, KeyKind K, B Infinity = 0> struct BitsKey {
  using Bits = B;
  static constexpr KeyKind kind = K;
  static Bits key(const T &x) {
    static_assert(sizeof(T) == sizeof(Bits));
    Bits bits;
    std::memcpy(&bits, &x, sizeof(Bits));
    return orderedKey<K, Bits>(bits, Infinity);
  }
};
template <> struct KeyOf<uint8_t> : BitsKey<uint8_t, uint8_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint16_t> : BitsKey<uint16_t, uint16_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint32_t> : BitsKey<uint32_t, uint32_t, KeyKind::Unsigned> {};
template <> struct KeyOf<uint64_t> : BitsKey<uint64_t, uint64_t, KeyKind::Unsigned> {};
template <> struct KeyOf<int8_t> : BitsKey<int8_t, uint8_t, KeyKind::Signed> {};
template <> struct KeyOf<int16_t> : BitsKey<int16_t, uint16_t, KeyKind::Signed> {};
template <> struct KeyOf<int32_t> : BitsKey<int32_t, uint32_t, KeyKind::Signed> {};
template <> struct KeyOf<int64_t> : BitsKey<int64_t, uint64_t, KeyKind::Signed> {};
template <>
struct KeyOf<Half> : BitsKey<Half, uint16_t, KeyKind::Floating, 0x7c00> {};
template <>
struct KeyOf<BHalf> : BitsKey<BHalf, uint16_t, KeyKind::Floating, 0x7f80> {};
template <>
struct KeyOf<float>
    : BitsKey<float, uint32_t, KeyKind::Floating, 0x7f800000u> {};
template <>
struct KeyOf<double> : BitsKey<double, uint64_t, KeyKind::Floating,
                               0x7ff0000000000000ull> {};

template <typename T> constexpr bool kHasNan = kIsFloating<T>;

template <typename T> using Pair = std::pair<typename KeyOf<T>::Bits, int64_t>;

// Offset of row `row` of a tensor whose rows lie at `strides`.
int64_t rowOffset(int64_t row, const SortRows &rows,
                  const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t d = rows.outerSizes.size(); d-- > 0;) {
    offset += (row % rows.outerSizes[d]) * strides[d];
    row /= rows.outerSizes[d];
  }
  return offset;
}

// Reads row `row` of self into buffer[0, length) as (key, index) pairs.
template <typename T>
void readRow(std::vector<Pair<T>> &buffer, const T *self, int64_t row,
             const SortRows &rows) {
  const T *first = self + rowOffset(row, rows, rows.self.outer);
  for (int64_t j = 0; j < rows.length; ++j)
    buffer[static_cast<size_t>(j)] = {KeyOf<T>::key(first[j * rows.self.along]),
                                      j};
}

// Runs perRow(row, buffer) for every row, in parallel when the work is big
// enough, each thread with its own buffer of `length` pairs.
template <typename T, typename PerRow>
void forEachRow(const SortRows &rows, int64_t length, PerRow &&perRow) {
  const int team = rows.rows > 1 && rows.rows * length >= kParallelElements
                       ? cpuThreadCount()
                       : 1;
  std::vector<std::vector<Pair<T>>> buffers(
      static_cast<size_t>(std::max(team, 1)),
      std::vector<Pair<T>>(static_cast<size_t>(length)));
  parallelFor(rows.rows, team, [&](int64_t row) {
    perRow(row, buffers[static_cast<size_t>(threadIndex())]);
  });
}

template <typename T, typename Less>
void sliceRows(const Tensor &values, const Tensor &indices, const Tensor &self,
               const SortRows &rows, const SortSlice &slice, Less less) {
  const T *src = static_cast<const T *>(self.data());
  T *dst = static_cast<T *>(values.data());
  int64_t *idx = static_cast<int64_t *>(indices.data());
  const auto first = static_cast<std::ptrdiff_t>(slice.first);
  const auto count = static_cast<std::ptrdiff_t>(slice.count);
  const auto length = static_cast<std::ptrdiff_t>(rows.length);
  forEachRow<T>(rows, rows.length, [&](int64_t row, std::vector<Pair<T>> &buf) {
    readRow(buf, src, row, rows);
    const auto begin = buf.begin();
    if (count == 1) {
      std::nth_element(begin, begin + first, begin + length, less);
    } else {
      if (first > 0)
        std::nth_element(begin, begin + first, begin + length, less);
      if (first + count == length)
        std::sort(begin + first, begin + length, less);
      else
        std::partial_sort(begin + first, begin + first + count,
                          begin + length, less);
    }
    const T *in = src + rowOffset(row, rows, rows.self.outer);
    T *valuesOut = dst + rowOffset(row, rows, rows.values.outer);
    int64_t *indicesOut = idx + rowOffset(row, rows, rows.indices.outer);
    for (std::ptrdiff_t p = 0; p < count; ++p) {
      const int64_t index = buf[static_cast<size_t>(first + p)].second;
      valuesOut[p * rows.values.along] = in[index * rows.self.along];
      indicesOut[p * rows.indices.along] = index;
    }
  });
}

template <typename T>
void modeRows(const Tensor &values, const Tensor &indices, const Tensor &self,
              const SortRows &rows) {
  using Bits = typename KeyOf<T>::Bits;
  const T *src = static_cast<const T *>(self.data());
  T *dst = static_cast<T *>(values.data());
  int64_t *idx = static_cast<int64_t *>(indices.data());
  forEachRow<T>(rows, rows.length, [&](int64_t row, std::vector<Pair<T>> &buf) {
    readRow(buf, src, row, rows);
    std::sort(buf.begin(), buf.end());
    // The first run longer than every earlier one: the smallest of the
    // most frequent values, at the end of its run (its largest index).
    int64_t bestCount = 0, bestEnd = 0, runStart = 0;
    for (int64_t p = 0; p < rows.length; ++p) {
      const Bits key = buf[static_cast<size_t>(p)].first;
      const bool runEnds =
          p + 1 == rows.length ||
          key != buf[static_cast<size_t>(p + 1)].first ||
          (kHasNan<T> && key == kNanKey<Bits>); // every NaN is a run of its own
      if (!runEnds)
        continue;
      if (p - runStart + 1 > bestCount) {
        bestCount = p - runStart + 1;
        bestEnd = p;
      }
      runStart = p + 1;
    }
    const int64_t index = buf[static_cast<size_t>(bestEnd)].second;
    const T *in = src + rowOffset(row, rows, rows.self.outer);
    dst[rowOffset(row, rows, rows.values.outer)] = in[index * rows.self.along];
    idx[rowOffset(row, rows, rows.indices.outer)] = index;
  });
}

// What torch's median of an empty tensor holds: NaN converted to T, as
// torch's CPU copy converts it on x86-64 (cvttss2si's "integer
// indefinite" for int32 and int64, whose low bytes, 0, for the narrower
// integers).
template <typename T> T emptyMedian() {
  if constexpr (kIsFloating<T>)
    return store<T>(std::numeric_limits<float>::quiet_NaN());
  else if constexpr (std::is_same_v<T, int64_t>)
    return std::numeric_limits<int64_t>::min();
  else if constexpr (std::is_same_v<T, int32_t>)
    return std::numeric_limits<int32_t>::min();
  else
    return store<T>(0);
}

template <typename T>
void medianOf(const Tensor &out, const Tensor &self, const SortRows &rows,
              bool ignoreNan) {
  using Bits = typename KeyOf<T>::Bits;
  T *dst = static_cast<T *>(out.data());
  const int64_t n = rows.rows * rows.length;
  if (n == 0) {
    *dst = emptyMedian<T>();
    return;
  }
  const T *src = static_cast<const T *>(self.data());
  std::vector<Pair<T>> all(static_cast<size_t>(n));
  int64_t nans = 0;
  for (int64_t row = 0; row < rows.rows; ++row) {
    const T *in = src + rowOffset(row, rows, rows.self.outer);
    for (int64_t j = 0; j < rows.length; ++j) {
      const Bits key = KeyOf<T>::key(in[j * rows.self.along]);
      if (kHasNan<T> && key == kNanKey<Bits>)
        ++nans;
      all[static_cast<size_t>(row * rows.length + j)] = {key,
                                                         row * rows.length + j};
    }
  }
  const auto position =
      static_cast<std::ptrdiff_t>(medianPosition(n, nans, ignoreNan));
  std::nth_element(all.begin(), all.begin() + position, all.end());
  const int64_t linear = all[static_cast<size_t>(position)].second;
  const int64_t row = linear / rows.length, j = linear % rows.length;
  *dst = src[rowOffset(row, rows, rows.self.outer) + j * rows.self.along];
}

// The element types of the family (ops/sort.cpp refuses the others first).
template <typename T> constexpr bool kSortable = true;

} // namespace

Error sortedSlice(const Tensor &values, const Tensor &indices,
                  const Tensor &self, const SortRows &rows,
                  const SortSlice &slice) {
  if (slice.count <= 0 || rows.rows == 0)
    return Error::success();
  return visitDtype(self.dtype(), "sort", [&]<typename T>() -> Error {
    using P = Pair<T>;
    if (slice.descending)
      sliceRows<T>(values, indices, self, rows, slice,
                   [](const P &a, const P &b) {
                     return a.first > b.first ||
                            (a.first == b.first && a.second < b.second);
                   });
    else
      sliceRows<T>(values, indices, self, rows, slice,
                   [](const P &a, const P &b) { return a < b; });
    return Error::success();
  });
}

Error mode(const Tensor &values, const Tensor &indices, const Tensor &self,
           const SortRows &rows) {
  if (rows.rows == 0 || rows.length == 0)
    return Error::success();
  return visitDtype(self.dtype(), "mode", [&]<typename T>() -> Error {
    modeRows<T>(values, indices, self, rows);
    return Error::success();
  });
}

Error median(const Tensor &out, const Tensor &self, const SortRows &rows,
             bool ignoreNan) {
  return visitDtype(self.dtype(), "median", [&]<typename T>() -> Error {
    medianOf<T>(out, self, rows, ignoreNan);
    return Error::success();
  });
}

} // namespace aoti::shims::ops::cpu
