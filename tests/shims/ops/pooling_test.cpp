//===- ops/pooling_test.cpp - The pooling family, on every device ---------===//
//
// Every case runs on both devices (ops/devices.h) against the references of
// ops/pooling_reference.h, computed here in double from torch's
// definitions. Inputs are multiples of 1/8 (exact in every tested dtype),
// with repeats, so ties happen; max results must match exactly (values and
// indices), averages within one rounding of the dtype. Each case also
// checks the results' sizes, strides (torch's meta: the input's memory
// format where torch keeps it, contiguous elsewhere), dtype and device.
// Layouts: contiguous, channels-last, transposed, and views with gaps and a
// storage offset; batched and unbatched. Device differences that torch has
// are expected per device: the dtypes each kernel takes, the index of an
// all -inf window in CUDA's channels-last max_pool2d, fractional windows'
// arithmetic, and max_unpool's treatment of a bad index.
//
//===----------------------------------------------------------------------===//
#include "ops/pooling_fixture.h"

namespace aoti::test {
namespace {

using namespace pooling;

// --- max_pool2d_with_indices / max_pool3d_with_indices ----------------------

TEST_P(PoolingOps, MaxPool2dEveryOption) {
  const Ints sizes = {2, 3, 7, 6};
  const std::vector<double> v = patternValues(numelOf(sizes), 3);
  struct Case {
    Window w;
    Ints out;
    const char *what;
  };
  const Case cases[] = {
      {{{2}, {}, {0}, {1}}, {3, 3}, "kernel 2, stride defaults to kernel"},
      {{{3}, {2}, {1}, {1}}, {4, 3}, "kernel 3 stride 2 pad 1"},
      {{{3}, {2}, {1}, {1}, true}, {4, 4}, "ceil_mode adds a partial window"},
      {{{3, 2}, {2, 1}, {1, 0}, {2, 1}},
       {3, 5},
       "per-dimension lists, dilation"},
      {{{2}, {4}, {1}, {1}, true},
       {2, 2},
       "ceil_mode drops a window starting in the right padding"},
      {{{2}, {4}, {1}, {1}}, {2, 2}, "the same without ceil_mode"},
      {{{2}, {2}, {0}, {1}, true}, {4, 3}, "ceil_mode on odd and even sizes"},
      {{{3}, {1}, {1}, {3}}, {3, 2}, "dilation steps past the left padding"},
      {{{2}, {1}, {1}, {1}}, {8, 7}, "stride 1 with padding"},
  };
  for (const Case &c : cases)
    checkMaxPool(2, v, {sizes}, float32Type(), c.w, c.out, false, c.what);
}

TEST_P(PoolingOps, MaxPool2dLayoutsKeepTheMemoryFormat) {
  const Ints sizes = {2, 5, 6, 7};
  const std::vector<double> v = patternValues(numelOf(sizes), 5);
  const Window w{{3}, {2}, {1}, {1}, true};
  const Ints out = {4, 4};
  checkMaxPool(2, v, channelsLast(sizes), float32Type(), w, out, true,
               "channels-last input, channels-last results");
  checkMaxPool(2, v, gappy(sizes), float32Type(), w, out, false,
               "gaps and an offset");
  checkMaxPool(2, v, transposed(sizes), float32Type(), w, out, false,
               "transposed H and W");
  // One channel: contiguous strides are also channels-last ones, and torch
  // calls that contiguous.
  checkMaxPool(2, patternValues(2 * 6 * 7, 1), {{2, 1, 6, 7}}, float32Type(),
               w, out, false, "one channel");
  // Unbatched (C, H, W): contiguous whatever the strides.
  checkMaxPool(2, patternValues(5 * 6 * 7, 2), {{5, 6, 7}, {1, 35, 5}},
               float32Type(), w, out, false, "unbatched, channels innermost");
  // An empty batch: contiguous, nothing computed.
  checkMaxPool(2, {}, {{0, 5, 6, 7}}, float32Type(), w, out, false,
               "empty batch");
  checkMaxPool(2, {}, channelsLast({0, 5, 6, 7}), float32Type(), w, out, false,
               "empty channels-last batch is contiguous");
  // Broadcast (stride-0) batch and channels: read in place; a stride-0
  // channel dimension is never channels-last.
  const std::vector<double> plane = patternValues(6 * 7, 3);
  std::vector<double> repeated;
  for (int copy = 0; copy < 2 * 5; ++copy)
    repeated.insert(repeated.end(), plane.begin(), plane.end());
  checkMaxPool(2, repeated, {sizes, {0, 0, 7, 1}}, float32Type(), w, out,
               false, "broadcast batch and channels");
  checkAvgPool(2, repeated, {sizes, {0, 0, 7, 1}}, float32Type(), w, true,
               nullptr, out, false, "avg_pool2d, broadcast");
}

TEST_P(PoolingOps, MaxPoolDtypesPerDevice) {
  const Ints sizes = {1, 2, 5, 5};
  std::vector<double> ints = patternValues(numelOf(sizes), 4);
  for (double &x : ints)
    x = std::fabs(x * 8);
  const Window w{{2}, {2}, {1}, {1}};
  const Ints out = {3, 3};
  for (const Dtype &type :
       {float64Type(), float16Type(), bfloat16Type(), float32Type()}) {
    checkMaxPool(2, patternValues(numelOf(sizes), 4), {sizes}, type, w, out,
                 false, type.name);
    checkMaxPool(2, patternValues(numelOf(sizes), 4), channelsLast(sizes),
                 type, w, out, true, std::string(type.name) + " channels-last");
  }
  for (const Dtype &type :
       {int64Type(), int32Type(), int16Type(), int8Type(), uint8Type()}) {
    if (onCuda()) { // torch's CUDA max_pool takes floating types only
      TensorHandle self = tensor(ints, {sizes}, type);
      TensorHandle v, i;
      EXPECT_SHIM_FAILS(maxPool(2, self, w, v, i),
                        "which torch's CUDA max_pool2d_with_indices kernel "
                        "does not take");
      continue;
    }
    checkMaxPool(2, ints, {sizes}, type, w, out, false, type.name);
    checkMaxPool(3, ints, {{2, 1, 5, 5}}, type, {{1, 2, 2}, {}, {0}, {1}},
                 {1, 2, 2}, false, std::string(type.name) + " 3d");
  }
  TensorHandle boolSelf = tensor(ints, {sizes}, boolType());
  TensorHandle v, i;
  EXPECT_SHIM_FAILS(maxPool(2, boolSelf, w, v, i), "'self' has dtype bool");
  EXPECT_SHIM_FAILS(avgPool(2, boolSelf, w, true, nullptr, v),
                    "'self' has dtype bool");
  TensorHandle scalar = tensor({1.0}, {{}}, float32Type());
  EXPECT_SHIM_FAILS(maxPool(2, scalar, w, v, i),
                    "non-empty 3D or 4D (batch mode) tensor expected");
  EXPECT_SHIM_FAILS(adaptiveMaxFn(2)(scalar.get(), out.data(), 2, v.out(),
                                     i.out()),
                    "Expected 3D or 4D tensor, but got: []");
}

TEST_P(PoolingOps, MaxPoolTiesNaNAndInfinity) {
  const double nan = std::nan("");
  const double inf = HUGE_VAL;
  // One 1x1x2x4 input, kernel 2x2 stride 2: two windows.
  //   window 0: 1, 1 / 1, 0     -> the first 1 (index 0)
  //   window 1: NaN, 3 / NaN, 2 -> NaN, the last NaN (index 6)
  checkMaxPool(2, {1, 1, nan, 3, 1, 0, nan, 2}, {{1, 1, 2, 4}}, float32Type(),
               {{2}, {2}, {0}, {1}}, {1, 2}, false, "ties and NaNs");
  // A window of -inf only keeps its first position (CUDA's channels-last
  // kernel keeps 0); padding is never a candidate.
  checkMaxPool(2, {-inf, -inf, -inf, -inf}, {{1, 1, 2, 2}}, float32Type(),
               {{2}, {1}, {1}, {1}}, {3, 3}, false, "all -inf");
  checkMaxPool(2, std::vector<double>(8, -inf), channelsLast({1, 2, 2, 2}),
               float32Type(), {{2}, {1}, {1}, {1}}, {3, 3}, true,
               "all -inf, channels-last");
  checkMaxPool(2, {-inf, 2, -inf, nan, 5, -inf, 1, 1}, {{2, 2, 2}},
               float16Type(), {{2}, {2}, {1}, {1}}, {2, 2}, false,
               "float16 unbatched with NaN");
  checkMaxPool(3, {1, nan, 3, nan, 2, 2, 2, 2}, {{1, 2, 2, 2}}, float32Type(),
               {{2}, {}, {0}, {1}}, {1, 1, 1}, false, "3d: the last NaN");
}

TEST_P(PoolingOps, MaxPool3dOptionsAndLayouts) {
  const Ints sizes = {2, 3, 5, 6, 7};
  const std::vector<double> v = patternValues(numelOf(sizes), 6);
  struct Case {
    Window w;
    Ints out;
    const char *what;
  };
  const Case cases[] = {
      {{{2}, {}, {0}, {1}}, {2, 3, 3}, "kernel 2"},
      {{{3, 2, 2}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}}, {3, 4, 4},
       "per-dimension lists"},
      {{{3, 2, 2}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}, true}, {3, 4, 4},
       "ceil_mode"},
      {{{2}, {4}, {1}, {1}, true}, {2, 2, 2}, "ceil_mode drops windows"},
  };
  for (const Case &c : cases) {
    checkMaxPool(3, v, {sizes}, float32Type(), c.w, c.out, false, c.what);
    checkMaxPool(3, v, channelsLast(sizes), float32Type(), c.w, c.out, true,
                 std::string(c.what) + ", channels-last 3d");
  }
  checkMaxPool(3, v, gappy(sizes), float64Type(), cases[1].w, cases[1].out,
               false, "gaps and an offset");
  // Unbatched (C, D, H, W) in a channels-last-like layout: contiguous.
  checkMaxPool(3, patternValues(3 * 5 * 6 * 7, 7),
               {{3, 5, 6, 7}, {1, 126, 21, 3}}, bfloat16Type(), cases[1].w,
               cases[1].out, false, "unbatched");
}

