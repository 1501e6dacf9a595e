//===- ops/scan_test.cpp - The scan family: cumsum, cumprod, logcumsumexp, cummax/cummin ===//
//
// Every case runs on both devices (ops/devices.h). cumsum's reference is
// computed here with plain loops: each input value converted to the result
// dtype the way torch does (truncation toward zero for floating to integer,
// wrapping to the integer's width), summed along the line in double (or
// int64 for integer results, wrapped to the result's width), and each
// float32/float64 partial sum rounded to the result dtype once, as the
// implementations store it. The inputs are mostly multiples of 1/8, so
// float32 and float64 results must match exactly; float16 and bfloat16
// results are within one rounding of the dtype (2^-11, 2^-8 relative).
// Beyond the shared cases: the CUDA entry point refuses a CPU tensor, and
// the CPU result equals an in-order double accumulation bit for bit
// (torch's CPU kernel sums that way).
//
// The other ops follow (after the cumsum cases): cumprod against an int64 /
// double running product of exactly representable values, logcumsumexp
// against a double log-add-exp with torch's NaN and infinity rules, and
// cummax/cummin against ATen's rule (an equal element takes the index, a NaN
// takes it and keeps it), every dtype torch dispatches them for.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"

namespace aoti::test {
namespace {


bool isIntegerDtype(const Dtype &type) {
  return type.code == aoti_torch_dtype_int64() ||
         type.code == aoti_torch_dtype_int32() ||
         type.code == aoti_torch_dtype_int16() ||
         type.code == aoti_torch_dtype_int8() ||
         type.code == aoti_torch_dtype_uint8();
}

// `value` wrapped to an integer dtype's width.
int64_t wrapTo(const Dtype &type, int64_t value) {
  if (type.code == aoti_torch_dtype_int32())
    return static_cast<int32_t>(value);
  if (type.code == aoti_torch_dtype_int16())
    return static_cast<int16_t>(value);
  if (type.code == aoti_torch_dtype_int8())
    return static_cast<int8_t>(value);
  if (type.code == aoti_torch_dtype_uint8())
    return static_cast<uint8_t>(value);
  return value;
}

// Reference cumsum of row-major `values` of `sizes` along `dim` (>= 0),
// into dtype `result`.
std::vector<double> referenceCumsum(const std::vector<double> &values,
                                           const std::vector<int64_t> &sizes,
                                           int64_t dim, const Dtype &result) {
  std::vector<double> out(values.size());
  if (values.empty())
    return out;
  if (sizes.empty()) {
    out[0] = isIntegerDtype(result)
                 ? static_cast<double>(
                       wrapTo(result, static_cast<int64_t>(values[0])))
                 : values[0];
    return out;
  }
  const std::vector<int64_t> strides = contiguousStridesOf(sizes);
  const int64_t length = sizes[dim];
  const int64_t stride = strides[dim];
  for (int64_t start = 0; start < static_cast<int64_t>(values.size());
       ++start) {
    if ((start / stride) % length != 0)
      continue; // not the first element of a line
    double sum = 0.0;
    int64_t isum = 0;
    for (int64_t j = 0; j < length; ++j) {
      const int64_t at = start + j * stride;
      if (isIntegerDtype(result)) {
        isum += wrapTo(result, static_cast<int64_t>(values[at]));
        out[at] = static_cast<double>(wrapTo(result, isum));
      } else {
        sum += roundTrip(result, values[at]);
        out[at] = result.code == aoti_torch_dtype_float32() ||
                          result.code == aoti_torch_dtype_float64()
                      ? roundTrip(result, sum)
                      : sum;
      }
    }
  }
  return out;
}

void expectCumsumClose(const std::vector<double> &actual,
                              const std::vector<double> &expected,
                              const Dtype &type, const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double tol = 0.0;
  if (type.code == aoti_torch_dtype_float16())
    tol = 1.0 / 2048;
  else if (type.code == aoti_torch_dtype_bfloat16())
    tol = 1.0 / 256;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    if (!(std::fabs(actual[i] - expected[i]) <= tol * std::fabs(expected[i])) &&
        reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i]
                    << ", expected " << expected[i];
}

int32_t dtypeOf(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

class CumsumOps : public OpTest {
protected:
  using CumsumFn = AOTITorchError (*)(AtenTensorHandle, int64_t, int32_t *,
                                      AtenTensorHandle *);
  CumsumFn entry() const {
    return onCuda() ? aoti_torch_cuda_cumsum : aoti_torch_cpu_cumsum;
  }
  AOTITorchError cumsum(const TensorHandle &self, int64_t dim,
                        const int32_t *dtype, TensorHandle &ret) {
    return entry()(self.get(), dim, const_cast<int32_t *>(dtype), ret.out());
  }
  // Runs cumsum(self, dim, dtype) and checks the result's shape, contiguous
  // strides, dtype and values against the reference.
  void check(const std::vector<double> &values, const Layout &layout,
             const Dtype &in, int64_t dim, const Dtype *requested,
             const Dtype &expectedType, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = makeTensor(values, layout, in, device());
    TensorHandle ret;
    ASSERT_SHIM_OK(cumsum(self, dim, requested ? &requested->code : nullptr,
                          ret));
    EXPECT_EQ(sizesOf(ret), layout.sizes);
    EXPECT_EQ(stridesOf(ret), contiguousStridesOf(layout.sizes));
    EXPECT_EQ(dtypeOf(ret), expectedType.code);
    int32_t deviceType = -1;
    EXPECT_SHIM_OK(aoti_torch_get_device_type(ret.get(), &deviceType));
    EXPECT_EQ(deviceType, device());
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t canonical = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    expectCumsumClose(readTensor(ret, expectedType),
                      referenceCumsum(values, layout.sizes, canonical,
                                      expectedType),
                      expectedType, what);
    // self is not modified.
    std::vector<double> after = readTensor(self, in);
    for (size_t i = 0; i < after.size(); ++i)
      if (!std::isnan(values[i]))
        EXPECT_EQ(after[i], roundTrip(in, values[i])) << i;
  }
};

TEST_P(CumsumOps, EveryDimensionOfAContiguousTensor) {
  const std::vector<double> v = patternValues(2 * 3 * 4, 1);
  for (const Dtype &type : {float32Type(), float64Type()})
    for (int64_t dim : {0, 1, 2, -1, -2, -3})
      check(v, {{2, 3, 4}}, type, dim, nullptr, type,
            std::string(type.name) + " dim " + std::to_string(dim));
}

TEST_P(CumsumOps, AnyStridesAndOffsets) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(3 * 5 * 2, 2);
  check(v, {{3, 5, 2}, {1, 6, 3}}, f, 1, nullptr, f, "permuted strides");
  check(v, {{3, 5, 2}, {40, 4, 2}, 7}, f, 0, nullptr, f,
        "gaps and an offset");
  check(v, {{3, 5, 2}, {40, 4, 2}, 7}, f, -1, nullptr, f,
        "gaps and an offset, last dim");
  // A broadcast (stride-0) dimension: equal rows, summed along it and across.
  std::vector<double> row = patternValues(5, 3);
  std::vector<double> rows;
  for (int i = 0; i < 4; ++i)
    rows.insert(rows.end(), row.begin(), row.end());
  check(rows, {{4, 5}, {0, 1}}, f, 0, nullptr, f, "along a broadcast dim");
  check(rows, {{4, 5}, {0, 1}}, f, 1, nullptr, f, "across a broadcast dim");
  // Long lines.
  check(patternValues(3 * 1000, 4), {{3, 1000}}, f, 1, nullptr, f,
        "lines of 1000");
  check(patternValues(1000 * 3, 5), {{1000, 3}}, f, 0, nullptr, f,
        "1000 lines along dim 0");
}

TEST_P(CumsumOps, ZeroDimAndEmptyTensors) {
  const Dtype f = float32Type();
  check({2.5}, {{}}, f, 0, nullptr, f, "0-d, dim 0");
  check({-1.25}, {{}}, f, -1, nullptr, f, "0-d, dim -1");
  check({7}, {{}}, int32Type(), 0, nullptr, int64Type(), "0-d int32");
  check({}, {{3, 0}}, f, 1, nullptr, f, "empty along dim");
  check({}, {{0, 4}}, f, 1, nullptr, f, "empty across dim");
  check({}, {{0}}, int16Type(), 0, nullptr, int64Type(), "empty int16");
}

TEST_P(CumsumOps, IntegralAndBoolInputsAccumulateInInt64) {
  const std::vector<double> ints = {3, -7, 100, 120, -128, 64, 1, 9};
  check(ints, {{2, 4}}, int32Type(), 1, nullptr, int64Type(), "int32");
  check(ints, {{2, 4}}, int8Type(), 1, nullptr, int64Type(), "int8 promotes");
  check(ints, {{2, 4}}, int16Type(), 0, nullptr, int64Type(), "int16");
  check({200, 100, 250, 7}, {{4}}, uint8Type(), 0, nullptr, int64Type(),
        "uint8 promotes, no wrap at 255");
  check({1, 0, 1, 1, 0, 1}, {{6}}, boolType(), 0, nullptr, int64Type(),
        "bool counts trues");
  check({5e12, 6e12, -1e12}, {{3}}, int64Type(), 0, nullptr, int64Type(),
        "int64 beyond int32");
}

TEST_P(CumsumOps, AnExplicitDtypeConvertsFirst) {
  const Dtype i8 = int8Type();
  const Dtype i32 = int32Type();
  const Dtype f64 = float64Type();
  const Dtype f32 = float32Type();
  check({100, 100, 100, -50}, {{4}}, i32, 0, &i8, i8,
        "int32 into int8 wraps like torch");
  check({1.75, -1.75, 2.5, 0.125}, {{4}}, f32, 0, &i32, i32,
        "float32 into int32 truncates each element first");
  check(patternValues(12, 6), {{3, 4}}, f32, 1, &f64, f64,
        "float32 into float64");
  check({1, 2, 3, 4}, {{2, 2}}, i32, 0, &f32, f32, "int32 into float32");
  check({1, 0, 1}, {{3}}, boolType(), 0, &f32, f32, "bool into float32");
  check(patternValues(6, 7), {{6}}, f32, 0, &f32, f32, "same dtype");
  // 1 + 3 * 2^-25 is 1 + 2^-23 in float32: partial sums of the converted
  // values and of the float64 ones round to different float32 values at
  // about every other element.
  check(std::vector<double>(4096, 1.0 + 3.0 * std::ldexp(1.0, -25)), {{4096}},
        f64, 0, &f32, f32, "float64 into float32 rounds each element first");
}

TEST_P(CumsumOps, HalfTypesStayHalf) {
  for (const Dtype &type : {float16Type(), bfloat16Type()}) {
    check(patternValues(4 * 9, 8), {{4, 9}}, type, 1, nullptr, type,
          std::string(type.name) + " rows");
    check(patternValues(4 * 9, 9), {{4, 9}, {1, 4}}, type, 0, nullptr, type,
          std::string(type.name) + " transposed");
  }
  const Dtype f32 = float32Type();
  check(patternValues(10, 10), {{10}}, float16Type(), 0, &f32, f32,
        "float16 into float32");
}

TEST_P(CumsumOps, BadArgumentsAreRefusedAndRet0IsUntouched) {
  const TensorHandle self =
      makeTensor(patternValues(6, 1), {{2, 3}}, float32Type(), device());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  auto run = [&](AtenTensorHandle t, int64_t dim, int32_t *dtype) {
    return entry()(t, dim, dtype, &ret);
  };
  EXPECT_SHIM_FAILS(run(nullptr, 0, nullptr), "'self' is null");
  EXPECT_SHIM_FAILS(entry()(self.get(), 0, nullptr, nullptr),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS(run(self.get(), 2, nullptr),
                    "dim 2 is out of range for a 2-d 'self' (expected [-2, 1])");
  EXPECT_SHIM_FAILS(run(self.get(), -3, nullptr), "dim -3 is out of range");
  int32_t bogus = 12345;
  EXPECT_SHIM_FAILS(run(self.get(), 0, &bogus), "'dtype': unsupported dtype 12345");
  int32_t boolCode = aoti_torch_dtype_bool();
  EXPECT_SHIM_FAILS(run(self.get(), 0, &boolCode),
                    "'dtype' bool is not a cumsum result dtype");
  int32_t u32 = aoti_torch_dtype_uint32();
  EXPECT_SHIM_FAILS(run(self.get(), 0, &u32),
                    "'dtype' uint32 is not a cumsum result dtype");
  int32_t c64 = aoti_torch_dtype_complex64();
  EXPECT_SHIM_FAILS(run(self.get(), 0, &c64), "not a cumsum result dtype");
  TensorHandle complex;
  const int64_t sizes[] = {2};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                          aoti_torch_dtype_complex64(),
                                          device(), 0, complex.out()));
  EXPECT_SHIM_FAILS(run(complex.get(), 0, nullptr),
                    "'self' has dtype complex64, which cumsum does not support");
  TensorHandle zeroDim = makeTensor({1.0}, {{}}, float32Type(), device());
  EXPECT_SHIM_FAILS(run(zeroDim.get(), 1, nullptr),
                    "dim 1 is out of range for a 0-d 'self' (expected [-1, 0])");
  EXPECT_EQ(ret, sentinel);
}

INSTANTIATE_TEST_SUITE_P(, CumsumOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

TEST(CumsumDevices, TheCudaEntryPointRefusesACpuTensor) {
  TensorHandle self = makeTensor(patternValues(4, 1), {{4}}, float32Type(), 0);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_cumsum(self.get(), 0, nullptr, &ret),
                    "'self' is on cpu; this cumsum needs a CUDA tensor");
  EXPECT_EQ(ret, nullptr);
}

TEST(CumsumAccuracy, Float32SumsInOrderInDoubleLikeTorchsCpuKernel) {
  // Values that float32 addition would round: 1 + 2^-30 is 1 in float32,
  // but the double accumulator keeps the small terms.
  std::vector<double> values;
  values.push_back(1.0);
  for (int i = 0; i < 1024; ++i)
    values.push_back(std::ldexp(1.0, -30));
  const int64_t n = static_cast<int64_t>(values.size());
  TensorHandle self = makeTensor(values, {{n}}, float32Type(), 0);
  TensorHandle ret;
  ASSERT_SHIM_OK(aoti_torch_cpu_cumsum(self.get(), 0, nullptr, ret.out()));
  const std::vector<double> actual = readTensor(ret, float32Type());
  double acc = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    acc += static_cast<double>(static_cast<float>(values[i]));
    ASSERT_EQ(actual[i], static_cast<double>(static_cast<float>(acc))) << i;
  }
  EXPECT_GT(actual.back(), 1.0); // 1 + 2^-20: float32 accumulation gives 1
}


