//===- conv_reference.h - Plain-loop convolution reference for the tests --===//
//
// Shared by ops_convolution_test (CPU) and cuda_convolution_test (CUDA):
// tensors in the test's own host storage with any layout and offset, and the
// convolution computed from its definition in double: a gather for
// convolutions, a scatter (a transposed convolution is the adjoint: every
// input element spreads input * weight over the output) for transposed ones.
// Each output element also gets the sum of the magnitudes of its terms,
// which the tolerances are relative to.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_CONV_REFERENCE_H
#define AOTI_TESTS_SHIMS_CONV_REFERENCE_H

#include "shims_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace aoti::test::conv {

using Dims = std::vector<int64_t>;

// --- Layouts ---------------------------------------------------------------

enum class Layout { Contiguous, ChannelsLast, Strided, Offset };

inline Dims contiguous(const Dims &sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

// Channels innermost, then the spatial dimensions, then the batch.
inline Dims channelsLast(const Dims &sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  strides[1] = s;
  s *= sizes[1];
  for (size_t d = sizes.size(); d-- > 2;) {
    strides[d] = s;
    s *= sizes[d];
  }
  strides[0] = s;
  return strides;
}

// A tensor in the test's own storage.
struct Host {
  Dims sizes, strides;
  int64_t offset = 0;
  std::vector<float> storage;
  TensorHandle handle;

  double at(const Dims &index) const {
    int64_t pos = offset;
    for (size_t d = 0; d < index.size(); ++d)
      pos += index[d] * strides[d];
    return storage[static_cast<size_t>(pos)];
  }
};

// `sizes` laid out as `layout`, filled with random values in [-1, 1].
// `round`, when given, maps each value to one the tested dtype holds exactly.
inline Host makeHost(const Dims &sizes, Layout layout, std::mt19937 &rng,
                     float (*round)(float) = nullptr) {
  Host h;
  h.sizes = sizes;
  switch (layout) {
  case Layout::Contiguous:
    h.strides = contiguous(sizes);
    break;
  case Layout::ChannelsLast:
    h.strides = channelsLast(sizes);
    break;
  case Layout::Strided: { // every other element of a tensor twice as wide
    Dims wide = sizes;
    wide.back() *= 2;
    h.strides = contiguous(wide);
    h.strides.back() = 2;
    break;
  }
  case Layout::Offset:
    h.strides = contiguous(sizes);
    h.offset = 7;
    break;
  }
  int64_t span = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    span += (sizes[d] - 1) * h.strides[d];
  h.storage.resize(static_cast<size_t>(h.offset + span));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &v : h.storage) {
    v = dist(rng);
    if (round)
      v = round(v);
  }
  return h;
}


// --- Reference -------------------------------------------------------------

struct Case {
  const char *name;
  Dims input, weight;
  Dims stride, padding, dilation;
  bool transposed = false;
  Dims outputPadding;
  int64_t groups = 1;
  bool bias = true;
  Layout inputLayout = Layout::Contiguous;
  Layout weightLayout = Layout::Contiguous;
};

// Pads a per-spatial-dimension list to 3 entries.
inline Dims pad3(const Dims &values, int64_t fill, size_t spatial) {
  Dims out(3, fill);
  for (size_t i = 0; i < spatial; ++i)
    out[3 - spatial + i] = values.size() == 1 ? values[0] : values[i];
  return out;
}

struct Reference {
  Dims sizes;                // the output's
  std::vector<double> value; // row-major over sizes
  std::vector<double> magnitude; // sum of |terms|, for the tolerance
};

