//===- ops/cpu/index.cpp - The indexing fallbacks on the host -------------===//
//
// Plain loops, serial, in the order torch's CPU kernels use when they run
// serially, so results (including which duplicate wins and how sums round)
// are reproducible:
//
//  - index / index_put walk the iteration shape of the IndexPlan in
//    row-major order with one running offset per operand (an odometer), and
//    add wrap(index_k) * stride_k for each index tensor. Copies move
//    elements as words of their size (index, and index_put without
//    accumulate, never look at values); accumulate adds in the element type
//    (the 16-bit floats through float, rounded after every add, as c10's
//    Half += does; integers wrap; bool ORs).
//  - nonzero counts, allocates [n, ndim] with strides (1, n), then writes
//    the coordinates of each non-zero element in row-major order (NaN is
//    non-zero, -0.0 is zero: x != 0). nonzero_static writes the first
//    `size` of them and fills the remaining rows.
//  - masked_select counts the mask, then copies in row-major order;
//    masked_scatter consumes a contiguous copy of source in row-major order.
//  - repeat_interleave runs the checked cumulative sum of ATen's
//    repeat_interleave_common (negative repeats and overflow refused).
//  - index_reduce follows ATen's index_reduce_func_impl: with
//    include_self=false the indexed rows are first filled with the
//    reduction's identity; then for each index position i in order, row
//    index[i] of the result is combined with row i of source, element by
//    element, rounded to the dtype after each step; mean then divides by
//    the count (1 for self when included, plus one per index hit; 0 counts
//    as 1), counted in the dtype, floor division for integers.
//
//===----------------------------------------------------------------------===//
#include "ops/index.h"

#include "copy.h"
#include "ops/cpu/element.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace aoti::shims::ops::cpu {
namespace {

// Row-major walk over `sizes` carrying one offset per stride row (strides
// in elements): fn(offsets, coords) once per element until it returns
// false.
template <typename Fn>
void walk(std::span<const int64_t> sizes,
          const std::vector<const int64_t *> &rows, Fn &&fn) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  if (n == 0)
    return;
  const size_t dims = sizes.size();
  const size_t count = rows.size();
  std::vector<int64_t> coord(dims, 0), offset(count, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (!fn(offset.data(), coord.data()))
      return;
    for (size_t d = dims; d-- > 0;) {
      if (++coord[d] < sizes[d]) {
        for (size_t k = 0; k < count; ++k)
          offset[k] += rows[k][d];
        break;
      }
      for (size_t k = 0; k < count; ++k)
        offset[k] -= (sizes[d] - 1) * rows[k][d];
      coord[d] = 0;
    }
  }
}

// Reads an int32 or int64 index tensor at element offsets.
struct IndexReader {
  const void *data;
  bool int32;
  explicit IndexReader(const Tensor &t)
      : data(t.data()), int32(t.dtype() == ScalarType::Int32) {}
  int64_t operator[](int64_t at) const {
    return int32 ? static_cast<const int32_t *>(data)[at]
                 : static_cast<const int64_t *>(data)[at];
  }
};

// Element types by size only: copies never look at values.
template <typename Visitor> Error visitWord(size_t size, Visitor &&visitor) {
  switch (size) {
  case 1:
    return visitor.template operator()<uint8_t>();
  case 2:
    return visitor.template operator()<uint16_t>();
  case 4:
    return visitor.template operator()<uint32_t>();
  case 8:
    return visitor.template operator()<uint64_t>();
  default:
    return Error::failure("no copy for elements of ", size, " bytes");
  }
}

// Integer arithmetic wraps (two's complement), as in ATen; floats are
// plain.
template <typename V> V wrapAdd(V a, V b) {
  if constexpr (std::is_same_v<V, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<V>)
    return static_cast<V>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}

template <typename V> V wrapMul(V a, V b) {
  if constexpr (std::is_integral_v<V>)
    return static_cast<V>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}

// The plan's offset of the element at `offsets` (operand 0 the base, then
// the index tensors from `first`), or the range failure.
Error planOffset(const IndexPlan &plan, const std::vector<IndexReader> &readers,
                 const int64_t *offsets, size_t first, int64_t base,
                 int64_t &at) {
  at = base;
  for (size_t k = 0; k < readers.size(); ++k) {
    const IndexOperand &op = plan.indices[k];
    int64_t v = readers[k][offsets[first + k]];
    if (v < -op.size || v >= op.size)
      return indexOutOfRange(op, v);
    if (v < 0)
      v += op.size;
    at += v * op.stride;
  }
  return Error::success();
}

