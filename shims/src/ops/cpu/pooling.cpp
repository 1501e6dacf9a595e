//===- ops/cpu/pooling.cpp - The pooling fallbacks on the host ------------===//
//
// Our own loops: no library we link computes torch's indices (oneDNN's
// pooling has none in torch's form), and a library avg pool would have to
// match torch's ceil_mode/count_include_pad divisor rules and sum order
// besides (docs/ops/pooling.md says why we do not use one).
//
// Every output element is computed from its window alone (the windows are
// in ops/pooling_windows.h), so the work is a loop over the outputs, split
// into chunks over cpuThreadCount() OpenMP threads (parallelFor) once it
// reads more than kParallelReads input elements. The loop order follows
// self's layout, which is read in place (no contiguous copy):
//  - channels innermost (n, d, h, w, c) when self's channel stride is 1 (a
//    channels-last input): neighbouring outputs read neighbouring inputs;
//  - otherwise plane by plane (n, c, d, h, w).
// Inside a window the elements are visited in (d, h, w) order, as torch's
// kernels do, which fixes the reductions' results:
//  - max: start at -inf (the lowest value for integers) with the window's
//    first position as index; an element replaces the maximum when it is
//    greater or NaN. Ties keep the first maximum, a NaN wins over any
//    number, and of several NaNs the last one wins: torch's rule
//    `(val > maxval) || isnan(val)`.
//  - avg: summed in float for float16/bfloat16/float32, double for float64
//    and int64 for int64 (torch's CPU opmath types), then divided once:
//    sum / divisor (an int64 average truncates toward zero).
//  - adaptive avg: summed the same way, then sum / kd / kh / kw (torch
//    divides per dimension, not by the product).
// The cost is one read per window element: outputs x window size.
//
//===----------------------------------------------------------------------===//
#include "ops/pooling.h"

#include "ops/cpu/element.h"
#include "ops/cpu/float16.h"
#include "ops/cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <type_traits>

