//===- ops/index_test_util.h - What the index family's tests share --------===//
//
// For ops/index_test.cpp and ops/index_select_test.cpp: dtype-aware value
// helpers (values every tested dtype holds exactly, a value as a dtype
// stores it), result checks, and row-major coordinates.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_INDEX_TEST_UTIL_H
#define AOTI_TESTS_SHIMS_OPS_INDEX_TEST_UTIL_H

#include "ops/devices.h"

#include "torch_fallbacks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace aoti::test {

inline int32_t dtypeOf(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

inline int32_t deviceTypeOf(const TensorHandle &t) {
  int32_t type = -1;
  EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &type));
  return type;
}

inline bool isFloat(const Dtype &t) {
  return t.code == aoti_torch_dtype_float32() ||
         t.code == aoti_torch_dtype_float64() ||
         t.code == aoti_torch_dtype_float16() ||
         t.code == aoti_torch_dtype_bfloat16();
}

// `v` wrapped to an integer dtype's width (bool: 0 or 1).
inline double wrapTo(const Dtype &t, double v) {
  const int64_t i = static_cast<int64_t>(v);
  if (t.code == aoti_torch_dtype_int32())
    return static_cast<int32_t>(i);
  if (t.code == aoti_torch_dtype_int16())
    return static_cast<int16_t>(i);
  if (t.code == aoti_torch_dtype_int8())
    return static_cast<int8_t>(i);
  if (t.code == aoti_torch_dtype_uint8())
    return static_cast<uint8_t>(i);
  if (t.code == aoti_torch_dtype_bool())
    return v != 0.0 ? 1.0 : 0.0;
  return static_cast<double>(i);
}

// `v` as stored in dtype `t`: rounded for floats, wrapped for integers.
inline double asDtype(const Dtype &t, double v) {
  if (t.code == aoti_torch_dtype_bfloat16() && !std::isnan(v)) {
    // Round to nearest even (roundTrip truncates: it stores only values
    // bfloat16 holds). v is exact in float wherever the tests use this.
    const float f = static_cast<float>(v);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    bits &= 0xffff0000u;
    float r = 0;
    std::memcpy(&r, &bits, 4);
    return r;
  }
  return isFloat(t) ? roundTrip(t, v) : wrapTo(t, v);
}

// n values that dtype `t` holds exactly, varied by `seed`.
inline std::vector<double> valuesFor(const Dtype &t, int64_t n, int seed) {
  std::vector<double> v = patternValues(n, seed);
  for (double &x : v) {
    if (t.code == aoti_torch_dtype_bool())
      x = x > 0 ? 1 : 0;
    else if (t.code == aoti_torch_dtype_uint8())
      x = std::fabs(x) * 8 + 3;
    else if (!isFloat(t))
      x = x * 8;
  }
  return v;
}

inline std::vector<Dtype> allDtypes() {
  return {float32Type(), float64Type(), float16Type(), bfloat16Type(),
          int64Type(),   int32Type(),   int16Type(),   int8Type(),
          uint8Type(),   boolType()};
}

inline void expectSameValues(const std::vector<double> &got,
                             const std::vector<double> &expected,
                             const std::string &what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same = got[i] == expected[i] ||
                      (std::isnan(got[i]) && std::isnan(expected[i]));
    if (!same && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i]
                    << ", expected " << expected[i];
  }
}

// Row-major coordinates of linear index `i` in `shape`.
inline std::vector<int64_t> coordsOf(int64_t i,
                                     const std::vector<int64_t> &shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_OPS_INDEX_TEST_UTIL_H