TEST_P(PoolingOps, MaxPoolLargeInputsUseThreads) {
  // Above the CPU's one-thread threshold and many CUDA blocks.
  const Ints sizes = {2, 16, 40, 40};
  const std::vector<double> v = patternValues(numelOf(sizes), 8);
  const Window w{{3}, {2}, {1}, {1}};
  checkMaxPool(2, v, {sizes}, float32Type(), w, {20, 20}, false, "contiguous");
  checkMaxPool(2, v, channelsLast(sizes), float32Type(), w, {20, 20}, true,
               "channels-last");
}

TEST_P(PoolingOps, MaxPoolRefusals) {
  TensorHandle self = tensor(patternValues(2 * 3 * 6 * 6, 1), {{2, 3, 6, 6}},
                             float32Type());
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  struct Case {
    Window w;
    const char *message;
  };
  const Case cases[] = {
      {{{2, 2, 2}, {}, {0}, {1}}, "kernel_size must either be a single int"},
      {{{2}, {1, 1, 1}, {0}, {1}}, "stride must either be omitted"},
      {{{2}, {}, {0, 0, 0}, {1}}, "padding must either be a single int"},
      {{{2}, {}, {0}, {}}, "dilation must either be a single int"},
      {{{2}, {0}, {0}, {1}}, "stride should not be zero"},
      {{{2}, {-1}, {0}, {1}}, "stride should be greater than zero"},
      {{{2}, {}, {-1}, {1}}, "pad must be non-negative"},
      {{{3}, {}, {2}, {1}}, "pad should be at most half of effective kernel"},
      {{{3}, {}, {2}, {3}}, "pad should be smaller than or equal to half"},
      {{{0}, {1}, {0}, {1}}, "kernel size should be greater than zero"},
      {{{2}, {}, {0}, {0}}, "dilation should be greater than zero"},
      {{{7}, {}, {0}, {1}}, "Output size is too small"},
      {{{int64_t{1} << 40}, {}, {0}, {1}}, "does not fit in int32"},
  };
  for (const Case &c : cases) {
    AtenTensorHandle v = sentinel, i = sentinel;
    const Window &w = c.w;
    EXPECT_SHIM_FAILS(
        maxPoolFn(2)(self.get(), w.kernel.data(), w.kernel.size(),
                     w.stride.data(), w.stride.size(), w.pad.data(),
                     w.pad.size(), w.dilation.data(), w.dilation.size(), 0, &v,
                     &i),
        c.message);
    EXPECT_EQ(v, sentinel);
    EXPECT_EQ(i, sentinel);
  }
  TensorHandle v, i;
  const Window ok{{2}, {}, {0}, {1}};
  TensorHandle flat = tensor(patternValues(36, 1), {{6, 6}}, float32Type());
  EXPECT_SHIM_FAILS(maxPool(2, flat, ok, v, i),
                    "non-empty 3D or 4D (batch mode) tensor expected");
  TensorHandle noChannels = tensor({}, {{2, 0, 6, 6}}, float32Type());
  EXPECT_SHIM_FAILS(maxPool(2, noChannels, ok, v, i),
                    "with optional 0 dim batch size for input, but got: "
                    "[2, 0, 6, 6]");
  TensorHandle three = tensor(patternValues(3 * 6 * 6, 1), {{3, 6, 6}},
                              float32Type());
  EXPECT_SHIM_FAILS(maxPool(3, three, {{2, 2, 2}, {}, {0}, {1}}, v, i),
                    "non-empty 4D or 5D (batch mode) tensor expected");
  TensorHandle five = tensor(patternValues(2 * 2 * 3 * 3 * 3, 1),
                             {{2, 2, 3, 3, 3}}, float32Type());
  EXPECT_SHIM_FAILS(maxPool(3, five, {{2, 2}, {}, {0}, {1}}, v, i),
                    "max_pool3d: kernel_size must either be a single int, or "
                    "a tuple of three ints");
  EXPECT_SHIM_FAILS(maxPool(3, five, {{4}, {}, {0}, {1}}, v, i),
                    "Output size is too small");
  const int64_t k[] = {2};
  EXPECT_SHIM_FAILS(maxPoolFn(2)(nullptr, k, 1, nullptr, 0, k, 1, k, 1, 0,
                                 v.out(), i.out()),
                    "'self' is null");
  EXPECT_SHIM_FAILS(maxPoolFn(2)(self.get(), k, 1, nullptr, 0, k, 1, k, 1, 0,
                                 nullptr, i.out()),
                    "'ret0' is null");
  EXPECT_SHIM_FAILS(maxPoolFn(2)(self.get(), nullptr, 1, nullptr, 0, k, 1, k,
                                 1, 0, v.out(), i.out()),
                    "'kernel_size' is null but has length 1");
}

