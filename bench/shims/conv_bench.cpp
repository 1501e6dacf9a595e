//===- conv_bench.cpp - aoti_torch_cpu_convolution vs naive vs oneDNN -----===//
//
// A ResNet-like 3x3 convolution (N=1, 64 -> 64 channels, 56x56, padding 1,
// stride 1, bias), float32, timed four ways:
//   Shim/nchw, Shim/nhwc  aoti_torch_cpu_convolution end to end: argument
//                         checks, output allocation, oneDNN primitive
//                         (descriptor creation + primitive cache lookup),
//                         reorders when it picks blocked layouts, free
//   Naive                 a plain direct loop nest (7 loops, float
//                         accumulation), what a kernel written here would be
//   OneDnnBlocked         oneDNN's convolution_forward alone, created once
//                         with `any` layouts, operands already reordered to
//                         its blocked formats: the floor for this library
//   OneDnnNchw            the same with plain NCHW operands in place
// Run: build/bin/conv_bench   (docs/shims.md has figures from this machine)
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include <benchmark/benchmark.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <random>
#include <vector>

namespace {

constexpr int64_t N = 1, C = 64, O = 64, H = 56, W = 56, K = 3;

std::vector<float> randomValues(size_t n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

struct Operands {
  std::vector<float> input = randomValues(N * C * H * W);
  std::vector<float> weight = randomValues(O * C * K * K);
  std::vector<float> bias = randomValues(O);
};

AtenTensorHandle wrap(std::vector<float> &data, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides) {
  AtenTensorHandle h = nullptr;
  if (aoti_torch_create_tensor_from_blob(
          data.data(), static_cast<int64_t>(sizes.size()), sizes.data(),
          strides.data(), 0, aoti_torch_dtype_float32(),
          aoti_torch_device_type_cpu(), 0, &h) != AOTI_TORCH_SUCCESS)
    std::abort();
  return h;
}

void Shim(benchmark::State &state) {
  const bool nhwc = state.range(0) != 0;
  Operands ops;
  AtenTensorHandle input =
      wrap(ops.input, {N, C, H, W},
           nhwc ? std::vector<int64_t>{H * W * C, 1, W * C, C}
                : std::vector<int64_t>{C * H * W, H * W, W, 1});
  AtenTensorHandle weight = wrap(ops.weight, {O, C, K, K}, {C * K * K, K * K, K, 1});
  AtenTensorHandle bias = wrap(ops.bias, {O}, {1});
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  for (auto _ : state) {
    AtenTensorHandle out = nullptr;
    if (aoti_torch_cpu_convolution(input, weight, &bias, one, 2, one, 2, one,
                                   2, 0, zero, 2, 1, &out) !=
        AOTI_TORCH_SUCCESS)
      state.SkipWithError(aoti_shims_last_error());
    benchmark::DoNotOptimize(out);
    aoti_torch_delete_tensor_object(out);
  }
  state.SetItemsProcessed(state.iterations() * N * O * H * W * C * K * K);
  aoti_torch_delete_tensor_object(input);
  aoti_torch_delete_tensor_object(weight);
  aoti_torch_delete_tensor_object(bias);
}
BENCHMARK(Shim)->ArgName("nhwc")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void Naive(benchmark::State &state) {
  Operands ops;
  std::vector<float> out(N * O * H * W);
  for (auto _ : state) {
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x) {
          float acc = ops.bias[o];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t ky = 0; ky < K; ++ky) {
              const int64_t iy = y - 1 + ky;
              if (iy < 0 || iy >= H)
                continue;
              for (int64_t kx = 0; kx < K; ++kx) {
                const int64_t ix = x - 1 + kx;
                if (ix < 0 || ix >= W)
                  continue;
                acc += ops.input[(c * H + iy) * W + ix] *
                       ops.weight[((o * C + c) * K + ky) * K + kx];
              }
            }
          out[(o * H + y) * W + x] = acc;
        }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * N * O * H * W * C * K * K);
}
BENCHMARK(Naive)->Unit(benchmark::kMillisecond)->UseRealTime();

void OneDnn(benchmark::State &state, bool blocked) {
  using namespace dnnl;
  Operands ops;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const auto f32 = memory::data_type::f32;
  memory::desc src({N, C, H, W}, f32, memory::format_tag::nchw);
  memory::desc wei({O, C, K, K}, f32, memory::format_tag::oihw);
  memory::desc bia({O}, f32, memory::format_tag::x);
  memory::desc dst({N, O, H, W}, f32, memory::format_tag::nchw);
  auto any = [&](const memory::desc &d) {
    return memory::desc(d.dims(), f32, memory::format_tag::any);
  };
  convolution_forward::desc desc(
      prop_kind::forward_inference, algorithm::convolution_direct,
      blocked ? any(src) : src, blocked ? any(wei) : wei, bia,
      blocked ? any(dst) : dst, {1, 1}, {0, 0}, {1, 1}, {1, 1});
  convolution_forward::primitive_desc pd(desc, eng);
  state.SetLabel(pd.impl_info_str());
  memory srcUser(src, eng, ops.input.data()), weiUser(wei, eng, ops.weight.data());
  memory srcMem(pd.src_desc(), eng), weiMem(pd.weights_desc(), eng);
  reorder(srcUser, srcMem).execute(strm, srcUser, srcMem);
  reorder(weiUser, weiMem).execute(strm, weiUser, weiMem);
  memory biaMem(bia, eng, ops.bias.data()), dstMem(pd.dst_desc(), eng);
  convolution_forward conv(pd);
  for (auto _ : state) {
    conv.execute(strm, {{DNNL_ARG_SRC, srcMem},
                        {DNNL_ARG_WEIGHTS, weiMem},
                        {DNNL_ARG_BIAS, biaMem},
                        {DNNL_ARG_DST, dstMem}});
    strm.wait();
  }
  state.SetItemsProcessed(state.iterations() * N * O * H * W * C * K * K);
}
BENCHMARK_CAPTURE(OneDnn, Blocked, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(OneDnn, Nchw, false)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
