//===- ops/sort_test.cpp - The sort family: sort, topk, kthvalue, median, mode //
//
// Every case runs on both devices (ops/devices.h). The reference is
// computed here: each row's (value, index) pairs, the values as the dtype
// stores them, put in order by std::stable_sort under torch's order (NaN
// greater than every number, -0.0 equal to +0.0), ascending or descending;
// ties therefore keep their index order, which is the order the library
// promises for every op. From that order:
//  - sort is all of it, topk its first k (descending for largest),
//    kthvalue its position k - 1;
//  - mode is the first run of equal values (every NaN a run of its own)
//    longer than every earlier one, at the run's last (largest) index;
//  - median is position (n - 1) / 2 of all elements, or NaN if any is NaN;
//    nanmedian the same over the non-NaN ones (NaN when none is).
// Values are compared exactly (NaN with NaN, and the sign of a zero);
// int64 indices exactly. Result strides are checked against torch's rule:
// torch.empty_like(self) under the fake tensor mode for sort (cases
// worked out by hand from torch._prims_common's
// compute_elementwise_output_logical_to_physical_perm), contiguous for the
// others. CUDA sorts rows of up to 2048 elements in shared memory (rows of
// up to 256 grouped several to a block) and longer ones with one radix sort
// over all rows (a 128-bit key for 64-bit elements in several rows): the
// *AroundTheCudaThresholds cases take rows just below and above each
// boundary, k at its limits, in every dtype, and the shapes of the
// benchmark (bench/gpu/fallbacks_vs_eager.py).
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

#include <cmath>
#include <functional>
#include <limits>
#include <utility>

namespace aoti::test {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

bool isFloatDtype(const Dtype &type) {
  return type.code == aoti_torch_dtype_float32() ||
         type.code == aoti_torch_dtype_float64() ||
         type.code == aoti_torch_dtype_float16() ||
         type.code == aoti_torch_dtype_bfloat16();
}

bool isUnsignedDtype(const Dtype &type) {
  return type.code == aoti_torch_dtype_uint8() ||
         type.code == aoti_torch_dtype_uint16() ||
         type.code == aoti_torch_dtype_uint32() ||
         type.code == aoti_torch_dtype_uint64();
}

// n values with many repeats that `type` holds exactly; with `specials`,
// floating ones also get NaN, both zeros and both infinities.
std::vector<double> testValues(const Dtype &type, int64_t n, int seed,
                               bool specials = false) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = (i * 37 + seed * 11) % 23;
    double x = 0;
    if (type.code == aoti_torch_dtype_bool())
      x = (i * 7 + seed) % 3 == 0;
    else if (isUnsignedDtype(type))
      x = static_cast<double>(v);
    else if (!isFloatDtype(type))
      x = static_cast<double>(v - 11);
    else
      x = static_cast<double>(v - 11) / 4.0;
    if (specials && isFloatDtype(type)) {
      if (i % 13 == 5)
        x = kNan;
      else if (i % 17 == 3)
        x = i % 2 ? -0.0 : 0.0;
      else if (i % 19 == 7)
        x = i % 2 ? -kInf : kInf;
    }
    values[static_cast<size_t>(i)] = roundTrip(type, x);
  }
  return values;
}

// n values spread over much of `type`'s range (both signs, magnitudes far
// apart, so that every digit of a radix sort's key varies), repeating with
// period 1009 (ties in rows longer than that); floating ones also get NaN
// and both zeros.
std::vector<double> spreadValues(const Dtype &type, int64_t n, int seed) {
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = (i * 7919 + seed * 104729) % 1009;
    double x = 0;
    if (type.code == aoti_torch_dtype_bool())
      x = static_cast<double>(v % 2);
    else if (type.code == aoti_torch_dtype_uint8())
      x = static_cast<double>(v % 256);
    else if (type.code == aoti_torch_dtype_int8())
      x = static_cast<double>(v % 256 - 128);
    else if (type.code == aoti_torch_dtype_int16())
      x = static_cast<double>((v - 504) * 61);
    else if (type.code == aoti_torch_dtype_int32())
      x = static_cast<double>((v - 504) * 4000003);
    else if (type.code == aoti_torch_dtype_int64())
      x = std::ldexp(static_cast<double>(v - 504), 44) + static_cast<double>(v);
    else if (v % 97 == 3)
      x = kNan;
    else if (v % 89 == 5)
      x = v % 2 ? -0.0 : 0.0;
    else
      x = (v % 2 ? -1.0 : 1.0) *
          std::ldexp(1.0 + static_cast<double>(v % 7) / 8.0,
                     static_cast<int>(v % 40) - 20);
    values[static_cast<size_t>(i)] = roundTrip(type, x);
  }
  return values;
}

// (rows, length) pairs around CUDA's thresholds: 64 rows of 8 fill a
// block, 65 spill into a second; 2048 is the longest row sorted in shared
// memory, 2049 the shortest for the radix sort.
const std::vector<std::pair<int64_t, int64_t>> kThresholdShapes = {
    {65, 8}, {3, 2048}, {3, 2049}};

// torch's order: NaN after every number; -0.0 and +0.0 equal.
bool torchLess(double a, double b) {
  return (!std::isnan(a) && std::isnan(b)) || a < b;
}

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

struct Entry {
  double value;
  int64_t index;
};

// The row-major positions of row `row` (over every dimension but `dim`,
// in order) of a tensor of `sizes`; a 0-d tensor is one row of one element.
std::vector<int64_t> rowPositions(const std::vector<int64_t> &sizes,
                                  int64_t dim, int64_t row) {
  if (sizes.empty())
    return {0};
  const std::vector<int64_t> strides = contiguousStridesOf(sizes);
  int64_t base = 0;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (d == dim)
      continue;
    base += (row % sizes[d]) * strides[d];
    row /= sizes[d];
  }
  std::vector<int64_t> positions;
  for (int64_t j = 0; j < sizes[dim]; ++j)
    positions.push_back(base + j * strides[dim]);
  return positions;
}

int64_t rowCount(const std::vector<int64_t> &sizes, int64_t dim) {
  int64_t rows = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (static_cast<int64_t>(d) != dim)
      rows *= sizes[d];
  return rows;
}

