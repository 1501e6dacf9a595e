//===- ops/embedding_test.cpp - _embedding_bag and _forward_only ----------===//
//
// Every case runs on both devices (ops/devices.h). The reference is
// computed here in double, bag by bag, from the indices and offsets the
// test made: the sum (times per-sample weights), mean or max of the rows
// of the bag's non-padding indices. The weights are small integers and
// halves, so sums are exact in every dtype; means of the 16-bit types are
// compared to within one rounding of the dtype (torch's CPU kernel rounds
// the sum before dividing, its CUDA kernel does not). The three auxiliary
// results are checked for the sizes, dtypes, strides and values torch's
// meta function and kernels give on the device under test (ops/embedding.cpp
// lists them): they differ between CPU and CUDA.
//
//===----------------------------------------------------------------------===//
#include "ops/devices.h"
#include "torch_fallbacks.h" // the entry points shim.h does not declare

namespace aoti::test {
namespace {

int32_t dtypeCode(const TensorHandle &t) {
  int32_t code = -1;
  EXPECT_SHIM_OK(aoti_torch_get_dtype(t.get(), &code));
  return code;
}

// `value` rounded to nearest-even in `t` (the test utilities' roundTrip
// truncates bfloat16, for values it holds exactly; a weighted sum may not
// be).
double nearest(const Dtype &t, double value) {
  if (t.code != aoti_torch_dtype_bfloat16())
    return roundTrip(t, value);
  const float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu))
    return value; // NaN
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

struct Bags {
  std::vector<double> weight; // row-major [rows, d]
  int64_t rows = 0, d = 0;
  std::vector<double> indices, offsets;
  std::vector<double> psw; // empty: none
  int64_t mode = 0;
  bool includeLastOffset = false;
  int64_t paddingIdx = -1;
};

struct Expected {
  std::vector<double> output;
  std::vector<int64_t> offset2bag, bagSize, maxIndices;
  std::vector<int64_t> offset2bagSizes, bagSizeSizes, maxIndicesSizes;
  int32_t auxCode;
};

class EmbeddingOps : public OpTest {
protected:
  using Fn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle,
                                AtenTensorHandle, int32_t, int64_t, int32_t,
                                AtenTensorHandle *, int32_t, int64_t,
                                AtenTensorHandle *, AtenTensorHandle *,
                                AtenTensorHandle *, AtenTensorHandle *);
  Fn entry(bool forwardOnly) const {
    if (onCuda())
      return forwardOnly ? aoti_torch_cuda__embedding_bag_forward_only
                         : aoti_torch_cuda__embedding_bag;
    return forwardOnly ? aoti_torch_cpu__embedding_bag_forward_only
                       : aoti_torch_cpu__embedding_bag;
  }

