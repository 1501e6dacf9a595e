//===- ops/cuda/pooling.cu - The pooling fallbacks on a CUDA device -------===//
//
// Our own kernels: cuDNN's pooling returns no indices, and its average
// pooling would have to match torch's ceil_mode/count_include_pad divisor
// rules and summation order besides (docs/ops/pooling.md).
//
// One thread per output element, grid-stride over all of them
// (blocksFor/kThreadsPerBlock). A thread computes its window from the
// formulas of ops/pooling_windows.h, shared with the CPU, and reduces it in
// (d, h, w) order exactly as ops/cpu/pooling.cpp does:
//  - max: start at -inf with the window's first position as index, replace
//    when an element is greater or NaN (torch's rule: ties keep the first
//    maximum, the last NaN wins). torch's channels-last max_pool2d kernel
//    starts the index at 0 instead (MaxPoolArgs::firstIndexZero).
//  - avg: sum in float (float16, bfloat16, float32) or double (float64),
//    torch's CUDA accumulation types, then / divisor; adaptive avg
//    / kd / kh / kw.
//  - fractional: windows from the plane's sample in the accumulation type,
//    as torch's CUDA kernel computes them (clipped to the input, so a sample
//    outside [0, 1) cannot read out of bounds; torch reads there).
//  - max_unpool: the output is zeroed on the stream, then one thread per
//    input element writes it where its index says; an index outside the
//    plane is skipped (torch's kernel asserts, which kills the context),
//    duplicates leave one of their values.
// The flat output index is split into (n, c, d, h, w) with the channels
// fastest when self's channel stride is 1 (a channels-last input: a warp
// reads neighbouring channels, coalesced), plane-major otherwise (a warp
// reads neighbouring w). Every kernel runs on the current stream of self's
// device; nothing waits. Cost: one read per window element, as on the CPU.
//
//===----------------------------------------------------------------------===//
#include "ops/pooling.h"

#include "ops/cuda/element.cuh"

#include <cmath>
#include <type_traits>

namespace aoti::shims::ops::cuda {
namespace {

template <typename T>
constexpr bool kIsFloatElement =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

struct OutputIndex {
  int64_t n, c, o[3];
};

__device__ inline OutputIndex splitOutput(int64_t i, const PoolGeometry &g,
                                          bool channelsInner) {
  const int64_t plane = g.outPlane();
  OutputIndex at;
  int64_t rest;
  if (channelsInner) {
    at.c = i % g.channels;
    rest = (i / g.channels) % plane;
    at.n = i / g.channels / plane;
  } else {
    rest = i % plane;
    at.c = (i / plane) % g.channels;
    at.n = i / plane / g.channels;
  }
  at.o[0] = rest / (g.out[1] * g.out[2]);
  at.o[1] = (rest / g.out[2]) % g.out[1];
  at.o[2] = rest % g.out[2];
  return at;
}

__device__ inline int64_t outOffset(const PoolGeometry &g,
                                    const OutputIndex &at) {
  return at.n * g.outStrides[0] + at.c * g.outStrides[1] +
         at.o[0] * g.outStrides[2] + at.o[1] * g.outStrides[3] +
         at.o[2] * g.outStrides[4];
}

// Where each output's window lies, per op.
struct MaxSpans {
  PoolWindow window;
  __device__ PoolSpan at(const PoolGeometry &g, const OutputIndex &,
                         int dim, int64_t o) const {
    return maxPoolSpan(o, window, dim, g.in[dim]);
  }
};

struct AdaptiveSpans {
  __device__ PoolSpan at(const PoolGeometry &g, const OutputIndex &,
                         int dim, int64_t o) const {
    return adaptiveSpan(o, g.out[dim], g.in[dim]);
  }
};

template <typename C> struct Unrounded {
  __host__ __device__ C operator()(C x) const { return x; }
};

template <typename T> struct FractionalSpans {
  const T *samples;
  FractionalArgs args;
  __device__ PoolSpan at(const PoolGeometry &g, const OutputIndex &at,
                         int dim, int64_t o) const {
    if (args.sampleIndex[dim] < 0)
      return {0, 1, 1, 1};
    using C = Compute<T>; // torch's CUDA accumulation type
    const int64_t *s = args.sampleStrides;
    const C sample =
        load(samples[at.n * s[0] + at.c * s[1] + args.sampleIndex[dim] * s[2]]);
    int64_t begin = fractionalStart<C>(sample, o, g.in[dim], g.out[dim],
                                       args.kernel[dim], Unrounded<C>{});
    int64_t end = begin + args.kernel[dim];
    if (begin < 0)
      begin = 0;
    if (end > g.in[dim])
      end = g.in[dim];
    return {begin, end, 1, args.kernel[dim]};
  }
};

template <typename T, typename Spans>
__global__ void maxPoolKernel(T *values, int64_t *indices, const T *self,
                              PoolGeometry g, Spans spans, bool channelsInner,
                              bool firstIndexZero) {
  using V = Compute<T>;
  const int64_t total = g.outputs();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t *s = g.inStrides;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    const OutputIndex at = splitOutput(i, g, channelsInner);
    const PoolSpan sd = spans.at(g, at, 0, at.o[0]);
    const PoolSpan sh = spans.at(g, at, 1, at.o[1]);
    const PoolSpan sw = spans.at(g, at, 2, at.o[2]);
    const T *plane = self + at.n * s[0] + at.c * s[1];
    V best = static_cast<V>(-INFINITY);
    int64_t bestIndex =
        firstIndexZero ? 0
                       : (sd.begin * g.in[1] + sh.begin) * g.in[2] + sw.begin;
    for (int64_t d = sd.begin; d < sd.end; d += sd.step)
      for (int64_t h = sh.begin; h < sh.end; h += sh.step)
        for (int64_t w = sw.begin; w < sw.end; w += sw.step) {
          const V v = load(plane[d * s[2] + h * s[3] + w * s[4]]);
          if (v > best || isNan(v)) {
            best = v;
            bestIndex = (d * g.in[1] + h) * g.in[2] + w;
          }
        }
    const int64_t offset = outOffset(g, at);
    values[offset] = store<T>(best);
    indices[offset] = bestIndex;
  }
}

template <typename T>
__global__ void avgPoolKernel(T *out, const T *self, PoolGeometry g,
                              AvgPoolArgs args, bool channelsInner) {
  using Acc = Compute<T>;
  const int64_t total = g.outputs();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t *s = g.inStrides;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    const OutputIndex at = splitOutput(i, g, channelsInner);
    const PoolSpan sd = avgPoolSpan(at.o[0], args.window, 0, g.in[0]);
    const PoolSpan sh = avgPoolSpan(at.o[1], args.window, 1, g.in[1]);
    const PoolSpan sw = avgPoolSpan(at.o[2], args.window, 2, g.in[2]);
    Acc value = 0;
    if (sd.begin < sd.end && sh.begin < sh.end && sw.begin < sw.end) {
      const T *plane = self + at.n * s[0] + at.c * s[1];
      Acc sum = 0;
      for (int64_t d = sd.begin; d < sd.end; ++d)
        for (int64_t h = sh.begin; h < sh.end; ++h)
          for (int64_t w = sw.begin; w < sw.end; ++w)
            sum += load(plane[d * s[2] + h * s[3] + w * s[4]]);
      int64_t divisor = args.divisor;
      if (divisor == 0)
        divisor = args.countIncludePad
                      ? sd.extent * sh.extent * sw.extent
                      : (sd.end - sd.begin) * (sh.end - sh.begin) *
                            (sw.end - sw.begin);
      value = sum / static_cast<Acc>(divisor);
    }
    out[outOffset(g, at)] = store<T>(value);
  }
}

