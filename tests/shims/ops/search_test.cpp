//===- ops/search_test.cpp - searchsorted, bucketize, histc, histogram ----===//
//
// searchsorted and bucketize run on every device (ops/devices.h), against
// a reference that counts, for each value, the boundaries of its row that
// are below it (left) or not above it (right), with both rounded to the
// comparison dtype first and a NaN value counted past every boundary.
// histc runs on every device with each device's dtypes; its reference
// bins each value by floor((x - min) * bins / (max - min)) in double, on
// values and ranges where that is exact in every dtype tested (and in
// integer arithmetic for CUDA's integer histc). histogram_bin_ct and
// _histogramdd_from_bin_cts exist on the CPU only and are tested there,
// against edges and counts computed here.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

#include <numeric>

namespace aoti::test {
namespace {

bool isFloatType(const Dtype &t) {
  return t.code == aoti_torch_dtype_float32() ||
         t.code == aoti_torch_dtype_float64() ||
         t.code == aoti_torch_dtype_float16() ||
         t.code == aoti_torch_dtype_bfloat16();
}

int32_t dtypeCode(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

// Reference insertion positions: values (row-major, sizes `valueSizes`)
// in rows of `bd` (row-major, rows of `length`; one row when oneRow).
std::vector<double> referenceSearch(const std::vector<double> &values,
                                    const std::vector<int64_t> &valueSizes,
                                    const std::vector<double> &bd,
                                    int64_t length, bool oneRow, bool right) {
  const int64_t perRow = valueSizes.empty() ? 1 : valueSizes.back();
  std::vector<double> out;
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i) {
    const int64_t row = oneRow ? 0 : i / perRow;
    const double v = values[i];
    int64_t pos = 0;
    for (int64_t j = 0; j < length; ++j) {
      const double b = bd[row * length + j];
      if (std::isnan(v) || (right ? b <= v : b < v))
        ++pos;
    }
    out.push_back(static_cast<double>(pos));
  }
  return out;
}

std::vector<double> rounded(const std::vector<double> &v, const Dtype &t) {
  std::vector<double> r;
  for (double x : v)
    r.push_back(roundTrip(t, x));
  return r;
}

class SearchOps : public OpTest {
protected:
  using TensorFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                      int32_t, int32_t, const char **,
                                      AtenTensorHandle *, AtenTensorHandle *);
  using ScalarFn = AOTITorchError (*)(AtenTensorHandle, double, int32_t,
                                      int32_t, const char **,
                                      AtenTensorHandle *, AtenTensorHandle *);
  using BucketFn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                      int32_t, int32_t, AtenTensorHandle *);
  using HistcFn = AOTITorchError (*)(AtenTensorHandle, int64_t, double, double,
                                     AtenTensorHandle *);
  TensorFn searchTensor() const {
    return onCuda() ? aoti_torch_cuda_searchsorted_Tensor
                    : aoti_torch_cpu_searchsorted_Tensor;
  }
  ScalarFn searchScalar() const {
    return onCuda() ? aoti_torch_cuda_searchsorted_Scalar
                    : aoti_torch_cpu_searchsorted_Scalar;
  }
  BucketFn bucketize() const {
    return onCuda() ? aoti_torch_cuda_bucketize_Tensor
                    : aoti_torch_cpu_bucketize_Tensor;
  }
  HistcFn histc() const {
    return onCuda() ? aoti_torch_cuda_histc : aoti_torch_cpu_histc;
  }

  // searchsorted(boundaries, values) against the reference; `common` is
  // the dtype both are compared in.
  void checkSearch(const std::vector<double> &bd, const Layout &bdLayout,
                   const Dtype &bdType, const std::vector<double> &values,
                   const Layout &valueLayout, const Dtype &valueType,
                   const Dtype &common, bool right, bool outInt32,
                   const char *side, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle b = tensor(bd, bdLayout, bdType);
    TensorHandle v = tensor(values, valueLayout, valueType);
    TensorHandle out;
    const char *sideArg = side;
    ASSERT_SHIM_OK(searchTensor()(b.get(), v.get(), outInt32, right,
                                  side ? &sideArg : nullptr, nullptr, out.out()));
    EXPECT_EQ(sizesOf(out), valueLayout.sizes);
    EXPECT_EQ(stridesOf(out), contiguousStridesOf(valueLayout.sizes));
    EXPECT_EQ(dtypeCode(out), outInt32 ? aoti_torch_dtype_int32()
                                       : aoti_torch_dtype_int64());
    const bool effectiveRight = right || (side && std::string(side) == "right");
    const std::vector<double> expected = referenceSearch(
        rounded(rounded(values, valueType), common), valueLayout.sizes,
        rounded(rounded(bd, bdType), common), bdLayout.sizes.back(),
        bdLayout.sizes.size() == 1, effectiveRight);
    EXPECT_EQ(readTensor(out, outInt32 ? int32Type() : int64Type()), expected);
  }
};

const std::vector<double> kSorted = {-3, -1, -1, 0, 0.5, 2, 2, 2, 4, 7};
const std::vector<double> kProbes = {-4, -3, -1, -0.5, 0, 0.5, 1, 2, 3, 7, 8,
                                     std::nan("")};

