//===- ops/cpu/scatter.cpp - scatter and scatter_reduce on the host -------===//
//
// Our own loops, one line of index at a time (ops/scatter.h): the elements
// of a line reach out only on out's line with the same outer coordinates,
// so a line is finished before the next begins, in index order i = 0, 1,
// ... along dim, which is the order torch's CPU kernel applies them in:
//  - scatter: out[index[i]] = src[i]; of duplicate indices the last one
//    (largest i) wins, as on torch's CPU;
//  - scatter_reduce: each position reached gets an accumulator of
//    Compute<T> (float for float16 and bfloat16, as torch's CPU kernel
//    reduces 16-bit floats in a float copy of self; T itself otherwise),
//    started from out's value (include_self) or from the reduction's
//    identity (0, 1, -inf or the lowest value, +inf or the highest value,
//    as torch's scatter_reduce_exclude_self_helper fills), then combined
//    with src in index order and stored back once. Integers wrap, bool
//    sums are "or" and products "and"; amax/amin return NaN once a NaN is
//    met (torch's `isnan(src) ? src : max(self, src)`, whose std::max also
//    keeps a NaN already there);
//  - "mean" divides the sum, rounded to T first as torch stores it, by the
//    count of values reduced (self counted when included), that count held
//    in T as torch holds it (so it wraps for narrow integers) with 0 read
//    as 1; floating types divide, integers floor-divide.
// Positions reached are found with a stamp per position of out's line
// (the line that last touched it), so no per-line clearing is needed: the
// cost is O(index.numel() + out.size(dim)) time and O(out.size(dim))
// memory. Untouched positions keep self's value bit for bit.
//
// segment_reduce: each output element reduces its segment in order, in
// data's dtype's arithmetic exactly as torch's kernel does (scalar_t
// throughout: a float16 sum rounds to float16 at every step; a mean
// divides by the length in the dtype; an empty mean without an initial
// value is NaN; max/min keep a NaN). O(data.numel()).
//
//===----------------------------------------------------------------------===//
#include "ops/scatter.h"

#include "ops/cpu/element.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

// Walks the lines of ScatterLines: the first element's offset in index,
// src and out of each line, in row-major order of the outer dimensions.
class LineWalker {
public:
  explicit LineWalker(const ScatterLines &l)
      : l_(l), coords_(l.outerSizes.size(), 0) {}
  int64_t index = 0, src = 0, out = 0;
  void next() {
    for (size_t d = coords_.size(); d-- > 0;) {
      if (++coords_[d] < l_.outerSizes[d]) {
        index += l_.indexOuterStrides[d];
        src += l_.srcOuterStrides[d];
        out += l_.outOuterStrides[d];
        return;
      }
      index -= (l_.outerSizes[d] - 1) * l_.indexOuterStrides[d];
      src -= (l_.outerSizes[d] - 1) * l_.srcOuterStrides[d];
      out -= (l_.outerSizes[d] - 1) * l_.outOuterStrides[d];
      coords_[d] = 0;
    }
  }

private:
  const ScatterLines &l_;
  std::vector<int64_t> coords_;
};

template <typename I>
Error checkLines(const Tensor &index, const ScatterLines &l) {
  const I *data = static_cast<const I *>(index.data());
  LineWalker walk(l);
  for (int64_t line = 0; line < l.lines; ++line, walk.next())
    for (int64_t i = 0; i < l.length; ++i) {
      const int64_t at = static_cast<int64_t>(data[walk.index + i * l.indexStride]);
      if (at < 0 || at >= l.bound)
        return Error::failure("index ", at, " is out of bounds for dimension ",
                              l.dim, " with size ", l.bound);
    }
  return Error::success();
}

template <typename A> A wrapAdd(A a, A b) {
  if constexpr (std::is_same_v<A, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) +
                          static_cast<std::make_unsigned_t<A>>(b));
  else
    return a + b;
}