// --- cumprod, logcumsumexp, cummax, cummin -----------------------------------

// The flat (row-major) positions of each line of `sizes` along `dim`.
std::vector<std::vector<int64_t>> linesOf(const std::vector<int64_t> &sizes,
                                          int64_t dim) {
  std::vector<std::vector<int64_t>> lines;
  const int64_t n = numelOf(sizes);
  if (sizes.empty()) {
    lines.push_back({0});
    return lines;
  }
  const std::vector<int64_t> strides = contiguousStridesOf(sizes);
  for (int64_t start = 0; start < n; ++start) {
    if ((start / strides[dim]) % sizes[dim] != 0)
      continue;
    std::vector<int64_t> line;
    for (int64_t j = 0; j < sizes[dim]; ++j)
      line.push_back(start + j * strides[dim]);
    lines.push_back(line);
  }
  return lines;
}

// log(exp(a) + exp(b)) in double, with torch's rules for NaN and infinities.
double logAddExp(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b && std::isinf(a))
    return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// Equal, both NaN, or within `tol` relative (and 1e-300 absolute).
void expectValuesNear(const std::vector<double> &actual,
                      const std::vector<double> &expected, double tol,
                      const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const bool ok = (std::isnan(a) && std::isnan(e)) || a == e ||
                    std::fabs(a - e) <= tol * std::fabs(e) + 1e-300;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << a
                    << ", expected " << e;
  }
}