TEST_P(SearchOps, OneBoundaryRowEveryDtypeLeftAndRight) {
  for (const Dtype &t : {float32Type(), float64Type(), float16Type(),
                         bfloat16Type(), int64Type(), int32Type(), int16Type(),
                         int8Type()}) {
    std::vector<double> probes;
    for (double p : kProbes)
      if (isFloatType(t) || (!std::isnan(p) && p == std::floor(p)))
        probes.push_back(p);
    std::vector<double> sorted;
    for (double s : kSorted)
      if (isFloatType(t) || s == std::floor(s))
        sorted.push_back(s);
    const int64_t n = static_cast<int64_t>(probes.size());
    const int64_t m = static_cast<int64_t>(sorted.size());
    for (bool right : {false, true})
      for (bool int32 : {false, true})
        checkSearch(sorted, {{m}}, t, probes, {{n}}, t, t, right, int32, nullptr,
                    std::string(t.name) + (right ? " right" : " left"));
  }
  // uint8: non-negative values.
  checkSearch({0, 1, 1, 5, 200}, {{5}}, uint8Type(), {0, 1, 2, 200, 255}, {{5}},
              uint8Type(), uint8Type(), false, false, nullptr, "uint8");
}

TEST_P(SearchOps, SideAgreesWithRight) {
  checkSearch(kSorted, {{10}}, float32Type(), kProbes, {{3, 4}}, float32Type(),
              float32Type(), false, false, "right", "side right");
  checkSearch(kSorted, {{10}}, float32Type(), kProbes, {{3, 4}}, float32Type(),
              float32Type(), false, false, "left", "side left");
  checkSearch(kSorted, {{10}}, float32Type(), kProbes, {{3, 4}}, float32Type(),
              float32Type(), true, false, "right", "both right");
}

TEST_P(SearchOps, RowsOfBoundariesAndStridedInputs) {
  // Boundaries [2, 3, 4]: each [.., 4] row serves the values of its row.
  std::vector<double> bd;
  for (int r = 0; r < 6; ++r)
    for (int j = 0; j < 4; ++j)
      bd.push_back(r - 2 + j * 1.5);
  std::vector<double> values = patternValues(2 * 3 * 5, 3);
  for (bool right : {false, true})
    checkSearch(bd, {{2, 3, 4}}, float32Type(), values, {{2, 3, 5}},
                float32Type(), float32Type(), right, false, nullptr, "3-d rows");
  // Transposed boundaries (each row still sorted) and values with gaps.
  std::vector<double> rows = {0, 1, 2, 3, 10, 11, 12, 13};
  checkSearch(rows, {{2, 4}, {1, 2}}, float64Type(), {0.5, 12, 3, 11, -1, 14},
              {{2, 3}, {6, 2}, 1}, float64Type(), float64Type(), false, true,
              nullptr, "transposed boundaries");
  // A broadcast (stride-0) value tensor.
  checkSearch(kSorted, {{10}}, float32Type(), {2, 2, 2, 2}, {{4}, {0}},
              float32Type(), float32Type(), true, false, nullptr, "broadcast");
}

TEST_P(SearchOps, SorterGivesTheOrder) {
  // Unsorted boundaries with the permutation that sorts each row.
  const std::vector<double> bd = {5, -1, 3, 0, 9, 2, 8, 7, 1};
  TensorHandle b = tensor(bd, {{9}}, float32Type());
  std::vector<double> order(9);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](double x, double y) {
                     return bd[static_cast<size_t>(x)] < bd[static_cast<size_t>(y)];
                   });
  TensorHandle s = tensor(order, {{9}}, int64Type());
  TensorHandle v = tensor(kProbes, {{12}}, float32Type());
  std::vector<double> sortedBd;
  for (double k : order)
    sortedBd.push_back(bd[static_cast<size_t>(k)]);
  for (bool right : {false, true}) {
    TensorHandle out;
    AtenTensorHandle sorterHandle = s.get();
    ASSERT_SHIM_OK(searchTensor()(b.get(), v.get(), 0, right, nullptr,
                                  &sorterHandle, out.out()));
    EXPECT_EQ(readTensor(out, int64Type()),
              referenceSearch(kProbes, {12}, sortedBd, 9, true, right));
  }
  // Rows with their own sorter rows.
  TensorHandle rows = tensor({3, 1, 2, 30, 10, 20}, {{2, 3}}, float32Type());
  TensorHandle rowSorter = tensor({1, 2, 0, 1, 2, 0}, {{2, 3}}, int64Type());
  TensorHandle rowValues = tensor({2.5, 0, 15, 31}, {{2, 2}}, float32Type());
  TensorHandle out;
  AtenTensorHandle sorterHandle = rowSorter.get();
  ASSERT_SHIM_OK(searchTensor()(rows.get(), rowValues.get(), 0, 0, nullptr,
                                &sorterHandle, out.out()));
  EXPECT_EQ(readTensor(out, int64Type()), (std::vector<double>{2, 0, 1, 3}));
}

