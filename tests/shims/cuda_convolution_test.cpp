//===- cuda_convolution_test.cpp - aoti_torch_cuda_convolution on a GPU ---===//
//
// The CPU test's cases (conv_reference.h) on the GPU, in float32, float16 and
// bfloat16: the operands are uploaded with the host tensor's exact layout and
// storage offset, and every output element, read back through the output's
// strides, is compared with the plain-loop reference computed in double on
// the host. Output strides are checked against torch's rule for CUDA. Every
// test skips when no CUDA device is visible.
//
// Tolerances, relative to the sum of |terms| of each output element:
//   float32   1e-4: cuDNN's heuristics may choose FFT or Winograd
//             algorithms, whose transforms round more than a direct sum
//             (about 1e-6..1e-5 of sum|terms| at these sizes); a wrong index
//             or a missing term is an O(1) error. TF32 is checked by its own
//             test, whose exact result TF32 would miss by 0.56.
//   float16   1e-3 plus 2^-10 of the value: half-exact inputs, float32
//             accumulation, one rounding of the result (2^-11).
//   bfloat16  2e-3 plus 2^-7 of the value: as float16 with an 8-bit
//             mantissa (rounding 2^-9), with margin for algorithms that
//             round intermediate transforms to bf16.
//
// Run: build/bin/shims_cuda_test --gtest_filter='CudaConvolution*'
//
//===----------------------------------------------------------------------===//
#include "conv_reference.h"
#include "cuda_test_util.h"
#include "shims_test_util.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace {

using aoti::test::TensorHandle;
using namespace aoti::test::conv;

enum class Dtype { F32, F16, BF16 };

int32_t code(Dtype t) {
  switch (t) {
  case Dtype::F16:
    return aoti_torch_dtype_float16();
  case Dtype::BF16:
    return aoti_torch_dtype_bfloat16();
  default:
    return aoti_torch_dtype_float32();
  }
}
size_t itemSize(Dtype t) { return t == Dtype::F32 ? 4 : 2; }
const char *name(Dtype t) {
  return t == Dtype::F32 ? "float32" : t == Dtype::F16 ? "float16" : "bfloat16";
}

float roundToF16(float v) { return __half2float(__float2half(v)); }

void encode(Dtype t, float v, unsigned char *out) {
  if (t == Dtype::F32) {
    std::memcpy(out, &v, 4);
  } else if (t == Dtype::F16) {
    __half h = __float2half(v);
    std::memcpy(out, &h, 2);
  } else {
    __nv_bfloat16 b = __float2bfloat16(v);
    std::memcpy(out, &b, 2);
  }
}

float decode(Dtype t, const unsigned char *in) {
  if (t == Dtype::F32) {
    float v;
    std::memcpy(&v, in, 4);
    return v;
  }
  if (t == Dtype::F16) {
    __half h;
    std::memcpy(&h, in, 2);
    return __half2float(h);
  }
  __nv_bfloat16 b;
  std::memcpy(&b, in, 2);
  return __bfloat162float(b);
}

struct CudaFree {
  void operator()(void *p) const { (void)cudaFree(p); }
};
using DeviceBuffer = std::unique_ptr<void, CudaFree>;

// A CUDA tensor with h's sizes, strides and offset over a copy of h's
// storage converted to `t`.
struct DeviceTensor {
  DeviceBuffer buffer;
  TensorHandle handle;
};

void upload(const Host &h, Dtype t, DeviceTensor &out) {
  const size_t bytes = h.storage.size() * itemSize(t);
  std::vector<unsigned char> staged(std::max<size_t>(bytes, 1));
  for (size_t i = 0; i < h.storage.size(); ++i)
    encode(t, h.storage[i], staged.data() + i * itemSize(t));
  void *raw = nullptr;
  ASSERT_CUDA_OK(cudaMalloc(&raw, staged.size()));
  out.buffer.reset(raw);
  ASSERT_CUDA_OK(
      cudaMemcpy(raw, staged.data(), staged.size(), cudaMemcpyHostToDevice));
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      raw, static_cast<int64_t>(h.sizes.size()), h.sizes.data(),
      h.strides.data(), h.offset, code(t), aoti_torch_device_type_cuda(), 0,
      out.handle.out()));
}

class CudaConvolution : public aoti::test::CudaDeviceTest {};

