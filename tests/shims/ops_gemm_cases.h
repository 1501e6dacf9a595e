//===- ops_gemm_cases.h - The GEMM fallbacks' tests, for any device ---------===//
//
// One set of cases for aoti_torch_{cpu,cuda}_{mm,addmm,bmm,baddbmm}_out:
// ops_gemm_test.cpp runs them on the CPU entry points, cuda_gemm_test.cpp on
// the CUDA ones. Every result is compared with a reference computed here
// with plain loops in double from the same input values; the tolerance
// scales with the magnitude of the terms summed (sum of |a_ik * b_kj|, plus
// the addend), so it holds for any summation order:
//   float64 1e-12, float32 1e-5, float16 1e-3 and bfloat16 8e-3 (one
//   rounding of the result to the dtype: 2^-11 and 2^-8 relative).
// Inputs come in every layout the implementations treat differently:
// row- and column-major, padded leading dimensions, both strides > 1,
// broadcast (stride 0), storage offsets, outputs that must be staged, and
// outputs that share memory with an input.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_GEMM_CASES_H
#define AOTI_TESTS_SHIMS_OPS_GEMM_CASES_H

#include "ops_test_util.h"

#include <functional>

namespace aoti::test {

using MmFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                AtenTensorHandle);
using AddmmFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                   AtenTensorHandle, AtenTensorHandle, double,
                                   double);

// The entry points of one device.
struct GemmApi {
  const char *device; // for test names
  int32_t deviceType;
  MmFn mm;
  AddmmFn addmm;
  MmFn bmm;
  AddmmFn baddbmm;
  bool (*available)(); // false: every test skips (no GPU)
};

struct GemmParam {
  GemmApi api;
  Dtype type;
};

inline void PrintTo(const GemmParam &param, std::ostream *os) {
  *os << param.api.device << " " << param.type.name;
}

inline std::string gemmParamName(const testing::TestParamInfo<GemmParam> &info) {
  return std::string(info.param.api.device) + "_" + info.param.type.name;
}

inline double gemmTolerance(const Dtype &type) {
  if (type.code == aoti_torch_dtype_float64())
    return 1e-12;
  if (type.code == aoti_torch_dtype_float32())
    return 1e-5;
  if (type.code == aoti_torch_dtype_float16())
    return 1e-3;
  return 8e-3;
}

// The expected result of beta * addend + alpha * (a @ b) with its
// magnitude, per element (row-major [batch, m, n]).
struct Expectation {
  std::vector<double> value;
  std::vector<double> magnitude;
};

// a: [batch, m, k], b: [batch, k, n], addend: already broadcast to
// [batch, m, n] (empty: none), all row-major logical values.
inline Expectation referenceGemm(const std::vector<double> &a,
                                 const std::vector<double> &b,
                                 const std::vector<double> &addend,
                                 int64_t batch, int64_t m, int64_t k,
                                 int64_t n, double beta, double alpha) {
  Expectation e;
  e.value.assign(static_cast<size_t>(batch * m * n), 0.0);
  e.magnitude.assign(e.value.size(), 0.0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0, mag = 0.0;
        for (int64_t q = 0; q < k; ++q) {
          const double term =
              a[(p * m + i) * k + q] * b[(p * k + q) * n + j];
          sum += term;
          mag += std::fabs(term);
        }
        const size_t at = static_cast<size_t>((p * m + i) * n + j);
        e.value[at] = alpha * sum;
        e.magnitude[at] = std::fabs(alpha) * mag;
        if (!addend.empty() && beta != 0.0) {
          e.value[at] += beta * addend[at];
          e.magnitude[at] += std::fabs(beta * addend[at]);
        }
      }
  return e;
}

// Broadcasts row-major `values` of `sizes` to `target` (numpy rules).
inline std::vector<double> broadcastValues(const std::vector<double> &values,
                                           const std::vector<int64_t> &sizes,
                                           const std::vector<int64_t> &target) {
  std::vector<int64_t> strides(target.size(), 0);
  const std::vector<int64_t> own = contiguousStridesOf(sizes);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t d = target.size() - sizes.size() + i;
    strides[d] = sizes[i] == 1 ? 0 : own[i];
  }
  std::vector<double> out(static_cast<size_t>(numelOf(target)));
  for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i)
    out[i] = values[offsetOf(i, target, strides)];
  return out;
}

