//===- cuda_gemm_test.cpp - The CUDA GEMM fallbacks on a GPU ---------------===//
//
// The cases of ops_gemm_cases.h on the CUDA entry points
// (aoti_torch_cuda_{mm,addmm,bmm,baddbmm}_out)
// for float32, float64, float16 and bfloat16, compared with the same
// plain-loop CPU references as the CPU tests, plus what needs a GPU to
// show: device mismatches are refused, and the work runs on the current
// stream. Part of shims_cuda_test; every test skips when no CUDA device is
// visible.
//
//===----------------------------------------------------------------------===//
#include "ops_gemm_cases.h"

#include <cuda_runtime_api.h>

namespace aoti::test {
namespace {

constexpr int32_t kCuda = 1;

bool haveGpu() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

GemmApi cudaGemm() {
  return {"cuda",
          kCuda,
          aoti_torch_cuda_mm_out,
          aoti_torch_cuda_addmm_out,
          aoti_torch_cuda_bmm_out,
          aoti_torch_cuda_baddbmm_out,
          haveGpu};
}

INSTANTIATE_TEST_SUITE_P(Cuda, GemmOps,
                         testing::Values(GemmParam{cudaGemm(), float32Type()},
                                         GemmParam{cudaGemm(), float64Type()},
                                         GemmParam{cudaGemm(), float16Type()},
                                         GemmParam{cudaGemm(), bfloat16Type()}),
                         gemmParamName);

class CudaOps : public testing::Test {
protected:
  void SetUp() override {
    if (!haveGpu())
      GTEST_SKIP() << "no CUDA device visible";
  }
  void TearDown() override {
    if (!haveGpu())
      return;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
};

TEST_F(CudaOps, CpuEntryPointsRefuseCudaTensors) {
  const Dtype f = float32Type();
  TensorHandle m = makeTensor(patternValues(4, 1), {{2, 2}}, f, kCuda);
  TensorHandle b = makeTensor(patternValues(8, 1), {{2, 2, 2}}, f, kCuda);
  EXPECT_SHIM_FAILS(aoti_torch_cpu_mm_out(m.get(), m.get(), m.get()),
                    "'self' is on cuda:0; the CPU matmul fallbacks need CPU "
                    "tensors");
  EXPECT_SHIM_FAILS(
      aoti_torch_cpu_addmm_out(m.get(), m.get(), m.get(), m.get(), 1, 1),
      "'mat1' is on cuda:0");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_bmm_out(b.get(), b.get(), b.get()),
                    "need CPU tensors");
  EXPECT_SHIM_FAILS(
      aoti_torch_cpu_baddbmm_out(b.get(), b.get(), b.get(), b.get(), 1, 1),
      "'batch1' is on cuda:0");
}

TEST_F(CudaOps, MixedDevicesAreRefusedNamingTheArgument) {
  const Dtype f = float32Type();
  TensorHandle gpu = makeTensor(patternValues(4, 1), {{2, 2}}, f, kCuda);
  TensorHandle cpu = makeTensor(patternValues(4, 1), {{2, 2}}, f, 0);
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(gpu.get(), gpu.get(), cpu.get()),
                    "'mat2' is on cpu");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(cpu.get(), gpu.get(), gpu.get()),
                    "'out' is on cpu");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_addmm_out(gpu.get(), cpu.get(), gpu.get(), gpu.get(), 1,
                                1),
      "'self' is on cpu");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_mm_out(cpu.get(), cpu.get(), gpu.get()),
                    "'mat2' is on cuda:0");
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2)
    return; // the cross-GPU case needs two devices
  TensorHandle second;
  const int64_t sizes[] = {2, 2};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr, f.code, kCuda, 1,
                                          second.out()));
  EXPECT_SHIM_FAILS(aoti_torch_cuda_mm_out(gpu.get(), gpu.get(), second.get()),
                    "'mat2' is on cuda:1, expected cuda:0");
}

TEST_F(CudaOps, GemmRunsOnTheCurrentStream) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
            cudaSuccess);
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  {
    const Dtype f = float32Type();
    const int64_t m = 32, k = 48, n = 16;
    const std::vector<double> a = patternValues(m * k, 1);
    const std::vector<double> b = patternValues(k * n, 2);
    const std::vector<double> bias = patternValues(n, 3);
    TensorHandle ta = makeTensor(a, {{1, m, k}}, f, kCuda);
    TensorHandle tb = makeTensor(b, {{1, k, n}}, f, kCuda);
    TensorHandle tbias = makeTensor(bias, {{n}}, f, kCuda);
    TensorHandle out = makeTensor(std::vector<double>(m * n, 0.0),
                                  {{1, m, n}}, f, kCuda);
    ASSERT_SHIM_OK(aoti_torch_cuda_baddbmm_out(out.get(), tbias.get(),
                                               ta.get(), tb.get(), 1.0, 1.0));
    // readTensor copies with non_blocking = 0 on the current stream (this
    // one), so it sees the result without any other synchronisation.
    const Expectation product = referenceGemm(
        a, b, broadcastValues(bias, {n}, {1, m, n}), 1, m, k, n, 1.0, 1.0);
    expectGemmClose(readTensor(out, f), product, f, "baddbmm on a stream");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

} // namespace
} // namespace aoti::test
