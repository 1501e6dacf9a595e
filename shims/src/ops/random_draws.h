//===- ops/random_draws.h - Counters to random values, on both devices ----===//
//
// Every random fallback turns counters into values here, in one definition
// that ops/cpu/random.cpp and ops/cuda/random.cu both compile, so that a
// seed gives the same numbers on the CPU and on CUDA (docs/ops/random.md).
//
// The generator is Philox4x32-10 (Salmon et al., "Parallel random numbers:
// as easy as 1, 2, 3", SC'11) from Random123, D. E. Shaw Research's
// header-only library (Debian: librandom123-dev), which compiles for the
// host and for CUDA devices alike. Philox is counter-based: block(key,
// counter) is a bijection of the 128-bit counter under a 64-bit key, so
// element i of a call can compute its own block from (seed, offset + i),
// with no state shared between threads, and the values do not depend on
// how the work is split.
//
// Element i of a call draws exactly one block, Philox(key = seed, counter =
// {lo32(n), hi32(n), 0, 0}) with n = offset + i (mod 2^64): four 32-bit
// words w0..w3. From them (b64 = w1:w0, the 64-bit word whose low half is
// w0; b64' = w3:w2):
//   uniform, d digits   (w0 >> (32 - d)) * 2^-d  for d = 8, 11, 24 (bfloat16,
//                       float16, float32), (b64 >> 11) * 2^-53 for float64:
//                       [0, 1), every value exact in the dtype
//   open unit           ((b64 >> 12) + 0.5) * 2^-52: (0, 1), exact
//   normal              Box-Muller, cosine branch: sqrt(-2 log u1) *
//                       cos(2 pi u2), u1 the open unit, u2 = (b64' >> 11) *
//                       2^-53; |z| <= 8.57
//   exponential         -L / lambda, L = log(open unit), raised to -eps/2 of
//                       the dtype when above it (as torch does, so that no
//                       value is 0 once rounded)
//   integer in [0, r)   floor(x * r / 2^128), x = w3:w2:w1:w0: multiply-shift
//                       on 128 bits; each value has floor(2^128 / r) or one
//                       more preimage, a relative bias below r / 2^128 <=
//                       2^-64
//   bernoulli(p)        the float64 uniform < p
// Transcendentals are computed in double; sqrt is exact on both devices,
// log and cos are within an ulp or two of each other (glibc, CUDA's
// libdevice), so float64 normal and exponential values may differ in their
// last bits between devices and narrower dtypes (rounded from double)
// practically never. Sums are explicit fma() calls: a compiler may not
// contract them differently on the two devices.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_RANDOM_DRAWS_H
#define AOTI_SHIMS_OPS_RANDOM_DRAWS_H

#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

// Random123's own convention: a function is a device function in the CUDA
// device pass and a host function otherwise, so the same header serves the
// kernels of ops/cuda/random.cu and the loops of ops/cpu/random.cpp.
#ifdef __CUDA_ARCH__
#define AOTI_RANDOM_FN __device__ inline
#else
#define AOTI_RANDOM_FN inline
#endif

namespace aoti::shims::ops::random {

/// The most dimensions a random op's element walk has, once dimensions of
/// size 1 are dropped and contiguous runs merged (ElementWalk).
constexpr int32_t kMaxWalkDims = 16;

/// The logical elements of N tensors of the same sizes, in row-major order:
/// element i is at offset sum(coord_d(i) * strides[t][d]) in tensor t.
/// Tensor 0 is the one a fill writes.
template <int N> struct ElementWalk {
  int32_t dims = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxWalkDims] = {};
  int64_t strides[N][kMaxWalkDims] = {};
};

/// Element `index`'s offsets in each tensor of `walk`. Returns false when
/// tensor 0 has a stride-0 dimension on which the element's coordinate is
/// not 0: another element (coordinate 0 there) owns that memory and is the
/// one that writes it, so that a broadcast result is written once.
template <int N>
AOTI_RANDOM_FN bool locate(const ElementWalk<N> &walk, int64_t index,
                           int64_t (&offsets)[N]) {
  bool owner = true;
  for (int t = 0; t < N; ++t)
    offsets[t] = 0;
  for (int32_t d = walk.dims - 1; d >= 0; --d) {
    const int64_t coord = index % walk.sizes[d];
    index /= walk.sizes[d];
    if (coord != 0 && walk.strides[0][d] == 0)
      owner = false;
    for (int t = 0; t < N; ++t)
      offsets[t] += coord * walk.strides[t][d];
  }
  return owner;
}

