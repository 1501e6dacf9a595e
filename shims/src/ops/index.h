//===- ops/index.h - The indexing fallbacks -------------------------------===//
//
// ops/index.cpp decodes aoti_torch_{cpu,cuda}_{index_Tensor, index_put,
// nonzero, nonzero_static, masked_select, masked_scatter,
// repeat_interleave_Tensor, index_reduce}'s arguments, checks them the way
// ATen does, allocates every result whose size is known with the strides
// torch's meta / fake implementation gives, and hands the device one of the
// problems below:
//
//  - IndexPlan: advanced indexing (index, index_put) as ATen's
//    AdvancedIndex describes it. Masks are already nonzero() columns, the
//    index tensors are broadcast together, self is transposed so that the
//    indexed dimensions are adjacent, and everything is a strided view over
//    one iteration shape (the indexing result's): result element i reads
//    (or index_put writes) base[i] + sum_k wrap(index_k[i]) * stride_k.
//  - the data-dependent ops (nonzero, masked_select, repeat_interleave
//    without output_size) allocate their own result on the device, after
//    counting: those device functions return the tensor.
//  - IndexReducePlan: index_reduce along one dimension into a contiguous
//    copy of self.
//
// The device halves: ops/cpu/index.cpp (plain loops, serial, in the order
// torch's CPU kernels use) and ops/cuda/index.cu (one thread per element,
// CUB for counting, selecting and sorting; compiled only in CUDA builds,
// ops/device.h).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_INDEX_H
#define AOTI_SHIMS_OPS_INDEX_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

namespace aoti::shims::ops {

/// One index tensor of an advanced indexing, broadcast over the iteration
/// shape. Strides are in elements.
struct IndexOperand {
  Tensor index;                 // int64 or int32, on the op's device
  std::vector<int64_t> strides; // per iteration dimension (0: broadcast)
  int64_t size = 0;             // size of the dimension of self it indexes
  int64_t stride = 0;           // that dimension's stride in the indexed tensor
  int64_t dim = 0;       // that dimension's position in self (for messages)
  bool fromMask = false; // nonzero() of a mask: in range by construction
};

/// Advanced indexing over `sizes`, the indexing result's shape. The indexed
/// tensor (self for index, the result for index_put) moves by baseStrides
/// along the iteration dimensions (0 along those of the broadcast index
/// shape) and by stride_k * index_k[i] for each operand.
struct IndexPlan {
  std::vector<int64_t> sizes;
  std::vector<int64_t> baseStrides;
  std::vector<IndexOperand> indices;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
};

/// The failure for index `value` out of range in `operand`, as torch words
/// it.
Error indexOutOfRange(const IndexOperand &operand, int64_t value);

enum class IndexReduce { Prod, Mean, Amax, Amin };

/// index_reduce(self, dim, index, source, reduce, include_self) into `out`,
/// a contiguous copy of self with at least one dimension (a 0-d self is
/// seen as [1]); source has out's sizes but along dim, where it has
/// index.numel() elements (also seen as at least 1-d).
struct IndexReducePlan {
  int64_t dim = 0;
  IndexReduce reduce = IndexReduce::Prod;
  bool includeSelf = true;
};

namespace cpu {
/// out[i] = self[plan offset of i]; out has plan.sizes.
Error index(const Tensor &out, const Tensor &self, const IndexPlan &plan);
/// out[plan offset of i] = values[i] (or += with accumulate), serially in
/// row-major order of the iteration shape: with duplicates the last write
/// wins, and sums round in that order. values' strides are per iteration
/// dimension.
Error indexPut(const Tensor &out, const Tensor &values,
               const std::vector<int64_t> &valueStrides, const IndexPlan &plan,
               bool accumulate);
/// torch.nonzero: int64 [n, self.dim()] with strides (1, n), the
/// coordinates of the non-zero elements in row-major order.
Expected<Tensor> nonzero(const Tensor &self);
/// The first out.size(0) rows of nonzero(self), then rows of fillValue;
/// out is int64 [size, self.dim()], any strides.
Error nonzeroStatic(const Tensor &out, const Tensor &self, int64_t fillValue);
/// self's elements where mask is true, in row-major order; self and mask
/// have one shape (broadcast views), mask is bool or uint8.
Expected<Tensor> maskedSelect(const Tensor &self, const Tensor &mask);
/// out's elements where mask is true take source's, in row-major order;
/// out is a contiguous copy of self, mask (bool) a view of out's shape.
Error maskedScatter(const Tensor &out, const Tensor &mask,
                    const Tensor &source);
/// torch.repeat_interleave(repeats): i repeated repeats[i] times, in
/// repeats' dtype (int32 or int64; repeats is 1-d and not empty).
Expected<Tensor> repeatInterleave(const Tensor &repeats,
                                  const int64_t *outputSize);
/// See IndexReducePlan; index is int32 or int64, 1-d.
Error indexReduce(const Tensor &out, const Tensor &index, const Tensor &source,
                  const IndexReducePlan &plan);
} // namespace cpu

namespace cuda {
/// As cpu::index, one thread per element. An element whose index is out
/// of range is zero and recorded (ops/checks.h): nothing waits, unless
/// AOTI_SHIMS_CUDA_CHECKS=sync, which reads the record back (one
/// synchronisation) and fails, when an index did not come from a mask.
AOTI_SHIMS_CUDA_OP(Error, index, const Tensor &out, const Tensor &self,
                   const IndexPlan &plan);
/// As cpu::indexPut, through a stable sort of the target offsets: the last
/// write in row-major order wins, and accumulate sums each target's values
/// in that order in float (double for float64) and rounds once. A put
/// whose index is out of range is skipped and recorded, as for index.
AOTI_SHIMS_CUDA_OP(Error, indexPut, const Tensor &out, const Tensor &values,
                   const std::vector<int64_t> &valueStrides,
                   const IndexPlan &plan, bool accumulate);
/// As cpu::nonzero: counted with CUB, the count read back (the one
/// synchronisation), then selected with CUB.
AOTI_SHIMS_CUDA_OP(Expected<Tensor>, nonzero, const Tensor &self);
/// As cpu::nonzero_static, without synchronising.
AOTI_SHIMS_CUDA_OP(Error, nonzeroStatic, const Tensor &out, const Tensor &self,
                   int64_t fillValue);
/// As cpu::maskedSelect; the count is read back (one synchronisation).
AOTI_SHIMS_CUDA_OP(Expected<Tensor>, maskedSelect, const Tensor &self,
                   const Tensor &mask);
/// As cpu::maskedScatter, without waiting: true elements past the end of
/// source keep self's value and are recorded (ops/checks.h).
AOTI_SHIMS_CUDA_OP(Error, maskedScatter, const Tensor &out, const Tensor &mask,
                   const Tensor &source);
/// As cpu::repeatInterleave. Without outputSize the total and the
/// negative/overflow checks are read back (one synchronisation); with it
/// nothing waits and nothing is checked (torch device-asserts instead).
AOTI_SHIMS_CUDA_OP(Expected<Tensor>, repeatInterleave, const Tensor &repeats,
                   const int64_t *outputSize);
/// As cpu::indexReduce, through a stable sort of the index: each target
/// reduces its sources in index order (the CPU's order and rounding). An
/// index out of range is skipped and recorded (ops/checks.h).
AOTI_SHIMS_CUDA_OP(Error, indexReduce, const Tensor &out, const Tensor &index,
                   const Tensor &source, const IndexReducePlan &plan);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_INDEX_H
