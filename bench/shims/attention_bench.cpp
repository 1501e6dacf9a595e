//===- attention_bench.cpp - The CPU SDPA fallback at BERT-base's shape ----===//
//
// aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu (packing,
// OpenBLAS SGEMMs and an exact softmax) against the naive definition
// written as plain loops in float32 (per query row: dot products, softmax,
// weighted sum of values), at B=1, H=12, L=128, E=64: one attention layer of
// BERT-base on one 128-token sequence. FLOP counts are the two matrix
// products, 4*B*H*Lq*Lk*E; times are wall-clock (the shim uses threads).
// Not a test: run by hand,
//   build/bin/shims_attention_bench
// and see docs/shims.md for the figures.
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int64_t kBatch = 1, kHeads = 12, kLen = 128, kHeadDim = 64;

std::vector<float> pattern(size_t n, unsigned seed) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(((i * 7 + seed * 13) % 17)) / 8.0f - 1.0f;
  return values;
}

uint16_t toBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>(bits >> 16);
}

AtenTensorHandle wrap(void *data, int32_t dtype) {
  const int64_t sizes[] = {kBatch, kHeads, kLen, kHeadDim};
  AtenTensorHandle handle = nullptr;
  if (aoti_torch_create_tensor_from_blob(data, 4, sizes, nullptr, 0, dtype,
                                         aoti_torch_device_type_cpu(), 0,
                                         &handle) != AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "%s\n", aoti_shims_last_error());
    std::abort();
  }
  return handle;
}

void setFlops(benchmark::State &state) {
  const double flops = 4.0 * kBatch * kHeads * kLen * kLen * kHeadDim;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

void runShim(benchmark::State &state, int32_t dtype, void *q, void *k,
             void *v, bool causal) {
  AtenTensorHandle query = wrap(q, dtype), key = wrap(k, dtype),
                   value = wrap(v, dtype);
  for (auto _ : state) {
    AtenTensorHandle out = nullptr, lse = nullptr;
    if (aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
            query, key, value, 0.0, causal ? 1 : 0, nullptr, nullptr, &out,
            &lse) != AOTI_TORCH_SUCCESS) {
      state.SkipWithError(aoti_shims_last_error());
      break;
    }
    benchmark::DoNotOptimize(out);
    aoti_torch_delete_tensor_object(out);
    aoti_torch_delete_tensor_object(lse);
  }
  aoti_torch_delete_tensor_object(query);
  aoti_torch_delete_tensor_object(key);
  aoti_torch_delete_tensor_object(value);
  setFlops(state);
}

void BM_ShimFloat32(benchmark::State &state) {
  const size_t n = kBatch * kHeads * kLen * kHeadDim;
  std::vector<float> q = pattern(n, 1), k = pattern(n, 2), v = pattern(n, 3);
  runShim(state, aoti_torch_dtype_float32(), q.data(), k.data(), v.data(),
          state.range(0) != 0);
}
BENCHMARK(BM_ShimFloat32)->Arg(0)->Arg(1)->ArgName("causal")->UseRealTime();

void BM_ShimBFloat16(benchmark::State &state) {
  const size_t n = kBatch * kHeads * kLen * kHeadDim;
  std::vector<uint16_t> q(n), k(n), v(n);
  std::vector<float> fq = pattern(n, 1), fk = pattern(n, 2),
                     fv = pattern(n, 3);
  for (size_t i = 0; i < n; ++i) {
    q[i] = toBFloat16(fq[i]);
    k[i] = toBFloat16(fk[i]);
    v[i] = toBFloat16(fv[i]);
  }
  runShim(state, aoti_torch_dtype_bfloat16(), q.data(), k.data(), v.data(),
          false);
}
BENCHMARK(BM_ShimBFloat16)->UseRealTime();

// The definition, as plain loops (contiguous float32 [B, H, L, E]).
void naiveAttention(const float *q, const float *k, const float *v,
                    float *out) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  std::vector<float> scores(kLen);
  for (int64_t bh = 0; bh < kBatch * kHeads; ++bh) {
    const float *qh = q + bh * kLen * kHeadDim;
    const float *kh = k + bh * kLen * kHeadDim;
    const float *vh = v + bh * kLen * kHeadDim;
    float *oh = out + bh * kLen * kHeadDim;
    for (int64_t i = 0; i < kLen; ++i) {
      float max = -INFINITY;
      for (int64_t j = 0; j < kLen; ++j) {
        float dot = 0.0f;
        for (int64_t d = 0; d < kHeadDim; ++d)
          dot += qh[i * kHeadDim + d] * kh[j * kHeadDim + d];
        scores[j] = dot * scale;
        max = std::max(max, scores[j]);
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < kLen; ++j) {
        scores[j] = std::exp(scores[j] - max);
        sum += scores[j];
      }
      for (int64_t d = 0; d < kHeadDim; ++d) {
        float acc = 0.0f;
        for (int64_t j = 0; j < kLen; ++j)
          acc += scores[j] * vh[j * kHeadDim + d];
        oh[i * kHeadDim + d] = acc / sum;
      }
    }
  }
}

void BM_NaiveFloat32(benchmark::State &state) {
  const size_t n = kBatch * kHeads * kLen * kHeadDim;
  std::vector<float> q = pattern(n, 1), k = pattern(n, 2), v = pattern(n, 3);
  std::vector<float> out(n);
  for (auto _ : state) {
    naiveAttention(q.data(), k.data(), v.data(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  setFlops(state);
}
BENCHMARK(BM_NaiveFloat32)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
