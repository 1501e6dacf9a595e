//===- ops/index_select_test.cpp - The index family's data-dependent ops --===//
//
// nonzero, nonzero_static, masked_select, masked_scatter and
// repeat_interleave, on both devices (ops/devices.h), against references
// computed here with plain loops over the values the test made (row-major
// scans of the logical values; broadcasting by right-aligned coordinates).
// Beside the small cases, each op gets an input of 100000 elements, so
// that CUDA's CUB passes span many blocks and tiles. The result layouts
// checked are torch 2.11's: nonzero's (1, n) column-major strides (the CPU
// kernel's and the fake impl's), nonzero_static's contiguous CPU and
// (1, size) CUDA strides (its meta), contiguous 1-d results otherwise.
//
//===----------------------------------------------------------------------===//
#include "ops/index_test_util.h"

namespace aoti::test {
namespace {

// --- nonzero, nonzero_static ------------------------------------------------

// Row-major coordinates of the elements of `values` (of `sizes`) that are
// non-zero (NaN is, -0.0 is not).
std::vector<std::vector<int64_t>>
nonzeroCoords(const std::vector<double> &values,
              const std::vector<int64_t> &sizes) {
  std::vector<std::vector<int64_t>> rows;
  for (int64_t i = 0; i < numelOf(sizes); ++i)
    if (values[static_cast<size_t>(i)] != 0.0)
      rows.push_back(coordsOf(i, sizes));
  return rows;
}

class NonzeroOps : public OpTest {
protected:
  void check(const std::vector<double> &values, const Layout &layout,
             const Dtype &type, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle ret;
    ASSERT_SHIM_OK((onCuda() ? aoti_torch_cuda_nonzero
                             : aoti_torch_cpu_nonzero)(self.get(), ret.out()));
    std::vector<double> stored;
    for (double v : values)
      stored.push_back(asDtype(type, v));
    const auto rows = nonzeroCoords(stored, layout.sizes);
    const int64_t n = static_cast<int64_t>(rows.size());
    const int64_t ndim = static_cast<int64_t>(layout.sizes.size());
    EXPECT_EQ(sizesOf(ret), (std::vector<int64_t>{n, ndim}));
    EXPECT_EQ(stridesOf(ret), (std::vector<int64_t>{1, n}));
    EXPECT_EQ(dtypeOf(ret), aoti_torch_dtype_int64());
    EXPECT_EQ(deviceTypeOf(ret), device());
    std::vector<double> expected;
    for (const auto &row : rows)
      for (int64_t c : row)
        expected.push_back(static_cast<double>(c));
    expectSameValues(readTensor(ret, int64Type()), expected, what);
  }
};

TEST_P(NonzeroOps, CoordinatesInRowMajorOrder) {
  const double nan = std::nan("");
  check({0, 1.5, -0.0, nan, 0, -2, 0.25, 0, 0, 0, 0, 3}, {{3, 4}},
        float32Type(), "NaN counts, -0.0 does not");
  for (const Dtype &t : allDtypes())
    check(valuesFor(t, 2 * 3 * 4, 2), {{2, 3, 4}}, t, t.name);
  check(patternValues(12, 3), {{3, 4}, {1, 3}}, float64Type(), "transposed");
  check(patternValues(12, 4), {{3, 4}, {10, 2}, 3}, float16Type(),
        "gaps and an offset");
  std::vector<double> rows;
  for (int i = 0; i < 3; ++i)
    for (double x : {0.0, 1.0, 0.0, 2.0})
      rows.push_back(x);
  check(rows, {{3, 4}, {0, 1}}, int32Type(), "a broadcast dimension");
  check({5}, {{}}, int64Type(), "0-d non-zero: one row of no columns");
  check({0}, {{}}, int64Type(), "0-d zero");
  check({}, {{0, 3}}, float32Type(), "empty");
  check(std::vector<double>(6, 0.0), {{6}}, boolType(), "all zero");
  std::vector<double> big(100000, 0.0);
  for (size_t i = 0; i < big.size(); i += 3)
    big[i] = 1.0;
  check(big, {{100, 1000}}, uint8Type(), "100000 elements");
}

class NonzeroStaticOps : public OpTest {
protected:
  void check(const std::vector<double> &values, const Layout &layout,
             const Dtype &type, int64_t size, int64_t fill,
             const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle ret;
    ASSERT_SHIM_OK((onCuda() ? aoti_torch_cuda_nonzero_static
                             : aoti_torch_cpu_nonzero_static)(self.get(), size,
                                                              fill, ret.out()));
    std::vector<double> stored;
    for (double v : values)
      stored.push_back(asDtype(type, v));
    const auto rows = nonzeroCoords(stored, layout.sizes);
    const int64_t ndim = static_cast<int64_t>(layout.sizes.size());
    EXPECT_EQ(sizesOf(ret), (std::vector<int64_t>{size, ndim}));
    EXPECT_EQ(stridesOf(ret), onCuda() ? (std::vector<int64_t>{1, size})
                                       : contiguousStridesOf({size, ndim}));
    EXPECT_EQ(dtypeOf(ret), aoti_torch_dtype_int64());
    std::vector<double> expected;
    for (int64_t r = 0; r < size; ++r)
      for (int64_t d = 0; d < ndim; ++d)
        expected.push_back(r < static_cast<int64_t>(rows.size())
                               ? static_cast<double>(rows[r][d])
                               : static_cast<double>(fill));
    expectSameValues(readTensor(ret, int64Type()), expected, what);
  }
};

TEST_P(NonzeroStaticOps, TruncatesOrFills) {
  const std::vector<double> v = {0, 1, 0, 2, 3, 0, 0, 4, 0, 0, 5, 0};
  check(v, {{3, 4}}, float32Type(), 3, -1, "fewer rows than non-zeros");
  check(v, {{3, 4}}, float32Type(), 8, -1, "more rows: filled");
  check(v, {{3, 4}}, int8Type(), 5, 7, "exactly as many, fill unused");
  check(v, {{3, 4}, {1, 3}}, bfloat16Type(), 6, 9, "transposed");
  check(v, {{3, 4}}, float32Type(), 0, -1, "size 0");
  check({2}, {{}}, float32Type(), 2, -1, "0-d self");
  check({}, {{0, 2}}, float32Type(), 3, 4, "empty self: all fill");
  std::vector<double> big(100000, 0.0);
  for (size_t i = 1; i < big.size(); i += 7)
    big[i] = -1.0;
  check(big, {{100000}}, float64Type(), 20000, -3,
        "100000 elements, truncated");
  check(big, {{1000, 100}}, float64Type(), 14300, -3,
        "100000 elements, filled");
}

TEST_P(NonzeroStaticOps, ANegativeSizeIsRefused) {
  TensorHandle self = tensor({1, 0}, {{2}}, float32Type());
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(
      (onCuda() ? aoti_torch_cuda_nonzero_static
                : aoti_torch_cpu_nonzero_static)(self.get(), -1, 0, &ret),
      "nonzero_static: 'size' must be an non-negative integer");
  EXPECT_SHIM_FAILS((onCuda() ? aoti_torch_cuda_nonzero
                              : aoti_torch_cpu_nonzero)(nullptr, &ret),
                    "'self' is null");
  EXPECT_EQ(ret, nullptr);
}

// --- masked_select, masked_scatter -------------------------------------------

// The index of broadcast element `i` (row-major of `shape`) in a tensor of
// `sizes` broadcast to it.
int64_t broadcastSource(int64_t i, const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &sizes) {
  const std::vector<int64_t> c = coordsOf(i, shape);
  int64_t k = 0, stride = 1;
  for (size_t j = sizes.size(); j-- > 0;) {
    const int64_t cj = sizes[j] == 1 ? 0 : c[shape.size() - sizes.size() + j];
    k += cj * stride;
    stride *= sizes[j];
  }
  return k;
}

std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a,
                                     const std::vector<int64_t> &b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[n - 1 - i] = sa == 1 ? sb : sa;
  }
  return out;
}

