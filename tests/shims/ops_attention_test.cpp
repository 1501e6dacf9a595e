//===- ops_attention_test.cpp - The CPU SDPA fallback against a reference --===//
//
// aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu through its C
// entry point, against the plain double-precision reference of
// attention_test_util.h, for float32, float16 and bfloat16: causal masks
// (square and not), boolean and float masks at every broadcast rank, fully
// masked rows, an explicit scale, grouped-query heads, Lq != Lk across the
// kernel's 64-row blocks, transposed / gapped / offset operands, and the
// layout of both outputs as torch's meta function gives them. Then every
// error path, and the output-layout rules themselves (ops/attention.h).
//
//===----------------------------------------------------------------------===//
#include "attention_test_util.h"

#include "ops/attention.h"

#include <limits>

using namespace aoti::test;
using namespace aoti::test::attention;

namespace {

constexpr Dtype kFloatDtypes[] = {Dtype::Float32, Dtype::Float16,
                                  Dtype::BFloat16};

struct Outputs {
  TensorHandle out;
  TensorHandle lse;
};

AOTITorchError runCpu(Operands &ops, const Case &c, Outputs &outputs,
                      double dropout = 0.0) {
  TensorHandle q = cpuHandle(ops.query);
  TensorHandle k = cpuHandle(ops.key);
  TensorHandle v = cpuHandle(ops.value);
  TensorHandle m;
  AtenTensorHandle maskHandle = nullptr;
  if (ops.mask) {
    m = cpuHandle(*ops.mask);
    maskHandle = m.get();
  }
  double scale = c.scale.value_or(0.0);
  return aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
      q.get(), k.get(), v.get(), dropout, c.causal ? 1 : 0,
      ops.mask ? &maskHandle : nullptr, c.scale ? &scale : nullptr,
      outputs.out.out(), outputs.lse.out());
}

std::vector<double> valuesOf(const TensorHandle &t, Dtype dtype) {
  return gather(dataOf<uint8_t>(t), dtype, sizesOf(t), stridesOf(t));
}

std::string describe(const Case &c) {
  return std::string(nameOf(c.dtype)) + " B" + std::to_string(c.B) + " H" +
         std::to_string(c.H) + "/" + std::to_string(c.Hk) + " Lq" +
         std::to_string(c.Lq) + " Lk" + std::to_string(c.Lk) + " E" +
         std::to_string(c.E) + (c.causal ? " causal" : "");
}

// Runs the case and checks values and the meta layouts:
//   out = empty_like(query): query's strides when dense, else the dense
//         strides of the same dimension order (here: row-major);
//   lse = empty((B, Lq, H), float32).transpose(1, 2).
void expectMatchesReference(const Case &c) {
  SCOPED_TRACE(describe(c));
  Operands ops = makeOperands(c);
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));

  Problem problem;
  problem.query = &ops.query;
  problem.key = &ops.key;
  problem.value = &ops.value;
  problem.mask = ops.mask ? &*ops.mask : nullptr;
  problem.causal = c.causal;
  problem.scale = c.scale;
  const Reference ref = reference(problem);

  const std::vector<int64_t> outSizes = {c.B, c.H, c.Lq, c.Ev};
  EXPECT_EQ(sizesOf(outputs.out), outSizes);
  const std::vector<int64_t> expectedOutStrides =
      c.layout == Layout::Gapped
          ? rowMajorStrides(outSizes)
          : stridesFor(outSizes, c.layout);
  EXPECT_EQ(stridesOf(outputs.out), expectedOutStrides);
  EXPECT_EQ(dtypeOf(outputs.out.get()), codeOf(c.dtype));
  EXPECT_EQ(deviceTypeOf(outputs.out.get()), aoti_torch_device_type_cpu());
  EXPECT_EQ(sizesOf(outputs.lse), (std::vector<int64_t>{c.B, c.H, c.Lq}));
  EXPECT_EQ(stridesOf(outputs.lse),
            (std::vector<int64_t>{c.Lq * c.H, 1, c.H}));
  EXPECT_EQ(dtypeOf(outputs.lse.get()), aoti_torch_dtype_float32());

  expectClose(valuesOf(outputs.out, c.dtype), ref.out,
              outputTolerance(c.dtype), "out");
  expectClose(valuesOf(outputs.lse, Dtype::Float32), ref.lse, lseTolerance(),
              "logsumexp");
}