using ScanFn = AOTITorchError (*)(AtenTensorHandle, int64_t, int32_t *,
                                  AtenTensorHandle *);
using ExtremeFn = AOTITorchError (*)(AtenTensorHandle, int64_t,
                                     AtenTensorHandle *, AtenTensorHandle *);

class ScanOps : public OpTest {
protected:
  ScanFn cumprod() const {
    return onCuda() ? aoti_torch_cuda_cumprod : aoti_torch_cpu_cumprod;
  }
  AOTITorchError logcumsumexp(AtenTensorHandle self, int64_t dim,
                              AtenTensorHandle *ret) const {
    return onCuda() ? aoti_torch_cuda_logcumsumexp(self, dim, ret)
                    : aoti_torch_cpu_logcumsumexp(self, dim, ret);
  }
  ExtremeFn extreme(bool max) const {
    if (max)
      return onCuda() ? aoti_torch_cuda_cummax : aoti_torch_cpu_cummax;
    return onCuda() ? aoti_torch_cuda_cummin : aoti_torch_cpu_cummin;
  }

  // The result's sizes, contiguous strides, dtype and device.
  void expectResultShape(const TensorHandle &ret,
                         const std::vector<int64_t> &sizes, const Dtype &type) {
    EXPECT_EQ(sizesOf(ret), sizes);
    EXPECT_EQ(stridesOf(ret), contiguousStridesOf(sizes));
    EXPECT_EQ(dtypeOf(ret), type.code);
    int32_t deviceType = -1;
    EXPECT_SHIM_OK(aoti_torch_get_device_type(ret.get(), &deviceType));
    EXPECT_EQ(deviceType, device());
  }

