//===- ops/cpu/float16.h - float16/bfloat16 <-> float on the host ----------===//
//
// The CPU op fallbacks compute half-precision tensors in float32 (as torch's
// CPU kernels accumulate them), converting on the way in and out:
//  - float16 through the compiler's _Float16 (IEEE binary16; the conversion
//    from float rounds to nearest even, in hardware or software);
//  - bfloat16 is the upper half of a float32: widening shifts it back,
//    narrowing rounds to nearest even and keeps NaN a (quiet) NaN.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CPU_FLOAT16_H
#define AOTI_SHIMS_OPS_CPU_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace aoti::shims::cpu {

inline float float16ToFloat(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof bits);
  return static_cast<float>(h);
}

inline uint16_t floatToFloat16(float value) {
  const _Float16 h = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
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

} // namespace aoti::shims::cpu

#endif // AOTI_SHIMS_OPS_CPU_FLOAT16_H
