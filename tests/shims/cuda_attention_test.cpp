//===- cuda_attention_test.cpp - The CUDA SDPA fallbacks on a real GPU -----===//
//
// aoti_torch_cuda__scaled_dot_product_{efficient,flash,cudnn}_attention
// against the double-precision reference of attention_test_util.h (run on
// the host), for float32, float16 and bfloat16, with the same cases as the
// CPU test: causal (flash's is bottom-right when Lq != Lk, the others'
// top-left), boolean and float biases broadcast at several ranks, fully
// masked rows, a scale, grouped-query heads, Lq != Lk across the kernel's
// key tiles, head dims up to 256, transposed / gapped / offset operands.
// Every output's sizes, strides, dtype and device are checked against a
// table written from torch 2.11's meta functions. Operands are uploaded
// byte for byte (cudaMemcpy of the test's own storage), so the kernel reads
// exactly the layout the test built. Skips without a CUDA device.
//
// Run: build/bin/shims_cuda_test --gtest_filter='*CudaAttention*'
//
//===----------------------------------------------------------------------===//
#include "attention_test_util.h"
#include "cuda_test_util.h"

#include <algorithm>
#include <cuda_runtime_api.h>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>

using namespace aoti::test;
using namespace aoti::test::attention;

namespace {

constexpr int32_t kCuda = 1;
constexpr Dtype kFloatDtypes[] = {Dtype::Float32, Dtype::Float16,
                                  Dtype::BFloat16};

// These cases check our own kernel (the path of float32 and of every problem
// cuDNN does not take) with its tolerances, so they pin it; the
// CudaCudnnAttention tests at the end check the cuDNN path with its own.
class CudaAttention : public aoti::test::CudaDeviceTest {
protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    setenv("AOTI_SHIMS_CUDA_ATTENTION", "ours", 1);
  }
  void TearDown() override {
    unsetenv("AOTI_SHIMS_CUDA_ATTENTION");
    CudaDeviceTest::TearDown();
  }
};

// CudaAttention under the kernel that AOTI_SHIMS_CUDA_ATTENTION=GetParam()
// forces for the whole test.
class CudaAttentionForcedKernel
    : public CudaAttention,
      public testing::WithParamInterface<const char *> {
protected:
  void SetUp() override {
    CudaAttention::SetUp();
    setenv("AOTI_SHIMS_CUDA_ATTENTION", GetParam(), 1);
  }
};

// The instance's name: the variable's value in camel case ("tiled-64" ->
// "Tiled64").
std::string kernelInstanceName(
    const testing::TestParamInfo<const char *> &info) {
  std::string name;
  bool upper = true;
  for (const char *ch = info.param; *ch; ++ch) {
    if (*ch == '-') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(*ch)) : *ch;
    upper = false;
  }
  return name;
}

// Sets an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

private:
  const char *name_;
};


// A CUDA tensor with the operand's sizes, strides and storage offset, whose
// storage holds the operand's bytes.
TensorHandle upload(const Operand &op) {
  const int64_t elements =
      static_cast<int64_t>(op.storage.size() / sizeOf(op.dtype));
  TensorHandle flat;
  EXPECT_SHIM_OK(aoti_torch_empty_strided(1, &elements, nullptr,
                                          codeOf(op.dtype), kCuda, 0,
                                          flat.out()));
  void *data = nullptr;
  EXPECT_SHIM_OK(aoti_torch_get_data_ptr(flat.get(), &data));
  // The allocation is stream-ordered on the current stream, which may be
  // one that the legacy stream of cudaMemcpy does not wait for.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(data, op.storage.data(), op.storage.size(),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  TensorHandle view;
  EXPECT_SHIM_OK(aoti_torch__reinterpret_tensor(
      flat.get(), static_cast<int64_t>(op.sizes.size()), op.sizes.data(),
      op.strides.data(), op.offset, view.out()));
  return view;
}

// The logical values of a CUDA (or CPU) tensor, read through its strides.
std::vector<double> download(const TensorHandle &t, Dtype dtype) {
  const std::vector<int64_t> sizes = sizesOf(t);
  const std::vector<int64_t> strides = stridesOf(t);
  const int64_t extent = extentOf(sizes, strides);
  std::vector<uint8_t> host(
      static_cast<size_t>(std::max<int64_t>(extent, 1)) * sizeOf(dtype));
  void *data = nullptr;
  EXPECT_SHIM_OK(aoti_torch_get_data_ptr(t.get(), &data));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (extent > 0)
    EXPECT_EQ(cudaMemcpy(host.data(), data,
                         static_cast<size_t>(extent) * sizeOf(dtype),
                         cudaMemcpyDefault),
              cudaSuccess);
  return gather(host.data(), dtype, sizes, strides);
}

enum class Variant { Efficient, Flash, Cudnn };
constexpr Variant kVariants[] = {Variant::Efficient, Variant::Flash,
                                 Variant::Cudnn};

const char *nameOf(Variant v) {
  return v == Variant::Efficient ? "efficient"
         : v == Variant::Flash   ? "flash"
                                 : "cudnn";
}

