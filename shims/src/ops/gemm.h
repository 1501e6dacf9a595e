//===- ops/gemm.h - The GEMM fallbacks: mm, addmm, bmm, baddbmm -------------===//
//
// The device-neutral half of the family lives in ops/gemm.cpp: it decodes the
// C arguments, checks them the way torch's meta functions do, and hands one
// checked problem, out = beta * addend + alpha * (a @ b), to the device's
// implementation declared here.
//
// The CUDA implementation (ops/cuda/gemm.cpp, cuBLAS) is compiled only in
// CUDA builds; without CUDA, ops/gemm.cpp defines cuda::gemm itself as a
// failure saying so, so every build exports the same entry points.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_GEMM_H
#define AOTI_SHIMS_OPS_GEMM_H

#include "error.h"
#include "tensor.h"

namespace aoti::shims::cuda {

/// out = beta * addend + alpha * (a @ b) through cuBLAS, for 2-D operands
/// (mm, addmm) or 3-D ones (bmm, baddbmm), already checked by ops/gemm.cpp.
/// `addend` may be null (then beta is 0).
Error gemm(const Tensor &out, const Tensor &a, const Tensor &b,
           const Tensor *addend, double beta, double alpha);

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_OPS_GEMM_H