AOTITorchError callConv(const Case &c, AtenTensorHandle input,
                        AtenTensorHandle weight, AtenTensorHandle *bias,
                        AtenTensorHandle *ret) {
  const Dims op = c.outputPadding.empty() ? Dims{0} : c.outputPadding;
  return aoti_torch_cuda_convolution(
      input, weight, bias, c.stride.data(),
      static_cast<int64_t>(c.stride.size()), c.padding.data(),
      static_cast<int64_t>(c.padding.size()), c.dilation.data(),
      static_cast<int64_t>(c.dilation.size()), c.transposed, op.data(),
      static_cast<int64_t>(op.size()), c.groups, ret);
}

// The output's elements in row-major order, read through its strides.
void download(const TensorHandle &out, Dtype t, std::vector<double> &values) {
  const Dims sizes = aoti::test::sizesOf(out);
  const Dims strides = aoti::test::stridesOf(out);
  int64_t numel = 1, extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    numel *= sizes[d];
    extent += (sizes[d] - 1) * strides[d];
  }
  void *data = nullptr;
  ASSERT_SHIM_OK(aoti_torch_get_data_ptr(out.get(), &data));
  std::vector<unsigned char> host(static_cast<size_t>(extent) * itemSize(t));
  ASSERT_CUDA_OK(cudaDeviceSynchronize());
  ASSERT_CUDA_OK(
      cudaMemcpy(host.data(), data, host.size(), cudaMemcpyDeviceToHost));
  values.assign(static_cast<size_t>(numel), 0.0);
  for (int64_t flat = 0; flat < numel; ++flat) {
    int64_t rest = flat, pos = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      pos += (rest % sizes[d]) * strides[d];
      rest /= sizes[d];
    }
    values[static_cast<size_t>(flat)] =
        decode(t, host.data() + static_cast<size_t>(pos) * itemSize(t));
  }
}

// `seed` picks the operands' values (a repeated problem gets other data at
// other addresses, so a plan that kept anything of a previous call's
// operands would be caught).
void runCase(const Case &c, Dtype t, const Dims &expectedStrides,
             uint32_t seed = 4242) {
  SCOPED_TRACE(std::string(c.name) + " in " + name(t) + ", seed " +
               std::to_string(seed));
  float (*round)(float) = t == Dtype::F16    ? roundToF16
                          : t == Dtype::BF16 ? roundToBf16
                                             : nullptr;
  std::mt19937 rng(seed);
  Host in = makeHost(c.input, c.inputLayout, rng, round);
  Host w = makeHost(c.weight, c.weightLayout, rng, round);
  const int64_t outChannels =
      c.transposed ? c.weight[1] * c.groups : c.weight[0];
  Host b = makeHost({outChannels}, Layout::Contiguous, rng, round);
  DeviceTensor din, dw, db;
  upload(in, t, din);
  upload(w, t, dw);
  upload(b, t, db);
  AtenTensorHandle bias = db.handle.get();
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, din.handle.get(), dw.handle.get(),
                          c.bias ? &bias : nullptr, out.out()));
  const Reference ref = reference(c, in, c.bias ? &b : nullptr, w);
  ASSERT_EQ(aoti::test::sizesOf(out), ref.sizes);
  EXPECT_EQ(aoti::test::stridesOf(out), expectedStrides);
  int32_t device = -1;
  ASSERT_SHIM_OK(aoti_torch_get_device_type(out.get(), &device));
  EXPECT_EQ(device, aoti_torch_device_type_cuda());
  std::vector<double> got;
  download(out, t, got);
  const double rel = t == Dtype::F32 ? 1e-4 : t == Dtype::F16 ? 1e-3 : 2e-3;
  const double out_ = t == Dtype::F32 ? 0 : t == Dtype::F16 ? 1.0 / 1024
                                                            : 1.0 / 128;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol =
        rel * ref.magnitude[i] + out_ * std::fabs(ref.value[i]) + 1e-5;
    if (std::fabs(got[i] - ref.value[i]) > tol && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want "
                    << ref.value[i] << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0u) << "elements out of tolerance";
}

struct CudaCase {
  Case conv;
  Dims expectedStrides;
};