template <typename A> A wrapMul(A a, A b) {
  if constexpr (std::is_same_v<A, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<A>) {
    // Unsigned arithmetic is modular; small types promote to int first.
    using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned,
                                 std::make_unsigned_t<A>>;
    return static_cast<A>(static_cast<U>(static_cast<std::make_unsigned_t<A>>(a)) *
                          static_cast<U>(static_cast<std::make_unsigned_t<A>>(b)));
  } else
    return a * b;
}

template <typename A> A combine(ScatterOp op, A acc, A value) {
  switch (op) {
  case ScatterOp::Sum:
  case ScatterOp::Mean:
    return wrapAdd(acc, value);
  case ScatterOp::Prod:
    return wrapMul(acc, value);
  case ScatterOp::Amax:
    return isNan(value) ? value : (acc < value ? value : acc);
  case ScatterOp::Amin:
    return isNan(value) ? value : (value < acc ? value : acc);
  case ScatterOp::Assign:
    return value;
  }
  return value;
}

// The value torch fills reached positions with when self is excluded.
template <typename A> A identity(ScatterOp op) {
  switch (op) {
  case ScatterOp::Prod:
    return A(1);
  case ScatterOp::Amax:
    if constexpr (std::numeric_limits<A>::has_infinity)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  case ScatterOp::Amin:
    if constexpr (std::numeric_limits<A>::has_infinity)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  default:
    return A(0);
  }
}