inline void expectGemmClose(const std::vector<double> &actual,
                            const Expectation &expected, const Dtype &type,
                            const std::string &what) {
  ASSERT_EQ(actual.size(), expected.value.size()) << what;
  const double tol = gemmTolerance(type);
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double bound = tol * expected.magnitude[i] + 1e-30;
    if (!(std::fabs(actual[i] - expected.value[i]) <= bound) &&
        reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i]
                    << ", expected " << expected.value[i] << " (tolerance "
                    << bound << ")";
  }
}

class GemmOps : public testing::TestWithParam<GemmParam> {
protected:
  void SetUp() override {
    if (!GetParam().api.available())
      GTEST_SKIP() << "no " << GetParam().api.device << " device";
  }
  const GemmApi &api() const { return GetParam().api; }
  const Dtype &type() const { return GetParam().type; }
  TensorHandle make(const std::vector<double> &values, const Layout &layout) {
    return makeTensor(values, layout, type(), api().deviceType);
  }
  // An output full of NaN, so an element that is not written shows.
  TensorHandle nanOut(const Layout &layout) {
    return make(std::vector<double>(numelOf(layout.sizes), std::nan("")),
                layout);
  }
};

struct MmCase {
  const char *name;
  int64_t m, k, n;
  Layout a, b, out;
};

inline std::vector<MmCase> mmCases() {
  return {
      {"row-major", 7, 13, 5, {{7, 13}}, {{13, 5}}, {{7, 5}}},
      {"a column-major", 7, 13, 5, {{7, 13}, {1, 7}}, {{13, 5}}, {{7, 5}}},
      {"b column-major", 7, 13, 5, {{7, 13}}, {{13, 5}, {1, 13}}, {{7, 5}}},
      {"out column-major", 7, 13, 5, {{7, 13}}, {{13, 5}}, {{7, 5}, {1, 7}}},
      {"all column-major", 7, 13, 5, {{7, 13}, {1, 7}}, {{13, 5}, {1, 13}},
       {{7, 5}, {1, 7}}},
      {"padded leading dimensions", 7, 13, 5, {{7, 13}, {16, 1}},
       {{13, 5}, {1, 16}}, {{7, 5}, {8, 1}}},
      {"storage offsets", 7, 13, 5, {{7, 13}, {}, 3}, {{13, 5}, {1, 13}, 11},
       {{7, 5}, {}, 5}},
      {"out with gaps in both strides", 7, 13, 5, {{7, 13}}, {{13, 5}},
       {{7, 5}, {10, 2}, 1}},
      {"a strided in both dimensions", 7, 13, 5, {{7, 13}, {26, 2}, 2},
       {{13, 5}}, {{7, 5}}},
      {"a broadcast rows (stride 0)", 4, 11, 3, {{4, 11}, {0, 1}}, {{11, 3}},
       {{4, 3}}},
      {"vector times vector", 1, 9, 1, {{1, 9}}, {{9, 1}}, {{1, 1}}},
      {"row vector times matrix", 1, 9, 6, {{1, 9}, {100, 1}}, {{9, 6}},
       {{1, 6}, {1, 1}}},
      {"matrix times strided column vector", 6, 9, 1, {{6, 9}},
       {{9, 1}, {3, 1}}, {{6, 1}, {4, 1}}},
      {"larger", 64, 96, 80, {{64, 96}}, {{96, 80}, {1, 96}}, {{64, 80}}},
  };
}

