//===- ops_cpu_threads_test.cpp - The CPU fallbacks' thread count ---------===//
//
// ops/cpu/parallel.h's rules (AOTI_NUM_THREADS, then OMP_NUM_THREADS, then
// the physical cores), that the GEMM and attention fallbacks run on exactly
// the count they are given (the team size OpenMP reports from inside their
// region), and that 1 and N threads give the same results:
//  - GEMM and attention: bit for bit. Threads split the output into tiles
//    (GEMM) or rows (attention); every element is still one single-threaded
//    OpenBLAS sum over the whole inner dimension, in the same order.
//  - convolution: within 1e-5 relative of each other (oneDNN may choose
//    another decomposition for another thread count), each checked against
//    a plain-loop reference.
// Shapes are big enough to be split (>= 4 tiles of 2^18 multiply-adds, an
// attention call of >= 4M), with transposed, broadcast and offset operands
// and a column-major output.
//
//===----------------------------------------------------------------------===//
#include "ops_test_util.h"

#include "ops/cpu/parallel.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

namespace aoti::test {
namespace {

using shims::ops::cpu::chooseSgemmLibrary;
using shims::ops::cpu::cpuThreadCount;
using shims::ops::cpu::takeMaxBlasThreadCount;
using shims::ops::cpu::lastTeamSize;
using shims::ops::cpu::physicalCoreCount;
using shims::ops::cpu::setCpuThreadCount;
using shims::ops::cpu::SgemmLibrary;
using shims::ops::cpu::sgemmLibrary;
using shims::ops::cpu::threadCountFromEnvironment;

// Restores the environment's count when a test ends, pass or fail.
struct ThreadCountScope {
  ~ThreadCountScope() { setCpuThreadCount(0); }
};

TEST(CpuThreadCount, AotiNumThreadsWinsOverOmpNumThreads) {
  EXPECT_EQ(threadCountFromEnvironment("3", "5", 8), 3);
  EXPECT_EQ(threadCountFromEnvironment(" 12 ", std::nullopt, 8), 12);
}

TEST(CpuThreadCount, OmpNumThreadsGivesItsFirstValue) {
  EXPECT_EQ(threadCountFromEnvironment(std::nullopt, "5", 8), 5);
  EXPECT_EQ(threadCountFromEnvironment(std::nullopt, "6,2", 8), 6);
}

TEST(CpuThreadCount, BadValuesAreIgnoredInTurn) {
  EXPECT_EQ(threadCountFromEnvironment("0", "5", 8), 5);
  EXPECT_EQ(threadCountFromEnvironment("four", "x", 8), 8);
  EXPECT_EQ(threadCountFromEnvironment("-2", "", 8), 8);
  EXPECT_EQ(threadCountFromEnvironment("2.5", "3junk", 8), 8);
}

TEST(CpuThreadCount, UnsetMeansThePhysicalCores) {
  EXPECT_EQ(threadCountFromEnvironment(std::nullopt, std::nullopt, 8), 8);
  EXPECT_EQ(threadCountFromEnvironment(std::nullopt, std::nullopt, 0), 1);
  const int cores = physicalCoreCount();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(CpuThreadCount, TheOverrideWinsAndZeroReturnsToTheEnvironment) {
  ThreadCountScope restore;
  const int fromEnvironment = cpuThreadCount();
  setCpuThreadCount(3);
  EXPECT_EQ(cpuThreadCount(), 3);
  setCpuThreadCount(0);
  EXPECT_EQ(cpuThreadCount(), fromEnvironment);
}

// --- Which library computes float32 GEMMs (parallel.h's sgemm rule) ---------

TEST(CpuSgemmLibrary, OpenBlasOnAFallbackCoreGivesWayToOneDnn) {
  // Debian 12's OpenBLAS on Emerald Rapids: generic SSE3 kernels.
  EXPECT_EQ(chooseSgemmLibrary(std::nullopt, "Prescott", true),
            SgemmLibrary::OneDnn);
  EXPECT_EQ(chooseSgemmLibrary(std::nullopt, "Nehalem", true),
            SgemmLibrary::OneDnn);
  for (const char *core :
       {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    EXPECT_EQ(chooseSgemmLibrary(std::nullopt, core, true),
              SgemmLibrary::OpenBlas)
        << core;
  // A CPU without AVX2 has nothing better than the core OpenBLAS chose.
  EXPECT_EQ(chooseSgemmLibrary(std::nullopt, "Prescott", false),
            SgemmLibrary::OpenBlas);
  // Without OpenBLAS there is only oneDNN.
  EXPECT_EQ(chooseSgemmLibrary(std::nullopt, "", true), SgemmLibrary::OneDnn);
}

TEST(CpuSgemmLibrary, TheEnvironmentForcesEither) {
  EXPECT_EQ(chooseSgemmLibrary("onednn", "SkylakeX", true),
            SgemmLibrary::OneDnn);
  EXPECT_EQ(chooseSgemmLibrary("openblas", "Prescott", true),
            SgemmLibrary::OpenBlas);
  EXPECT_EQ(chooseSgemmLibrary("something", "Prescott", true),
            SgemmLibrary::OneDnn); // an unknown value: the rule decides
  // This process's choice follows the variable the test runs under (ctest
  // runs the GEMM and attention suites under both values).
  std::string why;
  const SgemmLibrary library = sgemmLibrary(&why);
  EXPECT_FALSE(why.empty());
  if (const char *forced = std::getenv("AOTI_SHIMS_CPU_SGEMM")) {
    if (std::string(forced) == "onednn")
      EXPECT_EQ(library, SgemmLibrary::OneDnn) << why;
    if (std::string(forced) == "openblas")
      EXPECT_EQ(library, SgemmLibrary::OpenBlas) << why;
  }
}

// --- GEMM --------------------------------------------------------------------

// beta * addend + alpha * (a @ b) in double, with each element's magnitude
// (sum of |terms|): a [batch, m, k], b [batch, k, n], addend already
// broadcast to [batch, m, n] or empty, all row-major.
struct Expectation {
  std::vector<double> value, magnitude;
};

Expectation referenceGemm(const std::vector<double> &a,
                          const std::vector<double> &b,
                          const std::vector<double> &addend, int64_t batch,
                          int64_t m, int64_t k, int64_t n, double beta,
                          double alpha) {
  Expectation e;
  e.value.assign(static_cast<size_t>(batch * m * n), 0.0);
  e.magnitude.assign(e.value.size(), 0.0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0, mag = 0.0;
        for (int64_t q = 0; q < k; ++q) {
          const double term = a[(p * m + i) * k + q] * b[(p * k + q) * n + j];
          sum += term;
          mag += std::fabs(term);
        }
        const size_t at = static_cast<size_t>((p * m + i) * n + j);
        e.value[at] = alpha * sum;
        e.magnitude[at] = std::fabs(alpha) * mag;
        if (!addend.empty()) {
          e.value[at] += beta * addend[at];
          e.magnitude[at] += std::fabs(beta * addend[at]);
        }
      }
  return e;
}

// Row-major `values` of `sizes` broadcast to `target` (numpy rules).
std::vector<double> broadcastValues(const std::vector<double> &values,
                                    const std::vector<int64_t> &sizes,
                                    const std::vector<int64_t> &target) {
  std::vector<int64_t> strides(target.size(), 0);
  const std::vector<int64_t> own = contiguousStridesOf(sizes);
  for (size_t i = 0; i < sizes.size(); ++i)
    strides[target.size() - sizes.size() + i] = sizes[i] == 1 ? 0 : own[i];
  std::vector<double> out(static_cast<size_t>(numelOf(target)));
  for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i)
    out[i] = values[offsetOf(i, target, strides)];
  return out;
}

// float32 accuracy: 1e-5 of each element's magnitude.
void expectGemmClose(const std::vector<double> &actual,
                     const Expectation &expected, const std::string &what) {
  ASSERT_EQ(actual.size(), expected.value.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double bound = 1e-5 * expected.magnitude[i] + 1e-30;
    if (!(std::fabs(actual[i] - expected.value[i]) <= bound) && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i]
                    << ", expected " << expected.value[i];
  }
}

struct GemmRun {
  std::vector<double> values;
  int team;
};

// One call on fresh operands: out = beta * addend + alpha * (a @ b), with a
// stored transposed (column-major), b offset in a gapped storage, and the
// addend broadcast from `addendSizes`.
GemmRun runGemm(int threads, int64_t batch, int64_t m, int64_t k, int64_t n,
                const std::vector<int64_t> &addendSizes, bool outColumnMajor,
                const Expectation **reference = nullptr) {
  setCpuThreadCount(threads);
  const Dtype type = float32Type();
  const bool batched = batch > 0;
  const int64_t bb = batched ? batch : 1;
  const std::vector<double> a = patternValues(bb * m * k, 1);
  const std::vector<double> b = patternValues(bb * k * n, 2);
  Layout aLayout, bLayout, outLayout;
  if (batched) {
    aLayout = {{batch, m, k}, {m * k, 1, m}};
    bLayout = {{batch, k, n}, {k * (n + 3), n + 3, 1}, 5};
    outLayout = {{batch, m, n}};
  } else {
    aLayout = {{m, k}, {1, m}};
    bLayout = {{k, n}, {n + 3, 1}, 5};
    outLayout = {{m, n}};
    if (outColumnMajor) // cblas is then called in column-major order
      outLayout.strides = {1, m};
  }
  TensorHandle ta = makeTensor(a, aLayout, type, 0);
  TensorHandle tb = makeTensor(b, bLayout, type, 0);
  TensorHandle out = makeTensor(
      std::vector<double>(static_cast<size_t>(bb * m * n), 0.0), outLayout,
      type, 0);
  std::vector<double> addend;
  if (addendSizes.empty()) {
    if (batched)
      EXPECT_SHIM_OK(aoti_torch_cpu_bmm_out(out.get(), ta.get(), tb.get()));
    else
      EXPECT_SHIM_OK(aoti_torch_cpu_mm_out(out.get(), ta.get(), tb.get()));
  } else {
    const std::vector<double> small = patternValues(numelOf(addendSizes), 3);
    TensorHandle add = makeTensor(small, {addendSizes}, type, 0);
    addend = broadcastValues(small, addendSizes, outLayout.sizes);
    if (batched)
      EXPECT_SHIM_OK(aoti_torch_cpu_baddbmm_out(out.get(), add.get(), ta.get(),
                                                tb.get(), 0.5, 2.0));
    else
      EXPECT_SHIM_OK(aoti_torch_cpu_addmm_out(out.get(), add.get(), ta.get(),
                                              tb.get(), 0.5, 2.0));
  }
  GemmRun run{readTensor(out, type), lastTeamSize()};
  static Expectation expected;
  expected = referenceGemm(a, b, addend, bb, m, k, n, 0.5,
                           addendSizes.empty() ? 1.0 : 2.0);
  if (reference)
    *reference = &expected;
  return run;
}

struct GemmShape {
  const char *name;
  int64_t batch, m, k, n; // batch 0: mm/addmm
  std::vector<int64_t> addend;
  bool outColumnMajor = false;
};

class CpuGemmThreads : public testing::TestWithParam<GemmShape> {};

TEST_P(CpuGemmThreads, RunOnTheCountGivenWithTheSameResults) {
  ThreadCountScope restore;
  const GemmShape &s = GetParam();
  const GemmRun one =
      runGemm(1, s.batch, s.m, s.k, s.n, s.addend, s.outColumnMajor);
  EXPECT_EQ(one.team, 1);
  for (int threads : {2, 4, 7}) {
    const Expectation *reference = nullptr;
    const GemmRun many = runGemm(threads, s.batch, s.m, s.k, s.n, s.addend,
                                 s.outColumnMajor, &reference);
    EXPECT_EQ(many.team, threads) << threads << " threads";
    expectGemmClose(many.values, *reference,
                    std::string(s.name) + " on " + std::to_string(threads));
    ASSERT_EQ(many.values.size(), one.values.size());
    size_t differing = 0;
    for (size_t i = 0; i < one.values.size(); ++i)
      differing += one.values[i] != many.values[i];
    EXPECT_EQ(differing, 0u) << s.name << ": " << threads
                             << " threads differ from 1 thread";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CpuGemmThreads,
    testing::Values(
        GemmShape{"mm_tall", 0, 300, 70, 90, {}},
        GemmShape{"mm_wide", 0, 40, 96, 500, {}},
        GemmShape{"addmm_row_bias", 0, 150, 128, 170, {170}},
        GemmShape{"addmm_column_bias", 0, 150, 128, 170, {150, 1}},
        GemmShape{"addmm_full_addend", 0, 150, 128, 170, {150, 170}},
        GemmShape{"addmm_column_major_out", 0, 150, 128, 170, {170}, true},
        GemmShape{"bmm_few", 3, 100, 64, 120, {}},
        GemmShape{"bmm_many", 9, 64, 48, 72, {}},
        GemmShape{"baddbmm_broadcast", 3, 100, 64, 120, {1, 120}}),
    [](const testing::TestParamInfo<GemmShape> &info) {
      return std::string(info.param.name);
    });

// A host that uses OpenBLAS itself may set its thread count between the
// model's calls. The tiles must still run single-threaded OpenBLAS (each
// tile on n threads of its own oversubscribes the cores: 3x slower on two),
// and the host's count must be its own again after the call.
TEST(CpuGemmThreads, AHostsOpenBlasThreadCountIsSetAsideAndKept) {
  if (sgemmLibrary() != SgemmLibrary::OpenBlas)
    GTEST_SKIP() << "float32 GEMMs run on oneDNN in this process";
  ThreadCountScope restore;
  const int before = openblas_get_num_threads();
  openblas_set_num_threads(3);
  takeMaxBlasThreadCount();
  const Expectation *reference = nullptr;
  const GemmRun run = runGemm(2, 0, 300, 70, 90, {}, false, &reference);
  EXPECT_EQ(takeMaxBlasThreadCount(), 1) << "a tile ran OpenBLAS multithreaded";
  EXPECT_EQ(openblas_get_num_threads(), 3) << "the host's count was not kept";
  expectGemmClose(run.values, *reference, "mm after the host set 3 threads");
  openblas_set_num_threads(before);
}

// The same with the host calling the model from several threads at once (a
// server): one call ending must not give the host's count back while
// another call's tiles still run.
TEST(CpuGemmThreads, ConcurrentCallsKeepOpenBlasSingleThreadedUntilTheLastEnds) {
  if (sgemmLibrary() != SgemmLibrary::OpenBlas)
    GTEST_SKIP() << "float32 GEMMs run on oneDNN in this process";
  ThreadCountScope restore;
  setCpuThreadCount(2);
  const int before = openblas_get_num_threads();
  openblas_set_num_threads(3);
  takeMaxBlasThreadCount();
  constexpr int64_t M = 384, K = 256, N = 320;
  const std::vector<double> a = patternValues(M * K, 1);
  const std::vector<double> b = patternValues(K * N, 2);
  const Expectation expected = referenceGemm(a, b, {}, 1, M, K, N, 1.0, 1.0);
  const Dtype type = float32Type();
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      TensorHandle ta = makeTensor(a, {{M, K}}, type, 0);
      TensorHandle tb = makeTensor(b, {{K, N}}, type, 0);
      TensorHandle out = makeTensor(std::vector<double>(M * N, 0.0), {{M, N}}, type, 0);
      for (int i = 0; i < 60; ++i)
        if (aoti_torch_cpu_mm_out(out.get(), ta.get(), tb.get()) != AOTI_TORCH_SUCCESS)
          ++failures;
      expectGemmClose(readTensor(out, type), expected, "concurrent mm");
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(takeMaxBlasThreadCount(), 1) << "a tile ran OpenBLAS multithreaded";
  EXPECT_EQ(openblas_get_num_threads(), 3) << "the host's count was not kept";
  openblas_set_num_threads(before);
}

// --- Attention ---------------------------------------------------------------

struct AttentionRun {
  std::vector<double> out, lse;
  int team;
};

// Grouped-query causal attention, B2 H4/2 Lq130 Lk96 E64 (12.8M
// multiply-adds), query transposed [B, L, H, E] in memory, key offset.
AttentionRun runAttention(int threads) {
  setCpuThreadCount(threads);
  const int64_t B = 2, H = 4, Hk = 2, Lq = 130, Lk = 96, E = 64;
  const Dtype type = float32Type();
  auto scaled = [](std::vector<double> v) {
    for (double &x : v)
      x /= 4.0;
    return v;
  };
  TensorHandle q = makeTensor(scaled(patternValues(B * H * Lq * E, 4)),
                              {{B, H, Lq, E}, {Lq * H * E, E, H * E, 1}},
                              type, 0);
  TensorHandle k = makeTensor(scaled(patternValues(B * Hk * Lk * E, 5)),
                              {{B, Hk, Lk, E}, {}, 7}, type, 0);
  TensorHandle v = makeTensor(scaled(patternValues(B * Hk * Lk * E, 6)),
                              {{B, Hk, Lk, E}}, type, 0);
  TensorHandle out, lse;
  EXPECT_SHIM_OK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
      q.get(), k.get(), v.get(), 0.0, /*is_causal=*/1, nullptr, nullptr,
      out.out(), lse.out()));
  return {readTensor(out, type), readTensor(lse, type), lastTeamSize()};
}

TEST(CpuAttentionThreads, RunOnTheCountGivenWithTheSameResults) {
  ThreadCountScope restore;
  const AttentionRun one = runAttention(1);
  EXPECT_EQ(one.team, 1);
  for (int threads : {2, 5}) {
    const AttentionRun many = runAttention(threads);
    EXPECT_EQ(many.team, threads);
    EXPECT_EQ(many.out, one.out) << threads << " threads";
    EXPECT_EQ(many.lse, one.lse) << threads << " threads";
  }
  // And not trivially: the outputs vary.
  EXPECT_NE(*std::min_element(one.out.begin(), one.out.end()),
            *std::max_element(one.out.begin(), one.out.end()));
}

// --- Convolution -------------------------------------------------------------

// 3x3 convolution, padding 1, stride 1, bias: N1 C16 -> O24, 20x20, input
// NCHW or channels-last (the same sizes, other strides: another cache key).
std::vector<double> runConv(int threads, bool channelsLast) {
  setCpuThreadCount(threads);
  const int64_t N = 1, C = 16, O = 24, S = 20, K = 3;
  const Dtype type = float32Type();
  Layout inLayout{{N, C, S, S}};
  if (channelsLast)
    inLayout.strides = {S * S * C, 1, S * C, C};
  TensorHandle input =
      makeTensor(patternValues(N * C * S * S, 7), inLayout, type, 0);
  TensorHandle weight =
      makeTensor(patternValues(O * C * K * K, 8), {{O, C, K, K}}, type, 0);
  TensorHandle bias = makeTensor(patternValues(O, 9), {{O}}, type, 0);
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  AtenTensorHandle biasHandle = bias.get();
  TensorHandle out;
  EXPECT_SHIM_OK(aoti_torch_cpu_convolution(input.get(), weight.get(),
                                            &biasHandle, one, 2, one, 2, one,
                                            2, 0, zero, 2, 1, out.out()));
  return readTensor(out, type);
}

std::vector<double> convReference() {
  const int64_t C = 16, O = 24, S = 20, K = 3;
  const std::vector<double> x = patternValues(C * S * S, 7);
  const std::vector<double> w = patternValues(O * C * K * K, 8);
  const std::vector<double> b = patternValues(O, 9);
  std::vector<double> y(static_cast<size_t>(O * S * S));
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < S; ++i)
      for (int64_t j = 0; j < S; ++j) {
        double sum = b[o];
        for (int64_t c = 0; c < C; ++c)
          for (int64_t di = 0; di < K; ++di)
            for (int64_t dj = 0; dj < K; ++dj) {
              const int64_t r = i + di - 1, s = j + dj - 1;
              if (r >= 0 && r < S && s >= 0 && s < S)
                sum += x[(c * S + r) * S + s] * w[((o * C + c) * K + di) * K + dj];
            }
        y[(o * S + i) * S + j] = sum;
      }
  return y;
}

TEST(CpuConvolutionThreads, OneAndManyThreadsAgreeInEveryLayout) {
  ThreadCountScope restore;
  const std::vector<double> want = convReference();
  for (bool channelsLast : {false, true}) {
    for (int threads : {1, 3, 1}) { // back to 1: a cached primitive per count
      const std::vector<double> got = runConv(threads, channelsLast);
      ASSERT_EQ(got.size(), want.size());
      int reported = 0;
      for (size_t i = 0; i < want.size(); ++i)
        if (!(std::fabs(got[i] - want[i]) <= 1e-5 * (1.0 + std::fabs(want[i]))) &&
            reported++ < 5)
          ADD_FAILURE() << (channelsLast ? "channels-last" : "NCHW") << ", "
                        << threads << " threads: element " << i << " is "
                        << got[i] << ", expected " << want[i];
    }
  }
}

} // namespace
} // namespace aoti::test
