//===- ops_convolution_test.cpp - aoti_torch_cpu_convolution ---------------===//
//
// Every case runs the shim on tensors made over the test's own storage (any
// strides, any storage offset) and compares each output element, read
// through the output's own strides, with a reference computed here in double
// by plain loops: a gather for convolutions, a scatter (the definition of a
// transposed convolution as the adjoint) for transposed ones. The output's
// strides are compared with the ones torch's fake convolution gives, and the
// memory-format rule itself is checked against a table of cases read off
// torch's code (see ops/convolution.cpp).
//
//===----------------------------------------------------------------------===//
#include "ops/convolution.h"
#include "conv_reference.h"
#include "shims_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace {

using aoti::test::TensorHandle;
using aoti::shims::DeviceType;
using aoti::shims::ScalarType;
namespace ops = aoti::shims::ops;
using namespace aoti::test::conv;

uint16_t toBf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return static_cast<uint16_t>(bits >> 16); // values are already bf16-exact
}

float fromBf16(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A handle over h's storage (float32), or over a bfloat16 copy of it.
void wrap(Host &h, int32_t dtype, std::vector<uint16_t> *halfStorage) {
  void *data = h.storage.data();
  if (halfStorage) {
    halfStorage->resize(h.storage.size());
    for (size_t i = 0; i < h.storage.size(); ++i)
      (*halfStorage)[i] = toBf16(h.storage[i]);
    data = halfStorage->data();
  }
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      data, static_cast<int64_t>(h.sizes.size()), h.sizes.data(),
      h.strides.data(), h.offset, dtype, aoti_torch_device_type_cpu(), 0,
      h.handle.out()));
}

// --- Running a case ----------------------------------------------------------

struct Outcome {
  TensorHandle out;
  Reference ref;
};

AOTITorchError callConv(const Case &c, AtenTensorHandle input,
                        AtenTensorHandle weight, AtenTensorHandle *bias,
                        AtenTensorHandle *ret) {
  const Dims op = c.outputPadding.empty() ? Dims{0} : c.outputPadding;
  return aoti_torch_cpu_convolution(
      input, weight, bias, c.stride.data(),
      static_cast<int64_t>(c.stride.size()), c.padding.data(),
      static_cast<int64_t>(c.padding.size()), c.dilation.data(),
      static_cast<int64_t>(c.dilation.size()), c.transposed, op.data(),
      static_cast<int64_t>(op.size()), c.groups, ret);
}

// Runs `c` in `dtype` (float32 or bfloat16) and checks every element.
// `relTol` bounds the error relative to the sum of |terms| of the element;
// `outTol` the rounding of the stored result relative to its value.
void runCase(const Case &c, bool bf16, double relTol, double outTol,
             const Dims &expectedStrides) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(12345);
  Host in = makeHost(c.input, c.inputLayout, rng, bf16 ? roundToBf16 : nullptr);
  Host w = makeHost(c.weight, c.weightLayout, rng, bf16 ? roundToBf16 : nullptr);
  const int64_t outChannels =
      c.transposed ? c.weight[1] * c.groups : c.weight[0];
  Host b = makeHost({outChannels}, Layout::Contiguous, rng,
                    bf16 ? roundToBf16 : nullptr);
  const int32_t dtype =
      bf16 ? aoti_torch_dtype_bfloat16() : aoti_torch_dtype_float32();
  std::vector<uint16_t> inHalf, wHalf, bHalf;
  wrap(in, dtype, bf16 ? &inHalf : nullptr);
  wrap(w, dtype, bf16 ? &wHalf : nullptr);
  wrap(b, dtype, bf16 ? &bHalf : nullptr);
  AtenTensorHandle biasHandle = c.bias ? b.handle.get() : nullptr;

  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, in.handle.get(), w.handle.get(),
                          c.bias ? &biasHandle : nullptr, out.out()));
  const Reference ref = reference(c, in, c.bias ? &b : nullptr, w);
  ASSERT_EQ(aoti::test::sizesOf(out), ref.sizes);
  const Dims strides = aoti::test::stridesOf(out);
  EXPECT_EQ(strides, expectedStrides);
  int32_t outDtype = -1;
  ASSERT_SHIM_OK(aoti_torch_get_dtype(out.get(), &outDtype));
  ASSERT_EQ(outDtype, dtype);

  void *data = nullptr;
  ASSERT_SHIM_OK(aoti_torch_get_data_ptr(out.get(), &data));
  const size_t n = ref.value.size();
  const size_t dims = ref.sizes.size();
  size_t bad = 0;
  for (size_t flat = 0; flat < n; ++flat) {
    // Row-major index -> position through the output's strides.
    size_t rest = flat;
    int64_t pos = 0;
    for (size_t d = dims; d-- > 0;) {
      const size_t size = static_cast<size_t>(ref.sizes[d]);
      pos += static_cast<int64_t>(rest % size) * strides[d];
      rest /= size;
    }
    const double got =
        bf16 ? fromBf16(static_cast<uint16_t *>(data)[pos])
             : static_cast<float *>(data)[pos];
    const double want = ref.value[flat];
    const double tol =
        relTol * ref.magnitude[flat] + outTol * std::fabs(want) + 1e-6;
    if (std::fabs(got - want) > tol && bad++ < 5)
      ADD_FAILURE() << "element " << flat << ": got " << got << ", want "
                    << want << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0u) << "elements out of tolerance";
}

// float32: oneDNN sums in float32 in its own order. The error of a float32
// sum of k terms is below k * 2^-24 * sum|terms|; kernels here have k <= 600,
// and blocked summation keeps it far below that: 1e-5 * sum|terms|.
constexpr double kFloatTol = 1e-5;

// --- Value cases (float32) ----------------------------------------------------

TEST(OpsConvolution, Conv1d) {
  Case c{"conv1d", {2, 3, 11}, {4, 3, 3}, {1}, {1}, {1}};
  runCase(c, false, kFloatTol, 0, contiguous({2, 4, 11}));
}

TEST(OpsConvolution, Conv1dStrideDilationNoBias) {
  Case c{"conv1d s2 d2", {2, 4, 20}, {6, 4, 3}, {2}, {2}, {2}};
  c.bias = false;
  runCase(c, false, kFloatTol, 0, contiguous({2, 6, 10}));
}