TEST_P(GemmOps, MmMatchesTheReferenceInEveryLayout) {
  int seed = 0;
  for (const MmCase &c : mmCases()) {
    SCOPED_TRACE(c.name);
    // A broadcast operand repeats one row: give it equal rows.
    std::vector<double> a = patternValues(c.m * c.k, ++seed);
    if (!c.a.strides.empty() && c.a.strides[0] == 0)
      for (int64_t i = 0; i < c.m * c.k; ++i)
        a[i] = a[i % c.k];
    const std::vector<double> b = patternValues(c.k * c.n, ++seed);
    TensorHandle ta = make(a, c.a);
    TensorHandle tb = make(b, c.b);
    TensorHandle out = nanOut(c.out);
    ASSERT_SHIM_OK(api().mm(out.get(), ta.get(), tb.get()));
    EXPECT_EQ(stridesOf(out), c.out.realStrides()) << "out keeps its layout";
    expectGemmClose(readTensor(out, type()),
                    referenceGemm(a, b, {}, 1, c.m, c.k, c.n, 0.0, 1.0),
                    type(), c.name);
    // The inputs are untouched.
    EXPECT_EQ(readTensor(tb, type()), b);
  }
}

TEST_P(GemmOps, MmWithEmptyDimensions) {
  // Empty inner dimension: the sum is 0, also over a NaN out.
  TensorHandle a = make({}, {{3, 0}});
  TensorHandle b = make({}, {{0, 4}});
  TensorHandle out = nanOut({{3, 4}});
  ASSERT_SHIM_OK(api().mm(out.get(), a.get(), b.get()));
  EXPECT_EQ(readTensor(out, type()), std::vector<double>(12, 0.0));
  // Empty result: nothing to do, and nothing fails.
  TensorHandle a0 = make({}, {{0, 5}});
  TensorHandle b5 = make(patternValues(10, 1), {{5, 2}});
  TensorHandle out0 = make({}, {{0, 2}});
  ASSERT_SHIM_OK(api().mm(out0.get(), a0.get(), b5.get()));
  TensorHandle a3 = make(patternValues(15, 2), {{3, 5}});
  TensorHandle b0 = make({}, {{5, 0}});
  TensorHandle out30 = make({}, {{3, 0}});
  ASSERT_SHIM_OK(api().mm(out30.get(), a3.get(), b0.get()));
}

TEST_P(GemmOps, MmIntoAnOutThatOverlapsAnInput) {
  // out is the first 4x4 block of a's storage: a must be read before out is
  // written.
  const int64_t m = 4, k = 4, n = 4;
  const std::vector<double> a = patternValues(m * k, 3);
  const std::vector<double> b = patternValues(k * n, 4);
  TensorHandle ta = make(a, {{m, k}});
  TensorHandle tb = make(b, {{k, n}});
  TensorHandle out;
  const int64_t sizes[] = {m, n};
  const int64_t strides[] = {n, 1};
  ASSERT_SHIM_OK(
      aoti_torch__reinterpret_tensor(ta.get(), 2, sizes, strides, 0, out.out()));
  ASSERT_SHIM_OK(api().mm(out.get(), ta.get(), tb.get()));
  expectGemmClose(readTensor(out, type()),
                  referenceGemm(a, b, {}, 1, m, k, n, 0.0, 1.0), type(),
                  "out aliases a");
}

struct BiasCase {
  const char *name;
  Layout bias;
  Layout out;
  double beta, alpha;
};

TEST_P(GemmOps, AddmmBroadcastsTheBiasLikeTorch) {
  const int64_t m = 9, k = 17, n = 6;
  const std::vector<double> a = patternValues(m * k, 5);
  const std::vector<double> b = patternValues(k * n, 6);
  TensorHandle ta = make(a, {{m, k}, {}, 2});
  TensorHandle tb = make(b, {{k, n}, {1, k}}); // a transposed weight
  const std::vector<BiasCase> cases = {
      {"bias [n]", {{n}}, {{m, n}}, 0.5, 2.0},
      {"bias [1, n], out column-major", {{1, n}}, {{m, n}, {1, m}}, 1.0, 1.0},
      {"bias [m, 1]", {{m, 1}}, {{m, n}}, -1.5, 0.25},
      {"bias 0-d", {{}}, {{m, n}, {2 * n, 2}}, 2.0, -1.0},
      {"bias [m, n] strided, offset", {{m, n}, {1, m + 3}, 4}, {{m, n}},
       0.75, 1.0},
      {"bias [n] with stride 2", {{n}, {2}}, {{m, n}}, 1.0, 3.0},
  };
  int seed = 10;
  for (const BiasCase &c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<double> bias =
        patternValues(numelOf(c.bias.sizes), ++seed);
    TensorHandle tbias = make(bias, c.bias);
    TensorHandle out = nanOut(c.out);
    ASSERT_SHIM_OK(api().addmm(out.get(), tbias.get(), ta.get(), tb.get(),
                               c.beta, c.alpha));
    expectGemmClose(
        readTensor(out, type()),
        referenceGemm(a, b, broadcastValues(bias, c.bias.sizes, {m, n}), 1, m,
                      k, n, c.beta, c.alpha),
        type(), c.name);
  }
}

