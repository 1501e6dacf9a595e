//===- cpu/vector_math_avx2.cpp - AVX2 rows, SLEEF's exp -------------------===//
//
// Built with -mavx2 -mfma and called only after the CPU said it has both
// (vector_math.cpp). 8 floats at a time, the tail through a masked load and
// store, so every element goes through the same instructions. No C++ header
// is included: an inline function instantiated here would carry AVX2 code
// under a name the linker may also pick for callers on CPUs without it.
//
//===----------------------------------------------------------------------===//
#include "ops/cpu/vector_math.h"

#include <immintrin.h>
#include <sleef.h>

namespace aoti::shims::ops::cpu::avx2 {
namespace {

// Lanes [0, n) of 8 set, for the tail (n < 8).
__m256i tailMask(int64_t n) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lanes);
}

float horizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}

float horizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

} // namespace

float maxOf(const float *x, int64_t n) {
  const __m256 negInf = _mm256_set1_ps(-__builtin_inff());
  __m256 acc = negInf;
  int64_t j = 0;
  // max_ps(a, b) returns b when either is NaN: the element first, so a NaN
  // element leaves the accumulator as it was.
  for (; j + 8 <= n; j += 8)
    acc = _mm256_max_ps(_mm256_loadu_ps(x + j), acc);
  if (j < n) {
    const __m256i m = tailMask(n - j);
    const __m256 v = _mm256_blendv_ps(negInf, _mm256_maskload_ps(x + j, m),
                                      _mm256_castsi256_ps(m));
    acc = _mm256_max_ps(v, acc);
  }
  return horizontalMax(acc);
}

float expShiftedSum(float *x, int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 sum = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 e = Sleef_expf8_u10(_mm256_sub_ps(_mm256_loadu_ps(x + j), s));
    _mm256_storeu_ps(x + j, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (j < n) {
    const __m256i m = tailMask(n - j);
    // Lanes past the row are exp(-inf) = 0: they add nothing to the sum.
    const __m256 v = _mm256_blendv_ps(_mm256_set1_ps(-__builtin_inff()),
                                      _mm256_maskload_ps(x + j, m),
                                      _mm256_castsi256_ps(m));
    const __m256 e = Sleef_expf8_u10(_mm256_sub_ps(v, s));
    _mm256_maskstore_ps(x + j, m, e);
    sum = _mm256_add_ps(sum, e);
  }
  return horizontalSum(sum);
}

} // namespace aoti::shims::ops::cpu::avx2
