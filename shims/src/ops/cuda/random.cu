//===- ops/cuda/random.cu - The random fallbacks on a CUDA device --------===//
//
// One thread per element, grid-stride: element i computes its Philox block
// from (seed, offset + i) with ops/random_draws.h, the code the CPU loops
// run too, so a launch of any shape writes what the CPU writes for the same
// draws. (cuRAND's Philox is the same generator but hides its counter
// layout behind curand_init's subsequence and offset; Random123 gives the
// block function itself, on both devices.) Values are computed in double
// and converted with ops/cuda/element.cuh's store(), like the CPU's; sums
// are fma() on both devices, which the compiler cannot contract further.
// The dropout product is float (double for float64), as torch's kernels
// compute it.
//
// randperm: a key per index (the block's low 64 bits), then CUB's radix
// sort of (key, index) pairs, which is stable (equal keys keep index
// order, as the CPU's sort by (key, index) does), then a kernel converting
// the sorted indices to the result's dtype. The temporaries are
// stream-ordered tensors; nothing waits for the device.
//
// Everything runs on the current stream of the tensors' device (OnStream).
//
//===----------------------------------------------------------------------===//
#include "ops/random.h"

#include "ops/cuda/element.cuh"

#include <cub/cub.cuh>

#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

using random::Block;

template <typename T> constexpr int kDigits = 53;
template <> constexpr int kDigits<float> = 24;
template <> constexpr int kDigits<__half> = 11;
template <> constexpr int kDigits<__nv_bfloat16> = 8;

template <typename T> constexpr double kHalfEpsilon = 0x1.0p-53;
template <> constexpr double kHalfEpsilon<float> = 0x1.0p-24;
template <> constexpr double kHalfEpsilon<__half> = 0x1.0p-11;
template <> constexpr double kHalfEpsilon<__nv_bfloat16> = 0x1.0p-8;

template <typename T>
using OpMath = std::conditional_t<std::is_same_v<T, double>, double, float>;

// As ops/cpu/random.cpp's fillValue, case for case.
template <typename T>
__device__ T fillValue(const Block &b, const FillSpec &spec) {
  switch (spec.kind) {
  case Distribution::Uniform: {
    const double u = random::unitInterval<kDigits<T>>(b);
    T value = store<T>(fma(u, spec.b - spec.a, spec.a));
    if (spec.a < spec.b && static_cast<double>(load(value)) >= spec.b)
      value = store<T>(spec.a);
    return value;
  }
  case Distribution::Normal:
    return store<T>(fma(spec.b, random::standardNormal(b), spec.a));
  case Distribution::Exponential:
    return store<T>(random::exponential(b, spec.a, kHalfEpsilon<T>));
  case Distribution::Integer:
    return store<T>(static_cast<long long>(
        random::integerInRange(b, spec.low, spec.range)));
  case Distribution::Bernoulli:
    return store<T>(random::bernoulli(b, spec.a) ? 1 : 0);
  }
  return store<T>(0);
}

__device__ inline int64_t firstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t gridStep() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

template <typename T> __global__ void fillKernel(T *base, FillProblem problem) {
  for (int64_t i = firstIndex(); i < problem.walk.numel; i += gridStep()) {
    int64_t at[1];
    if (!random::locate(problem.walk, i, at))
      continue;
    const Block b = random::blockOf(problem.draws, static_cast<uint64_t>(i));
    base[at[0]] = fillValue<T>(b, problem.spec);
  }
}

template <typename T, typename P>
__global__ void bernoulliKernel(T *self, const P *p, BernoulliProblem problem) {
  for (int64_t i = firstIndex(); i < problem.walk.numel; i += gridStep()) {
    int64_t at[2];
    random::locate(problem.walk, i, at);
    const Block b = random::blockOf(problem.draws, static_cast<uint64_t>(i));
    const double pi = static_cast<double>(load(p[at[1]]));
    self[at[0]] = store<T>(random::bernoulli(b, pi) ? 1 : 0);
  }
}

template <typename T>
__global__ void dropoutKernel(T *out, Bool *mask, const T *input,
                              DropoutProblem problem) {
  using Op = OpMath<T>;
  const Op scale = static_cast<Op>(problem.scale);
  for (int64_t i = firstIndex(); i < problem.walk.numel; i += gridStep()) {
    int64_t at[3];
    const bool owner = random::locate(problem.walk, i, at);
    bool kept = true;
    T value = input[at[2]];
    if (problem.mode == DropoutMode::DropAll) {
      kept = false;
      value = store<T>(0);
    } else if (problem.mode == DropoutMode::Drop) {
      const Block b = random::blockOf(problem.draws, static_cast<uint64_t>(i));
      kept = random::bernoulli(b, problem.keep);
      // Two products, each rounded, as on the CPU (no fma: there is no sum).
      const Op masked =
          static_cast<Op>(load(value)) * static_cast<Op>(kept ? 1 : 0);
      value = store<T>(masked * scale);
    }
    if (owner)
      out[at[0]] = value;
    mask[at[1]] = Bool{static_cast<unsigned char>(kept ? 1 : 0)};
  }
}