TEST_P(SearchOps, MixedDtypesCompareInTorchsResultType) {
  // int64 boundaries, float32 values: compared in float32.
  checkSearch({0, 1, 2, 3}, {{4}}, int64Type(), {0.5, 1, 2.5, -1}, {{4}},
              float32Type(), float32Type(), false, false, nullptr, "int and float");
  // uint8 with int8 promote to int16 (255 stays 255, -1 stays -1).
  checkSearch({0, 100, 255}, {{3}}, uint8Type(), {-1, 100, 127}, {{3}},
              int8Type(), int16Type(), true, false, nullptr, "uint8 with int8");
  // A 0-d value takes part only across categories: int64 300 against int8
  // boundaries is compared as int8 (it wraps to 44), as torch does.
  {
    TensorHandle b = tensor({0, 40, 50, 100}, {{4}}, int8Type());
    TensorHandle v = tensor({300}, {{}}, int64Type());
    TensorHandle out;
    ASSERT_SHIM_OK(searchTensor()(b.get(), v.get(), 0, 0, nullptr, nullptr,
                                  out.out()));
    EXPECT_EQ(readTensor(out, int64Type()), (std::vector<double>{2}));
  }
  // A 0-d float64 value against float16 boundaries is rounded to float16.
  checkSearch({1, 2}, {{2}}, float16Type(), {1.0002}, {{}}, float64Type(),
              float16Type(), false, false, nullptr, "0-d float64 with float16");
  // Bool values against int boundaries compare as the integers 0 and 1.
  checkSearch({0, 1, 1, 2}, {{4}}, int32Type(), {1, 0}, {{2}}, boolType(),
              int32Type(), false, false, nullptr, "bool values");
}

TEST_P(SearchOps, ScalarForm) {
  TensorHandle f = tensor(kSorted, {{10}}, float32Type());
  for (double value : {-5.0, 0.0, 2.0, 2.25, 100.0, std::nan("")})
    for (bool right : {false, true}) {
      TensorHandle out;
      ASSERT_SHIM_OK(searchScalar()(f.get(), value, 1, right, nullptr, nullptr,
                                    out.out()));
      EXPECT_EQ(sizesOf(out), std::vector<int64_t>{});
      EXPECT_EQ(dtypeCode(out), aoti_torch_dtype_int32());
      EXPECT_EQ(readTensor(out, int32Type()),
                referenceSearch({value}, {}, kSorted, 10, true, right));
    }
  // Integer boundaries and a Scalar compare in float32: 2.5 lands between.
  TensorHandle ints = tensor({0, 1, 2, 3}, {{4}}, int64Type());
  TensorHandle out;
  ASSERT_SHIM_OK(searchScalar()(ints.get(), 2.5, 0, 0, nullptr, nullptr, out.out()));
  EXPECT_EQ(readTensor(out, int64Type()), (std::vector<double>{3}));
  // float16 boundaries: the Scalar is rounded to float16 first.
  TensorHandle halves = tensor({1, 2}, {{2}}, float16Type());
  ASSERT_SHIM_OK(searchScalar()(halves.get(), 1.0002, 0, 0, nullptr, nullptr,
                                out.out()));
  EXPECT_EQ(readTensor(out, int64Type()), (std::vector<double>{0}));
}

TEST_P(SearchOps, Bucketize) {
  for (bool right : {false, true}) {
    TensorHandle v = tensor(kProbes, {{4, 3}}, float32Type());
    TensorHandle b = tensor(kSorted, {{10}}, float32Type());
    TensorHandle out;
    ASSERT_SHIM_OK(bucketize()(v.get(), b.get(), 0, right, out.out()));
    EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(readTensor(out, int64Type()),
              referenceSearch(kProbes, {4, 3}, kSorted, 10, true, right));
  }
  TensorHandle v = tensor({3}, {{}}, int32Type());
  TensorHandle b = tensor({1, 3, 5}, {{3}}, int64Type());
  TensorHandle out;
  ASSERT_SHIM_OK(bucketize()(v.get(), b.get(), 1, 1, out.out()));
  EXPECT_EQ(sizesOf(out), std::vector<int64_t>{});
  EXPECT_EQ(readTensor(out, int32Type()), (std::vector<double>{2}));
}

TEST_P(SearchOps, EmptyInputsAndManyValues) {
  checkSearch(kSorted, {{10}}, float32Type(), {}, {{0, 3}}, float32Type(),
              float32Type(), false, false, nullptr, "no values");
  checkSearch({}, {{0}}, float32Type(), {1, 2}, {{2}}, float32Type(),
              float32Type(), false, false, nullptr, "no boundaries");
  checkSearch({}, {{2, 0}}, float32Type(), {1, 2, 3, 4}, {{2, 2}},
              float32Type(), float32Type(), true, false, nullptr,
              "rows of no boundaries");
  // Past one block of threads and one grid-stride pass.
  std::vector<double> many;
  for (int64_t i = 0; i < 300000; ++i)
    many.push_back(static_cast<double>((i * 37) % 1000) / 100.0 - 1.0);
  std::vector<double> bd;
  for (int j = 0; j < 64; ++j)
    bd.push_back(j * 0.125);
  checkSearch(bd, {{64}}, float32Type(), many, {{300000}}, float32Type(),
              float32Type(), false, false, nullptr, "many values");
}

