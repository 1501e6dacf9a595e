//===- ops/scatter_test.cpp - The scatter family --------------------------===//
//
// scatter_src_out, scatter_value_out and scatter_reduce_two_out on every
// device (ops/devices.h). The reference is computed here: every element of
// index, visited in row-major order, sends its src value to out at its own
// coordinates with dim replaced by the index value; a position's values
// are then folded in that order (which, for one position, is the order of
// i along dim) from self or the reduction's identity, in double for the
// floating types and in int64 wrapped to the dtype for the integers, and
// rounded to the dtype once; "mean" divides the rounded sum by the count
// held in the dtype (floor division for integers). The values are small
// integers and halves, which every dtype holds and whose sums and products
// here are exact in each of them, so results must match exactly whatever
// the accumulation order (CUDA's atomics land in any order), except for
// the plain scatter of duplicate indices on CUDA, where any of the
// candidates may win (torch leaves it unspecified there; the CPU keeps the
// last, and is checked for it).
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

#include <functional>
#include <map>

namespace aoti::test {
namespace {

enum class Reduce { Assign, Sum, Prod, Mean, Amax, Amin };

const char *reduceName(Reduce r) {
  static const char *const names[] = {"assign", "sum", "prod", "mean", "amax",
                                      "amin"};
  return names[static_cast<int>(r)];
}

bool isFloating(const Dtype &t) {
  return t.code == aoti_torch_dtype_float32() ||
         t.code == aoti_torch_dtype_float64() ||
         t.code == aoti_torch_dtype_float16() ||
         t.code == aoti_torch_dtype_bfloat16();
}
bool isBool(const Dtype &t) { return t.code == aoti_torch_dtype_bool(); }

int64_t wrapTo(const Dtype &t, int64_t v) {
  const int32_t c = t.code;
  return c == aoti_torch_dtype_int32()   ? static_cast<int32_t>(v)
         : c == aoti_torch_dtype_int16() ? static_cast<int16_t>(v)
         : c == aoti_torch_dtype_int8()  ? static_cast<int8_t>(v)
         : c == aoti_torch_dtype_uint8() ? static_cast<uint8_t>(v)
                                         : v;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

std::vector<int64_t> coordsOf(int64_t linear, const std::vector<int64_t> &sizes) {
  std::vector<int64_t> c(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    c[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return c;
}
int64_t linearOf(const std::vector<int64_t> &c, const std::vector<int64_t> &sizes) {
  int64_t l = 0;
  for (size_t d = 0; d < sizes.size(); ++d)
    l = l * sizes[d] + c[d];
  return l;
}

// The values each position of out receives, in order.
std::map<int64_t, std::vector<double>>
contributions(const std::vector<int64_t> &selfSizes,
              const std::vector<double> &index,
              const std::vector<int64_t> &indexSizes,
              const std::function<double(const std::vector<int64_t> &)> &srcAt,
              int64_t dim) {
  std::map<int64_t, std::vector<double>> sent;
  for (int64_t l = 0; l < static_cast<int64_t>(index.size()); ++l) {
    std::vector<int64_t> c = coordsOf(l, indexSizes);
    const double v = srcAt(c);
    if (!selfSizes.empty())
      c[dim] = static_cast<int64_t>(index[l]);
    sent[selfSizes.empty() ? 0 : linearOf(c, selfSizes)].push_back(v);
  }
  return sent;
}

// `value` rounded to nearest-even in `t` (the test utilities' roundTrip
// truncates bfloat16, for values it holds exactly; a mean may not be).
double nearest(const Dtype &t, double value) {
  if (t.code != aoti_torch_dtype_bfloat16())
    return roundTrip(t, value);
  const float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

double fold(Reduce op, const Dtype &t, bool includeSelf, double self,
            const std::vector<double> &values) {
  if (isFloating(t)) {
    double acc;
    size_t n = values.size();
    switch (op) {
    case Reduce::Prod:
      acc = includeSelf ? self : 1.0;
      for (double v : values)
        acc *= v;
      return roundTrip(t, acc);
    case Reduce::Amax:
    case Reduce::Amin: {
      // A reached position has at least one value: the identity never shows.
      acc = includeSelf ? self : values[0];
      for (double v : values)
        acc = std::isnan(acc) || std::isnan(v)
                  ? std::nan("")
                  : (op == Reduce::Amax ? std::max(acc, v) : std::min(acc, v));
      return roundTrip(t, acc);
    }
    default:
      acc = includeSelf ? self : 0.0;
      for (double v : values)
        acc += v;
      acc = roundTrip(t, acc);
      if (op == Reduce::Mean)
        acc = nearest(t, acc / roundTrip(t, static_cast<double>(n + (includeSelf ? 1 : 0))));
      return acc;
    }
  }
  if (isBool(t)) {
    bool acc = includeSelf ? self != 0 : (op == Reduce::Prod || op == Reduce::Amin);
    for (double v : values)
      acc = (op == Reduce::Prod || op == Reduce::Amin) ? (acc && v != 0)
                                                      : (acc || v != 0);
    return acc ? 1.0 : 0.0;
  }
  int64_t acc;
  switch (op) {
  case Reduce::Prod:
    acc = includeSelf ? static_cast<int64_t>(self) : 1;
    for (double v : values)
      acc = wrapTo(t, static_cast<int64_t>(static_cast<uint64_t>(acc) *
                                           static_cast<uint64_t>(static_cast<int64_t>(v))));
    return static_cast<double>(acc);
  case Reduce::Amax:
  case Reduce::Amin:
    acc = static_cast<int64_t>(includeSelf ? self : values[0]);
    for (double v : values)
      acc = op == Reduce::Amax ? std::max<int64_t>(acc, static_cast<int64_t>(v))
                               : std::min<int64_t>(acc, static_cast<int64_t>(v));
    return static_cast<double>(acc);
  default: {
    acc = includeSelf ? static_cast<int64_t>(self) : 0;
    for (double v : values)
      acc += static_cast<int64_t>(v);
    acc = wrapTo(t, acc);
    if (op == Reduce::Mean) {
      int64_t count = wrapTo(t, static_cast<int64_t>(values.size()) + (includeSelf ? 1 : 0));
      if (count == 0)
        count = 1;
      acc = wrapTo(t, floorDiv(acc, count));
    }
    return static_cast<double>(acc);
  }
  }
}

// Reference result of a scatter: self's values with every reached position
// replaced.
std::vector<double> reference(Reduce op, const Dtype &t, bool includeSelf,
                              const std::vector<double> &self,
                              const std::vector<int64_t> &selfSizes,
                              const std::map<int64_t, std::vector<double>> &sent) {
  std::vector<double> out(self.size());
  for (size_t i = 0; i < self.size(); ++i)
    out[i] = roundTrip(t, self[i]);
  for (const auto &[at, values] : sent)
    out[at] = op == Reduce::Assign ? roundTrip(t, values.back())
                                   : fold(op, t, includeSelf, roundTrip(t, self[at]),
                                          values);
  return out;
}

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// Small integers and halves, varied by seed, every dtype holds them.
std::vector<double> smallValues(int64_t n, int seed, bool halves = true) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = (i * 5 + seed * 3) % 9 - 4; // -4..4
    v[i] = halves && (i + seed) % 3 == 0 ? k + 0.5 : static_cast<double>(k);
  }
  return v;
}

// Index values in [0, bound), with repeats, varied by seed.
std::vector<double> indexValues(int64_t n, int64_t bound, int seed) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<double>((i * 7 + seed * 11 + i / 3) % bound);
  return v;
}

class ScatterOps : public OpTest {
protected:
  using SrcFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, int64_t,
                                   AtenTensorHandle, AtenTensorHandle);
  using ValueFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                     int64_t, AtenTensorHandle, double);
  using ReduceFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                      int64_t, AtenTensorHandle,
                                      AtenTensorHandle, const char *, int32_t);
  SrcFn srcEntry() const {
    return onCuda() ? aoti_torch_cuda_scatter_src_out
                    : aoti_torch_cpu_scatter_src_out;
  }
  ValueFn valueEntry() const {
    return onCuda() ? aoti_torch_cuda_scatter_value_out
                    : aoti_torch_cpu_scatter_value_out;
  }
  ReduceFn reduceEntry() const {
    return onCuda() ? aoti_torch_cuda_scatter_reduce_two_out
                    : aoti_torch_cpu_scatter_reduce_two_out;
  }