/// A call's generator state: the key, and the counter of its element 0.
struct Draws {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

/// The four words of the block element `index` of a call draws.
struct Block {
  uint32_t w[4];
};

AOTI_RANDOM_FN Block blockOf(const Draws &draws, uint64_t index) {
  const uint64_t n = draws.offset + index;
  r123::Philox4x32 philox;
  const r123::Philox4x32::ctr_type counter = {
      {static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0u, 0u}};
  const r123::Philox4x32::key_type key = {
      {static_cast<uint32_t>(draws.seed),
       static_cast<uint32_t>(draws.seed >> 32)}};
  const r123::Philox4x32::ctr_type r = philox(counter, key);
  return Block{{r.v[0], r.v[1], r.v[2], r.v[3]}};
}

AOTI_RANDOM_FN uint64_t low64(const Block &b) {
  return (static_cast<uint64_t>(b.w[1]) << 32) | b.w[0];
}
AOTI_RANDOM_FN uint64_t high64(const Block &b) {
  return (static_cast<uint64_t>(b.w[3]) << 32) | b.w[2];
}

/// A uniform value in [0, 1) with `Digits` random bits (the significand of
/// the dtype it is for, so that it is exact there): 8, 11, 24 or 53.
template <int Digits> AOTI_RANDOM_FN double unitInterval(const Block &b) {
  static_assert(Digits == 8 || Digits == 11 || Digits == 24 || Digits == 53);
  if constexpr (Digits == 53)
    return static_cast<double>(low64(b) >> 11) * 0x1.0p-53;
  else
    return static_cast<double>(b.w[0] >> (32 - Digits)) *
           (1.0 / static_cast<double>(uint64_t{1} << Digits));
}

/// A uniform value in (0, 1): never 0, so its log is finite.
AOTI_RANDOM_FN double openUnitInterval(const Block &b) {
  return (static_cast<double>(low64(b) >> 12) + 0.5) * 0x1.0p-52;
}

/// A standard normal value (Box-Muller, one of its two outputs).
AOTI_RANDOM_FN double standardNormal(const Block &b) {
  const double radius = sqrt(-2.0 * log(openUnitInterval(b)));
  const double angle =
      6.283185307179586 * (static_cast<double>(high64(b) >> 11) * 0x1.0p-53);
  return radius * cos(angle);
}

/// An exponential value of rate `lambda`; `halfEpsilon` is half the
/// epsilon of the dtype it is for (its smallest log is -halfEpsilon).
AOTI_RANDOM_FN double exponential(const Block &b, double lambda,
                                  double halfEpsilon) {
  double logU = log(openUnitInterval(b));
  if (logU > -halfEpsilon)
    logU = -halfEpsilon;
  return -logU / lambda;
}

/// The high 64 bits of a * b.
AOTI_RANDOM_FN uint64_t mulHigh64(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  const uint64_t aLo = a & 0xffffffffu, aHi = a >> 32;
  const uint64_t bLo = b & 0xffffffffu, bHi = b >> 32;
  const uint64_t lolo = aLo * bLo, lohi = aLo * bHi, hilo = aHi * bLo;
  const uint64_t middle = (lolo >> 32) + (lohi & 0xffffffffu) + hilo;
  return aHi * bHi + (lohi >> 32) + (middle >> 32);
#endif
}

/// floor(x * range / 2^128) for the block's 128 bits x: uniform in
/// [0, range) up to a relative bias below range / 2^128.
AOTI_RANDOM_FN uint64_t belowRange(const Block &b, uint64_t range) {
  const uint64_t hi = high64(b), lo = low64(b);
  // x * range = hi * range * 2^64 + lo * range; the answer is the bits from
  // 128 up: (hi * range + high64(lo * range)) >> 64.
  const uint64_t productLow = hi * range;
  const uint64_t productHigh = mulHigh64(hi, range);
  const uint64_t carryIn = mulHigh64(lo, range);
  const uint64_t sum = productLow + carryIn;
  return productHigh + (sum < productLow ? 1 : 0);
}

/// Value of an integer draw in [low, low + range), as int64 (wrapping: the
/// range may span all of int64).
AOTI_RANDOM_FN int64_t integerInRange(const Block &b, int64_t low,
                                      uint64_t range) {
  return static_cast<int64_t>(static_cast<uint64_t>(low) +
                              belowRange(b, range));
}

/// 1 with probability p (p outside [0, 1] saturates; NaN gives 0).
AOTI_RANDOM_FN bool bernoulli(const Block &b, double p) {
  return unitInterval<53>(b) < p;
}

/// The sort key of randperm's element: its 64 low bits.
AOTI_RANDOM_FN uint64_t permutationKey(const Block &b) { return low64(b); }

} // namespace aoti::shims::ops::random

#endif // AOTI_SHIMS_OPS_RANDOM_DRAWS_H