TEST_P(SearchOps, SearchRefusals) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  TensorHandle b = tensor(kSorted, {{10}}, float32Type());
  TensorHandle v = tensor({1, 2}, {{2}}, float32Type());
  AtenTensorHandle ret = reinterpret_cast<AtenTensorHandle>(0x1);
  auto run = [&](AtenTensorHandle bd, AtenTensorHandle values, int32_t right,
                 const char *side, AtenTensorHandle *sorter) {
    const char *sideArg = side;
    return searchTensor()(bd, values, 0, right, side ? &sideArg : nullptr,
                          sorter, &ret);
  };
  EXPECT_SHIM_FAILS(run(nullptr, v.get(), 0, nullptr, nullptr),
                    "'sorted_sequence' is null");
  EXPECT_SHIM_FAILS(searchTensor()(b.get(), v.get(), 0, 0, nullptr, nullptr,
                                   nullptr),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS(run(b.get(), v.get(), 0, "middle", nullptr),
                    "side can only be 'left' or 'right' but got middle");
  EXPECT_SHIM_FAILS(run(b.get(), v.get(), 1, "left", nullptr),
                    "side and right can't be set to opposites");
  TensorHandle shortSorter = tensor({0, 1}, {{2}}, int64Type());
  AtenTensorHandle sh = shortSorter.get();
  EXPECT_SHIM_FAILS(run(b.get(), v.get(), 0, nullptr, &sh),
                    "boundary and sorter must have the same size");
  TensorHandle intSorter = tensor(std::vector<double>(10, 0), {{10}}, int32Type());
  AtenTensorHandle ih = intSorter.get();
  EXPECT_SHIM_FAILS(run(b.get(), v.get(), 0, nullptr, &ih),
                    "sorter must be a tensor of long dtype but got dtype int32");
  TensorHandle badSorter =
      tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 10}, {{10}}, int64Type());
  AtenTensorHandle bh = badSorter.get();
  EXPECT_SHIM_FAILS(run(b.get(), v.get(), 0, nullptr, &bh),
                    "sorter index out of range");
  TensorHandle rows = tensor(std::vector<double>(6, 0), {{2, 3}}, float32Type());
  TensorHandle scalar = tensor({1}, {{}}, float32Type());
  EXPECT_SHIM_FAILS(run(rows.get(), scalar.get(), 0, nullptr, nullptr),
                    "input value can be a scalar only when boundaries tensor "
                    "dimension is 1");
  EXPECT_SHIM_FAILS(run(scalar.get(), scalar.get(), 0, nullptr, nullptr),
                    "input value can be a scalar only when boundaries");
  EXPECT_SHIM_FAILS(run(scalar.get(), v.get(), 0, nullptr, nullptr),
                    "boundaries tensor should have positive dimension");
  TensorHandle otherRows = tensor(std::vector<double>(6, 0), {{3, 2}}, float32Type());
  EXPECT_SHIM_FAILS(run(rows.get(), otherRows.get(), 0, nullptr, nullptr),
                    "boundaries tensor should be 1 dimension or the first N-1 "
                    "dimensions of boundaries tensor and input value tensor "
                    "must match, but we got boundaries tensor [2, 3] and input "
                    "value tensor [3, 2]");
  TensorHandle bools = tensor({0, 1}, {{2}}, boolType());
  EXPECT_SHIM_FAILS(run(bools.get(), bools.get(), 0, nullptr, nullptr),
                    "kernel comparing bool boundaries with bool");
  EXPECT_SHIM_FAILS(bucketize()(v.get(), rows.get(), 0, 0, &ret),
                    "boundaries tensor must be 1 dimension, but got dim(2)");
  EXPECT_EQ(ret, reinterpret_cast<AtenTensorHandle>(0x1));
}

// --- histc -------------------------------------------------------------------

// Reference histc: floor((x - lo) * bins / (hi - lo)), the high edge in the
// last bin, others outside skipped.
std::vector<double> referenceHistc(const std::vector<double> &values,
                                   int64_t bins, double lo, double hi,
                                   bool integerArithmetic) {
  std::vector<double> hist(static_cast<size_t>(bins), 0);
  for (double x : values) {
    if (!(x >= lo && x <= hi))
      continue;
    int64_t b = integerArithmetic
                    ? (static_cast<int64_t>(x) - static_cast<int64_t>(lo)) * bins /
                          (static_cast<int64_t>(hi) - static_cast<int64_t>(lo))
                    : static_cast<int64_t>(std::floor((x - lo) * bins / (hi - lo)));
    if (b == bins)
      b = bins - 1;
    hist[b] += 1;
  }
  return hist;
}

TEST_P(SearchOps, HistcEveryDtypeOfTheDevice) {
  const std::vector<double> values = {-1, 0, 0.5, 1, 1.5, 2, 3.5, 4, 4, 7.5,
                                      8, 9, std::nan("")};
  std::vector<Dtype> types = {float32Type(), float64Type()};
  if (onCuda())
    for (const Dtype &t : {int64Type(), int32Type(), int16Type(), int8Type(),
                           uint8Type()})
      types.push_back(t);
  else
    for (const Dtype &t : {float16Type(), bfloat16Type()})
      types.push_back(t);
  for (const Dtype &t : types) {
    SCOPED_TRACE(t.name);
    std::vector<double> v;
    for (double x : values)
      if (isFloatType(t) || (!std::isnan(x) && x >= 0 && x == std::floor(x)))
        v.push_back(x);
    TensorHandle self = tensor(v, {{static_cast<int64_t>(v.size())}}, t);
    for (int64_t bins : {1, 4, 16}) {
      TensorHandle hist;
      ASSERT_SHIM_OK(histc()(self.get(), bins, 0, 8, hist.out()));
      EXPECT_EQ(sizesOf(hist), std::vector<int64_t>{bins});
      EXPECT_EQ(stridesOf(hist), std::vector<int64_t>{1});
      EXPECT_EQ(dtypeCode(hist), t.code);
      EXPECT_EQ(readTensor(hist, t),
                referenceHistc(v, bins, 0, 8, !isFloatType(t)));
    }
  }
}

