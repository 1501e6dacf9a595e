//===- ops/cpu/random.cpp - The random fallbacks on the host -------------===//
//
// Each element computes its own Philox block from (seed, offset + index)
// (ops/random_draws.h, the same code the CUDA kernels run), so the work is
// split freely: chunks of kChunk elements over the OpenMP threads
// (ops/cpu/parallel.h), and the values are those of a serial loop whatever
// the thread count. An element's memory offset comes from its row-major
// index through the call's ElementWalk (a division per merged dimension),
// as on the device; Philox's ten rounds cost more than that.
//
// randperm sorts the indices 0..n-1 by their 64-bit keys, ties by index
// (std::sort on the pair): the order CUB's stable radix sort gives on CUDA.
//
// Values are computed in double (float for the dropout product, as torch's
// CPU kernel does for float32, float16 and bfloat16) and converted to the
// element type by ops/cpu/element.h's store(): floating values round to
// nearest even through float, integers convert as c10 does.
//
//===----------------------------------------------------------------------===//
#include "ops/random.h"

#include "ops/cpu/element.h"
#include "ops/cpu/parallel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

using random::Block;

/// Elements per parallelFor item: enough that a thread's share dwarfs the
/// cost of handing it out.
constexpr int64_t kChunk = int64_t{1} << 15;

// The significand bits of a floating dtype: a uniform value of that many
// random bits is exact in it. (Integer dtypes never draw uniforms.)
template <typename T> constexpr int kDigits = 53;
template <> constexpr int kDigits<float> = 24;
template <> constexpr int kDigits<Half> = 11;
template <> constexpr int kDigits<BHalf> = 8;

// Half of torch.finfo(dtype).eps: the exponential's smallest -log.
template <typename T> constexpr double kHalfEpsilon = 0x1.0p-53;
template <> constexpr double kHalfEpsilon<float> = 0x1.0p-24;
template <> constexpr double kHalfEpsilon<Half> = 0x1.0p-11;
template <> constexpr double kHalfEpsilon<BHalf> = 0x1.0p-8;

template <typename T> T fillValue(const Block &b, const FillSpec &spec) {
  switch (spec.kind) {
  case Distribution::Uniform: {
    const double u = random::unitInterval<kDigits<T>>(b);
    T value = store<T>(std::fma(u, spec.b - spec.a, spec.a));
    // Rounding to the dtype may reach `to`; [from, to) is kept by giving
    // such a value `from` instead, as torch's CUDA kernel does.
    if (spec.a < spec.b && static_cast<double>(load(value)) >= spec.b)
      value = store<T>(spec.a);
    return value;
  }
  case Distribution::Normal:
    return store<T>(std::fma(spec.b, random::standardNormal(b), spec.a));
  case Distribution::Exponential:
    return store<T>(random::exponential(b, spec.a, kHalfEpsilon<T>));
  case Distribution::Integer:
    return store<T>(random::integerInRange(b, spec.low, spec.range));
  case Distribution::Bernoulli:
    return store<T>(random::bernoulli(b, spec.a) ? 1 : 0);
  }
  return store<T>(0);
}

/// body(begin, end) over [0, items) in chunks, on the fallbacks' threads.
template <typename Body> void inChunks(int64_t items, Body &&body) {
  const int64_t chunks = (items + kChunk - 1) / kChunk;
  parallelFor(chunks, cpuThreadCount(), [&](int64_t chunk) {
    const int64_t begin = chunk * kChunk;
    body(begin, std::min(items, begin + kChunk));
  });
}

// The arithmetic type torch's CPU kernels multiply T in.
template <typename T>
using OpMath = std::conditional_t<std::is_same_v<T, double>, double, float>;

} // namespace

Error randomFill(const Tensor &out, const FillProblem &problem) {
  return visitDtype(out.dtype(), "random fill", [&]<typename T>() {
    T *base = static_cast<T *>(out.data());
    inChunks(problem.walk.numel, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t at[1];
        if (!random::locate(problem.walk, i, at))
          continue;
        const Block b =
            random::blockOf(problem.draws, static_cast<uint64_t>(i));
        base[at[0]] = fillValue<T>(b, problem.spec);
      }
    });
    return Error::success();
  });
}

