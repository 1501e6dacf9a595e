//===- ops_gemm_test.cpp - The CPU GEMM fallbacks (OpenBLAS) ---------------===//
//
// The cases of ops_gemm_cases.h on aoti_torch_cpu_{mm,addmm,bmm,baddbmm}_out
// for float32, float64, float16 and bfloat16, plus what only the CPU entry
// points can show without a GPU: the CUDA entry points refuse CPU tensors.
//
//===----------------------------------------------------------------------===//
#include "ops_gemm_cases.h"

#include "ops/cpu/float16.h"

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

// The library's bit-level float16/bfloat16 conversions (ops/cpu/float16.h,
// used by the half-precision GEMM and cumsum paths) against this test's
// value-level ones: every float16, and floats across the whole range.
TEST(HalfConversions, EveryFloat16WidensExactly) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const double expected = float16ToDouble(static_cast<uint16_t>(bits));
    const float actual =
        aoti::shims::ops::cpu::float16ToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(actual)) << std::hex << bits;
    else
      EXPECT_EQ(static_cast<double>(actual), expected) << std::hex << bits;
  }
}

TEST(HalfConversions, FloatsNarrowToTheNearestEvenFloat16) {
  // Every 997th float bit pattern (both signs, zeros, subnormals, normals,
  // infinities and NaNs), plus the boundaries of each float16 range.
  std::vector<float> values;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 997) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float v;
    std::memcpy(&v, &b, 4);
    values.push_back(v);
  }
  for (float v : {0.0f, 65504.0f, 65519.99f, 65520.0f, 65536.0f, 0x1p-14f,
                  0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1.ffcp-15f, 0x1.ffep-15f,
                  1.0f + 0x1p-11f, 1.0f + 0x1.8p-11f, 2049.0f, 2051.0f,
                  HUGE_VALF})
    for (float s : {1.0f, -1.0f})
      values.push_back(s * v);
  for (float v : values) {
    const uint16_t actual = aoti::shims::ops::cpu::floatToFloat16(v);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(float16ToDouble(actual))) << v;
      continue;
    }
    EXPECT_EQ(actual, float16FromDouble(v)) << std::hexfloat << v;
  }
}

TEST(HalfConversions, BFloat16RoundsToNearestEven) {
  using aoti::shims::ops::cpu::bfloat16ToFloat;
  using aoti::shims::ops::cpu::floatToBFloat16;
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(1.0f + 0x1p-8f), 0x3f80);   // tie, even stays
  EXPECT_EQ(floatToBFloat16(1.0f + 0x1.8p-7f), 0x3f82); // tie, odd rounds up
  EXPECT_EQ(floatToBFloat16(1.0f + 0x1.2p-8f), 0x3f81); // above the tie
  EXPECT_EQ(floatToBFloat16(-2.5f), 0xc020);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(std::nanf("")))));
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float wide = bfloat16ToFloat(static_cast<uint16_t>(bits));
    if (!std::isnan(wide))
      EXPECT_EQ(floatToBFloat16(wide), bits) << std::hex << bits;
  }
}

} // namespace
} // namespace aoti::test