class MaskedOps : public OpTest {
protected:
  void checkSelect(const std::vector<double> &values, const Layout &layout,
                   const std::vector<double> &mask, const Layout &maskLayout,
                   const Dtype &type, const Dtype &maskType,
                   const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle m = tensor(mask, maskLayout, maskType);
    TensorHandle ret;
    ASSERT_SHIM_OK((onCuda() ? aoti_torch_cuda_masked_select
                             : aoti_torch_cpu_masked_select)(
        self.get(), m.get(), ret.out()));
    const std::vector<int64_t> shape =
        broadcastShapes(maskLayout.sizes, layout.sizes);
    std::vector<double> expected;
    for (int64_t i = 0; i < numelOf(shape); ++i)
      if (mask[broadcastSource(i, shape, maskLayout.sizes)] != 0)
        expected.push_back(
            asDtype(type, values[broadcastSource(i, shape, layout.sizes)]));
    EXPECT_EQ(sizesOf(ret),
              (std::vector<int64_t>{static_cast<int64_t>(expected.size())}));
    EXPECT_EQ(stridesOf(ret), (std::vector<int64_t>{1}));
    EXPECT_EQ(dtypeOf(ret), type.code);
    expectSameValues(readTensor(ret, type), expected, what);
  }
  void checkScatter(const std::vector<double> &values, const Layout &layout,
                    const std::vector<double> &mask, const Layout &maskLayout,
                    const std::vector<double> &source,
                    const Layout &sourceLayout, const Dtype &type,
                    const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle m = tensor(mask, maskLayout, boolType());
    TensorHandle src = tensor(source, sourceLayout, type);
    TensorHandle ret;
    ASSERT_SHIM_OK((onCuda() ? aoti_torch_cuda_masked_scatter
                             : aoti_torch_cpu_masked_scatter)(
        self.get(), m.get(), src.get(), ret.out()));
    const std::vector<int64_t> shape =
        broadcastShapes(maskLayout.sizes, layout.sizes);
    EXPECT_EQ(sizesOf(ret), shape);
    EXPECT_EQ(stridesOf(ret), contiguousStridesOf(shape));
    EXPECT_EQ(dtypeOf(ret), type.code);
    std::vector<double> expected;
    size_t k = 0;
    for (int64_t i = 0; i < numelOf(shape); ++i)
      expected.push_back(
          asDtype(type, mask[broadcastSource(i, shape, maskLayout.sizes)] != 0
                            ? source[k++]
                            : values[broadcastSource(i, shape, layout.sizes)]));
    expectSameValues(readTensor(ret, type), expected, what);
  }
};

