//===- cpu/vector_math.h - Vectorized row operations for the CPU ops -------===//
//
// The per-row arithmetic of the CPU attention's softmax, on SIMD where the
// CPU and the build allow it:
//   maxOf(x, n)               the largest of x[0..n) (NaNs skipped, as a
//                             scalar std::max(acc, x) loop skips them);
//                             -inf for n == 0
//   expShiftedSum(x, n, s)    x[j] = exp(x[j] - s) in place; returns their sum
// Two implementations, chosen once per process by what the CPU reports:
//   - AVX2 + FMA, with SLEEF's Sleef_expf8_u10 (1.0 ULP) for the exponential:
//     when the build has SLEEF (AOTI_SHIMS_HAVE_SLEEF_AVX2, the library the
//     shims link anyway for vectorized models) and the CPU has both; in
//     vector_math_avx2.cpp, the only file built with -mavx2 -mfma, which
//     includes no C++ header so that no inline function compiled for AVX2
//     can be picked by the linker for callers on other CPUs;
//   - scalar: std::exp (glibc's, < 1 ULP) and plain loops, everywhere else.
// Sums are accumulated in float in both; the vector one adds 8 partial sums
// at the end, so the two can differ in the last bits of a long row's sum.
// AOTI_SHIMS_CPU_VECTOR=scalar forces the scalar one (tests run both).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CPU_VECTOR_MATH_H
#define AOTI_SHIMS_OPS_CPU_VECTOR_MATH_H

#include <cstdint>

namespace aoti::shims::ops::cpu {

float maxOf(const float *x, int64_t n);
float expShiftedSum(float *x, int64_t n, float shift);

/// "avx2" or "scalar": which implementation this process uses.
const char *vectorMathIsa();

namespace avx2 {
// vector_math_avx2.cpp; call only when the CPU has AVX2 and FMA.
float maxOf(const float *x, int64_t n);
float expShiftedSum(float *x, int64_t n, float shift);
} // namespace avx2

} // namespace aoti::shims::ops::cpu

#endif // AOTI_SHIMS_OPS_CPU_VECTOR_MATH_H