TEST(OpsConvolution, Conv2dBasic) {
  Case c{"conv2d", {2, 3, 9, 8}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  runCase(c, false, kFloatTol, 0, contiguous({2, 5, 9, 8}));
}

TEST(OpsConvolution, Conv2dAsymmetricStridePaddingDilation) {
  Case c{"conv2d s(2,1) p(0,2) d(1,2)", {1, 4, 13, 10}, {6, 4, 3, 2},
         {2, 1}, {0, 2}, {1, 2}};
  // H: (13 - 3)/2 + 1 = 6; W: (10 + 4 - 2 - 1)/1 + 1 = 12
  runCase(c, false, kFloatTol, 0, contiguous({1, 6, 6, 12}));
}

TEST(OpsConvolution, Conv2dSingleValueLists) {
  Case c{"conv2d lists of one", {1, 2, 7, 7}, {3, 2, 3, 3}, {2}, {1}, {1}};
  runCase(c, false, kFloatTol, 0, contiguous({1, 3, 4, 4}));
}

TEST(OpsConvolution, Conv2dGroups) {
  Case c{"conv2d groups=2", {2, 6, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1},
         {1, 1}};
  c.groups = 2;
  runCase(c, false, kFloatTol, 0, contiguous({2, 4, 8, 8}));
}

TEST(OpsConvolution, Conv2dDepthwise) {
  Case c{"depthwise", {2, 8, 10, 10}, {16, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}};
  c.groups = 8;
  runCase(c, false, kFloatTol, 0, contiguous({2, 16, 5, 5}));
}

TEST(OpsConvolution, Conv3d) {
  Case c{"conv3d", {1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {1, 2, 1}, {1, 1, 0},
         {1, 1, 2}};
  // D: 5, H: (6+2-3)/2+1 = 3, W: (7 - 4 - 1) + 1 = 3
  runCase(c, false, kFloatTol, 0, contiguous({1, 3, 5, 3, 3}));
}

TEST(OpsConvolution, Conv3dGroupsNoBias) {
  Case c{"conv3d groups", {2, 4, 4, 4, 4}, {4, 2, 2, 2, 2}, {1}, {0}, {1}};
  c.groups = 2;
  c.bias = false;
  runCase(c, false, kFloatTol, 0, contiguous({2, 4, 3, 3, 3}));
}

TEST(OpsConvolution, Transposed1dOutputPadding) {
  Case c{"transposed1d", {2, 4, 7}, {4, 3, 3}, {2}, {1}, {1}, true, {1}};
  // (7-1)*2 - 2 + 2 + 1 + 1 = 14
  runCase(c, false, kFloatTol, 0, contiguous({2, 3, 14}));
}

TEST(OpsConvolution, Transposed2dGroupsDilationOutputPadding) {
  Case c{"transposed2d", {2, 4, 5, 6}, {4, 3, 3, 2}, {2, 3}, {1, 0}, {2, 1},
         true, {1, 2}};
  c.groups = 2; // weight [C_in=4, C_out/g=3, ...] -> C_out = 6
  // H: 4*2 - 2 + 4 + 1 + 1 = 12; W: 5*3 - 0 + 1 + 2 + 1 = 19
  runCase(c, false, kFloatTol, 0, contiguous({2, 6, 12, 19}));
}

TEST(OpsConvolution, Transposed3dNoBias) {
  Case c{"transposed3d", {1, 3, 3, 4, 3}, {3, 2, 2, 3, 2}, {2, 1, 2}, {0, 1, 1},
         {1}, true, {1, 0, 0}};
  c.bias = false;
  // D: 4+1+1+1 = 7; H: 3-2+2+1 = 4; W: 4-2+1+1 = 4
  runCase(c, false, kFloatTol, 0, contiguous({1, 2, 7, 4, 4}));
}

TEST(OpsConvolution, ChannelsLastInputGivesChannelsLastOutput) {
  Case c{"channels_last input", {2, 8, 7, 9}, {6, 8, 3, 3}, {1, 1}, {1, 1},
         {1, 1}};
  c.inputLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, channelsLast({2, 6, 7, 9}));
}

TEST(OpsConvolution, ChannelsLastWeightGivesChannelsLastOutput) {
  Case c{"channels_last weight", {1, 4, 6, 6}, {8, 4, 3, 3}, {2, 2}, {0, 0},
         {1, 1}};
  c.weightLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, channelsLast({1, 8, 2, 2}));
}

TEST(OpsConvolution, ChannelsLast3dInputBatchOfTwo) {
  // Batch > 1: oneDNN runs in torch too, so the result is channels-last-3d.
  Case c{"channels_last_3d", {2, 4, 3, 4, 5}, {2, 4, 2, 2, 2}, {1}, {0}, {1}};
  c.inputLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, channelsLast({2, 2, 2, 3, 4}));
}

TEST(OpsConvolution, ChannelsLast3dSmallProblemIsContiguous) {
  // N=1, groups=1, small kernel, N*C*D*H <= 20480: torch's slow 3-d kernel.
  Case c{"channels_last_3d small", {1, 4, 3, 4, 5}, {2, 4, 2, 2, 2}, {1},
         {0}, {1}};
  c.inputLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, contiguous({1, 2, 2, 3, 4}));
}

TEST(OpsConvolution, TransposedChannelsLast) {
  Case c{"transposed channels_last", {1, 4, 5, 5}, {4, 2, 3, 3}, {2, 2},
         {1, 1}, {1, 1}, true, {1, 1}};
  c.inputLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, channelsLast({1, 2, 10, 10}));
}

TEST(OpsConvolution, TransposedOutputPaddingReachingTheStride) {
  // output_padding 1 >= stride 1 (allowed: below dilation 2). The last
  // output row gets no input; torch's CPU result stays channels-last.
  Case c{"big output_padding", {1, 4, 5, 5}, {4, 2, 3, 3}, {1, 1}, {0, 0},
         {2, 2}, true, {1, 1}};
  c.inputLayout = Layout::ChannelsLast;
  runCase(c, false, kFloatTol, 0, channelsLast({1, 2, 10, 10}));
  c.name = "big output_padding, padded";
  c.padding = {1, 0};
  c.inputLayout = Layout::Contiguous;
  runCase(c, false, kFloatTol, 0, contiguous({1, 2, 8, 10}));
}