TEST_P(MaskedOps, SelectBroadcastsSelfAndMask) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(12, 1);
  const std::vector<double> m = {1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1};
  checkSelect(v, {{3, 4}}, m, {{3, 4}}, f, boolType(), "same shape");
  checkSelect(v, {{3, 4}}, {0, 1, 1}, {{3, 1}}, f, boolType(), "mask column");
  checkSelect(patternValues(4, 2), {{4}}, m, {{3, 4}}, f, uint8Type(),
              "self broadcast, uint8 mask");
  checkSelect(v, {{3, 4}, {1, 3}}, m, {{3, 4}, {1, 3}}, f, boolType(),
              "both transposed");
  for (const Dtype &t : allDtypes())
    checkSelect(valuesFor(t, 12, 3), {{3, 4}, {20, 4}, 2}, m, {{3, 4}}, t,
                boolType(), std::string(t.name) + " with gaps");
  checkSelect({2.5}, {{}}, {1}, {{}}, f, boolType(), "0-d");
  checkSelect({}, {{0, 4}}, {1, 0, 1, 1}, {{4}}, f, boolType(), "empty");
  checkSelect(v, {{3, 4}}, std::vector<double>(12, 0.0), {{3, 4}}, f,
              boolType(), "nothing selected");
  std::vector<double> big = patternValues(100000, 4), bigMask(100000);
  for (size_t i = 0; i < bigMask.size(); ++i)
    bigMask[i] = (i % 5 == 1 || i % 11 == 0) ? 1 : 0;
  checkSelect(big, {{100000}}, bigMask, {{100000}}, f, boolType(),
              "100000 elements");
}

