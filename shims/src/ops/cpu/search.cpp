//===- ops/cpu/search.cpp - searchsorted, histc, histogram on the host ----===//
//
// Plain loops; no library we use searches or bins.
//  - searchSorted: the values and boundaries are first read into arrays
//    of the comparison dtype's Compute<T> (each converted to T as torch's
//    .to(common dtype) does, so a value lands exactly where torch puts
//    it), then one binary search per value over its row, with torch's
//    comparisons: lower bound advances while !(boundary >= value), upper
//    bound while !(boundary > value); a NaN value compares false with
//    everything and ends past the last boundary. O(values * log(length)).
//  - histc: torch's LINEAR_INTERPOLATION bin selection, in self's dtype's
//    arithmetic (float16/bfloat16 round after every operation, as c10's
//    Half and BFloat16 operators do): values outside [low, high] and NaN
//    are skipped, bin = (x - low) * bins / (high - low) truncated, the high
//    edge counted in the last bin. Counts are exact integers, converted to
//    the dtype once (torch adds 1 in the dtype per thread, so a float16
//    count above 2048 saturates there; it does not here).
//  - histogramdd: the edges are torch's linspace in the dtype (the first
//    half from the start, the second from the end, as its scalar loop
//    computes them; its vectorised loop can differ in the last bit), the
//    bin is chosen by the same interpolation and then corrected by a
//    binary search over the neighbouring edges (LINEAR_INTERPOLATION_WITH_
//    LOCAL_SEARCH), so it agrees with the edges returned. Weights
//    accumulate in double and are rounded to the dtype once; density
//    divides by the total, then by each dimension's bin widths, rounding
//    to the dtype after each division as torch's in-place divisions do.
//
//===----------------------------------------------------------------------===//
#include "ops/search.h"

#include "ops/cpu/element.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

// Calls fn(offset) for every element of `t` in row-major order (offsets in
// elements from t.data()).
template <typename Fn> void forEachOffset(const Tensor &t, Fn fn) {
  const int64_t n = t.numel();
  if (n == 0)
    return;
  const size_t rank = static_cast<size_t>(t.dim());
  std::vector<int64_t> coords(rank, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    fn(offset);
    for (size_t d = rank; d-- > 0;) {
      if (++coords[d] < t.sizes()[d]) {
        offset += t.strides()[d];
        break;
      }
      offset -= (t.sizes()[d] - 1) * t.strides()[d];
      coords[d] = 0;
    }
  }
}

// `t`'s elements (row-major) converted to T, as Compute<T>.
template <typename T>
Error readAs(const Tensor &t, std::vector<Compute<T>> &values) {
  values.clear();
  values.reserve(static_cast<size_t>(t.numel()));
  return visitDtype(t.dtype(), "searchsorted", [&]<typename S>() {
    const S *data = static_cast<const S *>(t.data());
    forEachOffset(t, [&](int64_t at) {
      values.push_back(load(store<T>(load(data[at]))));
    });
    return Error::success();
  });
}

template <typename C>
int64_t lowerBound(const C *bd, const int64_t *sort, int64_t start, int64_t end,
                   C value) {
  const int64_t origin = start;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const C at = sort ? bd[sort[mid] + origin] : bd[mid];
    if (!(at >= value))
      start = mid + 1;
    else
      end = mid;
  }
  return start;
}

template <typename C>
int64_t upperBound(const C *bd, const int64_t *sort, int64_t start, int64_t end,
                   C value) {
  const int64_t origin = start;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const C at = sort ? bd[sort[mid] + origin] : bd[mid];
    if (!(at > value))
      start = mid + 1;
    else
      end = mid;
  }
  return start;
}

template <typename T, typename Out>
Error searchRows(const Tensor &out, const Tensor *input,
                 const Tensor &boundaries, const Tensor *sorter,
                 const SearchSorted &p) {
  using C = Compute<T>;
  std::vector<C> bd, values;
  if (Error err = readAs<T>(boundaries, bd))
    return err;
  if (input) {
    if (Error err = readAs<T>(*input, values))
      return err;
  } else {
    values.push_back(load(store<T>(p.scalar)));
  }
  const int64_t *sort = sorter ? static_cast<const int64_t *>(sorter->data()) : nullptr;
  Out *dst = static_cast<Out *>(out.data());
  for (int64_t i = 0; i < p.values; ++i) {
    const int64_t start = p.oneRow ? 0 : i / p.valuesPerRow * p.boundaryLength;
    const int64_t end = start + p.boundaryLength;
    const int64_t pos =
        p.right ? upperBound(bd.data(), sort, start, end, values[i])
                : lowerBound(bd.data(), sort, start, end, values[i]);
    dst[i] = static_cast<Out>(pos - start);
  }
  return Error::success();
}