TEST(OpsAttentionCpu, PlainAttentionInEveryDtype) {
  for (Dtype dtype : kFloatDtypes) {
    Case c;
    c.dtype = dtype;
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, CausalSquareAndNonSquareAreTopLeft) {
  for (Dtype dtype : kFloatDtypes) {
    for (auto [lq, lk] : {std::pair<int64_t, int64_t>{6, 6}, {3, 7}, {7, 3}}) {
      Case c;
      c.dtype = dtype;
      c.causal = true;
      c.Lq = lq;
      c.Lk = lk;
      expectMatchesReference(c);
    }
  }
}

TEST(OpsAttentionCpu, BooleanMasksBroadcastAtEveryRank) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3, 5, 5}, // full
      {5, 5},       // [Lq, Lk]
      {2, 1, 1, 5}, // key padding mask
      {1, 3, 5, 1}, // per head and row
      {5},          // [Lk]
      {}};
  for (const auto &shape : shapes) {
    Case c;
    c.maskSizes = shape.empty() ? std::vector<int64_t>{1} : shape;
    c.maskDtype = Dtype::Bool;
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, BooleanMaskTogetherWithCausal) {
  Case c;
  c.causal = true;
  c.maskSizes = {2, 1, 5, 5};
  c.seed = 7;
  expectMatchesReference(c);
}

TEST(OpsAttentionCpu, FullyMaskedRowGivesZerosAndMinusInfinity) {
  Case c;
  c.maskSizes = {5, 5};
  Operands ops = makeOperands(c);
  for (int64_t j = 0; j < 5; ++j) // row 2 sees no key, row 3 sees key 4 only
    setValue(*ops.mask, 2 * 5 + j, 0.0);
  for (int64_t j = 0; j < 5; ++j)
    setValue(*ops.mask, 3 * 5 + j, j == 4 ? 1.0 : 0.0);
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));
  Problem p{&ops.query, &ops.key, &ops.value, &*ops.mask};
  const Reference ref = reference(p);
  const std::vector<double> out = valuesOf(outputs.out, c.dtype);
  const std::vector<double> lse = valuesOf(outputs.lse, Dtype::Float32);
  for (int64_t bh = 0; bh < c.B * c.H; ++bh) {
    EXPECT_EQ(lse[bh * 5 + 2], -std::numeric_limits<double>::infinity());
    for (int64_t d = 0; d < c.Ev; ++d)
      EXPECT_EQ(out[(bh * 5 + 2) * c.Ev + d], 0.0);
  }
  expectClose(out, ref.out, outputTolerance(c.dtype), "out");
  expectClose(lse, ref.lse, lseTolerance(), "logsumexp");
}

TEST(OpsAttentionCpu, FloatMasksAreAddedInTheirOwnDtype) {
  for (Dtype dtype : kFloatDtypes) {
    for (Dtype maskDtype : kFloatDtypes) {
      Case c;
      c.dtype = dtype;
      c.maskSizes = {1, 3, 5, 5};
      c.maskDtype = maskDtype;
      expectMatchesReference(c);
    }
  }
}

TEST(OpsAttentionCpu, FloatMaskWithMinusInfinityEntries) {
  Case c;
  c.maskSizes = {5, 5};
  c.maskDtype = Dtype::Float32;
  Operands ops = makeOperands(c);
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < 5; ++i)
    setValue(*ops.mask, i * 5 + (i + 1) % 5, -inf);
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));
  Problem p{&ops.query, &ops.key, &ops.value, &*ops.mask};
  const Reference ref = reference(p);
  expectClose(valuesOf(outputs.out, c.dtype), ref.out,
              outputTolerance(c.dtype), "out");
  expectClose(valuesOf(outputs.lse, Dtype::Float32), ref.lse, lseTolerance(),
              "logsumexp");
}