  struct Case {
    Layout self, index, src, out;
    std::vector<double> selfValues, indexValues, srcValues;
    int64_t dim;
  };

  // Runs one scatter (src form, reduce or not) and checks out against the
  // reference; `any` accepts any candidate at positions reached twice (the
  // plain scatter on CUDA).
  void check(const Case &c, const Dtype &t, Reduce op, bool includeSelf,
             const Dtype &indexType, const std::string &what) {
    SCOPED_TRACE(what + " " + t.name + " " + reduceName(op) +
                 (includeSelf ? " include_self" : " exclude_self"));
    TensorHandle self = tensor(c.selfValues, c.self, t);
    TensorHandle index = tensor(c.indexValues, c.index, indexType);
    TensorHandle src = tensor(c.srcValues, c.src, t);
    TensorHandle out = tensor(smallValues(numelOf(c.out.sizes), 9), c.out, t);
    if (op == Reduce::Assign)
      ASSERT_SHIM_OK(srcEntry()(out.get(), self.get(), c.dim, index.get(),
                                src.get()));
    else
      ASSERT_SHIM_OK(reduceEntry()(out.get(), self.get(), c.dim, index.get(),
                                   src.get(), reduceName(op), includeSelf));
    EXPECT_EQ(sizesOf(out), c.out.sizes);
    EXPECT_EQ(stridesOf(out), c.out.realStrides());
    const int64_t rank = static_cast<int64_t>(c.self.sizes.size());
    const int64_t dim = c.dim < 0 ? c.dim + std::max<int64_t>(rank, 1) : c.dim;
    auto srcAt = [&](const std::vector<int64_t> &coords) {
      return c.srcValues[c.src.sizes.empty() ? 0 : linearOf(coords, c.src.sizes)];
    };
    const auto sent =
        contributions(c.self.sizes, c.indexValues, c.index.sizes, srcAt, dim);
    const std::vector<double> expected =
        reference(op, t, includeSelf, c.selfValues, c.self.sizes, sent);
    const std::vector<double> actual = readTensor(out, t);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      auto it = sent.find(static_cast<int64_t>(i));
      if (op == Reduce::Assign && onCuda() && it != sent.end() &&
          it->second.size() > 1) {
        bool found = false;
        for (double v : it->second)
          found = found || sameValue(actual[i], roundTrip(t, v));
        EXPECT_TRUE(found) << "element " << i << " is " << actual[i]
                           << ", not one of the values scattered to it";
        continue;
      }
      EXPECT_TRUE(sameValue(actual[i], expected[i]))
          << "element " << i << " is " << actual[i] << ", expected "
          << expected[i];
    }
  }

  // A case along `dim` of a contiguous [4, 5, 6] self, index [3, 4, 5]
  // (index.size(dim) may exceed self's: 5 along a dim of 4 repeats).
  Case denseCase(int64_t dim, int seed) const {
    Case c;
    c.self = {{4, 5, 6}};
    c.out = c.self;
    c.index = {{3, 4, 5}};
    c.src = {{3, 5, 5}};
    c.dim = dim;
    const int64_t d = dim < 0 ? dim + 3 : dim;
    c.selfValues = smallValues(4 * 5 * 6, seed);
    c.indexValues = indexValues(3 * 4 * 5, c.self.sizes[d], seed);
    c.srcValues = smallValues(3 * 5 * 5, seed + 1);
    return c;
  }
};

std::vector<Dtype> allDtypes() {
  return {float32Type(), float64Type(), float16Type(), bfloat16Type(),
          int64Type(),   int32Type(),   int16Type(),   int8Type(),
          uint8Type(),   boolType()};
}

TEST_P(ScatterOps, ScatterAlongEveryDimension) {
  for (int64_t dim : {0, 1, 2, -1, -3})
    for (const Dtype &t : {float32Type(), int64Type()})
      check(denseCase(dim, static_cast<int>(dim + 4)), t, Reduce::Assign, true,
            int64Type(), "dim " + std::to_string(dim));
}