// A CUDA case: its default shape is larger than the CPU's (grouped-query
// heads, Lq != Lk, E = 64), and it has the two options only the CUDA entry
// points take. The mask is for efficient and cuDNN only.
struct CudaCase : Case {
  CudaCase() {
    H = 4;
    Hk = 2;
    Lq = 37;
    Lk = 53;
    E = 64;
    Ev = 64;
  }
  bool computeLse = true; // efficient and cuDNN: return logsumexp
  bool debugMask = false; // flash and cuDNN: return the debug mask
};

struct Outputs {
  TensorHandle out, lse, seed, offset, debugMask;
  AtenTensorHandle cumQ = reinterpret_cast<AtenTensorHandle>(1);
  AtenTensorHandle cumK = reinterpret_cast<AtenTensorHandle>(1);
  int64_t maxQ = -1, maxK = -1;
};

AOTITorchError run(Variant variant, const CudaCase &c, AtenTensorHandle q,
                   AtenTensorHandle k, AtenTensorHandle v,
                   AtenTensorHandle mask, Outputs &o, double dropout = 0.0) {
  double scale = c.scale.value_or(0.0);
  double *scalePtr = c.scale ? &scale : nullptr;
  AtenTensorHandle *maskPtr = mask ? &mask : nullptr;
  switch (variant) {
  case Variant::Efficient:
    return aoti_torch_cuda__scaled_dot_product_efficient_attention(
        q, k, v, maskPtr, c.computeLse, dropout, c.causal, scalePtr,
        o.out.out(), o.lse.out(), o.seed.out(), o.offset.out());
  case Variant::Flash:
    return aoti_torch_cuda__scaled_dot_product_flash_attention(
        q, k, v, dropout, c.causal, c.debugMask, scalePtr, o.out.out(),
        o.lse.out(), &o.cumQ, &o.cumK, &o.maxQ, &o.maxK, o.seed.out(),
        o.offset.out(), o.debugMask.out());
  case Variant::Cudnn: {
    AtenTensorHandle debug = reinterpret_cast<AtenTensorHandle>(1);
    AOTITorchError err = aoti_torch_cuda__scaled_dot_product_cudnn_attention(
        q, k, v, maskPtr, c.computeLse, dropout, c.causal, c.debugMask,
        scalePtr, o.out.out(), o.lse.out(), &o.cumQ, &o.cumK, &o.maxQ,
        &o.maxK, o.seed.out(), o.offset.out(), &debug);
    if (err == AOTI_TORCH_SUCCESS)
      EXPECT_EQ(debug, nullptr) << "cuDNN's debug mask is None";
    return err;
  }
  }
  return AOTI_TORCH_FAILURE;
}

std::vector<int64_t> rowMajor(std::vector<int64_t> sizes) {
  return rowMajorStrides(sizes);
}

// The attention output's strides, per variant and query layout, from meta:
//   efficient: empty(B, Lq, H, Ev).transpose(1, 2)
//   flash:     empty_like(query)  (dense: query's strides; gapped: the
//              dense strides of the same order, here row-major)
//   cuDNN:     empty_like(query) when Ev == E, else a dense [B,H,Lq,Ev]
//              ordered like query's strides
std::vector<int64_t> expectedOutStrides(Variant v, const CudaCase &c) {
  const std::vector<int64_t> sizes = {c.B, c.H, c.Lq, c.Ev};
  const std::vector<int64_t> transposed = {c.Lq * c.H * c.Ev, c.Ev,
                                           c.H * c.Ev, 1};
  if (v == Variant::Efficient)
    return transposed;
  return c.layout == Layout::Transposed ? transposed : rowMajor(sizes);
}