template <typename T>
__global__ void adaptiveAvgPoolKernel(T *out, const T *self, PoolGeometry g,
                                      bool channelsInner) {
  using Acc = Compute<T>;
  const int64_t total = g.outputs();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t *s = g.inStrides;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    const OutputIndex at = splitOutput(i, g, channelsInner);
    const PoolSpan sd = adaptiveSpan(at.o[0], g.out[0], g.in[0]);
    const PoolSpan sh = adaptiveSpan(at.o[1], g.out[1], g.in[1]);
    const PoolSpan sw = adaptiveSpan(at.o[2], g.out[2], g.in[2]);
    const T *plane = self + at.n * s[0] + at.c * s[1];
    Acc sum = 0;
    for (int64_t d = sd.begin; d < sd.end; ++d)
      for (int64_t h = sh.begin; h < sh.end; ++h)
        for (int64_t w = sw.begin; w < sw.end; ++w)
          sum += load(plane[d * s[2] + h * s[3] + w * s[4]]);
    out[outOffset(g, at)] =
        store<T>(sum / static_cast<Acc>(sd.extent) /
                 static_cast<Acc>(sh.extent) / static_cast<Acc>(sw.extent));
  }
}

// One thread per input element; `W` moves the element's bytes.
template <typename W>
__global__ void maxUnpoolKernel(W *out, const W *self, const int64_t *indices,
                                PoolGeometry g, UnpoolArgs args) {
  const int64_t inPlane = g.inPlane();
  const int64_t total = g.planes() * inPlane;
  const int64_t outPlane = g.outPlane();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t *s = g.inStrides;
  const int64_t *is = args.indexStrides;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    const int64_t rest = i % inPlane;
    const int64_t c = (i / inPlane) % g.channels;
    const int64_t n = i / inPlane / g.channels;
    const int64_t d = rest / (g.in[1] * g.in[2]);
    const int64_t h = (rest / g.in[2]) % g.in[1];
    const int64_t w = rest % g.in[2];
    const int64_t at = indices[n * is[0] + c * is[1] + d * is[2] + h * is[3] +
                               w * is[4]];
    if (at < 0 || at >= outPlane)
      continue;
    out[n * g.outStrides[0] + c * g.outStrides[1] + at] =
        self[n * s[0] + c * s[1] + d * s[2] + h * s[3] + w * s[4]];
  }
}

bool channelsInnerOf(const PoolGeometry &g) {
  return g.channels > 1 && g.inStrides[1] == 1;
}