  // What torch gives on this device (see ops/embedding.cpp).
  Expected reference(const Bags &b, const Dtype &w, const Dtype &it,
                     const Dtype &ot, bool forwardOnly, bool weightUnitStride) const {
    Expected e;
    const int64_t n = static_cast<int64_t>(b.indices.size());
    const int64_t offsetCount = static_cast<int64_t>(b.offsets.size());
    const int64_t bags = offsetCount - (b.includeLastOffset ? 1 : 0);
    e.output.assign(static_cast<size_t>(bags * b.d), 0);
    std::vector<int64_t> counts(static_cast<size_t>(bags), 0);
    std::vector<int64_t> argmax(static_cast<size_t>(bags * b.d),
                                onCuda() ? -1 : 0);
    for (int64_t bag = 0; bag < bags; ++bag) {
      const int64_t begin = bag == 0 && onCuda() ? 0 : static_cast<int64_t>(b.offsets[bag]);
      const int64_t end = bag + 1 < bags ? static_cast<int64_t>(b.offsets[bag + 1]) : n;
      for (int64_t i = begin; i < end; ++i) {
        const int64_t row = static_cast<int64_t>(b.indices[i]);
        if (row == b.paddingIdx)
          continue;
        for (int64_t f = 0; f < b.d; ++f) {
          const double v = roundTrip(w, b.weight[row * b.d + f]);
          double &o = e.output[bag * b.d + f];
          if (b.mode == 2) {
            if (counts[bag] == 0 || v > o) {
              o = v;
              argmax[bag * b.d + f] = row;
            }
          } else {
            o += b.psw.empty() ? v : v * roundTrip(w, b.psw[i]);
          }
        }
        ++counts[bag];
      }
      if (b.mode == 1 && counts[bag] > 0)
        for (int64_t f = 0; f < b.d; ++f)
          e.output[bag * b.d + f] /= static_cast<double>(counts[bag]);
    }
    // The bag of each index: bag starts at or before it, less one (bag 0
    // starting at 0 on CUDA whatever offsets[0] says).
    std::vector<int64_t> o2b;
    for (int64_t i = 0; i < n; ++i) {
      int64_t starts = 0;
      for (int64_t j = 0; j < bags; ++j)
        if ((j == 0 && onCuda() ? 0.0 : b.offsets[j]) <= i)
          ++starts;
      o2b.push_back(starts - 1);
    }
    if (onCuda()) {
      e.auxCode = it.code;
      e.offset2bagSizes = {n};
      e.offset2bag = o2b;
      e.bagSizeSizes = {offsetCount};
      e.bagSize = counts;
      e.bagSize.resize(static_cast<size_t>(offsetCount), 0);
      if (b.mode == 2) {
        e.maxIndicesSizes = {bags, b.d};
        e.maxIndices = argmax;
      } else {
        e.maxIndicesSizes = {0};
      }
    } else {
      e.auxCode = ot.code;
      const bool fast = (w.code == aoti_torch_dtype_float32() ||
                         w.code == aoti_torch_dtype_float16()) &&
                        weightUnitStride && b.paddingIdx < 0;
      if (b.mode != 0 || !fast) {
        e.offset2bagSizes = {n};
        e.offset2bag = o2b;
      } else {
        e.offset2bagSizes = {0};
      }
      e.bagSizeSizes = {forwardOnly ? offsetCount : bags};
      e.bagSize.assign(static_cast<size_t>(e.bagSizeSizes[0]), 0);
      if (b.mode != 0)
        for (int64_t k = 0; k < bags; ++k)
          e.bagSize[k] = counts[k];
      if (b.mode == 2) {
        e.maxIndicesSizes = {bags, b.d};
        e.maxIndices = argmax;
      } else {
        e.maxIndicesSizes = {bags};
        e.maxIndices.assign(static_cast<size_t>(bags), 0);
        if (b.mode == 1)
          for (int64_t k = 0; k < bags; ++k)
            e.maxIndices[k] = counts[k];
      }
    }
    return e;
  }

