//===- gemm_bench.cpp - The CPU GEMM fallbacks against the BLAS libraries -===//
//
// GFLOP/s of aoti_torch_cpu_{mm,addmm,bmm}_out next to one direct
// cblas_sgemm call and one direct dnnl_sgemm call of the same shape on the
// same buffers, in one process, so the ratio (the shim's tiling over the
// thread team plus its checks, against each library's own threading) is
// measured side by side. The shims run their float32 tiles on OpenBLAS or,
// where OpenBLAS has no AVX2 kernels for the CPU, on oneDNN's sgemm
// (cpu::sgemm in ops/cpu/parallel.cpp): the library the shim chose is its
// peak, the other one is a second opinion.
//   Square/n           mm_out, n = 256..2048
//   Zoo/<shape>        the CPU zoo's projections and MLPs (tests/gpu/zoo):
//                      BERT/ViT/GPT-2 width 768 (MLP 3072), Llama 1024 ->
//                      2816; tokens = batch x sequence, batch 1 and 8 of
//                      128 tokens (ViT: 197); addmm with a bias row as the
//                      models call it (weights transposed, as inductor
//                      passes nn.Linear's [out, in] weight)
//   Bmm/<shape>        attention-shaped bmm: batch x heads of 128 x 64
// Both sides get the same thread count: the shim's (cpuThreadCount():
// AOTI_NUM_THREADS, OMP_NUM_THREADS, physical cores; ops/cpu/parallel.h)
// and OpenBLAS's (openblas_set_num_threads to the same number before each
// direct call; the shim sets it back to 1 for its own calls). Counters:
// GFLOP/s (2 m n k per product, batch included). oneDNN threads with OpenMP:
// omp_set_num_threads to the same count before each direct call.
//
//   OMP_NUM_THREADS=8 build/bin/shims_gemm_bench [--benchmark_min_time=1]
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include "ops/cpu/parallel.h"

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A float32 CPU tensor over caller-owned memory.
AtenTensorHandle wrap(std::vector<float> &data, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides) {
  AtenTensorHandle handle = nullptr;
  if (aoti_torch_create_tensor_from_blob(
          data.data(), static_cast<int64_t>(sizes.size()), sizes.data(),
          strides.data(), 0, aoti_torch_dtype_float32(),
          aoti_torch_device_type_cpu(), 0, &handle) != AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "create_tensor_from_blob: %s\n",
                 aoti_shims_last_error());
    std::abort();
  }
  return handle;
}

std::vector<float> pattern(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 7 + static_cast<size_t>(seed) * 13) % 17) /
               17.0f -
           0.5f;
  return v;
}

void setFlops(benchmark::State &state, double flops) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = aoti::shims::ops::cpu::cpuThreadCount();
}

// The same count for OpenBLAS's own threading as the shim's team.
void blasThreads() {
  openblas_set_num_threads(aoti::shims::ops::cpu::cpuThreadCount());
}

// The same count for oneDNN's OpenMP team.
void dnnlThreads() { omp_set_num_threads(aoti::shims::ops::cpu::cpuThreadCount()); }

// --- mm / addmm: C[m x n] = (bias +) A[m x k] @ B[k x n] --------------------
// weightT: B is an nn.Linear weight [n, k] read transposed (column-major).

