//===- ops/cuda/gemm.cpp - mm, addmm, bmm and baddbmm through cuBLAS -------===//
//
// cuBLAS is column-major; tensors are strided. A matrix X (rows x cols, row
// stride rs, column stride cs) is something cuBLAS can read in place when one
// of its strides is 1:
//   cs >= rows, rs == 1:  X is column-major with leading dimension cs (op N);
//   rs >= cols, cs == 1:  X is row-major, i.e. X^T is column-major with
//                         leading dimension rs, and cuBLAS reads X as op T.
// (A dimension of size 1 never moves the address, so its stride is free.)
// Operands with any other layout (broadcast, or both strides > 1) are first
// copied to a contiguous temporary.
//
// The output has to be written in place in one of the two forms. If out is
// column-major we compute C = op(A) op(B) directly. If out is row-major we
// compute its transpose instead, C^T = op(B)^T op(A)^T, which cuBLAS writes
// column-major, i.e. into out's row-major memory; transposing an operand only
// flips its op. For row-major contiguous inputs and output (the usual case)
// that becomes the classic gemm(N, N, n, m, k, B, A, C) call. An output in
// neither form, or one sharing memory with an operand, is computed into a
// contiguous temporary and copied.
//
// An empty inner dimension (k = 0, which cuBLAS refuses) makes the product
// zero, so out = beta * addend: zeros, the addend as is, or for any other
// beta a gemm with k = 1 over zero operands, which scales C by beta.
//
// float32 runs in full float32 (CUBLAS_COMPUTE_32F, default math mode, so no
// TF32: torch's default); float16 and bfloat16 accumulate in float32;
// float64 runs in float64 (CUBLAS_COMPUTE_64F).
//
//===----------------------------------------------------------------------===//
#include "ops/gemm.h"

#include "copy.h"
#include "cuda/cuda_internal.h"
#include "cuda/device_scope.h"
#include "cuda_api.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <span>

namespace aoti::shims::ops::cuda {
namespace {

Error check(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Error::success();
  return Error::failure(what, " failed: ", cublasGetStatusString(status));
}

// One cuBLAS handle per thread and device: a handle must not be used by two
// threads at once, and creating one is expensive.
struct HandleCache {
  cublasHandle_t handles[shims::cuda::kMaxDevices] = {};
  ~HandleCache() {
    for (cublasHandle_t handle : handles)
      if (handle)
        (void)cublasDestroy(handle);
  }
};
thread_local HandleCache handleCache;

// The handle for `device`, which must be current, bound to its current stream.
Expected<cublasHandle_t> handleFor(int32_t device) {
  cublasHandle_t &handle = handleCache.handles[device];
  if (!handle) {
    if (Error err = check(cublasCreate(&handle), "cublasCreate")) {
      handle = nullptr;
      return err;
    }
  }
  if (Error err = check(cublasSetStream(handle, static_cast<cudaStream_t>(
                                                    shims::cuda::currentStream(device))),
                        "cublasSetStream"))
    return err;
  return handle;
}

bool fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

cublasOperation_t flip(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// A matrix (the last two dimensions of a 2-d or 3-d tensor) as cuBLAS sees
// it: the stored column-major matrix, how to read it, and the batch stride.
struct Operand {
  void *data;
  cublasOperation_t op;
  int64_t ld;
  int64_t batchStride;
};

std::optional<Operand> asOperand(const Tensor &t) {
  const size_t n = static_cast<size_t>(t.dim());
  const int64_t rows = t.sizes()[n - 2];
  const int64_t cols = t.sizes()[n - 1];
  const int64_t rs = t.strides()[n - 2];
  const int64_t cs = t.strides()[n - 1];
  const int64_t batchStride = n == 3 ? t.strides()[0] : 0;
  std::optional<Operand> result;
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1)))
    result = Operand{t.data(), CUBLAS_OP_N,
                     cols == 1 ? std::max<int64_t>(rows, 1) : cs, batchStride};
  else if ((cs == 1 || cols == 1) &&
           (rows == 1 || rs >= std::max<int64_t>(cols, 1)))
    result = Operand{t.data(), CUBLAS_OP_T,
                     rows == 1 ? std::max<int64_t>(cols, 1) : rs, batchStride};
  if (result && !fitsInt(result->ld))
    result.reset();
  return result;
}