TEST_P(SearchOps, HistcRangeFromTheData) {
  // min == max: the data's own range ([-1, 9] here; 3 bins of width 10/3).
  const std::vector<double> v = {-1, 2, 2.5, 5, 9, 9, 0};
  TensorHandle self = tensor(v, {{7}}, float64Type());
  TensorHandle hist;
  ASSERT_SHIM_OK(histc()(self.get(), 3, 0, 0, hist.out()));
  EXPECT_EQ(readTensor(hist, float64Type()), referenceHistc(v, 3, -1, 9, false));
  ASSERT_SHIM_OK(histc()(self.get(), 3, 4, 4, hist.out()));
  EXPECT_EQ(readTensor(hist, float64Type()), referenceHistc(v, 3, -1, 9, false));
  // Constant data: the range widens to [x - 1, x + 1].
  TensorHandle flat = tensor({3, 3, 3}, {{3}}, float32Type());
  ASSERT_SHIM_OK(histc()(flat.get(), 4, 0, 0, hist.out()));
  EXPECT_EQ(readTensor(hist, float32Type()), (std::vector<double>{0, 0, 3, 0}));
  // Empty data and min == max: [min - 1, max + 1], all zeros.
  TensorHandle empty = tensor({}, {{0}}, float32Type());
  ASSERT_SHIM_OK(histc()(empty.get(), 2, 5, 5, hist.out()));
  EXPECT_EQ(readTensor(hist, float32Type()), (std::vector<double>{0, 0}));
  // Strided input.
  TensorHandle strided = tensor({0, 1, 2, 3, 4, 5}, {{2, 3}, {1, 2}, 1}, float32Type());
  ASSERT_SHIM_OK(histc()(strided.get(), 6, 0, 6, hist.out()));
  EXPECT_EQ(readTensor(hist, float32Type()),
            (std::vector<double>{1, 1, 1, 1, 1, 1}));
}

TEST_P(SearchOps, HistcManyValuesAndManyBins) {
  // Past the shared-memory bin limit of the CUDA kernel (12288 bins), and
  // over many blocks below it.
  std::vector<double> v;
  for (int64_t i = 0; i < 200000; ++i)
    v.push_back(static_cast<double>((i * 7919) % 20000));
  TensorHandle self = tensor(v, {{200000}}, float32Type());
  for (int64_t bins : {10, 1000, 20000}) {
    TensorHandle hist;
    ASSERT_SHIM_OK(histc()(self.get(), bins, 0, 20000, hist.out()));
    EXPECT_EQ(readTensor(hist, float32Type()),
              referenceHistc(v, bins, 0, 20000, false))
        << bins << " bins";
  }
}

TEST_P(SearchOps, HistcRefusals) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  TensorHandle self = tensor({1, 2, std::nan("")}, {{3}}, float32Type());
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(histc()(self.get(), 0, 0, 1, &ret),
                    "histc(): bins must be > 0, but got 0");
  EXPECT_SHIM_FAILS(histc()(self.get(), 4, 2, 1, &ret),
                    "histc(): max must be larger than min");
  EXPECT_SHIM_FAILS(histc()(self.get(), 4, 0, 0, &ret),
                    "range of [nan, nan] is not finite");
  EXPECT_SHIM_FAILS(histc()(self.get(), 4, 0, HUGE_VAL, &ret), "is not finite");
  if (onCuda()) {
    TensorHandle half = tensor({1}, {{1}}, float16Type());
    EXPECT_SHIM_FAILS(histc()(half.get(), 4, 0, 1, &ret),
                      "HalfTensor is not supported");
    TensorHandle bf = tensor({1}, {{1}}, bfloat16Type());
    EXPECT_SHIM_FAILS(histc()(bf.get(), 4, 0, 1, &ret), "not implemented for bfloat16");
    TensorHandle ints = tensor({1}, {{1}}, int8Type());
    EXPECT_SHIM_FAILS(histc()(ints.get(), 4, 0, std::nan(""), &ret),
                      "max must be larger than min");
  } else {
    TensorHandle ints = tensor({1}, {{1}}, int32Type());
    EXPECT_SHIM_FAILS(histc()(ints.get(), 4, 0, 1, &ret),
                      "\"histogram_cpu\" not implemented for int32");
  }
  EXPECT_EQ(ret, nullptr);
}

INSTANTIATE_TEST_SUITE_P(, SearchOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// What only a GPU can show.
class SearchOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, SearchOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SearchOnCuda);