  void check(const Bags &b, const Dtype &w, const Dtype &it, const Dtype &ot,
             bool forwardOnly, const std::string &what,
             const Layout *weightLayout = nullptr) {
    SCOPED_TRACE(what + " " + w.name + " indices " + it.name + " offsets " +
                 ot.name + (forwardOnly ? " forward_only" : ""));
    const Layout wl = weightLayout ? *weightLayout : Layout{{b.rows, b.d}};
    TensorHandle weight = tensor(b.weight, wl, w);
    TensorHandle indices =
        tensor(b.indices, {{static_cast<int64_t>(b.indices.size())}}, it);
    TensorHandle offsets =
        tensor(b.offsets, {{static_cast<int64_t>(b.offsets.size())}}, ot);
    TensorHandle psw;
    if (!b.psw.empty())
      psw = tensor(b.psw, {{static_cast<int64_t>(b.psw.size())}}, w);
    AtenTensorHandle pswHandle = psw.get();
    TensorHandle r0, r1, r2, r3;
    ASSERT_SHIM_OK(entry(forwardOnly)(
        weight.get(), indices.get(), offsets.get(), 0, b.mode, 0,
        b.psw.empty() ? nullptr : &pswHandle, b.includeLastOffset, b.paddingIdx,
        r0.out(), r1.out(), r2.out(), r3.out()));
    const bool unitStride = wl.realStrides()[1] == 1;
    const Expected e = reference(b, w, it, ot, forwardOnly, unitStride);
    const int64_t bags = static_cast<int64_t>(e.output.size()) / std::max<int64_t>(b.d, 1);
    EXPECT_EQ(sizesOf(r0), (std::vector<int64_t>{
                               static_cast<int64_t>(b.offsets.size()) -
                                   (b.includeLastOffset ? 1 : 0),
                               b.d}));
    EXPECT_EQ(stridesOf(r0), contiguousStridesOf(sizesOf(r0)));
    EXPECT_EQ(dtypeCode(r0), w.code);
    const std::vector<double> out = readTensor(r0, w);
    ASSERT_EQ(out.size(), e.output.size());
    const bool half = w.code == aoti_torch_dtype_float16() ||
                      w.code == aoti_torch_dtype_bfloat16();
    const double tol = !half || b.mode != 1
                           ? 0.0
                           : (w.code == aoti_torch_dtype_float16() ? 1.0 / 512 : 1.0 / 64);
    for (size_t k = 0; k < out.size(); ++k) {
      // float32/float64 means divide once, correctly rounded.
      const double want = nearest(w, e.output[k]);
      EXPECT_TRUE((std::isnan(out[k]) && std::isnan(want)) ||
                  std::fabs(out[k] - want) <= tol * std::max(1.0, std::fabs(want)))
          << "output element " << k << " is " << out[k] << ", expected " << want;
    }
    (void)bags;
    const Dtype aux = e.auxCode == aoti_torch_dtype_int32() ? int32Type() : int64Type();
    auto checkAux = [&](const TensorHandle &t, const std::vector<int64_t> &sizes,
                        const std::vector<int64_t> &values, const char *name) {
      EXPECT_EQ(sizesOf(t), sizes) << name;
      EXPECT_EQ(stridesOf(t), contiguousStridesOf(sizes)) << name;
      EXPECT_EQ(dtypeCode(t), e.auxCode) << name;
      std::vector<double> expected(values.begin(), values.end());
      if (numelOf(sizes) == static_cast<int64_t>(values.size()))
        EXPECT_EQ(readTensor(t, aux), expected) << name;
    };
    checkAux(r1, e.offset2bagSizes, e.offset2bag, "offset2bag");
    checkAux(r2, e.bagSizeSizes, e.bagSize, "bag_size");
    checkAux(r3, e.maxIndicesSizes, e.maxIndices, "max_indices");
  }
};

// 10 rows of 5 features; 12 indices in bags [0,3) [3,3) [3,7) [7,12).
Bags basicBags(int64_t mode) {
  Bags b;
  b.rows = 10;
  b.d = 5;
  for (int64_t r = 0; r < b.rows; ++r)
    for (int64_t f = 0; f < b.d; ++f)
      b.weight.push_back(static_cast<double>((r * 7 + f * 3) % 11 - 5) +
                         ((r + f) % 2 ? 0.5 : 0));
  b.indices = {1, 4, 1, 9, 0, 3, 3, 2, 8, 7, 5, 6};
  b.offsets = {0, 3, 3, 7};
  b.mode = mode;
  return b;
}

std::vector<Dtype> weightTypes() {
  return {float32Type(), float64Type(), float16Type(), bfloat16Type()};
}

TEST_P(EmbeddingOps, EveryModeDtypeAndIndexType) {
  for (int64_t mode : {0, 1, 2})
    for (const Dtype &w : weightTypes())
      for (bool forwardOnly : {false, true}) {
        const Bags b = basicBags(mode);
        check(b, w, int64Type(), int64Type(), forwardOnly, "mode " + std::to_string(mode));
        check(b, w, int32Type(), int32Type(), forwardOnly, "mode " + std::to_string(mode));
        check(b, w, int32Type(), int64Type(), forwardOnly, "mixed");
        check(b, w, int64Type(), int32Type(), forwardOnly, "mixed");
      }
}