void checkLayouts(Variant v, const CudaCase &c, Outputs &o) {
  const std::vector<int64_t> outSizes = {c.B, c.H, c.Lq, c.Ev};
  EXPECT_EQ(sizesOf(o.out), outSizes);
  EXPECT_EQ(stridesOf(o.out), expectedOutStrides(v, c));
  EXPECT_EQ(dtypeOf(o.out.get()), codeOf(c.dtype));
  EXPECT_EQ(deviceTypeOf(o.out.get()), kCuda);
  EXPECT_EQ(dtypeOf(o.lse.get()), aoti_torch_dtype_float32());
  EXPECT_EQ(deviceTypeOf(o.lse.get()), kCuda);
  switch (v) {
  case Variant::Efficient: {
    const int64_t rows = c.computeLse ? (c.Lq + 31) / 32 * 32 : 0;
    EXPECT_EQ(sizesOf(o.lse), (std::vector<int64_t>{c.B, c.H, rows}));
    // Contiguous strides as c10 computes them: a size-0 dimension counts
    // as 1 (torch.empty(2, 4, 0).stride() == (4, 1, 1)).
    const int64_t rowStride = std::max<int64_t>(rows, 1);
    EXPECT_EQ(stridesOf(o.lse), (std::vector<int64_t>{c.H * rowStride, rowStride, 1}));
    EXPECT_EQ(sizesOf(o.seed), std::vector<int64_t>{});
    EXPECT_EQ(dtypeOf(o.seed.get()), aoti_torch_dtype_int64());
    EXPECT_EQ(sizesOf(o.offset), std::vector<int64_t>{});
    EXPECT_EQ(dtypeOf(o.offset.get()), aoti_torch_dtype_int64());
    break;
  }
  case Variant::Flash: {
    EXPECT_EQ(sizesOf(o.lse), (std::vector<int64_t>{c.B, c.H, c.Lq}));
    EXPECT_EQ(stridesOf(o.lse),
              (std::vector<int64_t>{c.H * c.Lq, c.Lq, 1}));
    EXPECT_EQ(o.cumQ, nullptr);
    EXPECT_EQ(o.cumK, nullptr);
    EXPECT_EQ(o.maxQ, c.Lq);
    EXPECT_EQ(o.maxK, c.Lk);
    EXPECT_EQ(sizesOf(o.seed), std::vector<int64_t>{2});
    EXPECT_EQ(dtypeOf(o.seed.get()), aoti_torch_dtype_uint64());
    EXPECT_EQ(sizesOf(o.offset), std::vector<int64_t>{});
    EXPECT_EQ(dtypeOf(o.offset.get()), aoti_torch_dtype_uint64());
    EXPECT_EQ(dtypeOf(o.debugMask.get()), codeOf(c.dtype));
    if (!c.debugMask) {
      EXPECT_EQ(sizesOf(o.debugMask), std::vector<int64_t>{0});
    } else {
      // blocksize_c = 128 if E > 64 else 256; ceil(Lq / blocksize_c),
      // replaced by 128 for Lk <= 128 and 256 for Lk <= 256.
      const int64_t blocksize = c.E > 64 ? 128 : 256;
      int64_t cols = (c.Lq + blocksize - 1) / blocksize;
      if (c.Lk <= 128)
        cols = 128;
      else if (c.Lk <= 256)
        cols = 256;
      EXPECT_EQ(sizesOf(o.debugMask),
                (std::vector<int64_t>{c.B, c.H, c.Lq, cols}));
    }
    break;
  }
  case Variant::Cudnn:
    EXPECT_EQ(sizesOf(o.lse), (std::vector<int64_t>{c.B, c.H, c.Lq, 1}));
    EXPECT_EQ(stridesOf(o.lse),
              (std::vector<int64_t>{c.H * c.Lq, c.Lq, 1, 1}));
    EXPECT_EQ(o.cumQ, nullptr);
    EXPECT_EQ(o.cumK, nullptr);
    EXPECT_EQ(o.maxQ, c.Lq);
    EXPECT_EQ(o.maxK, c.Lk);
    EXPECT_EQ(sizesOf(o.seed), std::vector<int64_t>{});
    EXPECT_EQ(dtypeOf(o.seed.get()), aoti_torch_dtype_int64());
    EXPECT_EQ(sizesOf(o.offset), std::vector<int64_t>{});
    break;
  }
}

std::string describe(Variant v, const CudaCase &c) {
  return std::string(nameOf(v)) + " " + attention::nameOf(c.dtype) + " B" +
         std::to_string(c.B) + " H" + std::to_string(c.H) + "/" +
         std::to_string(c.Hk) + " Lq" + std::to_string(c.Lq) + " Lk" +
         std::to_string(c.Lk) + " E" + std::to_string(c.E) + " Ev" +
         std::to_string(c.Ev) + (c.causal ? " causal" : "") +
         (c.maskSizes.empty() ? "" : " masked") + " layout " +
         std::to_string(static_cast<int>(c.layout));
}

// Runs one variant on a (possibly edited) set of operands and checks
// layouts and values against the reference.
// `outTol` / `lseTol` replace the default tolerances (the cuDNN path's).
void expectMatches(Variant v, const CudaCase &c, const Operands &ops,
                   std::optional<Tolerance> outTol = std::nullopt,
                   std::optional<Tolerance> lseTol = std::nullopt) {
  SCOPED_TRACE(describe(v, c));
  TensorHandle q = upload(ops.query);
  TensorHandle k = upload(ops.key);
  TensorHandle val = upload(ops.value);
  TensorHandle m;
  if (ops.mask)
    m = upload(*ops.mask);
  Outputs o;
  ASSERT_SHIM_OK(run(v, c, q.get(), k.get(), val.get(), m.get(), o));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  checkLayouts(v, c, o);

  Problem p;
  p.query = &ops.query;
  p.key = &ops.key;
  p.value = &ops.value;
  p.mask = ops.mask ? &*ops.mask : nullptr;
  p.causal = c.causal;
  p.causalOffset = v == Variant::Flash ? c.Lk - c.Lq : 0;
  p.scale = c.scale;
  const Reference ref = reference(p);
  expectClose(download(o.out, c.dtype), ref.out,
              outTol.value_or(outputTolerance(c.dtype)), "out");
  std::vector<double> lse = download(o.lse, Dtype::Float32);
  if (v == Variant::Efficient) {
    const int64_t rows = c.computeLse ? (c.Lq + 31) / 32 * 32 : 0;
    if (rows == 0)
      EXPECT_TRUE(lse.empty());
    else
      expectClose(lse, paddedLse(ref.lse, c.B * c.H, c.Lq, rows),
                  lseTol.value_or(lseTolerance()), "logsumexp");
  } else {
    expectClose(lse, ref.lse, lseTol.value_or(lseTolerance()), "logsumexp");
  }
}

void expectMatches(Variant v, const CudaCase &c) {
  expectMatches(v, c, makeOperands(c));
}

