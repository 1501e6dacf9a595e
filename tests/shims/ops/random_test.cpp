//===- ops/random_test.cpp - The random family: rand, randint, dropout ---===//
//
// Every case runs on both devices (ops/devices.h). Two kinds of check:
//  - exact values: ops/random_reference.h has the test's own Philox4x32-10
//    (written from the paper's round function and checked here against
//    Random123's known-answer vectors) and its own mapping of counters to
//    values, as docs/ops/random.md documents it; the library's must equal
//    them (uniform, integer, bernoulli, randperm and dropout bit for bit;
//    normal and exponential to a few ulps, their log and cos differing by
//    device). Since the CPU and the CUDA cases check the same values, a
//    seed gives the same numbers on both (RandomOnCuda checks it directly
//    as well);
//  - distributions: moments within 5 standard errors of theory on 2^18
//    samples, Kolmogorov-Smirnov (sqrt(n) D < 2.7, p ~ 1e-6) for the
//    continuous ones, chi-square (below df + 6 sqrt(2 df)) for the discrete
//    ones, frequencies per p for bernoulli and dropout.
// The cases cover every dtype each op takes, strided and offset views,
// stride-0 (broadcast) inputs, 0-d and empty tensors, result layouts, and
// every refusal. RandomOnCuda adds what only a GPU shows: one call sequence
// compared across devices, a launch larger than its grid, a stream guard's
// stream, a probability tensor on the other device.
// The generator is seeded in SetUp, so every case starts at counter 0.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "ops/random.h"
#include "ops/random_reference.h"
#include "torch_fallbacks.h"

#include <thread>

namespace aoti::test {
namespace {

using namespace random_reference;

// --- The fixture
// ----------------------------------------------------------------

#define ENTRY(op) (onCuda() ? aoti_torch_cuda_##op : aoti_torch_cpu_##op)

class RandomOps : public OpTest {
protected:
  void SetUp() override { aoti_shims_manual_seed(kSeed); }

  int32_t *deviceArg() {
    deviceType_ = device();
    return &deviceType_;
  }

  // rand/randn(size, dtype) through their generator entry points (a null
  // generator), with this device.
  TensorHandle factory(bool normal, const std::vector<int64_t> &sizes,
                       const Dtype *dtype) {
    TensorHandle ret;
    int32_t code = dtype ? dtype->code : 0;
    AtenGeneratorHandle none = nullptr;
    auto fn = normal ? ENTRY(randn_generator) : ENTRY(rand_generator);
    EXPECT_SHIM_OK(fn(sizes.data(), static_cast<int64_t>(sizes.size()), &none,
                      dtype ? &code : nullptr, nullptr, deviceArg(), 0, nullptr,
                      ret.out()));
    return ret;
  }
  TensorHandle randint(int64_t low, int64_t high,
                       const std::vector<int64_t> &sizes,
                       const int32_t *dtype) {
    TensorHandle ret;
    EXPECT_SHIM_OK(ENTRY(randint_low)(low, high, sizes.data(),
                                      static_cast<int64_t>(sizes.size()),
                                      const_cast<int32_t *>(dtype), nullptr,
                                      deviceArg(), 0, nullptr, ret.out()));
    return ret;
  }
  TensorHandle randperm(int64_t n, const int32_t *dtype) {
    TensorHandle ret;
    EXPECT_SHIM_OK(ENTRY(randperm)(n, const_cast<int32_t *>(dtype), nullptr,
                                   deviceArg(), 0, nullptr, ret.out()));
    return ret;
  }
  TensorHandle zeros(const std::vector<int64_t> &sizes, const Dtype &type) {
    return tensor(std::vector<double>(static_cast<size_t>(numelOf(sizes)), 0),
                  {sizes}, type);
  }
  void expectLayout(const TensorHandle &t, const std::vector<int64_t> &sizes,
                    const std::vector<int64_t> &strides, int32_t dtype) {
    EXPECT_EQ(sizesOf(t), sizes);
    EXPECT_EQ(stridesOf(t), strides);
    EXPECT_EQ(dtypeCodeOf(t), dtype);
    int32_t type = -1;
    EXPECT_SHIM_OK(aoti_torch_get_device_type(t.get(), &type));
    EXPECT_EQ(type, device());
  }

private:
  int32_t deviceType_ = 0;
};

// --- The generator
// --------------------------------------------------------------

TEST(RandomReference, PhiloxMatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox({0, 0, 0, 0}, {0, 0}),
            (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                   {0xa4093822, 0x299f31d0}),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomSeed, TheEnvironmentVariableIsADecimalOrHexUint64) {
  using shims::ops::seedFromEnvironment;
  EXPECT_FALSE(*seedFromEnvironment(nullptr));
  EXPECT_FALSE(*seedFromEnvironment(""));
  EXPECT_EQ(**seedFromEnvironment("123"), 123u);
  EXPECT_EQ(**seedFromEnvironment("0x1f"), 31u);
  EXPECT_EQ(**seedFromEnvironment("18446744073709551615"), ~uint64_t{0});
  for (const char *bad : {"abc", "-1", "12 ", "0x", "18446744073709551616"}) {
    auto seed = seedFromEnvironment(bad);
    ASSERT_FALSE(seed) << bad;
    EXPECT_NE(seed.takeError().message().find("is not a seed"),
              std::string::npos);
  }
}

TEST_P(RandomOps, ASeedRewindsAndPinsEveryValue) {
  const Dtype f64 = float64Type();
  TensorHandle a = factory(false, {1000}, &f64);
  TensorHandle b = factory(false, {7, 3}, &f64);
  EXPECT_EQ(aoti_shims_initial_seed(), kSeed);
  const std::vector<double> va = readTensor(a, f64), vb = readTensor(b, f64);
  // Element i of the first call is counter i; the second starts at 1000.
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(va[i], uniformOf(block(i), 53)) << i;
  for (int64_t i = 0; i < 21; ++i)
    ASSERT_EQ(vb[i], uniformOf(block(1000 + i), 53)) << i;
  aoti_shims_manual_seed(kSeed);
  EXPECT_EQ(readTensor(factory(false, {1000}, &f64), f64), va);
  aoti_shims_manual_seed(kSeed + 1);
  EXPECT_EQ(aoti_shims_initial_seed(), kSeed + 1);
  const std::vector<double> other =
      readTensor(factory(false, {1000}, &f64), f64);
  EXPECT_NE(other, va);
  EXPECT_EQ(other[0], uniformOf(block(0, kSeed + 1), 53));
}

TEST_P(RandomOps, AFailedCallDrawsNothing) {
  TensorHandle ret;
  const int64_t size[] = {4};
  EXPECT_SHIM_FAILS(ENTRY(randint_low)(5, 5, size, 1, nullptr, nullptr,
                                       deviceArg(), 0, nullptr, ret.out()),
                    "random_ expects 'from' to be less than 'to', but got "
                    "from=5 >= to=5");
  const Dtype f64 = float64Type();
  EXPECT_EQ(readTensor(factory(false, {1}, &f64), f64)[0],
            uniformOf(block(0), 53));
}

TEST_P(RandomOps, ConcurrentCallsTakeDisjointCounters) {
  // 4 threads x 64 one-element calls: the 256 values are counters 0..255,
  // each once, whatever the interleaving.
  constexpr int kThreads = 4, kCalls = 64;
  std::vector<int64_t> values(kThreads * kCalls);
  std::vector<std::thread> threads;
  const int64_t size[] = {1};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        TensorHandle one = zeros({1}, int64Type());
        EXPECT_SHIM_OK(
            ENTRY(randint_low_out)(one.get(), 0, INT64_MAX, size, 1));
        values[t * kCalls + c] =
            readRaw<int64_t>(one, aoti_torch_dtype_int64())[0];
      }
    });
  for (std::thread &t : threads)
    t.join();
  std::vector<int64_t> expected;
  for (uint64_t n = 0; n < kThreads * kCalls; ++n)
    expected.push_back(integerOf(block(n), 0, INT64_MAX));
  std::sort(values.begin(), values.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(values, expected);
}