TEST(OpsConvolution, Conv1dChannelsLastLikeWeight) {
  // A 1-d weight stored [O, K, I] is channels-last once torch views it as
  // 2-d, so the output is [N, O, L] with strides (O*L, 1, O).
  std::mt19937 rng(7);
  Case c{"conv1d channels-last weight", {2, 3, 6}, {4, 3, 3}, {1}, {0}, {1}};
  Host in = makeHost(c.input, Layout::Contiguous, rng);
  Host w = makeHost(c.weight, Layout::ChannelsLast, rng); // (9, 1, 3)
  wrap(in, aoti_torch_dtype_float32(), nullptr);
  wrap(w, aoti_torch_dtype_float32(), nullptr);
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, in.handle.get(), w.handle.get(), nullptr,
                          out.out()));
  EXPECT_EQ(aoti::test::stridesOf(out), (Dims{16, 1, 4}));
  const Reference ref = reference(c, in, nullptr, w);
  const float *data = aoti::test::dataOf<float>(out);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t l = 0; l < 4; ++l)
        EXPECT_NEAR(data[n * 16 + o + l * 4],
                    ref.value[static_cast<size_t>((n * 4 + o) * 4 + l)], 1e-5);
}

TEST(OpsConvolution, Conv1dPermutedInputStaysContiguous) {
  // torch makes a 1-d input contiguous before looking at its layout.
  Case c{"conv1d permuted input", {2, 3, 6}, {4, 3, 3}, {1}, {0}, {1}};
  c.inputLayout = Layout::ChannelsLast; // strides (18, 1, 3)
  runCase(c, false, kFloatTol, 0, contiguous({2, 4, 4}));
}

TEST(OpsConvolution, NonContiguousInput) {
  Case c{"strided input", {2, 3, 6, 5}, {4, 3, 2, 2}, {1, 1}, {0, 0}, {1, 1}};
  c.inputLayout = Layout::Strided;
  c.weightLayout = Layout::Strided;
  runCase(c, false, kFloatTol, 0, contiguous({2, 4, 5, 4}));
}

TEST(OpsConvolution, StorageOffsetInputs) {
  Case c{"offset", {1, 2, 5, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  c.inputLayout = Layout::Offset;
  c.weightLayout = Layout::Offset;
  runCase(c, false, kFloatTol, 0, contiguous({1, 3, 5, 5}));
}

TEST(OpsConvolution, BiasPointingToNullMeansNoBias) {
  std::mt19937 rng(3);
  Case c{"null bias handle", {1, 2, 4, 4}, {2, 2, 3, 3}, {1}, {0}, {1}};
  Host in = makeHost(c.input, Layout::Contiguous, rng);
  Host w = makeHost(c.weight, Layout::Contiguous, rng);
  wrap(in, aoti_torch_dtype_float32(), nullptr);
  wrap(w, aoti_torch_dtype_float32(), nullptr);
  AtenTensorHandle noBias = nullptr;
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, in.handle.get(), w.handle.get(), &noBias,
                          out.out()));
  const Reference ref = reference(c, in, nullptr, w);
  const float *data = aoti::test::dataOf<float>(out);
  for (size_t i = 0; i < ref.value.size(); ++i)
    EXPECT_NEAR(data[i], ref.value[i], 1e-5);
}

TEST(OpsConvolution, EmptyBatch) {
  std::mt19937 rng(3);
  Case c{"empty batch", {0, 2, 4, 4}, {3, 2, 3, 3}, {1}, {0}, {1}};
  Host in = makeHost({1, 2, 4, 4}, Layout::ChannelsLast, rng);
  in.sizes = c.input;
  Host w = makeHost(c.weight, Layout::Contiguous, rng);
  wrap(in, aoti_torch_dtype_float32(), nullptr);
  wrap(w, aoti_torch_dtype_float32(), nullptr);
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, in.handle.get(), w.handle.get(), nullptr,
                          out.out()));
  EXPECT_EQ(aoti::test::sizesOf(out), (Dims{0, 3, 2, 2}));
  EXPECT_EQ(aoti::test::stridesOf(out), contiguous({0, 3, 2, 2}));
}

// --- bfloat16 and float16 ---------------------------------------------------

// bfloat16: inputs are bf16-exact and oneDNN accumulates in float32, so the
// only large error is the final rounding to bf16 (2^-8 relative, within
// 2^-9 when rounded to nearest); plus float32 accumulation.
TEST(OpsConvolution, BFloat16WhereOneDnnRunsIt) {
  Case c{"bf16", {2, 8, 6, 6}, {8, 4, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  c.groups = 2;
  c.inputLayout = Layout::ChannelsLast;
  // Probe: oneDNN 2.6 has bf16 convolutions only with AVX-512.
  std::mt19937 rng(1);
  Host in = makeHost(c.input, Layout::Contiguous, rng, roundToBf16);
  Host w = makeHost(c.weight, Layout::Contiguous, rng, roundToBf16);
  std::vector<uint16_t> a, b;
  wrap(in, aoti_torch_dtype_bfloat16(), &a);
  wrap(w, aoti_torch_dtype_bfloat16(), &b);
  TensorHandle probe;
  aoti_shims_clear_last_error();
  if (callConv(c, in.handle.get(), w.handle.get(), nullptr, probe.out()) !=
      AOTI_TORCH_SUCCESS) {
    EXPECT_NE(std::string(aoti_shims_last_error())
                  .find("oneDNN has no bfloat16 convolution for this CPU"),
              std::string::npos)
        << aoti_shims_last_error();
    GTEST_SKIP() << "no bf16 convolution on this CPU: "
                 << aoti_shims_last_error();
  }
  runCase(c, true, 1e-5, 1.0 / 256, channelsLast({2, 8, 6, 6}));
  Case t{"bf16 transposed", {1, 4, 4, 4}, {4, 3, 3, 3}, {2, 2}, {1, 1},
         {1, 1}, true, {1, 1}};
  runCase(t, true, 1e-5, 1.0 / 256, contiguous({1, 3, 8, 8}));
}

TEST(OpsConvolution, Float16RunsOrIsRefusedClearly) {
  std::vector<uint16_t> zeros(64, 0); // float16 zeros
  const Dims in{1, 1, 4, 4}, w{1, 1, 3, 3};
  TensorHandle input, weight, out;
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      zeros.data(), 4, in.data(), nullptr, 0, aoti_torch_dtype_float16(),
      aoti_torch_device_type_cpu(), 0, input.out()));
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      zeros.data(), 4, w.data(), nullptr, 0, aoti_torch_dtype_float16(),
      aoti_torch_device_type_cpu(), 0, weight.out()));
  const int64_t one = 1, zero = 0;
  aoti_shims_clear_last_error();
  AOTITorchError rc = aoti_torch_cpu_convolution(
      input.get(), weight.get(), nullptr, &one, 1, &zero, 1, &one, 1, 0,
      &zero, 1, 1, out.out());
  if (rc == AOTI_TORCH_SUCCESS) {
    EXPECT_EQ(aoti::test::sizesOf(out), (Dims{1, 1, 2, 2}));
    const uint16_t *data = aoti::test::dataOf<uint16_t>(out);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(data[i] & 0x7fff, 0);
  } else {
    EXPECT_NE(std::string(aoti_shims_last_error())
                  .find("oneDNN has no float16 convolution for this CPU"),
              std::string::npos)
        << aoti_shims_last_error();
  }
}