Error unsupported(const char *op, ScalarType type) {
  return Error::failure(op, " has no CUDA kernel for ", dtypeName(type));
}

template <typename MakeSpans>
Error launchMax(const char *op, const Tensor &values, const Tensor &indices,
                const Tensor &self, const PoolGeometry &geometry,
                bool firstIndexZero, MakeSpans &&makeSpans) {
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), op, [&]<typename T>() -> Error {
    if constexpr (kIsFloatElement<T>) {
      maxPoolKernel<T><<<blocksFor(geometry.outputs()), kThreadsPerBlock, 0,
                         on.stream()>>>(
          static_cast<T *>(values.data()),
          static_cast<int64_t *>(indices.data()),
          static_cast<const T *>(self.data()), geometry,
          makeSpans.template operator()<T>(), channelsInnerOf(geometry),
          firstIndexZero);
      return on.launched(op);
    } else {
      return unsupported(op, self.dtype());
    }
  });
}

template <size_t Bytes> struct Word;
template <> struct Word<1> {
  using type = uint8_t;
};
template <> struct Word<2> {
  using type = uint16_t;
};
template <> struct Word<4> {
  using type = uint32_t;
};
template <> struct Word<8> {
  using type = unsigned long long;
};

} // namespace

Error maxPool(const Tensor &values, const Tensor &indices, const Tensor &self,
              const PoolGeometry &geometry, const MaxPoolArgs &args) {
  return launchMax(
      "max_pool kernel launch", values, indices, self, geometry,
      args.firstIndexZero,
      [&]<typename T>() { return MaxSpans{args.window}; });
}

Error adaptiveMaxPool(const Tensor &values, const Tensor &indices,
                      const Tensor &self, const PoolGeometry &geometry) {
  return launchMax(
      "adaptive_max_pool kernel launch", values, indices, self, geometry,
      false, [&]<typename T>() { return AdaptiveSpans{}; });
}

Error fractionalMaxPool(const Tensor &values, const Tensor &indices,
                        const Tensor &self, const Tensor &samples,
                        const PoolGeometry &geometry,
                        const FractionalArgs &args) {
  return launchMax(
      "fractional_max_pool kernel launch", values, indices, self, geometry,
      false, [&]<typename T>() {
        return FractionalSpans<T>{static_cast<const T *>(samples.data()),
                                  args};
      });
}

Error avgPool(const Tensor &out, const Tensor &self,
              const PoolGeometry &geometry, const AvgPoolArgs &args) {
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(self.dtype(), "avg_pool", [&]<typename T>() -> Error {
    if constexpr (kIsFloatElement<T>) {
      avgPoolKernel<T><<<blocksFor(geometry.outputs()), kThreadsPerBlock, 0,
                         on.stream()>>>(static_cast<T *>(out.data()),
                                        static_cast<const T *>(self.data()),
                                        geometry, args,
                                        channelsInnerOf(geometry));
      return on.launched("avg_pool kernel launch");
    } else {
      return unsupported("avg_pool", self.dtype());
    }
  });
}

Error adaptiveAvgPool(const Tensor &out, const Tensor &self,
                      const PoolGeometry &geometry) {
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  return visitDtype(
      self.dtype(), "adaptive_avg_pool", [&]<typename T>() -> Error {
        if constexpr (kIsFloatElement<T>) {
          adaptiveAvgPoolKernel<T><<<blocksFor(geometry.outputs()),
                                     kThreadsPerBlock, 0, on.stream()>>>(
              static_cast<T *>(out.data()), static_cast<const T *>(self.data()),
              geometry, channelsInnerOf(geometry));
          return on.launched("adaptive_avg_pool kernel launch");
        } else {
          return unsupported("adaptive_avg_pool", self.dtype());
        }
      });
}

Error maxUnpool(const Tensor &out, const Tensor &self, const Tensor &indices,
                const PoolGeometry &geometry, const UnpoolArgs &args) {
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  const size_t bytes = static_cast<size_t>(out.numel()) * out.itemSize();
  if (cudaError_t status = cudaMemsetAsync(out.data(), 0, bytes, on.stream());
      status != cudaSuccess)
    return shims::cuda::checkCuda(status, "max_unpool zero fill");
  const int64_t inputs = self.numel();
  if (inputs == 0)
    return Error::success();
  auto launch = [&]<typename W>() {
    maxUnpoolKernel<W><<<blocksFor(inputs), kThreadsPerBlock, 0, on.stream()>>>(
        static_cast<W *>(out.data()), static_cast<const W *>(self.data()),
        static_cast<const int64_t *>(indices.data()), geometry, args);
    return on.launched("max_unpool kernel launch");
  };
  switch (self.itemSize()) {
  case 1:
    return launch.template operator()<Word<1>::type>();
  case 2:
    return launch.template operator()<Word<2>::type>();
  case 4:
    return launch.template operator()<Word<4>::type>();
  case 8:
    return launch.template operator()<Word<8>::type>();
  default:
    return unsupported("max_unpool", self.dtype());
  }
}

} // namespace aoti::shims::ops::cuda
