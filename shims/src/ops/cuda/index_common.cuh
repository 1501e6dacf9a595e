//===- ops/cuda/index_common.cuh - What the index family's kernels share --===//
//
// For ops/cuda/index.cu (index, index_put, index_reduce) and
// ops/cuda/index_select.cu (nonzero, nonzero_static, masked_select,
// masked_scatter, repeat_interleave), and nothing else:
//  - ViewArgs, a strided view as a kernel argument, and offsetIn(), the
//    element offset of a row-major linear index in it;
//  - scratch(), stream-ordered device temporaries (freed with the tensor,
//    on the same stream, after the kernels that use them);
//  - cubCall(), CUB's two-call protocol (size the temporary, then run);
//  - readBack(), the one synchronisation a data-dependent op makes: copy a
//    few bytes to the host on the current stream and wait for that stream;
//  - visitWord(), element types by size for kernels that only move
//    elements.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_INDEX_COMMON_CUH
#define AOTI_SHIMS_OPS_CUDA_INDEX_COMMON_CUH

#include "cuda/device_scope.h"
#include "cuda_api.h"
#include "ops/cuda/element.cuh"

#include <cub/cub.cuh>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <span>

namespace aoti::shims::ops::cuda {

/// The most dimensions a view of these kernels takes.
constexpr int32_t kMaxDims = 16;

/// A strided view (sizes, strides in elements) as a kernel argument.
struct ViewArgs {
  int32_t ndim;
  int64_t numel;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
};

inline Expected<ViewArgs> viewArgs(std::span<const int64_t> sizes,
                                   std::span<const int64_t> strides,
                                   const char *op) {
  if (sizes.size() > static_cast<size_t>(kMaxDims))
    return Error::failure(op, " on CUDA takes at most ", kMaxDims,
                          " dimensions (got ", sizes.size(), ")");
  ViewArgs v = {};
  v.ndim = static_cast<int32_t>(sizes.size());
  v.numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    v.sizes[d] = sizes[d];
    v.strides[d] = strides[d];
    v.numel *= sizes[d];
  }
  return v;
}

/// The element offset of row-major index `linear` of `v`.
__device__ inline int64_t offsetIn(const ViewArgs &v, int64_t linear) {
  int64_t offset = 0;
  for (int32_t d = v.ndim - 1; d >= 0; --d) {
    offset += (linear % v.sizes[d]) * v.strides[d];
    linear /= v.sizes[d];
  }
  return offset;
}

/// Grid-stride loop bounds of a launch.
__device__ inline int64_t firstItem() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t itemStep() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

/// `bytes` of device memory on `device`, stream-ordered on its current
/// stream (at least one byte, so that its address is real).
inline Expected<Tensor> scratch(size_t bytes, const Device &device) {
  const int64_t sizes[] = {static_cast<int64_t>(bytes > 0 ? bytes : 1)};
  return Tensor::emptyContiguous(sizes, ScalarType::UInt8, device);
}

/// Runs a CUB device-wide algorithm: `call(temp, bytes)` once to size its
/// temporary, then with it.
template <typename Call>
Error cubCall(const char *what, const Device &device, Call &&call) {
  size_t bytes = 0;
  if (Error err = shims::cuda::checkCuda(call(nullptr, bytes), what))
    return err;
  Expected<Tensor> temp = scratch(bytes, device);
  if (!temp)
    return temp.takeError();
  return shims::cuda::checkCuda(call(temp->data(), bytes), what);
}

/// Copies `bytes` of device memory to the host on the current stream of
/// `device` and waits for that stream.
inline Error readBack(void *host, const void *deviceData, size_t bytes,
                      int32_t device) {
  if (Error err = shims::cuda::copyBytes(host, deviceData, bytes, device))
    return err;
  return shims::cuda::synchronize(device);
}

/// Calls `visitor.template operator()<W>()` with W an unsigned word of
/// `size` bytes.
template <typename Visitor> Error visitWord(size_t size, Visitor &&visitor) {
  switch (size) {
  case 1:
    return visitor.template operator()<uint8_t>();
  case 2:
    return visitor.template operator()<uint16_t>();
  case 4:
    return visitor.template operator()<uint32_t>();
  case 8:
    return visitor.template operator()<unsigned long long>();
  default:
    return Error::failure("no copy for elements of ", size, " bytes");
  }
}

/// Byte flags (non-zero: selected) as CUB's summable counts.
struct FlagToCount {
  __host__ __device__ long long operator()(unsigned char flag) const {
    return flag != 0 ? 1 : 0;
  }
};

/// The number of low bits that hold every value below `bound` (at least 1).
inline int bitsFor(uint64_t bound) {
  int bits = 1;
  while (bits < 64 && (uint64_t{1} << bits) < bound)
    ++bits;
  return bits;
}

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_INDEX_COMMON_CUH