TEST(OpsAttentionCpu, ExplicitScale) {
  for (double scale : {0.3, 1.0, 2.5}) {
    Case c;
    c.scale = scale;
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, GroupedQueryHeadsShareKeyValueHeads) {
  for (Dtype dtype : kFloatDtypes) {
    Case c;
    c.dtype = dtype;
    c.H = 6;
    c.Hk = 2;
    c.causal = true;
    c.maskSizes = {2, 6, 5, 5};
    expectMatchesReference(c);
    c.Hk = 1; // multi-query
    c.maskSizes = {};
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, DifferentQueryAndKeyLengthsAcrossRowBlocks) {
  for (auto [lq, lk] : {std::pair<int64_t, int64_t>{3, 9}, {70, 5},
                        {130, 67}, {1, 33}}) {
    Case c;
    c.B = 1;
    c.H = 2;
    c.Hk = 2;
    c.Lq = lq;
    c.Lk = lk;
    c.E = 40;
    c.Ev = 40;
    expectMatchesReference(c);
    c.causal = true;
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, TransposedAndOffsetOperandsAreReadInPlace) {
  for (Dtype dtype : kFloatDtypes) {
    Case c;
    c.dtype = dtype;
    c.layout = Layout::Transposed; // out keeps query's (dense) strides
    c.offset = 5;
    c.maskSizes = {2, 1, 5, 5};
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, GappedOperandsAndAContiguousOutput) {
  for (Dtype dtype : kFloatDtypes) {
    Case c;
    c.dtype = dtype;
    c.layout = Layout::Gapped; // not dense: out gets row-major strides
    c.offset = 11;
    c.causal = true;
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, BroadcastMaskWithZeroStridesAndOffset) {
  // A mask whose broadcast dimensions already have stride 0 (an expand()
  // view), read from an offset.
  Case c;
  Values gen(3);
  Operands ops = makeOperands(c);
  ops.mask = makeOperand({2, 3, 5, 5}, {5, 0, 1, 0}, 4, Dtype::Bool, gen);
  // The logical values must agree with the zero strides: rebuild them.
  for (int64_t n = 0; n < 2 * 3 * 5 * 5; ++n) {
    const int64_t off = ops.mask->elementOffset(n);
    ops.mask->values[n] = ops.mask->storage[off] ? 1.0 : 0.0;
  }
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));
  Problem p{&ops.query, &ops.key, &ops.value, &*ops.mask};
  const Reference ref = reference(p);
  expectClose(valuesOf(outputs.out, c.dtype), ref.out,
              outputTolerance(c.dtype), "out");
}

TEST(OpsAttentionCpu, ValuesWithALargerHeadDimThanTheRowBlock) {
  Case c;
  c.B = 1;
  c.H = 2;
  c.Hk = 2;
  c.Lq = 65;
  c.Lk = 65;
  c.E = 96;
  c.Ev = 96;
  c.causal = true;
  expectMatchesReference(c);
}

TEST(OpsAttentionCpu, LargeCallsAreSharedOutToThreads) {
  // 2 x 4 x 128 x 128 x (64 + 64) = 16M multiply-adds: above the 4M at
  // which the (batch, kv head) items go to one thread per core.
  for (Dtype dtype : {Dtype::Float32, Dtype::BFloat16}) {
    Case c;
    c.dtype = dtype;
    c.B = 2;
    c.H = 4;
    c.Hk = 2;
    c.Lq = 128;
    c.Lk = 128;
    c.E = 64;
    c.Ev = 64;
    c.layout = Layout::Transposed;
    c.causal = true;
    c.maskSizes = {2, 1, 1, 128};
    expectMatchesReference(c);
  }
}

TEST(OpsAttentionCpu, NoKeysGivesZerosAndMinusInfinity) {
  Case c;
  c.Lk = 0;
  Operands ops = makeOperands(c);
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));
  for (double x : valuesOf(outputs.out, c.dtype))
    EXPECT_EQ(x, 0.0);
  for (double x : valuesOf(outputs.lse, Dtype::Float32))
    EXPECT_EQ(x, -std::numeric_limits<double>::infinity());
}

TEST(OpsAttentionCpu, NoQueriesGivesEmptyOutputs) {
  Case c;
  c.Lq = 0;
  Operands ops = makeOperands(c);
  Outputs outputs;
  ASSERT_SHIM_OK(runCpu(ops, c, outputs));
  EXPECT_EQ(sizesOf(outputs.out), (std::vector<int64_t>{2, 3, 0, 8}));
  EXPECT_EQ(sizesOf(outputs.lse), (std::vector<int64_t>{2, 3, 0}));
}

TEST(OpsAttentionCpu, NoneMaskAndSkippedOutputs) {
  // attn_mask pointing at a null handle is None, as is a null pointer; a
  // null output pointer skips that output.
  Case c;
  Operands ops = makeOperands(c);
  TensorHandle q = cpuHandle(ops.query);
  TensorHandle k = cpuHandle(ops.key);
  TensorHandle v = cpuHandle(ops.value);
  AtenTensorHandle none = nullptr;
  TensorHandle out;
  ASSERT_SHIM_OK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
      q.get(), k.get(), v.get(), 0.0, 0, &none, nullptr, out.out(), nullptr));
  Problem p{&ops.query, &ops.key, &ops.value};
  expectClose(valuesOf(out, c.dtype), reference(p).out,
              outputTolerance(c.dtype), "out");
}