  // cumprod(self, dim, dtype) against an exact running product (the values
  // are small integers and halves, so float32 products are exact too).
  void checkCumprod(const std::vector<double> &values, const Layout &layout,
                    const Dtype &in, int64_t dim, const Dtype *requested,
                    const Dtype &result, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, in);
    TensorHandle ret;
    ASSERT_SHIM_OK(cumprod()(self.get(), dim,
                             requested ? const_cast<int32_t *>(&requested->code)
                                       : nullptr,
                             ret.out()));
    expectResultShape(ret, layout.sizes, result);
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    std::vector<double> expected(values.size());
    for (const auto &line : linesOf(layout.sizes, d)) {
      double product = 1.0;
      int64_t iproduct = 1;
      for (int64_t at : line) {
        if (isIntegerDtype(result)) {
          iproduct = static_cast<int64_t>(
              static_cast<uint64_t>(iproduct) *
              static_cast<uint64_t>(
                  wrapTo(result, static_cast<int64_t>(values[at]))));
          expected[at] = static_cast<double>(wrapTo(result, iproduct));
        } else {
          product *= roundTrip(result, values[at]);
          expected[at] = roundTrip(result, product);
        }
      }
    }
    expectValuesNear(readTensor(ret, result), expected, 0.0, what);
  }

  // logcumsumexp(self, dim) against the double reference; `tol` relative.
  void checkLogcumsumexp(const std::vector<double> &values,
                         const Layout &layout, const Dtype &type, int64_t dim,
                         double tol, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle ret;
    ASSERT_SHIM_OK(logcumsumexp(self.get(), dim, ret.out()));
    expectResultShape(ret, layout.sizes, type);
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    std::vector<double> expected(values.size());
    for (const auto &line : linesOf(layout.sizes, d)) {
      double acc = -HUGE_VAL;
      for (int64_t at : line) {
        acc = logAddExp(acc, roundTrip(type, values[at]));
        expected[at] = acc;
      }
    }
    expectValuesNear(readTensor(ret, type), expected, tol, what);
  }

  // cummax/cummin(self, dim) against ATen's rule.
  void checkExtreme(bool max, const std::vector<double> &values,
                    const Layout &layout, const Dtype &type, int64_t dim,
                    const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle ret0, ret1;
    ASSERT_SHIM_OK(extreme(max)(self.get(), dim, ret0.out(), ret1.out()));
    expectResultShape(ret0, layout.sizes, type);
    expectResultShape(ret1, layout.sizes, int64Type());
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    std::vector<double> best(values.size()), index(values.size());
    for (const auto &line : linesOf(layout.sizes, d)) {
      double b = roundTrip(type, values[line[0]]);
      int64_t at = 0;
      for (size_t j = 0; j < line.size(); ++j) {
        const double x = roundTrip(type, values[line[j]]);
        if (std::isnan(x) || (!std::isnan(b) && (max ? x >= b : x <= b))) {
          b = x;
          at = static_cast<int64_t>(j);
        }
        best[line[j]] = b;
        index[line[j]] = static_cast<double>(at);
      }
    }
    expectValuesNear(readTensor(ret0, type), best, 0.0, what + " values");
    expectValuesNear(readTensor(ret1, int64Type()), index, 0.0,
                     what + " indices");
  }
};

