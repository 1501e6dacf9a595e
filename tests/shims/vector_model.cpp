//===- vector_model.cpp - A CPU model compiled with SIMD, in miniature -----===//
//
// Inductor's vectorized CPU kernels compute exp, tanh, log ... through
// at::vec, which calls SLEEF: a LibTorch-free model .so is left with
// undefined references such as Sleef_expf8_u10 (AVX2, 8 floats), bound by
// name to the host when it is loaded, as its aoti_torch_* references are.
// This plugin has that one reference and computes with it the way such a
// kernel does, for vector_model_host.cpp to load. Built as a MODULE library,
// so the reference stays undefined (no -z defs).
//
//===----------------------------------------------------------------------===//
#include <immintrin.h>

#include <cmath>

extern "C" __m256 Sleef_expf8_u10(__m256);

// The largest error of Sleef_expf8_u10 against std::exp over [-20, 20), in
// units of float's relative spacing (2^-23); the caller runs it only where the
// CPU has AVX2 and FMA.
extern "C" __attribute__((visibility("default"), target("avx2,fma"))) double
aoti_test_vector_exp_error() {
  double worst = 0;
  for (int i = 0; i < 4000; i += 8) {
    alignas(32) float in[8], out[8];
    for (int j = 0; j < 8; ++j)
      in[j] = -20.0f + 0.01f * static_cast<float>(i + j);
    _mm256_store_ps(out, Sleef_expf8_u10(_mm256_load_ps(in)));
    for (int j = 0; j < 8; ++j) {
      const double want = std::exp(static_cast<double>(in[j]));
      worst = std::fmax(worst, std::fabs(out[j] - want) / want * 0x1p23);
    }
  }
  return worst;
}