std::vector<CudaCase> cases() {
  std::vector<CudaCase> all;
  auto add = [&](Case c, Dims strides) { all.push_back({c, strides}); };
  add({"conv1d", {2, 3, 11}, {4, 3, 3}, {1}, {1}, {1}}, contiguous({2, 4, 11}));
  {
    Case c{"conv1d s2 d2", {2, 4, 20}, {6, 4, 3}, {2}, {2}, {2}};
    c.bias = false;
    add(c, contiguous({2, 6, 10}));
  }
  add({"conv2d", {2, 3, 9, 8}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      contiguous({2, 5, 9, 8}));
  add({"conv2d asymmetric", {1, 4, 13, 10}, {6, 4, 3, 2}, {2, 1}, {0, 2},
       {1, 2}},
      contiguous({1, 6, 6, 12}));
  {
    Case c{"conv2d groups", {2, 6, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
    c.groups = 2;
    add(c, contiguous({2, 4, 8, 8}));
  }
  {
    Case c{"depthwise", {2, 8, 10, 10}, {16, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}};
    c.groups = 8;
    add(c, contiguous({2, 16, 5, 5}));
    c.name = "depthwise channels_last";
    c.inputLayout = Layout::ChannelsLast;
    add(c, channelsLast({2, 16, 5, 5}));
  }
  add({"conv3d", {1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {1, 2, 1}, {1, 1, 0},
       {1, 1, 2}},
      contiguous({1, 3, 5, 3, 3}));
  add({"transposed1d", {2, 4, 7}, {4, 3, 3}, {2}, {1}, {1}, true, {1}},
      contiguous({2, 3, 14}));
  {
    Case c{"transposed2d", {2, 4, 5, 6}, {4, 3, 3, 2}, {2, 3}, {1, 0}, {2, 1},
           true, {1, 2}};
    c.groups = 2;
    add(c, contiguous({2, 6, 12, 19}));
  }
  {
    Case c{"transposed3d", {1, 3, 3, 4, 3}, {3, 2, 2, 3, 2}, {2, 1, 2},
           {0, 1, 1}, {1}, true, {1, 0, 0}};
    c.bias = false;
    add(c, contiguous({1, 2, 7, 4, 4}));
  }
  {
    Case c{"channels_last input", {2, 8, 7, 9}, {6, 8, 3, 3}, {1, 1}, {1, 1},
           {1, 1}};
    c.inputLayout = Layout::ChannelsLast;
    add(c, channelsLast({2, 6, 7, 9}));
  }
  {
    Case c{"channels_last weight", {1, 4, 6, 6}, {8, 4, 3, 3}, {2, 2}, {0, 0},
           {1, 1}};
    c.weightLayout = Layout::ChannelsLast;
    add(c, channelsLast({1, 8, 2, 2}));
  }
  {
    // On CUDA a small channels-last-3d problem is cuDNN's: channels-last-3d
    // (on the CPU torch's slow kernel makes it contiguous).
    Case c{"channels_last_3d", {1, 4, 3, 4, 5}, {2, 4, 2, 2, 2}, {1}, {0},
           {1}};
    c.inputLayout = Layout::ChannelsLast;
    add(c, channelsLast({1, 2, 2, 3, 4}));
  }
  {
    Case c{"transposed channels_last", {1, 4, 5, 5}, {4, 2, 3, 3}, {2, 2},
           {1, 1}, {1, 1}, true, {1, 1}};
    c.inputLayout = Layout::ChannelsLast;
    add(c, channelsLast({1, 2, 10, 10}));
  }
  {
    // output_padding >= stride (allowed by the dilation): torch leaves cuDNN
    // for its slow kernels, whose output is contiguous.
    Case c{"big output_padding", {1, 4, 5, 5}, {4, 2, 3, 3}, {1, 1}, {0, 0},
           {2, 2}, true, {1, 1}};
    c.inputLayout = Layout::ChannelsLast;
    add(c, contiguous({1, 2, 10, 10}));
    c.name = "big output_padding, padded";
    c.padding = {1, 0};
    c.inputLayout = Layout::Contiguous;
    add(c, contiguous({1, 2, 8, 10}));
  }
  {
    Case c{"conv1d channels-last weight", {2, 3, 6}, {4, 3, 3}, {1}, {0}, {1}};
    c.weightLayout = Layout::ChannelsLast;
    add(c, Dims{16, 1, 4});
  }
  {
    Case c{"strided", {2, 3, 6, 5}, {4, 3, 2, 2}, {1, 1}, {0, 0}, {1, 1}};
    c.inputLayout = Layout::Strided;
    c.weightLayout = Layout::Strided;
    add(c, contiguous({2, 4, 5, 4}));
  }
  {
    Case c{"offset", {1, 2, 5, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
    c.inputLayout = Layout::Offset;
    c.weightLayout = Layout::Offset;
    add(c, contiguous({1, 3, 5, 5}));
  }
  return all;
}

TEST_F(CudaConvolution, Float32MatchesTheReference) {
  for (const CudaCase &c : cases())
    runCase(c.conv, Dtype::F32, c.expectedStrides);
}

TEST_F(CudaConvolution, Float16MatchesTheReference) {
  for (const CudaCase &c : cases())
    runCase(c.conv, Dtype::F16, c.expectedStrides);
}

TEST_F(CudaConvolution, BFloat16MatchesTheReference) {
  for (const CudaCase &c : cases())
    runCase(c.conv, Dtype::BF16, c.expectedStrides);
}

// Inputs 1 + 2^-12 (exact in float32, 1 in TF32) and weights 1 over
// 256 * 3 * 3 = 2304 terms: float32 FMAs give 2304 * (1 + 2^-12) = 2304.5625
// exactly (24 significant bits); TF32 would give 2304.
TEST_F(CudaConvolution, Float32NeverUsesTF32) {
  const float value = 1.0f + 1.0f / 4096;
  Host in, w;
  in.sizes = {1, 256, 4, 4};
  in.strides = contiguous(in.sizes);
  in.storage.assign(256 * 16, value);
  w.sizes = {4, 256, 3, 3};
  w.strides = contiguous(w.sizes);
  w.storage.assign(4 * 256 * 9, 1.0f);
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
    in.strides = layout == Layout::Contiguous ? contiguous(in.sizes)
                                              : channelsLast(in.sizes);
    DeviceTensor din, dw;
    upload(in, Dtype::F32, din);
    upload(w, Dtype::F32, dw);
    Case c{"tf32", in.sizes, w.sizes, {1}, {0}, {1}};
    TensorHandle out;
    ASSERT_SHIM_OK(callConv(c, din.handle.get(), dw.handle.get(), nullptr,
                            out.out()));
    std::vector<double> got;
    download(out, Dtype::F32, got);
    ASSERT_EQ(got.size(), 16u);
    for (double v : got)
      EXPECT_NEAR(v, 2304.5625, 0.05) << "TF32 would give 2304";
  }
}

TEST_F(CudaConvolution, RunsOnTheCurrentStream) {
  std::mt19937 rng(9);
  Case c{"stream", {2, 16, 32, 32}, {16, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  Host in = makeHost(c.input, Layout::Contiguous, rng);
  Host w = makeHost(c.weight, Layout::Contiguous, rng);
  DeviceTensor din, dw;
  upload(in, Dtype::F32, din);
  upload(w, Dtype::F32, dw);
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDAStreamGuardHandle guard = nullptr;
  ASSERT_SHIM_OK(aoti_torch_create_cuda_stream_guard(stream, 0, &guard));
  TensorHandle out;
  // Twice: the second call takes the cached algorithm.
  for (int i = 0; i < 2; ++i)
    ASSERT_SHIM_OK(callConv(c, din.handle.get(), dw.handle.get(), nullptr,
                            out.out()));
  ASSERT_SHIM_OK(aoti_torch_delete_cuda_stream_guard(guard));
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<double> got;
  download(out, Dtype::F32, got);
  const Reference ref = reference(c, in, nullptr, w);
  for (size_t i = 0; i < got.size(); i += 97)
    EXPECT_NEAR(got[i], ref.value[i], 1e-4 * ref.magnitude[i] + 1e-5);
  ASSERT_CUDA_OK(cudaStreamDestroy(stream));
}

// ops/cuda/convolution.cpp keeps one plan (descriptors, algorithm,
// workspace size) per problem. The same problem twice (the second call runs
// from the plan, on other data), another problem, the first again, each
// checked against the reference: a plan must depend on the problem only,
// and two problems must never share one. The cases cover the forward and
// transposed calls, groups, 1-d, NHWC, and the bias in every dtype (added by
// cuDNN, or by our kernel for a dtype cuDNN refuses there, which the plan
// then remembers).
TEST_F(CudaConvolution, PlanCacheServesRepeatedAndInterleavedProblems) {
  std::vector<CudaCase> all = cases();
  auto find = [&](const char *wanted) -> const CudaCase & {
    for (const CudaCase &c : all)
      if (std::string(c.conv.name) == wanted)
        return c;
    ADD_FAILURE() << "no case " << wanted;
    return all.front();
  };
  const CudaCase *order[] = {&find("conv2d"), &find("conv2d"),
                             &find("transposed2d"), &find("conv2d"),
                             &find("depthwise channels_last"),
                             &find("transposed2d"), &find("conv1d"),
                             &find("depthwise channels_last")};
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16}) {
    uint32_t seed = 100;
    for (const CudaCase *c : order)
      runCase(c->conv, t, c->expectedStrides, seed++);
  }
}

// Plans are shared by every thread (each with its own cuDNN handle): four
// threads run the same two problems at once, interleaved, each call checked.
TEST_F(CudaConvolution, PlanCacheIsSharedByThreads) {
  std::vector<CudaCase> all = cases();
  std::vector<std::thread> threads;
  for (uint32_t thread = 0; thread < 4; ++thread)
    threads.emplace_back([&all, thread] {
      ASSERT_CUDA_OK(cudaSetDevice(0));
      for (uint32_t round = 0; round < 3; ++round)
        for (size_t k : {size_t{2}, size_t{4}}) // conv2d, conv2d groups
          runCase(all[k].conv, Dtype::F32, all[k].expectedStrides,
                  1000 * thread + 10 * round + static_cast<uint32_t>(k));
    });
  for (std::thread &t : threads)
    t.join();
}

// AOTI_SHIMS_CUDA_CONV for one test.
struct ConvPathScope { // unset however the test ends
  explicit ConvPathScope(const char *value) {
    setenv("AOTI_SHIMS_CUDA_CONV", value, 1);
  }
  ~ConvPathScope() { unsetenv("AOTI_SHIMS_CUDA_CONV"); }
};

// The graph-API path (the default, convolution_graph.cpp):
// every forward case without bias and with aligned operands, in every
// dtype, with "graph-only" so a problem the graph API refused would fail
// here instead of quietly taking the legacy path; twice each (the second call from the per-thread cache);
// float32 never TF32 there either (the same exact-sum check as above).
TEST_F(CudaConvolution, GraphApiPathMatchesTheReference) {
#ifndef AOTI_TEST_HAVE_CUDNN_FRONTEND
  GTEST_SKIP() << "the shims were built without cudnn-frontend";
#endif
  ConvPathScope graphOnly("graph-only");
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16})
    for (const CudaCase &c : cases()) {
      if (c.conv.transposed)
        continue; // the legacy path's (cudnnConvolutionBackwardData)
      if (std::string(c.conv.name) == "offset")
        continue; // misaligned operands: refused, taken by the legacy path
      Case noBias = c.conv;
      noBias.bias = false;
      runCase(noBias, t, c.expectedStrides, 7);
      runCase(noBias, t, c.expectedStrides, 8);
    }
  const float value = 1.0f + 1.0f / 4096;
  Host in, w;
  in.sizes = {1, 256, 4, 4};
  in.strides = contiguous(in.sizes);
  in.storage.assign(256 * 16, value);
  w.sizes = {4, 256, 3, 3};
  w.strides = contiguous(w.sizes);
  w.storage.assign(4 * 256 * 9, 1.0f);
  DeviceTensor din, dw;
  upload(in, Dtype::F32, din);
  upload(w, Dtype::F32, dw);
  Case c{"tf32", in.sizes, w.sizes, {1}, {0}, {1}};
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, din.handle.get(), dw.handle.get(), nullptr,
                          out.out()));
  std::vector<double> got;
  download(out, Dtype::F32, got);
  ASSERT_EQ(got.size(), 16u);
  for (double v : got)
    EXPECT_NEAR(v, 2304.5625, 0.05) << "TF32 would give 2304";
}

// The legacy path (cudnnConvolutionForward and friends) on every case and
// dtype: the default sends forward convolutions without bias to the graph
// API, so without this the legacy path would see only bias and transposed
// ones. And a value the shims do not know is an error, not a silent default.
TEST_F(CudaConvolution, LegacyPathMatchesTheReference) {
  ConvPathScope legacy("legacy");
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16})
    for (const CudaCase &c : cases())
      runCase(c.conv, t, c.expectedStrides);
}