TEST_P(MaskedOps, ScatterConsumesSourceInOrder) {
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(12, 1);
  const std::vector<double> m = {1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1};
  const std::vector<double> src = patternValues(12, 2);
  checkScatter(v, {{3, 4}}, m, {{3, 4}}, src, {{12}}, f, "same shape");
  checkScatter(patternValues(4, 3), {{1, 4}}, m, {{3, 4}}, src, {{12}}, f,
               "self broadcast to the mask");
  checkScatter(v, {{3, 4}}, {1, 0, 0, 1}, {{4}}, src, {{3, 4}, {1, 3}}, f,
               "mask broadcast, transposed source");
  checkScatter(v, {{3, 4}, {1, 3}}, m, {{3, 4}}, patternValues(6, 4), {{6}}, f,
               "transposed self, exactly enough source");
  for (const Dtype &t : allDtypes())
    checkScatter(valuesFor(t, 12, 5), {{3, 4}}, m, {{3, 4}}, valuesFor(t, 8, 6),
                 {{2, 4}}, t, t.name);
  checkScatter({}, {{0, 4}}, {1, 1, 1, 1}, {{4}}, {}, {{0}}, f, "empty");
  checkScatter({1.5}, {{}}, {1}, {{}}, {2.5}, {{}}, f, "0-d");
  std::vector<double> big = patternValues(100000, 7), bigMask(100000);
  for (size_t i = 0; i < bigMask.size(); ++i)
    bigMask[i] = (i % 3 == 2) ? 1 : 0;
  checkScatter(big, {{100000}}, bigMask, {{100000}}, patternValues(40000, 8),
               {{40000}}, f, "100000 elements");
}

TEST_P(MaskedOps, BadArgumentsAreRefused) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const Dtype f = float32Type();
  TensorHandle self = tensor(patternValues(12, 1), {{3, 4}}, f);
  TensorHandle floatMask = tensor(std::vector<double>(12, 1.0), {{3, 4}}, f);
  TensorHandle wide = tensor({1, 0, 1}, {{3}}, boolType());
  TensorHandle byteMask = tensor({1, 0, 1, 1}, {{4}}, uint8Type());
  TensorHandle mask = tensor({1, 1, 1, 1}, {{4}}, boolType());
  TensorHandle small = tensor(patternValues(11, 2), {{11}}, f);
  TensorHandle doubles = tensor(patternValues(12, 2), {{12}}, float64Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  auto select =
      onCuda() ? aoti_torch_cuda_masked_select : aoti_torch_cpu_masked_select;
  auto scatter =
      onCuda() ? aoti_torch_cuda_masked_scatter : aoti_torch_cpu_masked_scatter;
  EXPECT_SHIM_FAILS(
      select(self.get(), floatMask.get(), &ret),
      "masked_select: expected BoolTensor or ByteTensor for mask");
  EXPECT_SHIM_FAILS(select(self.get(), wide.get(), &ret),
                    "The size of tensor a (3) must match the size of tensor b "
                    "(4) at non-singleton dimension 1");
  EXPECT_SHIM_FAILS(scatter(self.get(), mask.get(), small.get(), &ret),
                    "Number of elements of source < number of ones in mask");
  EXPECT_SHIM_FAILS(scatter(self.get(), byteMask.get(), small.get(), &ret),
                    "masked_scatter_ only supports boolean masks, but got mask "
                    "with dtype uint8");
  EXPECT_SHIM_FAILS(scatter(self.get(), mask.get(), doubles.get(), &ret),
                    "masked_scatter: expected self and source to have same "
                    "dtypes but got float32 and float64");
  EXPECT_SHIM_FAILS(scatter(self.get(), wide.get(), small.get(), &ret),
                    "The size of tensor a (3) must match the size of tensor b");
  EXPECT_SHIM_FAILS(select(self.get(), nullptr, &ret), "'mask' is null");
  EXPECT_EQ(ret, sentinel);
}

