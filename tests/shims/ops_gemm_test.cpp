//===- ops_gemm_test.cpp - The CPU GEMM fallbacks (OpenBLAS) ---------------===//
//
// The cases of ops_gemm_cases.h on aoti_torch_cpu_{mm,addmm,bmm,baddbmm}_out
// for float32, float64, float16 and bfloat16, plus what only the CPU entry
// points can show without a GPU: the CUDA entry points refuse CPU tensors.
//
//===----------------------------------------------------------------------===//
#include "ops_gemm_cases.h"

namespace aoti::test {
namespace {

// Without OpenBLAS the CPU cases skip, and one test checks the refusal.
bool haveOpenBlas() {
#ifdef AOTI_TEST_HAVE_OPENBLAS
  return true;
#else
  return false;
#endif
}

GemmApi cpuGemm() {
  return {"cpu",
          aoti_torch_device_type_cpu(),
          aoti_torch_cpu_mm_out,
          aoti_torch_cpu_addmm_out,
          aoti_torch_cpu_bmm_out,
          aoti_torch_cpu_baddbmm_out,
          haveOpenBlas};
}

INSTANTIATE_TEST_SUITE_P(Cpu, GemmOps,
                         testing::Values(GemmParam{cpuGemm(), float32Type()},
                                         GemmParam{cpuGemm(), float64Type()},
                                         GemmParam{cpuGemm(), float16Type()},
                                         GemmParam{cpuGemm(), bfloat16Type()}),
                         gemmParamName);

TEST(GemmDevices, TheCudaEntryPointsRefuseCpuTensors) {
  TensorHandle m = makeTensor(patternValues(4, 1), {{2, 2}}, float32Type(),
                              aoti_torch_device_type_cpu());
  TensorHandle b = makeTensor(patternValues(8, 1), {{2, 2, 2}}, float32Type(),
                              aoti_torch_device_type_cpu());
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(m.get(), m.get(), m.get()),
                    "'self' is on cpu; the matmul fallbacks need CUDA tensors");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_addmm_out(m.get(), m.get(), m.get(), m.get(), 1, 1),
      "'mat1' is on cpu");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_bmm_out(b.get(), b.get(), b.get()),
                    "need CUDA tensors");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_baddbmm_out(b.get(), b.get(), b.get(), b.get(), 1, 1),
      "'batch1' is on cpu");
}

TEST(GemmDevices, WithoutOpenBlasTheCpuEntryPointsSaySo) {
  if (haveOpenBlas())
    GTEST_SKIP() << "built with OpenBLAS";
  TensorHandle m = makeTensor(patternValues(4, 1), {{2, 2}}, float32Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cpu_mm_out(m.get(), m.get(), m.get()),
                    "built without OpenBLAS");
}

// OpenBLAS' float32 result for a large product agrees with a double
// reference to float32 accuracy (the tolerance the docs state).
TEST(GemmAccuracy, Float32AgreesWithADoubleReferenceAt256) {
  if (!haveOpenBlas())
    GTEST_SKIP() << "built without OpenBLAS";
  const int64_t n = 256;
  const std::vector<double> a = patternValues(n * n, 31);
  const std::vector<double> b = patternValues(n * n, 32);
  TensorHandle ta = makeTensor(a, {{n, n}}, float32Type(), 0);
  TensorHandle tb = makeTensor(b, {{n, n}, {1, n}}, float32Type(), 0);
  TensorHandle out = makeTensor(std::vector<double>(n * n, 0.0), {{n, n}},
                                float32Type(), 0);
  ASSERT_SHIM_OK(aoti_torch_cpu_mm_out(out.get(), ta.get(), tb.get()));
  expectGemmClose(readTensor(out, float32Type()),
                  referenceGemm(a, b, {}, 1, n, n, n, 0.0, 1.0), float32Type(),
                  "256x256x256");
}

} // namespace
} // namespace aoti::test