TEST_F(CudaConvolution, AnUnknownPathIsAnError) {
#ifndef AOTI_TEST_HAVE_CUDNN_FRONTEND
  GTEST_SKIP() << "without cudnn-frontend there is one path and no choice";
#endif
  ConvPathScope unknown("fastest");
  Host in, w;
  in.sizes = {1, 2, 4, 4};
  in.strides = contiguous(in.sizes);
  in.storage.assign(32, 1.0f);
  w.sizes = {3, 2, 3, 3};
  w.strides = contiguous(w.sizes);
  w.storage.assign(54, 1.0f);
  DeviceTensor din, dw;
  upload(in, Dtype::F32, din);
  upload(w, Dtype::F32, dw);
  Case c{"unknown path", in.sizes, w.sizes, {1, 1}, {0, 0}, {1, 1}};
  TensorHandle out;
  EXPECT_SHIM_FAILS(callConv(c, din.handle.get(), dw.handle.get(), nullptr,
                             out.out()),
                    "AOTI_SHIMS_CUDA_CONV=fastest: expected graph, legacy or "
                    "graph-only (or unset)");
}

TEST_F(CudaConvolution, EmptyBatchAndEmptySpatialOutput) {
  std::vector<float> none(64, 0.0f);
  DeviceTensor din, dw;
  Host in, w;
  in.sizes = {0, 2, 4, 4};
  in.strides = contiguous({1, 2, 4, 4});
  in.storage = none;
  w.sizes = {3, 2, 3, 3};
  w.strides = contiguous(w.sizes);
  w.storage = none;
  upload(in, Dtype::F32, din);
  upload(w, Dtype::F32, dw);
  Case c{"empty", in.sizes, w.sizes, {1}, {0}, {1}};
  TensorHandle out;
  ASSERT_SHIM_OK(callConv(c, din.handle.get(), dw.handle.get(), nullptr,
                          out.out()));
  EXPECT_EQ(aoti::test::sizesOf(out), (Dims{0, 3, 2, 2}));
  // A transposed convolution to a zero-length output is allowed on CUDA.
  Host one, tw;
  one.sizes = {1, 2, 1, 1};
  one.strides = contiguous(one.sizes);
  one.storage = none;
  tw.sizes = {2, 1, 1, 1};
  tw.strides = contiguous(tw.sizes);
  tw.storage = none;
  DeviceTensor done, dtw;
  upload(one, Dtype::F32, done);
  upload(tw, Dtype::F32, dtw);
  Case zero{"zero transposed", one.sizes, tw.sizes, {2}, {1}, {1}, true, {1}};
  // (1-1)*2 - 2 + 0 + 1 + 1 = 0
  ASSERT_SHIM_OK(callConv(zero, done.handle.get(), dtw.handle.get(), nullptr,
                          out.out()));
  EXPECT_EQ(aoti::test::sizesOf(out), (Dims{1, 1, 0, 0}));
}