// The output form: like asOperand, and its batches must not overlap.
std::optional<Operand> asOutput(const Tensor &t) {
  std::optional<Operand> form = asOperand(t);
  if (!form || t.dim() != 3 || t.sizes()[0] <= 1)
    return form;
  Expected<int64_t> matrixSpan =
      spanElements(t.sizes().subspan(1), t.strides().subspan(1));
  if (!matrixSpan || form->batchStride < *matrixSpan)
    return std::nullopt;
  return form;
}

cudaDataType dataType(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
    return CUDA_R_16F;
  case ScalarType::BFloat16:
    return CUDA_R_16BF;
  case ScalarType::Float64:
    return CUDA_R_64F;
  default:
    return CUDA_R_32F;
  }
}

// An operand readable by cuBLAS: the tensor itself, or a contiguous copy of
// it. `keepAlive` holds the copy until the gemm has been enqueued (its free
// is then ordered after the gemm on the same stream).
Expected<Operand> readable(const Tensor &t, std::optional<Tensor> &keepAlive) {
  if (std::optional<Operand> form = asOperand(t))
    return *form;
  Expected<Tensor> copy = cloneContiguous(t);
  if (!copy)
    return copy.takeError();
  keepAlive = std::move(*copy);
  std::optional<Operand> form = asOperand(*keepAlive);
  if (!form)
    return Error::failure("matrix too large for cuBLAS (leading dimension "
                          "exceeds INT_MAX)");
  return *form;
}

} // namespace

