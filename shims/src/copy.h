//===- copy.h - Strided copies between host and device tensors -------------===//
#ifndef AOTI_SHIMS_COPY_H
#define AOTI_SHIMS_COPY_H

#include "error.h"
#include "tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace aoti::shims {

/// An elementwise copy reduced to its simplest equivalent form: dimensions
/// of size 1 dropped and runs of dimensions that are contiguous in both
/// tensors merged into one. Strides are in elements. A plan for a tensor
/// with at least one element has at least one dimension.
struct CopyPlan {
  std::vector<int64_t> sizes;
  std::vector<int64_t> dstStrides;
  std::vector<int64_t> srcStrides;

  int64_t numel() const;
};

CopyPlan planCopy(std::span<const int64_t> sizes,
                  std::span<const int64_t> dstStrides,
                  std::span<const int64_t> srcStrides);

/// Copies `plan.numel()` elements of `itemSize` bytes between host buffers.
void copyHostStrided(const CopyPlan &plan, void *dst, const void *src,
                     size_t itemSize);

/// Copies src into dst (aoti_torch_copy_): equal dtypes, src broadcast to
/// dst's shape, any devices. With nonBlocking false, returns after the copy
/// is complete; copies between two CUDA devices are always synchronous.
Error copyTensor(const Tensor &dst, const Tensor &src, bool nonBlocking);

/// A new row-major contiguous tensor on src's device with src's values.
Expected<Tensor> cloneContiguous(const Tensor &src);

} // namespace aoti::shims

#endif // AOTI_SHIMS_COPY_H
