//===- ops/gemm.cpp - mm, addmm and bmm: arguments, checks, entry points ---===//
//
// Each entry point names its C parameters (self, mat1, mat2, ...) so that
// every failure says which argument is wrong, checks the operands (device,
// dtype, dimension count, shapes), and then runs the device's
// implementation declared in ops/gemm.h on the checked tensors.
//
//===----------------------------------------------------------------------===//
#include "ops/gemm.h"

#include "aoti/shim.h"
#include "cuda_api.h"
#include "error.h"
#include "tensor.h"

#include <initializer_list>

using namespace aoti::shims;

namespace {

bool isMatmulDtype(ScalarType type) {
  return type == ScalarType::Float32 || type == ScalarType::Float16 ||
         type == ScalarType::BFloat16;
}

struct NamedTensor {
  const char *name;
  const Tensor *tensor;
};

// All operands are CUDA tensors of one device and one float dtype, with the
// given dimension count (0: any, for addmm's broadcast bias).
Error checkOperands(std::initializer_list<NamedTensor> operands,
                    int64_t ndim) {
  const Tensor &first = *operands.begin()->tensor;
  for (const NamedTensor &op : operands) {
    const Tensor &t = *op.tensor;
    if (!t.device().isCuda())
      return Error::failure("'", op.name, "' is on ", describe(t.device()),
                            "; the matmul fallbacks need CUDA tensors");
    if (t.device().index != first.device().index)
      return Error::failure("'", op.name, "' is on ", describe(t.device()),
                            ", expected ", describe(first.device()));
    if (t.dtype() != first.dtype())
      return Error::failure("'", op.name, "' has dtype ", dtypeName(t.dtype()),
                            ", expected ", dtypeName(first.dtype()));
    if (ndim != 0 && t.dim() != ndim)
      return Error::failure("'", op.name, "' is ", t.dim(), "-d, expected ",
                            ndim, "-d");
  }
  if (!isMatmulDtype(first.dtype()))
    return Error::failure("unsupported dtype ", dtypeName(first.dtype()),
                          " (supported: float32, float16, bfloat16)");
  return Error::success();
}

// out[..., M, N] = a[..., M, K] @ b[..., K, N], with equal leading (batch)
// dimensions.
Error checkShapes(const Tensor &out, const Tensor &a, const Tensor &b) {
  const size_t n = static_cast<size_t>(out.dim());
  auto sa = a.sizes();
  auto sb = b.sizes();
  auto so = out.sizes();
  for (size_t i = 0; i + 2 < n; ++i)
    if (sa[i] != so[i] || sb[i] != so[i])
      return Error::failure("batch sizes differ: out ", so[i], ", left ",
                            sa[i], ", mat2 ", sb[i]);
  if (sa[n - 1] != sb[n - 2])
    return Error::failure("inner dimensions differ: ", sa[n - 2], "x",
                          sa[n - 1], " @ ", sb[n - 2], "x", sb[n - 1]);
  if (so[n - 2] != sa[n - 2] || so[n - 1] != sb[n - 1])
    return Error::failure("out is ", so[n - 2], "x", so[n - 1], ", expected ",
                          sa[n - 2], "x", sb[n - 1]);
  return Error::success();
}

// `aName` is the C parameter name of the left operand: self for mm/bmm,
// mat1 for addmm (where self is the addend).
Error runMatmul(AtenTensorHandle outHandle, const char *aName,
                AtenTensorHandle aHandle, AtenTensorHandle bHandle,
                AtenTensorHandle addendHandle, int64_t ndim, double beta,
                double alpha) {
  Expected<Tensor *> out = fromHandle(outHandle, "out");
  if (!out)
    return out.takeError();
  Expected<Tensor *> a = fromHandle(aHandle, aName);
  if (!a)
    return a.takeError();
  Expected<Tensor *> b = fromHandle(bHandle, "mat2");
  if (!b)
    return b.takeError();
  const Tensor *addend = nullptr;
  if (addendHandle) {
    Expected<Tensor *> self = fromHandle(addendHandle, "self");
    if (!self)
      return self.takeError();
    addend = *self;
    if (Error err = checkOperands({{"out", *out}, {"self", addend}}, 0))
      return err;
  }
  if (Error err = checkOperands(
          {{"out", *out}, {aName, *a}, {"mat2", *b}}, ndim))
    return err;
  if (Error err = checkShapes(**out, **a, **b))
    return err;
  return cuda::gemm(**out, **a, **b, addend, beta, alpha);
}

} // namespace

#ifndef AOTI_SHIMS_HAVE_CUDA
// A build without CUDA has no ops/cuda/gemm.cpp. No CUDA tensor can exist
// there, so the checks above already refuse every call; this keeps the link
// whole and says why if it is ever reached.
Error aoti::shims::cuda::gemm(const Tensor &, const Tensor &, const Tensor &,
                              const Tensor *, double, double) {
  return notCompiledIn();
}
#endif

extern "C" {

AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out,
                                      AtenTensorHandle self,
                                      AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runMatmul(out, "self", self, mat2, nullptr, 2, 0.0, 1.0);
  });
}

AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out,
                                         AtenTensorHandle self,
                                         AtenTensorHandle mat1,
                                         AtenTensorHandle mat2, double beta,
                                         double alpha) {
  return runShim(__func__, [&]() -> Error {
    if (!self)
      return Error::failure("tensor handle 'self' is null");
    return runMatmul(out, "mat1", mat1, mat2, self, 2, beta, alpha);
  });
}

AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out,
                                       AtenTensorHandle self,
                                       AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runMatmul(out, "self", self, mat2, nullptr, 3, 0.0, 1.0);
  });
}

} // extern "C"