TEST_P(EmbeddingOps, IncludeLastOffset) {
  for (int64_t mode : {0, 1, 2})
    for (bool forwardOnly : {false, true}) {
      Bags b = basicBags(mode);
      b.offsets = {0, 3, 3, 7, 12};
      b.includeLastOffset = true;
      check(b, float32Type(), int64Type(), int64Type(), forwardOnly, "last offset");
      check(b, float16Type(), int32Type(), int64Type(), forwardOnly, "last offset");
    }
}

TEST_P(EmbeddingOps, PaddingIdxIsSkipped) {
  for (int64_t mode : {0, 1, 2})
    for (bool forwardOnly : {false, true}) {
      Bags b = basicBags(mode);
      b.paddingIdx = 3; // bag 2 holds 9, 0, 3, 3
      check(b, float32Type(), int64Type(), int64Type(), forwardOnly, "padding");
      b.indices = {3, 3, 3, 9, 0, 3, 3, 2, 8, 7, 5, 6}; // bag 0 all padding
      check(b, float64Type(), int32Type(), int32Type(), forwardOnly, "all padding");
    }
}

TEST_P(EmbeddingOps, PerSampleWeights) {
  Bags b = basicBags(0);
  b.psw = {1, 2, -1, 0.5, 3, 1, 1, -2, 0.25, 1, 4, 2};
  for (const Dtype &w : weightTypes())
    for (bool forwardOnly : {false, true})
      check(b, w, int64Type(), int64Type(), forwardOnly, "per-sample weights");
  b.paddingIdx = 1;
  check(b, float32Type(), int32Type(), int32Type(), false, "weights and padding");
}

TEST_P(EmbeddingOps, StridedWeightAndInputs) {
  // A transposed weight (stride(1) != 1 takes torch's CPU general path:
  // offset2bag is computed for a sum).
  Bags b = basicBags(0);
  const Layout transposed{{10, 5}, {1, 10}};
  for (int64_t mode : {0, 1, 2}) {
    b.mode = mode;
    check(b, float32Type(), int64Type(), int64Type(), false, "transposed",
          &transposed);
  }
  // Indices and offsets with gaps are copied contiguous first.
  TensorHandle weight = tensor(b.weight, {{10, 5}}, float32Type());
  TensorHandle indices = tensor(b.indices, {{12}, {2}, 1}, int64Type());
  TensorHandle offsets = tensor(b.offsets, {{4}, {3}}, int64Type());
  TensorHandle r0, r1, r2, r3;
  ASSERT_SHIM_OK(entry(false)(weight.get(), indices.get(), offsets.get(), 0, 0,
                              0, nullptr, 0, -1, r0.out(), r1.out(), r2.out(),
                              r3.out()));
  b.mode = 0;
  const Expected e = reference(b, float32Type(), int64Type(), int64Type(), false, true);
  EXPECT_EQ(readTensor(r0, float32Type()), e.output);
}

TEST_P(EmbeddingOps, MaxTiesAndNan) {
  Bags b;
  b.rows = 4;
  b.d = 2;
  b.weight = {1, std::nan(""), 1, 0, 2, std::nan(""), 2, 5};
  b.indices = {0, 1, 2, 3, 1, 0};
  b.offsets = {0, 4};
  b.mode = 2;
  // Bag 0, feature 0: 1, 1, 2, 2: the first 2 (index 2) wins the tie.
  // Feature 1: NaN first stays NaN; bag 1, feature 1: 0 then NaN: 0 stays.
  for (const Dtype &w : weightTypes())
    check(b, w, int64Type(), int64Type(), false, "ties and NaN");
}

