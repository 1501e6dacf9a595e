//===- attention_test_util.h - Operands and a reference for the SDPA tests -===//
//
// Shared by ops_attention_test.cpp (CPU) and cuda_attention_test.cpp. The
// test owns every operand as host bytes in a layout it chooses (contiguous,
// a transposed [B,L,H,D] buffer viewed as [B,H,L,D], or every stride
// doubled), with a storage offset; values are multiples of 1/32 in
// [-1.5, 1.5], exact in float32, float16 and bfloat16, so the reference
// sees exactly what the kernel reads. The reference is the definition,
// computed in double with plain loops: scores, an explicit softmax, the
// weighted sum of values, and the natural log of the softmax denominator.
// The expected output layouts are written per case from torch 2.11's meta
// functions (torch/_meta_registrations.py), not computed by the library's
// rules.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TESTS_SHIMS_ATTENTION_TEST_UTIL_H
#define AOTI_TESTS_SHIMS_ATTENTION_TEST_UTIL_H

#include "shims_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace aoti::test::attention {

enum class Dtype { Float32, Float16, BFloat16, Bool };

inline int32_t codeOf(Dtype type) {
  switch (type) {
  case Dtype::Float32:
    return aoti_torch_dtype_float32();
  case Dtype::Float16:
    return aoti_torch_dtype_float16();
  case Dtype::BFloat16:
    return aoti_torch_dtype_bfloat16();
  case Dtype::Bool:
    return aoti_torch_dtype_bool();
  }
  return -1;
}

inline size_t sizeOf(Dtype type) {
  return type == Dtype::Float32 ? 4 : type == Dtype::Bool ? 1 : 2;
}

inline const char *nameOf(Dtype type) {
  switch (type) {
  case Dtype::Float32:
    return "float32";
  case Dtype::Float16:
    return "float16";
  case Dtype::BFloat16:
    return "bfloat16";
  case Dtype::Bool:
    return "bool";
  }
  return "?";
}

// Encodes a value that is exact in `type` (the tests only make such values).
inline void encode(Dtype type, double value, uint8_t *out) {
  const float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  switch (type) {
  case Dtype::Float32:
    std::memcpy(out, &f, 4);
    return;
  case Dtype::BFloat16: {
    const uint16_t b = static_cast<uint16_t>(bits >> 16);
    std::memcpy(out, &b, 2);
    return;
  }
  case Dtype::Float16: {
    uint16_t h = 0;
    if (value != 0.0) {
      int exponent = 0;
      const double fraction = std::frexp(std::fabs(value), &exponent);
      // value = fraction * 2^exponent, fraction in [0.5, 1): normal halves
      // have 1.m * 2^(exponent - 1) with a biased exponent of exponent + 14.
      const auto mantissa =
          static_cast<uint16_t>(std::ldexp(fraction * 2.0 - 1.0, 10));
      h = static_cast<uint16_t>(((exponent + 14) << 10) | mantissa);
      if (value < 0)
        h |= 0x8000;
    }
    std::memcpy(out, &h, 2);
    return;
  }
  case Dtype::Bool:
    *out = value != 0.0 ? 1 : 0;
    return;
  }
}