TEST_P(ScatterOps, ScatterEveryDtypeAndInt32Indices) {
  for (const Dtype &t : allDtypes())
    for (const Dtype &it : {int64Type(), int32Type()}) {
      Case c = denseCase(1, 2);
      if (isBool(t))
        for (double &v : c.srcValues)
          v = v > 0 ? 1 : 0;
      if (t.code == aoti_torch_dtype_uint8())
        for (double &v : c.srcValues)
          v = std::fabs(std::floor(v));
      check(c, t, Reduce::Assign, true, it, std::string("index ") + it.name);
    }
}

TEST_P(ScatterOps, DuplicateIndicesKeepTheLastWriteOnTheCpu) {
  // Every element of a line goes to position 1: the CPU keeps i = 3's.
  Case c;
  c.self = c.out = {{2, 3}};
  c.index = {{2, 4}};
  c.src = {{2, 4}};
  c.dim = 1;
  c.selfValues = {0, 0, 0, 0, 0, 0};
  c.indexValues = {1, 1, 1, 1, 2, 0, 2, 2};
  c.srcValues = {1, 2, 3, 4, 5, 6, 7, 8};
  check(c, float32Type(), Reduce::Assign, true, int64Type(), "duplicates");
  if (!onCuda()) {
    TensorHandle out = tensor({9, 9, 9, 9, 9, 9}, {{2, 3}}, float32Type());
    TensorHandle self = tensor(c.selfValues, c.self, float32Type());
    TensorHandle index = tensor(c.indexValues, c.index, int64Type());
    TensorHandle src = tensor(c.srcValues, c.src, float32Type());
    ASSERT_SHIM_OK(srcEntry()(out.get(), self.get(), 1, index.get(), src.get()));
    EXPECT_EQ(readTensor(out, float32Type()),
              (std::vector<double>{0, 4, 0, 6, 0, 8}));
  }
}

TEST_P(ScatterOps, StridedOffsetAndBroadcastInputs) {
  Case c = denseCase(2, 3);
  c.self = {{4, 5, 6}, {1, 4, 20}, 0};                 // permuted
  c.index = {{3, 4, 5}, {60, 12, 2}, 5};               // gaps, offset
  c.src = {{3, 5, 5}, {0, 5, 1}, 2};                   // broadcast dim 0
  c.out = {{4, 5, 6}, {60, 1, 5}, 3};                  // another order, offset
  for (int64_t i = 0; i < 5 * 5; ++i) // src equal along the broadcast dim
    c.srcValues[25 + i] = c.srcValues[50 + i] = c.srcValues[i];
  for (Reduce op : {Reduce::Assign, Reduce::Sum, Reduce::Mean, Reduce::Amax})
    check(c, float32Type(), op, true, int64Type(), "strided");
  check(c, int32Type(), Reduce::Prod, false, int32Type(), "strided");
}

TEST_P(ScatterOps, AnIndexExpandedAlongRowsReducesEveryColumn) {
  // index [N, 1] expanded to [N, 64] (strides (1, 0)), the layout of
  // scatter_reduce(x, 0, i.expand_as(src), src): CUDA numbers the elements
  // with the column fastest (torch's TensorIterator order), and along dim
  // otherwise; both must give the same sums.
  Case c;
  c.self = c.out = {{30, 64}};
  c.src = {{500, 64}};
  c.index = {{500, 64}, {1, 0}};
  c.dim = 0;
  c.selfValues = smallValues(30 * 64, 1, false);
  c.srcValues = smallValues(500 * 64, 2, false);
  const std::vector<double> rows = indexValues(500, 30, 3);
  for (int64_t i = 0; i < 500; ++i)
    for (int64_t j = 0; j < 64; ++j)
      c.indexValues.push_back(rows[i]);
  for (Reduce op : {Reduce::Sum, Reduce::Mean, Reduce::Amax})
    check(c, float32Type(), op, true, int64Type(), "expanded index");
  check(c, float32Type(), Reduce::Amin, false, int32Type(), "expanded index");
  // The transpose: src [64, 500] scattered along dim 1, index (0, 1).
  Case t;
  t.self = t.out = {{64, 30}};
  t.src = {{64, 500}};
  t.index = {{64, 500}, {0, 1}};
  t.dim = 1;
  t.selfValues = smallValues(64 * 30, 4, false);
  t.srcValues = smallValues(64 * 500, 5, false);
  for (int64_t j = 0; j < 64; ++j)
    for (int64_t i = 0; i < 500; ++i)
      t.indexValues.push_back(rows[i]);
  check(t, float32Type(), Reduce::Sum, true, int64Type(), "expanded columns");
}

TEST_P(ScatterOps, EveryReductionEveryDtype) {
  for (const Dtype &t : allDtypes())
    for (Reduce op : {Reduce::Sum, Reduce::Prod, Reduce::Mean, Reduce::Amax,
                      Reduce::Amin})
      for (bool includeSelf : {true, false}) {
        if (isBool(t) && op == Reduce::Mean)
          continue;
        for (int64_t dim : {0, 2}) {
          Case c = denseCase(dim, static_cast<int>(dim) + 1);
          if (op == Reduce::Prod) // keep products exact and small
            for (double &v : c.srcValues)
              v = v == 0 ? 1 : (v > 0 ? 2 : -1);
          if (isBool(t) || t.code == aoti_torch_dtype_uint8()) {
            for (double &v : c.srcValues)
              v = isBool(t) ? (v > 0 ? 1 : 0) : std::fabs(std::floor(v));
            for (double &v : c.selfValues)
              v = isBool(t) ? (v > 1 ? 1 : 0) : std::fabs(std::floor(v));
          }
          if (!isFloating(t)) {
            for (double &v : c.selfValues)
              v = std::floor(v);
            for (double &v : c.srcValues)
              v = std::floor(v);
          }
          check(c, t, op, includeSelf, dim == 0 ? int64Type() : int32Type(),
                "dim " + std::to_string(dim));
        }
      }
}