std::vector<IndexReader> readersOf(const IndexPlan &plan) {
  std::vector<IndexReader> readers;
  for (const IndexOperand &op : plan.indices)
    readers.emplace_back(op.index);
  return readers;
}

template <typename T> bool isNonzero(const T &x) {
  return load(x) != Compute<T>(0);
}

// Calls fn(coords) for each non-zero element of self in row-major order,
// until it returns false.
template <typename Fn> Error forEachNonzero(const Tensor &self, Fn &&fn) {
  return visitDtype(self.dtype(), "nonzero", [&]<typename T>() -> Error {
    const T *data = static_cast<const T *>(self.data());
    walk(self.sizes(), {self.strides().data()},
         [&](const int64_t *off, const int64_t *coord) {
           return isNonzero(data[off[0]]) ? fn(coord) : true;
         });
    return Error::success();
  });
}

// The reductions of index_reduce, on Compute<T> values.
template <typename V> V reduceIdentity(IndexReduce reduce) {
  switch (reduce) {
  case IndexReduce::Prod:
    return V(1);
  case IndexReduce::Mean:
    return V(0);
  case IndexReduce::Amax:
    if constexpr (std::numeric_limits<V>::has_infinity)
      return -std::numeric_limits<V>::infinity();
    else
      return std::numeric_limits<V>::lowest();
  case IndexReduce::Amin:
    if constexpr (std::numeric_limits<V>::has_infinity)
      return std::numeric_limits<V>::infinity();
    else
      return std::numeric_limits<V>::max();
  }
  return V(0);
}

template <typename V> V combine(IndexReduce reduce, V acc, V value) {
  switch (reduce) {
  case IndexReduce::Prod:
    return wrapMul(acc, value);
  case IndexReduce::Mean:
    return wrapAdd(acc, value);
  case IndexReduce::Amax:
    // torch.maximum: NaN wins from either side.
    if (isNan(acc))
      return acc;
    if (isNan(value))
      return value;
    return std::max(acc, value);
  case IndexReduce::Amin:
    if (isNan(acc))
      return acc;
    if (isNan(value))
      return value;
    return std::min(acc, value);
  }
  return acc;
}

// result.div_(counts) for floats, div_(counts, "floor") for integers.
template <typename V> V meanDivide(V sum, V count) {
  if constexpr (std::is_floating_point_v<V>) {
    return sum / count;
  } else {
    if constexpr (std::is_signed_v<V>) {
      if (count == V(-1))
        return static_cast<V>(0 - static_cast<uint64_t>(sum));
      const V q = static_cast<V>(sum / count);
      const V r = static_cast<V>(sum % count);
      return (r != 0 && ((r < 0) != (count < 0))) ? static_cast<V>(q - 1) : q;
    } else {
      return static_cast<V>(sum / count);
    }
  }
}

} // namespace

Error index(const Tensor &out, const Tensor &self, const IndexPlan &plan) {
  const std::vector<IndexReader> readers = readersOf(plan);
  std::vector<const int64_t *> rows = {out.strides().data(),
                                       plan.baseStrides.data()};
  for (const IndexOperand &op : plan.indices)
    rows.push_back(op.strides.data());
  return visitWord(self.itemSize(), [&]<typename W>() -> Error {
    W *dst = static_cast<W *>(out.data());
    const W *src = static_cast<const W *>(self.data());
    Error failure = Error::success();
    walk(plan.sizes, rows, [&](const int64_t *off, const int64_t *) {
      int64_t at = 0;
      if ((failure = planOffset(plan, readers, off, 2, off[1], at)))
        return false;
      dst[off[0]] = src[at];
      return true;
    });
    return failure;
  });
}

Error indexPut(const Tensor &out, const Tensor &values,
               const std::vector<int64_t> &valueStrides, const IndexPlan &plan,
               bool accumulate) {
  const std::vector<IndexReader> readers = readersOf(plan);
  std::vector<const int64_t *> rows = {plan.baseStrides.data(),
                                       valueStrides.data()};
  for (const IndexOperand &op : plan.indices)
    rows.push_back(op.strides.data());
  if (!accumulate)
    return visitWord(out.itemSize(), [&]<typename W>() -> Error {
      W *dst = static_cast<W *>(out.data());
      const W *src = static_cast<const W *>(values.data());
      Error failure = Error::success();
      walk(plan.sizes, rows, [&](const int64_t *off, const int64_t *) {
        int64_t at = 0;
        if ((failure = planOffset(plan, readers, off, 2, off[0], at)))
          return false;
        dst[at] = src[off[1]];
        return true;
      });
      return failure;
    });
  return visitDtype(out.dtype(), "index_put", [&]<typename T>() -> Error {
    T *dst = static_cast<T *>(out.data());
    const T *src = static_cast<const T *>(values.data());
    Error failure = Error::success();
    walk(plan.sizes, rows, [&](const int64_t *off, const int64_t *) {
      int64_t at = 0;
      if ((failure = planOffset(plan, readers, off, 2, off[0], at)))
        return false;
      dst[at] = store<T>(wrapAdd(load(dst[at]), load(src[off[1]])));
      return true;
    });
    return failure;
  });
}