TEST_P(SearchOnCuda, BadDataIsRecordedWithoutWaiting) {
  // By default a bad sorter entry is not followed (the search reads the
  // boundary at its own position) and a histc range from data holding a
  // NaN counts nothing; both are reported by aoti_shims_cuda_check_errors.
  (void)takeCudaCheckError();
  TensorHandle b = tensor(kSorted, {{10}}, float32Type());
  TensorHandle v = tensor(kProbes, {{12}}, float32Type());
  TensorHandle badSorter =
      tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 10}, {{10}}, int64Type());
  AtenTensorHandle sh = badSorter.get();
  TensorHandle out;
  ASSERT_SHIM_OK(aoti_torch_cuda_searchsorted_Tensor(b.get(), v.get(), 0, 0,
                                                     nullptr, &sh, out.out()));
  for (double position : readTensor(out, int64Type())) {
    EXPECT_GE(position, 0);
    EXPECT_LE(position, 10);
  }
  EXPECT_NE(takeCudaCheckError().find("torch.searchsorted(): sorter index out "
                                      "of range (sorter holds 10, outside "
                                      "[0, 10))"),
            std::string::npos);
  TensorHandle nan = tensor({1, 2, std::nan("")}, {{3}}, float32Type());
  TensorHandle hist;
  ASSERT_SHIM_OK(aoti_torch_cuda_histc(nan.get(), 4, 0, 0, hist.out()));
  EXPECT_EQ(readTensor(hist, float32Type()), (std::vector<double>(4, 0.0)));
  EXPECT_NE(takeCudaCheckError().find("range of [nan, nan] is not finite"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "");
}

TEST_P(SearchOnCuda, CallsCaptureIntoACudaGraph) {
  // A capture fails at the first synchronisation: searchsorted (with a
  // sorter), bucketize and histc (with its range from the data) must not
  // make one.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const std::vector<double> bd = {5, -1, 3, 0, 9, 2, 8, 7, 1};
    TensorHandle b = tensor(bd, {{9}}, float32Type());
    TensorHandle sorter = tensor({1, 3, 8, 5, 2, 0, 7, 6, 4}, {{9}}, int64Type());
    TensorHandle sorted = tensor(kSorted, {{10}}, float32Type());
    TensorHandle v = tensor(kProbes, {{12}}, float32Type());
    std::vector<double> many;
    for (int i = 0; i < 5000; ++i)
      many.push_back((i * 37) % 101 - 50);
    TensorHandle data = tensor(many, {{5000}}, int32Type());
    TensorHandle floats = tensor(many, {{50, 100}, {1, 50}}, float32Type());
    AtenTensorHandle sh = sorter.get();
    auto run = [&](TensorHandle (&r)[4]) {
      ASSERT_SHIM_OK(aoti_torch_cuda_searchsorted_Tensor(b.get(), v.get(), 0, 1,
                                                         nullptr, &sh,
                                                         r[0].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_bucketize_Tensor(v.get(), sorted.get(), 1,
                                                      0, r[1].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_histc(data.get(), 7, 0, 0, r[2].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_histc(floats.get(), 300, 3, 3, r[3].out()));
    };
    const Dtype types[4] = {int64Type(), int32Type(), int32Type(),
                            float32Type()};
    TensorHandle eager[4];
    run(eager);
    CudaGraphCapture capture(stream.get());
    TensorHandle captured[4];
    run(captured);
    ASSERT_TRUE(capture.finish());
    ASSERT_TRUE(capture.replay());
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(readTensor(captured[k], types[k]), readTensor(eager[k], types[k]))
          << "captured op " << k;
    // The data's range is [-50, 50]: 7 bins of int32 counts.
    double total = 0;
    for (double count : readTensor(eager[2], int32Type()))
      total += count;
    EXPECT_EQ(total, 5000);
    EXPECT_EQ(takeCudaCheckError(), "");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

TEST(SearchDevices, TheCudaEntryPointsRefuseCpuTensors) {
  TensorHandle b = makeTensor({1, 2}, {{2}}, float32Type(), 0);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_searchsorted_Tensor(b.get(), b.get(), 0, 0,
                                                        nullptr, nullptr, &ret),
                    "'sorted_sequence' is on cpu; this searchsorted needs a "
                    "CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_histc(b.get(), 2, 0, 1, &ret),
                    "'self' is on cpu; this histc needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_bucketize_Tensor(b.get(), b.get(), 0, 0, &ret),
                    "'boundaries' is on cpu; this bucketize needs a CUDA tensor");
}

// --- histogram_bin_ct and _histogramdd_from_bin_cts (CPU only) ----------------

// `value` rounded to nearest-even in `t` (the test utilities' roundTrip
// truncates bfloat16, for values it holds exactly).
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

struct Histogram {
  std::vector<double> hist, edges;
};

// Reference 1-d histogram over linspace(lo, hi, bins + 1) (edges exact in
// double for the cases used), weights and density as torch defines them.
Histogram referenceHistogram(const std::vector<double> &v,
                             const std::vector<double> *w, int64_t bins,
                             double lo, double hi, bool density,
                             const Dtype &t) {
  Histogram h;
  for (int64_t i = 0; i <= bins; ++i)
    h.edges.push_back(lo + (hi - lo) * i / bins);
  h.hist.assign(static_cast<size_t>(bins), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] >= lo && v[i] <= hi))
      continue;
    int64_t b = bins - 1;
    for (int64_t k = 0; k < bins; ++k)
      if (v[i] < h.edges[k + 1]) {
        b = k;
        break;
      }
    h.hist[b] += w ? (*w)[i] : 1;
  }
  if (density) {
    double total = 0;
    for (double x : h.hist)
      total += x;
    // Two divisions, each rounded to the dtype as torch's in-place ones are.
    for (int64_t k = 0; k < bins; ++k)
      h.hist[k] = nearest(t, nearest(t, h.hist[k] / total) /
                                 (h.edges[k + 1] - h.edges[k]));
  }
  return h;
}