// Small values whose running products stay exact in every tested dtype.
std::vector<double> productValues(int64_t n, int seed) {
  static const double kChoices[] = {1, -1, 2, 0.5, 1, -2, 1, 0.5, -1, 1};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = kChoices[(i * 3 + seed) % 10];
  return v;
}

TEST_P(ScanOps, CumprodEveryDimensionAndLayout) {
  const Dtype f = float32Type();
  const std::vector<double> v = productValues(2 * 3 * 4, 1);
  for (const Dtype &type : {float32Type(), float64Type()})
    for (int64_t dim : {0, 1, 2, -1, -3})
      checkCumprod(v, {{2, 3, 4}}, type, dim, nullptr, type,
                   std::string(type.name) + " dim " + std::to_string(dim));
  checkCumprod(productValues(3 * 5 * 2, 2), {{3, 5, 2}, {1, 6, 3}}, f, 1,
               nullptr, f, "permuted strides");
  checkCumprod(productValues(3 * 5 * 2, 3), {{3, 5, 2}, {40, 4, 2}, 7}, f, 0,
               nullptr, f, "gaps and an offset");
  checkCumprod(productValues(3 * 40, 4), {{3, 40}}, f, 1, nullptr, f,
               "lines of 40");
  for (const Dtype &type : {float16Type(), bfloat16Type()})
    checkCumprod(productValues(4 * 9, 5), {{4, 9}, {1, 4}}, type, 0, nullptr,
                 type, std::string(type.name) + " transposed");
}