Expected<Tensor> nonzero(const Tensor &self) {
  int64_t n = 0;
  if (Error err = forEachNonzero(self, [&](const int64_t *) {
        ++n;
        return true;
      }))
    return err;
  const int64_t ndim = self.dim();
  const int64_t sizes[] = {n, ndim};
  const int64_t strides[] = {1, n};
  Expected<Tensor> out =
      Tensor::empty(sizes, strides, ScalarType::Int64, self.device());
  if (!out)
    return out.takeError();
  int64_t *dst = static_cast<int64_t *>(out->data());
  int64_t row = 0;
  if (Error err = forEachNonzero(self, [&](const int64_t *coord) {
        for (int64_t d = 0; d < ndim; ++d)
          dst[row + d * n] = coord[d];
        ++row;
        return true;
      }))
    return err;
  return out;
}

Error nonzeroStatic(const Tensor &out, const Tensor &self, int64_t fillValue) {
  const int64_t size = out.sizes()[0];
  const int64_t ndim = self.dim();
  const int64_t rowStride = out.strides()[0];
  const int64_t colStride = out.strides()[1];
  int64_t *dst = static_cast<int64_t *>(out.data());
  int64_t row = 0;
  if (size > 0)
    if (Error err = forEachNonzero(self, [&](const int64_t *coord) {
          for (int64_t d = 0; d < ndim; ++d)
            dst[row * rowStride + d * colStride] = coord[d];
          return ++row < size;
        }))
      return err;
  for (; row < size; ++row)
    for (int64_t d = 0; d < ndim; ++d)
      dst[row * rowStride + d * colStride] = fillValue;
  return Error::success();
}

Expected<Tensor> maskedSelect(const Tensor &self, const Tensor &mask) {
  const bool byteMask = mask.dtype() == ScalarType::UInt8;
  const uint8_t *flags = static_cast<const uint8_t *>(mask.data());
  std::vector<const int64_t *> rows = {self.strides().data(),
                                       mask.strides().data()};
  int64_t n = 0;
  bool badByte = false;
  walk(self.sizes(), rows, [&](const int64_t *off, const int64_t *) {
    const uint8_t f = flags[off[1]];
    if (byteMask && f > 1) {
      badByte = true;
      return false;
    }
    n += f != 0;
    return true;
  });
  if (badByte)
    return Error::failure("masked_select: Mask tensor can take 0 and 1 values "
                          "only (a uint8 mask holds another value)");
  const int64_t sizes[] = {n};
  Expected<Tensor> out =
      Tensor::emptyContiguous(sizes, self.dtype(), self.device());
  if (!out)
    return out.takeError();
  if (Error err = visitWord(self.itemSize(), [&]<typename W>() -> Error {
        W *dst = static_cast<W *>(out->data());
        const W *src = static_cast<const W *>(self.data());
        int64_t k = 0;
        walk(self.sizes(), rows, [&](const int64_t *off, const int64_t *) {
          if (flags[off[1]])
            dst[k++] = src[off[0]];
          return true;
        });
        return Error::success();
      }))
    return err;
  return out;
}

Error maskedScatter(const Tensor &out, const Tensor &mask,
                    const Tensor &source) {
  const uint8_t *flags = static_cast<const uint8_t *>(mask.data());
  std::vector<const int64_t *> rows = {out.strides().data(),
                                       mask.strides().data()};
  int64_t n = 0;
  walk(out.sizes(), rows, [&](const int64_t *off, const int64_t *) {
    n += flags[off[1]] != 0;
    return true;
  });
  if (n > source.numel())
    return Error::failure("Number of elements of source < number of ones in "
                          "mask (source has ",
                          source.numel(), ", mask has ", n, ")");
  if (n == 0)
    return Error::success();
  Expected<Tensor> dense = cloneContiguous(source);
  if (!dense)
    return dense.takeError();
  return visitWord(out.itemSize(), [&]<typename W>() -> Error {
    W *dst = static_cast<W *>(out.data());
    const W *src = static_cast<const W *>(dense->data());
    int64_t k = 0;
    walk(out.sizes(), rows, [&](const int64_t *off, const int64_t *) {
      if (flags[off[1]])
        dst[off[0]] = src[k++];
      return true;
    });
    return Error::success();
  });
}