class HistogramCpu : public testing::Test {
protected:
  void check(const std::vector<double> &v, const Layout &layout, const Dtype &t,
             int64_t bins, const double *range, const std::vector<double> *w,
             bool density, double lo, double hi, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = makeTensor(v, layout, t, 0);
    TensorHandle weight;
    if (w)
      weight = makeTensor(*w, {{static_cast<int64_t>(w->size())}}, t, 0);
    AtenTensorHandle weightHandle = weight.get();
    TensorHandle hist, edges;
    ASSERT_SHIM_OK(aoti_torch_cpu_histogram_bin_ct(
        self.get(), bins, range ? &range : nullptr, range ? 2 : 0,
        w ? &weightHandle : nullptr, density, hist.out(), edges.out()));
    EXPECT_EQ(sizesOf(hist), std::vector<int64_t>{bins});
    EXPECT_EQ(sizesOf(edges), std::vector<int64_t>{bins + 1});
    EXPECT_EQ(dtypeCode(hist), t.code);
    EXPECT_EQ(dtypeCode(edges), t.code);
    const Histogram expected =
        referenceHistogram(v, w, bins, lo, hi, density, t);
    EXPECT_EQ(readTensor(edges, t), rounded(expected.edges, t));
    const std::vector<double> actual = readTensor(hist, t);
    ASSERT_EQ(actual.size(), expected.hist.size());
    for (size_t k = 0; k < actual.size(); ++k)
      EXPECT_NEAR(actual[k], expected.hist[k],
                  1e-6 * std::max(1.0, std::fabs(expected.hist[k])))
          << "bin " << k;
  }
};

TEST_F(HistogramCpu, BinsRangeWeightsAndDensity) {
  const std::vector<double> v = {-1, 0, 0.25, 0.5, 1, 1.5, 2, 2, 3.75, 4, 5};
  const double range[] = {0, 4};
  for (const Dtype &t : {float32Type(), float64Type(), float16Type(), bfloat16Type()})
    for (bool density : {false, true})
      check(v, {{11}}, t, 8, range, nullptr, density, 0, 4,
            std::string(t.name) + (density ? " density" : ""));
  const std::vector<double> w = {1, 2, 0.5, 1, 1, 2, 1, 1, 0.25, 4, 8};
  check(v, {{11}}, float32Type(), 4, range, &w, false, 0, 4, "weights");
  check(v, {{11}}, float64Type(), 4, range, &w, true, 0, 4, "weighted density");
  // No range: the data's [min, max] (float32 and float64 only).
  check(v, {{11}}, float64Type(), 6, nullptr, nullptr, false, -1, 5, "data range");
  check(v, {{11}, {1}}, float32Type(), 3, nullptr, &w, false, -1, 5,
        "data range, weights");
  // A 2-d, transposed self is flattened; its weight may have any shape of
  // the same numel.
  const double sixes[] = {0, 6};
  check({0, 1, 2, 3, 4, 5}, {{2, 3}, {1, 2}}, float32Type(), 3, sixes, nullptr,
        false, 0, 6, "transposed");
  // Empty self without a range: [0, 1]. A range of width 0 widens by 0.5.
  check({}, {{0}}, float32Type(), 2, nullptr, nullptr, false, 0, 1, "empty");
  const double flat[] = {2, 2};
  check({2, 2, 3}, {{3}}, float32Type(), 2, flat, nullptr, false, 1.5, 2.5,
        "zero-width range");
}

TEST_F(HistogramCpu, EdgesAreTorchsLinspace) {
  // linspace(0, 4, 4) in float32 computes its second half from the end:
  // 4 - 4/3 rounds (a tie) to 2.6666665, not to float(8/3) = 2.6666667.
  TensorHandle self = makeTensor({0, 2.6666666, 4}, {{3}}, float32Type(), 0);
  const double range[] = {0, 4};
  const double *r = range;
  TensorHandle hist, edges;
  ASSERT_SHIM_OK(aoti_torch_cpu_histogram_bin_ct(self.get(), 3, &r, 2, nullptr,
                                                 0, hist.out(), edges.out()));
  const float step = 4.0f / 3;
  EXPECT_EQ(readTensor(edges, float32Type()),
            (std::vector<double>{0, step, 4.0f - step, 4}));
  EXPECT_EQ(4.0f - step, 2.6666665f);
  // 2.6666666 rounds to 2.6666665 in float32, the second edge itself.
  EXPECT_EQ(readTensor(hist, float32Type()), (std::vector<double>{1, 0, 2}));
}