// --- Errors ------------------------------------------------------------------

class OpsAttentionCpuErrors : public testing::Test {
protected:
  // Runs the CPU op on a case with the given operand overrides and expects
  // a failure mentioning `text`, with the outputs untouched.
  void expectFails(Operands &ops, const Case &c, const std::string &text,
                   double dropout = 0.0) {
    Outputs outputs;
    aoti_shims_clear_last_error();
    EXPECT_NE(runCpu(ops, c, outputs, dropout), AOTI_TORCH_SUCCESS);
    EXPECT_NE(std::string(aoti_shims_last_error()).find(text),
              std::string::npos)
        << "last error: " << aoti_shims_last_error();
    EXPECT_EQ(outputs.out.get(), nullptr);
    EXPECT_EQ(outputs.lse.get(), nullptr);
  }
};

TEST_F(OpsAttentionCpuErrors, DropoutIsRefusedWithTheExportFix) {
  Case c;
  Operands ops = makeOperands(c);
  expectFails(ops, c, "dropout_p is 0.1", 0.1);
  expectFails(ops, c, "model.eval()", 0.1);
}

TEST_F(OpsAttentionCpuErrors, NullHandles) {
  Case c;
  Operands ops = makeOperands(c);
  TensorHandle q = cpuHandle(ops.query);
  TensorHandle k = cpuHandle(ops.key);
  TensorHandle v = cpuHandle(ops.value);
  AtenTensorHandle out = nullptr, lse = nullptr;
  EXPECT_SHIM_FAILS(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
                        nullptr, k.get(), v.get(), 0.0, 0, nullptr, nullptr,
                        &out, &lse),
                    "tensor handle 'query' is null");
  EXPECT_SHIM_FAILS(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
                        q.get(), nullptr, v.get(), 0.0, 0, nullptr, nullptr,
                        &out, &lse),
                    "tensor handle 'key' is null");
  EXPECT_SHIM_FAILS(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
                        q.get(), k.get(), nullptr, 0.0, 0, nullptr, nullptr,
                        &out, &lse),
                    "tensor handle 'value' is null");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(lse, nullptr);
}

TEST_F(OpsAttentionCpuErrors, MismatchedShapes) {
  Values gen(9);
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.query = makeOperand({2, 3, 5}, rowMajorStrides({2, 3, 5}), 0,
                            Dtype::Float32, gen);
    expectFails(ops, c, "'query' is 3-d");
  }
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.key = makeOperand({2, 3, 5, 4}, Layout::Contiguous, 0, Dtype::Float32,
                          gen);
    expectFails(ops, c, "query has head dim 8 but key has 4");
  }
  {
    Case c;
    c.Hk = 2;
    Operands ops = makeOperands(c);
    expectFails(ops, c, "query has 3 heads, which is not a multiple");
  }
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.value = makeOperand({1, 3, 5, 8}, Layout::Contiguous, 0,
                            Dtype::Float32, gen);
    expectFails(ops, c, "batch sizes differ");
  }
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.value = makeOperand({2, 3, 6, 8}, Layout::Contiguous, 0,
                            Dtype::Float32, gen);
    expectFails(ops, c, "key has sequence length 5 but value has 6");
  }
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.value = makeOperand({2, 1, 5, 8}, Layout::Contiguous, 0,
                            Dtype::Float32, gen);
    expectFails(ops, c, "key has 3 heads but value has 1");
  }
  {
    Case c;
    c.Ev = 4;
    Operands ops = makeOperands(c);
    expectFails(ops, c, "returns empty_like(query)");
  }
}