TEST_F(CudaAttention, EveryVariantDtypeLayoutAndCausalMode) {
  for (Variant v : kVariants)
    for (Dtype dtype : kFloatDtypes)
      for (Layout layout :
           {Layout::Contiguous, Layout::Transposed, Layout::Gapped})
        for (bool causal : {false, true}) {
          CudaCase c;
          c.dtype = dtype;
          c.layout = layout;
          c.offset = layout == Layout::Contiguous ? 0 : 7;
          c.causal = causal;
          expectMatches(v, c);
        }
}

TEST_F(CudaAttention, CausalWithMoreQueriesThanKeys) {
  // Flash aligns bottom-right: its first Lq - Lk rows see no key.
  for (Variant v : kVariants) {
    CudaCase c;
    c.Lq = 70;
    c.Lk = 20;
    c.causal = true;
    expectMatches(v, c);
  }
}

TEST_F(CudaAttention, ValueHeadDimDiffersForEfficientAndCudnn) {
  for (Variant v : {Variant::Efficient, Variant::Cudnn})
    for (Layout layout : {Layout::Contiguous, Layout::Transposed}) {
      CudaCase c;
      c.Ev = 32;
      c.layout = layout;
      expectMatches(v, c);
    }
}

TEST_F(CudaAttention, BiasesBroadcastAtEveryRank) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 4, 37, 53}, {37, 53}, {2, 1, 1, 53}, {1, 4, 37, 1}};
  for (Variant v : {Variant::Efficient, Variant::Cudnn})
    for (Dtype dtype : kFloatDtypes)
      for (const auto &shape : shapes)
        for (Dtype maskDtype : {Dtype::Bool, dtype}) {
          CudaCase c;
          c.dtype = dtype;
          c.maskSizes = shape;
          c.maskDtype = maskDtype;
          c.causal = shape.size() == 2;
          expectMatches(v, c);
        }
}

TEST_F(CudaAttention, FullyMaskedRowGivesZerosAndMinusInfinity) {
  for (Variant v : {Variant::Efficient, Variant::Cudnn}) {
    CudaCase c;
    c.maskSizes = {37, 53};
    Operands ops = makeOperands(c);
    for (int64_t j = 0; j < 53; ++j)
      setValue(*ops.mask, 5 * 53 + j, 0.0);
    expectMatches(v, c, ops);
  }
}

TEST_F(CudaAttention, ExplicitScale) {
  for (Variant v : kVariants) {
    CudaCase c;
    c.scale = 0.3;
    expectMatches(v, c);
  }
}

TEST_F(CudaAttention, GroupedAndMultiQueryHeads) {
  for (Variant v : kVariants)
    for (int64_t hk : {1, 2, 4}) {
      CudaCase c;
      c.H = 8;
      c.Hk = hk;
      c.causal = true;
      expectMatches(v, c);
    }
}

TEST_F(CudaAttention, LongSequencesAndEveryHeadDim) {
  for (Variant v : kVariants)
    for (int64_t e : {16, 80, 128, 256}) {
      CudaCase c;
      c.B = 1;
      c.H = 2;
      c.Hk = 2;
      c.Lq = 200;
      c.Lk = 300;
      c.E = e;
      c.Ev = e;
      c.dtype = Dtype::BFloat16;
      c.causal = e == 128;
      expectMatches(v, c);
    }
}

TEST_F(CudaAttention, EfficientLogsumexpIsOptional) {
  CudaCase c;
  c.computeLse = false;
  expectMatches(Variant::Efficient, c);
}

TEST_F(CudaAttention, FlashDebugMaskHasMetasShape) {
  for (auto [e, lk] : {std::pair<int64_t, int64_t>{64, 53}, {128, 200}}) {
    CudaCase c;
    c.E = e;
    c.Ev = e;
    c.Lk = lk;
    c.debugMask = true;
    expectMatches(Variant::Flash, c);
  }
}