// --- Layout choice (AOTI_SHIMS_CPU_CONV) -------------------------------------
// ops/cpu/convolution.cpp runs a problem on the operands' own layouts, on
// oneDNN's blocked weights, or on blocked layouts for every operand, and by
// default times the candidates on a shape's first call. Every choice must
// give the reference's values (ctest also runs the whole suite with each
// pinned), and `auto` must give the same bits on the first call, which timed
// them all, as on every later one.

struct ConvLayoutScope { // unset however the test ends
  explicit ConvLayoutScope(const char *value) {
    setenv("AOTI_SHIMS_CPU_CONV", value, 1);
  }
  ~ConvLayoutScope() { unsetenv("AOTI_SHIMS_CPU_CONV"); }
};

// Shapes where the candidates differ: a 3x3 and a strided 1x1 convolution
// over NCHW (im2col + gemm against blocked direct kernels), a 3-channel 7x7
// stem, and a channels-last input (direct kernels on NHWC with blocked
// weights, against everything blocked), which is how an inductor CPU model
// passes its convolutions.
std::vector<std::pair<Case, Dims>> layoutCases() {
  Case conv3{"3x3", {2, 16, 14, 14}, {16, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Case conv1{"1x1/2", {2, 16, 14, 14}, {32, 16, 1, 1}, {2, 2}, {0, 0},
             {1, 1}};
  conv1.bias = false;
  Case stem{"7x7/2 stem", {2, 3, 32, 32}, {16, 3, 7, 7}, {2, 2}, {3, 3},
            {1, 1}};
  Case last{"3x3 channels_last", {2, 16, 10, 10}, {16, 16, 3, 3}, {1, 1},
            {1, 1}, {1, 1}};
  last.inputLayout = Layout::ChannelsLast;
  return {{conv3, contiguous({2, 16, 14, 14})},
          {conv1, contiguous({2, 32, 7, 7})},
          {stem, contiguous({2, 16, 16, 16})},
          {last, channelsLast({2, 16, 10, 10})}};
}

TEST(OpsConvolutionLayouts, EveryChoiceMatchesTheReference) {
  for (const char *choice : {"own", "blocked-weights", "blocked", "auto", ""}) {
    SCOPED_TRACE(std::string("AOTI_SHIMS_CPU_CONV=") + choice);
    ConvLayoutScope scope(choice);
    for (const auto &[c, strides] : layoutCases())
      for (int call = 0; call < 2; ++call) // the choice, then the cache
        runCase(c, false, kFloatTol, 0, strides);
  }
}

TEST(OpsConvolutionLayouts, AutoGivesTheSameBitsOnTheFirstCallAsLater) {
  ConvLayoutScope scope("auto");
  std::mt19937 rng(7);
  std::vector<std::pair<Case, Dims>> cases = layoutCases();
  // And one long enough (2.8 G multiply-adds at the batch of 3 below) that
  // a candidate's warm-up is its timing (ops/cpu/convolution.cpp: 20 ms or
  // more).
  Case longer{"64-channel 3x3 at 160x160", {1, 64, 160, 160},
              {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  longer.inputLayout = Layout::ChannelsLast;
  cases.push_back({longer, channelsLast({1, 64, 160, 160})});
  for (auto [c, strides] : cases) {
    SCOPED_TRACE(c.name);
    // A batch no other test uses, so the first call here is the shape's
    // first in the process.
    c.input[0] = 3;
    Host in = makeHost(c.input, c.inputLayout, rng, nullptr);
    Host w = makeHost(c.weight, c.weightLayout, rng, nullptr);
    wrap(in, aoti_torch_dtype_float32(), nullptr);
    wrap(w, aoti_torch_dtype_float32(), nullptr);
    std::vector<std::vector<float>> results;
    for (int call = 0; call < 3; ++call) {
      TensorHandle out;
      ASSERT_SHIM_OK(
          callConv(c, in.handle.get(), w.handle.get(), nullptr, out.out()));
      int64_t numel = 0;
      ASSERT_SHIM_OK(aoti_torch_get_numel(out.get(), &numel));
      const float *data = aoti::test::dataOf<float>(out);
      results.emplace_back(data, data + numel);
    }
    EXPECT_EQ(0, std::memcmp(results[0].data(), results[1].data(),
                             results[0].size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(results[1].data(), results[2].data(),
                             results[1].size() * sizeof(float)));
  }
}

// --- Calls from several host threads ----------------------------------------
// A host may run models on several threads at once (a server), so one shape
// is convolved by several threads together. oneDNN lets a primitive run on
// one thread at a time with its own scratchpad only; the shims cache one
// primitive per shape for every thread, so each execution must bring its own
// scratchpad. Every result must match the reference, and all of them must
// have the same bits (with `auto`, whichever thread's timing got to choose).

TEST(OpsConvolutionThreads, ConcurrentCallsMatchTheReferenceAndEachOther) {
  // ResNet's shapes, channels-last as an inductor model passes them, at
  // batches no other test uses: a strided 1x1 (a downsample: on AVX2
  // oneDNN's jit_1x1 kernel gathers the strided input into its scratchpad)
  // and a 3x3 (direct kernel, no scratchpad).
  Case down{"1x1/2 downsample", {2, 64, 28, 28}, {128, 64, 1, 1}, {2, 2},
            {0, 0}, {1, 1}};
  down.inputLayout = Layout::ChannelsLast;
  Case conv3{"3x3", {3, 32, 14, 14}, {32, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  conv3.inputLayout = Layout::ChannelsLast;
  constexpr int kThreads = 4, kCalls = 12;
  for (const Case &c : {down, conv3}) {
    std::mt19937 rng(99);
    Host in = makeHost(c.input, c.inputLayout, rng, nullptr);
    Host w = makeHost(c.weight, c.weightLayout, rng, nullptr);
    Host b = makeHost({c.weight[0]}, Layout::Contiguous, rng, nullptr);
    const Reference ref = reference(c, in, &b, w);
    wrap(in, aoti_torch_dtype_float32(), nullptr);
    wrap(w, aoti_torch_dtype_float32(), nullptr);
    wrap(b, aoti_torch_dtype_float32(), nullptr);
    for (const char *choice : {"blocked", "blocked-weights", "own", "auto"}) {
      SCOPED_TRACE(std::string("AOTI_SHIMS_CPU_CONV=") + choice + ", " +
                   c.name);
      ConvLayoutScope scope(choice);
      std::vector<std::vector<float>> first(kThreads);
      std::vector<int> bad(kThreads, 0), differing(kThreads, 0);
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
          for (int call = 0; call < kCalls; ++call) {
            AtenTensorHandle bias = b.handle.get();
            TensorHandle out;
            if (callConv(c, in.handle.get(), w.handle.get(), &bias,
                         out.out()) != AOTI_TORCH_SUCCESS) {
              ++bad[t];
              continue;
            }
            int64_t numel = 0;
            aoti_torch_get_numel(out.get(), &numel);
            const float *data = aoti::test::dataOf<float>(out);
            std::vector<float> bits(data, data + numel);
            // Channels-last output: element (n, c, h, w) of the reference
            // is at ((n * H + h) * W + w) * C + c.
            const Dims &sz = ref.sizes;
            for (size_t flat = 0; flat < ref.value.size(); ++flat) {
              const int64_t x = static_cast<int64_t>(flat) % sz[3];
              const int64_t y = static_cast<int64_t>(flat) / sz[3] % sz[2];
              const int64_t ch =
                  static_cast<int64_t>(flat) / (sz[3] * sz[2]) % sz[1];
              const int64_t n = static_cast<int64_t>(flat) /
                                (sz[3] * sz[2] * sz[1]);
              const double got = bits[((n * sz[2] + y) * sz[3] + x) * sz[1] +
                                      ch];
              if (std::fabs(got - ref.value[flat]) >
                  kFloatTol * ref.magnitude[flat] + 1e-6)
                ++bad[t];
            }
            if (call == 0)
              first[t] = std::move(bits);
            else if (bits != first[t])
              ++differing[t];
          }
        });
      for (std::thread &thread : threads)
        thread.join();
      for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(bad[t], 0) << "thread " << t
                             << ": elements off the reference, or failures";
        EXPECT_EQ(differing[t], 0) << "thread " << t
                                   << ": calls with other bits than its first";
        EXPECT_EQ(first[t], first[0]) << "thread " << t << " against thread 0";
      }
    }
  }
}

// --- Errors -----------------------------------------------------------------

class OpsConvolutionErrors : public ::testing::Test {
protected:
  void SetUp() override {
    input = make({1, 4, 5, 5});
    weight = make({6, 2, 3, 3});
  }
  TensorHandle make(const Dims &sizes, int32_t dtype = -1) {
    if (dtype < 0)
      dtype = aoti_torch_dtype_float32();
    storage.emplace_back(4096, 0.0f);
    TensorHandle t;
    EXPECT_EQ(aoti_torch_create_tensor_from_blob(
                  storage.back().data(), static_cast<int64_t>(sizes.size()),
                  sizes.data(), nullptr, 0, dtype,
                  aoti_torch_device_type_cpu(), 0, t.out()),
              AOTI_TORCH_SUCCESS);
    return t;
  }
  // groups 2, 2-d, stride/padding/dilation 1.
  AOTITorchError conv(AtenTensorHandle in, AtenTensorHandle w,
                      AtenTensorHandle *bias = nullptr, int64_t groups = 2,
                      Dims stride = {1, 1}, Dims padding = {1, 1},
                      Dims dilation = {1, 1}, int32_t transposed = 0,
                      Dims outputPadding = {0, 0}) {
    out.reset();
    return aoti_torch_cpu_convolution(
        in, w, bias, stride.data(), static_cast<int64_t>(stride.size()),
        padding.data(), static_cast<int64_t>(padding.size()),
        dilation.data(), static_cast<int64_t>(dilation.size()), transposed,
        outputPadding.data(), static_cast<int64_t>(outputPadding.size()),
        groups, out.out());
  }
  std::vector<std::vector<float>> storage;
  TensorHandle input, weight, out;
};

TEST_F(OpsConvolutionErrors, TheFixtureCallSucceeds) {
  ASSERT_SHIM_OK(conv(input.get(), weight.get()));
  EXPECT_EQ(aoti::test::sizesOf(out), (Dims{1, 6, 5, 5}));
}

TEST_F(OpsConvolutionErrors, NullHandles) {
  EXPECT_SHIM_FAILS(conv(nullptr, weight.get()), "'input'");
  EXPECT_SHIM_FAILS(conv(input.get(), nullptr), "'weight'");
  const int64_t one[2] = {1, 1};
  EXPECT_SHIM_FAILS(aoti_torch_cpu_convolution(input.get(), weight.get(),
                                               nullptr, one, 2, one, 2, one, 2,
                                               0, one, 2, 2, nullptr),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS(aoti_torch_cpu_convolution(input.get(), weight.get(),
                                               nullptr, nullptr, 2, one, 2, one,
                                               2, 0, one, 2, 2, out.out()),
                    "'stride' is null");
}

TEST_F(OpsConvolutionErrors, DimensionMismatchAndUnbatchedInput) {
  TensorHandle unbatched = make({4, 5, 5});
  EXPECT_SHIM_FAILS(conv(unbatched.get(), weight.get()),
                    "expected 4-d input for 4-d weight");
  EXPECT_SHIM_FAILS(conv(unbatched.get(), weight.get()), "unbatched");
  TensorHandle flat = make({6, 2});
  EXPECT_SHIM_FAILS(conv(input.get(), flat.get()),
                    "expected a 3-d, 4-d or 5-d weight");
  TensorHandle six = make({1, 1, 1, 1, 1, 1});
  EXPECT_SHIM_FAILS(conv(six.get(), six.get()), "6-d");
}

TEST_F(OpsConvolutionErrors, Groups) {
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 4),
                    "divisible by groups"); // 6 % 4
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 3),
                    "to have 6 channels, but got 4"); // 2 * 3 != 4
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 0),
                    "non-positive groups");
  // Transposed: input channels must equal weight.size(0).
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1},
                         {0, 0}, {1, 1}, 1),
                    "given transposed=1");
}