TEST_F(OpsAttentionCpuErrors, Dtypes) {
  Values gen(10);
  {
    Case c;
    Operands ops = makeOperands(c);
    ops.key = makeOperand({2, 3, 5, 8}, Layout::Contiguous, 0,
                          Dtype::BFloat16, gen);
    expectFails(ops, c, "query, key and value have dtypes float32, "
                        "bfloat16, float32");
  }
  {
    // float64 query/key/value: torch's CPU kernel takes them, these shims
    // do not (its logsumexp would be float64, unlike meta's float32).
    Case c;
    Operands ops = makeOperands(c);
    std::vector<double> storage(2 * 3 * 5 * 8, 0.5);
    const int64_t sizes[] = {2, 3, 5, 8};
    TensorHandle q, k, v;
    for (TensorHandle *t : {&q, &k, &v})
      ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
          storage.data(), 4, sizes, nullptr, 0, aoti_torch_dtype_float64(),
          aoti_torch_device_type_cpu(), 0, t->out()));
    AtenTensorHandle out = nullptr, lse = nullptr;
    EXPECT_SHIM_FAILS(
        aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
            q.get(), k.get(), v.get(), 0.0, 0, nullptr, nullptr, &out, &lse),
        "query has dtype float64; supported: float32, float16, bfloat16");
  }
  {
    Case c;
    c.maskSizes = {5, 5};
    Operands ops = makeOperands(c);
    std::vector<int32_t> maskStorage(25, 1);
    const int64_t sizes[] = {5, 5};
    TensorHandle q = cpuHandle(ops.query), k = cpuHandle(ops.key),
                 v = cpuHandle(ops.value), m;
    ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
        maskStorage.data(), 2, sizes, nullptr, 0, aoti_torch_dtype_int32(),
        aoti_torch_device_type_cpu(), 0, m.out()));
    AtenTensorHandle mask = m.get(), out = nullptr, lse = nullptr;
    EXPECT_SHIM_FAILS(
        aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
            q.get(), k.get(), v.get(), 0.0, 0, &mask, nullptr, &out, &lse),
        "'attn_mask' has dtype int32");
  }
}

TEST_F(OpsAttentionCpuErrors, MasksThatDoNotBroadcast) {
  {
    Case c;
    c.maskSizes = {6, 5};
    Operands ops = makeOperands(c);
    expectFails(ops, c, "'attn_mask' has size 6 in dimension 0, which does "
                        "not broadcast to 5");
  }
  {
    Case c;
    c.maskSizes = {1, 2, 3, 5, 5};
    Operands ops = makeOperands(c);
    expectFails(ops, c, "'attn_mask' is 5-d");
  }
}

TEST_F(OpsAttentionCpuErrors, CudaOpsRefuseCpuTensors) {
  Case c;
  Operands ops = makeOperands(c);
  TensorHandle q = cpuHandle(ops.query), k = cpuHandle(ops.key),
               v = cpuHandle(ops.value);
  AtenTensorHandle r[9] = {};
  int64_t maxQ = -1, maxK = -1;
  EXPECT_SHIM_FAILS(aoti_torch_cuda__scaled_dot_product_efficient_attention(
                        q.get(), k.get(), v.get(), nullptr, 1, 0.0, 0,
                        nullptr, &r[0], &r[1], &r[2], &r[3]),
                    "'query' is on cpu; _scaled_dot_product_efficient_"
                    "attention takes CUDA tensors");
  EXPECT_SHIM_FAILS(aoti_torch_cuda__scaled_dot_product_flash_attention(
                        q.get(), k.get(), v.get(), 0.0, 0, 0, nullptr, &r[0],
                        &r[1], &r[2], &r[3], &maxQ, &maxK, &r[6], &r[7],
                        &r[8]),
                    "_scaled_dot_product_flash_attention takes CUDA tensors");
  EXPECT_SHIM_FAILS(aoti_torch_cuda__scaled_dot_product_cudnn_attention(
                        q.get(), k.get(), v.get(), nullptr, 1, 0.0, 0, 0,
                        nullptr, &r[0], &r[1], &r[2], &r[3], &maxQ, &maxK,
                        &r[6], &r[7], &r[8]),
                    "_scaled_dot_product_cudnn_attention takes CUDA tensors");
  // Dropout is checked before devices: the message names the fix.
  EXPECT_SHIM_FAILS(aoti_torch_cuda__scaled_dot_product_efficient_attention(
                        q.get(), k.get(), v.get(), nullptr, 1, 0.5, 0,
                        nullptr, &r[0], &r[1], &r[2], &r[3]),
                    "model.eval()");
  for (AtenTensorHandle h : r)
    EXPECT_EQ(h, nullptr);
  EXPECT_EQ(maxQ, -1);
}