// Row `row` of `values` (row-major, of `sizes`) in torch's order.
std::vector<Entry> sortedRow(const std::vector<double> &values,
                             const std::vector<int64_t> &sizes, int64_t dim,
                             int64_t row, bool descending) {
  std::vector<Entry> entries;
  const std::vector<int64_t> positions = rowPositions(sizes, dim, row);
  for (size_t j = 0; j < positions.size(); ++j)
    entries.push_back({values[static_cast<size_t>(positions[j])],
                       static_cast<int64_t>(j)});
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const Entry &a, const Entry &b) {
                     return descending ? torchLess(b.value, a.value)
                                       : torchLess(a.value, b.value);
                   });
  return entries;
}

// Expected results, row-major over the result's sizes.
struct RowResults {
  std::vector<double> values;
  std::vector<double> indices;
};

// Sort positions [first, first + count) of every row, in a result whose
// dimension `dim` has `count` elements (kept: `keptDim`).
RowResults expectedSlice(const std::vector<double> &values,
                       const std::vector<int64_t> &sizes, int64_t dim,
                       bool descending, int64_t first, int64_t count,
                       const std::vector<int64_t> &resultSizes, bool keptDim) {
  RowResults out;
  out.values.assign(static_cast<size_t>(numelOf(resultSizes)), 0.0);
  out.indices = out.values;
  const int64_t rows = sizes.empty() ? 1 : rowCount(sizes, dim);
  for (int64_t row = 0; row < rows; ++row) {
    const std::vector<Entry> sorted =
        sortedRow(values, sizes, dim, row, descending);
    const std::vector<int64_t> at =
        keptDim ? rowPositions(resultSizes, dim, row)
                : std::vector<int64_t>{row};
    for (int64_t p = 0; p < count; ++p) {
      out.values[static_cast<size_t>(at[static_cast<size_t>(p)])] =
          sorted[static_cast<size_t>(first + p)].value;
      out.indices[static_cast<size_t>(at[static_cast<size_t>(p)])] =
          static_cast<double>(sorted[static_cast<size_t>(first + p)].index);
    }
  }
  return out;
}

void expectSame(const std::vector<double> &actual,
                const std::vector<double> &expected, const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    if (!sameValue(actual[i], expected[i]) && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i]
                    << ", expected " << expected[i];
}

int32_t dtypeOf(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

int32_t deviceTypeOf(const TensorHandle &t) {
  int32_t type = -1;
  EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &type));
  return type;
}

// The dtypes a test runs an op over: those torch's kernels take on both
// devices (AT_ALL_TYPES with the 16-bit floats), and `extra`.
std::vector<Dtype> dtypesWith(std::vector<Dtype> extra) {
  std::vector<Dtype> types = {float32Type(), float64Type(), float16Type(),
                              bfloat16Type(), int64Type(),  int32Type(),
                              int16Type(),   int8Type(),    uint8Type()};
  types.insert(types.end(), extra.begin(), extra.end());
  return types;
}

class SortFamily : public OpTest {
protected:
  AOTITorchError sort(const TensorHandle &self, int64_t dim, bool descending,
                      TensorHandle &values, TensorHandle &indices) {
    return (onCuda() ? aoti_torch_cuda_sort : aoti_torch_cpu_sort)(
        self.get(), dim, descending, values.out(), indices.out());
  }
  AOTITorchError sortStable(const TensorHandle &self, int32_t *stable,
                            int64_t dim, bool descending, TensorHandle &values,
                            TensorHandle &indices) {
    return (onCuda() ? aoti_torch_cuda_sort_stable
                     : aoti_torch_cpu_sort_stable)(
        self.get(), stable, dim, descending, values.out(), indices.out());
  }
  AOTITorchError topk(const TensorHandle &self, int64_t k, int64_t dim,
                      bool largest, bool sorted, TensorHandle &values,
                      TensorHandle &indices) {
    return (onCuda() ? aoti_torch_cuda_topk : aoti_torch_cpu_topk)(
        self.get(), k, dim, largest, sorted, values.out(), indices.out());
  }
  AOTITorchError kthvalue(const TensorHandle &self, int64_t k, int64_t dim,
                          bool keepdim, TensorHandle &values,
                          TensorHandle &indices) {
    return (onCuda() ? aoti_torch_cuda_kthvalue : aoti_torch_cpu_kthvalue)(
        self.get(), k, dim, keepdim, values.out(), indices.out());
  }
  AOTITorchError mode(const TensorHandle &self, int64_t dim, bool keepdim,
                      TensorHandle &values, TensorHandle &indices) {
    return (onCuda() ? aoti_torch_cuda_mode : aoti_torch_cpu_mode)(
        self.get(), dim, keepdim, values.out(), indices.out());
  }
  AOTITorchError median(const TensorHandle &self, bool ignoreNan,
                        TensorHandle &out) {
    if (ignoreNan)
      return (onCuda() ? aoti_torch_cuda_nanmedian
                       : aoti_torch_cpu_nanmedian)(self.get(), out.out());
    return (onCuda() ? aoti_torch_cuda_median : aoti_torch_cpu_median)(
        self.get(), out.out());
  }

  // Checks a pair of results: sizes, strides, dtypes, device, values.
  void expectResults(const TensorHandle &values, const TensorHandle &indices,
                     const Dtype &type, const std::vector<int64_t> &sizes,
                     const std::vector<int64_t> &strides,
                     const RowResults &expected) {
    EXPECT_EQ(sizesOf(values), sizes);
    EXPECT_EQ(sizesOf(indices), sizes);
    EXPECT_EQ(stridesOf(values), strides);
    EXPECT_EQ(stridesOf(indices), strides);
    EXPECT_EQ(dtypeOf(values), type.code);
    EXPECT_EQ(dtypeOf(indices), aoti_torch_dtype_int64());
    EXPECT_EQ(deviceTypeOf(values), device());
    EXPECT_EQ(deviceTypeOf(indices), device());
    expectSame(readTensor(values, type), expected.values, "values");
    expectSame(readTensor(indices, int64Type()), expected.indices, "indices");
  }