// --- rand, randn
// ---------------------------------------------------------------

TEST_P(RandomOps, RandIsExactInEveryFloatingDtype) {
  for (const Dtype &type : floatTypes()) {
    SCOPED_TRACE(type.name);
    aoti_shims_manual_seed(kSeed);
    TensorHandle t = factory(false, {3, 5, 4}, &type);
    expectLayout(t, {3, 5, 4}, {20, 4, 1}, type.code);
    const std::vector<double> v = readTensor(t, type);
    for (int64_t i = 0; i < 60; ++i)
      ASSERT_EQ(v[i], uniformOf(block(i), digitsOf(type))) << i;
  }
  // No dtype: float32. A 0-d and an empty result.
  aoti_shims_manual_seed(kSeed);
  TensorHandle t = factory(false, {}, nullptr);
  expectLayout(t, {}, {}, aoti_torch_dtype_float32());
  EXPECT_EQ(readTensor(t, float32Type())[0], uniformOf(block(0), 24));
  expectLayout(factory(false, {2, 0}, nullptr), {2, 0}, {1, 1},
               aoti_torch_dtype_float32());
}

TEST_P(RandomOps, RandIsUniformOnZeroOne) {
  for (const Dtype &type : {float32Type(), float64Type()}) {
    const std::vector<double> v =
        readTensor(factory(false, {kSamples}, &type), type);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
    expectMoments(v, 0.5, 1.0 / 12, 1.0 / 80, type.name);
    expectDistribution(
        v, [](double x) { return x; }, type.name);
  }
}

TEST_P(RandomOps, RandnIsStandardNormal) {
  for (const Dtype &type : floatTypes()) {
    SCOPED_TRACE(type.name);
    aoti_shims_manual_seed(kSeed);
    const std::vector<double> v =
        readTensor(factory(true, {kSamples}, &type), type);
    for (int64_t i = 0; i < 4096; ++i) {
      const double ref = normalOf(block(i));
      ASSERT_NEAR(v[i], ref, ulpOf(type) * (std::fabs(ref) + 1e-3)) << i;
    }
    if (type.code == aoti_torch_dtype_bfloat16())
      continue; // its rounding (2^-8) shows in the KS statistic
    expectMoments(v, 0, 1, 3, type.name);
    expectDistribution(
        v, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); },
        type.name);
  }
}