// --- Output layout rules ----------------------------------------------------

TEST(OpsAttentionLayout, EmptyLikeKeepsDenseStrides) {
  using aoti::shims::ops::emptyLikeStrides;
  const std::vector<int64_t> sizes = {2, 3, 5, 8};
  // Contiguous, a [B,L,H,E] buffer transposed, and a permutation.
  EXPECT_EQ(emptyLikeStrides(sizes, std::vector<int64_t>{120, 40, 8, 1}),
            (std::vector<int64_t>{120, 40, 8, 1}));
  EXPECT_EQ(emptyLikeStrides(sizes, std::vector<int64_t>{120, 8, 24, 1}),
            (std::vector<int64_t>{120, 8, 24, 1}));
  EXPECT_EQ(emptyLikeStrides(sizes, std::vector<int64_t>{1, 2, 6, 30}),
            (std::vector<int64_t>{1, 2, 6, 30}));
}

TEST(OpsAttentionLayout, EmptyLikeMakesNonDenseLayoutsDenseInStrideOrder) {
  using aoti::shims::ops::emptyLikeStrides;
  // Gapped row-major -> row-major.
  EXPECT_EQ(emptyLikeStrides(std::vector<int64_t>{2, 3, 5, 8},
                             std::vector<int64_t>{240, 80, 16, 2}),
            (std::vector<int64_t>{120, 40, 8, 1}));
  // A slice of the last dim of a transposed [B,L,H,2E] buffer.
  EXPECT_EQ(emptyLikeStrides(std::vector<int64_t>{2, 3, 5, 8},
                             std::vector<int64_t>{240, 16, 48, 1}),
            (std::vector<int64_t>{120, 8, 24, 1}));
  // ATen's infer_dense_strides example: zero strides never move.
  EXPECT_EQ(emptyLikeStrides(std::vector<int64_t>{6, 5, 4, 3, 2},
                             std::vector<int64_t>{6, 0, 120, 0, 1}),
            (std::vector<int64_t>{6, 36, 180, 2, 1}));
}

TEST(OpsAttentionLayout, CudnnOutputFollowsQueryStrideOrder) {
  using aoti::shims::ops::matchingLayoutStrides;
  // Same shape as query: empty_like.
  EXPECT_EQ(matchingLayoutStrides(std::vector<int64_t>{2, 3, 5, 8},
                                  std::vector<int64_t>{120, 8, 24, 1},
                                  std::vector<int64_t>{2, 3, 5, 8}),
            (std::vector<int64_t>{120, 8, 24, 1}));
  // Ev = 4 from a transposed query: [B, Lq, H, Ev] permuted back.
  EXPECT_EQ(matchingLayoutStrides(std::vector<int64_t>{2, 3, 5, 8},
                                  std::vector<int64_t>{120, 8, 24, 1},
                                  std::vector<int64_t>{2, 3, 5, 4}),
            (std::vector<int64_t>{60, 4, 12, 1}));
  // Ev = 4 from a contiguous query: contiguous.
  EXPECT_EQ(matchingLayoutStrides(std::vector<int64_t>{2, 3, 5, 8},
                                  std::vector<int64_t>{120, 40, 8, 1},
                                  std::vector<int64_t>{2, 3, 5, 4}),
            (std::vector<int64_t>{60, 20, 4, 1}));
  // Equal strides keep dimension order (Python's stable sort): H = 1.
  EXPECT_EQ(matchingLayoutStrides(std::vector<int64_t>{2, 1, 5, 8},
                                  std::vector<int64_t>{40, 8, 8, 1},
                                  std::vector<int64_t>{2, 1, 5, 4}),
            (std::vector<int64_t>{20, 20, 4, 1}));
}

} // namespace