inline Reference reference(const Case &c, const Host &in, const Host *bias,
                    const Host &w) {
  const size_t spatial = c.input.size() - 2;
  const Dims s = pad3(c.stride, 1, spatial), p = pad3(c.padding, 0, spatial),
             d = pad3(c.dilation, 1, spatial),
             op = pad3(c.outputPadding.empty() ? Dims{0} : c.outputPadding, 0,
                       spatial);
  Dims inSp(3, 1), kSp(3, 1);
  for (size_t i = 0; i < spatial; ++i) {
    inSp[3 - spatial + i] = c.input[2 + i];
    kSp[3 - spatial + i] = c.weight[2 + i];
  }
  const int64_t N = c.input[0], C = c.input[1], G = c.groups;
  const int64_t O = c.transposed ? c.weight[1] * G : c.weight[0];
  Dims outSp(3);
  for (int i = 0; i < 3; ++i)
    outSp[i] = c.transposed
                   ? (inSp[i] - 1) * s[i] - 2 * p[i] + d[i] * (kSp[i] - 1) +
                         op[i] + 1
                   : (inSp[i] + 2 * p[i] - d[i] * (kSp[i] - 1) - 1) / s[i] + 1;
  Reference r;
  r.sizes = {N, O};
  for (size_t i = 0; i < spatial; ++i)
    r.sizes.push_back(outSp[3 - spatial + i]);
  const int64_t total = N * O * outSp[0] * outSp[1] * outSp[2];
  r.value.assign(static_cast<size_t>(total), 0.0);
  r.magnitude.assign(static_cast<size_t>(total), 0.0);
  auto flat = [&](int64_t n, int64_t o, int64_t z, int64_t y, int64_t x) {
    return static_cast<size_t>(
        (((n * O + o) * outSp[0] + z) * outSp[1] + y) * outSp[2] + x);
  };
  // Index of a tensor with `spatial` trailing dimensions from 3 positions.
  auto idx = [&](int64_t a, int64_t b, int64_t z, int64_t y, int64_t x) {
    Dims i{a, b};
    const int64_t all[3] = {z, y, x};
    for (size_t k = 3 - spatial; k < 3; ++k)
      i.push_back(all[k]);
    return i;
  };
  if (!c.transposed) {
    const int64_t Cg = C / G, Og = O / G;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t z = 0; z < outSp[0]; ++z)
          for (int64_t y = 0; y < outSp[1]; ++y)
            for (int64_t x = 0; x < outSp[2]; ++x) {
              double acc = 0, mag = 0;
              const int64_t g = o / Og;
              for (int64_t ci = 0; ci < Cg; ++ci)
                for (int64_t kz = 0; kz < kSp[0]; ++kz)
                  for (int64_t ky = 0; ky < kSp[1]; ++ky)
                    for (int64_t kx = 0; kx < kSp[2]; ++kx) {
                      const int64_t iz = z * s[0] - p[0] + kz * d[0];
                      const int64_t iy = y * s[1] - p[1] + ky * d[1];
                      const int64_t ix = x * s[2] - p[2] + kx * d[2];
                      if (iz < 0 || iz >= inSp[0] || iy < 0 ||
                          iy >= inSp[1] || ix < 0 || ix >= inSp[2])
                        continue;
                      const double term =
                          in.at(idx(n, g * Cg + ci, iz, iy, ix)) *
                          w.at(idx(o, ci, kz, ky, kx));
                      acc += term;
                      mag += std::fabs(term);
                    }
              r.value[flat(n, o, z, y, x)] = acc;
              r.magnitude[flat(n, o, z, y, x)] = mag;
            }
  } else {
    // Each input element scatters input * weight onto the output.
    const int64_t Cg = C / G, Og = O / G;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ci = 0; ci < C; ++ci)
        for (int64_t iz = 0; iz < inSp[0]; ++iz)
          for (int64_t iy = 0; iy < inSp[1]; ++iy)
            for (int64_t ix = 0; ix < inSp[2]; ++ix) {
              const double v = in.at(idx(n, ci, iz, iy, ix));
              const int64_t g = ci / Cg;
              for (int64_t co = 0; co < Og; ++co)
                for (int64_t kz = 0; kz < kSp[0]; ++kz)
                  for (int64_t ky = 0; ky < kSp[1]; ++ky)
                    for (int64_t kx = 0; kx < kSp[2]; ++kx) {
                      const int64_t z = iz * s[0] - p[0] + kz * d[0];
                      const int64_t y = iy * s[1] - p[1] + ky * d[1];
                      const int64_t x = ix * s[2] - p[2] + kx * d[2];
                      if (z < 0 || z >= outSp[0] || y < 0 || y >= outSp[1] ||
                          x < 0 || x >= outSp[2])
                        continue;
                      const double term = v * w.at(idx(ci, co, kz, ky, kx));
                      r.value[flat(n, g * Og + co, z, y, x)] += term;
                      r.magnitude[flat(n, g * Og + co, z, y, x)] +=
                          std::fabs(term);
                    }
            }
  }
  if (bias)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t z = 0; z < outSp[0]; ++z)
          for (int64_t y = 0; y < outSp[1]; ++y)
            for (int64_t x = 0; x < outSp[2]; ++x) {
              const double b = bias->at({o});
              r.value[flat(n, o, z, y, x)] += b;
              r.magnitude[flat(n, o, z, y, x)] += std::fabs(b);
            }
  return r;
}


/// A value truncated to bfloat16 (exactly representable in it).
inline float roundToBf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits &= 0xffff0000u;
  std::memcpy(&v, &bits, 4);
  return v;
}

} // namespace aoti::test::conv

#endif // AOTI_TESTS_SHIMS_CONV_REFERENCE_H