  // sort(self, dim, descending) against the reference; `strides` are the
  // expected result strides (empty: contiguous).
  void checkSort(const std::vector<double> &values, const Layout &layout,
                 const Dtype &type, int64_t dim, bool descending,
                 std::vector<int64_t> strides = {}) {
    SCOPED_TRACE(std::string(type.name) + " dim " + std::to_string(dim) +
                 (descending ? " descending" : " ascending"));
    const TensorHandle self = tensor(values, layout, type);
    TensorHandle sortedValues, sortedIndices;
    ASSERT_SHIM_OK(sort(self, dim, descending, sortedValues, sortedIndices));
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    const int64_t length = rank == 0 ? 1 : layout.sizes[static_cast<size_t>(d)];
    if (strides.empty())
      strides = contiguousStridesOf(layout.sizes);
    expectResults(sortedValues, sortedIndices, type, layout.sizes, strides,
                  expectedSlice(values, layout.sizes, d, descending, 0, length,
                                layout.sizes, true));
  }

  void checkTopk(const std::vector<double> &values, const Layout &layout,
                 const Dtype &type, int64_t k, int64_t dim, bool largest,
                 bool sorted = true) {
    SCOPED_TRACE(std::string(type.name) + " k " + std::to_string(k) +
                 " dim " + std::to_string(dim) +
                 (largest ? " largest" : " smallest"));
    const TensorHandle self = tensor(values, layout, type);
    TensorHandle topValues, topIndices;
    ASSERT_SHIM_OK(topk(self, k, dim, largest, sorted, topValues, topIndices));
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    std::vector<int64_t> sizes = layout.sizes;
    if (rank > 0)
      sizes[static_cast<size_t>(d)] = k;
    expectResults(topValues, topIndices, type, sizes, contiguousStridesOf(sizes),
                  expectedSlice(values, layout.sizes, d, largest, 0,
                                rank == 0 ? 1 : k, sizes, true));
  }

  void checkKthvalue(const std::vector<double> &values, const Layout &layout,
                     const Dtype &type, int64_t k, int64_t dim, bool keepdim) {
    SCOPED_TRACE(std::string(type.name) + " k " + std::to_string(k) +
                 " dim " + std::to_string(dim) +
                 (keepdim ? " keepdim" : ""));
    const TensorHandle self = tensor(values, layout, type);
    TensorHandle kthValues, kthIndices;
    ASSERT_SHIM_OK(kthvalue(self, k, dim, keepdim, kthValues, kthIndices));
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    const std::vector<int64_t> sizes = reduced(layout.sizes, d, keepdim);
    expectResults(kthValues, kthIndices, type, sizes, contiguousStridesOf(sizes),
                  expectedSlice(values, layout.sizes, d, false, k - 1, 1, sizes,
                                false));
  }

  void checkMode(const std::vector<double> &values, const Layout &layout,
                 const Dtype &type, int64_t dim, bool keepdim) {
    SCOPED_TRACE(std::string(type.name) + " dim " + std::to_string(dim) +
                 (keepdim ? " keepdim" : ""));
    const TensorHandle self = tensor(values, layout, type);
    TensorHandle modeValues, modeIndices;
    ASSERT_SHIM_OK(mode(self, dim, keepdim, modeValues, modeIndices));
    const int64_t rank = static_cast<int64_t>(layout.sizes.size());
    const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
    const std::vector<int64_t> sizes = reduced(layout.sizes, d, keepdim);
    RowResults expected;
    const int64_t rows = rank == 0 ? 1 : rowCount(layout.sizes, d);
    for (int64_t row = 0; row < rows; ++row) {
      const std::vector<Entry> sorted =
          sortedRow(values, layout.sizes, d, row, false);
      size_t best = 0, bestCount = 0, runStart = 0;
      for (size_t p = 0; p < sorted.size(); ++p) {
        const bool runEnds = p + 1 == sorted.size() ||
                             std::isnan(sorted[p].value) ||
                             sorted[p].value != sorted[p + 1].value;
        if (!runEnds)
          continue;
        if (p - runStart + 1 > bestCount) {
          bestCount = p - runStart + 1;
          best = p;
        }
        runStart = p + 1;
      }
      expected.values.push_back(sorted[best].value);
      expected.indices.push_back(static_cast<double>(sorted[best].index));
    }
    expectResults(modeValues, modeIndices, type, sizes,
                  contiguousStridesOf(sizes), expected);
  }

  void checkMedian(const std::vector<double> &values, const Layout &layout,
                   const Dtype &type, bool ignoreNan) {
    SCOPED_TRACE(std::string(type.name) + (ignoreNan ? " nanmedian" : " median"));
    const TensorHandle self = tensor(values, layout, type);
    TensorHandle out;
    ASSERT_SHIM_OK(median(self, ignoreNan, out));
    EXPECT_TRUE(sizesOf(out).empty());
    EXPECT_EQ(dtypeOf(out), type.code);
    EXPECT_EQ(deviceTypeOf(out), device());
    std::vector<double> sorted = values;
    std::stable_sort(sorted.begin(), sorted.end(), torchLess);
    const int64_t n = static_cast<int64_t>(sorted.size());
    const int64_t nans = std::count_if(sorted.begin(), sorted.end(),
                                       [](double v) { return std::isnan(v); });
    double expected = kNan;
    if (n > 0 && (ignoreNan ? nans < n : nans == 0))
      expected = sorted[static_cast<size_t>((n - nans - 1) / 2)];
    expectSame(readTensor(out, type), {expected}, "median");
  }

  static std::vector<int64_t> reduced(const std::vector<int64_t> &sizes,
                                      int64_t dim, bool keepdim) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (static_cast<int64_t>(d) != dim)
        out.push_back(sizes[d]);
      else if (keepdim)
        out.push_back(1);
    }
    return out;
  }
};

// --- sort, sort_stable -----------------------------------------------------

class SortOps : public SortFamily {};