TEST_F(OpsConvolutionErrors, DtypeAndDevice) {
  TensorHandle ints = make({1, 4, 5, 5}, aoti_torch_dtype_int32());
  TensorHandle intWeight = make({6, 2, 3, 3}, aoti_torch_dtype_int32());
  EXPECT_SHIM_FAILS(conv(ints.get(), intWeight.get()),
                    "unsupported dtype int32");
  TensorHandle halfWeight = make({6, 2, 3, 3}, aoti_torch_dtype_bfloat16());
  EXPECT_SHIM_FAILS(conv(input.get(), halfWeight.get()),
                    "'weight' has dtype bfloat16, expected float32");
  TensorHandle doubles = make({1, 4, 5, 5}, aoti_torch_dtype_float64());
  TensorHandle doubleWeight = make({6, 2, 3, 3}, aoti_torch_dtype_float64());
  EXPECT_SHIM_FAILS(conv(doubles.get(), doubleWeight.get()),
                    "unsupported dtype float64");
  // The CUDA entry point refuses CPU tensors (or says CUDA is absent).
  const int64_t one[2] = {1, 1};
  TensorHandle cudaOut;
#ifdef AOTI_TEST_HAVE_CUDA
  const char *why = "this convolution needs CUDA tensors";
#else
  const char *why = "CUDA support was not compiled";
#endif
  EXPECT_SHIM_FAILS(aoti_torch_cuda_convolution(input.get(), weight.get(),
                                                nullptr, one, 2, one, 2, one,
                                                2, 0, one, 2, 2,
                                                cudaOut.out()),
                    why);
}