Expected<Tensor> repeatInterleave(const Tensor &repeats,
                                  const int64_t *outputSize) {
  const int64_t count = repeats.sizes()[0];
  const int64_t stride = repeats.strides()[0];
  const IndexReader read(repeats);
  std::vector<int64_t> cumsum(static_cast<size_t>(count));
  uint64_t sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t r = read[i * stride];
    if (r < 0)
      return Error::failure("repeats can not be negative (repeats[", i, "] is ",
                            r, ")");
    const uint64_t next = sum + static_cast<uint64_t>(r);
    if (next < sum ||
        next > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Error::failure("cumulative sum values overflowed. check the "
                            "repeats tensor values");
    sum = next;
    cumsum[static_cast<size_t>(i)] = static_cast<int64_t>(sum);
  }
  const int64_t total = static_cast<int64_t>(sum);
  if (outputSize && *outputSize != total)
    return Error::failure("allocated size does not match required size: "
                          "'output_size' is ",
                          *outputSize, " but the repeats sum to ", total);
  const int64_t sizes[] = {total};
  Expected<Tensor> out =
      Tensor::emptyContiguous(sizes, repeats.dtype(), repeats.device());
  if (!out)
    return out.takeError();
  int64_t start = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t end = cumsum[static_cast<size_t>(i)];
    for (int64_t j = start; j < end; ++j) {
      if (read.int32)
        static_cast<int32_t *>(out->data())[j] = static_cast<int32_t>(i);
      else
        static_cast<int64_t *>(out->data())[j] = i;
    }
    start = end;
  }
  return out;
}

Error indexReduce(const Tensor &out, const Tensor &index, const Tensor &source,
                  const IndexReducePlan &plan) {
  const size_t dim = static_cast<size_t>(plan.dim);
  const int64_t size = out.sizes()[dim];
  const int64_t n = index.numel();
  const IndexReader read(index);
  const int64_t indexStride = index.strides()[0];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t t = read[i * indexStride];
    if (t < 0 || t >= size)
      return Error::failure("index out of range in self: index[", i, "] is ", t,
                            " but dimension ", plan.dim, " has size ", size);
  }
  // The slice: every dimension but dim.
  std::vector<int64_t> sliceSizes, outSlice, sourceSlice;
  for (size_t d = 0; d < static_cast<size_t>(out.dim()); ++d) {
    if (d == dim)
      continue;
    sliceSizes.push_back(out.sizes()[d]);
    outSlice.push_back(out.strides()[d]);
    sourceSlice.push_back(source.strides()[d]);
  }
  const int64_t outStride = out.strides()[dim];
  const int64_t sourceStride = source.strides()[dim];
  const std::vector<const int64_t *> rows = {outSlice.data(),
                                             sourceSlice.data()};
  return visitDtype(out.dtype(), "index_reduce", [&]<typename T>() -> Error {
    using V = Compute<T>;
    if constexpr (std::is_same_v<T, Bool>) {
      return Error::failure("index_reduce does not support bool");
    } else {
      T *dst = static_cast<T *>(out.data());
      const T *src = static_cast<const T *>(source.data());
      const IndexReduce reduce = plan.reduce;
      if (!plan.includeSelf) {
        const T identity = store<T>(reduceIdentity<V>(reduce));
        for (int64_t i = 0; i < n; ++i) {
          const int64_t t = read[i * indexStride];
          walk(sliceSizes, rows, [&](const int64_t *off, const int64_t *) {
            dst[off[0] + t * outStride] = identity;
            return true;
          });
        }
      }
      // out is contiguous: its offsets are 0 .. numel-1.
      const bool mean = reduce == IndexReduce::Mean;
      std::vector<T> counts(mean ? static_cast<size_t>(out.numel()) : 0,
                            store<T>(plan.includeSelf ? 1 : 0));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t t = read[i * indexStride];
        walk(sliceSizes, rows, [&](const int64_t *off, const int64_t *) {
          const int64_t at = off[0] + t * outStride;
          dst[at] = store<T>(combine(reduce, load(dst[at]),
                                     load(src[off[1] + i * sourceStride])));
          if (mean)
            counts[static_cast<size_t>(at)] =
                store<T>(wrapAdd(load(counts[static_cast<size_t>(at)]), V(1)));
          return true;
        });
      }
      if (mean)
        for (size_t at = 0; at < counts.size(); ++at) {
          V c = load(counts[at]);
          if (c == V(0))
            c = V(1);
          dst[at] = store<T>(meanDivide(load(dst[at]), load(store<T>(c))));
        }
      return Error::success();
    }
  });
}

} // namespace aoti::shims::ops::cpu