TEST_P(SortOps, EveryDtypeEveryDimBothDirections) {
  std::vector<Dtype> types = dtypesWith({boolType()});
  if (!onCuda()) // the wide unsigned types are CPU-only in torch's sort
    types.insert(types.end(), {uint16Type(), uint32Type(), uint64Type()});
  for (const Dtype &type : types)
    for (int64_t dim : {0, 1, -1, -2})
      for (bool descending : {false, true})
        checkSort(testValues(type, 4 * 9, 1), {{4, 9}}, type, dim, descending);
}

TEST_P(SortOps, WideUnsignedValuesOrderAsUnsigned) {
  if (onCuda())
    GTEST_SKIP() << "torch's CUDA sort has no uint16/32/64 kernel";
  checkSort({60000, 1, 40000, 65535, 0}, {{5}}, uint16Type(), 0, false);
  checkSort({4e9, 1, 3e9, 2147483648.0, 0}, {{5}}, uint32Type(), 0, true);
  checkSort({1e19, 5, 9.2e18, 0}, {{4}}, uint64Type(), 0, false);
}

TEST_P(SortOps, NanIsLastAscendingFirstDescendingAndZerosTie) {
  const std::vector<double> v = {1.5, kNan, -0.0, 0.0,  -kInf, kNan, kInf,
                                 0.0, -0.0, -2.0, 1.5,  kNan, 3.0,  -0.0};
  for (const Dtype &type :
       {float32Type(), float64Type(), float16Type(), bfloat16Type()})
    for (bool descending : {false, true})
      checkSort(v, {{2, 7}}, type, 1, descending);
  // Spelled out once: ascending, the zeros in index order, NaNs last.
  TensorHandle self = tensor({0.0, kNan, -0.0, -1.0, kNan}, {{5}}, float32Type());
  TensorHandle values, indices;
  ASSERT_SHIM_OK(sort(self, 0, false, values, indices));
  EXPECT_EQ(readTensor(indices, int64Type()),
            (std::vector<double>{3, 0, 2, 1, 4}));
  ASSERT_SHIM_OK(sort(self, 0, true, values, indices));
  EXPECT_EQ(readTensor(indices, int64Type()),
            (std::vector<double>{1, 4, 0, 2, 3}));
}

TEST_P(SortOps, ExtremeValuesOrderByValue) {
  // Each type's extremes, subnormals of both signs and the sign-bit
  // boundary of the integers: what a key transform gets wrong first.
  const std::vector<std::pair<Dtype, std::vector<double>>> cases = {
      {float64Type(), {1e300, -1e300, 1e-300, -1e-300, 4.9e-324, -4.9e-324,
                       kInf, -kInf, 0.0, -0.0, kNan}},
      {float32Type(), {3e38, -3e38, 1.4e-45, -1.4e-45, 1.0, -1.0, kInf, kNan}},
      {float16Type(), {65504, -65504, 6e-8, -6e-8, 0.5, -0.5, -kInf, kNan}},
      {bfloat16Type(), {3e38, -3e38, 1e-40, -1e-40, 2.0, -2.0, kInf, kNan}},
      {int64Type(), {4611686018427387904.0, -4611686018427387904.0,
                     8589934592.0, -8589934592.0, -1, 1, 0}},
      {int32Type(), {2147483647, -2147483648.0, -1, 1, 0}},
      {int16Type(), {32767, -32768, -1, 1, 0}},
      {int8Type(), {127, -128, -1, 1, 0}},
      {uint8Type(), {255, 0, 128, 127, 1}}};
  for (const auto &[type, values] : cases) {
    std::vector<double> stored;
    for (double v : values)
      stored.push_back(roundTrip(type, v));
    const int64_t n = static_cast<int64_t>(stored.size());
    for (bool descending : {false, true})
      checkSort(stored, {{n}}, type, 0, descending);
  }
}

TEST_P(SortOps, ResultStridesAreEmptyLikes) {
  const Dtype f = float32Type();
  // Dense inputs keep their strides.
  checkSort(testValues(f, 12, 2), {{4, 3}, {1, 4}}, f, 0, false, {1, 4});
  checkSort(testValues(f, 30, 3), {{3, 5, 2}, {1, 6, 3}}, f, 1, true,
            {1, 6, 3});
  checkSort(testValues(f, 120, 4), {{2, 3, 4, 5}, {60, 1, 15, 3}}, f, 1, false,
            {60, 1, 15, 3});
  // Gaps and an offset: dense in the same order, here row-major.
  checkSort(testValues(f, 30, 5), {{3, 5, 2}, {40, 4, 2}, 7}, f, 1, false,
            {10, 2, 1});
  // Channels-last order with gaps is sorted out by stride.
  checkSort(testValues(f, 120, 6), {{2, 3, 4, 5}, {120, 1, 30, 6}, 3}, f, 3,
            true, {60, 1, 15, 3});
  // A broadcast dimension compares as equal to every other: row-major.
  std::vector<double> rows;
  const std::vector<double> row = testValues(f, 5, 7);
  for (int i = 0; i < 4; ++i)
    rows.insert(rows.end(), row.begin(), row.end());
  checkSort(rows, {{4, 5}, {0, 1}}, f, 1, false, {5, 1});
  checkSort(rows, {{4, 5}, {0, 1}}, f, 0, true, {5, 1});
  // A contiguous tensor with an odd size-1 stride: row-major strides.
  checkSort(testValues(f, 12, 8), {{3, 1, 4}, {4, 99, 1}}, f, 2, false,
            {4, 4, 1});
  // 1-d with a gap: stride 1.
  checkSort(testValues(f, 6, 9), {{6}, {2}, 1}, f, 0, true, {1});
}

TEST_P(SortOps, ZeroDimAndEmptyTensors) {
  for (int64_t dim : {0, -1})
    checkSort({2.5}, {{}}, float32Type(), dim, false);
  checkSort({-3}, {{}}, int64Type(), 0, true);
  checkSort({}, {{3, 0}}, float32Type(), 1, false);
  checkSort({}, {{0, 4}}, float32Type(), 1, true);
  checkSort({}, {{0}}, int32Type(), 0, false);
}