TEST_F(CudaConvolution, RejectsMixedDevices) {
  std::vector<float> host(64, 0.0f);
  Host in, w;
  in.sizes = {1, 2, 4, 4};
  in.strides = contiguous(in.sizes);
  in.storage = host;
  w.sizes = {3, 2, 3, 3};
  w.strides = contiguous(w.sizes);
  w.storage = host;
  DeviceTensor din;
  upload(in, Dtype::F32, din);
  TensorHandle cpuWeight;
  ASSERT_SHIM_OK(aoti_torch_create_tensor_from_blob(
      w.storage.data(), 4, w.sizes.data(), w.strides.data(), 0,
      aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0,
      cpuWeight.out()));
  Case c{"mixed", in.sizes, w.sizes, {1}, {0}, {1}};
  TensorHandle out;
  EXPECT_SHIM_FAILS(callConv(c, din.handle.get(), cpuWeight.get(), nullptr,
                             out.out()),
                    "'weight' is on cpu; this convolution needs CUDA tensors");
  // And the CPU entry point refuses CUDA tensors.
  const Dims op{0};
  EXPECT_SHIM_FAILS(
      aoti_torch_cpu_convolution(din.handle.get(), cpuWeight.get(), nullptr,
                                 c.stride.data(), 1, c.padding.data(), 1,
                                 c.dilation.data(), 1, 0, op.data(), 1, 1,
                                 out.out()),
      "'input' is on cuda:0; this convolution needs CPU tensors");
}

} // namespace
