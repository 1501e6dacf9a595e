//===- ops/cpu/parallel.h - How many threads the CPU fallbacks use, and how -===//
//
// One rule for every CPU fallback (GEMM, attention, convolution), so that
// they never multiply each other's threads and a comparison with eager
// PyTorch at the same thread count is fair:
//
//  - The threads are OpenMP's (GCC's libgomp). An AOTInductor CPU model runs
//    its own kernels in `#pragma omp parallel` regions and oneDNN (Debian's
//    build) runs its primitives on OpenMP too, so the fallbacks reuse the
//    same, already running team: no thread is started per call, and none of
//    them competes with another pool.
//  - How many: cpuThreadCount(), read once from the environment:
//      AOTI_NUM_THREADS   (a positive integer) if set, else
//      OMP_NUM_THREADS    (its first value, as OpenMP reads it) if set, else
//      the number of physical cores this process may run on (hyperthreads
//                         of one core count once), which is eager PyTorch's
//                         default (torch.get_num_threads()).
//    A value that is not a positive integer is ignored (the next rule
//    applies). setCpuThreadCount() overrides it for the process (tests).
//  - BLAS is always called single-threaded: OpenBLAS's own thread pool
//    (the pthread build, whose idle threads spin) is set to one thread for
//    the length of each fallback call (SingleThreadedBlas, on the calling
//    thread, before any tile runs), and the fallbacks split their products
//    into tiles themselves, one tile per OpenMP thread. The count is set
//    back when the call returns, so a host that uses OpenBLAS itself keeps
//    its setting, and one that changes it between calls
//    (openblas_set_num_threads(n)) does not give every tile n threads of
//    its own: that ran each of two tiles on OpenBLAS's two threads on two
//    cores, 3x slower (bench/shims/gemm_bench.cpp, whose direct cblas
//    calls set the count, 2026-12-05). Overlapping calls from several host
//    threads share one saving (SingleThreadedBlas).
//  - oneDNN reads OpenMP's thread count of the calling thread; OmpThreads
//    sets it to cpuThreadCount() around a oneDNN call and restores it.
//  - Every float32 GEMM goes through sgemm() below: OpenBLAS's cblas_sgemm,
//    unless OpenBLAS runs kernels older than the CPU it runs on. OpenBLAS
//    picks its kernels by CPU model number when it loads, and one that does
//    not know the model falls back to generic SSE3 ones ("Prescott"): Debian
//    12's 0.3.21 does that on Emerald Rapids (measured on the H200 machine:
//    BERT's CPU run 72 ms with them, 24 ms with OPENBLAS_CORETYPE=Cooperlake,
//    eager 21 ms). Then sgemm() calls oneDNN's dnnl_sgemm, which picks its
//    kernels by the instruction sets the CPU reports. AOTI_SHIMS_CPU_SGEMM=
//    openblas or =onednn forces one (tests run both).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CPU_PARALLEL_H
#define AOTI_SHIMS_OPS_CPU_PARALLEL_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aoti::shims::ops::cpu {

/// The number of threads a CPU fallback may use (>= 1; the rules above).
int cpuThreadCount();

/// Replaces the count from the environment for the rest of the process
/// (0 returns to the environment's). For tests and embedding hosts.
void setCpuThreadCount(int threads);

/// The count the environment gives, without the override: exposed so that
/// tests can check the rules. `aoti`, `omp`: the two variables' values
/// (nullopt when unset); `physicalCores`: the machine's.
int threadCountFromEnvironment(std::optional<std::string_view> aoti,
                               std::optional<std::string_view> omp,
                               int physicalCores);

/// Physical cores among the CPUs this process may run on (>= 1).
int physicalCoreCount();

/// OpenBLAS single-threaded for the object's lifetime, its count before set
/// back after (no-op without OpenBLAS). OpenBLAS's setting is global to the
/// process: objects alive at once on several threads (concurrent calls)
/// share one saving, taken by the first and given back by the last. Only on
/// a thread outside a parallel region.
class SingleThreadedBlas {
public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas &) = delete;
  SingleThreadedBlas &operator=(const SingleThreadedBlas &) = delete;
};

/// The largest OpenBLAS thread count an OpenBLAS sgemm() has run under since
/// the last call of this function (0: none ran): what a test checks the rule
/// above against.
int takeMaxBlasThreadCount();

/// Which library sgemm() calls.
enum class SgemmLibrary { OpenBlas, OneDnn };

/// The library for this process (the rule above), decided once. `reason`,
/// when given, receives a sentence saying why (for logs and tests).
SgemmLibrary sgemmLibrary(std::string *reason = nullptr);

/// The rule above as a pure function, for tests: `forced` is
/// AOTI_SHIMS_CPU_SGEMM's value, `openBlasCore` OpenBLAS's core name (empty
/// without OpenBLAS), `cpuHasAvx2` whether the CPU has AVX2.
SgemmLibrary chooseSgemmLibrary(std::optional<std::string_view> forced,
                                std::string_view openBlasCore,
                                bool cpuHasAvx2);

/// C = alpha * op(A) op(B) + beta * C in row-major storage, single-threaded
/// (the callers tile; the BLAS conventions: lda/ldb/ldc are row strides,
/// beta == 0 does not read C).
void sgemm(bool transA, bool transB, int m, int n, int k, float alpha,
           const float *a, int lda, const float *b, int ldb, float beta,
           float *c, int ldc);

/// Sets OpenMP's thread count of the calling thread to cpuThreadCount()
/// for the object's lifetime (oneDNN's primitives read it).
class OmpThreads {
public:
  OmpThreads();
  ~OmpThreads();
  OmpThreads(const OmpThreads &) = delete;
  OmpThreads &operator=(const OmpThreads &) = delete;

private:
  int saved_;
};

/// Records the size of the team running the calling region (1 outside of
/// one; with 0, the team's own size, as thread 0 of it sees it).
void noteTeamSize(int outside);

/// How many threads the last parallelFor of the process ran on: what a
/// test checks the thread count against.
int lastTeamSize();

/// Runs body(item) for every item in [0, items) on up to `threads` OpenMP
/// threads (dynamic schedule: items may differ in cost). With one thread,
/// or one item, it runs on the calling thread without a parallel region.
/// body must not throw.
template <typename Body>
void parallelFor(int64_t items, int threads, Body &&body) {
  if (threads <= 1 || items <= 1) {
    noteTeamSize(1);
    for (int64_t item = 0; item < items; ++item)
      body(item);
    return;
  }
  const int team = static_cast<int>(std::min<int64_t>(threads, items));
#pragma omp parallel num_threads(team)
  {
    noteTeamSize(0);
#pragma omp for schedule(dynamic, 1)
    for (int64_t item = 0; item < items; ++item)
      body(item);
  }
}

/// The OpenMP thread number of the caller inside parallelFor (0 outside).
int threadIndex();

} // namespace aoti::shims::ops::cpu

#endif // AOTI_SHIMS_OPS_CPU_PARALLEL_H
