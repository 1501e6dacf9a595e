//===- ops/lines.h - A tensor as rows along one dimension ------------------===//
//
// Many ops work independently along one dimension of their input: sort,
// topk, kthvalue, the scans, mode. Their kernels are simplest, and fastest
// on both devices, on dense rows: rowsAlong() copies `self` into a new
// row-major tensor with `dim` moved last, so that it is `lines` rows of
// `length` contiguous elements (a 0-d tensor is one row of one element).
// A result computed in that shape goes back with viewFromRows(), a view of
// the same storage with the last dimension moved back to `dim`: its strides
// are the dense strides with `dim` innermost, which is the layout torch's
// own kernels give sort's results for a contiguous input.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_LINES_H
#define AOTI_SHIMS_OPS_LINES_H

#include "error.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

namespace aoti::shims::ops {

/// The sizes of `sizes` with `dim` moved last (a 0-d shape stays 0-d).
std::vector<int64_t> movedLast(std::span<const int64_t> sizes, int64_t dim);

/// A row-major copy of `self` on its device with `dim` (>= 0, < max(dim,1))
/// moved last.
Expected<Tensor> rowsAlong(const Tensor &self, int64_t dim);

/// `rows` (row-major, with the dimension of interest last) seen with that
/// dimension moved back to `dim`: same storage, no copy.
Expected<Tensor> viewFromRows(const Tensor &rows, int64_t dim);

/// A new row-major tensor of `sizes` with `dim` moved last, seen back in
/// `sizes`' order: where a kernel writes rows that are returned as such.
Expected<Tensor> emptyRows(std::span<const int64_t> sizes, int64_t dim,
                           ScalarType dtype, const Device &device);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_LINES_H