TEST_P(ScatterOps, IntegersWrapAndMeanFloorDivides) {
  Case c;
  c.self = c.out = {{4}};
  c.index = c.src = {{6}};
  c.dim = 0;
  c.selfValues = {100, -7, 0, 5};
  c.indexValues = {0, 0, 1, 1, 1, 3};
  c.srcValues = {100, 100, -1, -1, -2, 2};
  for (bool includeSelf : {true, false}) {
    check(c, int8Type(), Reduce::Sum, includeSelf, int64Type(), "int8 wraps");
    check(c, int8Type(), Reduce::Mean, includeSelf, int64Type(), "int8 mean");
    check(c, int64Type(), Reduce::Mean, includeSelf, int64Type(),
          "floor of negative means");
    check(c, int16Type(), Reduce::Prod, includeSelf, int64Type(), "int16");
  }
  // 300 values into one int8 position: the count wraps to 44 as torch's
  // int8 count tensor does.
  Case many;
  many.self = many.out = {{2}};
  many.index = many.src = {{300}};
  many.dim = 0;
  many.selfValues = {1, 1};
  many.indexValues.assign(300, 0);
  many.srcValues.assign(300, 1);
  check(many, int8Type(), Reduce::Mean, false, int64Type(), "count wraps");
}

TEST_P(ScatterOps, AmaxAndAminPropagateNan) {
  const double nan = std::nan("");
  Case c;
  c.self = c.out = {{4}};
  c.index = c.src = {{6}};
  c.dim = 0;
  c.selfValues = {nan, 1, 2, 3};
  c.indexValues = {0, 1, 1, 2, 2, 3};
  c.srcValues = {5, nan, 7, -1, 4, -2};
  for (const Dtype &t : {float32Type(), float64Type(), float16Type(), bfloat16Type()})
    for (Reduce op : {Reduce::Amax, Reduce::Amin, Reduce::Sum})
      for (bool includeSelf : {true, false})
        check(c, t, op, includeSelf, int64Type(), "nan");
}

TEST_P(ScatterOps, HalfSumsAndMeans) {
  // Values whose sum float16 holds exactly while the halves do not all
  // round the same: the CPU reduces in float then rounds once.
  Case c;
  c.self = c.out = {{3}};
  c.index = c.src = {{6}};
  c.dim = 0;
  c.selfValues = {1, 2, 3};
  c.indexValues = {0, 0, 0, 1, 1, 2};
  c.srcValues = {0.5, 0.25, 0.125, 1, 2, 3};
  for (const Dtype &t : {float16Type(), bfloat16Type()})
    for (Reduce op : {Reduce::Sum, Reduce::Mean, Reduce::Prod})
      check(c, t, op, true, int64Type(), "16-bit");
}

TEST_P(ScatterOps, ValueForm) {
  for (const Dtype &t : allDtypes()) {
    SCOPED_TRACE(t.name);
    const std::vector<double> selfValues = smallValues(12, 4, isFloating(t));
    std::vector<double> selfFixed = selfValues;
    if (!isFloating(t))
      for (double &v : selfFixed)
        v = isBool(t) ? (v > 0 ? 1 : 0) : std::fabs(v);
    TensorHandle self = tensor(selfFixed, {{3, 4}}, t);
    TensorHandle index = tensor({2, 0, 1, 0, 0, 0}, {{2, 3}}, int64Type());
    TensorHandle out = tensor(std::vector<double>(12, 0), {{3, 4}}, t);
    const double value = isBool(t) ? 1.0 : (isFloating(t) ? 2.5 : 7.0);
    ASSERT_SHIM_OK(valueEntry()(out.get(), self.get(), 0, index.get(), value));
    std::vector<double> expected;
    for (double v : selfFixed)
      expected.push_back(roundTrip(t, v));
    // index[r][c] = k sets out[k][c].
    const int64_t idx[2][3] = {{2, 0, 1}, {0, 0, 0}};
    for (int r = 0; r < 2; ++r)
      for (int col = 0; col < 3; ++col)
        expected[idx[r][col] * 4 + col] = roundTrip(t, value);
    EXPECT_EQ(readTensor(out, t), expected);
  }
  // Truncation of a fractional value into an integer.
  TensorHandle self = tensor({0, 0}, {{2}}, int32Type());
  TensorHandle index = tensor({1}, {{1}}, int64Type());
  TensorHandle out = tensor({5, 5}, {{2}}, int32Type());
  ASSERT_SHIM_OK(valueEntry()(out.get(), self.get(), 0, index.get(), -3.75));
  EXPECT_EQ(readTensor(out, int32Type()), (std::vector<double>{0, -3}));
}

TEST_P(ScatterOps, ZeroDimEmptyAndInPlace) {
  // 0-d self, index and src.
  Case z;
  z.self = z.out = z.index = z.src = {{}};
  z.dim = 0;
  z.selfValues = {1.5};
  z.indexValues = {0};
  z.srcValues = {-2};
  check(z, float32Type(), Reduce::Assign, true, int64Type(), "0-d");
  z.dim = -1;
  check(z, float32Type(), Reduce::Sum, true, int64Type(), "0-d sum");
  // An empty index copies self (and any index dtype is accepted).
  TensorHandle self = tensor(smallValues(6, 1), {{2, 3}}, float32Type());
  TensorHandle out = tensor(std::vector<double>(6, 9), {{2, 3}}, float32Type());
  TensorHandle empty = tensor({}, {{2, 0}}, float32Type());
  TensorHandle src = tensor({}, {{0, 0}}, float32Type());
  ASSERT_SHIM_OK(srcEntry()(out.get(), self.get(), 1, empty.get(), src.get()));
  EXPECT_EQ(readTensor(out, float32Type()), readTensor(self, float32Type()));
  // ... whatever its rank (torch skips the shape checks for it).
  TensorHandle emptyDeep = tensor({}, {{1, 0, 2, 2}}, int64Type());
  TensorHandle out2 = tensor(std::vector<double>(6, 9), {{2, 3}}, float32Type());
  ASSERT_SHIM_OK(reduceEntry()(out2.get(), self.get(), 1, emptyDeep.get(),
                               src.get(), "sum", 0));
  EXPECT_EQ(readTensor(out2, float32Type()), readTensor(self, float32Type()));
  // Empty self and out.
  TensorHandle none = tensor({}, {{0, 3}}, float32Type());
  TensorHandle noneOut = tensor({}, {{0, 3}}, float32Type());
  TensorHandle noIndex = tensor({}, {{0, 3}}, int64Type());
  ASSERT_SHIM_OK(reduceEntry()(noneOut.get(), none.get(), 0, noIndex.get(),
                               none.get(), "sum", 1));
  // out is self: the scatter is in place.
  TensorHandle inPlace = tensor({1, 2, 3}, {{3}}, float32Type());
  TensorHandle index = tensor({2, 2}, {{2}}, int64Type());
  TensorHandle values = tensor({10, 20}, {{2}}, float32Type());
  ASSERT_SHIM_OK(reduceEntry()(inPlace.get(), inPlace.get(), 0, index.get(),
                               values.get(), "sum", 1));
  EXPECT_EQ(readTensor(inPlace, float32Type()), (std::vector<double>{1, 2, 33}));
}

