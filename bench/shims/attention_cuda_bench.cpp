//===- attention_cuda_bench.cpp - The CUDA SDPA fallbacks at model shapes --===//
//
// Device time of one call of each CUDA attention fallback (efficient, flash,
// cuDNN), timed with CUDA events around the call on the current stream and
// synchronised after each, so the figure is what a model's run sees
// (output allocation included). Shapes of the zoo's models: BERT-base,
// ViT-B/16, GPT-2 (causal, 1024 tokens), Llama-style grouped-query (32
// query / 8 key-value heads, head dim 128, causal), Whisper's encoder (1500
// tokens, 6 and 20 heads). Each case runs under the default tiled kernel
// and, suffixed /row, under the warp-per-row kernel before it
// (AOTI_SHIMS_CUDA_ATTENTION=row): an A/B in one run. Compare with eager's
// kernels for the same calls: bench/gpu/attention_eager.py prints the same
// table from torch. Not a test; on a GPU machine:
//   build/bin/shims_attention_cuda_bench [--benchmark_filter=whisper]
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct Shape {
  const char *name;
  int64_t B, H, Hk, L, E;
  bool causal;
};

constexpr Shape kShapes[] = {
    {"bert_base", 1, 12, 12, 128, 64, false},
    {"vit_b16", 1, 12, 12, 197, 64, false},
    {"gpt2_1024", 1, 12, 12, 1024, 64, true},
    {"llama_gqa_2048", 1, 32, 8, 2048, 128, true},
    {"whisper_tiny_enc", 1, 6, 6, 1500, 64, false},
    {"whisper_large_enc", 1, 20, 20, 1500, 64, false},
};

enum Variant { kEfficient, kFlash, kCudnn };

AtenTensorHandle filled(int64_t B, int64_t H, int64_t L, int64_t E,
                        int32_t dtype) {
  const int64_t sizes[] = {B, H, L, E};
  AtenTensorHandle t = nullptr;
  if (aoti_torch_empty_strided(4, sizes, nullptr, dtype,
                               aoti_torch_device_type_cuda(), 0,
                               &t) != AOTI_TORCH_SUCCESS)
    return nullptr;
  void *data = nullptr;
  aoti_torch_get_data_ptr(t, &data);
  // A repeating byte pattern: small finite values in every float dtype.
  cudaMemset(data, 0x3c, static_cast<size_t>(B * H * L * E) *
                             (dtype == aoti_torch_dtype_float32() ? 4 : 2));
  return t;
}

// kernel: AOTI_SHIMS_CUDA_ATTENTION's value, or null for the default.
void BM_Attention(benchmark::State &state, Shape shape, Variant variant,
                  int32_t dtype, const char *kernel) {
  if (kernel)
    setenv("AOTI_SHIMS_CUDA_ATTENTION", kernel, 1);
  else
    unsetenv("AOTI_SHIMS_CUDA_ATTENTION");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  AtenTensorHandle q = filled(shape.B, shape.H, shape.L, shape.E, dtype);
  AtenTensorHandle k = filled(shape.B, shape.Hk, shape.L, shape.E, dtype);
  AtenTensorHandle v = filled(shape.B, shape.Hk, shape.L, shape.E, dtype);
  if (!q || !k || !v) {
    state.SkipWithError(aoti_shims_last_error());
    return;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    AtenTensorHandle r[9] = {};
    int64_t maxQ = 0, maxK = 0;
    cudaEventRecord(start, nullptr);
    AOTITorchError err = AOTI_TORCH_FAILURE;
    switch (variant) {
    case kEfficient:
      err = aoti_torch_cuda__scaled_dot_product_efficient_attention(
          q, k, v, nullptr, 0, 0.0, shape.causal, nullptr, &r[0], &r[1],
          &r[2], &r[3]);
      break;
    case kFlash:
      err = aoti_torch_cuda__scaled_dot_product_flash_attention(
          q, k, v, 0.0, shape.causal, 0, nullptr, &r[0], &r[1], &r[2], &r[3],
          &maxQ, &maxK, &r[6], &r[7], &r[8]);
      break;
    case kCudnn:
      err = aoti_torch_cuda__scaled_dot_product_cudnn_attention(
          q, k, v, nullptr, 0, 0.0, shape.causal, 0, nullptr, &r[0], &r[1],
          &r[2], &r[3], &maxQ, &maxK, &r[6], &r[7], &r[8]);
      break;
    }
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    if (err != AOTI_TORCH_SUCCESS) {
      state.SkipWithError(aoti_shims_last_error());
      break;
    }
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
    for (AtenTensorHandle h : r)
      if (h)
        aoti_torch_delete_tensor_object(h);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  aoti_torch_delete_tensor_object(q);
  aoti_torch_delete_tensor_object(k);
  aoti_torch_delete_tensor_object(v);
}

void registerAll() {
  const struct {
    Variant variant;
    const char *name;
  } variants[] = {{kEfficient, "efficient"}, {kFlash, "flash"},
                  {kCudnn, "cudnn"}};
  const struct {
    int32_t code;
    const char *name;
  } dtypes[] = {{aoti_torch_dtype_bfloat16(), "bf16"},
                {aoti_torch_dtype_float32(), "f32"}};
  const char *kernels[] = {nullptr, "row"};
  for (const Shape &shape : kShapes)
    for (const auto &variant : variants)
      for (const auto &dtype : dtypes)
        for (const char *kernel : kernels) {
          const std::string name = std::string(shape.name) + "/" +
                                   variant.name + "/" + dtype.name +
                                   (kernel ? std::string("/") + kernel : "");
          benchmark::RegisterBenchmark(name.c_str(), BM_Attention, shape,
                                       variant.variant, dtype.code, kernel)
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
}

} // namespace

int main(int argc, char **argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