TEST_P(GemmOps, AddmmWithBetaZeroNeverReadsSelfOrOut) {
  const std::vector<double> a = patternValues(4 * 5, 8);
  const std::vector<double> b = patternValues(5 * 3, 9);
  TensorHandle ta = make(a, {{4, 5}});
  TensorHandle tb = make(b, {{5, 3}});
  TensorHandle bias = nanOut({{4, 3}});
  for (const Layout &outLayout : {Layout{{4, 3}}, Layout{{4, 3}, {1, 4}},
                                  Layout{{4, 3}, {6, 2}}}) {
    TensorHandle out = nanOut(outLayout);
    ASSERT_SHIM_OK(
        api().addmm(out.get(), bias.get(), ta.get(), tb.get(), 0.0, 1.5));
    expectGemmClose(readTensor(out, type()),
                    referenceGemm(a, b, {}, 1, 4, 5, 3, 0.0, 1.5), type(),
                    "beta 0");
  }
}

TEST_P(GemmOps, AddmmInPlaceOnSelf) {
  const std::vector<double> a = patternValues(3 * 4, 10);
  const std::vector<double> b = patternValues(4 * 2, 11);
  const std::vector<double> c = patternValues(3 * 2, 12);
  TensorHandle ta = make(a, {{3, 4}});
  TensorHandle tb = make(b, {{4, 2}});
  for (const Layout &layout : {Layout{{3, 2}}, Layout{{3, 2}, {1, 3}},
                               Layout{{3, 2}, {4, 2}, 1}}) {
    TensorHandle tc = make(c, layout);
    ASSERT_SHIM_OK(
        api().addmm(tc.get(), tc.get(), ta.get(), tb.get(), 0.5, 2.0));
    expectGemmClose(readTensor(tc, type()),
                    referenceGemm(a, b, c, 1, 3, 4, 2, 0.5, 2.0), type(),
                    "in place");
  }
}

TEST_P(GemmOps, AddmmWithAnEmptyInnerDimensionScalesSelf) {
  TensorHandle a = make({}, {{3, 0}});
  TensorHandle b = make({}, {{0, 2}});
  const std::vector<double> bias = patternValues(2, 13);
  TensorHandle tbias = make(bias, {{2}});
  for (double beta : {0.0, 1.0, 0.5, -2.0}) {
    TensorHandle out = nanOut({{3, 2}});
    ASSERT_SHIM_OK(
        api().addmm(out.get(), tbias.get(), a.get(), b.get(), beta, 1.0));
    std::vector<double> expected;
    for (int i = 0; i < 3; ++i)
      for (double v : bias)
        expected.push_back(beta * v);
    EXPECT_EQ(readTensor(out, type()), expected) << "beta " << beta;
  }
  // The same for a batched, column-major out.
  TensorHandle a3 = make({}, {{2, 3, 0}});
  TensorHandle b3 = make({}, {{2, 0, 2}});
  TensorHandle out3 = nanOut({{2, 3, 2}, {6, 1, 3}});
  ASSERT_SHIM_OK(api().baddbmm(out3.get(), tbias.get(), a3.get(), b3.get(),
                               0.5, 1.0));
  std::vector<double> expected3;
  for (int i = 0; i < 6; ++i)
    for (double v : bias)
      expected3.push_back(0.5 * v);
  EXPECT_EQ(readTensor(out3, type()), expected3);
}

struct BmmLayouts {
  const char *name;
  Layout a, b, out;
};