TEST_F(CudaAttention, NullOutputPointersAreSkipped) {
  CudaCase c;
  Operands ops = makeOperands(c);
  TensorHandle q = upload(ops.query), k = upload(ops.key),
               v = upload(ops.value);
  TensorHandle out;
  ASSERT_SHIM_OK(aoti_torch_cuda__scaled_dot_product_flash_attention(
      q.get(), k.get(), v.get(), 0.0, 0, 0, nullptr, out.out(), nullptr,
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
  Problem p{&ops.query, &ops.key, &ops.value};
  expectClose(download(out, c.dtype), reference(p).out,
              outputTolerance(c.dtype), "out");
}

TEST_F(CudaAttention, Errors) {
  CudaCase c;
  Operands ops = makeOperands(c);
  TensorHandle q = upload(ops.query), k = upload(ops.key),
               v = upload(ops.value);
  {
    Outputs o;
    EXPECT_SHIM_FAILS(run(Variant::Efficient, c, q.get(), k.get(), v.get(),
                          nullptr, o, 0.1),
                      "model.eval()");
    EXPECT_EQ(o.out.get(), nullptr);
  }
  {
    // A CPU key with CUDA query and value.
    TensorHandle cpuKey = cpuHandle(ops.key);
    Outputs o;
    EXPECT_SHIM_FAILS(run(Variant::Cudnn, c, q.get(), cpuKey.get(), v.get(),
                          nullptr, o),
                      "'key' is on cpu; _scaled_dot_product_cudnn_attention "
                      "takes CUDA tensors");
  }
  {
    // The CPU op refuses CUDA tensors.
    AtenTensorHandle out = nullptr, lse = nullptr;
    EXPECT_SHIM_FAILS(
        aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
            q.get(), k.get(), v.get(), 0.0, 0, nullptr, nullptr, &out, &lse),
        "takes CPU tensors");
  }
  {
    // Head dims beyond the kernel's registers.
    CudaCase big;
    big.B = 1;
    big.H = 1;
    big.Hk = 1;
    big.Lq = 4;
    big.Lk = 4;
    big.E = 320;
    big.Ev = 320;
    Operands bigOps = makeOperands(big);
    TensorHandle bq = upload(bigOps.query), bk = upload(bigOps.key),
                 bv = upload(bigOps.value);
    Outputs o;
    EXPECT_SHIM_FAILS(run(Variant::Flash, big, bq.get(), bk.get(), bv.get(),
                          nullptr, o),
                      "takes at most 256");
  }
  {
    // Flash needs Ev == E.
    CudaCase odd = c;
    odd.Ev = 32;
    Operands oddOps = makeOperands(odd);
    TensorHandle oq = upload(oddOps.query), ok = upload(oddOps.key),
                 ov = upload(oddOps.value);
    Outputs o;
    EXPECT_SHIM_FAILS(run(Variant::Flash, odd, oq.get(), ok.get(), ov.get(),
                          nullptr, o),
                      "returns empty_like(query)");
  }
}

// The same kinds of cases under another kernel than the default tiled one:
// each kernel is checked independently against the reference, so any can
// serve as the others' fallback and A/B timings compare correct kernels.
void expectSameCasesMatch() {
  for (Variant v : kVariants)
    for (Dtype dtype : kFloatDtypes)
      for (Layout layout : {Layout::Contiguous, Layout::Transposed})
        for (bool causal : {false, true}) {
          CudaCase c;
          c.dtype = dtype;
          c.layout = layout;
          c.offset = layout == Layout::Contiguous ? 0 : 7;
          c.causal = causal;
          expectMatches(v, c);
        }
  for (Variant v : {Variant::Efficient, Variant::Cudnn})
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{37, 53}, std::vector<int64_t>{2, 1, 1, 53}}) {
      CudaCase c;
      c.maskSizes = shape;
      c.maskDtype = shape.size() == 2 ? Dtype::Bool : Dtype::Float32;
      expectMatches(v, c);
    }
  for (int64_t e : {80, 256}) {
    CudaCase c;
    c.B = 1;
    c.H = 2;
    c.Hk = 1;
    c.Lq = 200;
    c.Lk = 300;
    c.E = e;
    c.Ev = e;
    c.causal = true;
    expectMatches(Variant::Flash, c);
  }
}

class CudaAttentionOtherKernel : public CudaAttentionForcedKernel {};

TEST_P(CudaAttentionOtherKernel, SameCasesMatch) { expectSameCasesMatch(); }

// The simpler per-key kernel (per-key) and the warp-per-row kernel (row),
// the default before the tiled one.
INSTANTIATE_TEST_SUITE_P(Kernels, CudaAttentionOtherKernel,
                         testing::Values("per-key", "row"),
                         kernelInstanceName);

// --- The tiled kernel's edges (the default kernel) ----------------------
// Its blocks take 64 or 32 query rows (the launcher picks by grid size;
// these tests run under each, forced with AOTI_SHIMS_CUDA_ATTENTION=tiled-64
// and tiled-32) and walk keys in tiles of 64 (32 above head dim 64);
// operands with a unit last stride and aligned rows take float4 loads, the
// others are read element by element.
class CudaAttentionTiled : public CudaAttentionForcedKernel {};

INSTANTIATE_TEST_SUITE_P(TileHeights, CudaAttentionTiled,
                         testing::Values("tiled-64", "tiled-32"),
                         kernelInstanceName);

TEST_P(CudaAttentionTiled, RowAndKeyTileEdges) {
  const std::pair<int64_t, int64_t> lengths[] = {
      {1, 1}, {1, 130}, {130, 1}, {64, 64}, {65, 63}, {129, 65}};
  for (Variant v : kVariants)
    for (auto [lq, lk] : lengths)
      for (Layout layout : {Layout::Contiguous, Layout::Gapped}) {
        CudaCase c;
        c.Lq = lq;
        c.Lk = lk;
        c.layout = layout;
        c.offset = layout == Layout::Contiguous ? 0 : 7;
        c.causal = lq == 129; // also bottom-right (flash) with Lq > Lk
        expectMatches(v, c);
      }
}

TEST_P(CudaAttentionTiled, HeadDimBucketEdges) {
  // Each bucket's limit and one past it, in every dtype, on both load
  // paths (a dim of 33 or 129 is never read as float4).
  for (Dtype dtype : kFloatDtypes)
    for (int64_t e : {32, 33, 64, 65, 128, 129, 256})
      for (Layout layout : {Layout::Transposed, Layout::Gapped}) {
        CudaCase c;
        c.dtype = dtype;
        c.B = 1;
        c.H = 2;
        c.Hk = 1;
        c.Lq = 70;
        c.Lk = 97;
        c.E = e;
        c.Ev = e;
        c.layout = layout;
        c.offset = layout == Layout::Transposed ? 4 : 3;
        expectMatches(Variant::Flash, c);
      }
  // A bucket chosen by the value dim alone, and by the query/key dim alone.
  for (auto [e, ev] : {std::pair<int64_t, int64_t>{32, 100}, {100, 16}})
    for (Variant v : {Variant::Efficient, Variant::Cudnn}) {
      CudaCase c;
      c.Lq = 70;
      c.Lk = 70;
      c.E = e;
      c.Ev = ev;
      c.layout = Layout::Transposed;
      expectMatches(v, c);
    }
}