inline double decode(Dtype type, const uint8_t *in) {
  switch (type) {
  case Dtype::Float32: {
    float f;
    std::memcpy(&f, in, 4);
    return f;
  }
  case Dtype::BFloat16: {
    uint16_t b;
    std::memcpy(&b, in, 2);
    const uint32_t bits = uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case Dtype::Float16: {
    uint16_t h;
    std::memcpy(&h, in, 2);
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    double magnitude;
    if (exponent == 0)
      magnitude = std::ldexp(mantissa, -24);
    else if (exponent == 31)
      magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                           : std::numeric_limits<double>::infinity();
    else
      magnitude = std::ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
  }
  case Dtype::Bool:
    return *in ? 1.0 : 0.0;
  }
  return 0.0;
}

/// How an operand's storage is laid out.
enum class Layout {
  Contiguous, // [B,H,L,D] row-major
  Transposed, // a [B,L,H,D] buffer viewed as [B,H,L,D] (the usual q/k/v)
  Gapped,     // row-major strides, each doubled: not dense, stride(-1) = 2
};

inline std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

inline std::vector<int64_t> stridesFor(const std::vector<int64_t> &sizes,
                                       Layout layout) {
  std::vector<int64_t> strides = rowMajorStrides(sizes);
  if (layout == Layout::Transposed) {
    const int64_t H = sizes[1], L = sizes[2], D = sizes[3];
    strides = {L * H * D, D, H * D, 1};
  } else if (layout == Layout::Gapped) {
    for (int64_t &s : strides)
      s *= 2;
  }
  return strides;
}

/// A tensor the test owns: host bytes plus the logical values.
struct Operand {
  Dtype dtype = Dtype::Float32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<uint8_t> storage;
  std::vector<double> values; // row-major logical order

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  // Storage offset (elements, from the storage start) of logical `linear`.
  int64_t elementOffset(int64_t linear) const {
    int64_t off = offset;
    for (size_t d = sizes.size(); d-- > 0;) {
      off += (linear % sizes[d]) * strides[d];
      linear /= sizes[d];
    }
    return off;
  }
  // Value at a [b, h, i, j] index broadcast to 4-d (for masks of lower rank
  // or with size-1 dimensions).
  double at4(int64_t b, int64_t h, int64_t i, int64_t j) const {
    const int64_t index4[4] = {b, h, i, j};
    const size_t lead = 4 - sizes.size();
    int64_t linear = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      linear = linear * sizes[d] + (sizes[d] == 1 ? 0 : index4[lead + d]);
    return values[linear];
  }
};

/// A deterministic generator of multiples of 1/32 in [-1.5, 1.5].
class Values {
public:
  explicit Values(uint32_t seed) : state_(seed * 2654435761u + 1) {}
  double next() {
    state_ = state_ * 1664525u + 1013904223u;
    return static_cast<double>(static_cast<int>((state_ >> 16) % 97) - 48) /
           32.0;
  }
  bool nextBool() {
    state_ = state_ * 1664525u + 1013904223u;
    return ((state_ >> 16) % 4) != 0; // 3 in 4 attend
  }

private:
  uint32_t state_;
};

inline Operand makeOperand(const std::vector<int64_t> &sizes,
                           const std::vector<int64_t> &strides, int64_t offset,
                           Dtype dtype, Values &gen) {
  Operand op;
  op.dtype = dtype;
  op.sizes = sizes;
  op.strides = strides;
  op.offset = offset;
  int64_t extent = 0;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    empty = empty || sizes[d] == 0;
    extent += (sizes[d] - 1) * strides[d];
  }
  const int64_t elements = offset + (empty ? 0 : extent + 1);
  // Unread bytes hold a pattern that is NaN in every float dtype.
  op.storage.assign(static_cast<size_t>(std::max<int64_t>(elements, 1)) *
                        sizeOf(dtype),
                    0xff);
  op.values.resize(static_cast<size_t>(op.numel()));
  for (int64_t n = 0; n < op.numel(); ++n) {
    const double v = dtype == Dtype::Bool ? (gen.nextBool() ? 1.0 : 0.0)
                                          : gen.next();
    op.values[n] = v;
    encode(dtype, v, op.storage.data() + op.elementOffset(n) * sizeOf(dtype));
  }
  return op;
}

inline Operand makeOperand(const std::vector<int64_t> &sizes, Layout layout,
                           int64_t offset, Dtype dtype, Values &gen) {
  return makeOperand(sizes, stridesFor(sizes, layout), offset, dtype, gen);
}

/// Sets mask values (after makeOperand) and re-encodes them.
inline void setValue(Operand &op, int64_t linear, double value) {
  op.values[linear] = value;
  encode(op.dtype, value,
         op.storage.data() + op.elementOffset(linear) * sizeOf(op.dtype));
}