namespace aoti::shims::ops::cpu {
namespace {

/// Input reads below which one thread does the whole op: a thread team
/// costs a few microseconds to wake.
constexpr int64_t kParallelReads = int64_t{1} << 15;

template <typename T>
constexpr bool kIsFloatElement =
    std::is_same_v<T, Half> || std::is_same_v<T, BHalf> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

// The integer types torch's CPU max_pool kernels take (AT_DISPATCH_ALL_TYPES).
template <typename T>
constexpr bool kIsMaxPoolInteger =
    std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t>;

template <typename V> V lowestOf() {
  if constexpr (std::is_floating_point_v<V>)
    return -std::numeric_limits<V>::infinity();
  else
    return std::numeric_limits<V>::lowest();
}

// torch's CPU accumulation type of an average.
template <typename T> struct AverageOf {
  using type = float;
};
template <> struct AverageOf<double> {
  using type = double;
};
template <> struct AverageOf<int64_t> {
  using type = int64_t;
};

int64_t outOffset(const PoolGeometry &g, int64_t n, int64_t c, int64_t od,
                  int64_t oh, int64_t ow) {
  return n * g.outStrides[0] + c * g.outStrides[1] + od * g.outStrides[2] +
         oh * g.outStrides[3] + ow * g.outStrides[4];
}

/// Calls body(n, c, od, oh, ow) once for every output of `g`, on several
/// threads when the op reads enough (`readsPerOutput` each).
template <typename Body>
void forEachOutput(const PoolGeometry &g, int64_t readsPerOutput,
                   Body &&body) {
  const int64_t total = g.outputs();
  if (total == 0)
    return;
  const int64_t reads = total * std::max<int64_t>(readsPerOutput, 1);
  const int threads = reads >= kParallelReads ? cpuThreadCount() : 1;
  const int64_t chunks =
      threads > 1 ? std::min<int64_t>(total, int64_t{threads} * 8) : 1;
  const bool channelsInner = g.channels > 1 && g.inStrides[1] == 1;
  const int64_t outH = g.out[1], outW = g.out[2];
  const int64_t plane = g.outPlane();
  parallelFor(chunks, threads, [&](int64_t chunk) {
    const int64_t begin =
        total / chunks * chunk + std::min(chunk, total % chunks);
    const int64_t end =
        begin + total / chunks + (chunk < total % chunks ? 1 : 0);
    for (int64_t i = begin; i < end; ++i) {
      int64_t n, c, rest;
      if (channelsInner) {
        c = i % g.channels;
        rest = (i / g.channels) % plane;
        n = i / g.channels / plane;
      } else {
        rest = i % plane;
        c = (i / plane) % g.channels;
        n = i / plane / g.channels;
      }
      body(n, c, rest / (outH * outW), (rest / outW) % outH, rest % outW);
    }
  });
}

/// The max rule over the windows `spanOf(n, c, dim, o)` gives (spans that
/// lie inside the input).
template <typename T, typename SpanOf>
void maxOverWindows(const Tensor &values, const Tensor &indices,
                    const Tensor &self, const PoolGeometry &g,
                    int64_t readsPerOutput, bool firstIndexZero,
                    SpanOf &&spanOf) {
  using V = Compute<T>;
  const T *src = static_cast<const T *>(self.data());
  T *dstValues = static_cast<T *>(values.data());
  int64_t *dstIndices = static_cast<int64_t *>(indices.data());
  const int64_t *s = g.inStrides;
  const int64_t inH = g.in[1], inW = g.in[2];
  forEachOutput(g, readsPerOutput, [&](int64_t n, int64_t c, int64_t od,
                                       int64_t oh, int64_t ow) {
    const PoolSpan sd = spanOf(n, c, 0, od);
    const PoolSpan sh = spanOf(n, c, 1, oh);
    const PoolSpan sw = spanOf(n, c, 2, ow);
    const T *plane = src + n * s[0] + c * s[1];
    V best = lowestOf<V>();
    int64_t bestIndex =
        firstIndexZero ? 0 : (sd.begin * inH + sh.begin) * inW + sw.begin;
    for (int64_t d = sd.begin; d < sd.end; d += sd.step)
      for (int64_t h = sh.begin; h < sh.end; h += sh.step)
        for (int64_t w = sw.begin; w < sw.end; w += sw.step) {
          const V v = load(plane[d * s[2] + h * s[3] + w * s[4]]);
          if (v > best || isNan(v)) {
            best = v;
            bestIndex = (d * inH + h) * inW + w;
          }
        }
    const int64_t at = outOffset(g, n, c, od, oh, ow);
    dstValues[at] = store<T>(best);
    dstIndices[at] = bestIndex;
  });
}

Error unsupported(const char *op, ScalarType type) {
  return Error::failure(op, " has no CPU kernel for ", dtypeName(type));
}

// torch's fractional interval arithmetic on the CPU: in the input's dtype,
// rounding a float16/bfloat16 result after every operation.
template <typename T> struct IntervalMath {
  using type = Compute<T>;
  static type round(type x) { return x; }
};
template <> struct IntervalMath<Half> {
  using type = float;
  static float round(float x) { return float16ToFloat(floatToFloat16(x)); }
};
template <> struct IntervalMath<BHalf> {
  using type = float;
  static float round(float x) { return bfloat16ToFloat(floatToBFloat16(x)); }
};

// Element copies by width: max_unpool moves elements without reading them.
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
  using type = uint64_t;
};

template <typename W>
Error unpoolWords(const Tensor &out, const Tensor &self, const Tensor &indices,
                  const PoolGeometry &g, const UnpoolArgs &args) {
  const W *src = static_cast<const W *>(self.data());
  const int64_t *index = static_cast<const int64_t *>(indices.data());
  W *dst = static_cast<W *>(out.data());
  std::memset(out.data(), 0, static_cast<size_t>(out.numel()) * sizeof(W));
  const int64_t outPlane = g.outPlane();
  const int64_t *s = g.inStrides;
  const int64_t *is = args.indexStrides;
  std::atomic<bool> invalid{false};
  std::atomic<int64_t> invalidIndex{0};
  const int64_t reads = self.numel();
  const int threads = reads >= kParallelReads ? cpuThreadCount() : 1;
  parallelFor(g.planes(), threads, [&](int64_t planeIndex) {
    const int64_t n = planeIndex / g.channels, c = planeIndex % g.channels;
    const W *plane = src + n * s[0] + c * s[1];
    const int64_t *planeIndices = index + n * is[0] + c * is[1];
    W *outPlaneData = dst + n * g.outStrides[0] + c * g.outStrides[1];
    for (int64_t d = 0; d < g.in[0]; ++d)
      for (int64_t h = 0; h < g.in[1]; ++h)
        for (int64_t w = 0; w < g.in[2]; ++w) {
          const int64_t at = planeIndices[d * is[2] + h * is[3] + w * is[4]];
          if (at < 0 || at >= outPlane) {
            if (!invalid.exchange(true))
              invalidIndex = at;
            continue;
          }
          outPlaneData[at] = plane[d * s[2] + h * s[3] + w * s[4]];
        }
  });
  if (!invalid)
    return Error::success();
  if (args.spatialDims == 3)
    return Error::failure("Found an invalid max index: ", invalidIndex.load(),
                          " (output volumes are of size ", g.out[0], "x",
                          g.out[1], "x", g.out[2], ")");
  return Error::failure("Found an invalid max index: ", invalidIndex.load(),
                        " (output volumes are of size ", g.out[1], "x",
                        g.out[2], ")");
}

} // namespace

