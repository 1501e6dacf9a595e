//===- ops_vector_math_test.cpp - The CPU attention's row operations -------===//
//
// ops/cpu/vector_math.h against references computed here in double: the
// maximum of a row (NaNs skipped, -inf for an empty row) and the in-place
// exp(x - shift) with its sum. Every length from 0 to 40 and a few long
// rows, so that the AVX2 implementation's full vectors and every tail length
// (masked loads and stores) are covered, and a sentinel after each row
// proves nothing past it is written. Both implementations are checked: the
// dispatched one (AVX2 on this machine if it has it) and, where the build has
// it and the CPU runs it, the AVX2 one called directly.
//
//===----------------------------------------------------------------------===//
#include "ops/cpu/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace aoti::test {
namespace {

namespace cpu = aoti::shims::ops::cpu;

struct RowOps {
  std::string name;
  float (*maxOf)(const float *, int64_t);
  float (*expShiftedSum)(float *, int64_t, float);
};

std::vector<RowOps> implementations() {
  std::vector<RowOps> ops{{"dispatched", cpu::maxOf, cpu::expShiftedSum}};
#ifdef AOTI_TEST_HAVE_SLEEF_AVX2
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    ops.push_back({"avx2", cpu::avx2::maxOf, cpu::avx2::expShiftedSum});
#endif
  return ops;
}

std::vector<int64_t> lengths() {
  std::vector<int64_t> n;
  for (int64_t i = 0; i <= 40; ++i)
    n.push_back(i);
  for (int64_t i : {127, 128, 129, 197, 1500})
    n.push_back(i);
  return n;
}

constexpr float kSentinel = 12345.0f;
const float kInf = std::numeric_limits<float>::infinity();

// Scores as attention makes them: a spread of magnitudes, some masked keys.
std::vector<float> row(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-30.0f, 12.0f);
  std::vector<float> x(static_cast<size_t>(n) + 1, kSentinel);
  for (int64_t j = 0; j < n; ++j)
    x[j] = (rng() % 7 == 0) ? -kInf : value(rng);
  return x;
}

TEST(CpuVectorMath, MaxOfEveryLength) {
  for (const RowOps &ops : implementations()) {
    for (int64_t n : lengths()) {
      std::vector<float> x = row(n, static_cast<uint32_t>(n));
      double want = -INFINITY;
      for (int64_t j = 0; j < n; ++j)
        want = std::fmax(want, static_cast<double>(x[j]));
      EXPECT_EQ(ops.maxOf(x.data(), n), static_cast<float>(want))
          << ops.name << ", n = " << n;
      // The largest element in the tail, and at the front.
      if (n > 0) {
        x[n - 1] = 100.0f;
        EXPECT_EQ(ops.maxOf(x.data(), n), 100.0f) << ops.name << ", n = " << n;
        x[0] = 200.0f;
        EXPECT_EQ(ops.maxOf(x.data(), n), 200.0f) << ops.name << ", n = " << n;
      }
    }
  }
}

TEST(CpuVectorMath, MaxOfSkipsNaNsLikeTheScalarLoop) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const RowOps &ops : implementations()) {
    for (int64_t n : {1, 3, 8, 9, 17}) {
      std::vector<float> x(static_cast<size_t>(n), nan);
      EXPECT_EQ(ops.maxOf(x.data(), n), -kInf) << ops.name << ", all NaN, n = " << n;
      x[static_cast<size_t>(n) / 2] = -2.5f;
      EXPECT_EQ(ops.maxOf(x.data(), n), -2.5f) << ops.name << ", n = " << n;
    }
  }
}

TEST(CpuVectorMath, ExpShiftedSumMatchesDoubleWithinAFewUlps) {
  for (const RowOps &ops : implementations()) {
    for (int64_t n : lengths()) {
      const std::vector<float> in = row(n, 1000 + static_cast<uint32_t>(n));
      std::vector<float> x = in;
      const float shift = 3.25f;
      const float sum = ops.expShiftedSum(x.data(), n, shift);
      double want = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        const double e = std::exp(static_cast<double>(in[j]) - shift);
        want += e;
        if (in[j] == -kInf) {
          EXPECT_EQ(x[j], 0.0f) << ops.name << ", n = " << n << ", j = " << j;
          continue;
        }
        // SLEEF's u10 and glibc's expf are within 1 ULP of exp(x - shift)
        // for the float x - shift; that subtraction rounds too (up to
        // |x - shift| * 2^-24 relative after exp), hence the slack.
        const double tol = 4e-7 * e * (1.0 + std::fabs(in[j] - shift));
        EXPECT_NEAR(x[j], e, tol) << ops.name << ", n = " << n << ", j = " << j;
      }
      EXPECT_NEAR(sum, want, 2e-6 * want + 1e-30) << ops.name << ", n = " << n;
      EXPECT_EQ(x[static_cast<size_t>(n)], kSentinel)
          << ops.name << " wrote past the row, n = " << n;
    }
  }
}

TEST(CpuVectorMath, ExpShiftedSumPropagatesNaN) {
  for (const RowOps &ops : implementations()) {
    std::vector<float> x(11, 0.5f);
    x[9] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isnan(ops.expShiftedSum(x.data(), 11, 0.0f))) << ops.name;
    EXPECT_TRUE(std::isnan(x[9])) << ops.name;
    EXPECT_FLOAT_EQ(x[0], std::exp(0.5f)) << ops.name;
  }
}

TEST(CpuVectorMath, ReportsWhichImplementationRuns) {
  const std::string isa = cpu::vectorMathIsa();
  EXPECT_TRUE(isa == "avx2" || isa == "scalar") << isa;
#ifndef AOTI_TEST_HAVE_SLEEF_AVX2
  EXPECT_EQ(isa, "scalar");
#endif
}

} // namespace
} // namespace aoti::test