/// One attention problem of the tests: query [B, H, Lq, E], key [B, Hk, Lk,
/// E], value [B, Hk, Lk, Ev], their dtype and layout, the mask and the
/// options. The default shape is the CPU test's, small; the CUDA test's
/// cases (CudaCase) start from a larger one.
struct Case {
  int64_t B = 2, H = 3, Hk = 3, Lq = 5, Lk = 5, E = 8, Ev = 8;
  Dtype dtype = Dtype::Float32;
  Layout layout = Layout::Contiguous; // of query, key and value
  int64_t offset = 0;                 // storage offset of each
  bool causal = false;
  std::optional<double> scale;
  // The mask: none when maskSizes is empty.
  std::vector<int64_t> maskSizes;
  Dtype maskDtype = Dtype::Bool;
  uint32_t seed = 1;
};

/// The operands of a case, as host bytes.
struct Operands {
  Operand query, key, value;
  std::optional<Operand> mask;
};

/// The case's operands, drawn from its seed; the mask, when there is one, is
/// row-major at storage offset 3.
inline Operands makeOperands(const Case &c) {
  Values gen(c.seed);
  Operands ops;
  ops.query = makeOperand({c.B, c.H, c.Lq, c.E}, c.layout, c.offset, c.dtype,
                          gen);
  ops.key = makeOperand({c.B, c.Hk, c.Lk, c.E}, c.layout, c.offset, c.dtype,
                        gen);
  ops.value = makeOperand({c.B, c.Hk, c.Lk, c.Ev}, c.layout, c.offset,
                          c.dtype, gen);
  if (!c.maskSizes.empty())
    ops.mask = makeOperand(c.maskSizes, rowMajorStrides(c.maskSizes), 3,
                           c.maskDtype, gen);
  return ops;
}

/// A CPU handle over the operand's storage (borrowed, never freed).
inline TensorHandle cpuHandle(Operand &op) {
  TensorHandle t;
  EXPECT_EQ(aoti_torch_create_tensor_from_blob(
                op.storage.data(), static_cast<int64_t>(op.sizes.size()),
                op.sizes.data(), op.strides.data(), op.offset,
                codeOf(op.dtype), aoti_torch_device_type_cpu(), 0, t.out()),
            AOTI_TORCH_SUCCESS)
      << aoti_shims_last_error();
  return t;
}

/// The attention problem the reference solves.
struct Problem {
  const Operand *query = nullptr;
  const Operand *key = nullptr;
  const Operand *value = nullptr;
  const Operand *mask = nullptr; // bool: 1 = attend; float: added
  bool causal = false;
  int64_t causalOffset = 0; // visible iff j <= i + causalOffset
  std::optional<double> scale;
};

struct Reference {
  std::vector<double> out; // [B, H, Lq, Ev] row-major
  std::vector<double> lse; // [B, H, Lq]; -inf for fully masked rows
};

inline Reference reference(const Problem &p) {
  const auto &qs = p.query->sizes;
  const int64_t B = qs[0], H = qs[1], Lq = qs[2], E = qs[3];
  const int64_t Hk = p.key->sizes[1], Lk = p.key->sizes[2];
  const int64_t Ev = p.value->sizes[3];
  const double scale = p.scale ? *p.scale : 1.0 / std::sqrt(double(E));
  const double inf = std::numeric_limits<double>::infinity();
  Reference r;
  r.out.assign(static_cast<size_t>(B * H * Lq * Ev), 0.0);
  r.lse.assign(static_cast<size_t>(B * H * Lq), -inf);
  auto q = [&](int64_t b, int64_t h, int64_t i, int64_t d) {
    return p.query->values[((b * H + h) * Lq + i) * E + d];
  };
  auto k = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return p.key->values[((b * Hk + h) * Lk + j) * E + d];
  };
  auto v = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return p.value->values[((b * Hk + h) * Lk + j) * Ev + d];
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kh = h / (H / Hk);
      for (int64_t i = 0; i < Lq; ++i) {
        std::vector<double> s(static_cast<size_t>(Lk));
        for (int64_t j = 0; j < Lk; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < E; ++d)
            dot += q(b, h, i, d) * k(b, kh, j, d);
          s[j] = dot * scale;
          if (p.mask) {
            const double m = p.mask->at4(b, h, i, j);
            if (p.mask->dtype == Dtype::Bool)
              s[j] = m != 0.0 ? s[j] : -inf;
            else
              s[j] += m;
          }
          if (p.causal && j > i + p.causalOffset)
            s[j] = -inf;
        }
        double maxScore = -inf;
        for (double x : s)
          maxScore = std::max(maxScore, x);
        if (maxScore == -inf)
          continue; // out stays 0, lse -inf
        double denominator = 0.0;
        for (double &x : s) {
          x = std::exp(x - maxScore);
          denominator += x;
        }
        for (int64_t d = 0; d < Ev; ++d) {
          double sum = 0.0;
          for (int64_t j = 0; j < Lk; ++j)
            sum += s[j] / denominator * v(b, kh, j, d);
          r.out[((b * H + h) * Lq + i) * Ev + d] = sum;
        }
        r.lse[(b * H + h) * Lq + i] = maxScore + std::log(denominator);
      }
    }
  return r;
}

