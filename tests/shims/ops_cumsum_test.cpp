//===- ops_cumsum_test.cpp - The CPU cumsum fallback -----------------------===//
//
// The cases of ops_cumsum_cases.h on aoti_torch_cpu_cumsum, plus what only
// the CPU can show without a GPU: aoti_torch_cuda_cumsum refuses a CPU
// tensor, and the CPU result equals an in-order double accumulation bit for
// bit (torch's CPU kernel sums that way).
//
//===----------------------------------------------------------------------===//
#include "ops_cumsum_cases.h"

namespace aoti::test {
namespace {

bool always() { return true; }

INSTANTIATE_TEST_SUITE_P(Cpu, CumsumOps,
                         testing::Values(CumsumApi{"cpu", 0,
                                                   aoti_torch_cpu_cumsum,
                                                   always}),
                         [](const testing::TestParamInfo<CumsumApi> &info) {
                           return std::string(info.param.device);
                         });

TEST(CumsumDevices, TheCudaEntryPointRefusesACpuTensor) {
  TensorHandle self = makeTensor(patternValues(4, 1), {{4}}, float32Type(), 0);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_cumsum(self.get(), 0, nullptr, &ret),
                    "'self' is on cpu; this cumsum needs a CUDA tensor");
  EXPECT_EQ(ret, nullptr);
}

TEST(CumsumAccuracy, Float32SumsInOrderInDoubleLikeTorchsCpuKernel) {
  // Values that float32 addition would round: 1 + 2^-30 is 1 in float32,
  // but the double accumulator keeps the small terms.
  std::vector<double> values;
  values.push_back(1.0);
  for (int i = 0; i < 1024; ++i)
    values.push_back(std::ldexp(1.0, -30));
  const int64_t n = static_cast<int64_t>(values.size());
  TensorHandle self = makeTensor(values, {{n}}, float32Type(), 0);
  TensorHandle ret;
  ASSERT_SHIM_OK(aoti_torch_cpu_cumsum(self.get(), 0, nullptr, ret.out()));
  const std::vector<double> actual = readTensor(ret, float32Type());
  double acc = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    acc += static_cast<double>(static_cast<float>(values[i]));
    ASSERT_EQ(actual[i], static_cast<double>(static_cast<float>(acc))) << i;
  }
  EXPECT_GT(actual.back(), 1.0); // 1 + 2^-20: float32 accumulation gives 1
}

} // namespace
} // namespace aoti::test
