//===- ops/pooling_reference.h - Pooling computed the slow way, in double -===//
//
// The references of tests/shims/ops/pooling_test.cpp, written from torch's
// definitions rather than from the library's window arithmetic: a window is
// the explicit list of the input positions it reads along each spatial
// dimension (start + j * dilation for j < kernel, kept when inside the
// input), and a pooled output reduces the cartesian product of those lists
// in (d, h, w) order. Values are row-major logical order (as makeTensor and
// readTensor use), self of `sizes` with `spatial` (2 or 3) trailing pooled
// dimensions; everything before them is a plane.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_OPS_POOLING_REFERENCE_H
#define AOTI_TESTS_SHIMS_OPS_POOLING_REFERENCE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace aoti::test::pooling {

using Positions = std::vector<int64_t>;

/// Which input positions output `o` of spatial dimension `dim` reads, for
/// plane `plane` (only fractional windows depend on the plane).
using WindowFn = std::function<Positions(int64_t plane, int dim, int64_t o)>;

struct Problem {
  std::vector<int64_t> sizes; // self
  int spatial = 2;
  std::vector<int64_t> out; // pooled sizes, `spatial` of them

  int64_t planes() const {
    int64_t p = 1;
    for (size_t i = 0; i + spatial < sizes.size(); ++i)
      p *= sizes[i];
    return p;
  }
  int64_t in(int dim) const { return sizes[sizes.size() - spatial + dim]; }
  int64_t inPlane() const {
    int64_t p = 1;
    for (int d = 0; d < spatial; ++d)
      p *= in(d);
    return p;
  }
  int64_t outPlane() const {
    int64_t p = 1;
    for (int64_t o : out)
      p *= o;
    return p;
  }
  std::vector<int64_t> outSizes() const {
    std::vector<int64_t> s(sizes.begin(), sizes.end() - spatial);
    s.insert(s.end(), out.begin(), out.end());
    return s;
  }
};

/// Calls f(plane, outFlat, positions) for every output; positions are the
/// flat spatial input indices of its window in (d, h, w) order.
inline void forEachWindow(
    const Problem &p, const WindowFn &window,
    const std::function<void(int64_t, int64_t, const Positions &)> &f) {
  for (int64_t plane = 0; plane < p.planes(); ++plane)
    for (int64_t flat = 0; flat < p.outPlane(); ++flat) {
      std::vector<int64_t> o(p.spatial);
      int64_t rest = flat;
      for (int d = p.spatial - 1; d >= 0; --d) {
        o[d] = rest % p.out[d];
        rest /= p.out[d];
      }
      Positions positions = {0};
      for (int d = 0; d < p.spatial; ++d) {
        Positions next;
        for (int64_t prefix : positions)
          for (int64_t i : window(plane, d, o[d]))
            next.push_back(prefix * p.in(d) + i);
        positions = next;
      }
      f(plane, flat, positions);
    }
}

struct MaxResult {
  std::vector<double> values;
  std::vector<int64_t> indices;
};

/// torch's max rule: from -inf (or `lowest`) and the window's first
/// position, an element greater than the best or NaN replaces it.
inline MaxResult referenceMax(const std::vector<double> &in, const Problem &p,
                              const WindowFn &window,
                              double lowest = -HUGE_VAL,
                              bool firstIndexZero = false) {
  MaxResult r;
  r.values.resize(p.planes() * p.outPlane());
  r.indices.resize(r.values.size());
  forEachWindow(p, window, [&](int64_t plane, int64_t flat,
                               const Positions &positions) {
    double best = lowest;
    int64_t index = firstIndexZero || positions.empty() ? 0 : positions[0];
    for (int64_t at : positions) {
      const double v = in[plane * p.inPlane() + at];
      if (v > best || std::isnan(v)) {
        best = v;
        index = at;
      }
    }
    r.values[plane * p.outPlane() + flat] = best;
    r.indices[plane * p.outPlane() + flat] = index;
  });
  return r;
}