TEST_F(OpsConvolutionErrors, ListArguments) {
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1},
                         {-1, 1}),
                    "negative padding is not supported");
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {0, 1}),
                    "non-positive stride");
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1},
                         {1, 1}, {1, 0}),
                    "dilation should be greater than zero");
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1, 1}),
                    "expected stride to be a single value or a list of 2");
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1}, {}),
                    "expected padding to be a single value or a list of 2");
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), nullptr, 2, {1, 1},
                         {1, 1}, {1, 1}, 0, {0, -1}),
                    "negative output_padding");
}

TEST_F(OpsConvolutionErrors, OutputPaddingAndSizes) {
  TensorHandle w = make({4, 3, 3, 3});
  // output_padding 2 with stride 2 and dilation 1.
  EXPECT_SHIM_FAILS(conv(input.get(), w.get(), nullptr, 1, {2, 2}, {0, 0},
                         {1, 1}, 1, {2, 0}),
                    "output padding must be smaller than either stride or "
                    "dilation");
  // A 7x7 kernel on a 5x5 input without padding.
  TensorHandle big = make({6, 2, 7, 7});
  EXPECT_SHIM_FAILS(conv(input.get(), big.get(), nullptr, 2, {1, 1}, {0, 0}),
                    "kernel size can't be greater than the actual input size");
  // Transposed to an empty output: (1-1)*1 - 2*1 + 1 = -1.
  TensorHandle one = make({1, 4, 1, 1});
  TensorHandle tw = make({4, 1, 1, 1});
  EXPECT_SHIM_FAILS(conv(one.get(), tw.get(), nullptr, 1, {1, 1}, {1, 1},
                         {1, 1}, 1, {0, 0}),
                    "output size is too small");
  // A zero-sized spatial input with a batch and channels.
  TensorHandle hollow = make({1, 4, 0, 5});
  EXPECT_SHIM_FAILS(conv(hollow.get(), weight.get()),
                    "only zero batch or zero channel inputs");
}

TEST_F(OpsConvolutionErrors, Bias) {
  TensorHandle wrongSize = make({5});
  AtenTensorHandle b = wrongSize.get();
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), &b),
                    "expected bias to be 1-dimensional with 6 elements");
  TensorHandle twoD = make({2, 3});
  b = twoD.get();
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), &b),
                    "1-dimensional with 6 elements");
  TensorHandle halfBias = make({6}, aoti_torch_dtype_bfloat16());
  b = halfBias.get();
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get(), &b),
                    "'bias' has dtype bfloat16");
}

TEST_F(OpsConvolutionErrors, FailureLeavesTheOutputUntouched) {
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1234);
  const int64_t one[2] = {1, 1}, neg[2] = {-1, -1};
  EXPECT_NE(aoti_torch_cpu_convolution(input.get(), weight.get(), nullptr,
                                       one, 2, neg, 2, one, 2, 0, one, 2, 2,
                                       &sentinel),
            AOTI_TORCH_SUCCESS);
  EXPECT_EQ(sentinel, reinterpret_cast<AtenTensorHandle>(0x1234));
}

// --- The memory-format rule, case by case -------------------------------------

