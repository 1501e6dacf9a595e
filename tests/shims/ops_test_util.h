//===- ops_test_util.h - Tensors with known values for the op tests --------===//
//
// The op fallback tests (ops/*_test.cpp, ops_gemm_test, cuda_gemm_test)
// build their inputs and read their outputs only through the public C ABI:
// a tensor is a view (any sizes, strides, storage offset) of a fresh
// storage, filled from a host tensor of the same layout with
// aoti_torch_copy_, so the same helpers serve CPU and CUDA tensors. Values
// travel as double, converted to and from each dtype here, independently
// of the library's own conversions (float16 through frexp/ldexp with
// rounding to nearest even; bfloat16 by bit truncation: the tests only store
// values that bfloat16 holds exactly).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_TEST_UTIL_H
#define AOTI_TESTS_SHIMS_OPS_TEST_UTIL_H

#include "shims_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace aoti::test {

// IEEE binary16 from and to double, by value rather than by bits (the
// library works on bits; this is the independent check).
inline uint16_t float16FromDouble(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return 0x7e00;
  if (std::isinf(value))
    return static_cast<uint16_t>(sign | 0x7c00);
  const double magnitude = std::fabs(value);
  // Below 2^-14 (subnormals and zero): a whole number of 2^-24 (nearbyint
  // rounds to nearest even in the default rounding mode). 1024 of them,
  // reached by rounding up, is 2^-14, whose bits are exactly 1024 too.
  if (magnitude < std::ldexp(1.0, -14))
    return static_cast<uint16_t>(
        sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24))));
  int exponent = 0;
  const double fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  double mantissa = std::nearbyint(fraction * 2048); // 1024..2048
  if (mantissa == 2048) {
    mantissa = 1024;
    ++exponent;
  }
  const int biased = exponent - 1 + 15;
  if (biased >= 31)
    return static_cast<uint16_t>(sign | 0x7c00); // overflow: infinity
  return static_cast<uint16_t>(sign | (biased << 10) |
                               (static_cast<int>(mantissa) - 1024));
}