TEST_P(ScatterOps, ManyElementsAndHeavyCollisions) {
  // Past one block of threads and past a grid-stride pass, with every
  // element of a line on 3 positions: atomics race hard on CUDA, and the
  // integer-valued float sums stay exact in any order.
  Case c;
  c.self = c.out = {{3, 7}};
  c.index = c.src = {{3, 70000}};
  c.dim = 1;
  c.selfValues = smallValues(21, 1, false);
  c.indexValues = indexValues(3 * 70000, 3, 5);
  c.srcValues = smallValues(3 * 70000, 2, false);
  for (Reduce op : {Reduce::Sum, Reduce::Mean, Reduce::Amax, Reduce::Amin})
    check(c, float32Type(), op, true, int64Type(), "collisions");
  check(c, int64Type(), Reduce::Sum, false, int32Type(), "collisions");
  check(c, int8Type(), Reduce::Sum, true, int64Type(), "int8 collisions");
  check(c, float16Type(), Reduce::Amax, false, int64Type(), "fp16 collisions");
}

TEST_P(ScatterOps, BadArgumentsAreRefusedAndOutIsUntouched) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const Dtype f = float32Type();
  TensorHandle self = tensor(smallValues(6, 1), {{2, 3}}, f);
  TensorHandle index = tensor({0, 1, 2, 1}, {{2, 2}}, int64Type());
  TensorHandle src = tensor(smallValues(6, 2), {{2, 3}}, f);
  const std::vector<double> outBefore(6, 42);
  TensorHandle out = tensor(outBefore, {{2, 3}}, f);
  auto run = [&](AtenTensorHandle o, AtenTensorHandle s, int64_t dim,
                 AtenTensorHandle i, AtenTensorHandle v) {
    return srcEntry()(o, s, dim, i, v);
  };
  EXPECT_SHIM_FAILS(run(nullptr, self.get(), 0, index.get(), src.get()),
                    "'out' is null");
  EXPECT_SHIM_FAILS(run(out.get(), nullptr, 0, index.get(), src.get()),
                    "'self' is null");
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 2, index.get(), src.get()),
                    "dim 2 is out of range for a 2-d 'self'");
  TensorHandle floatIndex = tensor({0, 1, 0, 1}, {{2, 2}}, f);
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, floatIndex.get(), src.get()),
                    "Expected dtype int32/int64 for index");
  TensorHandle doubleSrc = tensor(smallValues(6, 2), {{2, 3}}, float64Type());
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, index.get(), doubleSrc.get()),
                    "Expected self.dtype to be equal to src.dtype");
  TensorHandle flatIndex = tensor({0, 1}, {{2}}, int64Type());
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, flatIndex.get(), src.get()),
                    "Index tensor must have the same number of dimensions as self");
  TensorHandle wideIndex = tensor(std::vector<double>(8, 0), {{2, 4}}, int64Type());
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, wideIndex.get(), src.get()),
                    "Expected index [2, 4] to be no larger than self [2, 3] apart "
                    "from dimension 0");
  TensorHandle smallSrc = tensor({1, 2}, {{1, 2}}, f);
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, index.get(), smallSrc.get()),
                    "to be no larger size than src [1, 2]");
  TensorHandle badIndex = tensor({0, 1, 2, 5}, {{2, 2}}, int64Type());
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 1, badIndex.get(), src.get()),
                    "index 5 is out of bounds for dimension 1 with size 3");
  TensorHandle negIndex = tensor({0, -1, 0, 0}, {{2, 2}}, int32Type());
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, negIndex.get(), src.get()),
                    "index -1 is out of bounds for dimension 0 with size 2");
  TensorHandle wrongOut = tensor(std::vector<double>(4, 0), {{2, 2}}, f);
  EXPECT_SHIM_FAILS(run(wrongOut.get(), self.get(), 0, index.get(), src.get()),
                    "'out' has sizes [2, 2] but the result has self's sizes [2, 3]");
  TensorHandle doubleOut = tensor(std::vector<double>(6, 0), {{2, 3}}, float64Type());
  EXPECT_SHIM_FAILS(run(doubleOut.get(), self.get(), 0, index.get(), src.get()),
                    "Expected out tensor to have dtype float32, but got float64");
  TensorHandle broadcastOut = tensor({1, 2, 3, 1, 2, 3}, {{2, 3}, {0, 1}}, f);
  EXPECT_SHIM_FAILS(run(broadcastOut.get(), self.get(), 0, index.get(), src.get()),
                    "'out' has stride 0 in dimension 0");
  EXPECT_SHIM_FAILS(run(out.get(), self.get(), 0, index.get(), out.get()),
                    "'out' and 'src' share memory");
  EXPECT_SHIM_FAILS(reduceEntry()(out.get(), self.get(), 0, index.get(),
                                  src.get(), "max", 1),
                    "reduce argument must be either sum, prod, mean, amax or amin");
  EXPECT_SHIM_FAILS(reduceEntry()(out.get(), self.get(), 0, index.get(),
                                  src.get(), nullptr, 1),
                    "'reduce' is null");
  TensorHandle boolSelf = tensor({1, 0, 1, 0, 1, 0}, {{2, 3}}, boolType());
  TensorHandle boolOut = tensor(std::vector<double>(6, 0), {{2, 3}}, boolType());
  EXPECT_SHIM_FAILS(reduceEntry()(boolOut.get(), boolSelf.get(), 0, index.get(),
                                  boolSelf.get(), "mean", 1),
                    "'mean' is not implemented for bool");
  TensorHandle u32;
  const int64_t sizes[] = {2, 3};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_uint32(), device(), 0,
                                          u32.out()));
  TensorHandle u32Out;
  ASSERT_SHIM_OK(aoti_torch_empty_strided(2, sizes, nullptr,
                                          aoti_torch_dtype_uint32(), device(), 0,
                                          u32Out.out()));
  EXPECT_SHIM_FAILS(run(u32Out.get(), u32.get(), 0, index.get(), u32.get()),
                    "kernel for uint32");
  // The value form refuses what the dtype cannot hold, as c10 does.
  TensorHandle bytes = tensor(std::vector<double>(6, 0), {{2, 3}}, uint8Type());
  TensorHandle bytesOut = tensor(std::vector<double>(6, 0), {{2, 3}}, uint8Type());
  EXPECT_SHIM_FAILS(valueEntry()(bytesOut.get(), bytes.get(), 0, index.get(), 300),
                    "value cannot be converted to type uint8 without overflow");
  EXPECT_SHIM_FAILS(valueEntry()(bytesOut.get(), bytes.get(), 0, index.get(), -1),
                    "without overflow");
  EXPECT_SHIM_FAILS(valueEntry()(boolOut.get(), boolSelf.get(), 0, index.get(), 2),
                    "type bool without overflow");
  TensorHandle ints = tensor(std::vector<double>(6, 0), {{2, 3}}, int32Type());
  TensorHandle intsOut = tensor(std::vector<double>(6, 0), {{2, 3}}, int32Type());
  EXPECT_SHIM_FAILS(valueEntry()(intsOut.get(), ints.get(), 0, index.get(),
                                 std::nan("")),
                    "type int32 without overflow");
  EXPECT_SHIM_FAILS(valueEntry()(out.get(), self.get(), 0, index.get(), 1e39),
                    "type float32 without overflow");
  TensorHandle halves = tensor(std::vector<double>(6, 0), {{2, 3}}, float16Type());
  TensorHandle halvesOut = tensor(std::vector<double>(6, 0), {{2, 3}}, float16Type());
  EXPECT_SHIM_FAILS(valueEntry()(halvesOut.get(), halves.get(), 0, index.get(), 70000),
                    "type float16 without overflow");
  TensorHandle goodIndex = tensor({0, 1, 1, 0}, {{2, 2}}, int64Type());
  EXPECT_SHIM_OK(valueEntry()(halvesOut.get(), halves.get(), 0, goodIndex.get(),
                              HUGE_VAL)); // infinity fits: float16 has one
  EXPECT_EQ(readTensor(out, f), outBefore);
}