TEST_P(ScanOps, CumprodPromotesIntegersAndConvertsFirst) {
  const Dtype i64 = int64Type(), i8 = int8Type(), f32 = float32Type();
  checkCumprod({3, -7, 100, 2, -1, 5}, {{2, 3}}, int32Type(), 1, nullptr, i64,
               "int32 promotes");
  checkCumprod({200, 100, 3}, {{3}}, uint8Type(), 0, nullptr, i64,
               "uint8 promotes, no wrap at 255");
  checkCumprod({1, 0, 1, 1}, {{4}}, boolType(), 0, nullptr, i64, "bool");
  checkCumprod({100, 100, 3, -1}, {{4}}, int32Type(), 0, &i8, i8,
               "into int8 wraps like torch");
  checkCumprod({1.75, -1.5, 2.5}, {{3}}, f32, 0, &i64, i64,
               "float32 into int64 truncates each element first");
  std::vector<double> big(40, 3.0);
  checkCumprod(big, {{40}}, int64Type(), 0, nullptr, i64,
               "int64 wraps past 2^63");
}

TEST_P(ScanOps, CumprodZeroDimEmptyAndRefusals) {
  const Dtype f = float32Type();
  checkCumprod({2.5}, {{}}, f, -1, nullptr, f, "0-d");
  checkCumprod({}, {{3, 0}}, f, 1, nullptr, f, "empty");
  TensorHandle self = tensor(productValues(6, 1), {{2, 3}}, f);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(cumprod()(self.get(), 2, nullptr, &ret),
                    "dim 2 is out of range for a 2-d 'self'");
  int32_t boolCode = aoti_torch_dtype_bool();
  EXPECT_SHIM_FAILS(cumprod()(self.get(), 0, &boolCode, &ret),
                    "'dtype' bool is not a cumprod result dtype");
  EXPECT_SHIM_FAILS(cumprod()(self.get(), 0, nullptr, nullptr),
                    "'ret0' is null");
  EXPECT_EQ(ret, nullptr);
}