TEST_P(RandomOps, FactoryArgumentsAreTorchs) {
  const int64_t size[] = {2, 3};
  TensorHandle ret;
  int32_t strided = aoti_torch_layout_strided();
  int32_t coo = aoti_torch_layout_sparse_coo();
  int32_t f32 = aoti_torch_dtype_float32(), i64 = aoti_torch_dtype_int64();
  int32_t c64 = aoti_torch_dtype_complex64();
  int32_t yes = 1;
  int32_t other =
      onCuda() ? aoti_torch_device_type_cpu() : aoti_torch_device_type_cuda();
  ASSERT_SHIM_OK(
      ENTRY(rand)(size, 2, &f32, &strided, deviceArg(), 0, nullptr, ret.out()));
  expectLayout(ret, {2, 3}, {3, 1}, f32);
  // No device argument: the entry point's device.
  ASSERT_SHIM_OK(
      ENTRY(randn)(size, 2, nullptr, nullptr, nullptr, 0, nullptr, ret.out()));
  expectLayout(ret, {2, 3}, {3, 1}, f32);
  EXPECT_SHIM_FAILS(
      ENTRY(rand)(size, 2, nullptr, &coo, nullptr, 0, nullptr, ret.out()),
      "only strided tensors");
  EXPECT_SHIM_FAILS(
      ENTRY(rand)(size, 2, nullptr, nullptr, &other, 0, nullptr, ret.out()),
      "entry point");
  EXPECT_SHIM_FAILS(
      ENTRY(rand)(size, 2, &i64, nullptr, nullptr, 0, nullptr, ret.out()),
      "'dtype' has dtype int64; rand needs a floating dtype");
  EXPECT_SHIM_FAILS(
      ENTRY(randn)(size, 2, &c64, nullptr, nullptr, 0, nullptr, ret.out()),
      "randn needs a floating dtype");
  const int64_t negative[] = {2, -1};
  EXPECT_SHIM_FAILS(
      ENTRY(rand)(negative, 2, nullptr, nullptr, nullptr, 0, nullptr,
                  ret.out()),
      "Trying to create tensor with negative dimension -1: [2, -1]");
  EXPECT_SHIM_FAILS(
      ENTRY(rand)(size, 2, nullptr, nullptr, nullptr, 0, nullptr, nullptr),
      "'ret0' is null");
  if (onCuda())
    EXPECT_SHIM_FAILS(
        ENTRY(rand)(size, 2, nullptr, nullptr, deviceArg(), 0, &yes, ret.out()),
        "only CPU tensors can be pinned");
  else
    EXPECT_SHIM_OK(
        ENTRY(rand)(size, 2, nullptr, nullptr, nullptr, 0, &yes, ret.out()));
  // A generator: None only.
  AtenGeneratorHandle fake = reinterpret_cast<AtenGeneratorHandle>(0x10);
  EXPECT_SHIM_FAILS(ENTRY(rand_generator)(size, 2, &fake, nullptr, nullptr,
                                          nullptr, 0, nullptr, ret.out()),
                    "'generator' is a torch.Generator");
  ASSERT_SHIM_OK(ENTRY(randn_generator)(size, 2, nullptr, nullptr, nullptr,
                                        nullptr, 0, nullptr, ret.out()));
}

// --- randint
// -------------------------------------------------------------------

TEST_P(RandomOps, RandintIsExactAndUnbiased) {
  TensorHandle t = randint(-3, 7, {kSamples}, nullptr);
  expectLayout(t, {kSamples}, {1}, aoti_torch_dtype_int64());
  const std::vector<int64_t> v = readRaw<int64_t>(t, aoti_torch_dtype_int64());
  std::vector<int64_t> counts(10, 0);
  for (int64_t i = 0; i < kSamples; ++i) {
    ASSERT_EQ(v[i], integerOf(block(i), -3, 10)) << i;
    ++counts[v[i] + 3]; // in [-3, 7): both ends reached, none beyond
  }
  EXPECT_GT(counts.front(), 0);
  EXPECT_GT(counts.back(), 0);
  expectChiSquare(counts, kSamples / 10.0, "randint(-3, 7)");
  // randint(high): low 0; a range of all of int64.
  TensorHandle r;
  const int64_t size[] = {64};
  ASSERT_SHIM_OK(ENTRY(randint)(5, size, 1, nullptr, nullptr, deviceArg(), 0,
                                nullptr, r.out()));
  const std::vector<int64_t> h = readRaw<int64_t>(r, aoti_torch_dtype_int64());
  for (int64_t i = 0; i < 64; ++i)
    ASSERT_EQ(h[i], integerOf(block(kSamples + i), 0, 5));
  aoti_shims_manual_seed(kSeed);
  const std::vector<int64_t> all = readRaw<int64_t>(
      randint(INT64_MIN, INT64_MAX, {64}, nullptr), aoti_torch_dtype_int64());
  for (int64_t i = 0; i < 64; ++i)
    ASSERT_EQ(all[i], integerOf(block(i), INT64_MIN, UINT64_MAX)) << i;
}

TEST_P(RandomOps, RandintLowOutSeedsInductorsGenerator) {
  // The call inductor makes for its own RNG: int64 seeds in [0, INT64_MAX).
  TensorHandle seeds = zeros({5}, int64Type());
  const int64_t size[] = {5};
  ASSERT_SHIM_OK(ENTRY(randint_low_out)(seeds.get(), 0, INT64_MAX, size, 1));
  const std::vector<int64_t> v =
      readRaw<int64_t>(seeds, aoti_torch_dtype_int64());
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_EQ(v[i], integerOf(block(i), 0, INT64_MAX));
  // A transposed view with an offset: element i in row-major order is
  // counter 5 + i; the storage around it is untouched.
  TensorHandle base = tensor(std::vector<double>(40, -1), {{40}}, int64Type());
  const int64_t sizes[] = {3, 4}, strides[] = {1, 8};
  TensorHandle view;
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 2, sizes, strides,
                                                5, view.out()));
  ASSERT_SHIM_OK(ENTRY(randint_low_out)(view.get(), 100, 200, sizes, 2));
  const std::vector<int64_t> all =
      readRaw<int64_t>(base, aoti_torch_dtype_int64());
  std::vector<int64_t> expected(40, -1);
  for (int64_t i = 0; i < 12; ++i)
    expected[5 + (i / 4) * 1 + (i % 4) * 8] = integerOf(block(5 + i), 100, 100);
  EXPECT_EQ(all, expected);
  // Refused: sizes other than out's, an overlapping out, empty ranges.
  const int64_t wrong[] = {6};
  EXPECT_SHIM_FAILS(ENTRY(randint_low_out)(seeds.get(), 0, 9, wrong, 1),
                    "'out' has sizes [5] but 'size' is [6]");
  TensorHandle expanded;
  const int64_t zero[] = {0};
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(seeds.get(), 1, size, zero, 0,
                                                expanded.out()));
  EXPECT_SHIM_FAILS(ENTRY(randint_low_out)(expanded.get(), 0, 9, size, 1),
                    "'out' has stride 0 in dimension 0");
  EXPECT_SHIM_FAILS(ENTRY(randint_low_out)(seeds.get(), 3, 2, size, 1),
                    "from=3 >= to=2");
}