// --- avg_pool2d / avg_pool3d -------------------------------------------------

TEST_P(PoolingOps, AvgPool2dEveryOption) {
  const Ints sizes = {2, 3, 7, 6};
  const std::vector<double> v = patternValues(numelOf(sizes), 9);
  const int64_t three = 3, minusTwo = -2;
  struct Case {
    Window w;
    bool countIncludePad;
    const int64_t *divisor;
    Ints out;
    const char *what;
  };
  const Case cases[] = {
      {{{2}, {}, {0}}, true, nullptr, {3, 3}, "kernel 2"},
      {{{3}, {2}, {1}}, true, nullptr, {4, 3}, "padding counted"},
      {{{3}, {2}, {1}}, false, nullptr, {4, 3}, "padding not counted"},
      {{{3}, {2}, {1}, {}, true}, true, nullptr, {4, 4},
       "ceil_mode: the overhang past the padding is never counted"},
      {{{3}, {2}, {1}, {}, true}, false, nullptr, {4, 4},
       "ceil_mode without padding counted"},
      {{{3, 2}, {2, 1}, {1, 0}}, true, &three, {4, 5}, "divisor_override"},
      {{{2}, {4}, {1}, {}, true}, true, &minusTwo, {2, 2},
       "ceil_mode drops a window; negative divisor_override"},
  };
  for (const Case &c : cases) {
    checkAvgPool(2, v, {sizes}, float32Type(), c.w, c.countIncludePad,
                 c.divisor, c.out, false, c.what);
    checkAvgPool(2, v, channelsLast(sizes), float32Type(), c.w,
                 c.countIncludePad, c.divisor, c.out, true,
                 std::string(c.what) + ", channels-last");
  }
  checkAvgPool(2, v, transposed(sizes), float64Type(), cases[3].w, true,
               nullptr, cases[3].out, false, "transposed float64");
  checkAvgPool(2, patternValues(3 * 7 * 6, 2), gappy({3, 7, 6}), float32Type(),
               cases[1].w, false, nullptr, cases[1].out, false,
               "unbatched, gaps and an offset");
}

TEST_P(PoolingOps, AvgPoolDtypesPerDevice) {
  const Ints sizes = {2, 2, 5, 5};
  const std::vector<double> v = patternValues(numelOf(sizes), 10);
  const Window w{{3}, {2}, {1}};
  for (const Dtype &type : {float16Type(), bfloat16Type()}) {
    checkAvgPool(2, v, {sizes}, type, w, true, nullptr, {3, 3}, false,
                 type.name);
    checkAvgPool(3, v, {sizes}, type, {{1, 3, 3}, {1, 2, 2}, {0, 1, 1}}, false,
                 nullptr, {2, 3, 3}, false, std::string(type.name) + " 3d");
  }
  // int64 averages truncate toward zero, on the CPU only.
  std::vector<double> ints = v;
  for (double &x : ints)
    x *= 8;
  TensorHandle longs = tensor(ints, {sizes}, int64Type());
  TensorHandle out;
  if (onCuda()) {
    EXPECT_SHIM_FAILS(avgPool(2, longs, w, true, nullptr, out),
                      "which torch's CUDA avg_pool2d kernel does not take");
  } else {
    checkAvgPool(2, ints, {sizes}, int64Type(), w, true, nullptr, {3, 3},
                 false, "int64");
    checkAvgPool(3, ints, {{1, 2, 2, 5, 5}}, int64Type(), {{2}, {1}, {1}},
                 false, nullptr, {3, 6, 6}, false, "int64 3d");
  }
  TensorHandle bytes = tensor(ints, {sizes}, uint8Type());
  EXPECT_SHIM_FAILS(avgPool(2, bytes, w, true, nullptr, out),
                    "\"avg_pool2d\" not implemented for 'uint8'");
  TensorHandle int32s = tensor(ints, {sizes}, int32Type());
  EXPECT_SHIM_FAILS(avgPool(3, int32s, {{1, 2, 2}}, true, nullptr, out),
                    "'self' has dtype int32");
}