TEST_P(CudaAttentionTiled, CausalGroupedAndMasked) {
  // Causal with Lq != Lk both ways (top-left for efficient and cuDNN,
  // bottom-right for flash), grouped and multi-query heads, across tiles.
  for (Variant v : kVariants)
    for (auto [lq, lk] : {std::pair<int64_t, int64_t>{70, 150}, {150, 70}})
      for (int64_t hk : {1, 2}) {
        CudaCase c;
        c.H = 4;
        c.Hk = hk;
        c.Lq = lq;
        c.Lk = lk;
        c.causal = true;
        c.layout = Layout::Transposed;
        expectMatches(v, c);
      }
  // Masks of every kind with GQA heads, on partial tiles, with causal.
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 4, 66, 67}, {66, 67}, {2, 1, 1, 67}, {1, 4, 66, 1}};
  for (Variant v : {Variant::Efficient, Variant::Cudnn})
    for (const auto &shape : shapes)
      for (Dtype maskDtype : {Dtype::Bool, Dtype::Float32, Dtype::BFloat16}) {
        CudaCase c;
        c.H = 4;
        c.Hk = 2;
        c.Lq = 66;
        c.Lk = 67;
        c.maskSizes = shape;
        c.maskDtype = maskDtype;
        c.causal = shape.size() == 2;
        c.layout = Layout::Transposed;
        c.offset = 5;
        expectMatches(v, c);
      }
}

TEST_F(CudaAttention, TiledWhisperLengthMatchesRowKernelAndReference) {
  // Whisper's encoder length (1500 = 23 full row tiles and one of 28), in
  // float32, under the tiled kernel and the row kernel.
  CudaCase c;
  c.B = 1;
  c.H = 2;
  c.Hk = 2;
  c.Lq = 1500;
  c.Lk = 1500;
  c.layout = Layout::Transposed;
  const Operands ops = makeOperands(c);
  expectMatches(Variant::Efficient, c, ops);
  ScopedEnv env("AOTI_SHIMS_CUDA_ATTENTION", "row");
  expectMatches(Variant::Efficient, c, ops);
}

TEST_F(CudaAttention, RunsOnTheCurrentStream) {
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  CudaCase c;
  c.causal = true;
  expectMatches(Variant::Efficient, c);
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}


// --- The cuDNN path (ops/cuda/attention_cudnn.cpp) ----------------------------
//
// float16 / bfloat16 problems that cuDNN's fused attention takes, run with
// AOTI_SHIMS_CUDA_ATTENTION=cudnn, which makes a problem cuDNN does not take
// an error: every case here provably ran on cuDNN. Same reference, layouts
// and meta-function checks as above. Tolerances, from what cuDNN computes:
// the scores are exact in float32 (inputs are multiples of 1/32 below 1.5,
// so every product and partial sum is a float32), then one float32 rounding
// each for the scale and for exp2's log2(e) factor; the softmax is float32
// (the SFU's exp2 and log2 are exact to about 2^-22); the probabilities p
// are rounded to the input dtype (unit roundoff u = 2^-11 for float16,
// 2^-8 for bfloat16) before they multiply V with float32 accumulation, which
// moves out by at most u * sum_j p_j |v_j| <= u * max|v|; out is rounded
// once (u relative). So out is allowed 2u * max|v| + 1e-5 absolute plus 2u
// relative (a factor 2 over the bound for the float32 steps), and the
// logsumexp, float32 throughout, 1e-4 absolute (the worst case of a float32
// sum of 1,500 exponentials is 9e-5 in its log) plus 1e-5 relative. A wrong
// index, key or head is an O(0.1..1) error in out, far outside either.
class CudaCudnnAttention : public aoti::test::CudaDeviceTest {
protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    if (IsSkipped())
      return;
#ifndef AOTI_TEST_HAVE_CUDNN_FRONTEND
    GTEST_SKIP() << "the shims were built without cudnn-frontend";
#endif
    usePath("cudnn");
  }
  void TearDown() override {
    unsetenv("AOTI_SHIMS_CUDA_ATTENTION");
    CudaDeviceTest::TearDown();
  }
  // "cudnn" (cuDNN or an error), "ours", or null (cuDNN when it takes the
  // problem, else our kernel: what a model gets).
  static void usePath(const char *path) {
    if (path)
      setenv("AOTI_SHIMS_CUDA_ATTENTION", path, 1);
    else
      unsetenv("AOTI_SHIMS_CUDA_ATTENTION");
  }
};

double maxAbs(const Operand &op) {
  double m = 0;
  for (double v : op.values)
    m = std::max(m, std::fabs(v));
  return m;
}

Tolerance cudnnOutTolerance(Dtype dtype, double maxAbsValue) {
  const double u =
      dtype == Dtype::Float16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  return {2 * u * maxAbsValue + 1e-5, 2 * u};
}

