//===- ops/gemm.h - The GEMM fallbacks: mm, addmm, bmm, baddbmm -------------===//
//
// The device-neutral half of the family lives in ops/gemm.cpp: it decodes the
// C arguments, checks them the way torch's meta functions do (naming the
// argument at fault), and hands one checked problem,
//     out = beta * addend + alpha * (a @ b),
// to the device's implementation declared here:
//  - cpu::gemm   ops/cpu/gemm.cpp, OpenBLAS (cblas_sgemm/dgemm), compiled
//    only when OpenBLAS is found (else a failing stand-in, as for CUDA);
//  - cuda::gemm  ops/cuda/gemm.cpp, cuBLAS, compiled only in CUDA builds
//    (ops/device.h says what stands in for it otherwise).
//
// What both receive: a, b and out all 2-D (mm, addmm) or all 3-D (bmm,
// baddbmm) of one dtype the device supports, on one device; out exactly
// [batch,] m x n with a [batch,] m x k and b [batch,] k x n; `addend` null
// (then beta is 0) or of out's dtype and device and broadcastable to out.
// Any non-negative strides and storage offsets.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_GEMM_H
#define AOTI_SHIMS_OPS_GEMM_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

namespace aoti::shims::ops {

namespace cpu {
Error gemm(const Tensor &out, const Tensor &a, const Tensor &b,
           const Tensor *addend, double beta, double alpha);
} // namespace cpu

namespace cuda {
AOTI_SHIMS_CUDA_OP(Error, gemm, const Tensor &out, const Tensor &a,
                   const Tensor &b, const Tensor *addend, double beta,
                   double alpha);
} // namespace cuda

/// Same first element, dtype, sizes and strides: one view of one memory.
bool sameView(const Tensor &a, const Tensor &b);
/// The two tensors' address ranges (first to last element) intersect, so
/// writing one may change the other.
bool overlaps(const Tensor &a, const Tensor &b);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_GEMM_H
