//===- cpu/vector_math.cpp - Choosing the row operations' implementation ---===//
//
// The scalar implementation, and the choice between it and the AVX2 one
// (vector_math.h): made once, on first use, from __builtin_cpu_supports and
// AOTI_SHIMS_CPU_VECTOR.
//
//===----------------------------------------------------------------------===//
#include "ops/cpu/vector_math.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace aoti::shims::ops::cpu {
namespace {

float maxOfScalar(const float *x, int64_t n) {
  float acc = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j)
    acc = x[j] > acc ? x[j] : acc; // a NaN compares false: skipped
  return acc;
}

float expShiftedSumScalar(float *x, int64_t n, float shift) {
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    x[j] = std::exp(x[j] - shift);
    sum += x[j];
  }
  return sum;
}

bool useAvx2() {
#if defined(AOTI_SHIMS_HAVE_SLEEF_AVX2)
  static const bool use = [] {
    const char *forced = std::getenv("AOTI_SHIMS_CPU_VECTOR");
    if (forced && std::strcmp(forced, "scalar") == 0)
      return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return use;
#else
  return false;
#endif
}

} // namespace

float maxOf(const float *x, int64_t n) {
#if defined(AOTI_SHIMS_HAVE_SLEEF_AVX2)
  if (useAvx2())
    return avx2::maxOf(x, n);
#endif
  return maxOfScalar(x, n);
}

float expShiftedSum(float *x, int64_t n, float shift) {
#if defined(AOTI_SHIMS_HAVE_SLEEF_AVX2)
  if (useAvx2())
    return avx2::expShiftedSum(x, n, shift);
#endif
  return expShiftedSumScalar(x, n, shift);
}

const char *vectorMathIsa() { return useAvx2() ? "avx2" : "scalar"; }

} // namespace aoti::shims::ops::cpu