Error bernoulli(const Tensor &self, const Tensor &p,
                const BernoulliProblem &problem) {
  return visitDtype(self.dtype(), "bernoulli_", [&]<typename T>() {
    return visitDtype(p.dtype(), "bernoulli_", [&]<typename P>() -> Error {
      if constexpr (!kIsFloating<P>) {
        return Error::failure("bernoulli_: 'p' must be floating, not ",
                              dtypeName(p.dtype()));
      } else {
        T *dst = static_cast<T *>(self.data());
        const P *prob = static_cast<const P *>(p.data());
        inChunks(problem.walk.numel, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            int64_t at[2];
            random::locate(problem.walk, i, at);
            const Block b =
                random::blockOf(problem.draws, static_cast<uint64_t>(i));
            const double pi = static_cast<double>(load(prob[at[1]]));
            dst[at[0]] = store<T>(random::bernoulli(b, pi) ? 1 : 0);
          }
        });
        return Error::success();
      }
    });
  });
}

Error checkProbabilities(const Tensor &p) {
  return visitDtype(p.dtype(), "bernoulli_", [&]<typename P>() -> Error {
    const P *prob = static_cast<const P *>(p.data());
    const int64_t n = p.numel();
    for (int64_t i = 0; i < n; ++i) {
      // The i-th element in row-major order.
      int64_t rest = i, at = 0;
      for (int64_t d = p.dim() - 1; d >= 0; --d) {
        at += (rest % p.sizes()[d]) * p.strides()[d];
        rest /= p.sizes()[d];
      }
      const double value = static_cast<double>(load(prob[at]));
      if (!(value >= 0 && value <= 1))
        return Error::failure("bernoulli_ expects p to be in [0, 1], but "
                              "'p' holds ",
                              value, " at element ", i);
    }
    return Error::success();
  });
}

Error dropout(const Tensor &out, const Tensor &mask, const Tensor &input,
              const DropoutProblem &problem) {
  return visitDtype(input.dtype(), "native_dropout", [&]<typename T>() {
    T *dst = static_cast<T *>(out.data());
    Bool *keepOut = static_cast<Bool *>(mask.data());
    const T *src = static_cast<const T *>(input.data());
    using Op = OpMath<T>;
    const Op scale = static_cast<Op>(problem.scale);
    inChunks(problem.walk.numel, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t at[3];
        const bool owner = random::locate(problem.walk, i, at);
        bool kept = true;
        T value = src[at[2]];
        if (problem.mode == DropoutMode::DropAll) {
          kept = false;
          value = store<T>(0);
        } else if (problem.mode == DropoutMode::Drop) {
          const Block b =
              random::blockOf(problem.draws, static_cast<uint64_t>(i));
          kept = random::bernoulli(b, problem.keep);
          // torch: input.mul(mask).mul_(scale), so a dropped NaN or
          // infinity stays NaN and a dropped negative value is -0.
          const Op masked =
              static_cast<Op>(load(value)) * static_cast<Op>(kept ? 1 : 0);
          value = store<T>(masked * scale);
        }
        if (owner)
          dst[at[0]] = value;
        keepOut[at[1]] = Bool{static_cast<uint8_t>(kept ? 1 : 0)};
      }
    });
    return Error::success();
  });
}

Error randperm(const Tensor &out, const RandpermProblem &problem) {
  const int64_t n = problem.n;
  std::vector<uint64_t> keys(static_cast<size_t>(n));
  inChunks(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      keys[static_cast<size_t>(i)] = random::permutationKey(
          random::blockOf(problem.draws, static_cast<uint64_t>(i)));
  });
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const uint64_t ka = keys[static_cast<size_t>(a)];
    const uint64_t kb = keys[static_cast<size_t>(b)];
    return ka < kb || (ka == kb && a < b);
  });
  return visitDtype(out.dtype(), "randperm", [&]<typename T>() {
    T *dst = static_cast<T *>(out.data());
    const int64_t stride = out.dim() == 1 ? out.strides()[0] : 1;
    for (int64_t i = 0; i < n; ++i)
      dst[i * stride] = store<T>(order[static_cast<size_t>(i)]);
    return Error::success();
  });
}

} // namespace aoti::shims::ops::cpu
