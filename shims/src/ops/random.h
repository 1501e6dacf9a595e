//===- ops/random.h - The random fallbacks: rand, randint, dropout, ... ---===//
//
// ops/random.cpp decodes aoti_torch_{cpu,cuda}_{rand, randn, randint,
// randperm, bernoulli_, uniform, normal_functional, exponential,
// native_dropout}, allocates their results with the strides torch's meta
// functions give, reserves the counters the call draws from the
// process-wide generator and hands each device one of four problems:
//  - fill        every element of a tensor from one distribution (uniform,
//                normal, exponential, integers in a range, bernoulli(p));
//  - bernoulli   self[i] = bernoulli(p[i]), p broadcast to self;
//  - dropout     out = input * keep * 1/(1-p), mask = keep, in one pass;
//  - randperm    a permutation of 0..n-1: the indices sorted by a random
//                64-bit key each (ties by index).
// The generator, its state and how counters become values are in
// ops/random_draws.h, shared by both devices; docs/ops/random.md tells the
// whole design.
//  - cpu::*   ops/cpu/random.cpp, loops split over OpenMP threads;
//  - cuda::*  ops/cuda/random.cu, one thread per element (randperm: CUB's
//             radix sort), compiled only in CUDA builds (ops/device.h).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_RANDOM_H
#define AOTI_SHIMS_OPS_RANDOM_H

#include "error.h"
#include "ops/device.h"
#include "ops/random_draws.h"
#include "tensor.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace aoti::shims::ops {

/// torch's default seed (c10's default_rng_seed_val), the seed of a process
/// that neither sets AOTI_SHIMS_SEED nor calls aoti_shims_manual_seed.
constexpr uint64_t kDefaultRandomSeed = 67280421310721ull;

/// Takes `count` consecutive counters of the process-wide generator, under
/// its mutex: the call's element i uses counter offset + i. Fails (taking
/// none) while AOTI_SHIMS_SEED holds something that is not a seed.
Expected<random::Draws> reserveDraws(uint64_t count);

/// The seed AOTI_SHIMS_SEED's value `text` gives: nullopt when unset or
/// empty, else an unsigned 64-bit integer, decimal or 0x-hexadecimal.
/// Exposed so that tests can check the rule.
Expected<std::optional<uint64_t>> seedFromEnvironment(const char *text);

enum class Distribution { Uniform, Normal, Exponential, Integer, Bernoulli };

/// One distribution's parameters, already checked.
struct FillSpec {
  Distribution kind = Distribution::Uniform;
  double a = 0, b = 0; // Uniform [a, b); Normal mean a, std b;
                       // Exponential rate a; Bernoulli p = a
  int64_t low = 0;     // Integer: [low, low + range)
  uint64_t range = 0;
};

/// Fill `out` (tensor 0 of `walk`) element by element.
struct FillProblem {
  FillSpec spec;
  random::ElementWalk<1> walk;
  random::Draws draws;
};

/// self (tensor 0) = bernoulli(p (tensor 1, broadcast: strides 0)).
struct BernoulliProblem {
  random::ElementWalk<2> walk;
  random::Draws draws;
};

enum class DropoutMode {
  Copy,    // not training: out = input, mask = true
  Drop,    // keep with probability `keep`: out = input * keep * scale
  DropAll, // p == 1: out = 0, mask = false
};

/// Tensors 0, 1, 2: out, mask (bool), input.
struct DropoutProblem {
  DropoutMode mode = DropoutMode::Copy;
  double keep = 1;  // 1 - p
  double scale = 1; // 1 / (1 - p)
  random::ElementWalk<3> walk;
  random::Draws draws;
};

/// out: a contiguous 1-d tensor of n elements.
struct RandpermProblem {
  int64_t n = 0;
  random::Draws draws;
};

/// `sizes` and each tensor's `strides` as an element walk: dimensions of
/// size 1 dropped, and a dimension merged into the next inner one where
/// every tensor steps over it as over that one's whole extent.
template <int N>
inline Expected<random::ElementWalk<N>>
walkOf(std::span<const int64_t> sizes,
       const std::array<std::span<const int64_t>, N> &strides) {
  random::ElementWalk<N> walk;
  walk.numel = 1;
  for (int64_t s : sizes)
    walk.numel *= s;
  std::vector<int64_t> innerSizes; // innermost first
  std::vector<std::array<int64_t, N>> innerSteps;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1)
      continue;
    bool merges = !innerSizes.empty();
    for (int t = 0; t < N && merges; ++t)
      merges = strides[t][d] == innerSteps.back()[t] * innerSizes.back();
    if (merges) {
      innerSizes.back() *= sizes[d];
      continue;
    }
    innerSizes.push_back(sizes[d]);
    std::array<int64_t, N> step;
    for (int t = 0; t < N; ++t)
      step[t] = strides[t][d];
    innerSteps.push_back(step);
  }
  if (innerSizes.size() > static_cast<size_t>(random::kMaxWalkDims))
    return Error::failure("a tensor of ", innerSizes.size(),
                          " non-mergeable dimensions: random ops take at "
                          "most ",
                          random::kMaxWalkDims);
  walk.dims = static_cast<int32_t>(innerSizes.size());
  for (int32_t d = 0; d < walk.dims; ++d) {
    const size_t from = innerSizes.size() - 1 - static_cast<size_t>(d);
    walk.sizes[d] = innerSizes[from];
    for (int t = 0; t < N; ++t)
      walk.strides[t][d] = innerSteps[from][t];
  }
  return walk;
}

namespace cpu {
Error randomFill(const Tensor &out, const FillProblem &problem);
Error bernoulli(const Tensor &self, const Tensor &p,
                const BernoulliProblem &problem);
Error dropout(const Tensor &out, const Tensor &mask, const Tensor &input,
              const DropoutProblem &problem);
Error randperm(const Tensor &out, const RandpermProblem &problem);
/// Fails naming the first element of the CPU tensor `p` that is not a
/// probability (outside [0, 1], or NaN), as torch's CPU bernoulli_ does.
Error checkProbabilities(const Tensor &p);
} // namespace cpu

namespace cuda {
/// As the cpu:: functions, on the tensors' device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, randomFill, const Tensor &out,
                   const FillProblem &problem);
AOTI_SHIMS_CUDA_OP(Error, bernoulli, const Tensor &self, const Tensor &p,
                   const BernoulliProblem &problem);
AOTI_SHIMS_CUDA_OP(Error, dropout, const Tensor &out, const Tensor &mask,
                   const Tensor &input, const DropoutProblem &problem);
AOTI_SHIMS_CUDA_OP(Error, randperm, const Tensor &out,
                   const RandpermProblem &problem);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_RANDOM_H