Error gemm(const Tensor &out, const Tensor &a, const Tensor &b,
           const Tensor *addend, double beta, double alpha) {
  const size_t n = static_cast<size_t>(out.dim());
  const int64_t batch = n == 3 ? out.sizes()[0] : 1;
  const int64_t m = out.sizes()[n - 2];
  const int64_t nCols = out.sizes()[n - 1];
  const int64_t k = a.sizes()[n - 1];
  if (batch == 0 || m == 0 || nCols == 0)
    return Error::success();
  if (!fitsInt(batch) || !fitsInt(m) || !fitsInt(nCols) || !fitsInt(k))
    return Error::failure("matrix dimensions exceed INT_MAX (batch ", batch,
                          ", ", m, "x", k, " @ ", k, "x", nCols, ")");
  const int32_t device = out.device().index;
  if (!addend)
    beta = 0.0;

  // Where cuBLAS writes: out, or a contiguous temporary copied to out last.
  // An empty inner dimension always stages (see below).
  std::optional<Tensor> staged;
  // So does an out that shares memory with an operand (addmm in place on
  // self excepted), so that nothing is overwritten while it is still read.
  const bool inPlace = beta != 0.0 && ops::sameView(*addend, out);
  std::optional<Operand> target = k > 0 ? asOutput(out) : std::nullopt;
  if (!target || ops::overlaps(out, a) || ops::overlaps(out, b) ||
      (beta != 0.0 && !inPlace && ops::overlaps(out, *addend))) {
    Expected<Tensor> temp =
        Tensor::emptyContiguous(out.sizes(), out.dtype(), out.device());
    if (!temp)
      return temp.takeError();
    staged = std::move(*temp);
    target = asOutput(*staged);
    if (!target)
      return Error::failure("output matrix too large for cuBLAS");
  }
  const Tensor &result = staged ? *staged : out;

  // cuBLAS computes C = alpha * AB + beta * C, so C starts as the addend.
  if (beta != 0.0 && !(inPlace && !staged))
    if (Error err = copyTensor(result, *addend, /*nonBlocking=*/true))
      return err;

  // C column-major: C = op(A) op(B). C row-major: C^T = op(B)^T op(A)^T.
  const bool direct = target->op == CUBLAS_OP_N;

  std::optional<Tensor> aCopy, bCopy, zeros;
  std::optional<Operand> opA, opB;
  int64_t kEffective = k;
  if (k == 0) {
    // cuBLAS wants k >= 1. The product is all zeros: out = beta * addend.
    if (beta == 0.0) {
      if (Error err = shims::cuda::zeroBytes(result.data(),
                                static_cast<size_t>(result.numel()) *
                                    result.itemSize(),
                                device))
        return err;
      return copyTensor(out, result, /*nonBlocking=*/true);
    }
    if (beta == 1.0)
      return copyTensor(out, result, /*nonBlocking=*/true);
    // Any other beta: a gemm with k = 1 over zero operands scales C by
    // beta. Both operands read the same zeros: an m x 1 and a 1 x n matrix,
    // shaped so that after the transposition below they are read as op N.
    const int64_t longest = std::max(m, nCols);
    Expected<Tensor> buffer =
        Tensor::emptyContiguous(std::span<const int64_t>(&longest, 1),
                                out.dtype(), out.device());
    if (!buffer)
      return buffer.takeError();
    zeros = std::move(*buffer);
    if (Error err = shims::cuda::zeroBytes(zeros->data(),
                              static_cast<size_t>(longest) * zeros->itemSize(),
                              device))
      return err;
    opA = Operand{zeros->data(), direct ? CUBLAS_OP_N : CUBLAS_OP_T,
                  direct ? std::max<int64_t>(m, 1) : 1, 0};
    opB = Operand{zeros->data(), direct ? CUBLAS_OP_N : CUBLAS_OP_T,
                  direct ? 1 : std::max<int64_t>(nCols, 1), 0};
    kEffective = 1;
  } else {
    Expected<Operand> readA = readable(a, aCopy);
    if (!readA)
      return readA.takeError();
    Expected<Operand> readB = readable(b, bCopy);
    if (!readB)
      return readB.takeError();
    opA = *readA;
    opB = *readB;
  }

  shims::cuda::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  Expected<cublasHandle_t> handle = handleFor(device);
  if (!handle)
    return handle.takeError();

  // The scalars' type is the compute type's.
  const bool isDouble = out.dtype() == ScalarType::Float64;
  const float alphaF = static_cast<float>(alpha);
  const float betaF = static_cast<float>(beta);
  const void *alphaPtr = isDouble ? static_cast<const void *>(&alpha) : &alphaF;
  const void *betaPtr = isDouble ? static_cast<const void *>(&beta) : &betaF;
  const cublasComputeType_t compute =
      isDouble ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const cudaDataType type = dataType(out.dtype());
  const Operand &first = direct ? *opA : *opB;
  const Operand &second = direct ? *opB : *opA;
  const cublasOperation_t opFirst = direct ? first.op : flip(first.op);
  const cublasOperation_t opSecond = direct ? second.op : flip(second.op);
  const int64_t rowsC = direct ? m : nCols;
  const int64_t colsC = direct ? nCols : m;
  if (Error err = check(
          cublasGemmStridedBatchedEx(
              *handle, opFirst, opSecond, static_cast<int>(rowsC),
              static_cast<int>(colsC), static_cast<int>(kEffective), alphaPtr,
              first.data, type, static_cast<int>(first.ld), first.batchStride,
              second.data, type, static_cast<int>(second.ld),
              second.batchStride, betaPtr, target->data, type,
              static_cast<int>(target->ld), target->batchStride,
              static_cast<int>(batch), compute,
              CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx"))
    return err;
  if (staged)
    return copyTensor(out, *staged, /*nonBlocking=*/true);
  return Error::success();
}

} // namespace aoti::shims::ops::cuda
