//===- ops/cpu/parallel.cpp - The CPU fallbacks' thread count -------------===//
//
// See parallel.h for the rules. Physical cores are counted from sysfs: the
// distinct (physical_package_id, core_id) pairs of the CPUs in this
// process's affinity mask, falling back to the mask's size (then to
// std::thread::hardware_concurrency) where sysfs does not say.
//
//===----------------------------------------------------------------------===//
#include "ops/cpu/parallel.h"

#ifdef AOTI_SHIMS_HAVE_OPENBLAS
#include <cblas.h>
#endif
#include <dnnl.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace aoti::shims::ops::cpu {
namespace {

constexpr int kMaxThreads = 4096;

// A positive integer (the whole string, or up to the first comma as
// OMP_NUM_THREADS lists one count per nesting level), else nullopt.
std::optional<int> positiveCount(std::string_view text, bool firstOfList) {
  if (firstOfList)
    text = text.substr(0, text.find(','));
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  int value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 1)
    return std::nullopt;
  return std::min(value, kMaxThreads);
}

std::optional<std::string_view> environment(const char *name) {
  const char *value = std::getenv(name);
  if (!value)
    return std::nullopt;
  return std::string_view(value);
}

std::optional<int> readInt(const std::string &path) {
  std::ifstream in(path);
  int value;
  if (in >> value)
    return value;
  return std::nullopt;
}

std::atomic<int> overrideCount{0};
std::atomic<int> lastTeam{0};
std::atomic<int> maxBlasThreads{0};

// SingleThreadedBlas: calls of several host threads overlap, so the first
// to start sets OpenBLAS to one thread and keeps the host's count, and the
// last to end sets it back: no call's tiles run after another call gave the
// count back.
std::mutex blasCountMutex;
int blasCallsActive = 0;
int blasHostCount = 1;

} // namespace

int threadCountFromEnvironment(std::optional<std::string_view> aoti,
                               std::optional<std::string_view> omp,
                               int physicalCores) {
  if (aoti)
    if (std::optional<int> n = positiveCount(*aoti, /*firstOfList=*/false))
      return *n;
  if (omp)
    if (std::optional<int> n = positiveCount(*omp, /*firstOfList=*/true))
      return *n;
  return std::clamp(physicalCores, 1, kMaxThreads);
}

int physicalCoreCount() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0)
    return std::max(1u, std::thread::hardware_concurrency());
  std::set<std::pair<int, int>> cores;
  int cpus = 0;
  bool topologyKnown = true;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask))
      continue;
    ++cpus;
    const std::string base =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::optional<int> package = readInt(base + "physical_package_id");
    std::optional<int> core = readInt(base + "core_id");
    if (!package || !core) {
      topologyKnown = false;
      continue;
    }
    cores.emplace(*package, *core);
  }
  if (topologyKnown && !cores.empty())
    return static_cast<int>(cores.size());
  return std::max(1, cpus);
}

int cpuThreadCount() {
  if (int forced = overrideCount.load(std::memory_order_relaxed); forced > 0)
    return forced;
  // The environment is read once: getenv is not safe against a concurrent
  // setenv, and the count must not change between the calls of one run.
  static const int fromEnvironment = threadCountFromEnvironment(
      environment("AOTI_NUM_THREADS"), environment("OMP_NUM_THREADS"),
      physicalCoreCount());
  return fromEnvironment;
}

void setCpuThreadCount(int threads) {
  overrideCount.store(std::clamp(threads, 0, kMaxThreads),
                      std::memory_order_relaxed);
}

SingleThreadedBlas::SingleThreadedBlas() {
#ifdef AOTI_SHIMS_HAVE_OPENBLAS
  std::lock_guard<std::mutex> lock(blasCountMutex);
  if (blasCallsActive++ == 0) {
    blasHostCount = openblas_get_num_threads();
    if (blasHostCount != 1)
      openblas_set_num_threads(1);
  }
#endif
}

SingleThreadedBlas::~SingleThreadedBlas() {
#ifdef AOTI_SHIMS_HAVE_OPENBLAS
  std::lock_guard<std::mutex> lock(blasCountMutex);
  if (--blasCallsActive == 0 && blasHostCount != 1)
    openblas_set_num_threads(blasHostCount);
#endif
}

