//===- cuda/grid.h - The size of a grid-stride launch ---------------------===//
//
// Every kernel of the library walks its work in a grid-stride loop, so a
// launch needs only enough blocks to fill the device, never one thread per
// item: blocksFor() gives that number for kThreadsPerBlock threads a block.
// It sits apart from cuda_internal.h and ops/cuda/element.cuh so that both
// the copy kernel (cuda/strided_copy.cu, which sees nothing of the rest of
// the library) and the op kernels use the same one.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_CUDA_GRID_H
#define AOTI_SHIMS_CUDA_GRID_H

#include <cstdint>

namespace aoti::shims::cuda {

constexpr unsigned kThreadsPerBlock = 256;

/// Blocks of kThreadsPerBlock for a grid-stride loop over `items` (at least
/// one, at most 65536: enough to fill any current GPU; the loop strides over
/// the rest).
inline unsigned blocksFor(int64_t items) {
  int64_t blocks = (items + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks < 1)
    blocks = 1;
  if (blocks > 65536)
    blocks = 65536;
  return static_cast<unsigned>(blocks);
}

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_CUDA_GRID_H