TEST_P(SortOps, LongRowsAndManyShortRows) {
  for (const Dtype &type : {float32Type(), int64Type(), float16Type()})
    for (bool descending : {false, true}) {
      checkSort(testValues(type, 5000, 1, true), {{5000}}, type, 0, descending);
      checkSort(testValues(type, 4 * 5000, 2, true), {{4, 5000}}, type, 1,
                descending);
      checkSort(testValues(type, 3000 * 7, 3, true), {{3000, 7}}, type, 1,
                descending);
      checkSort(testValues(type, 7 * 3000, 4, true), {{7, 3000}}, type, 0,
                descending);
    }
  checkSort(testValues(uint8Type(), 3000 * 7, 5), {{7, 3000}, {1, 7}},
            uint8Type(), 1, true, {1, 7});
  // Enough elements (90000) for the CPU to spread the rows over threads.
  checkSort(testValues(float32Type(), 3000 * 30, 6, true), {{3000, 30}},
            float32Type(), 1, false);
}

TEST_P(SortOps, RowLengthsAroundTheCudaThresholds) {
  for (const Dtype &type : dtypesWith({boolType()}))
    for (bool descending : {false, true}) {
      int seed = 0;
      for (const auto &[rows, length] : kThresholdShapes)
        checkSort(spreadValues(type, rows * length, ++seed), {{rows, length}},
                  type, 1, descending);
      // Along a strided dimension, both sides of the threshold.
      checkSort(spreadValues(type, 2048 * 3, 4), {{2048, 3}}, type, 0,
                descending);
      checkSort(spreadValues(type, 2049 * 2, 5), {{2049, 2}}, type, 0,
                descending);
      checkSort(testValues(type, 2 * 2049, 6, true), {{2, 2049}}, type, 1,
                descending); // many ties
    }
  for (const Dtype &type : {float32Type(), int64Type(), float16Type()})
    for (int64_t length : {1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 2047})
      for (bool descending : {false, true})
        checkSort(spreadValues(type, 5 * length, 7), {{5, length}}, type, -1,
                  descending);
  // The benchmark's shapes: a sampling head's vocabulary, and a shorter one.
  const Dtype f = float32Type();
  checkSort(spreadValues(f, 8 * 2000, 8), {{8, 2000}}, f, -1, true);
  checkSort(spreadValues(f, 8 * 32000, 9), {{8, 32000}}, f, -1, true);
}

TEST_P(SortOps, SortStableAnyStableFlagIsTheStableSort) {
  const Dtype f = float32Type();
  const std::vector<double> v = testValues(f, 3 * 40, 6, true);
  const TensorHandle self = tensor(v, {{3, 40}}, f);
  int32_t yes = 1, no = 0;
  for (int32_t *stable : {static_cast<int32_t *>(nullptr), &yes, &no})
    for (bool descending : {false, true}) {
      TensorHandle values, indices;
      ASSERT_SHIM_OK(sortStable(self, stable, -1, descending, values, indices));
      expectResults(values, indices, f, {3, 40}, {40, 1},
                    expectedSlice(v, {3, 40}, 1, descending, 0, 40, {3, 40},
                                  true));
    }
}