TEST_P(RandomOps, RandintWritesEveryDtypeInRange) {
  struct Case {
    int32_t code;
    int64_t low, high;
  };
  const Case cases[] = {
      {aoti_torch_dtype_bool(), 0, 2},
      {aoti_torch_dtype_uint8(), 0, 256},
      {aoti_torch_dtype_int8(), -128, 128},
      {aoti_torch_dtype_int16(), -300, 300},
      {aoti_torch_dtype_int32(), INT32_MIN, INT32_MAX},
      {aoti_torch_dtype_int64(), -5, 5},
      {aoti_torch_dtype_uint16(), 0, 65536},
      {aoti_torch_dtype_uint32(), 7, 9},
      {aoti_torch_dtype_uint64(), 0, INT64_MAX},
      {aoti_torch_dtype_float16(), -2048, 2049},
      {aoti_torch_dtype_bfloat16(), -256, 257},
      {aoti_torch_dtype_float32(), -100, 100},
      {aoti_torch_dtype_float64(), -(int64_t{1} << 53), int64_t{1} << 53},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.code);
    aoti_shims_manual_seed(kSeed);
    TensorHandle t = randint(c.low, c.high, {2, 100}, &c.code);
    expectLayout(t, {2, 100}, {100, 1}, c.code);
    const std::vector<int64_t> v = integersOf(t, c.code);
    const uint64_t range =
        static_cast<uint64_t>(c.high) - static_cast<uint64_t>(c.low);
    for (int64_t i = 0; i < 200; ++i) {
      const int64_t ref = integerOf(block(i), c.low, range);
      ASSERT_TRUE(ref >= c.low && ref < c.high);
      ASSERT_EQ(v[i], ref) << i;
    }
  }
}

TEST_P(RandomOps, RandintRangesAreCheckedPerDtype) {
  TensorHandle ret;
  const int64_t size[] = {3};
  auto run = [&](int64_t low, int64_t high, int32_t code) {
    return ENTRY(randint_low)(low, high, size, 1, &code, nullptr, nullptr, 0,
                              nullptr, ret.out());
  };
  EXPECT_SHIM_FAILS(run(0, 129, aoti_torch_dtype_int8()),
                    "to - 1 is out of bounds for int8");
  EXPECT_SHIM_FAILS(run(-1, 2, aoti_torch_dtype_uint8()),
                    "from is out of bounds for uint8");
  EXPECT_SHIM_FAILS(run(0, 3, aoti_torch_dtype_bool()),
                    "to - 1 is out of bounds for bool");
  EXPECT_SHIM_FAILS(run(0, 70000, aoti_torch_dtype_float16()),
                    "to - 1 is out of bounds for float16");
  EXPECT_SHIM_FAILS(run(0, 3, aoti_torch_dtype_complex64()),
                    "is not a randint dtype");
  // float16 holds multiples of 4 from 4096: from 4097 moves up to 4100
  // (update_from), to 4103 down to 4100 (update_to), leaving nothing.
  EXPECT_SHIM_FAILS(run(4097, 4103, aoti_torch_dtype_float16()),
                    "from=4100 >= to=4100");
  const int32_t f16 = aoti_torch_dtype_float16();
  const std::vector<double> v =
      readTensor(randint(4097, 4200, {256}, &f16), float16Type());
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 4100);
}

// --- randperm
// -------------------------------------------------------------------

// The permutation of counters [first, first + n): indices by (key, index).
std::vector<int64_t> referencePermutation(int64_t n, uint64_t first = 0) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<uint64_t> keys;
  for (int64_t i = 0; i < n; ++i)
    keys.push_back(low64(block(first + i)));
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  return order;
}

TEST_P(RandomOps, RandpermSortsRandomKeys) {
  // Sizes on both sides of CUB's one-block sort.
  for (int64_t n : {0, 1, 2, 1000, 1 << 17}) {
    SCOPED_TRACE(n);
    aoti_shims_manual_seed(kSeed);
    TensorHandle t = randperm(n, nullptr);
    expectLayout(t, {n}, {1}, aoti_torch_dtype_int64());
    EXPECT_EQ(readRaw<int64_t>(t, aoti_torch_dtype_int64()),
              referencePermutation(n));
  }
  // Every dtype holds the same permutation.
  const std::vector<int64_t> ref = referencePermutation(100);
  for (const Dtype &type :
       {int32Type(), int16Type(), int8Type(), uint8Type(), float16Type(),
        bfloat16Type(), float32Type(), float64Type()}) {
    aoti_shims_manual_seed(kSeed);
    const std::vector<double> v = readTensor(randperm(100, &type.code), type);
    for (int64_t i = 0; i < 100; ++i)
      ASSERT_EQ(v[i], static_cast<double>(ref[i])) << type.name;
  }
  // Uniform over the 6 permutations of 3.
  std::vector<int64_t> counts(6, 0);
  for (int i = 0; i < 6000; ++i) {
    const std::vector<int64_t> p =
        readRaw<int64_t>(randperm(3, nullptr), aoti_torch_dtype_int64());
    ASSERT_EQ(std::accumulate(p.begin(), p.end(), int64_t{0}), 3);
    ++counts[p[0] * 2 + (p[1] > p[2] ? 1 : 0)];
  }
  expectChiSquare(counts, 1000, "randperm(3)");
}

TEST_P(RandomOps, RandpermRefusesWhatTorchRefuses) {
  TensorHandle ret;
  auto run = [&](int64_t n, int32_t code) {
    return ENTRY(randperm)(n, &code, nullptr, nullptr, 0, nullptr, ret.out());
  };
  EXPECT_SHIM_FAILS(run(-1, aoti_torch_dtype_int64()),
                    "n must be non-negative, got -1");
  EXPECT_SHIM_FAILS(run(129, aoti_torch_dtype_int8()),
                    "n is too large for result tensor type: 'int8'");
  EXPECT_SHIM_OK(run(128, aoti_torch_dtype_int8()));
  EXPECT_SHIM_FAILS(run(2050, aoti_torch_dtype_float16()),
                    "n cannot be greater than 2049 for Half type.");
  EXPECT_SHIM_FAILS(run(3, aoti_torch_dtype_bool()), "is not a randperm dtype");
  EXPECT_SHIM_FAILS(run(3, aoti_torch_dtype_uint32()),
                    "is not a randperm dtype");
}