int takeMaxBlasThreadCount() {
  return maxBlasThreads.exchange(0, std::memory_order_relaxed);
}

OmpThreads::OmpThreads() : saved_(omp_get_max_threads()) {
  omp_set_num_threads(cpuThreadCount());
}

OmpThreads::~OmpThreads() { omp_set_num_threads(saved_); }

int threadIndex() { return omp_get_thread_num(); }

void noteTeamSize(int outside) {
  if (outside > 0)
    lastTeam.store(outside, std::memory_order_relaxed);
  else if (omp_get_thread_num() == 0)
    lastTeam.store(omp_get_num_threads(), std::memory_order_relaxed);
}

int lastTeamSize() { return lastTeam.load(std::memory_order_relaxed); }

SgemmLibrary chooseSgemmLibrary(std::optional<std::string_view> forced,
                                std::string_view openBlasCore,
                                bool cpuHasAvx2) {
  if (forced == "onednn" || openBlasCore.empty())
    return SgemmLibrary::OneDnn;
  if (forced == "openblas")
    return SgemmLibrary::OpenBlas;
  // OpenBLAS's x86-64 cores with AVX2 (or wider) kernels; any other name on
  // a CPU with AVX2 is the fallback of a model it does not know.
  static constexpr std::string_view kWideCores[] = {
      "haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"};
  std::string core(openBlasCore);
  std::transform(core.begin(), core.end(), core.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  const bool wide = std::find(std::begin(kWideCores), std::end(kWideCores),
                              core) != std::end(kWideCores);
  return cpuHasAvx2 && !wide ? SgemmLibrary::OneDnn : SgemmLibrary::OpenBlas;
}

SgemmLibrary sgemmLibrary(std::string *reason) {
  struct Decision {
    SgemmLibrary library;
    std::string why;
  };
  static const Decision decision = [] {
    std::optional<std::string_view> forced =
        environment("AOTI_SHIMS_CPU_SGEMM");
    std::string core;
#ifdef AOTI_SHIMS_HAVE_OPENBLAS
    if (const char *name = openblas_get_corename())
      core = name;
#endif
    const bool avx2 = __builtin_cpu_supports("avx2");
    SgemmLibrary library = chooseSgemmLibrary(forced, core, avx2);
    std::string why =
        forced && (*forced == "onednn" || *forced == "openblas")
            ? "AOTI_SHIMS_CPU_SGEMM=" + std::string(*forced)
        : core.empty() ? std::string("built without OpenBLAS")
        : library == SgemmLibrary::OneDnn
            ? "OpenBLAS runs its " + core +
                  " kernels on a CPU with AVX2 (a model it does not know)"
            : "OpenBLAS runs its " + core + " kernels";
    return Decision{library, std::move(why)};
  }();
  if (reason)
    *reason = decision.why;
  return decision.library;
}

void sgemm(bool transA, bool transB, int m, int n, int k, float alpha,
           const float *a, int lda, const float *b, int ldb, float beta,
           float *c, int ldc) {
#ifdef AOTI_SHIMS_HAVE_OPENBLAS
  if (sgemmLibrary() == SgemmLibrary::OpenBlas) {
    const int count = openblas_get_num_threads();
    int seen = maxBlasThreads.load(std::memory_order_relaxed);
    while (count > seen && !maxBlasThreads.compare_exchange_weak(
                               seen, count, std::memory_order_relaxed))
      ;
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
                b, ldb, beta, c, ldc);
    return;
  }
#endif
  // dnnl_sgemm runs on OpenMP's threads of the calling thread: one here,
  // since the callers share the tiles out themselves (inside a parallel
  // region OpenMP gives nested calls one thread anyway).
  const int saved = omp_get_max_threads();
  if (!omp_in_parallel())
    omp_set_num_threads(1);
  dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda,
             b, ldb, beta, c, ldc);
  if (!omp_in_parallel())
    omp_set_num_threads(saved);
}

} // namespace aoti::shims::ops::cpu