TEST_P(EmbeddingOps, EmptyBagsAndEmptyInputs) {
  Bags none = basicBags(0);
  none.indices = {};
  none.offsets = {0, 0, 0};
  for (int64_t mode : {0, 1, 2}) {
    none.mode = mode;
    check(none, float32Type(), int64Type(), int64Type(), false, "no indices");
    check(none, float32Type(), int64Type(), int64Type(), true, "no indices");
  }
  Bags noBags = basicBags(1);
  noBags.offsets = {};
  noBags.indices = {};
  check(noBags, float32Type(), int64Type(), int64Type(), false, "no bags");
  Bags oneOffset = basicBags(2);
  oneOffset.offsets = {0};
  oneOffset.includeLastOffset = true;
  oneOffset.indices = {};
  check(oneOffset, float32Type(), int32Type(), int32Type(), true,
        "only the last offset");
  // Trailing empty bags (offsets equal to the number of indices).
  Bags trailing = basicBags(1);
  trailing.offsets = {0, 5, 12, 12};
  check(trailing, float64Type(), int64Type(), int64Type(), false, "trailing");
}

TEST_P(EmbeddingOps, ManyBags) {
  // Past one grid of the CUDA kernel's (bag, feature) threads.
  Bags b;
  b.rows = 50;
  b.d = 40;
  for (int64_t k = 0; k < b.rows * b.d; ++k)
    b.weight.push_back(static_cast<double>(k % 17) - 8);
  for (int64_t bag = 0; bag < 5000; ++bag) {
    b.offsets.push_back(static_cast<double>(b.indices.size()));
    for (int64_t j = 0; j < bag % 4; ++j)
      b.indices.push_back(static_cast<double>((bag * 3 + j * 7) % 50));
  }
  for (int64_t mode : {0, 1, 2}) {
    b.mode = mode;
    check(b, float32Type(), int64Type(), int64Type(), false, "many bags");
  }
}