TEST_P(GemmOps, BmmInSeveralLayouts) {
  const int64_t batch = 3, m = 5, k = 7, n = 4;
  const std::vector<double> a = patternValues(batch * m * k, 13);
  const std::vector<double> b = patternValues(batch * k * n, 14);
  const Expectation expected =
      referenceGemm(a, b, {}, batch, m, k, n, 0.0, 1.0);
  const std::vector<BmmLayouts> cases = {
      {"row-major", {{batch, m, k}}, {{batch, k, n}}, {{batch, m, n}}},
      {"transposed operands", {{batch, m, k}, {m * k, 1, m}},
       {{batch, k, n}, {k * n, 1, k}}, {{batch, m, n}}},
      {"column-major out", {{batch, m, k}}, {{batch, k, n}},
       {{batch, m, n}, {m * n, 1, m}}},
      {"batch dimension innermost in memory", {{batch, m, k}, {k, batch * k, 1}},
       {{batch, k, n}, {n, batch * n, 1}}, {{batch, m, n}, {n, batch * n, 1}}},
      {"offsets and padding", {{batch, m, k}, {m * 8, 8, 1}, 3},
       {{batch, k, n}, {k * n + 2, n, 1}, 1}, {{batch, m, n}, {}, 7}},
      {"out with gaps in both strides", {{batch, m, k}}, {{batch, k, n}},
       {{batch, m, n}, {4 * m * n, 2 * n, 2}}},
  };
  for (const BmmLayouts &l : cases) {
    SCOPED_TRACE(l.name);
    TensorHandle ta = make(a, l.a);
    TensorHandle tb = make(b, l.b);
    TensorHandle out = nanOut(l.out);
    ASSERT_SHIM_OK(api().bmm(out.get(), ta.get(), tb.get()));
    expectGemmClose(readTensor(out, type()), expected, type(), l.name);
  }
}

TEST_P(GemmOps, BmmWithABatchBroadcastOperand) {
  const int64_t batch = 4, m = 3, k = 5, n = 2;
  const std::vector<double> a = patternValues(batch * m * k, 15);
  const std::vector<double> shared = patternValues(k * n, 16);
  std::vector<double> b;
  for (int64_t p = 0; p < batch; ++p)
    b.insert(b.end(), shared.begin(), shared.end());
  TensorHandle ta = make(a, {{batch, m, k}});
  TensorHandle tb = make(b, {{batch, k, n}, {0, n, 1}});
  TensorHandle out = nanOut({{batch, m, n}});
  ASSERT_SHIM_OK(api().bmm(out.get(), ta.get(), tb.get()));
  expectGemmClose(readTensor(out, type()),
                  referenceGemm(a, b, {}, batch, m, k, n, 0.0, 1.0), type(),
                  "batch broadcast");
}

TEST_P(GemmOps, BmmWithEmptyDimensions) {
  TensorHandle a = make({}, {{2, 3, 0}});
  TensorHandle b = make({}, {{2, 0, 4}});
  TensorHandle out = nanOut({{2, 3, 4}});
  ASSERT_SHIM_OK(api().bmm(out.get(), a.get(), b.get()));
  EXPECT_EQ(readTensor(out, type()), std::vector<double>(24, 0.0));
  TensorHandle a0 = make({}, {{0, 3, 5}});
  TensorHandle b0 = make({}, {{0, 5, 4}});
  TensorHandle out0 = make({}, {{0, 3, 4}});
  ASSERT_SHIM_OK(api().bmm(out0.get(), a0.get(), b0.get()));
}