TEST(MaskedSelectCpu, AUint8MaskHoldsOnlyZeroAndOne) {
  // ATen's CPU kernel checks a uint8 mask's values; its CUDA path (through
  // index) selects any non-zero byte.
  TensorHandle self = makeTensor(patternValues(3, 1), {{3}}, float32Type(), 0);
  TensorHandle mask = makeTensor({1, 2, 0}, {{3}}, uint8Type(), 0);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_masked_select(self.get(), mask.get(), &ret),
                    "Mask tensor can take 0 and 1 values only");
  EXPECT_EQ(ret, nullptr);
}

// --- repeat_interleave -------------------------------------------------------

class RepeatInterleaveOps : public OpTest {
protected:
  using RepeatFn = AOTITorchError (*)(AtenTensorHandle, int64_t *,
                                      AtenTensorHandle *);
  RepeatFn entry() const {
    return onCuda() ? aoti_torch_cuda_repeat_interleave_Tensor
                    : aoti_torch_cpu_repeat_interleave_Tensor;
  }
  void check(const std::vector<double> &repeats, const Layout &layout,
             const Dtype &type, bool giveSize, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle r = tensor(repeats, layout, type);
    std::vector<double> expected;
    for (size_t i = 0; i < repeats.size(); ++i)
      for (int64_t j = 0; j < static_cast<int64_t>(repeats[i]); ++j)
        expected.push_back(static_cast<double>(i));
    int64_t size = static_cast<int64_t>(expected.size());
    TensorHandle ret;
    ASSERT_SHIM_OK(entry()(r.get(), giveSize ? &size : nullptr, ret.out()));
    EXPECT_EQ(sizesOf(ret), (std::vector<int64_t>{size}));
    EXPECT_EQ(stridesOf(ret), (std::vector<int64_t>{1}));
    EXPECT_EQ(dtypeOf(ret), type.code);
    expectSameValues(readTensor(ret, type), expected, what);
  }
};

TEST_P(RepeatInterleaveOps, RepeatsEachIndex) {
  for (const Dtype &t : {int64Type(), int32Type()})
    for (bool giveSize : {false, true}) {
      const std::string name =
          std::string(t.name) + (giveSize ? " with output_size" : "");
      check({2, 0, 3, 1}, {{4}}, t, giveSize, name);
      check({1, 4, 0, 2}, {{4}, {2}, 1}, t, giveSize, name + ", strided");
      check({0, 0}, {{2}}, t, giveSize, name + ", all zero");
      check({}, {{0}}, t, giveSize, name + ", empty");
    }
  std::vector<double> many;
  for (int i = 0; i < 5000; ++i)
    many.push_back((i * 13) % 41);
  check(many, {{5000}}, int64Type(), false, "5000 repeats");
  check(many, {{5000}}, int32Type(), true, "5000 repeats, output_size");
}