struct RuleCase {
  const char *name;
  DeviceType device;
  ScalarType dtype;
  Dims inSizes, inStrides, wSizes, wStrides;
  bool transposed;
  Dims stride, outputPadding;
  int64_t groups;
  ops::MemoryFormat expected;
};

TEST_F(OpsConvolutionErrors, UnknownLayoutChoice) {
  setenv("AOTI_SHIMS_CPU_CONV", "fastest", 1);
  EXPECT_SHIM_FAILS(conv(input.get(), weight.get()),
                    "AOTI_SHIMS_CPU_CONV=fastest: expected auto, own, "
                    "blocked-weights or blocked (or unset)");
  unsetenv("AOTI_SHIMS_CPU_CONV");
  EXPECT_SHIM_OK(conv(input.get(), weight.get()));
}

TEST(OpsConvolutionRule, MatchesTorchFakeConvolution) {
  using F = ops::MemoryFormat;
  const auto CPU = DeviceType::CPU, CUDA = DeviceType::CUDA;
  const auto f32 = ScalarType::Float32, bf16 = ScalarType::BFloat16,
             f16 = ScalarType::Float16;
  const Dims in4{2, 8, 10, 10}, w4{16, 8, 3, 3};
  const Dims in5{1, 4, 4, 4, 4}, w5{8, 4, 3, 3, 3};
  const std::vector<RuleCase> cases = {
      // 2-d: channels-last if input or weight suggests it, CPU and CUDA.
      {"2d contiguous", CPU, f32, in4, contiguous(in4), w4, contiguous(w4),
       false, {1, 1}, {0, 0}, 1, F::Contiguous},
      {"2d CL input", CPU, f32, in4, channelsLast(in4), w4, contiguous(w4),
       false, {1, 1}, {0, 0}, 1, F::ChannelsLast},
      {"2d CL weight", CPU, f32, in4, contiguous(in4), w4, channelsLast(w4),
       false, {1, 1}, {0, 0}, 1, F::ChannelsLast},
      {"2d CL input cuda", CUDA, f32, in4, channelsLast(in4), w4,
       contiguous(w4), false, {1, 1}, {0, 0}, 1, F::ChannelsLast},
      {"2d CL weight cuda bf16", CUDA, bf16, in4, contiguous(in4), w4,
       channelsLast(w4), false, {1, 1}, {0, 0}, 1, F::ChannelsLast},
      {"2d contiguous cuda", CUDA, f16, in4, contiguous(in4), w4,
       contiguous(w4), false, {1, 1}, {0, 0}, 1, F::Contiguous},
      // N,C,1,1: contiguous and channels-last strides differ only by the
      // heuristic's tie-breaks.
      {"N C 1 1 contiguous", CPU, f32, {2, 8, 1, 1}, {8, 1, 1, 1}, {4, 8, 1, 1},
       {8, 1, 1, 1}, false, {1, 1}, {0, 0}, 1, F::Contiguous},
      {"N C 1 1 CL", CPU, f32, {2, 8, 1, 1}, {8, 1, 8, 8}, {4, 8, 1, 1},
       {8, 1, 1, 1}, false, {1, 1}, {0, 0}, 1, F::ChannelsLast},
      // Zero batch: the Empty backend, contiguous.
      {"empty batch CL", CPU, f32, {0, 8, 10, 10}, {800, 1, 80, 8}, w4,
       channelsLast(w4), false, {1, 1}, {0, 0}, 1, F::Contiguous},
      {"empty batch CL cuda", CUDA, f32, {0, 8, 10, 10}, {800, 1, 80, 8}, w4,
       channelsLast(w4), false, {1, 1}, {0, 0}, 1, F::Contiguous},
      // Depthwise on CUDA: cuDNN exactly when channels-last.
      {"depthwise CL cuda", CUDA, f32, in4, channelsLast(in4), {8, 1, 3, 3},
       contiguous({8, 1, 3, 3}), false, {1, 1}, {0, 0}, 8, F::ChannelsLast},
      {"depthwise cuda", CUDA, f32, in4, contiguous(in4), {8, 1, 3, 3},
       contiguous({8, 1, 3, 3}), false, {1, 1}, {0, 0}, 8, F::Contiguous},
      // Transposed.
      {"transposed CL", CPU, f32, in4, channelsLast(in4), {8, 4, 3, 3},
       contiguous({8, 4, 3, 3}), true, {2, 2}, {1, 1}, 1, F::ChannelsLast},
      {"transposed CL cuda", CUDA, f32, in4, channelsLast(in4), {8, 4, 3, 3},
       contiguous({8, 4, 3, 3}), true, {2, 2}, {1, 1}, 1, F::ChannelsLast},
      // output_padding >= stride (allowed by dilation): CUDA leaves cuDNN
      // for the slow kernels (contiguous); the CPU's slow 2-d kernels still
      // honour channels-last.
      {"big output_padding cuda", CUDA, f32, in4, channelsLast(in4),
       {8, 4, 3, 3}, contiguous({8, 4, 3, 3}), true, {1, 1}, {1, 1}, 1,
       F::Contiguous},
      {"big output_padding cpu", CPU, f32, in4, channelsLast(in4),
       {8, 4, 3, 3}, contiguous({8, 4, 3, 3}), true, {1, 1}, {1, 1}, 1,
       F::ChannelsLast},
      // 1-d: the input is made contiguous first; only the weight counts.
      {"1d permuted input", CPU, f32, {2, 8, 10}, {80, 1, 8}, {4, 8, 3},
       {24, 3, 1}, false, {1}, {0}, 1, F::Contiguous},
      {"1d permuted input cuda", CUDA, f32, {2, 8, 10}, {80, 1, 8}, {4, 8, 3},
       {24, 3, 1}, false, {1}, {0}, 1, F::Contiguous},
      {"1d permuted weight", CPU, f32, {2, 8, 10}, {80, 10, 1}, {4, 8, 3},
       {24, 1, 8}, false, {1}, {0}, 1, F::ChannelsLast},
      {"1d permuted weight cuda", CUDA, f32, {2, 8, 10}, {80, 10, 1}, {4, 8, 3},
       {24, 1, 8}, false, {1}, {0}, 1, F::ChannelsLast},
      // 3-d on CUDA: cuDNN, channels-last-3d when input or weight is.
      {"3d CL3d cuda", CUDA, f32, in5, channelsLast(in5), w5, contiguous(w5),
       false, {1, 1, 1}, {0, 0, 0}, 1, F::ChannelsLast3d},
      {"3d CL3d weight cuda", CUDA, f16, in5, contiguous(in5), w5,
       channelsLast(w5), false, {1, 1, 1}, {0, 0, 0}, 1, F::ChannelsLast3d},
      // 3-d on the CPU: only when oneDNN runs.
      {"3d CL3d small cpu (slow3d)", CPU, f32, in5, channelsLast(in5), w5,
       contiguous(w5), false, {1, 1, 1}, {0, 0, 0}, 1, F::Contiguous},
      {"3d CL3d batch 2 cpu", CPU, f32, {2, 4, 4, 4, 4},
       channelsLast({2, 4, 4, 4, 4}), w5, contiguous(w5), false, {1, 1, 1},
       {0, 0, 0}, 1, F::ChannelsLast3d},
      {"3d CL3d groups 2 cpu", CPU, f32, in5, channelsLast(in5), {8, 2, 3, 3, 3},
       contiguous({8, 2, 3, 3, 3}), false, {1, 1, 1}, {0, 0, 0}, 2,
       F::ChannelsLast3d},
      {"3d CL3d big kernel cpu", CPU, f32, {1, 4, 8, 8, 8},
       channelsLast({1, 4, 8, 8, 8}), {8, 4, 3, 4, 4},
       contiguous({8, 4, 3, 4, 4}), false, {1, 1, 1}, {0, 0, 0}, 1,
       F::ChannelsLast3d},
      {"3d CL3d large N*C*D*H cpu", CPU, f32, {1, 32, 32, 21, 4},
       channelsLast({1, 32, 32, 21, 4}), {8, 32, 3, 3, 3},
       contiguous({8, 32, 3, 3, 3}), false, {1, 1, 1}, {0, 0, 0}, 1,
       F::ChannelsLast3d}, // 32*32*21 = 21504 > 20480
      {"3d CL3d N*C*D*H at the cut cpu", CPU, f32, {1, 32, 32, 20, 4},
       channelsLast({1, 32, 32, 20, 4}), {8, 32, 3, 3, 3},
       contiguous({8, 32, 3, 3, 3}), false, {1, 1, 1}, {0, 0, 0}, 1,
       F::Contiguous}, // 20480, not above
      {"3d CL3d bf16 cpu", CPU, bf16, in5, channelsLast(in5), w5,
       contiguous(w5), false, {1, 1, 1}, {0, 0, 0}, 1, F::ChannelsLast3d},
      {"3d CL3d f16 cpu", CPU, f16, in5, channelsLast(in5), w5, contiguous(w5),
       false, {1, 1, 1}, {0, 0, 0}, 1, F::Contiguous},
      {"3d CL3d transposed big output_padding cpu", CPU, f32, {2, 4, 4, 4, 4},
       channelsLast({2, 4, 4, 4, 4}), {4, 2, 3, 3, 3},
       contiguous({4, 2, 3, 3, 3}), true, {1, 1, 1}, {1, 1, 1}, 1,
       F::Contiguous},
  };
  for (const RuleCase &c : cases) {
    ops::ConvParams params;
    params.spatialDims = static_cast<int64_t>(c.wSizes.size()) - 2;
    params.stride = c.stride;
    params.padding = Dims(c.stride.size(), 0);
    params.dilation = Dims(c.stride.size(), 2);
    params.outputPadding = c.outputPadding;
    params.transposed = c.transposed;
    params.groups = c.groups;
    EXPECT_EQ(ops::convOutputMemoryFormat(c.device, c.dtype, c.inSizes,
                                          c.inStrides, c.wSizes, c.wStrides,
                                          params),
              c.expected)
        << c.name;
  }
}

