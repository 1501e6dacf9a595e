//===- ops/embedding.h - The embedding fallbacks: _embedding_bag ----------===//
//
// ops/embedding.cpp decodes aoti_torch_{cpu,cuda}__embedding_bag and
// _embedding_bag_forward_only, checks them as torch's meta function and
// kernels do, allocates the four results with the sizes and dtypes torch's
// meta gives on that device, and hands the device an EmbeddingBag:
// numBags bags of rows of `weight`, bag b being the indices from
// offsets[b] to offsets[b + 1] (the last bag to the end of indices),
// reduced by sum (optionally scaled per index), mean or max, indices equal
// to padding_idx skipped. The devices:
//  - cpu::embeddingBag   ops/cpu/embedding.cpp, bag by bag;
//  - cuda::embeddingBag  ops/cuda/embedding.cu, one thread per (bag,
//    feature), as torch's CUDA kernel.
// The auxiliary results (offset2bag, bag_size, max_indices) differ between
// torch's CPU and CUDA kernels; each device fills them as its torch kernel
// does (ops/embedding.cpp says how).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_EMBEDDING_H
#define AOTI_SHIMS_OPS_EMBEDDING_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>

namespace aoti::shims::ops {

enum class BagMode : int64_t { Sum = 0, Mean = 1, Max = 2 };

/// An _embedding_bag once checked. `indices` and `offsets` are contiguous
/// and 1-d, int32 or int64 each; `perSampleWeights` contiguous with
/// weight's dtype or null. The results were allocated by the entry point;
/// an empty auxiliary result is left alone.
struct EmbeddingBag {
  BagMode mode = BagMode::Sum;
  int64_t numIndices = 0;
  int64_t numBags = 0;
  int64_t features = 0;
  int64_t numWeights = 0;
  int64_t paddingIdx = -1;
  /// The bag counts to write to bag_size: the non-padding indices of each
  /// bag (else zeros, as torch's CPU kernel writes for "sum"), and
  /// max_indices of a mean: a copy of those counts (CPU).
  bool countBags = true;
  bool maxIndicesAreCounts = false;
};

namespace cpu {
/// Fails unless offsets[0] is 0, every offset lies in [0, numIndices] and
/// they never decrease, and every index is in [0, numWeights) (torch's
/// check_arguments and its kernels' index checks, in messages of theirs).
Error checkEmbeddingBag(const Tensor &indices, const Tensor &offsets,
                        const EmbeddingBag &bag);
Error embeddingBag(const Tensor &output, const Tensor &offset2bag,
                   const Tensor &bagSize, const Tensor &maxIndices,
                   const Tensor &weight, const Tensor &indices,
                   const Tensor &offsets, const Tensor *perSampleWeights,
                   const EmbeddingBag &bag);
} // namespace cpu

namespace cuda {
/// One launch. Checks what cpu::checkEmbeddingBag checks but offsets[0]
/// (torch's CUDA kernel starts the first bag at 0 whatever it says) as it
/// reads them, without waiting: a bad index is skipped and a bad offset
/// clamped, and the first is recorded (ops/checks.h); with
/// AOTI_SHIMS_CUDA_CHECKS=sync the record is read back and the call fails.
AOTI_SHIMS_CUDA_OP(Error, embeddingBag, const Tensor &output,
                   const Tensor &offset2bag, const Tensor &bagSize,
                   const Tensor &maxIndices, const Tensor &weight,
                   const Tensor &indices, const Tensor &offsets,
                   const Tensor *perSampleWeights, const EmbeddingBag &bag);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_EMBEDDING_H
