//===- strided_copy.cu - Elementwise copy between two strided layouts ------===//
//
// One thread per element (grid-stride): the linear index is split into a
// coordinate with the sizes, then dotted with each side's strides. Elements
// move as unsigned words of their size, so one kernel per size serves every
// dtype.
//
//===----------------------------------------------------------------------===//
#include "cuda_internal.h"
#include "grid.h"

namespace aoti::shims::cuda {
namespace {

// complex128: two 8-byte halves (alignment 8, as its storage guarantees).
struct Word16 {
  uint64_t lo, hi;
};

template <typename Word>
__global__ void stridedCopyKernel(StridedCopyArgs args) {
  Word *dst = static_cast<Word *>(args.dst);
  const Word *src = static_cast<const Word *>(args.src);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t linear = static_cast<int64_t>(blockIdx.x) * blockDim.x +
                        threadIdx.x;
       linear < args.numel; linear += step) {
    int64_t rest = linear;
    int64_t dstOffset = 0;
    int64_t srcOffset = 0;
    for (int32_t d = args.ndim - 1; d >= 0; --d) {
      const int64_t index = rest % args.sizes[d];
      rest /= args.sizes[d];
      dstOffset += index * args.dstStrides[d];
      srcOffset += index * args.srcStrides[d];
    }
    dst[dstOffset] = src[srcOffset];
  }
}

template <typename Word>
cudaError_t launch(const StridedCopyArgs &args, cudaStream_t stream) {
  stridedCopyKernel<Word>
      <<<blocksFor(args.numel), kThreadsPerBlock, 0, stream>>>(args);
  return cudaGetLastError();
}

} // namespace

cudaError_t launchStridedCopy(const StridedCopyArgs &args,
                              cudaStream_t stream) {
  switch (args.itemSize) {
  case 1:
    return launch<uint8_t>(args, stream);
  case 2:
    return launch<uint16_t>(args, stream);
  case 4:
    return launch<uint32_t>(args, stream);
  case 8:
    return launch<uint64_t>(args, stream);
  case 16:
    return launch<Word16>(args, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

} // namespace aoti::shims::cuda