Error maxPool(const Tensor &values, const Tensor &indices, const Tensor &self,
              const PoolGeometry &geometry, const MaxPoolArgs &args) {
  const PoolWindow &w = args.window;
  const int64_t reads = w.kernel[0] * w.kernel[1] * w.kernel[2];
  return visitDtype(self.dtype(), "max_pool", [&]<typename T>() -> Error {
    if constexpr (kIsFloatElement<T> || kIsMaxPoolInteger<T>) {
      maxOverWindows<T>(values, indices, self, geometry, reads,
                        args.firstIndexZero,
                        [&](int64_t, int64_t, int dim, int64_t o) {
                          return maxPoolSpan(o, w, dim, geometry.in[dim]);
                        });
      return Error::success();
    } else {
      return unsupported("max_pool", self.dtype());
    }
  });
}

Error adaptiveMaxPool(const Tensor &values, const Tensor &indices,
                      const Tensor &self, const PoolGeometry &geometry) {
  int64_t reads = 1;
  for (int dim = 0; dim < 3; ++dim)
    reads *= geometry.in[dim] / std::max<int64_t>(geometry.out[dim], 1) + 1;
  return visitDtype(
      self.dtype(), "adaptive_max_pool", [&]<typename T>() -> Error {
        if constexpr (kIsFloatElement<T>) {
          maxOverWindows<T>(values, indices, self, geometry, reads, false,
                            [&](int64_t, int64_t, int dim, int64_t o) {
                              return adaptiveSpan(o, geometry.out[dim],
                                                  geometry.in[dim]);
                            });
          return Error::success();
        } else {
          return unsupported("adaptive_max_pool", self.dtype());
        }
      });
}

Error fractionalMaxPool(const Tensor &values, const Tensor &indices,
                        const Tensor &self, const Tensor &samples,
                        const PoolGeometry &geometry,
                        const FractionalArgs &args) {
  const int64_t reads = args.kernel[0] * args.kernel[1] * args.kernel[2];
  return visitDtype(
      self.dtype(), "fractional_max_pool", [&]<typename T>() -> Error {
        if constexpr (kIsFloatElement<T>) {
          using Math = IntervalMath<T>;
          using C = typename Math::type;
          const T *sampleData = static_cast<const T *>(samples.data());
          const int64_t *ss = args.sampleStrides;
          // start(o) lies in [floor(o*alpha), floor(o*alpha) + 1], inside the
          // input for any finite sample; rounding at the edges is why torch
          // asserts there. Checked before anything is read, to never read out
          // of bounds.
          auto spanOf = [&](int64_t n, int64_t c, int dim, int64_t o) {
            if (args.sampleIndex[dim] < 0)
              return PoolSpan{0, 1, 1, 1};
            const C sample =
                static_cast<C>(load(sampleData[n * ss[0] + c * ss[1] +
                                               args.sampleIndex[dim] * ss[2]]));
            const int64_t begin = fractionalStart<C>(
                sample, o, geometry.in[dim], geometry.out[dim],
                args.kernel[dim], &Math::round);
            return PoolSpan{begin, begin + args.kernel[dim], 1,
                            args.kernel[dim]};
          };
          for (int64_t plane = 0; plane < geometry.planes(); ++plane)
            for (int dim = 0; dim < 3; ++dim)
              for (int64_t o = 0; o < geometry.out[dim] && args.kernel[dim] > 0;
                   ++o) {
                const PoolSpan span = spanOf(plane / geometry.channels,
                                             plane % geometry.channels, dim, o);
                if (span.begin < 0 || span.end > geometry.in[dim])
                  return Error::failure("fractional_max_pool: 'random_samples' "
                                        "places a window at ",
                                        span.begin, " outside the input's ",
                                        geometry.in[dim],
                                        " elements along a spatial dimension");
              }
          maxOverWindows<T>(values, indices, self, geometry, reads, false,
                            spanOf);
          return Error::success();
        } else {
          return unsupported("fractional_max_pool", self.dtype());
        }
      });
}