TEST_P(ScanOps, LogcumsumexpValuesAndLayouts) {
  std::vector<double> v = patternValues(3 * 4 * 5, 1);
  for (double &x : v)
    x *= 8; // [-16, 16]: exp over- and underflows float16 without the trick
  for (int64_t dim : {0, 1, 2, -1})
    checkLogcumsumexp(v, {{3, 4, 5}}, float32Type(), dim, 2e-6,
                      "float32 dim " + std::to_string(dim));
  checkLogcumsumexp(v, {{3, 4, 5}}, float64Type(), 1, 1e-14, "float64");
  checkLogcumsumexp(v, {{3, 4, 5}, {1, 15, 3}}, float32Type(), 2, 2e-6,
                    "permuted strides");
  checkLogcumsumexp(v, {{3, 4, 5}, {40, 10, 2}, 3}, float32Type(), 0, 2e-6,
                    "gaps and an offset");
  checkLogcumsumexp(patternValues(2 * 3000, 2), {{2, 3000}}, float32Type(), 1,
                    1e-5, "lines of 3000");
  // The 16-bit floats: one rounding of the result (computed in float).
  checkLogcumsumexp(v, {{3, 4, 5}}, float16Type(), 2, 1.0 / 1024,
                    "float16");
  checkLogcumsumexp(v, {{3, 4, 5}}, bfloat16Type(), 2, 1.0 / 128,
                    "bfloat16");
}

TEST_P(ScanOps, LogcumsumexpInfinitiesAndNaN) {
  const double inf = HUGE_VAL, nan = std::nan("");
  checkLogcumsumexp({-inf, -inf, 0.0, -inf}, {{4}}, float32Type(), 0, 2e-6,
                    "leading -inf");
  checkLogcumsumexp({1.0, inf, 2.0, inf}, {{4}}, float32Type(), 0, 0.0,
                    "+inf stays +inf");
  checkLogcumsumexp({1.0, nan, 2.0}, {{3}}, float32Type(), 0, 0.0,
                    "NaN propagates");
  checkLogcumsumexp({-inf, inf, -inf}, {{3}}, float64Type(), 0, 0.0,
                    "-inf then +inf");
  checkLogcumsumexp({0.5}, {{}}, float32Type(), 0, 0.0, "0-d");
  checkLogcumsumexp({}, {{0, 3}}, float32Type(), 1, 0.0, "empty");
}

TEST_P(ScanOps, LogcumsumexpRefusesNonFloatingSelf) {
  TensorHandle ints = tensor({1, 2, 3}, {{3}}, int64Type());
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(logcumsumexp(ints.get(), 0, &ret),
                    "'self' has dtype int64; logcumsumexp needs float16, "
                    "bfloat16, float32 or float64");
  TensorHandle f = tensor({1, 2, 3}, {{3}}, float32Type());
  EXPECT_SHIM_FAILS(logcumsumexp(f.get(), 1, &ret), "dim 1 is out of range");
  EXPECT_EQ(ret, nullptr);
}

TEST_P(ScanOps, CummaxCumminTiesTakeTheLastIndex) {
  const std::vector<double> v = {3, 1, 3, 5, 5, 2, 1, 1, 0, 5};
  for (bool max : {true, false}) {
    const std::string op = max ? "cummax" : "cummin";
    for (const Dtype &type : {float32Type(), float64Type(), float16Type(),
                              bfloat16Type(), int64Type(), int32Type(),
                              int16Type(), int8Type(), uint8Type()})
      checkExtreme(max, v, {{10}}, type, 0, op + " " + type.name);
    checkExtreme(max, {1, 0, 0, 1, 1, 0}, {{6}}, boolType(), 0, op + " bool");
  }
}