TEST_P(RepeatInterleaveOps, BadArgumentsAreRefused) {
  TensorHandle negative = tensor({2, -1, 3}, {{3}}, int64Type());
  TensorHandle matrix = tensor({1, 2, 3, 4}, {{2, 2}}, int64Type());
  TensorHandle floats = tensor({1, 2}, {{2}}, float32Type());
  TensorHandle fine = tensor({1, 2}, {{2}}, int32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle ret = sentinel;
  EXPECT_SHIM_FAILS(entry()(negative.get(), nullptr, &ret),
                    "repeats can not be negative");
  EXPECT_SHIM_FAILS(entry()(matrix.get(), nullptr, &ret),
                    "repeat_interleave only accept 1D vector as repeat");
  EXPECT_SHIM_FAILS(entry()(floats.get(), nullptr, &ret),
                    "repeats has to be Long or Int tensor");
  const double big = std::ldexp(1.0, 62);
  TensorHandle huge = tensor({big, big, big}, {{3}}, int64Type());
  EXPECT_SHIM_FAILS(entry()(huge.get(), nullptr, &ret),
                    "cumulative sum values overflowed");
  int64_t minusOne = -1;
  EXPECT_SHIM_FAILS(entry()(fine.get(), &minusOne, &ret),
                    "'output_size' is -1; it must be non-negative");
  EXPECT_SHIM_FAILS(entry()(nullptr, nullptr, &ret), "'repeats' is null");
  EXPECT_EQ(ret, sentinel);
}

TEST(RepeatInterleaveCpu, OutputSizeMustMatchTheSum) {
  // ATen's CPU kernel checks output_size; its CUDA kernel only
  // device-asserts, and the CUDA entry point does not wait to check it.
  TensorHandle r = makeTensor({1, 2}, {{2}}, int64Type(), 0);
  int64_t four = 4;
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(
      aoti_torch_cpu_repeat_interleave_Tensor(r.get(), &four, &ret),
      "allocated size does not match required size");
  EXPECT_EQ(ret, nullptr);
}

INSTANTIATE_TEST_SUITE_P(, NonzeroOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, NonzeroStaticOps,
                         testing::ValuesIn(devicesUnderTest()), deviceName);
INSTANTIATE_TEST_SUITE_P(, MaskedOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, RepeatInterleaveOps,
                         testing::ValuesIn(devicesUnderTest()), deviceName);

TEST(IndexSelectDevices, TheCudaEntryPointsRefuseACpuTensor) {
  TensorHandle self = makeTensor(patternValues(4, 1), {{4}}, float32Type(), 0);
  TensorHandle mask = makeTensor({1, 0, 1, 0}, {{4}}, boolType(), 0);
  TensorHandle r = makeTensor({1, 2}, {{2}}, int64Type(), 0);
  AtenTensorHandle ret = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_nonzero(self.get(), &ret),
                    "'self' is on cpu; this nonzero needs a CUDA tensor");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_nonzero_static(self.get(), 2, -1, &ret),
      "'self' is on cpu; this nonzero_static needs a CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda_masked_select(self.get(), mask.get(), &ret),
                    "'self' is on cpu; this masked_select needs a CUDA tensor");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_masked_scatter(self.get(), mask.get(), self.get(), &ret),
      "'self' is on cpu; this masked_scatter needs a CUDA tensor");
  EXPECT_SHIM_FAILS(
      aoti_torch_cuda_repeat_interleave_Tensor(r.get(), nullptr, &ret),
      "'repeats' is on cpu; this repeat_interleave needs a CUDA tensor");
  EXPECT_EQ(ret, nullptr);
}

// What only a GPU can show.
class IndexSelectOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, IndexSelectOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(IndexSelectOnCuda);

