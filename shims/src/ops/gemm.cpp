//===- ops/gemm.cpp - GEMM fallbacks: arguments, checks, entry points ------===//
//
// aoti_torch_{cpu,cuda}_{mm,addmm,bmm,baddbmm}_out, with the signatures of
// torch 2.11's generated c_shim_cpu.h / c_shim_cuda.h. Each entry point names
// its C parameters (self, mat1, batch2, ...) so that every failure says which
// argument is wrong, checks what torch's meta functions check (meta_mm,
// common_meta_baddbmm_bmm, meta_baddbmm and ATen's addmm meta):
//  - every tensor on the entry point's device type, all on one device;
//  - one dtype for all of them (out included: the out= variants are
//    exact_dtype), and one the device implements;
//  - the operands 2-D (mm, addmm) or 3-D (bmm, baddbmm), with matching inner
//    and batch sizes;
//  - self (the addend) broadcastable to the result's shape, as torch expands
//    it;
// plus what the shims cannot do and torch can: out must already have the
// result's shape (torch would resize it; a model never needs that). Then it
// runs the device's implementation (ops/gemm.h) on the checked tensors.
//
//===----------------------------------------------------------------------===//
#include "ops/gemm.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"
#include "error.h"
#include "tensor.h"

#include <algorithm>
#include <initializer_list>
#include <sstream>
#include <string>

using namespace aoti::shims;

bool aoti::shims::ops::sameView(const Tensor &a, const Tensor &b) {
  return a.data() == b.data() && a.dtype() == b.dtype() &&
         std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin(),
                    b.sizes().end()) &&
         std::equal(a.strides().begin(), a.strides().end(),
                    b.strides().begin(), b.strides().end());
}

bool aoti::shims::ops::overlaps(const Tensor &a, const Tensor &b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0)
    return false;
  auto range = [](const Tensor &t) {
    const char *first = static_cast<const char *>(t.data());
    Expected<int64_t> span = spanElements(t.sizes(), t.strides());
    const int64_t count = span ? *span : 0;
    return std::pair<const char *, const char *>(
        first, first + count * static_cast<int64_t>(t.itemSize()));
  };
  auto [aFirst, aEnd] = range(a);
  auto [bFirst, bEnd] = range(b);
  return aFirst < bEnd && bFirst < aEnd;
}

namespace {

// One entry point: its device and the names of its C parameters.
struct GemmSignature {
  DeviceType device;
  const char *left;  // self (mm, bmm), mat1 (addmm), batch1 (baddbmm)
  const char *right; // mat2 or batch2
  int64_t ndim;      // 2 or 3
};

// Both devices implement the same four.
bool isSupportedDtype(ScalarType type) {
  return type == ScalarType::Float32 || type == ScalarType::Float64 ||
         type == ScalarType::Float16 || type == ScalarType::BFloat16;
}

constexpr const char *kSupportedDtypes = "float32, float64, float16, bfloat16";

std::string shapeOf(std::span<const int64_t> sizes) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < sizes.size(); ++i)
    os << (i ? ", " : "") << sizes[i];
  os << ']';
  return os.str();
}

struct NamedTensor {
  const char *name;
  const Tensor *tensor;
};

// Every operand on the entry point's device type and on the first one's
// device, all of the first one's dtype, which the device supports.
Error checkOperands(const GemmSignature &sig,
                    std::initializer_list<NamedTensor> operands) {
  const Tensor &first = *operands.begin()->tensor;
  for (const NamedTensor &op : operands) {
    const Tensor &t = *op.tensor;
    if (t.device().type != sig.device)
      return Error::failure(
          "'", op.name, "' is on ", describe(t.device()), "; the ",
          sig.device == DeviceType::CUDA ? "matmul fallbacks need CUDA tensors"
                                         : "CPU matmul fallbacks need CPU "
                                           "tensors");
    if (!t.device().sameMemory(first.device()))
      return Error::failure("'", op.name, "' is on ", describe(t.device()),
                            ", expected ", describe(first.device()),
                            " (where '", operands.begin()->name, "' is)");
    if (t.dtype() != first.dtype())
      return Error::failure("'", op.name, "' has dtype ", dtypeName(t.dtype()),
                            ", expected ", dtypeName(first.dtype()),
                            " (all operands and out must have one dtype)");
  }
  if (!isSupportedDtype(first.dtype()))
    return Error::failure("unsupported dtype ", dtypeName(first.dtype()),
                          " (supported: ", kSupportedDtypes, ")");
  return Error::success();
}