// --- bernoulli_
// -----------------------------------------------------------------

TEST_P(RandomOps, BernoulliFloatFrequenciesAndValues) {
  for (double p : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    aoti_shims_manual_seed(kSeed);
    TensorHandle self = zeros({kSamples}, float32Type());
    ASSERT_SHIM_OK(ENTRY(bernoulli__float)(self.get(), p, nullptr));
    const std::vector<double> v = readTensor(self, float32Type());
    int64_t ones = 0;
    for (int64_t i = 0; i < kSamples; ++i) {
      ASSERT_EQ(v[i], uniformOf(block(i), 53) < p ? 1.0 : 0.0) << p << " " << i;
      ones += v[i] == 1.0;
    }
    EXPECT_NEAR(ones, p * kSamples, 5 * std::sqrt(p * (1 - p) * kSamples) + 0.5)
        << p;
  }
  // Every dtype torch writes; a strided, offset self.
  for (const Dtype &type :
       {float64Type(), float16Type(), bfloat16Type(), int64Type(), int32Type(),
        int16Type(), int8Type(), uint8Type(), boolType()}) {
    aoti_shims_manual_seed(kSeed);
    TensorHandle base = tensor(std::vector<double>(30, 7), {{30}}, type);
    const int64_t sizes[] = {4, 3}, strides[] = {1, 9};
    TensorHandle view;
    ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(base.get(), 2, sizes, strides,
                                                  2, view.out()));
    ASSERT_SHIM_OK(ENTRY(bernoulli__float)(view.get(), 0.5, nullptr));
    const std::vector<double> all = readTensor(base, type);
    std::vector<double> expected(30, roundTrip(type, 7));
    for (int64_t i = 0; i < 12; ++i)
      expected[2 + (i / 3) + (i % 3) * 9] = uniformOf(block(i), 53) < 0.5;
    EXPECT_EQ(all, expected) << type.name;
  }
  TensorHandle self = zeros({3}, float32Type());
  EXPECT_SHIM_FAILS(ENTRY(bernoulli__float)(self.get(), 1.5, nullptr),
                    "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  EXPECT_SHIM_FAILS(ENTRY(bernoulli__float)(self.get(), std::nan(""), nullptr),
                    "bernoulli_ expects p to be in [0, 1]");
}

TEST_P(RandomOps, BernoulliTensorBroadcastsP) {
  const std::vector<double> columns = {0, 0.25, 0.75, 1};
  for (const Dtype &pType : floatTypes()) {
    aoti_shims_manual_seed(kSeed);
    const int64_t rows = kSamples / 4;
    TensorHandle self = zeros({rows, 4}, float32Type());
    TensorHandle p = tensor(columns, {{4}}, pType); // [4] against [rows, 4]
    ASSERT_SHIM_OK(ENTRY(bernoulli__Tensor)(self.get(), p.get(), nullptr));
    const std::vector<double> v = readTensor(self, float32Type());
    std::vector<int64_t> ones(4, 0);
    for (int64_t i = 0; i < rows * 4; ++i) {
      ASSERT_EQ(v[i], uniformOf(block(i), 53) < columns[i % 4] ? 1.0 : 0.0)
          << i;
      ones[i % 4] += v[i] == 1.0;
    }
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(ones[c], columns[c] * rows,
                  5 * std::sqrt(columns[c] * (1 - columns[c]) * rows) + 0.5);
  }
  // A 0-d p, an int64 self.
  aoti_shims_manual_seed(kSeed);
  TensorHandle self = zeros({2, 3}, int64Type());
  TensorHandle half = tensor({0.5}, {{}}, float64Type());
  ASSERT_SHIM_OK(ENTRY(bernoulli__Tensor)(self.get(), half.get(), nullptr));
  const std::vector<double> v = readTensor(self, int64Type());
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(v[i], uniformOf(block(i), 53) < 0.5 ? 1.0 : 0.0);
  // Refused.
  TensorHandle wide = tensor({0.5, 0.5}, {{2}}, float32Type());
  EXPECT_SHIM_FAILS(ENTRY(bernoulli__Tensor)(self.get(), wide.get(), nullptr),
                    "The expanded size of the tensor (3) must match the "
                    "existing size (2) at non-singleton dimension 1");
  TensorHandle intP = tensor({1}, {{1}}, int64Type());
  EXPECT_SHIM_FAILS(ENTRY(bernoulli__Tensor)(self.get(), intP.get(), nullptr),
                    "'p' has dtype int64; bernoulli_ needs a floating dtype");
  TensorHandle expanded;
  const int64_t sizes[] = {2, 3}, strides[] = {0, 1};
  ASSERT_SHIM_OK(aoti_torch__reinterpret_tensor(self.get(), 2, sizes, strides,
                                                0, expanded.out()));
  EXPECT_SHIM_FAILS(
      ENTRY(bernoulli__Tensor)(expanded.get(), half.get(), nullptr),
      "'self' has stride 0 in dimension 0");
  AtenGeneratorHandle fake = reinterpret_cast<AtenGeneratorHandle>(0x10);
  EXPECT_SHIM_FAILS(ENTRY(bernoulli__Tensor)(self.get(), half.get(), &fake),
                    "'generator' is a torch.Generator");
  if (!onCuda()) { // the CPU kernel checks every p; CUDA's cannot cheaply
    TensorHandle bad = tensor({0.5, 1.5, 0.5}, {{3}}, float32Type());
    EXPECT_SHIM_FAILS(ENTRY(bernoulli__Tensor)(self.get(), bad.get(), nullptr),
                      "'p' holds 1.5 at element 1");
  }
}

// --- uniform, normal_functional, exponential
// ---------------------------------------