/// Tolerances. The inputs are exact in every dtype and the reference uses
/// them as the kernel reads them, so what remains is float32 accumulation
/// (dot products of up to 256 terms and sums of up to 300 exponentials:
/// errors of a few 1e-6 on O(1) values, 1e-5 bounds them) and, for the
/// half types, the one rounding of the output to the dtype: one ulp at
/// most, 2^-10 relative for float16 and 2^-7 for bfloat16. logsumexp is
/// float32 always.
struct Tolerance {
  double abs;
  double rel;
};

inline Tolerance outputTolerance(Dtype type) {
  switch (type) {
  case Dtype::Float16:
    return {1e-5, 1.0 / 1024};
  case Dtype::BFloat16:
    return {1e-5, 1.0 / 128};
  default:
    return {1e-5, 1e-5};
  }
}

inline Tolerance lseTolerance() { return {1e-5, 1e-5}; }

inline void expectClose(const std::vector<double> &actual,
                        const std::vector<double> &expected, Tolerance tol,
                        const std::string &what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  for (size_t n = 0; n < actual.size(); ++n) {
    const double a = actual[n], e = expected[n];
    const bool ok = std::isinf(e) ? a == e
                                  : std::fabs(a - e) <=
                                        tol.abs + tol.rel * std::fabs(e);
    if (!ok && reported++ < 8)
      ADD_FAILURE() << what << "[" << n << "] = " << a << ", expected " << e;
  }
}

/// The logical values (row-major) of a tensor whose storage bytes start at
/// `data` (the first element), read through its sizes and strides.
inline std::vector<double> gather(const uint8_t *data, Dtype dtype,
                                  const std::vector<int64_t> &sizes,
                                  const std::vector<int64_t> &strides) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear, off = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      off += (rest % sizes[d]) * strides[d];
      rest /= sizes[d];
    }
    values[linear] = decode(dtype, data + off * sizeOf(dtype));
  }
  return values;
}

/// logsumexp values [B, H, Lq] of a reference, padded to `rows` with +inf
/// (the efficient kernel's padding).
inline std::vector<double> paddedLse(const std::vector<double> &lse,
                                     int64_t BH, int64_t Lq, int64_t rows) {
  std::vector<double> padded(static_cast<size_t>(BH * rows),
                             std::numeric_limits<double>::infinity());
  for (int64_t bh = 0; bh < BH; ++bh)
    for (int64_t i = 0; i < Lq; ++i)
      padded[bh * rows + i] = lse[bh * Lq + i];
  return padded;
}

inline int32_t dtypeOf(AtenTensorHandle t) {
  int32_t dtype = -1;
  EXPECT_EQ(aoti_torch_get_dtype(t, &dtype), AOTI_TORCH_SUCCESS);
  return dtype;
}

inline int32_t deviceTypeOf(AtenTensorHandle t) {
  int32_t type = -1;
  EXPECT_EQ(aoti_torch_get_device_type(t, &type), AOTI_TORCH_SUCCESS);
  return type;
}

} // namespace aoti::test::attention

#endif // AOTI_TESTS_SHIMS_ATTENTION_TEST_UTIL_H