Error checkDim(const char *name, const Tensor &t, int64_t ndim) {
  if (t.dim() != ndim)
    return Error::failure("'", name, "' is ", t.dim(), "-d, expected ", ndim,
                          "-d");
  return Error::success();
}

// out[..., M, N] = left[..., M, K] @ right[..., K, N], with equal leading
// (batch) dimensions.
Error checkShapes(const GemmSignature &sig, const Tensor &out,
                  const Tensor &a, const Tensor &b) {
  const size_t n = static_cast<size_t>(sig.ndim);
  auto sa = a.sizes();
  auto sb = b.sizes();
  auto so = out.sizes();
  if (n == 3 && sb[0] != sa[0])
    return Error::failure("batch sizes differ: '", sig.left, "' ", sa[0],
                          ", '", sig.right, "' ", sb[0]);
  if (sa[n - 1] != sb[n - 2])
    return Error::failure("inner dimensions differ: '", sig.left, "' ",
                          shapeOf(sa), " @ '", sig.right, "' ", shapeOf(sb));
  std::vector<int64_t> expected(sa.begin(), sa.end());
  expected.back() = sb[n - 1];
  if (!std::equal(so.begin(), so.end(), expected.begin(), expected.end()))
    return Error::failure("out is ", shapeOf(so), ", expected ",
                          shapeOf(expected), " (out is not resized)");
  return Error::success();
}

// torch expands self to the result's shape: dimensions align at the end and
// each of self's is 1 or the result's.
Error checkBroadcast(const Tensor &self, const Tensor &out) {
  auto ss = self.sizes();
  auto so = out.sizes();
  bool ok = ss.size() <= so.size();
  for (size_t i = 0; ok && i < ss.size(); ++i) {
    const int64_t target = so[so.size() - ss.size() + i];
    ok = ss[i] == 1 || ss[i] == target;
  }
  if (!ok)
    return Error::failure("'self' ", shapeOf(ss),
                          " does not broadcast to the result's shape ",
                          shapeOf(so));
  return Error::success();
}

Error runGemm(const GemmSignature &sig, AtenTensorHandle outHandle,
              AtenTensorHandle selfHandle, bool hasSelf,
              AtenTensorHandle leftHandle, AtenTensorHandle rightHandle,
              double beta, double alpha) {
  Expected<std::array<Tensor *, 4>> tensors =
      fromHandles({{outHandle, "out"},
                   {selfHandle, "self", /*given=*/hasSelf},
                   {leftHandle, sig.left},
                   {rightHandle, sig.right}});
  if (!tensors)
    return tensors.takeError();
  auto [out, addend, a, b] = *tensors;
  if (addend) {
    if (Error err = checkOperands(
            sig, {{sig.left, a}, {sig.right, b}, {"self", addend},
                  {"out", out}}))
      return err;
  } else if (Error err = checkOperands(
                 sig, {{sig.left, a}, {sig.right, b}, {"out", out}})) {
    return err;
  }
  if (Error err = checkDim(sig.left, *a, sig.ndim))
    return err;
  if (Error err = checkDim(sig.right, *b, sig.ndim))
    return err;
  if (Error err = checkDim("out", *out, sig.ndim))
    return err;
  if (Error err = checkShapes(sig, *out, *a, *b))
    return err;
  if (addend)
    if (Error err = checkBroadcast(*addend, *out))
      return err;
  if (sig.device == DeviceType::CPU)
    return ops::cpu::gemm(*out, *a, *b, addend, beta, alpha);
  return ops::cuda::gemm(*out, *a, *b, addend, beta, alpha);
}