TEST_P(RandomOps, UniformKeepsSelfsStridesAndRange) {
  for (const Dtype &type : floatTypes()) {
    SCOPED_TRACE(type.name);
    aoti_shims_manual_seed(kSeed);
    // A view with gaps and an offset: the result has self's very strides.
    TensorHandle self = tensor(patternValues(kSamples, 1),
                               {{kSamples / 4, 4}, {8, 2}, 3}, type);
    TensorHandle ret;
    ASSERT_SHIM_OK(ENTRY(uniform)(self.get(), -2, 6, nullptr, ret.out()));
    expectLayout(ret, {kSamples / 4, 4}, {8, 2}, type.code);
    const std::vector<double> v = readTensor(ret, type);
    for (int64_t i = 0; i < 1000; ++i)
      ASSERT_NEAR(v[i], -2 + 8 * uniformOf(block(i), digitsOf(type)),
                  8 * ulpOf(type))
          << i;
    EXPECT_GE(*std::min_element(v.begin(), v.end()), -2);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 6);
    if (digitsOf(type) >= 24) {
      expectMoments(v, 2, 64.0 / 12, std::pow(8, 4) / 80, type.name);
      expectDistribution(
          v, [](double x) { return (x + 2) / 8; }, type.name);
    }
  }
  // from == to; an expanded self: stride 0 kept, written once.
  TensorHandle self =
      tensor(std::vector<double>(6, 1), {{2, 3}, {0, 1}}, float32Type());
  TensorHandle ret;
  ASSERT_SHIM_OK(ENTRY(uniform)(self.get(), 3, 3, nullptr, ret.out()));
  expectLayout(ret, {2, 3}, {0, 1}, aoti_torch_dtype_float32());
  EXPECT_EQ(readTensor(ret, float32Type()), std::vector<double>(6, 3));
  TensorHandle h = zeros({4}, float16Type());
  EXPECT_SHIM_FAILS(ENTRY(uniform)(h.get(), 1, 0, nullptr, ret.out()),
                    "uniform_ expects to return a [from, to) range, but found "
                    "from=1 > to=0");
  EXPECT_SHIM_FAILS(ENTRY(uniform)(h.get(), 0, 1e5, nullptr, ret.out()),
                    "to is out of bounds for float16");
  EXPECT_SHIM_FAILS(ENTRY(uniform)(h.get(), -6e4, 6e4, nullptr, ret.out()),
                    "uniform_ expects to-from <= the largest float16");
  TensorHandle i = zeros({4}, int32Type());
  EXPECT_SHIM_FAILS(ENTRY(uniform)(i.get(), 0, 1, nullptr, ret.out()),
                    "'self' has dtype int32; uniform needs a floating dtype");
}

TEST_P(RandomOps, NormalFunctionalAndExponentialAreLikeSelf) {
  const Dtype f64 = float64Type();
  // A transposed self keeps its strides (empty_like); one with gaps gets
  // dense strides in its order.
  TensorHandle transposed = tensor(patternValues(kSamples, 2),
                                   {{kSamples / 8, 8}, {1, kSamples / 8}}, f64);
  TensorHandle ret;
  ASSERT_SHIM_OK(
      ENTRY(normal_functional)(transposed.get(), 3, 2, nullptr, ret.out()));
  expectLayout(ret, {kSamples / 8, 8}, {1, kSamples / 8}, f64.code);
  std::vector<double> v = readTensor(ret, f64);
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_NEAR(v[i], 3 + 2 * normalOf(block(i)), 1e-12) << i;
  expectMoments(v, 3, 4, 3 * 16, "normal(3, 2)");
  TensorHandle gaps =
      tensor(patternValues(kSamples, 3), {{8, kSamples / 8}, {1, 16}, 1}, f64);
  ASSERT_SHIM_OK(ENTRY(exponential)(gaps.get(), 2, nullptr, ret.out()));
  expectLayout(ret, {8, kSamples / 8}, {1, 8}, f64.code);
  v = readTensor(ret, f64);
  for (int64_t i = 0; i < 1000; ++i)
    ASSERT_NEAR(v[i], exponentialOf(block(kSamples + i), 2, 0x1.0p-53),
                1e-12 * v[i])
        << i;
  EXPECT_GT(*std::min_element(v.begin(), v.end()), 0);
  expectMoments(v, 0.5, 0.25, 9.0 / 16, "exponential(2)");
  expectDistribution(
      v, [](double x) { return 1 - std::exp(-2 * x); }, "exponential(2)");
  // Narrow dtypes round the double value; never 0.
  for (const Dtype &type : {float32Type(), float16Type(), bfloat16Type()}) {
    TensorHandle self = zeros({4096}, type);
    ASSERT_SHIM_OK(ENTRY(exponential)(self.get(), 1, nullptr, ret.out()));
    const std::vector<double> e = readTensor(ret, type);
    EXPECT_GT(*std::min_element(e.begin(), e.end()), 0) << type.name;
    ASSERT_SHIM_OK(
        ENTRY(normal_functional)(self.get(), 0, 0, nullptr, ret.out()));
    EXPECT_EQ(readTensor(ret, type), std::vector<double>(4096, 0)) << type.name;
  }
  TensorHandle self = zeros({4}, float32Type());
  EXPECT_SHIM_FAILS(
      ENTRY(normal_functional)(self.get(), 0, -1, nullptr, ret.out()),
      "normal expects std >= 0.0, but found std -1");
  EXPECT_SHIM_FAILS(ENTRY(exponential)(self.get(), 0, nullptr, ret.out()),
                    "exponential_ expects lambda > 0.0, but found lambda=0");
  TensorHandle ints = zeros({4}, int64Type());
  EXPECT_SHIM_FAILS(ENTRY(exponential)(ints.get(), 1, nullptr, ret.out()),
                    "exponential needs a floating dtype");
}

// --- native_dropout
// ----------------------------------------------------------------