INSTANTIATE_TEST_SUITE_P(, ScatterOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- segment_reduce -------------------------------------------------------------

// Reference reduction of one segment in the dtype's arithmetic: every
// step rounded to the dtype (torch's kernels compute in scalar_t).
double segmentReference(const std::string &reduce, const Dtype &t,
                        const std::vector<double> &values, const double *initial) {
  double acc;
  if (initial)
    acc = nearest(t, *initial);
  else if (reduce == "max")
    acc = -HUGE_VAL;
  else if (reduce == "min")
    acc = HUGE_VAL;
  else if (reduce == "prod")
    acc = 1;
  else
    acc = 0;
  for (double v : values) {
    v = roundTrip(t, v);
    if (reduce == "max")
      acc = std::isnan(v) ? v : (acc < v ? v : acc);
    else if (reduce == "min")
      acc = std::isnan(v) ? v : (v < acc ? v : acc);
    else if (reduce == "prod")
      acc = nearest(t, acc * v);
    else
      acc = nearest(t, acc + v);
  }
  if (reduce == "mean") {
    if (values.empty() && !initial)
      return std::nan("");
    if (!values.empty() && !std::isnan(acc))
      acc = nearest(t, acc / static_cast<double>(values.size()));
  }
  return acc;
}

class SegmentReduceOps : public OpTest {
protected:
  using Fn = AOTITorchError (*)(AtenTensorHandle, const char *,
                                AtenTensorHandle *, AtenTensorHandle *,
                                AtenTensorHandle *, int64_t, int32_t, double *,
                                AtenTensorHandle *);
  Fn entry() const {
    return onCuda() ? aoti_torch_cuda_segment_reduce
                    : aoti_torch_cpu_segment_reduce;
  }
  // data [outer, n, inner] (row-major values, sizes `sizes` with axis),
  // segments given per outer row as `bounds` (row-major [outer, S + 1]),
  // passed as lengths or offsets of `segType`.
  void check(const std::vector<double> &data, const std::vector<int64_t> &sizes,
             int64_t axis, const std::vector<std::vector<int64_t>> &bounds,
             bool asOffsets, const Dtype &t, const Dtype &segType,
             const std::string &reduce, const double *initial, bool unsafe,
             const std::string &what) {
    SCOPED_TRACE(what + " " + t.name + " " + reduce +
                 (asOffsets ? " offsets" : " lengths"));
    const int64_t a = axis < 0 ? axis + static_cast<int64_t>(sizes.size()) : axis;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d)
      outer *= sizes[d];
    for (size_t d = a + 1; d < sizes.size(); ++d)
      inner *= sizes[d];
    const int64_t segments = static_cast<int64_t>(bounds[0].size()) - 1;
    std::vector<double> seg;
    for (const auto &row : bounds)
      for (size_t k = asOffsets ? 0 : 1; k < row.size(); ++k)
        seg.push_back(static_cast<double>(asOffsets ? row[k] : row[k] - row[k - 1]));
    std::vector<int64_t> segSizes(sizes.begin(), sizes.begin() + a);
    segSizes.push_back(asOffsets ? segments + 1 : segments);
    TensorHandle x = tensor(data, {sizes}, t);
    TensorHandle g = tensor(seg, {segSizes}, segType);
    AtenTensorHandle gh = g.get();
    double init = initial ? *initial : 0;
    TensorHandle out;
    ASSERT_SHIM_OK(entry()(x.get(), reduce.c_str(), asOffsets ? nullptr : &gh,
                           nullptr, asOffsets ? &gh : nullptr, axis, unsafe,
                           initial ? &init : nullptr, out.out()));
    std::vector<int64_t> outSizes = sizes;
    outSizes[a] = segments;
    EXPECT_EQ(sizesOf(out), outSizes);
    EXPECT_EQ(stridesOf(out), contiguousStridesOf(outSizes));
    std::vector<double> expected;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t s = 0; s < segments; ++s)
        for (int64_t i = 0; i < inner; ++i) {
          std::vector<double> values;
          for (int64_t j = bounds[o][s]; j < bounds[o][s + 1]; ++j)
            values.push_back(data[(o * sizes[a] + j) * inner + i]);
          // "amax" and "amin" are torch's other names of max and min.
          const std::string name = reduce == "amax"   ? "max"
                                   : reduce == "amin" ? "min"
                                                      : reduce;
          expected.push_back(segmentReference(name, t, values, initial));
        }
    const std::vector<double> actual = readTensor(out, t);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t k = 0; k < actual.size(); ++k)
      EXPECT_TRUE(sameValue(actual[k], expected[k]))
          << "element " << k << " is " << actual[k] << ", expected " << expected[k];
  }
};