void runMm(benchmark::State &state, int64_t m, int64_t k, int64_t n,
           bool bias, bool weightT) {
  std::vector<float> a = pattern(m * k, 1), b = pattern(k * n, 2),
                     c(static_cast<size_t>(m * n)), bv = pattern(n, 3);
  AtenTensorHandle ta = wrap(a, {m, k}, {k, 1});
  AtenTensorHandle tb = weightT ? wrap(b, {k, n}, {1, k}) : wrap(b, {k, n}, {n, 1});
  AtenTensorHandle tc = wrap(c, {m, n}, {n, 1});
  AtenTensorHandle tbias = wrap(bv, {n}, {1});
  for (auto _ : state) {
    AOTITorchError rc =
        bias ? aoti_torch_cpu_addmm_out(tc, tbias, ta, tb, 1.0, 1.0)
             : aoti_torch_cpu_mm_out(tc, ta, tb);
    if (rc != AOTI_TORCH_SUCCESS) {
      state.SkipWithError(aoti_shims_last_error());
      break;
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * m * n * k);
  for (AtenTensorHandle h : {ta, tb, tc, tbias})
    aoti_torch_delete_tensor_object(h);
}

void runCblasMm(benchmark::State &state, int64_t m, int64_t k, int64_t n,
                bool bias, bool weightT) {
  std::vector<float> a = pattern(m * k, 1), b = pattern(k * n, 2),
                     c(static_cast<size_t>(m * n)), bv = pattern(n, 3);
  const int M = static_cast<int>(m), N = static_cast<int>(n),
            K = static_cast<int>(k);
  blasThreads();
  for (auto _ : state) {
    if (bias) // what a caller of cblas does for addmm: C = bias, then beta 1
      for (int64_t i = 0; i < m; ++i)
        std::copy(bv.begin(), bv.end(), c.begin() + i * n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, weightT ? CblasTrans : CblasNoTrans,
                M, N, K, 1.0f, a.data(), K, b.data(), weightT ? K : N,
                bias ? 1.0f : 0.0f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * m * n * k);
}

void runDnnlMm(benchmark::State &state, int64_t m, int64_t k, int64_t n,
               bool bias, bool weightT) {
  std::vector<float> a = pattern(m * k, 1), b = pattern(k * n, 2),
                     c(static_cast<size_t>(m * n)), bv = pattern(n, 3);
  dnnlThreads();
  for (auto _ : state) {
    if (bias)
      for (int64_t i = 0; i < m; ++i)
        std::copy(bv.begin(), bv.end(), c.begin() + i * n);
    if (dnnl_sgemm('N', weightT ? 'T' : 'N', m, n, k, 1.0f, a.data(), k,
                   b.data(), weightT ? k : n, bias ? 1.0f : 0.0f, c.data(),
                   n) != dnnl_success) {
      state.SkipWithError("dnnl_sgemm failed");
      break;
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * m * n * k);
}

void ShimMm(benchmark::State &state) {
  const int64_t n = state.range(0);
  runMm(state, n, n, n, false, false);
}
void CblasMm(benchmark::State &state) {
  const int64_t n = state.range(0);
  runCblasMm(state, n, n, n, false, false);
}
BENCHMARK(ShimMm)->Name("Square/shim_mm")->Arg(256)->Arg(512)->Arg(1024)
    ->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CblasMm)->Name("Square/cblas_sgemm")->Arg(256)->Arg(512)->Arg(1024)
    ->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
void DnnlMm(benchmark::State &state) {
  const int64_t n = state.range(0);
  runDnnlMm(state, n, n, n, false, false);
}
BENCHMARK(DnnlMm)->Name("Square/dnnl_sgemm")->Arg(256)->Arg(512)->Arg(1024)
    ->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// The zoo's linear layers: (name, tokens, in, out).
struct Linear {
  const char *name;
  int64_t tokens, in, out;
};
const Linear kLinears[] = {
    {"bert_qkv_b1", 128, 768, 768},      {"bert_qkv_b8", 1024, 768, 768},
    {"bert_mlp_up_b1", 128, 768, 3072},  {"bert_mlp_up_b8", 1024, 768, 3072},
    {"bert_mlp_down_b1", 128, 3072, 768}, {"bert_mlp_down_b8", 1024, 3072, 768},
    {"vit_qkv_b1", 197, 768, 2304},      {"vit_qkv_b8", 1576, 768, 2304},
    {"vit_mlp_up_b1", 197, 768, 3072},   {"vit_mlp_up_b8", 1576, 768, 3072},
    {"gpt2_attn_b1", 128, 768, 2304},    {"gpt2_attn_b8", 1024, 768, 2304},
    {"llama_mlp_b1", 128, 1024, 2816},   {"llama_mlp_b8", 1024, 1024, 2816},
};

void registerZoo() {
  for (const Linear &l : kLinears) {
    benchmark::RegisterBenchmark(
        (std::string("Zoo/shim_addmm/") + l.name).c_str(),
        [l](benchmark::State &s) { runMm(s, l.tokens, l.in, l.out, true, true); })
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(
        (std::string("Zoo/cblas_sgemm/") + l.name).c_str(),
        [l](benchmark::State &s) {
          runCblasMm(s, l.tokens, l.in, l.out, true, true);
        })
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(
        (std::string("Zoo/dnnl_sgemm/") + l.name).c_str(),
        [l](benchmark::State &s) {
          runDnnlMm(s, l.tokens, l.in, l.out, true, true);
        })
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(
        (std::string("Zoo/shim_mm/") + l.name).c_str(),
        [l](benchmark::State &s) { runMm(s, l.tokens, l.in, l.out, false, true); })
        ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
}

// --- bmm: batch x [m x k] @ [k x n] ----------------------------------------

void ShimBmm(benchmark::State &state) {
  const int64_t batch = state.range(0), m = 128, k = 64, n = 128;
  std::vector<float> a = pattern(batch * m * k, 1), b = pattern(batch * k * n, 2),
                     c(static_cast<size_t>(batch * m * n));
  AtenTensorHandle ta = wrap(a, {batch, m, k}, {m * k, k, 1});
  AtenTensorHandle tb = wrap(b, {batch, k, n}, {k * n, n, 1});
  AtenTensorHandle tc = wrap(c, {batch, m, n}, {m * n, n, 1});
  for (auto _ : state) {
    if (aoti_torch_cpu_bmm_out(tc, ta, tb) != AOTI_TORCH_SUCCESS) {
      state.SkipWithError(aoti_shims_last_error());
      break;
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * batch * m * n * k);
  for (AtenTensorHandle h : {ta, tb, tc})
    aoti_torch_delete_tensor_object(h);
}

// One multi-threaded cblas_sgemm per batch entry, as a cblas caller would.
void CblasBmm(benchmark::State &state) {
  const int64_t batch = state.range(0), m = 128, k = 64, n = 128;
  std::vector<float> a = pattern(batch * m * k, 1), b = pattern(batch * k * n, 2),
                     c(static_cast<size_t>(batch * m * n));
  blasThreads();
  for (auto _ : state) {
    for (int64_t p = 0; p < batch; ++p)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 128, 128, 64,
                  1.0f, a.data() + p * m * k, 64, b.data() + p * k * n, 128,
                  0.0f, c.data() + p * m * n, 128);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * batch * m * n * k);
}
// 12 heads at batch 1 and 8 (BERT-base's attention products).
BENCHMARK(ShimBmm)->Name("Bmm/shim_bmm")->Arg(12)->Arg(96)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CblasBmm)->Name("Bmm/cblas_sgemm_per_batch")->Arg(12)->Arg(96)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char **argv) {
  registerZoo();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