TEST_P(RandomOps, DropoutScalesWhatItKeeps) {
  const double p = 0.3;
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  for (const Dtype &type : floatTypes()) {
    SCOPED_TRACE(type.name);
    for (int32_t trainValue : {1, -1}) { // train=True, and None (also training)
      aoti_shims_manual_seed(kSeed);
      const std::vector<double> x = patternValues(kSamples, 4);
      TensorHandle input = tensor(x, {{kSamples / 16, 16}}, type);
      TensorHandle out, mask;
      ASSERT_SHIM_OK(ENTRY(native_dropout)(
          input.get(), p, trainValue < 0 ? nullptr : &trainValue, out.out(),
          mask.out()));
      expectLayout(out, {kSamples / 16, 16}, {16, 1}, type.code);
      expectLayout(mask, {kSamples / 16, 16}, {16, 1}, aoti_torch_dtype_bool());
      const std::vector<double> y = readTensor(out, type);
      const std::vector<double> m = readTensor(mask, boolType());
      int64_t kept = 0;
      for (int64_t i = 0; i < kSamples; ++i) {
        ASSERT_EQ(m[i], uniformOf(block(i), 53) < 1 - p ? 1.0 : 0.0) << i;
        const double xi = roundTrip(type, x[i]);
        const float product = static_cast<float>(xi) * scale;
        const double expected = type.code == aoti_torch_dtype_float64()
                                    ? xi * (1.0 / (1.0 - p))
                                    : product;
        ASSERT_NEAR(y[i], m[i] * expected, ulpOf(type) * std::fabs(expected))
            << i;
        kept += m[i] == 1.0;
      }
      EXPECT_NEAR(kept, 0.7 * kSamples, 5 * std::sqrt(0.21 * kSamples));
    }
  }
}

