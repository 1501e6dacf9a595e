//===- ops/index_plan.h - Shapes, layouts and checks of the index family --===//
//
// The host-side pieces ops/index.cpp's entry points share, kept apart so
// that each file stays readable: torch's broadcasting rules and messages,
// the result layouts torch's meta functions give (meta_index_Tensor's
// elementwise permutation, empty_like's preserved strides), and ATen's
// advanced-indexing plan (make_info / AdvancedIndex) as an IndexPlan. Only
// ops/index*.cpp include it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_INDEX_PLAN_H
#define AOTI_SHIMS_OPS_INDEX_PLAN_H

#include "aoti/shim.h"
#include "error.h"
#include "ops/index.h"
#include "tensor.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace aoti::shims::ops {

/// "[2, 3]", for messages.
std::string shapeString(std::span<const int64_t> sizes);

/// Fails unless `t` (argument `name` of `op`) has one of the family's data
/// dtypes: bool (unless !allowBool), uint8, int8, int16, int32, int64,
/// float16, bfloat16, float32, float64.
Error requireDataType(const Tensor &t, const char *name, const char *op,
                      bool allowBool = true);

/// Fails unless `tensor` (argument `name`) is on self's memory.
Error requireWith(const Tensor &tensor, const char *name, const Tensor &self);

/// A view of `t`'s storage.
Expected<Tensor> viewOf(const Tensor &t, std::span<const int64_t> sizes,
                        std::span<const int64_t> strides, int64_t offset);

/// torch's infer_size(a, b): the broadcast shape, or its message.
Expected<std::vector<int64_t>> inferSize(std::span<const int64_t> a,
                                         std::span<const int64_t> b);

/// Whether `sizes` broadcasts to `target` (torch's is_expandable_to).
bool expandableTo(std::span<const int64_t> sizes,
                  std::span<const int64_t> target);

/// t's strides seen over `target` (t broadcastable to it): right-aligned,
/// 0 where t has no dimension or a size-1 one that target stretches.
std::vector<int64_t> stridesOver(const Tensor &t,
                                 std::span<const int64_t> target);

/// `t` seen with `target`'s shape (stride 0 where it broadcasts).
Expected<Tensor> expandTo(const Tensor &t, std::span<const int64_t> target);

/// `t` on `device`: itself, or a contiguous copy made there (synchronously
/// from the host: the host tensor may not outlive the call).
Expected<Tensor> onDevice(const Tensor &t, const Device &device);

/// A new tensor of `sizes` and `strides` on self's device holding `self`'s
/// values (broadcast to `sizes`).
Expected<Tensor> cloneWith(const Tensor &self, std::span<const int64_t> sizes,
                           std::span<const int64_t> strides);

/// The strides of empty_like(self) (preserve format): self's when it is
/// non-overlapping and dense, else ATen's infer_dense_strides.
std::vector<int64_t> emptyLikeStrides(const Tensor &self);

/// The indices argument as given: a null entry (or a null handle) is None.
Expected<std::vector<Tensor *>> readIndices(const AtenTensorHandle **indices,
                                            int64_t count);

/// The indexing as seen after transposeToFront: the permuted dimensions of
/// the indexed tensor, which of them carry an index, and the broadcast
/// index shape B.
struct IndexLayout {
  std::vector<int64_t> sizes, strides; // of the indexed tensor, permuted
  std::vector<bool> indexed;           // per permuted dimension
  std::vector<int64_t> broadcast;      // B
};

/// ATen's make_info + AdvancedIndex for `self` indexed by `given` (null for
/// None), reading or writing through `baseStrides` (self's own strides for
/// index, the result's for index_put). Masks become their nonzero()
/// columns (computed on the mask's device), index tensors on the CPU are
/// copied to self's device.
Expected<IndexPlan> planIndexing(const Tensor &self,
                                 std::span<const int64_t> baseStrides,
                                 const std::vector<Tensor *> &given,
                                 IndexLayout *layout);

/// meta_index_Tensor's result strides for `layout` and the plan's sizes.
std::vector<int64_t> metaIndexStrides(const IndexLayout &layout,
                                      std::span<const int64_t> resultSizes,
                                      int64_t selfNumel);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_INDEX_PLAN_H