// x rounded to T, for the 16-bit floats (c10's Half and BFloat16 round the
// result of every operation); the identity for float and double, whose
// Compute type is themselves.
template <typename T> inline Compute<T> r(Compute<T> x) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BHalf>)
    return load(store<T>(x));
  else
    return x;
}

// torch's linear-interpolation bin of x in [low, high] with `bins` bins,
// in T's arithmetic (an int64 operand is converted to T first, as C++
// does for float and double and c10's operators do for Half/BFloat16).
template <typename T>
int64_t interpolatedBin(Compute<T> x, Compute<T> low, Compute<T> high,
                        int64_t bins) {
  using C = Compute<T>;
  const C q = r<T>(r<T>(r<T>(x - low) * r<T>(static_cast<C>(bins))) /
                   r<T>(high - low));
  if (!(q >= C(0)))
    return 0; // a zero-width range in T: torch's cast would be undefined
  if (q >= static_cast<C>(bins))
    return bins;
  return static_cast<int64_t>(q);
}

template <typename T> constexpr bool kIsFloat = std::is_same_v<T, Half> ||
    std::is_same_v<T, BHalf> || std::is_same_v<T, float> ||
    std::is_same_v<T, double>;

template <typename T>
Error histcOf(const Tensor &hist, const Tensor &input, const Histc &p) {
  using C = Compute<T>;
  const C low = static_cast<C>(p.low), high = static_cast<C>(p.high);
  std::vector<int64_t> counts(static_cast<size_t>(p.bins), 0);
  const T *data = static_cast<const T *>(input.data());
  forEachOffset(input, [&](int64_t at) {
    const C x = load(data[at]);
    if (!(x >= low && x <= high))
      return;
    int64_t bin = interpolatedBin<T>(x, low, high, p.bins);
    if (bin == p.bins)
      bin -= 1;
    ++counts[bin];
  });
  T *dst = static_cast<T *>(hist.data());
  for (int64_t b = 0; b < p.bins; ++b)
    dst[b] = store<T>(static_cast<double>(counts[b]));
  return Error::success();
}

template <typename T> Error linspaceOf(const Tensor &edges, double lo, double hi) {
  using C = Compute<T>;
  const int64_t steps = edges.numel();
  const C start = load(store<T>(lo)), end = load(store<T>(hi));
  const C step = r<T>(r<T>(end - start) / r<T>(static_cast<C>(steps - 1)));
  const int64_t halfway = steps / 2;
  T *dst = static_cast<T *>(edges.data());
  for (int64_t i = 0; i < steps; ++i) {
    const C value =
        i < halfway
            ? r<T>(start + r<T>(step * r<T>(static_cast<C>(i))))
            : r<T>(end - r<T>(step * r<T>(static_cast<C>(steps - i - 1))));
    dst[i] = store<T>(value);
  }
  return Error::success();
}

template <typename T>
Error histogramOf(const Tensor &hist, const Tensor &input, const Tensor *weight,
                  const std::vector<Tensor> &edges, bool density) {
  using C = Compute<T>;
  const int64_t m = input.sizes()[0], n = input.sizes()[1];
  std::vector<std::vector<C>> e(static_cast<size_t>(n));
  std::vector<int64_t> histStride(static_cast<size_t>(n), 1);
  for (int64_t d = n; d-- > 0;) {
    const T *data = static_cast<const T *>(edges[d].data());
    for (int64_t k = 0; k < edges[d].numel(); ++k)
      e[d].push_back(load(data[k]));
    if (d + 1 < n)
      histStride[d] = histStride[d + 1] * (edges[d + 1].numel() - 1);
  }
  const int64_t cells = hist.numel();
  std::vector<double> acc(static_cast<size_t>(cells), 0.0);
  const T *rows = static_cast<const T *>(input.data());
  const T *w = weight ? static_cast<const T *>(weight->data()) : nullptr;
  if (n > 0)
    for (int64_t i = 0; i < m; ++i) {
      int64_t cell = 0;
      bool inside = true;
      for (int64_t d = 0; d < n && inside; ++d) {
        const C x = load(rows[i * n + d]);
        const std::vector<C> &ed = e[d];
        const int64_t count = static_cast<int64_t>(ed.size());
        if (!(x >= ed.front() && x <= ed.back())) {
          inside = false;
          break;
        }
        int64_t pos = interpolatedBin<T>(x, ed.front(), ed.back(), count - 1);
        const int64_t lo = std::max<int64_t>(0, pos - 1);
        const int64_t hi = std::min<int64_t>(pos + 2, count);
        pos = std::upper_bound(ed.begin() + lo, ed.begin() + hi, x) - ed.begin() - 1;
        if (pos == count - 1)
          pos -= 1;
        cell += histStride[d] * pos;
      }
      if (inside)
        acc[cell] += w ? static_cast<double>(load(w[i])) : 1.0;
    }
  T *dst = static_cast<T *>(hist.data());
  for (int64_t k = 0; k < cells; ++k)
    dst[k] = store<T>(acc[k]);
  if (!density)
    return Error::success();
  double total = 0.0;
  for (int64_t k = 0; k < cells; ++k)
    total += static_cast<double>(load(dst[k]));
  const C divisor = static_cast<C>(total);
  for (int64_t k = 0; k < cells; ++k)
    dst[k] = store<T>(load(dst[k]) / divisor);
  for (int64_t d = 0; d < n; ++d) {
    const int64_t bins = static_cast<int64_t>(e[d].size()) - 1;
    for (int64_t k = 0; k < cells; ++k) {
      const int64_t b = (k / histStride[d]) % bins;
      const C width = r<T>(e[d][b + 1] - e[d][b]);
      dst[k] = store<T>(load(dst[k]) / width);
    }
  }
  return Error::success();
}

} // namespace