TEST_P(EmbeddingOps, Refusals) {
  // On CUDA, refusals of bad data are the synchronous checks' (by default
  // they are recorded, not refused: the *OnCuda suites test that).
  const SyncCudaChecks syncChecks;
  const Bags b = basicBags(0);
  TensorHandle weight = tensor(b.weight, {{10, 5}}, float32Type());
  TensorHandle indices = tensor(b.indices, {{12}}, int64Type());
  TensorHandle offsets = tensor(b.offsets, {{4}}, int64Type());
  AtenTensorHandle r0 = nullptr, r1 = nullptr, r2 = nullptr, r3 = nullptr;
  auto run = [&](AtenTensorHandle w, AtenTensorHandle i, AtenTensorHandle o,
                 int64_t mode, AtenTensorHandle *psw, int32_t last) {
    return entry(false)(w, i, o, 0, mode, 0, psw, last, -1, &r0, &r1, &r2, &r3);
  };
  EXPECT_SHIM_FAILS(run(nullptr, indices.get(), offsets.get(), 0, nullptr, 0),
                    "'weight' is null");
  EXPECT_SHIM_FAILS(entry(false)(weight.get(), indices.get(), offsets.get(), 0,
                                 0, 0, nullptr, 0, -1, &r0, &r1, nullptr, &r3),
                    "'ret2' is null");
  TensorHandle grid = tensor(std::vector<double>(12, 1), {{3, 4}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), grid.get(), offsets.get(), 0, nullptr, 0),
                    "2-d indices are not supported");
  TensorHandle cube = tensor(std::vector<double>(8, 1), {{2, 2, 2}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), cube.get(), offsets.get(), 0, nullptr, 0),
                    "input has to be a 1D or 2D Tensor, but got Tensor of dimension 3");
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), grid.get(), 0, nullptr, 0),
                    "offsets has to be a 1D Tensor, but got Tensor of dimension 2");
  TensorHandle flatWeight = tensor({1, 2}, {{2}}, float32Type());
  EXPECT_SHIM_FAILS(run(flatWeight.get(), indices.get(), offsets.get(), 0, nullptr, 0),
                    "weight has to be a 2D Tensor, but got Tensor of dimension 1");
  TensorHandle floatIndices = tensor(b.indices, {{12}}, float32Type());
  EXPECT_SHIM_FAILS(run(weight.get(), floatIndices.get(), offsets.get(), 0, nullptr, 0),
                    "expected indices to be long or int, got float32");
  TensorHandle shortOffsets = tensor(b.offsets, {{4}}, int16Type());
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), shortOffsets.get(), 0, nullptr, 0),
                    "expected offsets to be long or int, got int16");
  TensorHandle intWeight = tensor(b.weight, {{10, 5}}, int32Type());
  EXPECT_SHIM_FAILS(run(intWeight.get(), indices.get(), offsets.get(), 0, nullptr, 0),
                    "expected weight to be floating point type");
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), offsets.get(), 3, nullptr, 0),
                    "mode must be 0 (sum), 1 (mean) or 2 (max), got 3");
  TensorHandle noOffsets = tensor({}, {{0}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), noOffsets.get(), 0, nullptr, 1),
                    "include_last_offset: numBags should be at least 1");
  TensorHandle psw = tensor(std::vector<double>(12, 1), {{12}}, float32Type());
  AtenTensorHandle ph = psw.get();
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), offsets.get(), 1, &ph, 0),
                    "per_sample_weights only supported with mode='sum'");
  TensorHandle shortPsw = tensor({1, 2}, {{2}}, float32Type());
  AtenTensorHandle sp = shortPsw.get();
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), offsets.get(), 0, &sp, 0),
                    "expected per_sample_weights.numel() (2) to be the same as "
                    "indices.numel() (12)");
  TensorHandle doublePsw = tensor(std::vector<double>(12, 1), {{12}}, float64Type());
  AtenTensorHandle dp = doublePsw.get();
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), offsets.get(), 0, &dp, 0),
                    "expected per_sample_weights to have weight's dtype float32");
  TensorHandle gridPsw = tensor(std::vector<double>(12, 1), {{3, 4}}, float32Type());
  AtenTensorHandle gp = gridPsw.get();
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), offsets.get(), 0, &gp, 0),
                    "expected per_sample_weights to be 1D tensor, got 2D");
  TensorHandle badIndex = tensor({1, 4, 10}, {{3}}, int64Type());
  TensorHandle zero = tensor({0}, {{1}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), badIndex.get(), zero.get(), 0, nullptr, 0),
                    "Expected idx >= 0 && idx < num_embeddings but found idx to be 10");
  TensorHandle negIndex = tensor({1, -1, 2}, {{3}}, int32Type());
  TensorHandle zero32 = tensor({0}, {{1}}, int32Type());
  EXPECT_SHIM_FAILS(run(weight.get(), negIndex.get(), zero32.get(), 0, nullptr, 0),
                    "found idx to be -1");
  TensorHandle falling = tensor({0, 7, 3}, {{3}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), falling.get(), 0, nullptr, 0),
                    "offsets must not decrease");
  TensorHandle pastEnd = tensor({0, 3, 13}, {{3}}, int64Type());
  EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), pastEnd.get(), 0, nullptr, 0),
                    onCuda() ? "offsets[2] = 13 is outside [0, 12]"
                             : "offsets[-1] can not be greater than input's length 12 "
                               "but got offsets[-1] of 13");
  if (!onCuda()) {
    TensorHandle late = tensor({1, 3}, {{2}}, int64Type());
    EXPECT_SHIM_FAILS(run(weight.get(), indices.get(), late.get(), 0, nullptr, 0),
                      "offsets[0] has to be 0");
  }
  EXPECT_EQ(r0, nullptr);
  EXPECT_EQ(r3, nullptr);
}