Tolerance cudnnLseTolerance() { return {1e-4, 1e-5}; }

void expectCudnnMatches(Variant v, const CudaCase &c, const Operands &ops) {
  expectMatches(v, c, ops, cudnnOutTolerance(c.dtype, maxAbs(ops.value)),
                cudnnLseTolerance());
}

// makeOperands() with the mask at storage offset 0: cuDNN reads a bias
// only from a 16-byte boundary (an offset mask is a Refusals case).
Operands makeCudnnOperands(const CudaCase &c) {
  Operands ops = makeOperands(c);
  if (ops.mask) {
    Values gen(c.seed + 1000);
    ops.mask = makeOperand(c.maskSizes, rowMajorStrides(c.maskSizes), 0,
                           c.maskDtype, gen);
  }
  return ops;
}

void expectCudnnMatches(Variant v, const CudaCase &c) {
  expectCudnnMatches(v, c, makeCudnnOperands(c));
}

// A half-type problem cuDNN takes in every variant: Lq a multiple of 32
// (efficient attention's logsumexp then has no padding rows), Lq < Lk.
CudaCase halfCase(Dtype dtype) {
  CudaCase c;
  c.dtype = dtype;
  c.Lq = 64;
  c.Lk = 96;
  return c;
}

constexpr Dtype kHalfDtypes[] = {Dtype::Float16, Dtype::BFloat16};

TEST_F(CudaCudnnAttention, EveryVariantHalfDtypeLayoutAndCausalMode) {
  // flash's causal mask is bottom-right (Lk - Lq = 32), the others' top-left.
  for (Variant v : kVariants)
    for (Dtype dtype : kHalfDtypes)
      for (Layout layout : {Layout::Contiguous, Layout::Transposed})
        for (bool causal : {false, true}) {
          CudaCase c = halfCase(dtype);
          c.layout = layout;
          c.causal = causal;
          expectCudnnMatches(v, c);
        }
}

TEST_F(CudaCudnnAttention, MoreQueriesThanKeysAndLogsumexpOff) {
  for (Variant v : kVariants)
    for (bool causal : {false, true}) {
      if (v == Variant::Flash && causal)
        continue; // rows with no key: our kernel's (see Refusals)
      CudaCase c = halfCase(Dtype::BFloat16);
      c.Lq = 96;
      c.Lk = 40;
      c.causal = causal;
      expectCudnnMatches(v, c);
    }
  for (Variant v : {Variant::Efficient, Variant::Cudnn}) {
    CudaCase c = halfCase(Dtype::Float16);
    c.Lq = 37; // no logsumexp asked for: no padding to produce
    c.computeLse = false;
    expectCudnnMatches(v, c);
  }
}

TEST_F(CudaCudnnAttention, GroupedQueryHeadsScaleAndValueHeadDim) {
  for (Variant v : kVariants)
    for (int64_t hk : {1, 2, 4}) {
      CudaCase c = halfCase(Dtype::BFloat16);
      c.H = 8;
      c.Hk = hk;
      c.causal = true;
      expectCudnnMatches(v, c);
    }
  for (Variant v : kVariants) {
    CudaCase c = halfCase(Dtype::Float16);
    c.scale = 0.3;
    expectCudnnMatches(v, c);
  }
  for (Variant v : {Variant::Efficient, Variant::Cudnn}) {
    CudaCase c = halfCase(Dtype::BFloat16);
    c.Ev = 32;
    c.layout = Layout::Transposed;
    expectCudnnMatches(v, c);
  }
}

TEST_F(CudaCudnnAttention, AdditiveBiasOfTheInputsDtype) {
  // Full and [Lq, Lk] biases are cuDNN's; the other broadcasts are cuDNN's
  // when it takes them and our kernel's otherwise: right either way.
  for (Variant v : {Variant::Efficient, Variant::Cudnn})
    for (Dtype dtype : kHalfDtypes) {
      for (bool strict : {true, false}) {
        const std::vector<std::vector<int64_t>> shapes =
            strict ? std::vector<std::vector<int64_t>>{{2, 4, 64, 96}, {64, 96}}
                   : std::vector<std::vector<int64_t>>{{2, 1, 1, 96},
                                                       {1, 4, 64, 1},
                                                       {2, 4, 1, 96}};
        usePath(strict ? "cudnn" : nullptr);
        for (const auto &shape : shapes) {
          CudaCase c = halfCase(dtype);
          c.maskSizes = shape;
          c.maskDtype = dtype;
          c.causal = shape.size() == 2;
          expectCudnnMatches(v, c);
        }
      }
      usePath("cudnn");
    }
}

TEST_F(CudaCudnnAttention, LongSequencesAndHeadDims) {
  for (int64_t e : {64, 128}) {
    CudaCase c;
    c.B = 1;
    c.H = 2;
    c.Hk = 2;
    c.Lq = 200;
    c.Lk = 300;
    c.E = e;
    c.Ev = e;
    c.dtype = Dtype::BFloat16;
    c.causal = e == 128;
    for (Variant v : kVariants) {
      if (v == Variant::Efficient)
        c.computeLse = false; // 200 is not a multiple of 32
      expectCudnnMatches(v, c);
      c.computeLse = true;
    }
  }
  // Head dims cuDNN may or may not have kernels for: right either way.
  usePath(nullptr);
  for (int64_t e : {16, 256}) {
    CudaCase c;
    c.B = 1;
    c.H = 2;
    c.Hk = 1;
    c.Lq = 64;
    c.Lk = 300;
    c.E = e;
    c.Ev = e;
    c.dtype = Dtype::BFloat16;
    expectCudnnMatches(Variant::Cudnn, c);
  }
}

