//===- gemm_bench.cpp - aoti_torch_cpu_mm_out against cblas_sgemm ----------===//
//
// What the shim costs on top of the BLAS call it makes: square float32
// matmuls of 256..2048, once through aoti_torch_cpu_mm_out (handle
// decoding, checks, layout analysis, then cblas_sgemm) and once as a
// direct cblas_sgemm on the same buffers. Both report FLOP/s (2 n^3 per
// product). OpenBLAS' thread count is its own (OPENBLAS_NUM_THREADS).
//
//   build/bin/shims_gemm_bench [--benchmark_min_time=1]
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A contiguous n x n float32 CPU tensor over caller-owned memory.
AtenTensorHandle wrap(std::vector<float> &data, int64_t n) {
  const int64_t sizes[] = {n, n};
  const int64_t strides[] = {n, 1};
  AtenTensorHandle handle = nullptr;
  if (aoti_torch_create_tensor_from_blob(data.data(), 2, sizes, strides, 0,
                                         aoti_torch_dtype_float32(),
                                         aoti_torch_device_type_cpu(), 0,
                                         &handle) != AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "create_tensor_from_blob: %s\n",
                 aoti_shims_last_error());
    std::abort();
  }
  return handle;
}

struct Operands {
  explicit Operands(int64_t n)
      : a(static_cast<size_t>(n * n)), b(a.size()), c(a.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i % 17) / 17.0f - 0.5f;
      b[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
    }
  }
  std::vector<float> a, b, c;
};

void setFlops(benchmark::State &state, int64_t n) {
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(n) * static_cast<double>(n) *
          static_cast<double>(n),
      benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::OneK::kIs1000);
}

void ShimCpuMmOut(benchmark::State &state) {
  const int64_t n = state.range(0);
  Operands ops(n);
  AtenTensorHandle a = wrap(ops.a, n), b = wrap(ops.b, n), c = wrap(ops.c, n);
  for (auto _ : state) {
    if (aoti_torch_cpu_mm_out(c, a, b) != AOTI_TORCH_SUCCESS) {
      state.SkipWithError(aoti_shims_last_error());
      break;
    }
    benchmark::DoNotOptimize(ops.c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, n);
  aoti_torch_delete_tensor_object(a);
  aoti_torch_delete_tensor_object(b);
  aoti_torch_delete_tensor_object(c);
}

void CblasSgemm(benchmark::State &state) {
  const int64_t n = state.range(0);
  Operands ops(n);
  const int dim = static_cast<int>(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, dim, dim, dim, 1.0f,
                ops.a.data(), dim, ops.b.data(), dim, 0.0f, ops.c.data(), dim);
    benchmark::DoNotOptimize(ops.c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, n);
}

BENCHMARK(ShimCpuMmOut)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CblasSgemm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