TEST_P(EmbeddingOps, TheFirstOffsetIsReadAsTorchsKernelReadsIt) {
  // torch's CUDA kernel starts bag 0 at 0 whatever offsets[0] holds; its CPU
  // kernel refuses an offsets[0] that is not 0.
  Bags b = basicBags(0);
  b.offsets = {2, 3, 3, 7};
  if (onCuda()) {
    check(b, float32Type(), int64Type(), int64Type(), false, "offsets[0] = 2");
  } else {
    TensorHandle weight = tensor(b.weight, {{10, 5}}, float32Type());
    TensorHandle indices = tensor(b.indices, {{12}}, int64Type());
    TensorHandle offsets = tensor(b.offsets, {{4}}, int64Type());
    AtenTensorHandle r[4] = {};
    EXPECT_SHIM_FAILS(entry(false)(weight.get(), indices.get(), offsets.get(), 0,
                                   0, 0, nullptr, 0, -1, &r[0], &r[1], &r[2], &r[3]),
                      "offsets[0] has to be 0, i.e., the first sequence in the "
                      "mini-batch has to start from position 0. However, got 2");
  }
}

INSTANTIATE_TEST_SUITE_P(, EmbeddingOps, testing::ValuesIn(devicesUnderTest()),
                         deviceName);

// What only a GPU can show.
class EmbeddingOnCuda : public OpTest {};
INSTANTIATE_TEST_SUITE_P(, EmbeddingOnCuda,
                         testing::ValuesIn(cudaDevicesUnderTest()), deviceName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EmbeddingOnCuda);

TEST_P(EmbeddingOnCuda, BadIndicesAndOffsetsAreRecordedWithoutWaiting) {
  // By default a bad index is skipped (not counted) and a bad offset
  // clamped; the first problem is reported by aoti_shims_cuda_check_errors.
  (void)takeCudaCheckError();
  const Bags b = basicBags(0);
  TensorHandle weight = tensor(b.weight, {{10, 5}}, float32Type());
  TensorHandle indices = tensor({1, 12, 4}, {{3}}, int64Type());
  TensorHandle offsets = tensor({0, 2}, {{2}}, int64Type());
  AtenTensorHandle r[4] = {};
  ASSERT_SHIM_OK(aoti_torch_cuda__embedding_bag(
      weight.get(), indices.get(), offsets.get(), 0, 0, 0, nullptr, 0, -1,
      &r[0], &r[1], &r[2], &r[3]));
  TensorHandle output(r[0]), offset2bag(r[1]), bagSize(r[2]), maxIndices(r[3]);
  std::vector<double> expected;
  for (int64_t f = 0; f < 5; ++f)
    expected.push_back(b.weight[1 * 5 + f]); // bag 0: index 12 skipped
  for (int64_t f = 0; f < 5; ++f)
    expected.push_back(b.weight[4 * 5 + f]);
  EXPECT_EQ(readTensor(output, float32Type()), expected);
  EXPECT_EQ(readTensor(bagSize, int64Type()), (std::vector<double>{1, 1}));
  EXPECT_NE(takeCudaCheckError().find("embedding_bag: Expected idx >= 0 && "
                                      "idx < num_embeddings but found idx to "
                                      "be 12"),
            std::string::npos);
  TensorHandle past = tensor({0, 5}, {{2}}, int32Type());
  TensorHandle good32 = tensor({1, 2, 4}, {{3}}, int32Type());
  ASSERT_SHIM_OK(aoti_torch_cuda__embedding_bag(
      weight.get(), good32.get(), past.get(), 0, 0, 0, nullptr, 0, -1, &r[0],
      &r[1], &r[2], &r[3]));
  output = TensorHandle(r[0]);
  offset2bag = TensorHandle(r[1]);
  bagSize = TensorHandle(r[2]);
  maxIndices = TensorHandle(r[3]);
  // offsets[1] = 5 is clamped to 3: bag 0 holds every index, bag 1 none.
  EXPECT_EQ(readTensor(bagSize, int32Type()), (std::vector<double>{3, 0}));
  EXPECT_NE(takeCudaCheckError().find("offsets[1] = 5 is outside [0, 3]"),
            std::string::npos);
  EXPECT_EQ(takeCudaCheckError(), "");
}