TEST_P(SegmentReduceOps, EveryReductionDtypeAndForm) {
  const std::vector<double> data = {1, -2, 3.5, 0.5, 4, -1, 2, 2.5};
  const std::vector<std::vector<int64_t>> bounds = {{0, 2, 2, 5, 8}};
  const double initial = 1.5;
  for (const Dtype &t : {float32Type(), float64Type(), float16Type(), bfloat16Type()})
    for (const char *reduce : {"sum", "mean", "max", "min", "prod", "amax", "amin"})
      for (bool asOffsets : {false, true})
        for (const double *init : {static_cast<const double *>(nullptr), &initial})
          check(data, {8}, 0, bounds, asOffsets, t,
                asOffsets ? int64Type() : int32Type(), reduce, init, false, "1-d");
}

TEST_P(SegmentReduceOps, AxesRowsAndInnerDimensions) {
  // data [2, 6, 3], axis 1: each of the 2 rows has its own segments.
  const std::vector<double> data = smallValues(2 * 6 * 3, 4);
  const std::vector<std::vector<int64_t>> rows = {{0, 2, 6}, {0, 3, 3}};
  for (const char *reduce : {"sum", "mean", "max"})
    for (bool asOffsets : {false, true}) {
      check(data, {2, 6, 3}, 1, rows, asOffsets, float32Type(), int64Type(),
            reduce, nullptr, asOffsets ? false : true, "rows");
      check(data, {2, 6, 3}, -2, rows, asOffsets, float64Type(), int32Type(),
            reduce, nullptr, true, "negative axis");
    }
  // axis 0 of a [5, 4] data: one row, inner size 4.
  check(smallValues(20, 5), {5, 4}, 0, {{0, 1, 1, 5}}, false, float32Type(),
        int64Type(), "min", nullptr, false, "axis 0");
  // Offsets need not start at 0, nor end at data.size(axis).
  check(smallValues(8, 6), {8}, 0, {{2, 3, 6}}, true, float32Type(),
        int64Type(), "sum", nullptr, false, "inner offsets");
  // unsafe lengths may stop short of data.size(axis).
  check(smallValues(8, 6), {8}, 0, {{0, 3, 4}}, false, float32Type(),
        int64Type(), "prod", nullptr, true, "unsafe");
}

TEST_P(SegmentReduceOps, SixteenBitSumsRoundAtEveryStep) {
  // 2048 + 1 is 2048 in float16 (a tie, to even), twice: 2048, not 2050.
  const std::vector<double> data = {2048, 1, 1, 256, 1, 1};
  check(data, {6}, 0, {{0, 3, 6}}, false, float16Type(), int64Type(), "sum",
        nullptr, false, "float16");
  check(data, {6}, 0, {{0, 3, 6}}, false, bfloat16Type(), int64Type(), "sum",
        nullptr, false, "bfloat16");
  check(data, {6}, 0, {{0, 3, 6}}, false, float16Type(), int64Type(), "mean",
        nullptr, false, "float16 mean");
}

TEST_P(SegmentReduceOps, NanAndEmptySegments) {
  const double nan = std::nan("");
  const std::vector<double> data = {1, nan, 3, 2, nan};
  for (const char *reduce : {"max", "min", "sum", "mean"})
    check(data, {5}, 0, {{0, 3, 3, 4, 5}}, false, float32Type(), int64Type(),
          reduce, nullptr, false, "nan");
  const double initial = -7;
  check({1, 2}, {2}, 0, {{0, 0, 2}}, false, float32Type(), int64Type(), "mean",
        &initial, false, "empty mean with initial");
  check({}, {0}, 0, {{0, 0, 0}}, false, float32Type(), int64Type(), "mean",
        nullptr, false, "empty data");
}