constexpr GemmSignature kCpuMm{DeviceType::CPU, "self", "mat2", 2};
constexpr GemmSignature kCpuAddmm{DeviceType::CPU, "mat1", "mat2", 2};
constexpr GemmSignature kCpuBmm{DeviceType::CPU, "self", "mat2", 3};
constexpr GemmSignature kCpuBaddbmm{DeviceType::CPU, "batch1", "batch2", 3};
constexpr GemmSignature kCudaMm{DeviceType::CUDA, "self", "mat2", 2};
constexpr GemmSignature kCudaAddmm{DeviceType::CUDA, "mat1", "mat2", 2};
constexpr GemmSignature kCudaBmm{DeviceType::CUDA, "self", "mat2", 3};
constexpr GemmSignature kCudaBaddbmm{DeviceType::CUDA, "batch1", "batch2", 3};

} // namespace

#ifndef AOTI_SHIMS_HAVE_OPENBLAS
// A build without OpenBLAS (AOTI_OPENBLAS=OFF, or AUTO where it is missing)
// has no ops/cpu/gemm.cpp; the CPU entry points stay and say why they fail.
Error aoti::shims::ops::cpu::gemm(const Tensor &, const Tensor &, const Tensor &,
                                  const Tensor *, double, double) {
  return Error::failure("libaoti_shims was built without OpenBLAS, which the "
                        "CPU matmul fallbacks need (install libopenblas-dev "
                        "and configure with AOTI_OPENBLAS=ON)");
}
#endif

extern "C" {

AOTITorchError aoti_torch_cpu_mm_out(AtenTensorHandle out,
                                     AtenTensorHandle self,
                                     AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runGemm(kCpuMm, out, nullptr, false, self, mat2, 0.0, 1.0);
  });
}

AOTITorchError aoti_torch_cpu_addmm_out(AtenTensorHandle out,
                                        AtenTensorHandle self,
                                        AtenTensorHandle mat1,
                                        AtenTensorHandle mat2, double beta,
                                        double alpha) {
  return runShim(__func__, [&] {
    return runGemm(kCpuAddmm, out, self, true, mat1, mat2, beta, alpha);
  });
}

AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out,
                                      AtenTensorHandle self,
                                      AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runGemm(kCpuBmm, out, nullptr, false, self, mat2, 0.0, 1.0);
  });
}

AOTITorchError aoti_torch_cpu_baddbmm_out(AtenTensorHandle out,
                                          AtenTensorHandle self,
                                          AtenTensorHandle batch1,
                                          AtenTensorHandle batch2, double beta,
                                          double alpha) {
  return runShim(__func__, [&] {
    return runGemm(kCpuBaddbmm, out, self, true, batch1, batch2, beta, alpha);
  });
}

AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out,
                                      AtenTensorHandle self,
                                      AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runGemm(kCudaMm, out, nullptr, false, self, mat2, 0.0, 1.0);
  });
}

AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out,
                                         AtenTensorHandle self,
                                         AtenTensorHandle mat1,
                                         AtenTensorHandle mat2, double beta,
                                         double alpha) {
  return runShim(__func__, [&] {
    return runGemm(kCudaAddmm, out, self, true, mat1, mat2, beta, alpha);
  });
}

AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out,
                                       AtenTensorHandle self,
                                       AtenTensorHandle mat2) {
  return runShim(__func__, [&] {
    return runGemm(kCudaBmm, out, nullptr, false, self, mat2, 0.0, 1.0);
  });
}

AOTITorchError aoti_torch_cuda_baddbmm_out(AtenTensorHandle out,
                                           AtenTensorHandle self,
                                           AtenTensorHandle batch1,
                                           AtenTensorHandle batch2,
                                           double beta, double alpha) {
  return runShim(__func__, [&] {
    return runGemm(kCudaBaddbmm, out, self, true, batch1, batch2, beta,
                   alpha);
  });
}

} // extern "C"