TEST_P(IndexSelectOnCuda, RunsOnTheStreamAGuardSets) {
  // A non-blocking stream of the test's own: every kernel and copy must be
  // ordered on it (the legacy default stream would hide a wrong one).
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    std::vector<double> v(4096, 0.0);
    for (size_t i = 0; i < v.size(); i += 5)
      v[i] = 1.0;
    TensorHandle self = tensor(v, {{64, 64}}, float32Type());
    TensorHandle nz;
    ASSERT_SHIM_OK(aoti_torch_cuda_nonzero(self.get(), nz.out()));
    EXPECT_EQ(sizesOf(nz), (std::vector<int64_t>{820, 2}));
    const std::vector<double> got = readTensor(nz, int64Type());
    EXPECT_EQ(got[2 * 819], 63);
    EXPECT_EQ(got[2 * 819 + 1], 63);
    TensorHandle mask = tensor(v, {{64, 64}}, boolType());
    TensorHandle sel;
    ASSERT_SHIM_OK(
        aoti_torch_cuda_masked_select(self.get(), mask.get(), sel.out()));
    expectSameValues(readTensor(sel, float32Type()),
                     std::vector<double>(820, 1.0), "masked_select");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

TEST_P(IndexSelectOnCuda, ASourceTooShortIsRecordedWithoutWaiting) {
  // By default masked_scatter does not wait to count the mask: the true
  // elements past the source's end keep self's value, and the problem is
  // reported by aoti_shims_cuda_check_errors.
  (void)takeCudaCheckError();
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(8, 1);
  const std::vector<double> src = patternValues(3, 2);
  TensorHandle self = tensor(v, {{8}}, f);
  TensorHandle mask = tensor({1, 0, 1, 1, 0, 1, 1, 0}, {{8}}, boolType());
  TensorHandle source = tensor(src, {{3}}, f);
  TensorHandle out;
  ASSERT_SHIM_OK(aoti_torch_cuda_masked_scatter(self.get(), mask.get(),
                                                source.get(), out.out()));
  const std::vector<double> expected = {src[0], v[1], src[1], src[2],
                                        v[4],   v[5], v[6],   v[7]};
  expectSameValues(readTensor(out, f), expected, "masked_scatter short source");
  EXPECT_NE(takeCudaCheckError().find("Number of elements of source < number "
                                      "of ones in mask (source has 3, mask "
                                      "has 5)"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "");
}

TEST_P(IndexSelectOnCuda, MaskedScatterAndNonzeroStaticCaptureIntoACudaGraph) {
  // masked_scatter and nonzero_static do not wait (nonzero, masked_select
  // and repeat_interleave without output_size must: their result's size is
  // the data's).
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const Dtype f = float32Type();
    std::vector<double> m(4096, 0.0);
    for (size_t i = 0; i < m.size(); i += 3)
      m[i] = 1.0;
    TensorHandle self = tensor(patternValues(4096, 1), {{64, 64}}, f);
    TensorHandle mask = tensor(m, {{64, 64}}, boolType());
    TensorHandle source = tensor(patternValues(2000, 2), {{2000}}, f);
    auto run = [&](TensorHandle (&r)[2]) {
      ASSERT_SHIM_OK(aoti_torch_cuda_masked_scatter(self.get(), mask.get(),
                                                    source.get(), r[0].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_nonzero_static(mask.get(), 2000, -1,
                                                    r[1].out()));
    };
    TensorHandle eager[2];
    run(eager);
    CudaGraphCapture capture(stream.get());
    TensorHandle captured[2];
    run(captured);
    ASSERT_TRUE(capture.finish());
    ASSERT_TRUE(capture.replay());
    expectSameValues(readTensor(captured[0], f), readTensor(eager[0], f),
                     "masked_scatter");
    expectSameValues(readTensor(captured[1], int64Type()),
                     readTensor(eager[1], int64Type()), "nonzero_static");
    EXPECT_EQ(takeCudaCheckError(), "");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

TEST_P(IndexSelectOnCuda, ABadIndexIsSkippedAndRecordedWithoutWaiting) {
  // By default (no AOTI_SHIMS_CUDA_CHECKS) nothing is refused: the element
  // of a bad index is zero (index) or skipped (index_put, index_reduce),
  // and the first problem is reported by aoti_shims_cuda_check_errors.
  (void)takeCudaCheckError();
  const Dtype f = float32Type();
  const std::vector<double> v = patternValues(12, 1);
  const std::vector<double> src = patternValues(12, 2);
  TensorHandle self = tensor(v, {{3, 4}}, f);
  TensorHandle rows = tensor({2, 5, 0}, {{3}}, int64Type());
  AtenTensorHandle raw = rows.get();
  const AtenTensorHandle *ptrs[] = {&raw};
  TensorHandle got;
  ASSERT_SHIM_OK(aoti_torch_cuda_index_Tensor(self.get(), ptrs, 1, got.out()));
  const std::vector<double> gathered = readTensor(got, f);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(gathered[j], roundTrip(f, v[8 + j]));
    EXPECT_EQ(gathered[4 + j], 0.0);
    EXPECT_EQ(gathered[8 + j], roundTrip(f, v[j]));
  }
  EXPECT_NE(takeCudaCheckError().find(
                "index 5 is out of bounds for dimension 0 with size 3"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "") << "a problem is reported once";

  TensorHandle values = tensor(src, {{3, 4}}, f);
  for (int32_t accumulate : {0, 1}) {
    TensorHandle put;
    ASSERT_SHIM_OK(aoti_torch_cuda_index_put(self.get(), ptrs, 1, values.get(),
                                             accumulate, put.out()));
    const std::vector<double> after = readTensor(put, f);
    for (int j = 0; j < 4; ++j) {
      const double to2 = accumulate ? v[8 + j] + src[j] : src[j];
      const double to0 = accumulate ? v[j] + src[8 + j] : src[8 + j];
      EXPECT_EQ(after[8 + j], roundTrip(f, to2)) << accumulate;
      EXPECT_EQ(after[4 + j], roundTrip(f, v[4 + j])) << accumulate;
      EXPECT_EQ(after[j], roundTrip(f, to0)) << accumulate;
    }
    EXPECT_NE(takeCudaCheckError().find("index 5 is out of bounds"),
              std::string::npos);
  }

  TensorHandle reduced;
  ASSERT_SHIM_OK(aoti_torch_cuda_index_reduce(
      self.get(), 0, rows.get(), values.get(), "amax", 1, reduced.out()));
  const std::vector<double> maxima = readTensor(reduced, f);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(maxima[8 + j], roundTrip(f, std::max(v[8 + j], src[j])));
    EXPECT_EQ(maxima[4 + j], roundTrip(f, v[4 + j]));
    EXPECT_EQ(maxima[j], roundTrip(f, std::max(v[j], src[8 + j])));
  }
  EXPECT_NE(takeCudaCheckError().find(
                "index out of range in self: index 5 but dimension 0 has size 3"),
            std::string::npos);
}

TEST_P(IndexSelectOnCuda, IndexIndexPutAndIndexReduceCaptureIntoACudaGraph) {
  // A capture fails at the first synchronisation: index, index_put and
  // index_reduce must not make one.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const Dtype f = float32Type();
    TensorHandle self = tensor(patternValues(64 * 8, 1), {{64, 8}}, f);
    std::vector<double> targets;
    for (int i = 0; i < 256; ++i)
      targets.push_back((i * 5) % 64 - (i % 3 == 0 ? 64 : 0));
    TensorHandle index = tensor(targets, {{256}}, int64Type());
    std::vector<double> nonNegative;
    for (double t : targets)
      nonNegative.push_back(t < 0 ? t + 64 : t);
    TensorHandle reduceIndex = tensor(nonNegative, {{256}}, int64Type());
    TensorHandle values = tensor(patternValues(256 * 8, 2), {{256, 8}}, f);
    AtenTensorHandle raw = index.get();
    const AtenTensorHandle *ptrs[] = {&raw};
    auto run = [&](TensorHandle (&r)[3]) {
      ASSERT_SHIM_OK(aoti_torch_cuda_index_Tensor(self.get(), ptrs, 1, r[0].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_index_put(self.get(), ptrs, 1, values.get(),
                                               1, r[1].out()));
      ASSERT_SHIM_OK(aoti_torch_cuda_index_reduce(self.get(), 0,
                                                  reduceIndex.get(), values.get(),
                                                  "mean", 1, r[2].out()));
    };
    TensorHandle eager[3];
    run(eager);
    CudaGraphCapture capture(stream.get());
    TensorHandle captured[3];
    run(captured);
    ASSERT_TRUE(capture.finish());
    ASSERT_TRUE(capture.replay());
    for (int k = 0; k < 3; ++k)
      expectSameValues(readTensor(captured[k], f), readTensor(eager[k], f),
                       "captured op " + std::to_string(k));
    EXPECT_EQ(takeCudaCheckError(), "");
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