TEST_P(EmbeddingOnCuda, CallsCaptureIntoACudaGraph) {
  // A capture fails at the first synchronisation: _embedding_bag must not
  // make one, in any mode.
  CudaStream stream;
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream.get(), 0, &guard));
  {
    const int64_t rows = 1000, d = 64, n = 4096, bags = 128;
    std::vector<double> w, idx, off;
    for (int64_t k = 0; k < rows * d; ++k)
      w.push_back(static_cast<double>((k * 7) % 19 - 9) / 4);
    for (int64_t k = 0; k < n; ++k)
      idx.push_back(static_cast<double>((k * 13) % rows));
    for (int64_t k = 0; k < bags; ++k)
      off.push_back(static_cast<double>(k * n / bags));
    off.push_back(static_cast<double>(n));
    TensorHandle weight = tensor(w, {{rows, d}}, float32Type());
    TensorHandle indices = tensor(idx, {{n}}, int64Type());
    TensorHandle offsets = tensor(off, {{bags + 1}}, int64Type());
    auto run = [&](TensorHandle (&r)[3][4]) {
      for (int64_t mode = 0; mode < 3; ++mode) {
        AtenTensorHandle h[4] = {};
        ASSERT_SHIM_OK(aoti_torch_cuda__embedding_bag(
            weight.get(), indices.get(), offsets.get(), 0, mode, 0, nullptr, 1,
            -1, &h[0], &h[1], &h[2], &h[3]));
        for (int k = 0; k < 4; ++k)
          r[mode][k] = TensorHandle(h[k]);
      }
    };
    TensorHandle eager[3][4];
    run(eager);
    CudaGraphCapture capture(stream.get());
    TensorHandle captured[3][4];
    run(captured);
    ASSERT_TRUE(capture.finish());
    ASSERT_TRUE(capture.replay());
    for (int mode = 0; mode < 3; ++mode) {
      EXPECT_EQ(readTensor(captured[mode][0], float32Type()),
                readTensor(eager[mode][0], float32Type()))
          << "output, mode " << mode;
      for (int k = 1; k < 4; ++k)
        EXPECT_EQ(readTensor(captured[mode][k], int64Type()),
                  readTensor(eager[mode][k], int64Type()))
            << "result " << k << ", mode " << mode;
    }
    EXPECT_EQ(takeCudaCheckError(), "");
  }
  {
    // A bad index inside a graph: recorded at the replay, reported after.
    TensorHandle weight = tensor({1, 2, 3, 4}, {{2, 2}}, float32Type());
    TensorHandle indices = tensor({0, 7}, {{2}}, int64Type());
    TensorHandle offsets = tensor({0}, {{1}}, int64Type());
    CudaGraphCapture capture(stream.get());
    AtenTensorHandle h[4] = {};
    ASSERT_SHIM_OK(aoti_torch_cuda__embedding_bag(
        weight.get(), indices.get(), offsets.get(), 0, 0, 0, nullptr, 0, -1,
        &h[0], &h[1], &h[2], &h[3]));
    TensorHandle r[4] = {TensorHandle(h[0]), TensorHandle(h[1]),
                         TensorHandle(h[2]), TensorHandle(h[3])};
    ASSERT_TRUE(capture.finish());
    EXPECT_EQ(takeCudaCheckError(), "") << "nothing ran yet";
    ASSERT_TRUE(capture.replay());
    EXPECT_EQ(readTensor(r[0], float32Type()), (std::vector<double>{1, 2}));
    EXPECT_NE(takeCudaCheckError().find("found idx to be 7"), std::string::npos);
  }
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
}

TEST(EmbeddingDevices, TheCudaEntryPointRefusesACpuTensor) {
  TensorHandle weight = makeTensor({1, 2}, {{1, 2}}, float32Type(), 0);
  TensorHandle indices = makeTensor({0}, {{1}}, int64Type(), 0);
  AtenTensorHandle r[4] = {};
  EXPECT_SHIM_FAILS(aoti_torch_cuda__embedding_bag(
                        weight.get(), indices.get(), indices.get(), 0, 0, 0,
                        nullptr, 0, -1, &r[0], &r[1], &r[2], &r[3]),
                    "'weight' is on cpu; this _embedding_bag needs a CUDA tensor");
}

} // namespace
} // namespace aoti::test