TEST_P(RandomOps, DropoutEvalPZeroPOneAndEmpty) {
  const Dtype f32 = float32Type();
  const std::vector<double> x = {1, -2, std::nan(""), 4, -0.5, 6};
  // A non-dense input (a column slice): eval and p=0 give input's strides.
  TensorHandle input = tensor(x, {{2, 3}, {6, 2}, 1}, f32);
  TensorHandle out, mask;
  int32_t no = 0, yes = 1;
  for (auto [p, train] :
       {std::pair<double, int32_t *>{0.5, &no}, {0.0, &yes}}) {
    ASSERT_SHIM_OK(
        ENTRY(native_dropout)(input.get(), p, train, out.out(), mask.out()));
    expectLayout(out, {2, 3}, {6, 2}, f32.code);
    expectLayout(mask, {2, 3}, {3, 1}, aoti_torch_dtype_bool());
    const std::vector<double> y = readTensor(out, f32);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_TRUE(std::isnan(x[i]) ? std::isnan(y[i]) : y[i] == x[i]) << i;
    EXPECT_EQ(readTensor(mask, boolType()), std::vector<double>(6, 1));
  }
  // Not training draws nothing; p=0 training draws one counter an element.
  const Dtype f64 = float64Type();
  EXPECT_EQ(readTensor(factory(false, {1}, &f64), f64)[0],
            uniformOf(block(6), 53));
  // p = 1: zeros, NaN included (torch's CUDA kernel and decomposition).
  ASSERT_SHIM_OK(
      ENTRY(native_dropout)(input.get(), 1, &yes, out.out(), mask.out()));
  expectLayout(out, {2, 3}, {3, 1}, f32.code);
  EXPECT_EQ(readTensor(out, f32), std::vector<double>(6, 0));
  EXPECT_EQ(readTensor(mask, boolType()), std::vector<double>(6, 0));
  // An integer input: eval only.
  TensorHandle ints = tensor({1, 2, 3}, {{3}}, int64Type());
  ASSERT_SHIM_OK(
      ENTRY(native_dropout)(ints.get(), 0.5, &no, out.out(), mask.out()));
  EXPECT_EQ(readTensor(out, int64Type()), (std::vector<double>{1, 2, 3}));
  EXPECT_SHIM_FAILS(
      ENTRY(native_dropout)(ints.get(), 0.5, &yes, out.out(), mask.out()),
      "native_dropout in training needs a floating dtype");
  EXPECT_SHIM_FAILS(
      ENTRY(native_dropout)(input.get(), 1.5, &yes, out.out(), mask.out()),
      "dropout probability has to be between 0 and 1, but got 1.5");
  TensorHandle empty = tensor({}, {{0, 3}}, f32);
  ASSERT_SHIM_OK(
      ENTRY(native_dropout)(empty.get(), 0.5, &yes, out.out(), mask.out()));
  EXPECT_EQ(sizesOf(out), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(dtypeCodeOf(mask), aoti_torch_dtype_bool());
  // train None drops, as the kernels do, into input's strides, as the
  // decomposition (which reads None as false) lays it out.
  aoti_shims_manual_seed(kSeed);
  ASSERT_SHIM_OK(
      ENTRY(native_dropout)(input.get(), 0.5, nullptr, out.out(), mask.out()));
  expectLayout(out, {2, 3}, {6, 2}, f32.code);
  const std::vector<double> kept = readTensor(mask, boolType());
  const std::vector<double> y = readTensor(out, f32);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(kept[i], uniformOf(block(i), 53) < 0.5 ? 1.0 : 0.0) << i;
    if (!std::isnan(x[i]))
      EXPECT_EQ(y[i], kept[i] * x[i] * 2) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(, RandomOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// --- What only a GPU can show: the CPU and CUDA give the same values
// -------------

class RandomOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, RandomOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RandomOnCuda);

TEST_P(RandomOnCuda, TheSameSeedGivesTheSameValuesOnBothDevices) {
  // One call sequence, run once per device from the same seed.
  auto sequence = [](int32_t device) {
    aoti_shims_manual_seed(kSeed);
    std::vector<std::vector<double>> results;
    int32_t dev = device, f32 = aoti_torch_dtype_float32();
    int32_t f64 = aoti_torch_dtype_float64();
    const int64_t size[] = {1 << 16};
    TensorHandle t;
    EXPECT_SHIM_OK((device ? aoti_torch_cuda_rand : aoti_torch_cpu_rand)(
        size, 1, &f32, nullptr, &dev, 0, nullptr, t.out()));
    results.push_back(readTensor(t, float32Type()));
    EXPECT_SHIM_OK((device ? aoti_torch_cuda_randn : aoti_torch_cpu_randn)(
        size, 1, &f64, nullptr, &dev, 0, nullptr, t.out()));
    results.push_back(readTensor(t, float64Type()));
    EXPECT_SHIM_OK(
        (device ? aoti_torch_cuda_randperm : aoti_torch_cpu_randperm)(
            1 << 16, nullptr, nullptr, &dev, 0, nullptr, t.out()));
    results.push_back(readTensor(t, int64Type()));
    TensorHandle x = makeTensor(patternValues(1 << 16, 5), {{1 << 16}},
                                float32Type(), device);
    TensorHandle out, mask;
    int32_t yes = 1;
    EXPECT_SHIM_OK((device ? aoti_torch_cuda_native_dropout
                           : aoti_torch_cpu_native_dropout)(
        x.get(), 0.25, &yes, out.out(), mask.out()));
    results.push_back(readTensor(out, float32Type()));
    EXPECT_SHIM_OK(
        (device ? aoti_torch_cuda_exponential
                : aoti_torch_cpu_exponential)(x.get(), 3, nullptr, t.out()));
    results.push_back(readTensor(t, float32Type()));
    return results;
  };
  const auto cpu = sequence(aoti_torch_device_type_cpu());
  const auto gpu = sequence(aoti_torch_device_type_cuda());
  ASSERT_EQ(cpu.size(), gpu.size());
  for (size_t r = 0; r < cpu.size(); ++r) {
    ASSERT_EQ(cpu[r].size(), gpu[r].size());
    const double tol = r == 1 ? 1e-14 : r == 4 ? 1e-6 : 0; // log/cos ulps
    for (size_t i = 0; i < cpu[r].size(); ++i)
      ASSERT_NEAR(gpu[r][i], cpu[r][i], tol * (1 + std::fabs(cpu[r][i])))
          << "result " << r << " element " << i;
  }
}

TEST_P(RandomOnCuda, TheGridStrideCoversMoreElementsThanTheGrid) {
  // blocksFor() caps a launch at 65536 blocks of 256 threads: 2^24
  // elements; the ones beyond are each thread's second element.
  aoti_shims_manual_seed(kSeed);
  const int64_t n = (int64_t{1} << 24) + 4096;
  const int32_t i32 = aoti_torch_dtype_int32();
  TensorHandle t;
  int32_t dev = device();
  ASSERT_SHIM_OK(aoti_torch_cuda_randint_low(
      -1000, 1000, &n, 1, const_cast<int32_t *>(&i32), nullptr, &dev, 0,
      nullptr, t.out()));
  const std::vector<int32_t> v = readRaw<int32_t>(t, i32);
  for (int64_t i : {int64_t{0}, int64_t{1} << 23, n - 4097, n - 4096, n - 1})
    EXPECT_EQ(v[i], integerOf(block(i), -1000, 2000)) << i;
  for (int64_t i = n - 4096; i < n; ++i)
    ASSERT_EQ(v[i], integerOf(block(i), -1000, 2000)) << i;
}

TEST_P(RandomOnCuda, RunsOnTheStreamAGuardSets) {
  // A non-blocking stream of the test's own: randperm's kernels and CUB's
  // sort must be ordered on it, so that the copy back (on that stream) sees
  // the permutation with no other synchronisation.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    aoti_shims_manual_seed(kSeed);
    TensorHandle t;
    int32_t dev = device();
    ASSERT_SHIM_OK(aoti_torch_cuda_randperm(1 << 20, nullptr, nullptr, &dev, 0,
                                            nullptr, t.out()));
    std::vector<int64_t> ref(1 << 20);
    std::iota(ref.begin(), ref.end(), 0);
    std::vector<uint64_t> keys;
    for (int64_t i = 0; i < (1 << 20); ++i)
      keys.push_back(low64(block(i)));
    std::stable_sort(ref.begin(), ref.end(),
                     [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    EXPECT_EQ(readRaw<int64_t>(t, aoti_torch_dtype_int64()), ref);
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

TEST_P(RandomOnCuda, BernoulliTakesPFromTheOtherDevice) {
  // torch copies p to self's device; both directions.
  for (bool selfOnCuda : {true, false}) {
    aoti_shims_manual_seed(kSeed);
    const int32_t selfDevice =
        selfOnCuda ? device() : aoti_torch_device_type_cpu();
    const int32_t pDevice =
        selfOnCuda ? aoti_torch_device_type_cpu() : device();
    TensorHandle self = makeTensor(std::vector<double>(64, 0), {{8, 8}},
                                   float32Type(), selfDevice);
    TensorHandle p = makeTensor({0.25, 0.5, 0.75, 1, 0, 0.5, 0.5, 0.125}, {{8}},
                                float64Type(), pDevice);
    ASSERT_SHIM_OK((selfOnCuda ? aoti_torch_cuda_bernoulli__Tensor
                               : aoti_torch_cpu_bernoulli__Tensor)(
        self.get(), p.get(), nullptr));
    const std::vector<double> ps = readTensor(p, float64Type());
    const std::vector<double> v = readTensor(self, float32Type());
    for (int64_t i = 0; i < 64; ++i)
      ASSERT_EQ(v[i], uniformOf(block(i), 53) < ps[i % 8] ? 1.0 : 0.0) << i;
  }
}

TEST_P(RandomOnCuda, TheCpuEntryPointRefusesACudaTensor) {
  TensorHandle self = tensor(patternValues(4, 1), {{4}}, float32Type());
  EXPECT_SHIM_FAILS(aoti_torch_cpu_bernoulli__float(self.get(), 0.5, nullptr),
                    "'self' is on cuda:0; this bernoulli_ needs a CPU tensor");
}

} // namespace
} // namespace aoti::test