TEST_P(PoolingOps, AvgPool3dResultsAreContiguous) {
  const Ints sizes = {2, 3, 4, 5, 6};
  const std::vector<double> v = patternValues(numelOf(sizes), 11);
  const Window w{{3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {}, true};
  const Ints out = {3, 4, 4};
  // torch's meta returns a contiguous result even for a channels-last input.
  checkAvgPool(3, v, channelsLast(sizes), float32Type(), w, true, nullptr, out,
               false, "channels-last input");
  checkAvgPool(3, v, {sizes}, float32Type(), w, false, nullptr, out, false,
               "padding not counted");
  const int64_t seven = 7;
  checkAvgPool(3, v, gappy(sizes), float64Type(), w, true, &seven, out, false,
               "divisor_override, gaps");
  checkAvgPool(3, patternValues(3 * 4 * 5 * 6, 1), {{3, 4, 5, 6}},
               float32Type(), {{2}}, true, nullptr, {2, 2, 3}, false,
               "unbatched");
  TensorHandle self = tensor(v, {sizes}, float32Type());
  TensorHandle result;
  EXPECT_SHIM_FAILS(avgPool(3, self, {{5}}, true, nullptr, result),
                    "input image (T: 4 H: 5 W: 6) smaller than kernel size "
                    "(kT: 5 kH: 5 kW: 5)");
  const int64_t zero = 0;
  EXPECT_SHIM_FAILS(avgPool(3, self, {{2}}, true, &zero, result),
                    "divisor must be not zero");
  EXPECT_SHIM_FAILS(avgPool(2, self, {{2}}, true, &zero, result),
                    "divisor must be not zero");
  EXPECT_SHIM_FAILS(avgPool(2, self, {{2}}, true, nullptr, result),
                    "Expected 3D or 4D (batch mode) tensor");
  EXPECT_SHIM_FAILS(avgPool(3, self, {{2, 2}}, true, nullptr, result),
                    "avg_pool3d: kernel_size must be a single int, or a tuple "
                    "of three ints");
}

// --- adaptive_max_pool / _adaptive_avg_pool ----------------------------------

TEST_P(PoolingOps, AdaptivePoolsEveryWindowShape) {
  const Ints sizes = {2, 3, 7, 5};
  const std::vector<double> v = patternValues(numelOf(sizes), 12);
  for (const Ints &out : {Ints{3, 4}, Ints{7, 5}, Ints{1, 1}, Ints{10, 2},
                          Ints{4, 3}}) {
    const std::string what =
        "output " + std::to_string(out[0]) + "x" + std::to_string(out[1]);
    for (bool cl : {false, true}) {
      const Layout layout = cl ? channelsLast(sizes) : Layout{sizes};
      SCOPED_TRACE(what + (cl ? " channels-last" : ""));
      TensorHandle self = tensor(v, layout, float32Type());
      Problem p{sizes, 2, out};
      TensorHandle values, indices, mean;
      ASSERT_SHIM_OK(adaptiveMaxFn(2)(self.get(), out.data(), 2, values.out(),
                                      indices.out()));
      ASSERT_SHIM_OK(adaptiveAvgFn(2)(self.get(), out.data(), 2, mean.out()));
      expectLayout(values, p.outSizes(), cl, aoti_torch_dtype_float32(), what);
      expectLayout(indices, p.outSizes(), cl, aoti_torch_dtype_int64(), what);
      expectLayout(mean, p.outSizes(), cl, aoti_torch_dtype_float32(), what);
      const MaxResult ref = referenceMax(v, p, adaptiveWindows(p));
      expectClose(readTensor(values, float32Type()), ref.values, 0, what);
      expectClose(readTensor(indices, int64Type()),
                  std::vector<double>(ref.indices.begin(), ref.indices.end()),
                  0, what + " indices");
      expectClose(readTensor(mean, float32Type()),
                  referenceAverage(v, p, adaptiveWindows(p),
                                   [](int64_t, const Positions &x) {
                                     return double(x.size());
                                   }),
                  1e-6, what + " mean");
    }
  }
}

TEST_P(PoolingOps, AdaptivePools3dAndUnbatched) {
  const Ints sizes = {2, 2, 5, 4, 6};
  const std::vector<double> v = patternValues(numelOf(sizes), 13);
  const Ints out = {3, 2, 4};
  for (const Dtype &type : {float32Type(), float64Type(), float16Type()}) {
    for (const Layout &layout :
         {Layout{sizes}, channelsLast(sizes), gappy(sizes)}) {
      SCOPED_TRACE(type.name);
      TensorHandle self = tensor(v, layout, type);
      Problem p{sizes, 3, out};
      TensorHandle values, indices, mean;
      ASSERT_SHIM_OK(adaptiveMaxFn(3)(self.get(), out.data(), 3, values.out(),
                                      indices.out()));
      ASSERT_SHIM_OK(adaptiveAvgFn(3)(self.get(), out.data(), 3, mean.out()));
      // torch's 3-d adaptive metas return contiguous results.
      expectLayout(values, p.outSizes(), false, type.code, "3d values");
      expectLayout(indices, p.outSizes(), false, aoti_torch_dtype_int64(),
                   "3d indices");
      expectLayout(mean, p.outSizes(), false, type.code, "3d mean");
      const MaxResult ref = referenceMax(v, p, adaptiveWindows(p));
      expectClose(readTensor(values, type), ref.values, 0, "3d max");
      expectClose(readTensor(indices, int64Type()),
                  std::vector<double>(ref.indices.begin(), ref.indices.end()),
                  0, "3d indices");
      expectClose(readTensor(mean, type),
                  referenceAverage(v, p, adaptiveWindows(p),
                                   [](int64_t, const Positions &x) {
                                     return double(x.size());
                                   }),
                  tolerance(type), "3d mean");
    }
  }
  // Unbatched 2-d with a NaN: contiguous, the NaN wins its windows.
  std::vector<double> u = patternValues(2 * 4 * 4, 14);
  u[5] = std::nan("");
  TensorHandle self = tensor(u, {{2, 4, 4}, {1, 8, 2}}, bfloat16Type());
  const Ints out2 = {3, 3};
  TensorHandle values, indices;
  ASSERT_SHIM_OK(adaptiveMaxFn(2)(self.get(), out2.data(), 2, values.out(),
                                  indices.out()));
  Problem p{{2, 4, 4}, 2, out2};
  expectLayout(values, {2, 3, 3}, false, aoti_torch_dtype_bfloat16(), "2d");
  const MaxResult ref = referenceMax(u, p, adaptiveWindows(p));
  expectClose(readTensor(values, bfloat16Type()), ref.values, 0, "NaN");
  expectClose(readTensor(indices, int64Type()),
              std::vector<double>(ref.indices.begin(), ref.indices.end()), 0,
              "NaN indices");
  // An output size of 0 gives an empty result.
  const Ints none = {0, 3};
  TensorHandle emptyValues, emptyIndices;
  ASSERT_SHIM_OK(adaptiveMaxFn(2)(self.get(), none.data(), 2,
                                  emptyValues.out(), emptyIndices.out()));
  EXPECT_EQ(sizesOf(emptyValues), (Ints{2, 0, 3}));
}

TEST_P(PoolingOps, AdaptivePoolRefusals) {
  TensorHandle self = tensor(patternValues(2 * 3 * 4 * 4, 1), {{2, 3, 4, 4}},
                             float32Type());
  const Ints two = {2, 2}, three = {2, 2, 2}, negative = {-1, 2};
  AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
  AtenTensorHandle v = sentinel, i = sentinel;
  EXPECT_SHIM_FAILS(adaptiveMaxFn(2)(self.get(), three.data(), 3, &v, &i),
                    "output_size.size() must be 2");
  EXPECT_SHIM_FAILS(adaptiveAvgFn(2)(self.get(), three.data(), 3, &v),
                    "adaptive_avg_pool2d: output_size must be 2");
  EXPECT_SHIM_FAILS(adaptiveMaxFn(2)(self.get(), negative.data(), 2, &v, &i),
                    "has a negative size");
  TensorHandle flat = tensor(patternValues(3 * 4 * 4, 1), {{3, 4, 4}},
                             float32Type());
  EXPECT_SHIM_FAILS(adaptiveMaxFn(3)(flat.get(), three.data(), 3, &v, &i),
                    "adaptive_max_pool3d(): Expected 4D or 5D tensor");
  TensorHandle five = tensor(patternValues(2 * 3 * 4 * 4, 1), {{1, 2, 3, 4, 4}},
                             float32Type());
  EXPECT_SHIM_FAILS(adaptiveAvgFn(2)(five.get(), two.data(), 2, &v),
                    "Expected 3D or 4D tensor, but got [1, 2, 3, 4, 4]");
  TensorHandle emptySpatial = tensor({}, {{2, 3, 0, 4}}, float32Type());
  EXPECT_SHIM_FAILS(adaptiveMaxFn(2)(emptySpatial.get(), two.data(), 2, &v, &i),
                    "with dimension 2 being empty");
  EXPECT_SHIM_FAILS(adaptiveAvgFn(2)(emptySpatial.get(), two.data(), 2, &v),
                    "with dimension 2 being empty");
  TensorHandle ints = tensor(patternValues(2 * 3 * 4 * 4, 1), {{2, 3, 4, 4}},
                             int32Type());
  EXPECT_SHIM_FAILS(adaptiveMaxFn(2)(ints.get(), two.data(), 2, &v, &i),
                    "'self' has dtype int32");
  EXPECT_SHIM_FAILS(adaptiveAvgFn(2)(ints.get(), two.data(), 2, &v),
                    "'self' has dtype int32");
  EXPECT_EQ(v, sentinel);
  EXPECT_EQ(i, sentinel);
}

// --- max_unpool2d / max_unpool3d --------------------------------------------

class PoolingUnpool : public PoolingOps {
protected:
  AOTITorchError unpool2d(const TensorHandle &self, const TensorHandle &indices,
                          const Ints &outputSize, TensorHandle &out) {
    auto fn =
        onCuda() ? aoti_torch_cuda_max_unpool2d : aoti_torch_cpu_max_unpool2d;
    return fn(self.get(), indices.get(), outputSize.data(),
              static_cast<int64_t>(outputSize.size()), out.out());
  }
  AOTITorchError unpool3d(const TensorHandle &self, const TensorHandle &indices,
                          const Ints &outputSize, const Ints &stride,
                          const Ints &padding, TensorHandle &out) {
    auto fn =
        onCuda() ? aoti_torch_cuda_max_unpool3d : aoti_torch_cpu_max_unpool3d;
    return fn(self.get(), indices.get(), outputSize.data(),
              static_cast<int64_t>(outputSize.size()), stride.data(),
              static_cast<int64_t>(stride.size()), padding.data(),
              static_cast<int64_t>(padding.size()), out.out());
  }
  void check(int spatial, const std::vector<double> &values,
             const std::vector<double> &indices, const Layout &layout,
             const Layout &indexLayout, const Dtype &type,
             const Ints &outputSize, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle index = tensor(indices, indexLayout, int64Type());
    TensorHandle out;
    ASSERT_SHIM_OK(spatial == 2
                       ? unpool2d(self, index, outputSize, out)
                       : unpool3d(self, index, outputSize, {2, 2, 2}, {0, 0, 0},
                                  out));
    Problem p{layout.sizes, spatial, outputSize};
    // torch's decomposition gives a contiguous result, whatever self is.
    expectLayout(out, p.outSizes(), false, type.code, what);
    expectClose(readTensor(out, type),
                referenceUnpool(values, indices, p.planes(), p.outPlane()), 0,
                what);
  }
};

TEST_P(PoolingUnpool, InvertsMaxPool2d) {
  const Ints sizes = {2, 3, 6, 6};
  const std::vector<double> v = patternValues(numelOf(sizes), 15);
  for (bool cl : {false, true}) {
    TensorHandle self = tensor(v, cl ? channelsLast(sizes) : Layout{sizes},
                               float32Type());
    TensorHandle values, indices;
    ASSERT_SHIM_OK(maxPool(2, self, {{2}, {}, {0}, {1}}, values, indices));
    const std::vector<double> pooled = readTensor(values, float32Type());
    const std::vector<double> where = readTensor(indices, int64Type());
    for (const Ints &outputSize : {Ints{6, 6}, Ints{7, 7}}) {
      TensorHandle out;
      ASSERT_SHIM_OK(unpool2d(values, indices, outputSize, out));
      const Ints expectedSizes = {2, 3, outputSize[0], outputSize[1]};
      expectLayout(out, expectedSizes, false, aoti_torch_dtype_float32(),
                   cl ? "from channels-last" : "from contiguous");
      expectClose(readTensor(out, float32Type()),
                  referenceUnpool(pooled, where, 6, numelOf(outputSize)), 0,
                  "unpooled");
    }
  }
}

TEST_P(PoolingUnpool, LayoutsDtypesAndDuplicates) {
  const Ints sizes = {2, 2, 3};
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> distinct = {0, 5, 9, 2, 3, 4, 15, 14, 1, 0, 8, 7};
  for (const Dtype &type : {float32Type(), float64Type(), float16Type(),
                            bfloat16Type()}) {
    check(2, v, distinct, {sizes}, {sizes}, type, {4, 4}, type.name);
    check(2, v, distinct, transposed(sizes), gappy(sizes), type, {4, 4},
          std::string(type.name) + " strided");
  }
  check(2, patternValues(2 * 3 * 2 * 2, 1),
        {0, 3, 5, 8, 1, 2, 9, 10, 4, 6, 7, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
         10, 11},
        channelsLast({2, 3, 2, 2}), {{2, 3, 2, 2}}, float32Type(), {3, 4},
        "channels-last values, contiguous result");
  for (const Dtype &type : {int64Type(), int32Type(), uint8Type()}) {
    if (onCuda()) {
      check(2, v, distinct, {sizes}, {sizes}, type, {4, 4}, type.name);
    } else {
      TensorHandle self = tensor(v, {sizes}, type);
      TensorHandle index = tensor(distinct, {sizes}, int64Type());
      TensorHandle out;
      EXPECT_SHIM_FAILS(unpool2d(self, index, {4, 4}, out),
                        "which torch's CPU max_unpool2d kernel does not take");
    }
  }
  if (!onCuda()) // on CUDA, which duplicate wins is unordered (as in torch)
    check(2, v, {3, 3, 0, 3, 1, 1, 2, 2, 2, 0, 0, 0}, {sizes}, {sizes},
          float32Type(), {2, 2}, "duplicates: the last wins");
  TensorHandle self = tensor(v, {sizes}, float32Type());
  TensorHandle out;
  const Ints zero = {0, 4};
  TensorHandle index = tensor(distinct, {sizes}, int64Type());
  ASSERT_SHIM_OK(unpool2d(self, index, zero, out));
  EXPECT_EQ(sizesOf(out), (Ints{2, 0, 4}));
}

TEST_P(PoolingUnpool, BadIndices) {
  const Ints sizes = {1, 2, 2};
  TensorHandle self = tensor({1, 2, 3, 4}, {sizes}, float32Type());
  TensorHandle index = tensor({0, 16, 2, 3}, {sizes}, int64Type());
  TensorHandle out;
  if (onCuda()) { // skipped where torch's kernel would assert
    ASSERT_SHIM_OK(unpool2d(self, index, {4, 4}, out));
    std::vector<double> expected(16, 0.0);
    expected[0] = 1;
    expected[2] = 3;
    expected[3] = 4;
    expectClose(readTensor(out, float32Type()), expected, 0, "skipped");
  } else {
    AtenTensorHandle sentinel = reinterpret_cast<AtenTensorHandle>(0x1);
    AtenTensorHandle ret = sentinel;
    const Ints outputSize = {4, 4};
    EXPECT_SHIM_FAILS(aoti_torch_cpu_max_unpool2d(self.get(), index.get(),
                                                  outputSize.data(), 2, &ret),
                      "Found an invalid max index: 16 (output volumes are of "
                      "size 4x4)");
    EXPECT_EQ(ret, sentinel);
    TensorHandle negative = tensor({0, -1, 2, 3}, {sizes}, int64Type());
    EXPECT_SHIM_FAILS(unpool2d(self, negative, {4, 4}, out),
                      "Found an invalid max index: -1");
  }
  TensorHandle int32Index = tensor({0, 1, 2, 3}, {sizes}, int32Type());
  EXPECT_SHIM_FAILS(unpool2d(self, int32Index, {4, 4}, out),
                    "elements in indices should be type int64 but got: int32");
  TensorHandle otherShape = tensor({0, 1, 2, 3}, {{1, 4}}, int64Type());
  EXPECT_SHIM_FAILS(unpool2d(self, otherShape, {4, 4}, out),
                    "Expected shape of indices to be same as that of the "
                    "input tensor ([1, 2, 2])");
  EXPECT_SHIM_FAILS(unpool2d(self, index, {4, 4, 4}, out),
                    "exactly two elements (height, width) in output_size");
  EXPECT_SHIM_FAILS(unpool2d(self, index, {-4, 4}, out), "negative size");
  TensorHandle emptyChannel = tensor({}, {{0, 2, 2}}, float32Type());
  TensorHandle emptyIndex = tensor({}, {{0, 2, 2}}, int64Type());
  ASSERT_SHIM_OK(unpool2d(emptyChannel, emptyIndex, {4, 4}, out));
  TensorHandle zeroHeight = tensor({}, {{1, 0, 2}}, float32Type());
  TensorHandle zeroHeightIndex = tensor({}, {{1, 0, 2}}, int64Type());
  EXPECT_SHIM_FAILS(unpool2d(zeroHeight, zeroHeightIndex, {4, 4}, out),
                    "with dimension 1 being empty");
  EXPECT_SHIM_FAILS(unpool2d(self, TensorHandle(), {4, 4}, out),
                    "'indices' is null");
}

TEST_P(PoolingUnpool, ThreeDimensions) {
  const Ints sizes = {1, 2, 2, 2, 2};
  const std::vector<double> v = patternValues(16, 2);
  const std::vector<double> where = {0,  7,  9,  26, 13, 1,  2,  25,
                                     3,  4,  5,  6,  20, 21, 22, 23};
  check(3, v, where, {sizes}, {sizes}, float32Type(), {3, 3, 3}, "5-d");
  check(3, v, where, channelsLast(sizes), gappy(sizes), float64Type(),
        {3, 3, 3}, "5-d channels-last values");
  check(3, v, where, {{2, 2, 2, 2}}, {{2, 2, 2, 2}}, bfloat16Type(), {3, 3, 3},
        "unbatched");
  TensorHandle self = tensor(v, {sizes}, float32Type());
  TensorHandle index = tensor(where, {sizes}, int64Type());
  TensorHandle out;
  EXPECT_SHIM_FAILS(unpool3d(self, index, {3, 3, 3}, {2, 0, 2}, {0, 0, 0}, out),
                    "strides should be greater than zero, but got stride: "
                    "[2, 0, 2]");
  EXPECT_SHIM_FAILS(unpool3d(self, index, {3, 3, 3}, {2, 2}, {0, 0, 0}, out),
                    "exactly three elements (depth, height, width) in stride");
  EXPECT_SHIM_FAILS(unpool3d(self, index, {3, 3, 3}, {2, 2, 2}, {0}, out),
                    "exactly three elements (depth, height, width) in padding");
  EXPECT_SHIM_FAILS(unpool3d(self, index, {3, 3}, {2, 2, 2}, {0, 0, 0}, out),
                    "exactly three elements (depth, height, width) in "
                    "output_size");
  TensorHandle four = tensor(patternValues(8, 1), {{2, 2, 2}}, float32Type());
  TensorHandle fourIndex =
      tensor(patternValues(8, 1), {{2, 2, 2}}, int64Type());
  EXPECT_SHIM_FAILS(unpool3d(four, fourIndex, {3, 3, 3}, {2, 2, 2}, {0, 0, 0},
                             out),
                    "Input to max_unpooling3d should be a 4d or 5d Tensor");
  if (!onCuda()) {
    TensorHandle bad =
        tensor(std::vector<double>(16, 27), {sizes}, int64Type());
    EXPECT_SHIM_FAILS(unpool3d(self, bad, {3, 3, 3}, {2, 2, 2}, {0, 0, 0}, out),
                      "Found an invalid max index: 27 (output volumes are of "
                      "size 3x3x3)");
  }
}

// --- fractional_max_pool2d / fractional_max_pool3d ---------------------------

class PoolingFractional : public PoolingOps {
protected:
  // The device's window arithmetic: the CPU rounds to the input's dtype
  // after every operation, CUDA computes in float (double for float64).
  std::function<double(double)> rounding(const Dtype &type) const {
    if (type.code == aoti_torch_dtype_float64())
      return [](double x) { return x; };
    if (onCuda() || type.code == aoti_torch_dtype_float32())
      return [](double x) { return double(float(x)); };
    if (type.code == aoti_torch_dtype_float16())
      return
          [](double x) { return roundTrip(float16Type(), double(float(x))); };
    return [](double x) { return bfloat16Round(x); };
  }
  // Windows of `p` for samples (N, C, K) in row-major order; `sampleOf[d]`:
  // which K spatial dimension d reads.
  WindowFn windows(const Problem &p, const std::vector<double> &samples,
                   const Ints &kernel, const Ints &sampleOf,
                   const std::function<double(double)> &round) const {
    const int64_t channels = p.sizes[p.sizes.size() - p.spatial - 1];
    const int64_t k = p.spatial;
    return [=](int64_t plane, int dim, int64_t o) {
      const int64_t n = plane / channels, c = plane % channels;
      const double u = samples[(n * channels + c) * k + sampleOf[dim]];
      const int64_t start =
          fractionalStart(u, o, p.in(dim), p.out[dim], kernel[dim], round);
      Positions positions;
      for (int64_t i = start; i < start + kernel[dim]; ++i)
        positions.push_back(i);
      return positions;
    };
  }
  AOTITorchError run(int spatial, const TensorHandle &self, const Ints &kernel,
                     const Ints &out, const TensorHandle &samples,
                     TensorHandle &values, TensorHandle &indices) {
    return fractionalFn(spatial)(self.get(), kernel.data(), kernel.size(),
                                 out.data(), out.size(), samples.get(),
                                 values.out(), indices.out());
  }
  void check(int spatial, const std::vector<double> &values,
             const Layout &layout, const Dtype &type, const Ints &kernel,
             const Ints &out, const std::vector<double> &samples,
             const Ints &sampleSizes, const std::string &what) {
    SCOPED_TRACE(what);
    TensorHandle self = tensor(values, layout, type);
    TensorHandle sampleTensor = tensor(samples, {sampleSizes}, type);
    TensorHandle v, i;
    ASSERT_SHIM_OK(run(spatial, self, kernel, out, sampleTensor, v, i));
    Problem p{layout.sizes, spatial, out};
    expectLayout(v, p.outSizes(), false, type.code, what);
    expectLayout(i, p.outSizes(), false, aoti_torch_dtype_int64(), what);
    const Ints sampleOf = spatial == 2 ? Ints{1, 0} : Ints{0, 1, 2};
    const MaxResult ref = referenceMax(
        values, p, windows(p, samples, kernel, sampleOf, rounding(type)));
    expectClose(readTensor(v, type), ref.values, 0, what + " values");
    expectClose(readTensor(i, int64Type()),
                std::vector<double>(ref.indices.begin(), ref.indices.end()), 0,
                what + " indices");
  }
};

TEST_P(PoolingFractional, TwoDimensions) {
  const Ints sizes = {2, 3, 9, 8};
  const std::vector<double> v = patternValues(numelOf(sizes), 16);
  check(2, v, {sizes}, float32Type(), {2, 3}, {4, 3}, samplesFor(2 * 3 * 2),
        {2, 3, 2}, "float32");
  check(2, v, channelsLast(sizes), float64Type(), {3, 2}, {7, 7},
        samplesFor(3 * 3 * 2), {3, 3, 2}, "channels-last input, more samples");
  check(2, v, gappy(sizes), bfloat16Type(), {2, 2}, {8, 7},
        samplesFor(2 * 3 * 2), {2, 3, 2}, "windows ending at the edge");
  check(2, patternValues(3 * 7 * 7, 1), {{3, 7, 7}}, float16Type(), {2, 2},
        {3, 5}, samplesFor(3 * 2), {1, 3, 2}, "unbatched");
}

TEST_P(PoolingFractional, HalfWindowsFollowTheDevicesArithmetic) {
  // H: in 9, out 7, kernel 2, u = 9/64; W: in 11, out 8, kernel 2, u = 7/64:
  // rounding to float16 after every operation moves a window of each.
  const std::vector<double> samples = {7.0 / 64, 9.0 / 64}; // W, H
  const auto half = [](double x) { return roundTrip(float16Type(), x); };
  const auto single = [](double x) { return double(float(x)); };
  EXPECT_NE(fractionalStart(9.0 / 64, 5, 9, 7, 2, half),
            fractionalStart(9.0 / 64, 5, 9, 7, 2, single));
  EXPECT_NE(fractionalStart(7.0 / 64, 3, 11, 8, 2, half),
            fractionalStart(7.0 / 64, 3, 11, 8, 2, single));
  std::vector<double> v(9 * 11);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>(i % 37) / 8.0; // distinct per window
  for (const Dtype &type : {float16Type(), bfloat16Type()})
    check(2, v, {{1, 1, 9, 11}}, type, {2, 2}, {7, 8}, samples, {1, 1, 2},
          type.name);
  // The indices torch 2.11 returns for this call, read on an H100 machine
  // (CUDA gives the same for both dtypes).
  const std::vector<double> cpuHalf = {
      12, 13, 14, 16, 17, 18, 19, 21, 23, 24, 25, 27, 28, 29,
      30, 32, 34, 35, 36, 27, 28, 29, 30, 32, 34, 35, 36, 49,
      50, 51, 52, 54, 56, 57, 58, 60, 61, 62, 63, 65, 67, 68,
      69, 71, 72, 73, 73, 87, 89, 90, 91, 93, 94, 95, 96, 98};
  const std::vector<double> cuda = {
      12, 13, 14, 15, 17, 18, 19, 21, 23, 24, 25, 26, 28, 29,
      30, 32, 34, 35, 36, 36, 28, 29, 30, 32, 34, 35, 36, 36,
      50, 51, 52, 54, 56, 57, 58, 59, 61, 62, 63, 65, 67, 68,
      69, 70, 72, 73, 73, 65, 89, 90, 91, 92, 94, 95, 96, 98};
  TensorHandle self = tensor(v, {{1, 1, 9, 11}}, float16Type());
  TensorHandle sampleTensor = tensor(samples, {{1, 1, 2}}, float16Type());
  TensorHandle values, indices;
  ASSERT_SHIM_OK(
      run(2, self, {2, 2}, {7, 8}, sampleTensor, values, indices));
  expectClose(readTensor(indices, int64Type()), onCuda() ? cuda : cpuHalf, 0,
              "torch's float16 indices");
}

TEST_P(PoolingFractional, ThreeDimensions) {
  const Ints sizes = {2, 2, 5, 6, 7};
  const std::vector<double> v = patternValues(numelOf(sizes), 17);
  check(3, v, {sizes}, float32Type(), {2, 2, 3}, {3, 4, 3},
        samplesFor(2 * 2 * 3), {2, 2, 3}, "5-d");
  check(3, v, channelsLast(sizes), float16Type(), {1, 2, 2}, {4, 4, 5},
        samplesFor(2 * 2 * 3), {2, 2, 3}, "5-d channels-last input");
  check(3, patternValues(2 * 5 * 6 * 7, 3), {{2, 5, 6, 7}}, float64Type(),
        {2, 2, 2}, {2, 2, 2}, samplesFor(2 * 3), {1, 2, 3}, "unbatched");
}

TEST_P(PoolingFractional, Refusals) {
  const Ints sizes = {2, 3, 6, 6};
  TensorHandle self = tensor(patternValues(numelOf(sizes), 1), {sizes},
                             float32Type());
  TensorHandle samples = tensor(samplesFor(12), {{2, 3, 2}}, float32Type());
  TensorHandle v, i;
  TensorHandle doubles = tensor(samplesFor(12), {{2, 3, 2}}, float64Type());
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, 3}, doubles, v, i),
                    "Expect _random_samples to have the same dtype as input");
  TensorHandle flat = tensor(samplesFor(12), {{6, 2}}, float32Type());
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, 3}, flat, v, i),
                    "Expect _random_samples to have 3 dimensions");
  TensorHandle oneBatch = tensor(samplesFor(6), {{1, 3, 2}}, float32Type());
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, 3}, oneBatch, v, i),
                    "no less then input batch size");
  TensorHandle twoChannels = tensor(samplesFor(8), {{2, 2, 2}}, float32Type());
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, 3}, twoChannels, v, i),
                    "equals to input channel size");
  TensorHandle three = tensor(samplesFor(18), {{2, 3, 3}}, float32Type());
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, 3}, three, v, i),
                    "Expect _random_samples.size(2) equals to 2; got 3.");
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {6, 3}, samples, v, i),
                    "pool height 2 too large relative to input height 6");
  EXPECT_SHIM_FAILS(run(2, self, {2}, {3, 3}, samples, v, i),
                    "kernel_size must either be a single int or a tuple of 2");
  EXPECT_SHIM_FAILS(run(2, self, {2, 2}, {3, -3}, samples, v, i),
                    "negative size");
  // 3-d: the windows must end before the input's edge (ATen's strict <).
  TensorHandle five = tensor(patternValues(2 * 3 * 6 * 6 * 6, 1),
                             {{2, 3, 6, 6, 6}}, float32Type());
  TensorHandle samples3 = tensor(samplesFor(18), {{2, 3, 3}}, float32Type());
  EXPECT_SHIM_FAILS(run(3, five, {2, 2, 2}, {5, 3, 3}, samples3, v, i),
                    "pool time 2 too large relative to input time 6");
  ASSERT_SHIM_OK(run(3, five, {2, 2, 2}, {4, 3, 3}, samples3, v, i));
  TensorHandle ints = tensor(patternValues(numelOf(sizes), 1), {sizes},
                             int32Type());
  TensorHandle intSamples = tensor(std::vector<double>(12, 0), {{2, 3, 2}},
                                   int32Type());
  EXPECT_SHIM_FAILS(run(2, ints, {2, 2}, {3, 3}, intSamples, v, i),
                    "'self' has dtype int32");
}