INSTANTIATE_TEST_SUITE_P(, SortOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- topk --------------------------------------------------------------------

class TopkOps : public SortFamily {};

TEST_P(TopkOps, EveryDtypeKAndDirection) {
  for (const Dtype &type : dtypesWith({}))
    for (int64_t k : {0, 1, 4, 9})
      for (bool largest : {true, false}) {
        checkTopk(testValues(type, 5 * 9, 1), {{5, 9}}, type, k, 1, largest);
        if (k <= 5)
          checkTopk(testValues(type, 5 * 9, 2), {{5, 9}}, type, k, -2, largest);
      }
}

TEST_P(TopkOps, NanIsTheLargestAndUnsortedIsSorted) {
  const std::vector<double> v = {1.0, kNan, -0.0, 2.0, kNan, 0.0, 2.0, -kInf};
  for (const Dtype &type : {float32Type(), float16Type(), bfloat16Type()})
    for (int64_t k : {1, 3, 6, 8})
      for (bool largest : {true, false})
        for (bool sorted : {true, false})
          checkTopk(v, {{8}}, type, k, 0, largest, sorted);
}

TEST_P(TopkOps, StridedInputsZeroDimAndEmpty) {
  const Dtype f = float64Type();
  checkTopk(testValues(f, 30, 3), {{3, 5, 2}, {1, 6, 3}}, f, 3, 1, true);
  checkTopk(testValues(f, 30, 4), {{3, 5, 2}, {40, 4, 2}, 5}, f, 2, 0, false);
  for (int64_t k : {0, 1}) // a 0-d self is its own top 1, for k 0 too
    checkTopk({4.5}, {{}}, f, k, -1, true);
  checkTopk({}, {{0, 6}}, f, 3, 1, true);
  checkTopk({}, {{4, 0}}, f, 0, 1, false);
}

TEST_P(TopkOps, LongRowsAndManyShortRows) {
  for (const Dtype &type : {float32Type(), int32Type(), bfloat16Type()})
    for (bool largest : {true, false}) {
      checkTopk(testValues(type, 5000, 1, true), {{5000}}, type, 7, 0, largest);
      checkTopk(testValues(type, 3 * 5000, 2, true), {{3, 5000}}, type, 100, 1,
                largest);
      checkTopk(testValues(type, 3000 * 7, 3, true), {{3000, 7}}, type, 3, 1,
                largest);
      checkTopk(testValues(type, 7 * 3000, 4, true), {{7, 3000}}, type, 7, 0,
                largest);
    }
  checkTopk(testValues(float64Type(), 3000 * 30, 5, true), {{3000, 30}},
            float64Type(), 5, 1, true); // enough for the CPU's threads
}

TEST_P(TopkOps, KAtItsLimitsAroundTheCudaThresholds) {
  for (const Dtype &type : dtypesWith({}))
    for (bool largest : {true, false})
      for (const auto &[rows, length] : kThresholdShapes)
        for (int64_t k : {int64_t{1}, length - 1, length})
          checkTopk(spreadValues(type, rows * length, static_cast<int>(k)),
                    {{rows, length}}, type, k, 1, largest);
  // The benchmark's shapes: an MoE router's top 2 of 8 experts, a sampling
  // head's top 50 of 32000 tokens, a kNN head's 5 nearest of 1000.
  const Dtype f = float32Type();
  checkTopk(spreadValues(f, 512 * 8, 1), {{512, 8}}, f, 2, -1, true);
  checkTopk(spreadValues(f, 8 * 32000, 2), {{8, 32000}}, f, 50, -1, true);
  checkTopk(spreadValues(f, 64 * 1000, 3), {{64, 1000}}, f, 5, -1, false);
  // Along a strided dimension past the threshold.
  checkTopk(spreadValues(f, 3000 * 3, 4), {{3000, 3}}, f, 10, 0, true);
}

INSTANTIATE_TEST_SUITE_P(, TopkOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- kthvalue ------------------------------------------------------------------

class KthvalueOps : public SortFamily {};

TEST_P(KthvalueOps, EveryDtypeKAndKeepdim) {
  for (const Dtype &type : dtypesWith({}))
    for (int64_t k : {1, 4, 9})
      for (bool keepdim : {false, true}) {
        checkKthvalue(testValues(type, 4 * 9, 1), {{4, 9}}, type, k, 1, keepdim);
        if (k <= 4)
          checkKthvalue(testValues(type, 4 * 9, 2), {{4, 9}}, type, k, -2,
                        keepdim);
      }
}

TEST_P(KthvalueOps, NanCountsAsLargestAndTiesTakeTheStablePosition) {
  // Sorted stably: -1(5) 0(1) 0(3) 0(6) 2(0) NaN(2) NaN(4).
  const std::vector<double> v = {2.0, 0.0, kNan, -0.0, kNan, -1.0, 0.0};
  for (const Dtype &type : {float32Type(), float16Type()})
    for (int64_t k = 1; k <= 7; ++k)
      checkKthvalue(v, {{7}}, type, k, 0, false);
  TensorHandle self = tensor(v, {{7}}, float32Type());
  TensorHandle values, indices;
  ASSERT_SHIM_OK(kthvalue(self, 3, 0, false, values, indices));
  EXPECT_EQ(readTensor(indices, int64Type()), std::vector<double>{3});
}

TEST_P(KthvalueOps, StridedZeroDimEmptyAndLong) {
  const Dtype f = float32Type();
  checkKthvalue(testValues(f, 30, 3), {{3, 5, 2}, {1, 6, 3}}, f, 2, 1, true);
  checkKthvalue(testValues(f, 30, 4), {{3, 5, 2}, {40, 4, 2}, 9}, f, 3, 0,
                false);
  checkKthvalue({7.0}, {{}}, f, 1, 0, false);
  checkKthvalue({7.0}, {{}}, f, 1, -1, true);
  checkKthvalue({}, {{0, 5}}, f, 2, 1, false);
  checkKthvalue({}, {{0, 5}}, f, 5, 1, true);
  for (const Dtype &type : {f, int64Type()}) {
    checkKthvalue(testValues(type, 5000, 1, true), {{5000}}, type, 2500, 0,
                  false);
    checkKthvalue(testValues(type, 3000 * 7, 2, true), {{3000, 7}}, type, 4, 1,
                  true);
    checkKthvalue(testValues(type, 7 * 3000, 3, true), {{7, 3000}}, type, 1000,
                  1, false);
    checkKthvalue(testValues(type, 7 * 3000, 4, true), {{7, 3000}}, type, 4, 0,
                  false);
  }
}

TEST_P(KthvalueOps, KAtItsLimitsAroundTheCudaThresholds) {
  for (const Dtype &type : dtypesWith({}))
    for (const auto &[rows, length] : kThresholdShapes)
      for (int64_t k : {int64_t{1}, (length + 1) / 2, length})
        checkKthvalue(spreadValues(type, rows * length, static_cast<int>(k)),
                      {{rows, length}}, type, k, 1, k == 1);
}

INSTANTIATE_TEST_SUITE_P(, KthvalueOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- median, nanmedian ----------------------------------------------------

class MedianOps : public SortFamily {};

TEST_P(MedianOps, EveryDtypeOddAndEvenCounts) {
  for (const Dtype &type : dtypesWith({}))
    for (bool ignoreNan : {false, true}) {
      checkMedian(testValues(type, 3 * 7, 1), {{3, 7}}, type, ignoreNan);
      checkMedian(testValues(type, 4 * 5, 2), {{4, 5}}, type, ignoreNan);
    }
  // The lower of the two middle values.
  TensorHandle self = tensor({4, 1, 3, 2}, {{4}}, int32Type());
  TensorHandle out;
  ASSERT_SHIM_OK(median(self, false, out));
  EXPECT_EQ(readTensor(out, int32Type()), std::vector<double>{2});
}

TEST_P(MedianOps, NanPropagatesOrIsIgnored) {
  for (const Dtype &type : {float32Type(), float64Type(), bfloat16Type()})
    for (bool ignoreNan : {false, true}) {
      checkMedian({1.0, kNan, 3.0, -0.0, kNan, 2.0}, {{2, 3}}, type, ignoreNan);
      checkMedian({kNan, kNan, kNan}, {{3}}, type, ignoreNan);
      checkMedian({5.0, kNan}, {{2}}, type, ignoreNan);
      checkMedian(testValues(type, 5000, 3, true), {{50, 100}}, type,
                  ignoreNan);
    }
}

TEST_P(MedianOps, StridedZeroDimAndLong) {
  const Dtype f = float32Type();
  checkMedian(testValues(f, 30, 3), {{3, 5, 2}, {1, 6, 3}}, f, false);
  checkMedian(testValues(f, 30, 4), {{3, 5, 2}, {40, 4, 2}, 11}, f, true);
  checkMedian({-2.5}, {{}}, f, false);
  checkMedian({-2.5}, {{}}, f, true);
  checkMedian(testValues(int64Type(), 5001, 5), {{5001}}, int64Type(), false);
  checkMedian(testValues(f, 3000 * 7, 6), {{7, 3000}, {1, 7}}, f, true);
}

TEST_P(MedianOps, AnEmptyTensorGivesNan) {
  for (const Dtype &type : {float32Type(), float16Type(), float64Type()})
    for (bool ignoreNan : {false, true})
      checkMedian({}, {{0, 3}}, type, ignoreNan);
  // An integer dtype holds NaN converted: x86-64's "integer indefinite" on
  // the CPU, 0 on CUDA (what torch's own conversions give there).
  TensorHandle self = tensor({}, {{0}}, int64Type());
  TensorHandle out;
  ASSERT_SHIM_OK(median(self, false, out));
  EXPECT_EQ(readTensor(out, int64Type()),
            std::vector<double>{onCuda() ? 0.0 : -9223372036854775808.0});
  self = tensor({}, {{2, 0}}, int32Type());
  ASSERT_SHIM_OK(median(self, true, out));
  EXPECT_EQ(readTensor(out, int32Type()),
            std::vector<double>{onCuda() ? 0.0 : -2147483648.0});
  self = tensor({}, {{0}}, uint8Type());
  ASSERT_SHIM_OK(median(self, false, out));
  EXPECT_EQ(readTensor(out, uint8Type()), std::vector<double>{0});
}

INSTANTIATE_TEST_SUITE_P(, MedianOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- mode ------------------------------------------------------------------------

class ModeOps : public SortFamily {};

TEST_P(ModeOps, EveryDtypeAndKeepdim) {
  for (const Dtype &type : dtypesWith({boolType()}))
    for (bool keepdim : {false, true}) {
      checkMode(testValues(type, 5 * 12, 1), {{5, 12}}, type, 1, keepdim);
      checkMode(testValues(type, 5 * 12, 2), {{5, 12}}, type, -2, keepdim);
    }
}

TEST_P(ModeOps, SmallestOfTheMostFrequentAtItsLastIndex) {
  // 3 and 1 occur twice: 1 wins, at index 4.
  TensorHandle self = tensor({3, 1, 2, 3, 1}, {{5}}, int64Type());
  TensorHandle values, indices;
  ASSERT_SHIM_OK(mode(self, 0, false, values, indices));
  EXPECT_EQ(readTensor(values, int64Type()), std::vector<double>{1});
  EXPECT_EQ(readTensor(indices, int64Type()), std::vector<double>{4});
  // Every NaN counts once; -0.0 and +0.0 are one value.
  for (const Dtype &type : {float32Type(), float16Type()}) {
    checkMode({kNan, kNan, 2.0, kNan}, {{4}}, type, 0, false);
    checkMode({kNan, kNan}, {{2}}, type, 0, false);
    checkMode({0.0, 5.0, -0.0, 5.0, 0.0}, {{5}}, type, 0, true);
    checkMode(testValues(type, 6 * 30, 3, true), {{6, 30}}, type, 1, false);
  }
}

TEST_P(ModeOps, StridedZeroDimEmptyAndLong) {
  const Dtype i = int32Type();
  checkMode(testValues(i, 30, 3), {{3, 5, 2}, {1, 6, 3}}, i, 1, true);
  checkMode(testValues(i, 30, 4), {{3, 5, 2}, {40, 4, 2}, 2}, i, 0, false);
  checkMode({6}, {{}}, i, 0, false);
  checkMode({6}, {{}}, i, -1, true);
  checkMode({}, {{0, 4}}, i, 1, false);
  checkMode({}, {{0, 4}}, i, 1, true);
  for (const Dtype &type : {float32Type(), int64Type()}) {
    checkMode(testValues(type, 5000, 1, true), {{5000}}, type, 0, false);
    checkMode(testValues(type, 3000 * 7, 2, true), {{3000, 7}}, type, 1, false);
    checkMode(testValues(type, 7 * 3000, 3, true), {{7, 3000}}, type, 0, true);
  }
  checkMode(testValues(i, 3000 * 30, 4), {{3000, 30}}, i, 1, false); // threads
}

TEST_P(ModeOps, RowLengthsAroundTheCudaThresholds) {
  for (const Dtype &type : dtypesWith({boolType()})) {
    int seed = 0;
    for (const auto &[rows, length] : kThresholdShapes) {
      // Many values tie for most frequent (the smallest wins), or few do.
      checkMode(spreadValues(type, rows * length, ++seed), {{rows, length}},
                type, 1, false);
      checkMode(testValues(type, rows * length, ++seed, true), {{rows, length}},
                type, -1, true);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, ModeOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- Refusals ----------------------------------------------------------------

class SortRefusals : public SortFamily {};

TEST_P(SortRefusals, BadArgumentsAreRefusedAndOutputsUntouched) {
  const TensorHandle self = tensor(testValues(float32Type(), 6, 1), {{2, 3}},
                                   float32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret0 = sentinel, ret1 = sentinel;
  const bool cuda = onCuda();
  auto sortCall = [&](AtenTensorHandle t, int64_t dim) {
    return (cuda ? aoti_torch_cuda_sort : aoti_torch_cpu_sort)(t, dim, 0, &ret0,
                                                               &ret1);
  };
  auto topkCall = [&](AtenTensorHandle t, int64_t k, int64_t dim) {
    return (cuda ? aoti_torch_cuda_topk : aoti_torch_cpu_topk)(t, k, dim, 1, 1,
                                                               &ret0, &ret1);
  };
  auto kthCall = [&](AtenTensorHandle t, int64_t k, int64_t dim) {
    return (cuda ? aoti_torch_cuda_kthvalue : aoti_torch_cpu_kthvalue)(
        t, k, dim, 0, &ret0, &ret1);
  };
  auto modeCall = [&](AtenTensorHandle t, int64_t dim) {
    return (cuda ? aoti_torch_cuda_mode : aoti_torch_cpu_mode)(t, dim, 0, &ret0,
                                                               &ret1);
  };
  auto medianCall = [&](AtenTensorHandle t) {
    return (cuda ? aoti_torch_cuda_median : aoti_torch_cpu_median)(t, &ret0);
  };
  EXPECT_SHIM_FAILS(sortCall(nullptr, 0), "'self' is null");
  EXPECT_SHIM_FAILS((cuda ? aoti_torch_cuda_sort : aoti_torch_cpu_sort)(
                        self.get(), 0, 0, nullptr, &ret1),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS((cuda ? aoti_torch_cuda_topk : aoti_torch_cpu_topk)(
                        self.get(), 1, 0, 1, 1, &ret0, nullptr),
                    "'ret1' is null");
  EXPECT_SHIM_FAILS((cuda ? aoti_torch_cuda_nanmedian
                          : aoti_torch_cpu_nanmedian)(self.get(), nullptr),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS(sortCall(self.get(), 2),
                    "dim 2 is out of range for a 2-d 'self' (expected [-2, 1])");
  EXPECT_SHIM_FAILS(modeCall(self.get(), -3), "dim -3 is out of range");
  EXPECT_SHIM_FAILS(topkCall(self.get(), 4, 1),
                    "'k' 4 is out of range for dim 1 of size 3 (topk expects "
                    "0 <= k <= 3)");
  EXPECT_SHIM_FAILS(topkCall(self.get(), -1, 0), "'k' -1 is out of range");
  EXPECT_SHIM_FAILS(kthCall(self.get(), 0, 1),
                    "'k' 0 is out of range for dim 1 of size 3 (kthvalue "
                    "expects 1 <= k <= 3)");
  EXPECT_SHIM_FAILS(kthCall(self.get(), 3, 0), "'k' 3 is out of range");
  const TensorHandle zeroDim = tensor({1.0}, {{}}, float32Type());
  EXPECT_SHIM_FAILS(kthCall(zeroDim.get(), 2, 0), "'k' 2 is out of range");
  EXPECT_SHIM_FAILS(topkCall(zeroDim.get(), 2, 0), "'k' 2 is out of range");
  EXPECT_SHIM_FAILS(sortCall(zeroDim.get(), 1),
                    "dim 1 is out of range for a 0-d 'self' (expected [-1, 0])");
  const TensorHandle emptyRows = tensor({}, {{3, 0}}, float32Type());
  EXPECT_SHIM_FAILS(modeCall(emptyRows.get(), 1),
                    "mode over dim 1 of size 0: the reduced dimension must "
                    "not be empty");
  EXPECT_SHIM_FAILS(kthCall(emptyRows.get(), 1, 1), "'k' 1 is out of range");
  // Dtypes torch's kernels do not take.
  const TensorHandle flags = tensor({1, 0, 1}, {{3}}, boolType());
  EXPECT_SHIM_FAILS(topkCall(flags.get(), 1, 0),
                    "'self' has dtype bool, which topk does not support");
  EXPECT_SHIM_FAILS(kthCall(flags.get(), 1, 0),
                    "'self' has dtype bool, which kthvalue does not support");
  EXPECT_SHIM_FAILS(medianCall(flags.get()),
                    "'self' has dtype bool, which median does not support");
  const TensorHandle wide = tensor({1, 2}, {{2}}, uint32Type());
  EXPECT_SHIM_FAILS(modeCall(wide.get(), 0),
                    "'self' has dtype uint32, which mode does not support");
  if (cuda)
    EXPECT_SHIM_FAILS(sortCall(wide.get(), 0),
                      "'self' has dtype uint32, which sort does not support "
                      "on CUDA");
  TensorHandle complex;
  const int64_t sizes[] = {2};
  ASSERT_SHIM_OK(aoti_torch_empty_strided(1, sizes, nullptr,
                                          aoti_torch_dtype_complex64(),
                                          device(), 0, complex.out()));
  EXPECT_SHIM_FAILS(sortCall(complex.get(), 0),
                    "'self' has dtype complex64, which sort does not support");
  EXPECT_EQ(ret0, sentinel);
  EXPECT_EQ(ret1, sentinel);
}

INSTANTIATE_TEST_SUITE_P(, SortRefusals, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

TEST(SortDevices, TheCudaEntryPointsRefuseACpuTensor) {
  TensorHandle self = makeTensor({1, 2, 3}, {{3}}, float32Type(), 0);
  AtenTensorHandle ret0 = nullptr, ret1 = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_sort(self.get(), 0, 0, &ret0, &ret1),
                    "'self' is on cpu; this sort needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_topk(self.get(), 1, 0, 1, 1, &ret0, &ret1),
                    "'self' is on cpu; this topk needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_median(self.get(), &ret0),
                    "'self' is on cpu; this median needs a CUDA tensor");
  EXPECT_EQ(ret0, nullptr);
  EXPECT_EQ(ret1, nullptr);
}

// What only a GPU can show.
class SortOnCuda : public SortFamily {};
INSTANTIATE_TEST_SUITE_P(, SortOnCuda, testing::ValuesIn(cudaDevicesUnderTest()),
                         deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SortOnCuda);

TEST_P(SortOnCuda, TheCpuEntryPointsRefuseACudaTensor) {
  TensorHandle self = tensor({1, 2, 3, 4}, {{2, 2}}, float32Type());
  AtenTensorHandle ret0 = nullptr, ret1 = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_mode(self.get(), 0, 0, &ret0, &ret1),
                    "'self' is on cuda:0; this mode needs a CPU tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_nanmedian(self.get(), &ret0),
                    "'self' is on cuda:0; this nanmedian needs a CPU tensor");
  EXPECT_EQ(ret0, nullptr);
}

TEST_P(SortOnCuda, RunsOnTheStreamAGuardSets) {
  // A non-blocking stream of the test's own: the keys, CUB's sorts and the
  // result kernels must all be ordered on it, so a copy on that stream sees
  // the results with no other synchronisation.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const Dtype f = float32Type();
    checkSort(testValues(f, 3000 * 7, 1, true), {{3000, 7}}, f, 1, true);
    checkSort(testValues(f, 5000, 2, true), {{5000}}, f, 0, false);
    checkTopk(testValues(f, 64 * 33, 3), {{64, 33}}, f, 5, 1, true);
    checkMode(testValues(f, 64 * 33, 4), {{64, 33}}, f, 0, false);
    checkMedian(testValues(f, 5000, 5, true), {{5000}}, f, true);
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