inline double float16ToDouble(uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::nan("") : sign * HUGE_VAL;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

struct Dtype {
  int32_t code;
  size_t size;
  const char *name;
};

inline Dtype float32Type() { return {aoti_torch_dtype_float32(), 4, "float32"}; }
inline Dtype float64Type() { return {aoti_torch_dtype_float64(), 8, "float64"}; }
inline Dtype float16Type() { return {aoti_torch_dtype_float16(), 2, "float16"}; }
inline Dtype bfloat16Type() { return {aoti_torch_dtype_bfloat16(), 2, "bfloat16"}; }
inline Dtype int64Type() { return {aoti_torch_dtype_int64(), 8, "int64"}; }
inline Dtype int32Type() { return {aoti_torch_dtype_int32(), 4, "int32"}; }
inline Dtype int16Type() { return {aoti_torch_dtype_int16(), 2, "int16"}; }
inline Dtype int8Type() { return {aoti_torch_dtype_int8(), 1, "int8"}; }
inline Dtype uint8Type() { return {aoti_torch_dtype_uint8(), 1, "uint8"}; }
inline Dtype boolType() { return {aoti_torch_dtype_bool(), 1, "bool"}; }
inline Dtype uint16Type() { return {aoti_torch_dtype_uint16(), 2, "uint16"}; }
inline Dtype uint32Type() { return {aoti_torch_dtype_uint32(), 4, "uint32"}; }
inline Dtype uint64Type() { return {aoti_torch_dtype_uint64(), 8, "uint64"}; }

inline void encodeValue(const Dtype &type, double value, void *out) {
  const int32_t c = type.code;
  const bool isFloat = c == aoti_torch_dtype_float32() ||
                       c == aoti_torch_dtype_float64() ||
                       c == aoti_torch_dtype_float16() ||
                       c == aoti_torch_dtype_bfloat16();
  if (!isFloat && std::isnan(value))
    value = 0.0; // the "untouched" fill of integer tensors
  if (c == aoti_torch_dtype_float32()) {
    const float v = static_cast<float>(value);
    std::memcpy(out, &v, 4);
  } else if (c == aoti_torch_dtype_float64()) {
    std::memcpy(out, &value, 8);
  } else if (c == aoti_torch_dtype_float16()) {
    const uint16_t v = float16FromDouble(value);
    std::memcpy(out, &v, 2);
  } else if (c == aoti_torch_dtype_bfloat16()) {
    const float v = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const uint16_t half = static_cast<uint16_t>(bits >> 16);
    std::memcpy(out, &half, 2);
  } else if (c == aoti_torch_dtype_int64()) {
    const int64_t v = static_cast<int64_t>(value);
    std::memcpy(out, &v, 8);
  } else if (c == aoti_torch_dtype_int32()) {
    const int32_t v = static_cast<int32_t>(value);
    std::memcpy(out, &v, 4);
  } else if (c == aoti_torch_dtype_int16()) {
    const int16_t v = static_cast<int16_t>(value);
    std::memcpy(out, &v, 2);
  } else if (c == aoti_torch_dtype_int8()) {
    const int8_t v = static_cast<int8_t>(value);
    std::memcpy(out, &v, 1);
  } else if (c == aoti_torch_dtype_uint8()) {
    const uint8_t v = static_cast<uint8_t>(value);
    std::memcpy(out, &v, 1);
  } else if (c == aoti_torch_dtype_bool()) {
    const bool v = value != 0.0;
    std::memcpy(out, &v, 1);
  } else if (c == aoti_torch_dtype_uint16()) {
    const uint16_t v = static_cast<uint16_t>(value);
    std::memcpy(out, &v, 2);
  } else if (c == aoti_torch_dtype_uint32()) {
    const uint32_t v = static_cast<uint32_t>(value);
    std::memcpy(out, &v, 4);
  } else if (c == aoti_torch_dtype_uint64()) {
    const uint64_t v = static_cast<uint64_t>(value);
    std::memcpy(out, &v, 8);
  } else {
    ADD_FAILURE() << "no encoder for dtype " << type.name;
  }
}

inline double decodeValue(const Dtype &type, const void *in) {
  const int32_t c = type.code;
  if (c == aoti_torch_dtype_float32()) {
    float v;
    std::memcpy(&v, in, 4);
    return v;
  }
  if (c == aoti_torch_dtype_float64()) {
    double v;
    std::memcpy(&v, in, 8);
    return v;
  }
  if (c == aoti_torch_dtype_float16()) {
    uint16_t v;
    std::memcpy(&v, in, 2);
    return float16ToDouble(v);
  }
  if (c == aoti_torch_dtype_bfloat16()) {
    uint16_t half;
    std::memcpy(&half, in, 2);
    const uint32_t bits = static_cast<uint32_t>(half) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  if (c == aoti_torch_dtype_int64()) {
    int64_t v;
    std::memcpy(&v, in, 8);
    return static_cast<double>(v);
  }
  if (c == aoti_torch_dtype_int32()) {
    int32_t v;
    std::memcpy(&v, in, 4);
    return v;
  }
  if (c == aoti_torch_dtype_int16()) {
    int16_t v;
    std::memcpy(&v, in, 2);
    return v;
  }
  if (c == aoti_torch_dtype_int8()) {
    int8_t v;
    std::memcpy(&v, in, 1);
    return v;
  }
  if (c == aoti_torch_dtype_uint8()) {
    uint8_t v;
    std::memcpy(&v, in, 1);
    return v;
  }
  if (c == aoti_torch_dtype_bool()) {
    uint8_t v;
    std::memcpy(&v, in, 1);
    return v ? 1.0 : 0.0;
  }
  if (c == aoti_torch_dtype_uint16()) {
    uint16_t v;
    std::memcpy(&v, in, 2);
    return v;
  }
  if (c == aoti_torch_dtype_uint32()) {
    uint32_t v;
    std::memcpy(&v, in, 4);
    return v;
  }
  if (c == aoti_torch_dtype_uint64()) {
    uint64_t v;
    std::memcpy(&v, in, 8);
    return static_cast<double>(v);
  }
  ADD_FAILURE() << "no decoder for dtype " << type.name;
  return 0.0;
}

// `value` as the nearest value of `type` holds (stored and read back).
inline double roundTrip(const Dtype &type, double value) {
  uint8_t bytes[8];
  encodeValue(type, value, bytes);
  return decodeValue(type, bytes);
}

inline int64_t numelOf(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

inline std::vector<int64_t> contiguousStridesOf(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  return strides;
}

// Offset of the row-major linear index `linear` under `strides`.
inline int64_t offsetOf(int64_t linear, const std::vector<int64_t> &sizes,
                        const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

// How a test tensor is laid out: empty strides mean contiguous.
struct Layout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides = {};
  int64_t offset = 0;

  std::vector<int64_t> realStrides() const {
    return strides.empty() ? contiguousStridesOf(sizes) : strides;
  }
};

// A view `layout` of a new storage on (deviceType, 0) holding `values`
// (row-major logical order; several logical elements may share one address
// when a stride is 0, then they must hold equal values). Storage elements
// outside the view hold `fill`.
inline TensorHandle makeTensor(const std::vector<double> &values,
                               const Layout &layout, const Dtype &type,
                               int32_t deviceType,
                               double fill = std::nan("")) {
  const std::vector<int64_t> strides = layout.realStrides();
  const int64_t n = numelOf(layout.sizes);
  EXPECT_EQ(static_cast<int64_t>(values.size()), n);
  const int64_t storageElems =
      std::max<int64_t>(layout.offset + extentOf(layout.sizes, strides), 1);
  // The whole storage on the host, then one copy of it to the device.
  std::vector<uint8_t> host(static_cast<size_t>(storageElems) * type.size);
  for (int64_t i = 0; i < storageElems; ++i)
    encodeValue(type, fill, host.data() + i * type.size);
  for (int64_t i = 0; i < n; ++i)
    encodeValue(type, values[i],
                host.data() +
                    (layout.offset + offsetOf(i, layout.sizes, strides)) *
                        type.size);
  const int64_t flatSize[] = {storageElems};
  const int64_t flatStride[] = {1};
  TensorHandle hostFlat;
  EXPECT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), 1, flatSize, flatStride, 0, type.code,
      aoti_torch_device_type_cpu(), 0, hostFlat.out()));
  TensorHandle storage;
  EXPECT_SHIM_OK(aoti_torch_empty_strided(1, flatSize, flatStride, type.code,
                                          deviceType, 0, storage.out()));
  EXPECT_SHIM_OK(aoti_torch_copy_(storage.get(), hostFlat.get(), 0));
  // A 0-d view still passes real (if unread) arrays, as a model does.
  static const int64_t kNoDims[1] = {0};
  TensorHandle view;
  EXPECT_SHIM_OK(aoti_torch__reinterpret_tensor(
      storage.get(), static_cast<int64_t>(layout.sizes.size()),
      layout.sizes.empty() ? kNoDims : layout.sizes.data(),
      strides.empty() ? kNoDims : strides.data(), layout.offset, view.out()));
  return view;
}

