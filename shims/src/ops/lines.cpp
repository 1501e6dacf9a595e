//===- ops/lines.cpp - A tensor as rows along one dimension ----------------===//
//
// Both directions are one permutation of sizes and strides: moving `dim`
// last to read (then a contiguous clone), and the inverse to return.
//
//===----------------------------------------------------------------------===//
#include "ops/lines.h"

#include "copy.h"

namespace aoti::shims::ops {
namespace {

// `values` with the element at `dim` moved to the end.
std::vector<int64_t> moveToEnd(std::span<const int64_t> values, int64_t dim) {
  std::vector<int64_t> out(values.begin(), values.end());
  if (out.empty())
    return out;
  const int64_t moved = out[static_cast<size_t>(dim)];
  out.erase(out.begin() + dim);
  out.push_back(moved);
  return out;
}

// The inverse: the last element moved back to `dim`.
std::vector<int64_t> moveFromEnd(std::span<const int64_t> values,
                                 int64_t dim) {
  std::vector<int64_t> out(values.begin(), values.end());
  if (out.empty())
    return out;
  const int64_t moved = out.back();
  out.pop_back();
  out.insert(out.begin() + dim, moved);
  return out;
}

} // namespace

std::vector<int64_t> movedLast(std::span<const int64_t> sizes, int64_t dim) {
  return moveToEnd(sizes, dim);
}

Expected<Tensor> rowsAlong(const Tensor &self, int64_t dim) {
  Expected<Tensor> view =
      Tensor::make(self.storage(), self.dtype(), moveToEnd(self.sizes(), dim),
                   moveToEnd(self.strides(), dim), self.storageOffset());
  if (!view)
    return view.takeError();
  return cloneContiguous(*view);
}

Expected<Tensor> viewFromRows(const Tensor &rows, int64_t dim) {
  return Tensor::make(rows.storage(), rows.dtype(),
                      moveFromEnd(rows.sizes(), dim),
                      moveFromEnd(rows.strides(), dim), rows.storageOffset());
}

Expected<Tensor> emptyRows(std::span<const int64_t> sizes, int64_t dim,
                           ScalarType dtype, const Device &device) {
  Expected<Tensor> rows =
      Tensor::emptyContiguous(moveToEnd(sizes, dim), dtype, device);
  if (!rows)
    return rows.takeError();
  return viewFromRows(*rows, dim);
}

} // namespace aoti::shims::ops