// Floor division of integers as torch's div(rounding_mode="floor"),
// wrapping where it overflows.
inline int64_t floorDivide(int64_t a, int64_t b) {
  if (b == -1)
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

// out's stored sum divided by the count of values reduced, as torch's
// scatter_reduce_two does with a count tensor of out's dtype.
template <typename T> T meanOf(T sum, int64_t count) {
  using C = Compute<T>;
  if constexpr (std::is_same_v<T, Bool>) {
    return sum; // refused before it gets here: torch has no bool mean
  } else if constexpr (std::is_floating_point_v<C>) {
    C divisor = load(store<T>(static_cast<double>(count)));
    if (divisor == C(0))
      divisor = C(1);
    return store<T>(load(sum) / divisor);
  } else {
    int64_t divisor = static_cast<int64_t>(store<T>(count));
    if (divisor == 0)
      divisor = 1;
    return store<T>(floorDivide(static_cast<int64_t>(load(sum)), divisor));
  }
}

template <typename T, typename I>
Error scatterLines(const Tensor &out, const Tensor &index,
                   const ScatterLines &l, const ScatterWork &work) {
  using A = Compute<T>;
  T *dst = static_cast<T *>(out.data());
  const I *idx = static_cast<const I *>(index.data());
  const T *src = work.src ? static_cast<const T *>(work.src->data()) : nullptr;
  const T fill = store<T>(work.value);
  LineWalker walk(l);

  if (work.op == ScatterOp::Assign) {
    for (int64_t line = 0; line < l.lines; ++line, walk.next())
      for (int64_t i = 0; i < l.length; ++i) {
        const int64_t at = static_cast<int64_t>(idx[walk.index + i * l.indexStride]);
        dst[walk.out + at * l.outStride] =
            src ? src[walk.src + i * l.srcStride] : fill;
      }
    return Error::success();
  }

  std::vector<int64_t> stamp(static_cast<size_t>(l.bound), -1);
  std::vector<int64_t> count(static_cast<size_t>(l.bound), 0);
  // Not std::vector: vector<bool> has no addressable elements.
  std::unique_ptr<A[]> acc(new A[static_cast<size_t>(l.bound)]);
  std::vector<int64_t> reached;
  const A start = identity<A>(work.op);
  for (int64_t line = 0; line < l.lines; ++line, walk.next()) {
    reached.clear();
    for (int64_t i = 0; i < l.length; ++i) {
      const int64_t at = static_cast<int64_t>(idx[walk.index + i * l.indexStride]);
      if (stamp[at] != line) {
        stamp[at] = line;
        acc[at] = work.includeSelf ? load(dst[walk.out + at * l.outStride]) : start;
        count[at] = work.includeSelf ? 1 : 0;
        reached.push_back(at);
      }
      const A value = load(src ? src[walk.src + i * l.srcStride] : fill);
      acc[at] = combine(work.op, acc[at], value);
      ++count[at];
    }
    for (int64_t at : reached) {
      T result = store<T>(acc[at]);
      if (work.op == ScatterOp::Mean)
        result = meanOf<T>(result, count[at]);
      dst[walk.out + at * l.outStride] = result;
    }
  }
  return Error::success();
}

template <typename T>
Error scatterWithIndex(const Tensor &out, const Tensor &index,
                       const ScatterLines &l, const ScatterWork &work) {
  if (index.dtype() == ScalarType::Int32)
    return scatterLines<T, int32_t>(out, index, l, work);
  return scatterLines<T, int64_t>(out, index, l, work);
}

template <typename T>
Error segmentsOf(const Tensor &out, const Tensor &data, const Tensor &bounds,
                 const SegmentReduce &p) {
  using C = Compute<T>;
  // The result of each operation rounded to T, as c10's Half and BFloat16
  // operators round (the identity for float and double).
  auto r = [](C x) { return load(store<T>(x)); };
  C start;
  if (p.hasInitial)
    start = load(store<T>(p.initial));
  else if (p.op == SegmentOp::Max)
    start = -std::numeric_limits<C>::infinity();
  else if (p.op == SegmentOp::Min)
    start = std::numeric_limits<C>::infinity();
  else if (p.op == SegmentOp::Prod)
    start = C(1);
  else
    start = C(0);
  const T *x = static_cast<const T *>(data.data());
  const int64_t *b = static_cast<const int64_t *>(bounds.data());
  T *dst = static_cast<T *>(out.data());
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t s = 0; s < p.segments; ++s) {
      const int64_t begin = b[o * (p.segments + 1) + s];
      const int64_t end = b[o * (p.segments + 1) + s + 1];
      for (int64_t i = 0; i < p.inner; ++i) {
        C acc = start;
        for (int64_t j = begin; j < end; ++j) {
          const C v = load(x[(o * p.dataAxis + j) * p.inner + i]);
          switch (p.op) {
          case SegmentOp::Max:
            acc = std::isnan(v) ? v : (acc < v ? v : acc);
            break;
          case SegmentOp::Min:
            acc = std::isnan(v) ? v : (v < acc ? v : acc);
            break;
          case SegmentOp::Prod:
            acc = r(acc * v);
            break;
          default:
            acc = r(acc + v);
          }
        }
        const int64_t length = end - begin;
        if (p.op == SegmentOp::Mean) {
          if (length == 0 && !p.hasInitial)
            acc = std::numeric_limits<C>::quiet_NaN();
          else if (length > 0 && !std::isnan(acc))
            acc = r(acc / r(static_cast<C>(length)));
        }
        dst[(o * p.segments + s) * p.inner + i] = store<T>(acc);
      }
    }
  return Error::success();
}

} // namespace

Error segmentReduce(const Tensor &out, const Tensor &data, const Tensor &bounds,
                    const SegmentReduce &problem) {
  return visitDtype(data.dtype(), "segment_reduce", [&]<typename T>() -> Error {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BHalf> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>)
      return segmentsOf<T>(out, data, bounds, problem);
    else
      return Error::failure("segment_reduce has no CPU kernel for ",
                            dtypeName(data.dtype()));
  });
}

Error checkScatterIndex(const Tensor &index, const ScatterLines &lines) {
  if (index.dtype() == ScalarType::Int32)
    return checkLines<int32_t>(index, lines);
  return checkLines<int64_t>(index, lines);
}

Error scatter(const Tensor &out, const Tensor &index, const ScatterLines &lines,
              const ScatterWork &work) {
  return visitDtype(out.dtype(), "scatter", [&]<typename T>() -> Error {
    if constexpr (std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> ||
                  std::is_same_v<T, uint64_t>)
      return Error::failure("scatter has no CPU kernel for ",
                            dtypeName(out.dtype()));
    else
      return scatterWithIndex<T>(out, index, lines, work);
  });
}

} // namespace aoti::shims::ops::cpu