TEST_P(GemmOps, BaddbmmBroadcastsSelf) {
  const int64_t batch = 3, m = 4, k = 6, n = 5;
  const std::vector<double> a = patternValues(batch * m * k, 17);
  const std::vector<double> b = patternValues(batch * k * n, 18);
  TensorHandle ta = make(a, {{batch, m, k}, {m * k, 1, m}});
  TensorHandle tb = make(b, {{batch, k, n}, {}, 2});
  const std::vector<BiasCase> cases = {
      {"self [n]", {{n}}, {{batch, m, n}}, 0.5, 2.0},
      {"self [batch, 1, n]", {{batch, 1, n}}, {{batch, m, n}, {m * n, 1, m}},
       1.0, -1.0},
      {"self [batch, m, n] strided", {{batch, m, n}, {1, batch * n, batch}},
       {{batch, m, n}}, -0.5, 1.0},
      {"beta 0 with a NaN self", {{batch, m, n}}, {{batch, m, n}}, 0.0, 1.0},
  };
  int seed = 20;
  for (const BiasCase &c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<double> self = patternValues(numelOf(c.bias.sizes), ++seed);
    if (c.beta == 0.0)
      self.assign(self.size(), std::nan(""));
    TensorHandle tself = make(self, c.bias);
    TensorHandle out = nanOut(c.out);
    ASSERT_SHIM_OK(api().baddbmm(out.get(), tself.get(), ta.get(), tb.get(),
                                 c.beta, c.alpha));
    std::vector<double> addend;
    if (c.beta != 0.0)
      addend = broadcastValues(self, c.bias.sizes, {batch, m, n});
    expectGemmClose(readTensor(out, type()),
                    referenceGemm(a, b, addend, batch, m, k, n, c.beta,
                                  c.alpha),
                    type(), c.name);
  }
}

TEST_P(GemmOps, NullHandlesAreNamed) {
  TensorHandle m2 = make(patternValues(4, 1), {{2, 2}});
  TensorHandle m3 = make(patternValues(8, 1), {{2, 2, 2}});
  AtenTensorHandle v = m2.get();
  AtenTensorHandle w = m3.get();
  EXPECT_SHIM_FAILS(api().mm(nullptr, v, v), "'out'");
  EXPECT_SHIM_FAILS(api().mm(v, nullptr, v), "'self'");
  EXPECT_SHIM_FAILS(api().mm(v, v, nullptr), "'mat2'");
  EXPECT_SHIM_FAILS(api().addmm(nullptr, v, v, v, 1, 1), "'out'");
  EXPECT_SHIM_FAILS(api().addmm(v, nullptr, v, v, 1, 1), "'self'");
  EXPECT_SHIM_FAILS(api().addmm(v, v, nullptr, v, 1, 1), "'mat1'");
  EXPECT_SHIM_FAILS(api().addmm(v, v, v, nullptr, 1, 1), "'mat2'");
  EXPECT_SHIM_FAILS(api().bmm(nullptr, w, w), "'out'");
  EXPECT_SHIM_FAILS(api().bmm(w, nullptr, w), "'self'");
  EXPECT_SHIM_FAILS(api().bmm(w, w, nullptr), "'mat2'");
  EXPECT_SHIM_FAILS(api().baddbmm(nullptr, w, w, w, 1, 1), "'out'");
  EXPECT_SHIM_FAILS(api().baddbmm(w, nullptr, w, w, 1, 1), "'self'");
  EXPECT_SHIM_FAILS(api().baddbmm(w, w, nullptr, w, 1, 1), "'batch1'");
  EXPECT_SHIM_FAILS(api().baddbmm(w, w, w, nullptr, 1, 1), "'batch2'");
}