/// The mean of each window: sum / divisor(plane, o, positions) (exact in
/// double; truncated toward zero when `integer`).
inline std::vector<double> referenceAverage(
    const std::vector<double> &in, const Problem &p, const WindowFn &window,
    const std::function<double(int64_t flat, const Positions &)> &divisor,
    bool integer = false) {
  std::vector<double> out(p.planes() * p.outPlane());
  forEachWindow(p, window, [&](int64_t plane, int64_t flat,
                               const Positions &positions) {
    if (positions.empty())
      return; // 0
    double sum = 0;
    for (int64_t at : positions)
      sum += in[plane * p.inPlane() + at];
    const double d = divisor(flat, positions);
    out[plane * p.outPlane() + flat] = integer ? std::trunc(sum / d) : sum / d;
  });
  return out;
}

/// max_pool's window: start + j*dilation inside [0, in).
inline WindowFn dilatedWindows(const Problem &p, std::vector<int64_t> kernel,
                               std::vector<int64_t> stride,
                               std::vector<int64_t> pad,
                               std::vector<int64_t> dilation) {
  return [=](int64_t, int dim, int64_t o) {
    Positions positions;
    for (int64_t j = 0; j < kernel[dim]; ++j) {
      const int64_t i = o * stride[dim] - pad[dim] + j * dilation[dim];
      if (i >= 0 && i < p.in(dim))
        positions.push_back(i);
    }
    return positions;
  };
}

/// adaptive pooling's window: [floor(o*in/out), ceil((o+1)*in/out)).
inline WindowFn adaptiveWindows(const Problem &p) {
  return [=](int64_t, int dim, int64_t o) {
    const int64_t in = p.in(dim), out = p.out[dim];
    Positions positions;
    for (int64_t i = (o * in) / out; i < ((o + 1) * in + out - 1) / out; ++i)
      positions.push_back(i);
    return positions;
  };
}

/// avg_pool's count_include_pad divisor: the window's positions inside the
/// input or its padding (never past the right padding).
inline int64_t paddedCount(int64_t o, int64_t kernel, int64_t stride,
                           int64_t pad, int64_t in) {
  int64_t count = 0;
  for (int64_t j = 0; j < kernel; ++j) {
    const int64_t i = o * stride - pad + j;
    if (i >= -pad && i < in + pad)
      ++count;
  }
  return count;
}

/// fractional_max_pool's window start, emulating the device's arithmetic:
/// `round` after every operation (to the input's dtype on the CPU; the
/// identity in float or double on CUDA).
inline int64_t fractionalStart(double sample, int64_t o, int64_t in,
                               int64_t out, int64_t kernel,
                               const std::function<double(double)> &round) {
  if (o == out - 1)
    return in - kernel;
  const double alpha =
      round(round(double(in - kernel)) / round(double(out - 1)));
  const double a = round(round(round(double(o)) + sample) * alpha);
  const double b = round(sample * alpha);
  return static_cast<int64_t>(a) - static_cast<int64_t>(b);
}

// torch's max_unpool: zeros, then out[plane, indices[i]] = self[i], in
// order (the last duplicate wins); indices outside the plane are skipped.
inline std::vector<double> referenceUnpool(const std::vector<double> &values,
                                           const std::vector<double> &indices,
                                           int64_t planes, int64_t outPlane) {
  std::vector<double> out(planes * outPlane, 0.0);
  const int64_t inPlane = static_cast<int64_t>(values.size()) / planes;
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t i = 0; i < inPlane; ++i) {
      const int64_t at = static_cast<int64_t>(indices[plane * inPlane + i]);
      if (at >= 0 && at < outPlane)
        out[plane * outPlane + at] = values[plane * inPlane + i];
    }
  return out;
}

// x rounded to bfloat16, to nearest even (the test utilities' bfloat16
// encoder truncates: it only ever stores exact values).
inline double bfloat16Round(double x) {
  const float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  bits &= 0xffff0000u;
  float rounded;
  std::memcpy(&rounded, &bits, 4);
  return rounded;
}

// Samples in [0, 1), multiples of 1/64 (exact in every dtype), varied.
inline std::vector<double> samplesFor(int64_t n) {
  std::vector<double> s(n);
  for (int64_t i = 0; i < n; ++i)
    s[i] = static_cast<double>((i * 23 + 5) % 64) / 64.0;
  return s;
}

} // namespace aoti::test::pooling

#endif // AOTI_TESTS_SHIMS_OPS_POOLING_REFERENCE_H
