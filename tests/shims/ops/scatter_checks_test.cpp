//===- ops/scatter_checks_test.cpp - scatter's CUDA checks and captures ---===//
//
// What only a GPU shows of the scatter family (ops/scatter_test.cpp has
// the cases of both devices): by default a bad index, length or offset is
// not refused but skipped or clamped and recorded, then reported by
// aoti_shims_cuda_check_errors (docs/ops/checks.md); and no call waits, so
// each captures into a CUDA graph whose replay gives the uncaptured result.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

#include <cmath>
#include <string>
#include <vector>

namespace aoti::test {
namespace {

// Small integers (and halves), exact in every floating dtype and order.
std::vector<double> smallValues(int64_t n, int seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<double>((i * 5 + seed * 3) % 9 - 4) +
           ((i + seed) % 3 == 0 ? 0.5 : 0.0);
  return v;
}

// Index values in [0, bound), with repeats.
std::vector<double> indexValues(int64_t n, int64_t bound, int seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<double>((i * 7 + seed * 11 + i / 3) % bound);
  return v;
}

void expectSameValues(const std::vector<double> &got,
                      const std::vector<double> &expected,
                      const std::string &what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same = got[i] == expected[i] ||
                      (std::isnan(got[i]) && std::isnan(expected[i]));
    if (!same && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", expected " << expected[i];
  }
}

class ScatterChecksOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, ScatterChecksOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ScatterChecksOnCuda);

TEST_P(ScatterChecksOnCuda, ABadIndexIsSkippedAndRecordedWithoutWaiting) {
  // By default nothing is refused on CUDA: an element whose index is out
  // of range is skipped (out keeps self's value there), and the problem is
  // reported by aoti_shims_cuda_check_errors.
  (void)takeCudaCheckError();
  const Dtype f = float32Type();
  const std::vector<double> v = smallValues(6, 1), src = smallValues(6, 2);
  TensorHandle self = tensor(v, {{2, 3}}, f);
  TensorHandle index = tensor({0, 1, 2, 5}, {{2, 2}}, int64Type());
  TensorHandle source = tensor(src, {{2, 3}}, f);
  TensorHandle out = tensor(std::vector<double>(6, 0), {{2, 3}}, f);
  ASSERT_SHIM_OK(aoti_torch_cuda_scatter_src_out(out.get(), self.get(), 1,
                                                 index.get(), source.get()));
  expectSameValues(readTensor(out, f),
                   {src[0], src[1], v[2], v[3], v[4], src[3]}, "scatter");
  EXPECT_NE(takeCudaCheckError().find(
                "index 5 is out of bounds for dimension 1 with size 3"),
            std::string::npos);
  ASSERT_SHIM_OK(aoti_torch_cuda_scatter_reduce_two_out(
      out.get(), self.get(), 1, index.get(), source.get(), "sum", 1));
  expectSameValues(readTensor(out, f),
                   {v[0] + src[0], v[1] + src[1], v[2], v[3], v[4],
                    v[5] + src[3]},
                   "scatter_reduce");
  EXPECT_NE(takeCudaCheckError().find("index 5 is out of bounds"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "");

  // segment_reduce: bad lengths or offsets are clamped, and recorded.
  TensorHandle data = tensor({1, 2, 3, 4, 5, 6}, {{6}}, f);
  TensorHandle negative = tensor({2, -1, 5}, {{3}}, int64Type());
  TensorHandle past = tensor({0, 2, 7}, {{3}}, int32Type());
  AtenTensorHandle nh = negative.get(), ph = past.get();
  TensorHandle segments;
  ASSERT_SHIM_OK(aoti_torch_cuda_segment_reduce(data.get(), "sum", &nh, nullptr,
                                                nullptr, 0, 0, nullptr,
                                                segments.out()));
  EXPECT_NE(takeCudaCheckError().find("lengths contains negative value!"),
            std::string::npos);
  ASSERT_SHIM_OK(aoti_torch_cuda_segment_reduce(data.get(), "sum", nullptr,
                                                nullptr, &ph, 0, 0, nullptr,
                                                segments.out()));
  // The second segment is clamped to [2, 6).
  expectSameValues(readTensor(segments, f), {3, 18}, "clamped offsets");
  EXPECT_NE(takeCudaCheckError().find("offsets hold 7, outside [0, 6]"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "");
}

TEST_P(ScatterChecksOnCuda, CallsCaptureIntoACudaGraph) {
  // A capture fails at the first synchronisation: scatter, scatter_reduce
  // and segment_reduce must not make one.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const Dtype f = float32Type();
    const int64_t rows = 2000, cols = 32, bins = 300;
    TensorHandle self = tensor(smallValues(bins * cols, 1), {{bins, cols}}, f);
    TensorHandle src = tensor(smallValues(rows * cols, 2), {{rows, cols}}, f);
    std::vector<double> expanded, permutation;
    const std::vector<double> targets = indexValues(rows, bins, 3);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        expanded.push_back(targets[i]);
    TensorHandle index = tensor(expanded, {{rows, cols}, {1, 0}}, int64Type());
    for (int64_t i = 0; i < bins; ++i)
      permutation.push_back(static_cast<double>((i * 7) % bins));
    TensorHandle perm = tensor(permutation, {{bins, 1}, {1, 0}}, int64Type());
    TensorHandle data = tensor(smallValues(6 * 4, 3), {{6, 4}}, f);
    TensorHandle lengths = tensor({2, 0, 3, 1}, {{4}}, int64Type());
    TensorHandle offsets = tensor({0, 1, 1, 6}, {{4}}, int32Type());
    AtenTensorHandle lh = lengths.get(), oh = offsets.get();
    const char *reduces[] = {"sum", "mean", "amax"};
    auto outs = [&] {
      std::vector<TensorHandle> r;
      for (int k = 0; k < 5; ++k)
        r.push_back(tensor(std::vector<double>(bins * cols, 0), {{bins, cols}}, f));
      return r;
    };
    auto run = [&](std::vector<TensorHandle> &r, TensorHandle (&segs)[2]) {
      ASSERT_SHIM_OK(aoti_torch_cuda_scatter_src_out(
          r[0].get(), self.get(), 0, perm.get(), self.get()));
      ASSERT_SHIM_OK(aoti_torch_cuda_scatter_value_out(r[1].get(), self.get(), 0,
                                                       perm.get(), 2.5));
      for (int k = 0; k < 3; ++k)
        ASSERT_SHIM_OK(aoti_torch_cuda_scatter_reduce_two_out(
            r[2 + k].get(), self.get(), 0, index.get(), src.get(), reduces[k],
            k != 1));
      ASSERT_SHIM_OK(aoti_torch_cuda_segment_reduce(
          data.get(), "max", &lh, nullptr, nullptr, 0, 0, nullptr,
          segs[0].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_segment_reduce(
          data.get(), "mean", nullptr, nullptr, &oh, 0, 0, nullptr,
          segs[1].out()));
    };
    std::vector<TensorHandle> eager = outs(), captured = outs();
    TensorHandle eagerSegs[2];
    run(eager, eagerSegs);
    {
      CudaGraphCapture capture(stream.get());
      TensorHandle capturedSegs[2];
      run(captured, capturedSegs);
      ASSERT_TRUE(capture.finish());
      ASSERT_TRUE(capture.replay());
      for (int k = 0; k < 2; ++k)
        expectSameValues(readTensor(capturedSegs[k], f),
                         readTensor(eagerSegs[k], f),
                         "captured segment_reduce " + std::to_string(k));
    }
    for (size_t k = 0; k < eager.size(); ++k)
      expectSameValues(readTensor(captured[k], f), readTensor(eager[k], f),
                       "captured scatter " + std::to_string(k));
    EXPECT_EQ(takeCudaCheckError(), "");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