TEST_F(HistogramCpu, Refusals) {
  TensorHandle self = makeTensor({1, 2, 3}, {{3}}, float32Type(), 0);
  AtenTensorHandle hist = nullptr, edges = nullptr;
  const double range[] = {0, 4};
  const double *r = range;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 0, &r, 2,
                                                    nullptr, 0, &hist, &edges),
                    "bins must be > 0, but got 0");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &r, 3,
                                                    nullptr, 0, &hist, &edges),
                    "range should have 2 elements, but got 3");
  const double backwards[] = {4, 0};
  const double *b = backwards;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &b, 2,
                                                    nullptr, 0, &hist, &edges),
                    "min should not exceed max, but got min 4 max 0");
  const double infinite[] = {0, HUGE_VAL};
  const double *inf = infinite;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &inf, 2,
                                                    nullptr, 0, &hist, &edges),
                    "is not finite");
  TensorHandle shortWeight = makeTensor({1, 2}, {{2}}, float32Type(), 0);
  AtenTensorHandle sw = shortWeight.get();
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &r, 2, &sw, 0,
                                                    &hist, &edges),
                    "should have the same shape as the input tensor");
  TensorHandle doubleWeight = makeTensor({1, 2, 3}, {{3}}, float64Type(), 0);
  AtenTensorHandle dw = doubleWeight.get();
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &r, 2, &dw, 0,
                                                    &hist, &edges),
                    "should have the same dtype");
  TensorHandle ints = makeTensor({1, 2, 3}, {{3}}, int64Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(ints.get(), 2, &r, 2, nullptr,
                                                    0, &hist, &edges),
                    "\"histogram_cpu\" not implemented for int64");
  TensorHandle halves = makeTensor({1, 2, 3}, {{3}}, float16Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(halves.get(), 2, nullptr, 0,
                                                    nullptr, 0, &hist, &edges),
                    "without a range");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_histogram_bin_ct(self.get(), 2, &r, 2,
                                                    nullptr, 0, nullptr, &edges),
                    "'ret0' is null");
  EXPECT_EQ(hist, nullptr);
  EXPECT_EQ(edges, nullptr);
}

TEST_F(HistogramCpu, Histogramdd) {
  // Points (x, y) of a [2, 3, 2] self: 6 points in 2 dimensions.
  const std::vector<double> points = {0, 0, 1, 1, 2, 2, 3, 0.5, 4, 5, 1.5, 6};
  TensorHandle self = makeTensor(points, {{2, 3, 2}}, float32Type(), 0);
  const int64_t bins[] = {2, 3};
  const double range[] = {0, 4, 0, 6};
  const double *r = range;
  TensorHandle hist;
  ASSERT_SHIM_OK(aoti_torch_cpu__histogramdd_from_bin_cts(
      self.get(), bins, 2, &r, 4, nullptr, 0, hist.out()));
  EXPECT_EQ(sizesOf(hist), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(stridesOf(hist), (std::vector<int64_t>{3, 1}));
  // x bins [0,2) [2,4]; y bins [0,2) [2,4) [4,6].
  EXPECT_EQ(readTensor(hist, float32Type()),
            (std::vector<double>{2, 0, 1, 1, 1, 1}));
  // Weighted (weight of self's sizes less the last) and density.
  TensorHandle weight = makeTensor({1, 2, 3, 4, 5, 6}, {{2, 3}}, float32Type(), 0);
  AtenTensorHandle wh = weight.get();
  ASSERT_SHIM_OK(aoti_torch_cpu__histogramdd_from_bin_cts(
      self.get(), bins, 2, &r, 4, &wh, 1, hist.out()));
  const double total = 21, area = 2 * 2;
  EXPECT_EQ(readTensor(hist, float32Type()),
            (std::vector<double>{roundTrip(float32Type(), 3 / total / area), 0,
                                 roundTrip(float32Type(), 6 / total / area),
                                 roundTrip(float32Type(), 4 / total / area),
                                 roundTrip(float32Type(), 3 / total / area),
                                 roundTrip(float32Type(), 5 / total / area)}));
  // No range: each column's own [min, max].
  ASSERT_SHIM_OK(aoti_torch_cpu__histogramdd_from_bin_cts(
      self.get(), bins, 2, nullptr, 0, nullptr, 0, hist.out()));
  EXPECT_EQ(readTensor(hist, float32Type()),
            (std::vector<double>{2, 0, 1, 1, 1, 1}));
  AtenTensorHandle ret = nullptr;
  TensorHandle flat = makeTensor({1, 2}, {{2}}, float32Type(), 0);
  EXPECT_SHIM_FAILS(aoti_torch_cpu__histogramdd_from_bin_cts(
                        flat.get(), bins, 1, nullptr, 0, nullptr, 0, &ret),
                    "input tensor should have at least 2 dimensions");
  EXPECT_SHIM_FAILS(aoti_torch_cpu__histogramdd_from_bin_cts(
                        self.get(), bins, 1, nullptr, 0, nullptr, 0, &ret),
                    "expected 2 sequences of bin edges for a 2-dimensional "
                    "histogram but got 1");
  TensorHandle badWeight = makeTensor(std::vector<double>(6, 1), {{6}}, float32Type(), 0);
  AtenTensorHandle bw = badWeight.get();
  EXPECT_SHIM_FAILS(aoti_torch_cpu__histogramdd_from_bin_cts(
                        self.get(), bins, 2, &r, 4, &bw, 0, &ret),
                    "excluding its innermost dimension");
  EXPECT_EQ(ret, nullptr);
}

} // namespace
} // namespace aoti::test