TEST_P(GemmOps, BadShapesAreRejectedWithTheArgumentsName) {
  TensorHandle a = make(patternValues(12, 1), {{3, 4}});
  TensorHandle b = make(patternValues(10, 2), {{5, 2}});
  TensorHandle b42 = make(patternValues(8, 2), {{4, 2}});
  TensorHandle out = nanOut({{3, 2}});
  EXPECT_SHIM_FAILS(api().mm(out.get(), a.get(), b.get()),
                    "inner dimensions differ: 'self' [3, 4] @ 'mat2' [5, 2]");
  TensorHandle a3 = make(patternValues(24, 3), {{2, 3, 4}});
  EXPECT_SHIM_FAILS(api().mm(out.get(), a3.get(), b42.get()),
                    "'self' is 3-d, expected 2-d");
  EXPECT_SHIM_FAILS(api().mm(out.get(), a.get(), a3.get()),
                    "'mat2' is 3-d, expected 2-d");
  TensorHandle out33 = nanOut({{3, 3}});
  EXPECT_SHIM_FAILS(api().mm(out33.get(), a.get(), b42.get()),
                    "out is [3, 3], expected [3, 2]");
  TensorHandle bias = make(patternValues(3, 4), {{3}});
  EXPECT_SHIM_FAILS(
      api().addmm(out.get(), bias.get(), a.get(), b42.get(), 1, 1),
      "'self' [3] does not broadcast to the result's shape [3, 2]");
  TensorHandle bias3d = make(patternValues(6, 4), {{1, 3, 2}});
  EXPECT_SHIM_FAILS(
      api().addmm(out.get(), bias3d.get(), a.get(), b42.get(), 1, 1),
      "does not broadcast");
  EXPECT_SHIM_FAILS(api().addmm(out.get(), bias.get(), a3.get(), b42.get(),
                                1, 1),
                    "'mat1' is 3-d, expected 2-d");
  // bmm and baddbmm.
  TensorHandle x = make(patternValues(24, 5), {{2, 3, 4}});
  TensorHandle y = make(patternValues(24, 6), {{3, 4, 2}});
  TensorHandle y2 = make(patternValues(16, 6), {{2, 4, 2}});
  TensorHandle bout = nanOut({{2, 3, 2}});
  EXPECT_SHIM_FAILS(api().bmm(bout.get(), x.get(), y.get()),
                    "batch sizes differ: 'self' 2, 'mat2' 3");
  EXPECT_SHIM_FAILS(api().bmm(bout.get(), x.get(), a.get()),
                    "'mat2' is 2-d, expected 3-d");
  EXPECT_SHIM_FAILS(api().bmm(out.get(), x.get(), y2.get()),
                    "'out' is 2-d, expected 3-d");
  TensorHandle self = make(patternValues(3, 7), {{3}});
  EXPECT_SHIM_FAILS(
      api().baddbmm(bout.get(), self.get(), x.get(), y2.get(), 1, 1),
      "'self' [3] does not broadcast to the result's shape [2, 3, 2]");
  EXPECT_SHIM_FAILS(
      api().baddbmm(bout.get(), bout.get(), x.get(), y.get(), 1, 1),
      "batch sizes differ: 'batch1' 2, 'batch2' 3");
  EXPECT_SHIM_FAILS(
      api().baddbmm(bout.get(), bout.get(), a.get(), y2.get(), 1, 1),
      "'batch1' is 2-d, expected 3-d");
}

TEST_P(GemmOps, DtypesMustAgreeAndBeFloat) {
  TensorHandle a = make(patternValues(6, 1), {{2, 3}});
  TensorHandle b = make(patternValues(6, 2), {{3, 2}});
  TensorHandle out = nanOut({{2, 2}});
  const Dtype other = type().code == aoti_torch_dtype_float64()
                          ? float32Type()
                          : float64Type();
  TensorHandle bOther =
      makeTensor(patternValues(6, 2), {{3, 2}}, other, api().deviceType);
  EXPECT_SHIM_FAILS(api().mm(out.get(), a.get(), bOther.get()),
                    std::string("'mat2' has dtype ") + other.name +
                        ", expected " + type().name);
  TensorHandle outOther =
      makeTensor({0, 0, 0, 0}, {{2, 2}}, other, api().deviceType);
  EXPECT_SHIM_FAILS(api().mm(outOther.get(), a.get(), b.get()),
                    std::string("'out' has dtype ") + other.name);
  TensorHandle biasOther =
      makeTensor({0, 0}, {{2}}, other, api().deviceType);
  EXPECT_SHIM_FAILS(
      api().addmm(out.get(), biasOther.get(), a.get(), b.get(), 1, 1),
      std::string("'self' has dtype ") + other.name);
  // Integer matmuls are not implemented (torch has them on CPU only).
  const Dtype ints = int32Type();
  TensorHandle ia = makeTensor({1, 2, 3, 4, 5, 6}, {{2, 3}}, ints,
                               api().deviceType);
  TensorHandle ib = makeTensor({1, 2, 3, 4, 5, 6}, {{3, 2}}, ints,
                               api().deviceType);
  TensorHandle iout = makeTensor({0, 0, 0, 0}, {{2, 2}}, ints,
                                 api().deviceType);
  EXPECT_SHIM_FAILS(api().mm(iout.get(), ia.get(), ib.get()),
                    "unsupported dtype int32 (supported: float32, float64, "
                    "float16, bfloat16)");
}

} // namespace aoti::test

#endif // AOTI_TESTS_SHIMS_OPS_GEMM_CASES_H