__global__ void permutationKeysKernel(uint64_t *keys, int64_t *indices,
                                      int64_t n, random::Draws draws) {
  for (int64_t i = firstIndex(); i < n; i += gridStep()) {
    keys[i] = random::permutationKey(
        random::blockOf(draws, static_cast<uint64_t>(i)));
    indices[i] = i;
  }
}

template <typename T>
__global__ void permutationStoreKernel(T *out, int64_t stride,
                                       const int64_t *sorted, int64_t n) {
  for (int64_t i = firstIndex(); i < n; i += gridStep())
    out[i * stride] = store<T>(static_cast<long long>(sorted[i]));
}

template <typename T>
constexpr bool kIsFloatingType = std::is_floating_point_v<Compute<T>>;

} // namespace

Error randomFill(const Tensor &out, const FillProblem &problem) {
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(out.dtype(), "random fill", [&]<typename T>() {
    fillKernel<T>
        <<<blocksFor(problem.walk.numel), kThreadsPerBlock, 0, on.stream()>>>(
            static_cast<T *>(out.data()), problem);
    return on.launched("random fill kernel launch");
  });
}

Error bernoulli(const Tensor &self, const Tensor &p,
                const BernoulliProblem &problem) {
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), "bernoulli_", [&]<typename T>() {
    return visitDtype(p.dtype(), "bernoulli_", [&]<typename P>() -> Error {
      if constexpr (!kIsFloatingType<P>) {
        return Error::failure("bernoulli_: 'p' must be floating, not ",
                              dtypeName(p.dtype()));
      } else {
        bernoulliKernel<T, P>
            <<<blocksFor(problem.walk.numel), kThreadsPerBlock, 0,
               on.stream()>>>(static_cast<T *>(self.data()),
                              static_cast<const P *>(p.data()), problem);
        return on.launched("bernoulli_ kernel launch");
      }
    });
  });
}

Error dropout(const Tensor &out, const Tensor &mask, const Tensor &input,
              const DropoutProblem &problem) {
  OnStream on(input);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(input.dtype(), "native_dropout", [&]<typename T>() {
    dropoutKernel<T>
        <<<blocksFor(problem.walk.numel), kThreadsPerBlock, 0, on.stream()>>>(
            static_cast<T *>(out.data()), static_cast<Bool *>(mask.data()),
            static_cast<const T *>(input.data()), problem);
    return on.launched("native_dropout kernel launch");
  });
}

Error randperm(const Tensor &out, const RandpermProblem &problem) {
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  const int64_t n = problem.n;
  const std::vector<int64_t> sizes = {n};
  Expected<Tensor> keys =
      Tensor::emptyContiguous(sizes, ScalarType::UInt64, out.device());
  Expected<Tensor> sortedKeys =
      Tensor::emptyContiguous(sizes, ScalarType::UInt64, out.device());
  Expected<Tensor> indices =
      Tensor::emptyContiguous(sizes, ScalarType::Int64, out.device());
  Expected<Tensor> sorted =
      Tensor::emptyContiguous(sizes, ScalarType::Int64, out.device());
  for (Expected<Tensor> *t : {&keys, &sortedKeys, &indices, &sorted})
    if (!*t)
      return t->takeError();
  auto *keysIn = static_cast<uint64_t *>(keys->data());
  auto *keysOut = static_cast<uint64_t *>(sortedKeys->data());
  auto *valuesIn = static_cast<int64_t *>(indices->data());
  auto *valuesOut = static_cast<int64_t *>(sorted->data());
  permutationKeysKernel<<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
      keysIn, valuesIn, n, problem.draws);
  if (Error err = on.launched("randperm key kernel launch"))
    return err;
  size_t tempBytes = 0;
  if (Error err = shims::cuda::checkCuda(
          cub::DeviceRadixSort::SortPairs(nullptr, tempBytes, keysIn, keysOut,
                                          valuesIn, valuesOut, n, 0, 64,
                                          on.stream()),
          "cub::DeviceRadixSort::SortPairs (size query)"))
    return err;
  const std::vector<int64_t> tempSizes = {
      static_cast<int64_t>(tempBytes > 0 ? tempBytes : 1)};
  Expected<Tensor> temp =
      Tensor::emptyContiguous(tempSizes, ScalarType::UInt8, out.device());
  if (!temp)
    return temp.takeError();
  if (Error err = shims::cuda::checkCuda(
          cub::DeviceRadixSort::SortPairs(temp->data(), tempBytes, keysIn,
                                          keysOut, valuesIn, valuesOut, n, 0,
                                          64, on.stream()),
          "cub::DeviceRadixSort::SortPairs"))
    return err;
  const int64_t stride = out.dim() == 1 ? out.strides()[0] : 1;
  return visitDtype(out.dtype(), "randperm", [&]<typename T>() {
    permutationStoreKernel<T>
        <<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
            static_cast<T *>(out.data()), stride, valuesOut, n);
    return on.launched("randperm store kernel launch");
  });
}

} // namespace aoti::shims::ops::cuda