// Whisper's encoder attention (the bench's worst case for our kernel).
TEST_F(CudaCudnnAttention, WhisperEncoderShape) {
  for (Dtype dtype : kHalfDtypes) {
    CudaCase c;
    c.B = 1;
    c.H = 4;
    c.Hk = 4;
    c.Lq = 1500;
    c.Lk = 1500;
    c.dtype = dtype;
    c.layout = Layout::Transposed;
    expectCudnnMatches(Variant::Cudnn, c);
  }
}

// The per-thread plan cache: a problem twice (the second from the cache, on
// other data at other addresses), another problem, the first again.
TEST_F(CudaCudnnAttention, PlanCacheServesRepeatedAndInterleavedProblems) {
  CudaCase first = halfCase(Dtype::BFloat16);
  first.causal = true;
  CudaCase second = halfCase(Dtype::BFloat16);
  second.Lq = 32;
  second.Lk = 48;
  uint32_t seed = 500;
  for (const CudaCase *c : {&first, &first, &second, &first, &second}) {
    CudaCase run = *c;
    run.seed = seed++;
    expectCudnnMatches(Variant::Cudnn, run);
  }
}

TEST_F(CudaCudnnAttention, RunsOnTheCurrentStream) {
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  CudaCase c = halfCase(Dtype::Float16);
  c.causal = true;
  expectCudnnMatches(Variant::Cudnn, c);
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

// What stays with our kernel: with AOTI_SHIMS_CUDA_ATTENTION=cudnn an error
// naming why; without it, our kernel's right answer.
TEST_F(CudaCudnnAttention, Refusals) {
  struct Refused {
    Variant variant;
    CudaCase c;
    const char *why;
  };
  std::vector<Refused> refused;
  {
    CudaCase c = halfCase(Dtype::Float32);
    refused.push_back({Variant::Cudnn, c, "float32"});
  }
  {
    CudaCase c = halfCase(Dtype::BFloat16);
    c.maskSizes = {64, 96};
    c.maskDtype = Dtype::Bool;
    refused.push_back({Variant::Efficient, c, "boolean mask"});
    c.maskDtype = Dtype::Float32;
    refused.push_back({Variant::Cudnn, c, "dtype differs"});
  }
  {
    CudaCase c = halfCase(Dtype::Float16);
    c.offset = 7;
    refused.push_back({Variant::Flash, c, "16-byte boundary"});
    c.offset = 0;
    c.layout = Layout::Gapped;
    refused.push_back({Variant::Cudnn, c, "not dense in its head dim"});
  }
  {
    CudaCase c = halfCase(Dtype::BFloat16);
    c.Lq = 37;
    refused.push_back({Variant::Efficient, c, "padded to 64 rows"});
  }
  {
    CudaCase c = halfCase(Dtype::BFloat16);
    c.Lq = 70;
    c.Lk = 20;
    c.causal = true;
    refused.push_back({Variant::Flash, c, "more queries than keys"});
  }
  {
    CudaCase c = halfCase(Dtype::Float16);
    c.E = 20;
    c.Ev = 20;
    refused.push_back({Variant::Cudnn, c, "not multiples of 8"});
  }
  for (const Refused &r : refused) {
    SCOPED_TRACE(describe(r.variant, r.c) + ": " + r.why);
    Operands ops = makeCudnnOperands(r.c);
    usePath("cudnn");
    {
      TensorHandle q = upload(ops.query), k = upload(ops.key),
                   val = upload(ops.value);
      TensorHandle m;
      if (ops.mask)
        m = upload(*ops.mask);
      Outputs o;
      EXPECT_SHIM_FAILS(run(r.variant, r.c, q.get(), k.get(), val.get(),
                            m.get(), o),
                        r.why);
    }
    usePath(nullptr);
    expectMatches(r.variant, r.c, ops);
  }
}

// AOTI_SHIMS_CUDA_ATTENTION=ours keeps a problem cuDNN takes on our kernel
// (for A/B measurement): our kernel's tighter tolerance holds, and the two
// paths' outputs differ (cuDNN rounds the probabilities to bfloat16 before
// P.V, ours does not: over 32,768 outputs some element differs).
TEST_F(CudaCudnnAttention, OursForcesOurKernel) {
  CudaCase c = halfCase(Dtype::BFloat16);
  Operands ops = makeOperands(c);
  usePath("ours");
  expectMatches(Variant::Cudnn, c, ops);
  std::vector<double> outs[2];
  for (int path = 0; path < 2; ++path) {
    usePath(path == 0 ? "ours" : "cudnn");
    TensorHandle q = upload(ops.query), k = upload(ops.key),
                 val = upload(ops.value);
    Outputs o;
    ASSERT_SHIM_OK(run(Variant::Cudnn, c, q.get(), k.get(), val.get(),
                       nullptr, o));
    outs[path] = download(o.out, c.dtype);
  }
  EXPECT_NE(outs[0], outs[1]) << "both runs took the same path";
}

} // namespace