Error avgPool(const Tensor &out, const Tensor &self,
              const PoolGeometry &geometry, const AvgPoolArgs &args) {
  const PoolWindow &win = args.window;
  const int64_t reads = win.kernel[0] * win.kernel[1] * win.kernel[2];
  return visitDtype(self.dtype(), "avg_pool", [&]<typename T>() -> Error {
    if constexpr (kIsFloatElement<T> || std::is_same_v<T, int64_t>) {
      using Acc = typename AverageOf<T>::type;
      const T *src = static_cast<const T *>(self.data());
      T *dst = static_cast<T *>(out.data());
      const int64_t *s = geometry.inStrides;
      forEachOutput(geometry, reads, [&](int64_t n, int64_t c, int64_t od,
                                         int64_t oh, int64_t ow) {
        const PoolSpan sd = avgPoolSpan(od, win, 0, geometry.in[0]);
        const PoolSpan sh = avgPoolSpan(oh, win, 1, geometry.in[1]);
        const PoolSpan sw = avgPoolSpan(ow, win, 2, geometry.in[2]);
        Acc value = 0;
        if (sd.begin < sd.end && sh.begin < sh.end && sw.begin < sw.end) {
          const T *plane = src + n * s[0] + c * s[1];
          Acc sum = 0;
          for (int64_t d = sd.begin; d < sd.end; ++d)
            for (int64_t h = sh.begin; h < sh.end; ++h)
              for (int64_t w = sw.begin; w < sw.end; ++w)
                sum += static_cast<Acc>(
                    load(plane[d * s[2] + h * s[3] + w * s[4]]));
          int64_t divisor = args.divisor;
          if (divisor == 0)
            divisor = args.countIncludePad
                          ? sd.extent * sh.extent * sw.extent
                          : (sd.end - sd.begin) * (sh.end - sh.begin) *
                                (sw.end - sw.begin);
          value = sum / static_cast<Acc>(divisor);
        }
        dst[outOffset(geometry, n, c, od, oh, ow)] = store<T>(value);
      });
      return Error::success();
    } else {
      return unsupported("avg_pool", self.dtype());
    }
  });
}

Error adaptiveAvgPool(const Tensor &out, const Tensor &self,
                      const PoolGeometry &geometry) {
  int64_t reads = 1;
  for (int dim = 0; dim < 3; ++dim)
    reads *= geometry.in[dim] / std::max<int64_t>(geometry.out[dim], 1) + 1;
  return visitDtype(
      self.dtype(), "adaptive_avg_pool", [&]<typename T>() -> Error {
        if constexpr (kIsFloatElement<T>) {
          using Acc = typename AverageOf<T>::type;
          const T *src = static_cast<const T *>(self.data());
          T *dst = static_cast<T *>(out.data());
          const int64_t *s = geometry.inStrides;
          forEachOutput(
              geometry, reads,
              [&](int64_t n, int64_t c, int64_t od, int64_t oh, int64_t ow) {
                const PoolSpan sd =
                    adaptiveSpan(od, geometry.out[0], geometry.in[0]);
                const PoolSpan sh =
                    adaptiveSpan(oh, geometry.out[1], geometry.in[1]);
                const PoolSpan sw =
                    adaptiveSpan(ow, geometry.out[2], geometry.in[2]);
                const T *plane = src + n * s[0] + c * s[1];
                Acc sum = 0;
                for (int64_t d = sd.begin; d < sd.end; ++d)
                  for (int64_t h = sh.begin; h < sh.end; ++h)
                    for (int64_t w = sw.begin; w < sw.end; ++w)
                      sum += static_cast<Acc>(
                          load(plane[d * s[2] + h * s[3] + w * s[4]]));
                const Acc value = sum / static_cast<Acc>(sd.extent) /
                                  static_cast<Acc>(sh.extent) /
                                  static_cast<Acc>(sw.extent);
                dst[outOffset(geometry, n, c, od, oh, ow)] = store<T>(value);
              });
          return Error::success();
        } else {
          return unsupported("adaptive_avg_pool", self.dtype());
        }
      });
}

Error maxUnpool(const Tensor &out, const Tensor &self, const Tensor &indices,
                const PoolGeometry &geometry, const UnpoolArgs &args) {
  switch (self.itemSize()) {
  case 1:
    return unpoolWords<Word<1>::type>(out, self, indices, geometry, args);
  case 2:
    return unpoolWords<Word<2>::type>(out, self, indices, geometry, args);
  case 4:
    return unpoolWords<Word<4>::type>(out, self, indices, geometry, args);
  case 8:
    return unpoolWords<Word<8>::type>(out, self, indices, geometry, args);
  default:
    return unsupported("max_unpool", self.dtype());
  }
}

} // namespace aoti::shims::ops::cpu