Error searchSorted(const Tensor &out, const Tensor *input,
                   const Tensor &boundaries, const Tensor *sorter,
                   const SearchSorted &problem) {
  return visitDtype(problem.common, "searchsorted", [&]<typename T>() -> Error {
    if constexpr (std::is_same_v<T, Bool> || std::is_same_v<T, uint16_t> ||
                  std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>)
      return Error::failure("searchsorted has no CPU kernel for ",
                            dtypeName(problem.common));
    else if (out.dtype() == ScalarType::Int32)
      return searchRows<T, int32_t>(out, input, boundaries, sorter, problem);
    else
      return searchRows<T, int64_t>(out, input, boundaries, sorter, problem);
  });
}

Error checkSorter(const Tensor &sorter, int64_t boundaryLength) {
  const int64_t *data = static_cast<const int64_t *>(sorter.data());
  Error bad = Error::success();
  bool found = false;
  forEachOffset(sorter, [&](int64_t at) {
    if (!found && (data[at] < 0 || data[at] >= boundaryLength)) {
      found = true;
      bad = Error::failure("sorter holds ", data[at], ", outside [0, ",
                           boundaryLength, ")");
    }
  });
  return bad;
}

Expected<ValueRange> valueRange(const Tensor &input) {
  ValueRange range;
  Error err = visitDtype(input.dtype(), "histc", [&]<typename T>() {
    const T *data = static_cast<const T *>(input.data());
    bool first = true, nan = false;
    forEachOffset(input, [&](int64_t at) {
      const double x = static_cast<double>(load(data[at]));
      if (std::isnan(x))
        nan = true;
      if (first || x < range.low)
        range.low = x;
      if (first || x > range.high)
        range.high = x;
      first = false;
    });
    if (nan)
      range.low = range.high = std::nan("");
    return Error::success();
  });
  if (err)
    return err;
  return range;
}

Error histc(const Tensor &hist, const Tensor &input, const Histc &problem) {
  return visitDtype(input.dtype(), "histc", [&]<typename T>() -> Error {
    if constexpr (!kIsFloat<T>)
      return Error::failure("histc has no CPU kernel for ",
                            dtypeName(input.dtype()));
    else
      return histcOf<T>(hist, input, problem);
  });
}

Error linspaceEdges(const Tensor &edges, double low, double high) {
  return visitDtype(edges.dtype(), "histogram", [&]<typename T>() -> Error {
    if constexpr (!kIsFloat<T>)
      return Error::failure("histogram has no CPU kernel for ",
                            dtypeName(edges.dtype()));
    else
      return linspaceOf<T>(edges, low, high);
  });
}

Error columnRanges(const Tensor &input, std::vector<double> &low,
                   std::vector<double> &high) {
  return visitDtype(input.dtype(), "histogramdd", [&]<typename T>() {
    const int64_t m = input.sizes()[0], n = input.sizes()[1];
    const T *data = static_cast<const T *>(input.data());
    for (int64_t d = 0; d < n; ++d) {
      double lo = 0, hi = 0;
      bool nan = false;
      for (int64_t i = 0; i < m; ++i) {
        const double x = static_cast<double>(load(data[i * n + d]));
        nan = nan || std::isnan(x);
        if (i == 0 || x < lo)
          lo = x;
        if (i == 0 || x > hi)
          hi = x;
      }
      low[d] = nan ? std::nan("") : lo;
      high[d] = nan ? std::nan("") : hi;
    }
    return Error::success();
  });
}

Error histogramdd(const Tensor &hist, const Tensor &input, const Tensor *weight,
                  const std::vector<Tensor> &edges, bool density) {
  return visitDtype(input.dtype(), "histogramdd", [&]<typename T>() -> Error {
    if constexpr (!kIsFloat<T>)
      return Error::failure("histogramdd has no CPU kernel for ",
                            dtypeName(input.dtype()));
    else
      return histogramOf<T>(hist, input, weight, edges, density);
  });
}

} // namespace aoti::shims::ops::cpu
