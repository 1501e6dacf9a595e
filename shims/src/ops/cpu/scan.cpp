//===- ops/cpu/scan.cpp - The scan family on the host ----------------------===//
//
// Our own loops: no library we use (OpenBLAS, oneDNN) has a strided prefix
// scan over arbitrary dtypes. Each line (see ops/scan.h) is scanned in
// order, from its first element to its last, exactly as ATen's CPU kernels
// do (cpu_cum_base_kernel):
//   acc = init; for j: acc = op(acc, Out(self[j])); out[j] = Out(acc)
// where Out(x) converts to the result dtype first (ATen scans
// self.to(result dtype)) and acc has torch's CPU accumulation type for the
// result dtype: double for float32 and float64, float for float16 and
// bfloat16 (ops/cpu/element.h converts), int64 for the integer types
// (wrapping on overflow, as two's complement does in ATen). Same order and
// same accumulator: cumsum and cumprod equal torch's CPU results bit for
// bit; logcumsumexp's log1p/exp may differ from torch's vectorised ones in
// the last bit.
//
// logcumsumexp's step is ATen's _log_add_exp_helper in its own words: a NaN
// on either side gives NaN; two equal infinities give that infinity (exp of
// their difference would be NaN); otherwise max + log1p(exp(min - max)),
// which never overflows. The running value starts at -inf.
//
// cummax/cummin keep the running extreme as self's own element (no
// conversion) and compare in Compute<T>; see ops/scan.h for the tie and NaN
// rule.
//
// The result dtype is a template parameter and so is the input's, so the
// inner loop has no per-element dispatch.
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "ops/cpu/element.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace aoti::shims::ops::cpu {
namespace {

// torch's CPU accumulation type of a result dtype.
template <typename Out> struct Accumulator {
  using type = int64_t;
};
template <> struct Accumulator<float> {
  using type = double;
};
template <> struct Accumulator<double> {
  using type = double;
};
template <> struct Accumulator<Half> {
  using type = float;
};
template <> struct Accumulator<BHalf> {
  using type = float;
};

template <typename Acc> Acc logAddExp(Acc a, Acc b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<Acc>::quiet_NaN();
  const Acc lo = a < b ? a : b;
  const Acc hi = a < b ? b : a;
  if (lo == hi && !std::isfinite(lo))
    return lo;
  return hi + std::log1p(std::exp(lo - hi));
}

template <ScanOp Op, typename Acc> Acc initial() {
  if constexpr (Op == ScanOp::Sum)
    return Acc(0);
  else if constexpr (Op == ScanOp::Prod)
    return Acc(1);
  else
    return -std::numeric_limits<Acc>::infinity();
}

template <ScanOp Op, typename Acc, typename V> Acc step(Acc acc, V value) {
  const Acc v = static_cast<Acc>(value);
  if constexpr (std::is_integral_v<Acc>) {
    const auto a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(v);
    return static_cast<Acc>(Op == ScanOp::Sum ? a + b : a * b);
  } else if constexpr (Op == ScanOp::Sum) {
    return acc + v;
  } else if constexpr (Op == ScanOp::Prod) {
    return acc * v;
  } else {
    return logAddExp(acc, v);
  }
}

// Calls `body(srcLine, dstLine)` with the first element of each line, in
// order: an odometer over the outer dimensions.
template <typename Body> void forEachLine(const ScanLines &l, Body &&body) {
  const size_t outer = l.outerSizes.size();
  std::vector<int64_t> index(outer, 0);
  int64_t srcLine = 0, dstLine = 0;
  for (int64_t line = 0; line < l.lines; ++line) {
    body(srcLine, dstLine);
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < l.outerSizes[d]) {
        srcLine += l.selfOuterStrides[d];
        dstLine += l.outOuterStrides[d];
        break;
      }
      srcLine -= (l.outerSizes[d] - 1) * l.selfOuterStrides[d];
      dstLine -= (l.outerSizes[d] - 1) * l.outOuterStrides[d];
      index[d] = 0;
    }
  }
}

template <ScanOp Op, typename In, typename Out>
void scanLines(const Tensor &out, const Tensor &self, const ScanLines &l) {
  using Acc = typename Accumulator<Out>::type;
  const In *src = static_cast<const In *>(self.data());
  Out *dst = static_cast<Out *>(out.data());
  forEachLine(l, [&](int64_t srcLine, int64_t dstLine) {
    Acc acc = initial<Op, Acc>();
    for (int64_t j = 0; j < l.length; ++j) {
      const Out value = store<Out>(load(src[srcLine + j * l.selfStride]));
      acc = step<Op>(acc, load(value));
      dst[dstLine + j * l.outStride] = store<Out>(acc);
    }
  });
}

// The result dtypes of each op (ops/scan.cpp has refused the others).
template <ScanOp Op, typename Out> constexpr bool kIsResult =
    Op == ScanOp::LogSumExp
        ? kIsFloating<Out>
        : !std::is_same_v<Out, Bool> && !std::is_same_v<Out, uint16_t> &&
              !std::is_same_v<Out, uint32_t> && !std::is_same_v<Out, uint64_t>;

template <ScanOp Op>
Error scanAs(const Tensor &out, const Tensor &self, const ScanLines &lines) {
  const char *name = Op == ScanOp::Sum    ? "cumsum"
                     : Op == ScanOp::Prod ? "cumprod"
                                          : "logcumsumexp";
  return visitDtype(out.dtype(), name, [&]<typename Out>() -> Error {
    if constexpr (!kIsResult<Op, Out>) {
      return Error::failure(name, " cannot produce ", dtypeName(out.dtype()));
    } else {
      return visitDtype(self.dtype(), name, [&]<typename In>() {
        scanLines<Op, In, Out>(out, self, lines);
        return Error::success();
      });
    }
  });
}

template <bool Max, typename T>
void extremeLines(const Tensor &values, const Tensor &indices,
                  const Tensor &self, const ScanLines &l) {
  const T *src = static_cast<const T *>(self.data());
  T *dst = static_cast<T *>(values.data());
  int64_t *idx = static_cast<int64_t *>(indices.data());
  forEachLine(l, [&](int64_t srcLine, int64_t dstLine) {
    T best = src[srcLine];
    int64_t at = 0;
    for (int64_t j = 0; j < l.length; ++j) {
      const T element = src[srcLine + j * l.selfStride];
      const auto x = load(element), b = load(best);
      const bool takes = Max ? x >= b : x <= b;
      if (isNan(x) || (!isNan(b) && takes)) {
        best = element;
        at = j;
      }
      dst[dstLine + j * l.outStride] = best;
      idx[dstLine + j * l.outStride] = at;
    }
  });
}

} // namespace

Error scan(ScanOp op, const Tensor &out, const Tensor &self,
           const ScanLines &lines) {
  switch (op) {
  case ScanOp::Sum:
    return scanAs<ScanOp::Sum>(out, self, lines);
  case ScanOp::Prod:
    return scanAs<ScanOp::Prod>(out, self, lines);
  case ScanOp::LogSumExp:
    return scanAs<ScanOp::LogSumExp>(out, self, lines);
  }
  return Error::failure("unknown scan op");
}

Error scanExtreme(bool max, const Tensor &values, const Tensor &indices,
                  const Tensor &self, const ScanLines &lines) {
  return visitDtype(self.dtype(), max ? "cummax" : "cummin",
                    [&]<typename T>() {
                      if (max)
                        extremeLines<true, T>(values, indices, self, lines);
                      else
                        extremeLines<false, T>(values, indices, self, lines);
                      return Error::success();
                    });
}

} // namespace aoti::shims::ops::cpu