TEST_P(SegmentReduceOps, Refusals) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  TensorHandle data = tensor(smallValues(6, 1), {{6}}, float32Type());
  TensorHandle lengths = tensor({2, 4}, {{2}}, int64Type());
  TensorHandle offsets = tensor({0, 2, 6}, {{3}}, int64Type());
  AtenTensorHandle lh = lengths.get(), oh = offsets.get();
  AtenTensorHandle ret = nullptr;
  auto run = [&](AtenTensorHandle d, const char *reduce, AtenTensorHandle *l,
                 AtenTensorHandle *i, AtenTensorHandle *o, int64_t axis,
                 int32_t unsafe, double *initial) {
    return entry()(d, reduce, l, i, o, axis, unsafe, initial, &ret);
  };
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &lh, &lh, nullptr, 0, 0, nullptr),
                    "indices based reduction is not supported yet");
  EXPECT_SHIM_FAILS(run(data.get(), "sum", nullptr, nullptr, nullptr, 0, 0, nullptr),
                    "Either lengths or offsets must be defined");
  EXPECT_SHIM_FAILS(run(data.get(), "avg", &lh, nullptr, nullptr, 0, 0, nullptr),
                    "reduce argument must be either sum, prod, mean, amax or amin, got avg");
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &lh, nullptr, nullptr, 1, 0, nullptr),
                    "axis 1 is out of range");
  TensorHandle grid = tensor(smallValues(12, 1), {{2, 6}}, float32Type());
  EXPECT_SHIM_FAILS(run(grid.get(), "sum", &lh, nullptr, nullptr, 1, 0, nullptr),
                    "Expected axis to be the last dimension of lengths but got 1.");
  TensorHandle negative = tensor({-1, 7}, {{2}}, int64Type());
  AtenTensorHandle nh = negative.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &nh, nullptr, nullptr, 0, 0, nullptr),
                    "lengths contains negative value!");
  TensorHandle shortLengths = tensor({2, 3}, {{2}}, int64Type());
  AtenTensorHandle sh = shortLengths.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &sh, nullptr, nullptr, 0, 0, nullptr),
                    "Expected all rows of lengths along axis to sum to "
                    "data.size(lengths.dim()-1) when !unsafe.");
  TensorHandle longLengths = tensor({4, 3}, {{2}}, int64Type());
  AtenTensorHandle ll = longLengths.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &ll, nullptr, nullptr, 0, 1, nullptr),
                    "lengths run past data.size(axis) = 6");
  TensorHandle falling = tensor({0, 4, 2}, {{3}}, int32Type());
  AtenTensorHandle fh = falling.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", nullptr, nullptr, &fh, 0, 0, nullptr),
                    "offsets must not decrease");
  TensorHandle past = tensor({0, 7}, {{2}}, int64Type());
  AtenTensorHandle ph = past.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", nullptr, nullptr, &ph, 0, 0, nullptr),
                    "offsets hold 7, outside [0, 6]");
  TensorHandle floats = tensor({2, 4}, {{2}}, float32Type());
  AtenTensorHandle flh = floats.get();
  EXPECT_SHIM_FAILS(run(data.get(), "sum", &flh, nullptr, nullptr, 0, 0, nullptr),
                    "lengths must be int32 or int64, got float32");
  TensorHandle ints = tensor(std::vector<double>(6, 1), {{6}}, int32Type());
  EXPECT_SHIM_FAILS(run(ints.get(), "sum", &lh, nullptr, nullptr, 0, 0, nullptr),
                    "kernel for int32");
  TensorHandle rows = tensor({2, 4, 3, 3, 1, 5}, {{3, 2}}, int64Type());
  AtenTensorHandle rh = rows.get();
  EXPECT_SHIM_FAILS(run(grid.get(), "sum", &rh, nullptr, nullptr, 1, 0, nullptr),
                    "lengths has sizes [3, 2] but data's sizes before axis are [2]");
  TensorHandle halves = tensor(smallValues(6, 1), {{6}}, float16Type());
  double big = 1e6;
  EXPECT_SHIM_FAILS(run(halves.get(), "sum", &lh, nullptr, nullptr, 0, 0, &big),
                    "value cannot be converted to type float16 without overflow");
  EXPECT_SHIM_FAILS(run(data.get(), nullptr, &lh, nullptr, nullptr, 0, 0, nullptr),
                    "'reduce' is null");
  EXPECT_EQ(ret, nullptr);
  // Both given: offsets win (lengths would not sum to 6).
  TensorHandle out;
  ASSERT_SHIM_OK(entry()(data.get(), "sum", &sh, nullptr, &oh, 0, 0, nullptr,
                         out.out()));
  EXPECT_EQ(sizesOf(out), std::vector<int64_t>{2});
}

INSTANTIATE_TEST_SUITE_P(, SegmentReduceOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

TEST(ScatterDevices, TheCudaEntryPointRefusesACpuTensor) {
  TensorHandle self = makeTensor({1, 2}, {{2}}, float32Type(), 0);
  TensorHandle out = makeTensor({1, 2}, {{2}}, float32Type(), 0);
  TensorHandle index = makeTensor({0}, {{1}}, int64Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cuda_scatter_src_out(out.get(), self.get(), 0,
                                                    index.get(), self.get()),
                    "'self' is on cpu; this scatter needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_scatter_reduce_two_out(
                        out.get(), self.get(), 0, index.get(), self.get(),
                        "sum", 1),
                    "'self' is on cpu; this scatter_reduce needs a CUDA tensor");
}

class ScatterOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, ScatterOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ScatterOnCuda);

TEST_P(ScatterOnCuda, TheCpuEntryPointRefusesACudaTensorAndMixedDevices) {
  TensorHandle self = tensor({1, 2}, {{2}}, float32Type());
  TensorHandle out = tensor({1, 2}, {{2}}, float32Type());
  TensorHandle index = tensor({0}, {{1}}, int64Type());
  EXPECT_SHIM_FAILS(aoti_torch_cpu_scatter_src_out(out.get(), self.get(), 0,
                                                   index.get(), self.get()),
                    "'self' is on cuda:0; this scatter needs a CPU tensor");
  TensorHandle cpuIndex = makeTensor({0}, {{1}}, int64Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cuda_scatter_src_out(out.get(), self.get(), 0,
                                                    cpuIndex.get(), self.get()),
                    "'index' is on cpu but 'self' is on cuda:0");
}

TEST_P(ScatterOnCuda, RunsOnTheStreamAGuardSets) {
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    TensorHandle self = tensor(std::vector<double>(64, 1), {{64}}, float32Type());
    TensorHandle out = tensor(std::vector<double>(64, 0), {{64}}, float32Type());
    TensorHandle index = tensor(indexValues(4096, 64, 1), {{4096}}, int64Type());
    TensorHandle src = tensor(std::vector<double>(4096, 1), {{4096}}, float32Type());
    ASSERT_SHIM_OK(aoti_torch_cuda_scatter_reduce_two_out(
        out.get(), self.get(), 0, index.get(), src.get(), "sum", 1));
    const std::vector<double> sums = readTensor(out, float32Type());
    double total = 0;
    for (double v : sums)
      total += v;
    EXPECT_EQ(total, 64 + 4096);
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
