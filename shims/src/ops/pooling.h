//===- ops/pooling.h - The pooling fallbacks: max, avg, adaptive, unpool --===//
//
// ops/pooling.cpp decodes the arguments of torch 2.11's pooling fallbacks
// (max_pool{2,3}d_with_indices, adaptive_max_pool{2,3}d, avg_pool{2,3}d,
// _adaptive_avg_pool{2,3}d, max_unpool{2,3}d, fractional_max_pool{2,3}d),
// checks them as torch's meta functions do, allocates the results with the
// strides those give (a channels-last input gives channels-last results
// where torch's meta says so) and describes the work as a PoolGeometry
// (ops/pooling_windows.h): sizes and strides as (N, C, D, H, W), any
// strides, read in place. The devices' implementations declared here
// compute every output from its window (ops/pooling_windows.h says which):
//  - cpu::*   ops/cpu/pooling.cpp, loops over (N, C) planes, or over pixels
//    with the channels innermost for a channels-last input;
//  - cuda::*  ops/cuda/pooling.cu, one thread per output element, compiled
//    only in CUDA builds (ops/device.h).
// The callers check dtypes per device before calling; outputs have at
// least one element.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_POOLING_H
#define AOTI_SHIMS_OPS_POOLING_H

#include "error.h"
#include "ops/device.h"
#include "ops/pooling_windows.h"
#include "tensor.h"

namespace aoti::shims::ops {

namespace cpu {
/// values/indices[n, c, o] = the maximum of self over o's dilated window and
/// its flat spatial index: the first maximum in (d, h, w) order, a NaN
/// replacing any non-NaN (so the last NaN wins).
Error maxPool(const Tensor &values, const Tensor &indices, const Tensor &self,
              const PoolGeometry &geometry, const MaxPoolArgs &args);
/// out[n, c, o] = sum of o's window / divisor (see AvgPoolArgs), summed in
/// float for float16/bfloat16/float32, double for float64, int64 (and
/// divided with truncation) for int64.
Error avgPool(const Tensor &out, const Tensor &self,
              const PoolGeometry &geometry, const AvgPoolArgs &args);
/// maxPool over adaptive windows.
Error adaptiveMaxPool(const Tensor &values, const Tensor &indices,
                      const Tensor &self, const PoolGeometry &geometry);
/// out = sum of the adaptive window / kd / kh / kw.
Error adaptiveAvgPool(const Tensor &out, const Tensor &self,
                      const PoolGeometry &geometry);
/// maxPool over fractional windows drawn from random_samples.
Error fractionalMaxPool(const Tensor &values, const Tensor &indices,
                        const Tensor &self, const Tensor &samples,
                        const PoolGeometry &geometry,
                        const FractionalArgs &args);
/// out (contiguous) = 0, then out[n, c, indices[n, c, i]] = self[n, c, i];
/// fails naming the first index outside the output plane, as torch does.
/// Duplicate indices: the last in (d, h, w) order wins.
Error maxUnpool(const Tensor &out, const Tensor &self, const Tensor &indices,
                const PoolGeometry &geometry, const UnpoolArgs &args);
} // namespace cpu

namespace cuda {
/// As the cpu:: functions, on self's device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, maxPool, const Tensor &values, const Tensor &indices,
                   const Tensor &self, const PoolGeometry &geometry,
                   const MaxPoolArgs &args);
AOTI_SHIMS_CUDA_OP(Error, avgPool, const Tensor &out, const Tensor &self,
                   const PoolGeometry &geometry, const AvgPoolArgs &args);
AOTI_SHIMS_CUDA_OP(Error, adaptiveMaxPool, const Tensor &values,
                   const Tensor &indices, const Tensor &self,
                   const PoolGeometry &geometry);
AOTI_SHIMS_CUDA_OP(Error, adaptiveAvgPool, const Tensor &out,
                   const Tensor &self, const PoolGeometry &geometry);
AOTI_SHIMS_CUDA_OP(Error, fractionalMaxPool, const Tensor &values,
                   const Tensor &indices, const Tensor &self,
                   const Tensor &samples, const PoolGeometry &geometry,
                   const FractionalArgs &args);
/// Unlike the CPU (and like torch's device assert, without killing the
/// context), an index outside the output plane is skipped; duplicates write
/// one of their values, unordered.
AOTI_SHIMS_CUDA_OP(Error, maxUnpool, const Tensor &out, const Tensor &self,
                   const Tensor &indices, const PoolGeometry &geometry,
                   const UnpoolArgs &args);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_POOLING_H