INSTANTIATE_TEST_SUITE_P(, PoolingOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, PoolingUnpool, testing::ValuesIn(devicesUnderTest()),
                         deviceName);
INSTANTIATE_TEST_SUITE_P(, PoolingFractional,
                         testing::ValuesIn(devicesUnderTest()), deviceName);

TEST(PoolingDevices, TheCudaEntryPointsRefuseACpuTensor) {
  TensorHandle self = makeTensor(patternValues(16, 1), {{1, 1, 4, 4}},
                                 float32Type(), aoti_torch_device_type_cpu());
  const int64_t k[] = {2, 2};
  AtenTensorHandle v = nullptr, i = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cuda_max_pool2d_with_indices(
                        self.get(), k, 1, nullptr, 0, k, 0, k, 0, 0, &v, &i),
                    "'self' is on cpu; this max_pool2d_with_indices needs a "
                    "CUDA tensor");
  EXPECT_SHIM_FAILS(aoti_torch_cuda__adaptive_avg_pool2d(self.get(), k, 2, &v),
                    "this _adaptive_avg_pool2d needs a CUDA tensor");
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(i, nullptr);
}

// What only a GPU can show.
class PoolingOnCuda : public PoolingOps {};
INSTANTIATE_TEST_SUITE_P(, PoolingOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PoolingOnCuda);

TEST_P(PoolingOnCuda, TheCpuEntryPointsRefuseACudaTensor) {
  TensorHandle self = tensor(patternValues(16, 1), {{1, 1, 4, 4}},
                             float32Type());
  const int64_t k[] = {2};
  AtenTensorHandle out = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cpu_avg_pool2d(self.get(), k, 1, nullptr, 0, k,
                                              1, 0, 1, nullptr, &out),
                    "'self' is on cuda:0; this avg_pool2d needs a CPU tensor");
  EXPECT_EQ(out, nullptr);
}

TEST_P(PoolingOnCuda, RunsOnTheStreamAGuardSets) {
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  checkMaxPool(2, patternValues(2 * 8 * 33 * 33, 4),
               channelsLast({2, 8, 33, 33}), float32Type(),
               {{3}, {2}, {1}, {1}}, {17, 17}, true, "on a guard's stream");
  checkAvgPool(3, patternValues(2 * 3 * 9 * 9 * 9, 5), {{2, 3, 9, 9, 9}},
               float16Type(), {{3}, {2}, {1}}, false, nullptr, {5, 5, 5}, false,
               "avg_pool3d on a guard's stream");
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

} // namespace
} // namespace aoti::test
