//===- ops/cpu/float16.h - float16/bfloat16 <-> float on the host ----------===//
//
// The CPU op fallbacks compute half-precision tensors in float32 (as torch's
// CPU kernels accumulate them), converting on the way in and out. Written
// out by hand on the bits (the compiler's _Float16 is missing from GCC < 12
// and from some targets):
//  - float16 is IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa
//    bits. Widening is exact. Narrowing rounds to nearest even; values from
//    65520 up become infinity, values below 2^-14 become subnormals (units
//    of 2^-24), and NaN stays a quiet NaN.
//  - bfloat16 is the upper half of a float32: widening shifts it back,
//    narrowing rounds to nearest even and keeps NaN a (quiet) NaN.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CPU_FLOAT16_H
#define AOTI_SHIMS_OPS_CPU_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace aoti::shims::ops::cpu {

inline float float16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  uint32_t wide;
  if (exponent == 0x1f) { // infinity or NaN
    wide = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) { // normal: rebias 15 -> 127
    wide = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else { // zero or subnormal: mantissa units of 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    std::memcpy(&wide, &magnitude, sizeof wide);
    wide |= sign;
  }
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

inline uint16_t floatToFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: keep the top payload bits, quiet
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) // >= 65520, halfway past 65504: infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  // Round the dropped bits to nearest, ties to even.
  auto roundShift = [](uint32_t mantissa, uint32_t shift) {
    uint32_t kept = mantissa >> shift;
    const uint32_t dropped = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (dropped > half || (dropped == half && (kept & 1u)))
      ++kept; // may carry into the exponent, which is then right
    return kept;
  };
  if (magnitude >= 0x38800000u) { // normal in float16 (>= 2^-14)
    const uint32_t rebased = magnitude - (112u << 23); // bias 127 -> 15
    return static_cast<uint16_t>(sign | roundShift(rebased, 13));
  }
  if (magnitude <= 0x33000000u) // <= 2^-25: rounds to zero
    return sign;
  // Subnormal: value / 2^-24 rounded, from the full 24-bit mantissa.
  const uint32_t exponent = magnitude >> 23;
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  return static_cast<uint16_t>(sign | roundShift(mantissa, 126 - exponent));
}

inline float bfloat16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

inline uint16_t floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, make it quiet
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round to nearest even: add half an ulp of the result, plus one when the
  // kept part is odd (so an exact tie rounds to the even neighbour).
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

} // namespace aoti::shims::ops::cpu

#endif // AOTI_SHIMS_OPS_CPU_FLOAT16_H