TEST(OpsConvolutionRule, StridesOfEachFormat) {
  using F = ops::MemoryFormat;
  EXPECT_EQ(ops::stridesForMemoryFormat(Dims{2, 3, 4, 5}, F::Contiguous),
            (Dims{60, 20, 5, 1}));
  EXPECT_EQ(ops::stridesForMemoryFormat(Dims{2, 3, 4, 5}, F::ChannelsLast),
            (Dims{60, 1, 15, 3}));
  EXPECT_EQ(ops::stridesForMemoryFormat(Dims{2, 3, 5}, F::ChannelsLast),
            (Dims{15, 1, 3}));
  EXPECT_EQ(ops::stridesForMemoryFormat(Dims{2, 3, 4, 5, 6}, F::ChannelsLast3d),
            (Dims{360, 1, 90, 18, 3}));
  // A zero-sized dimension: c10's channels-last strides use the raw sizes.
  EXPECT_EQ(ops::stridesForMemoryFormat(Dims{2, 3, 0, 5}, F::ChannelsLast),
            (Dims{0, 1, 15, 3}));
}

TEST(OpsConvolutionRule, ChannelsLastHeuristic) {
  EXPECT_TRUE(ops::isChannelsLastStrides2d(Dims{2, 3, 4, 5}, Dims{60, 1, 15, 3}));
  EXPECT_FALSE(ops::isChannelsLastStrides2d(Dims{2, 3, 4, 5}, Dims{60, 20, 5, 1}));
  // N111 with equal strides: ambiguous, NCHW.
  EXPECT_FALSE(ops::isChannelsLastStrides2d(Dims{4, 1, 1, 1}, Dims{1, 1, 1, 1}));
  // A zero channel stride (broadcast channels) is never channels-last.
  EXPECT_FALSE(ops::isChannelsLastStrides2d(Dims{2, 3, 4, 5}, Dims{20, 0, 5, 1}));
  EXPECT_TRUE(ops::isChannelsLastStrides3d(Dims{2, 3, 4, 5, 6},
                                           Dims{360, 1, 90, 18, 3}));
  EXPECT_FALSE(ops::isChannelsLastStrides3d(Dims{2, 3, 4, 5, 6},
                                            Dims{360, 120, 30, 6, 1}));
}

} // namespace