// A tensor's values in row-major logical order, read through a contiguous
// CPU copy.
inline std::vector<double> readTensor(const TensorHandle &t, const Dtype &type) {
  const std::vector<int64_t> sizes = sizesOf(t);
  const int64_t n = numelOf(sizes);
  std::vector<uint8_t> host(static_cast<size_t>(std::max<int64_t>(n, 1)) *
                            type.size);
  const std::vector<int64_t> strides = contiguousStridesOf(sizes);
  TensorHandle hostView;
  static const int64_t kNoDims[1] = {0};
  EXPECT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      host.data(), static_cast<int64_t>(sizes.size()),
      sizes.empty() ? kNoDims : sizes.data(),
      strides.empty() ? kNoDims : strides.data(), 0, type.code,
      aoti_torch_device_type_cpu(), 0, hostView.out()));
  EXPECT_SHIM_OK(aoti_torch_copy_(hostView.get(), t.get(), 0));
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[i] = decodeValue(type, host.data() + i * type.size);
  return values;
}

// n values that every tested dtype holds exactly (multiples of 1/8 in
// [-2, 2]), varied by `seed`.
inline std::vector<double> patternValues(int64_t n, int seed) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<double>((i * 7 + seed * 13) % 33 - 16) / 8.0;
  return values;
}

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_OPS_TEST_UTIL_H