TEST_P(ScanOps, CummaxCumminNaNTakesTheRunAndKeepsIt) {
  const double nan = std::nan("");
  const std::vector<double> v = {1, nan, 5, nan, -3, 7};
  for (bool max : {true, false})
    for (const Dtype &type : {float32Type(), float64Type(), bfloat16Type()})
      checkExtreme(max, v, {{6}}, type, 0,
                   std::string(max ? "cummax " : "cummin ") + type.name);
}

TEST_P(ScanOps, CummaxCumminLayoutsDimsAndEdges) {
  const std::vector<double> v = patternValues(3 * 4 * 5, 3);
  for (bool max : {true, false}) {
    const std::string op = max ? "cummax" : "cummin";
    for (int64_t dim : {0, 1, 2, -1, -2})
      checkExtreme(max, v, {{3, 4, 5}}, float32Type(), dim,
                   op + " dim " + std::to_string(dim));
    checkExtreme(max, v, {{3, 4, 5}, {1, 15, 3}}, float32Type(), 1,
                 op + " permuted");
    checkExtreme(max, v, {{3, 4, 5}, {40, 10, 2}, 3}, int64Type(), 2,
                 op + " gaps and an offset");
    checkExtreme(max, patternValues(2 * 2000, 4), {{2, 2000}}, float32Type(),
                 1, op + " lines of 2000");
    checkExtreme(max, {4.0}, {{}}, float32Type(), 0, op + " 0-d");
    checkExtreme(max, {}, {{2, 0}}, float32Type(), 1, op + " empty");
  }
}

TEST_P(ScanOps, CummaxCumminRefusals) {
  TensorHandle self = tensor(patternValues(6, 1), {{2, 3}}, float32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle a = sentinel, b = sentinel;
  EXPECT_SHIM_FAILS(extreme(true)(self.get(), 2, &a, &b),
                    "dim 2 is out of range for a 2-d 'self'");
  EXPECT_SHIM_FAILS(extreme(false)(self.get(), 0, &a, nullptr),
                    "'ret1' is null");
  EXPECT_SHIM_FAILS(extreme(true)(nullptr, 0, &a, &b), "'self' is null");
  TensorHandle complex;
  const int64_t sizes[] = {2};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                          aoti_torch_dtype_complex64(),
                                          device(), 0, complex.out()));
  EXPECT_SHIM_FAILS(extreme(true)(complex.get(), 0, &a, &b),
                    "'self' has dtype complex64, which cummax does not support");
  EXPECT_EQ(a, sentinel);
  EXPECT_EQ(b, sentinel);
}

INSTANTIATE_TEST_SUITE_P(, ScanOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// What only a GPU can show.
class CumsumOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, CumsumOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CumsumOnCuda);

TEST_P(CumsumOnCuda, TheCpuEntryPointRefusesACudaTensor) {
  TensorHandle self = tensor(patternValues(4, 1), {{2, 2}}, float32Type());
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_cumsum(self.get(), 0, nullptr, &ret),
                    "'self' is on cuda:0; this cumsum needs a CPU tensor");
  EXPECT_EQ(ret, nullptr);
}

TEST_P(CumsumOnCuda, RunsOnTheStreamAGuardSets) {
  // A non-blocking stream of the test's own: the kernel must be ordered on
  // it, so a copy on that stream sees the result with no other
  // synchronisation (the legacy default stream would order everything and
  // hide a launch on the wrong one).
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  const std::vector<double> values = patternValues(64 * 33, 4);
  {
    TensorHandle self = tensor(values, {{64, 33}}, float32Type());
    TensorHandle sums;
    ASSERT_SHIM_OK(aoti_torch_cuda_cumsum(self.get(), 1, nullptr, sums.out()));
    expectCumsumClose(readTensor(sums, float32Type()),
                      referenceCumsum(values, {64, 33}, 1, float32Type()),
                      float32Type(), "on a guard's stream");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
