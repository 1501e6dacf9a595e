//===- ops/sort.h - The sort fallbacks: sort, topk, kthvalue, median, mode -===//
//
// ops/sort.cpp decodes the arguments of aoti_torch_{cpu,cuda}_{sort,
// sort_stable, topk, kthvalue, median, nanmedian, mode}, checks them as
// torch does, allocates the results with the sizes and strides torch's meta
// functions give, and describes the work as rows: every op works
// independently along one dimension `dim` of `self` (median and nanmedian
// along all of them at once), one row per index of the other dimensions.
//
// Every op is one order: torch's, in which NaN is greater than every
// number and -0.0 equals +0.0, made total by the element's index along the
// row, so that equal values keep their index order (a stable sort). Both
// devices turn each element into an unsigned integer key that sorts in
// that order (orderedKey below) and sort (key, index) pairs, so they agree
// element for element and index for index:
//  - cpu::sortedSlice, cuda::sortedSlice: positions [first, first + count)
//    of every row sorted ascending or descending: sort (all of it), topk
//    (the first k), kthvalue (position k - 1);
//  - cpu::mode, cuda::mode: the most frequent value of each row;
//  - cpu::median, cuda::median: the lower median of all elements.
// ops/cpu/sort.cpp implements them with the standard algorithms,
// ops/cuda/sort.cu with a bitonic sort in shared memory for rows of up to
// 2048 elements and one CUB radix sort over all rows, keyed by (row, key),
// for longer ones (compiled only in CUDA builds, ops/device.h).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_SORT_H
#define AOTI_SHIMS_OPS_SORT_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define AOTI_SHIMS_SORT_HD __host__ __device__
#else
#define AOTI_SHIMS_SORT_HD
#endif

namespace aoti::shims::ops {

/// Where one tensor's rows lie, in elements: element j of row r is at
/// offset(r) + j * along, offset(r) the dot product of r's coordinates in
/// SortRows::outerSizes (row-major) with `outer`.
struct RowStrides {
  int64_t along = 0;
  std::vector<int64_t> outer;
};

/// `self` as rows along one dimension, and where each result's rows go.
/// The outer dimensions are every dimension of self but `dim`, in order; a
/// 0-d self is one row of one element. A result's row has its own length
/// (the slice's count, or 1 for mode), at its own strides.
struct SortRows {
  int64_t rows = 1;   // product of outerSizes
  int64_t length = 1; // elements of self per row
  std::vector<int64_t> outerSizes;
  RowStrides self, values, indices;
};

/// Positions [first, first + count) of each row sorted in torch's order,
/// ascending or descending; first + count <= length.
struct SortSlice {
  bool descending = false;
  int64_t first = 0;
  int64_t count = 0;
};

namespace cpu {
/// values[r, p] = the element at position first + p of row r of self
/// sorted stably, indices[r, p] its index along the row.
Error sortedSlice(const Tensor &values, const Tensor &indices,
                  const Tensor &self, const SortRows &rows,
                  const SortSlice &slice);
/// values[r] = the most frequent value of row r (the smallest of the most
/// frequent ones; every NaN counts once), indices[r] the largest index at
/// which it occurs.
Error mode(const Tensor &values, const Tensor &indices, const Tensor &self,
           const SortRows &rows);
/// out (0-d) = the lower median of all rows.rows * rows.length elements of
/// self: NaN if any is NaN (median) or, ignoring NaNs, if all are
/// (nanmedian, ignoreNan). An empty self gives NaN, or torch's conversion
/// of NaN to an integer dtype on this device (INT64_MIN and INT32_MIN for
/// int64 and int32 on x86-64, 0 for the others).
Error median(const Tensor &out, const Tensor &self, const SortRows &rows,
             bool ignoreNan);
} // namespace cpu

namespace cuda {
/// As cpu::sortedSlice, on self's device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, sortedSlice, const Tensor &values,
                   const Tensor &indices, const Tensor &self,
                   const SortRows &rows, const SortSlice &slice);
/// As cpu::mode.
AOTI_SHIMS_CUDA_OP(Error, mode, const Tensor &values, const Tensor &indices,
                   const Tensor &self, const SortRows &rows);
/// As cpu::median; an empty self of an integer dtype gives 0 (CUDA's
/// conversion of NaN).
AOTI_SHIMS_CUDA_OP(Error, median, const Tensor &out, const Tensor &self,
                   const SortRows &rows, bool ignoreNan);
} // namespace cuda

// --- The order, as unsigned keys -----------------------------------------
//
// orderedKey maps an element's bits to an unsigned integer of the same
// width whose ascending order is torch's: for integers, the value (a signed
// one with its sign bit flipped); for floats (IEEE bits, widths 16, 32, 64;
// float16 and bfloat16 differ only in where infinity is), every NaN to the
// largest key, -0.0 to +0.0's key, a positive value with its sign bit set
// and a negative one with every bit flipped. Only a NaN has the largest key
// of a floating type (kNanKey), which is how mode tells NaNs apart.

enum class KeyKind { Unsigned, Signed, Floating };

template <typename Bits> AOTI_SHIMS_SORT_HD constexpr Bits topBit() {
  return static_cast<Bits>(Bits{1} << (sizeof(Bits) * 8 - 1));
}

/// The key of the element with bits `bits`; `infinity` is the bits of
/// +infinity (floating kinds only).
template <KeyKind Kind, typename Bits>
AOTI_SHIMS_SORT_HD constexpr Bits orderedKey(Bits bits, Bits infinity = 0) {
  if constexpr (Kind == KeyKind::Unsigned) {
    return bits;
  } else if constexpr (Kind == KeyKind::Signed) {
    return static_cast<Bits>(bits ^ topBit<Bits>());
  } else {
    const Bits magnitude = static_cast<Bits>(bits & ~topBit<Bits>());
    if (magnitude > infinity)
      return static_cast<Bits>(~Bits{0}); // NaN, whatever its sign, last
    if (magnitude == 0)
      return topBit<Bits>(); // -0.0 is +0.0
    return (bits & topBit<Bits>()) ? static_cast<Bits>(~bits)
                                   : static_cast<Bits>(bits | topBit<Bits>());
  }
}

template <typename Bits> constexpr Bits kNanKey = static_cast<Bits>(~Bits{0});

/// The sorted position a median reads, of n > 0 sorted elements of which
/// the last `nans` are NaN: the last one (a NaN) for median when there is
/// any, else the lower middle of the others (0 when all are NaN).
AOTI_SHIMS_SORT_HD inline int64_t medianPosition(int64_t n, int64_t nans,
                                                 bool ignoreNan) {
  if (!ignoreNan && nans > 0)
    return n - 1;
  return n - nans > 0 ? (n - nans - 1) / 2 : 0;
}

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_SORT_H
