//===- ops/random_reference.h - The random tests' generator and stats ---===//
//
// What ops/random_test.cpp checks the random family against, written here
// independently of the library: Philox4x32-10 from the paper's round
// function (Salmon et al., SC'11; the tests check it against Random123's
// known-answer vectors), the mapping from counters to values that
// docs/ops/random.md documents, and the statistics (moments within 5
// standard errors, Kolmogorov-Smirnov, chi-square) the distributions must
// pass.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_RANDOM_REFERENCE_H
#define AOTI_TESTS_SHIMS_OPS_RANDOM_REFERENCE_H

#include "ops/devices.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace aoti::test::random_reference {

inline constexpr uint64_t kSeed = 20260101;
inline constexpr int64_t kSamples = int64_t{1} << 18;

// --- The reference generator -------------------------------------------------

using Words = std::array<uint32_t, 4>;

inline Words philox(Words ctr, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * ctr[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0],
           static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1],
           static_cast<uint32_t>(p0)};
  }
  return ctr;
}

// Counter n of the generator under `seed`.
inline Words block(uint64_t n, uint64_t seed = kSeed) {
  return philox(
      {static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0, 0},
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}
inline uint64_t low64(const Words &w) { return (uint64_t{w[1]} << 32) | w[0]; }
inline uint64_t high64(const Words &w) { return (uint64_t{w[3]} << 32) | w[2]; }
inline double uniformOf(const Words &w, int digits) {
  return digits == 53
             ? std::ldexp(static_cast<double>(low64(w) >> 11), -53)
             : std::ldexp(static_cast<double>(w[0] >> (32 - digits)), -digits);
}
inline double normalOf(const Words &w) {
  const double u1 = std::ldexp(static_cast<double>(low64(w) >> 12) + 0.5, -52);
  const double u2 = std::ldexp(static_cast<double>(high64(w) >> 11), -53);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2);
}
inline double exponentialOf(const Words &w, double lambda, double halfEps) {
  const double u = std::ldexp(static_cast<double>(low64(w) >> 12) + 0.5, -52);
  return -std::min(std::log(u), -halfEps) / lambda;
}
inline int64_t integerOf(const Words &w, int64_t low, uint64_t range) {
  __extension__ using U128 = unsigned __int128;
  const U128 x = (U128{high64(w)} << 64) | low64(w);
  // floor(x * range / 2^128) from the two 64-bit halves of range * x.
  const U128 lo = (x & ~uint64_t{0}) * range, hi = (x >> 64) * range;
  const uint64_t v = static_cast<uint64_t>((hi + (lo >> 64)) >> 64);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + v);
}

inline int digitsOf(const Dtype &t) {
  return t.code == aoti_torch_dtype_float16()    ? 11
         : t.code == aoti_torch_dtype_bfloat16() ? 8
         : t.code == aoti_torch_dtype_float32()  ? 24
                                                 : 53;
}
// A relative tolerance of about one rounding of the dtype.
inline double ulpOf(const Dtype &t) {
  return t.code == aoti_torch_dtype_float64()
             ? 1e-13
             : std::ldexp(1.0, 1 - digitsOf(t));
}

inline std::vector<Dtype> floatTypes() {
  return {float32Type(), float64Type(), float16Type(), bfloat16Type()};
}

// --- Reading results and statistics
// -------------------------------------------

template <typename T>
std::vector<T> readRaw(const TensorHandle &t, int32_t dtype) {
  const std::vector<int64_t> sizes = sizesOf(t);
  std::vector<T> host(
      static_cast<size_t>(std::max<int64_t>(numelOf(sizes), 1)));
  const std::vector<int64_t> strides = contiguousStridesOf(sizes);
  static const int64_t kNoDims[1] = {0};
  TensorHandle view;
  EXPECT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), static_cast<int64_t>(sizes.size()),
      sizes.empty() ? kNoDims : sizes.data(),
      strides.empty() ? kNoDims : strides.data(), 0, dtype,
      aoti_torch_device_type_cpu(), 0, view.out()));
  EXPECT_SHIM_OK(aoti_torch_copy_(view.get(), t.get(), 0));
  host.resize(static_cast<size_t>(numelOf(sizes)));
  return host;
}

inline int32_t dtypeCodeOf(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

// An integer-valued tensor's elements, read in its own dtype (the floating
// ones through double, exact for the integers the tests draw).
inline std::vector<int64_t> integersOf(const TensorHandle &t, int32_t code) {
  auto widen = [](const auto &values) {
    return std::vector<int64_t>(values.begin(), values.end());
  };
  if (code == aoti_torch_dtype_int64())
    return readRaw<int64_t>(t, code);
  if (code == aoti_torch_dtype_uint64())
    return widen(readRaw<uint64_t>(t, code));
  if (code == aoti_torch_dtype_uint32())
    return widen(readRaw<uint32_t>(t, code));
  if (code == aoti_torch_dtype_uint16())
    return widen(readRaw<uint16_t>(t, code));
  if (code == aoti_torch_dtype_int32())
    return widen(readRaw<int32_t>(t, code));
  for (const Dtype &type :
       {boolType(), uint8Type(), int8Type(), int16Type(), float16Type(),
        bfloat16Type(), float32Type(), float64Type()})
    if (type.code == code)
      return widen(readTensor(t, type));
  ADD_FAILURE() << "no reader for dtype " << code;
  return {};
}

// Mean and variance within 5 standard errors; `mu4` is the distribution's
// central fourth moment (the sample variance's variance is (mu4 - var^2)/n).
inline void expectMoments(const std::vector<double> &x, double mean, double var,
                          double mu4, const std::string &what) {
  const double n = static_cast<double>(x.size());
  const double m = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double s = 0;
  for (double v : x)
    s += (v - m) * (v - m);
  s /= n - 1;
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n)) << what << ": mean";
  EXPECT_NEAR(s, var, 5 * std::sqrt((mu4 - var * var) / n))
      << what << ": variance";
}

// Kolmogorov-Smirnov: sqrt(n) * sup |F_n - F| < 2.7.
inline void expectDistribution(std::vector<double> x,
                               const std::function<double(double)> &cdf,
                               const std::string &what) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, (static_cast<double>(i) + 1) / n - f,
                  f - static_cast<double>(i) / n});
  }
  EXPECT_LT(std::sqrt(n) * d, 2.7) << what << ": KS statistic " << d;
}

inline void expectChiSquare(const std::vector<int64_t> &counts, double expected,
                            const std::string &what) {
  double chi2 = 0;
  for (int64_t c : counts)
    chi2 += (c - expected) * (c - expected) / expected;
  const double df = static_cast<double>(counts.size()) - 1;
  EXPECT_LT(chi2, df + 6 * std::sqrt(2 * df)) << what;
}

} // namespace aoti::test::random_reference

#endif // AOTI_TESTS_SHIMS_OPS_RANDOM_REFERENCE_H
