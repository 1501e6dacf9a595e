//===- ops/index_plan.cpp - Shapes, layouts and checks of the index family ===//
//
// See ops/index_plan.h. The layouts are torch's, reproduced on concrete
// sizes: meta_index_Tensor restrides self with 0 along the broadcast index
// dimensions and asks torch._prims_common's
// compute_elementwise_output_logical_to_physical_perm for the physical
// order (contiguous and channels-last short cuts first, then an insertion
// sort by stride that leaves stride-0 dimensions where they are);
// empty_like keeps a non-overlapping and dense tensor's strides and
// otherwise applies ATen's infer_dense_strides (the same sort, in C++).
// The advanced-indexing plan follows ATen's make_info: expandTensors
// (masks to nonzero columns), expand_outplace (broadcast), transposeToFront
// when the indexed dimensions are not adjacent, then AdvancedIndex's
// restriding.
//
//===----------------------------------------------------------------------===//
#include "ops/index_plan.h"

#include "copy.h"
#include "dtype.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace aoti::shims::ops {
namespace {

int64_t numelOf(std::span<const int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool isDataType(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
  case ScalarType::UInt8:
  case ScalarType::Int8:
  case ScalarType::Int16:
  case ScalarType::Int32:
  case ScalarType::Int64:
  case ScalarType::Float16:
  case ScalarType::BFloat16:
  case ScalarType::Float32:
  case ScalarType::Float64:
    return true;
  default:
    return false;
  }
}

Expected<Tensor> nonzeroOn(const Tensor &t) {
  return t.device().isCuda() ? ops::cuda::nonzero(t) : ops::cpu::nonzero(t);
}

// torch._prims_common.compute_elementwise_output_logical_to_physical_perm
// for one tensor of `sizes` and `strides`.
std::vector<int64_t> logicalToPhysical(std::span<const int64_t> sizes,
                                       std::span<const int64_t> strides) {
  const size_t ndim = sizes.size();
  std::vector<int64_t> identity(ndim);
  for (size_t i = 0; i < ndim; ++i)
    identity[i] = static_cast<int64_t>(i);
  if (ndim <= 1)
    return identity;
  bool contiguous = numelOf(sizes) < 2;
  if (!contiguous) {
    contiguous = true;
    int64_t expected = 1;
    for (size_t i = ndim; i-- > 0;) {
      if (sizes[i] == 1)
        continue;
      if (strides[i] != expected) {
        contiguous = false;
        break;
      }
      expected *= sizes[i];
    }
  }
  bool channelsLast = ndim == 4;
  if (channelsLast) {
    int64_t expected = 1;
    for (size_t idx : {size_t{1}, size_t{3}, size_t{2}, size_t{0}}) {
      if (sizes[idx] == 1)
        continue;
      if (strides[idx] != expected) {
        channelsLast = false;
        break;
      }
      expected *= sizes[idx];
    }
  }
  if (contiguous && !channelsLast)
    return identity;
  if (channelsLast && !contiguous)
    return {0, 2, 3, 1};
  // Symbolic ge() of torch, on concrete non-negative values.
  auto ge = [](int64_t a, int64_t b) {
    if (b == 0)
      return true;
    if (a == 0)
      return false;
    return a >= b || a % b == 0;
  };
  auto shouldSwap = [&](int64_t a, int64_t b) -> int {
    const int64_t sa = strides[static_cast<size_t>(a)];
    const int64_t sb = strides[static_cast<size_t>(b)];
    if (sa == 0 || sb == 0)
      return 0;
    if (sa == sb)
      return ge(sizes[static_cast<size_t>(b)], sizes[static_cast<size_t>(a)])
                 ? 0
                 : 1;
    if (ge(sb, sa))
      return -1;
    if (ge(sa, sb))
      return 1;
    return 0;
  };
  std::vector<int64_t> perm(identity.rbegin(), identity.rend());
  for (size_t i = 1; i < ndim; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      const int comparison = shouldSwap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  std::reverse(perm.begin(), perm.end());
  return perm;
}

// Dense strides of `sizes` laid out in the physical order `perm`.
std::vector<int64_t> permutedDenseStrides(std::span<const int64_t> sizes,
                                          std::span<const int64_t> perm) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t j = perm.size(); j-- > 0;) {
    const size_t d = static_cast<size_t>(perm[j]);
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

// ATen's infer_dense_strides (TensorIterator's ordering rule).
std::vector<int64_t> inferDenseStrides(std::span<const int64_t> sizes,
                                       std::span<const int64_t> strides) {
  const size_t ndim = sizes.size();
  if (ndim == 0)
    return {};
  if (ndim == 1)
    return {1};
  std::vector<int64_t> perm(ndim);
  for (size_t i = 0; i < ndim; ++i)
    perm[i] = static_cast<int64_t>(ndim - 1 - i);
  auto shouldSwap = [&](int64_t a, int64_t b) -> int {
    const int64_t sa = strides[static_cast<size_t>(a)];
    const int64_t sb = strides[static_cast<size_t>(b)];
    if (sa == 0 || sb == 0)
      return 0;
    if (sa < sb)
      return -1;
    if (sa > sb)
      return 1;
    return sizes[static_cast<size_t>(a)] > sizes[static_cast<size_t>(b)] ? 1
                                                                         : 0;
  };
  for (size_t i = 1; i < ndim; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      const int comparison = shouldSwap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> out(ndim);
  int64_t stride = 1;
  for (size_t i = 0; i < ndim; ++i) {
    const size_t d = static_cast<size_t>(perm[i]);
    out[d] = stride;
    if (sizes[d] > 1)
      stride *= sizes[d];
  }
  return out;
}

} // namespace

// --- Small helpers ---------------------------------------------------------

std::string shapeString(std::span<const int64_t> sizes) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < sizes.size(); ++i)
    os << (i ? ", " : "") << sizes[i];
  os << ']';
  return os.str();
}

Error requireDataType(const Tensor &t, const char *name, const char *op,
                      bool allowBool) {
  if (isDataType(t.dtype()) && (allowBool || t.dtype() != ScalarType::Bool))
    return Error::success();
  return Error::failure(
      "'", name, "' has dtype ", dtypeName(t.dtype()), ", which ", op,
      " does not support (supported: ", allowBool ? "bool, " : "",
      "uint8, int8, int16, int32, int64, float16, "
      "bfloat16, float32, float64)");
}

// `tensor` (argument `name`) on the same memory as `self`.
Error requireWith(const Tensor &tensor, const char *name, const Tensor &self) {
  return requireSameDevice(tensor, name, self.device(), "self");
}

// A view of `t`'s storage.
Expected<Tensor> viewOf(const Tensor &t, std::span<const int64_t> sizes,
                        std::span<const int64_t> strides, int64_t offset) {
  return Tensor::make(t.storage(), t.dtype(), sizes, strides, offset);
}

// torch's infer_size(a, b): the broadcast shape, or its message.
Expected<std::vector<int64_t>> inferSize(std::span<const int64_t> a,
                                         std::span<const int64_t> b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t back = n - 1 - i;
    const int64_t sa = back < a.size() ? a[a.size() - 1 - back] : 1;
    const int64_t sb = back < b.size() ? b[b.size() - 1 - back] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return Error::failure("The size of tensor a (", sa,
                            ") must match the size of tensor b (", sb,
                            ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

// Whether `sizes` broadcasts to `target` (torch's is_expandable_to).
bool expandableTo(std::span<const int64_t> sizes,
                  std::span<const int64_t> target) {
  if (sizes.size() > target.size())
    return false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t s = sizes[sizes.size() - 1 - i];
    const int64_t t = target[target.size() - 1 - i];
    if (s != t && s != 1)
      return false;
  }
  return true;
}

// t's strides seen over `target` (t broadcastable to it): right-aligned,
// 0 where t has no dimension or a size-1 one that target stretches.
std::vector<int64_t> stridesOver(const Tensor &t,
                                 std::span<const int64_t> target) {
  std::vector<int64_t> strides(target.size(), 0);
  const size_t lead = target.size() - static_cast<size_t>(t.dim());
  for (size_t d = 0; d < static_cast<size_t>(t.dim()); ++d)
    if (t.sizes()[d] == target[lead + d] && t.sizes()[d] != 1)
      strides[lead + d] = t.strides()[d];
  return strides;
}

Expected<Tensor> expandTo(const Tensor &t, std::span<const int64_t> target) {
  return viewOf(t, target, stridesOver(t, target), t.storageOffset());
}

// `t` on `device`: itself, or a contiguous copy (a synchronous copy from
// the host: the host tensor may not outlive the call).
Expected<Tensor> onDevice(const Tensor &t, const Device &device) {
  if (t.device().sameMemory(device))
    return t;
  Expected<Tensor> copy = Tensor::emptyContiguous(t.sizes(), t.dtype(), device);
  if (!copy)
    return copy.takeError();
  if (Error err = copyTensor(*copy, t, /*nonBlocking=*/false))
    return err;
  return copy;
}

// A new tensor of `sizes` and `strides` holding `self`'s values.
Expected<Tensor> cloneWith(const Tensor &self, std::span<const int64_t> sizes,
                           std::span<const int64_t> strides) {
  Expected<Tensor> out =
      Tensor::empty(sizes, strides, self.dtype(), self.device());
  if (!out)
    return out.takeError();
  if (Error err = copyTensor(*out, self, /*nonBlocking=*/false))
    return err;
  return out;
}

// The strides of empty_like(self) (preserve format).
std::vector<int64_t> emptyLikeStrides(const Tensor &self) {
  if (self.isNonOverlappingAndDense())
    return {self.strides().begin(), self.strides().end()};
  return inferDenseStrides(self.sizes(), self.strides());
}

// --- Advanced indexing ----------------------------------------------------

// The indices argument as given: a null entry (or a null handle) is None.
Expected<std::vector<Tensor *>> readIndices(const AtenTensorHandle **indices,
                                            int64_t count) {
  if (count < 0)
    return Error::failure("'indices_len_' is ", count, "; it must be >= 0");
  if (count > 0 && !indices)
    return Error::failure("'indices' is null but 'indices_len_' is ", count);
  std::vector<Tensor *> out(static_cast<size_t>(count), nullptr);
  for (int64_t i = 0; i < count; ++i) {
    const TensorArg arg = optionalTensorArg(indices[i], "indices");
    if (!arg.given)
      continue;
    Expected<Tensor *> t = fromHandle(arg.handle, "indices");
    if (!t)
      return t.takeError();
    out[static_cast<size_t>(i)] = *t;
  }
  return out;
}

// ATen's make_info + AdvancedIndex over `self` whose writes or reads go
// through `baseStrides` (self's own for index, the result's for
// index_put).
Expected<IndexPlan> planIndexing(const Tensor &self,
                                 std::span<const int64_t> baseStrides,
                                 const std::vector<Tensor *> &given,
                                 IndexLayout *layoutOut) {
  const int64_t ndim = self.dim();
  if (static_cast<int64_t>(given.size()) > ndim)
    return Error::failure("too many indices for tensor of dimension ", ndim,
                          " (got ", given.size(), ")");
  // Types and devices first, as checkIndexTensorTypes does.
  for (size_t i = 0; i < given.size(); ++i) {
    const Tensor *t = given[i];
    if (!t)
      continue;
    const ScalarType type = t->dtype();
    if (type != ScalarType::Int64 && type != ScalarType::Int32 &&
        type != ScalarType::Bool && type != ScalarType::UInt8)
      return Error::failure("tensors used as indices must be long, int, byte "
                            "or bool tensors (indices[",
                            i, "] has dtype ", dtypeName(type), ")");
    if (!t->device().isCpu() && !t->device().sameMemory(self.device()))
      return Error::failure("indices should be either on cpu or on the same "
                            "device as the indexed tensor (",
                            describe(self.device()), "); indices[", i,
                            "] is on ", describe(t->device()));
  }
  // Masks become the columns of their nonzero() (expandTensors).
  struct Entry {
    std::optional<Tensor> index;
    bool fromMask = false;
  };
  std::vector<Entry> entries;
  for (size_t i = 0; i < given.size(); ++i) {
    const Tensor *t = given[i];
    if (!t) {
      entries.push_back({});
      continue;
    }
    if (t->dtype() != ScalarType::Bool && t->dtype() != ScalarType::UInt8) {
      Expected<Tensor> moved = onDevice(*t, self.device());
      if (!moved)
        return moved.takeError();
      entries.push_back({std::move(*moved), false});
      continue;
    }
    const int64_t k = static_cast<int64_t>(entries.size());
    if (k + t->dim() > ndim)
      return Error::failure("too many indices for tensor of dimension ", ndim);
    for (int64_t j = 0; j < t->dim(); ++j)
      if (t->sizes()[j] != self.sizes()[k + j])
        return Error::failure("The shape of the mask ", shapeString(t->sizes()),
                              " at index ", j,
                              " does not match the shape of the indexed "
                              "tensor ",
                              shapeString(self.sizes()), " at index ", k + j);
    Expected<Tensor> nz = nonzeroOn(*t);
    if (!nz)
      return nz.takeError();
    Expected<Tensor> moved = onDevice(*nz, self.device());
    if (!moved)
      return moved.takeError();
    const int64_t n = moved->sizes()[0];
    const int64_t rowStride = moved->strides()[0];
    const int64_t colStride = moved->strides()[1];
    for (int64_t j = 0; j < t->dim(); ++j) {
      const int64_t size[] = {n};
      const int64_t stride[] = {rowStride};
      Expected<Tensor> column =
          viewOf(*moved, size, stride, moved->storageOffset() + j * colStride);
      if (!column)
        return column.takeError();
      entries.push_back({std::move(*column), true});
    }
  }
  if (static_cast<int64_t>(entries.size()) > ndim)
    return Error::failure("too many indices for tensor of dimension ", ndim,
                          " (got ", entries.size(), ")");
  // Broadcast the index tensors together.
  std::vector<int64_t> broadcast;
  bool first = true;
  for (const Entry &e : entries) {
    if (!e.index)
      continue;
    if (first) {
      broadcast.assign(e.index->sizes().begin(), e.index->sizes().end());
      first = false;
      continue;
    }
    Expected<std::vector<int64_t>> b = inferSize(broadcast, e.index->sizes());
    if (!b) {
      std::string shapes;
      for (const Entry &f : entries)
        if (f.index)
          shapes +=
              (shapes.empty() ? "" : ", ") + shapeString(f.index->sizes());
      return Error::failure("shape mismatch: indexing tensors could not be "
                            "broadcast together with shapes ",
                            shapes);
    }
    broadcast = std::move(*b);
  }
  entries.resize(static_cast<size_t>(ndim));
  // transposeToFront when the indexed dimensions are not adjacent.
  std::vector<int64_t> order;
  {
    size_t firstIndexed = entries.size(), lastIndexed = 0;
    for (size_t d = 0; d < entries.size(); ++d)
      if (entries[d].index) {
        firstIndexed = std::min(firstIndexed, d);
        lastIndexed = d;
      }
    bool adjacent = true;
    for (size_t d = firstIndexed; d < lastIndexed; ++d)
      if (!entries[d].index)
        adjacent = false;
    for (size_t d = 0; d < entries.size(); ++d)
      if (adjacent || entries[d].index)
        order.push_back(static_cast<int64_t>(d));
    if (!adjacent)
      for (size_t d = 0; d < entries.size(); ++d)
        if (!entries[d].index)
          order.push_back(static_cast<int64_t>(d));
  }
  IndexLayout layout;
  for (int64_t d : order) {
    layout.sizes.push_back(self.sizes()[d]);
    layout.strides.push_back(baseStrides[static_cast<size_t>(d)]);
    layout.indexed.push_back(entries[static_cast<size_t>(d)].index.has_value());
  }
  layout.broadcast = broadcast;
  int64_t before = 0, indexedCount = 0;
  for (size_t p = 0; p < order.size(); ++p) {
    if (layout.indexed[p])
      ++indexedCount;
    else if (indexedCount == 0)
      ++before;
  }
  bool anyIndexedEmpty = false;
  for (size_t p = 0; p < order.size(); ++p)
    if (layout.indexed[p] && layout.sizes[p] == 0)
      anyIndexedEmpty = true;
  if (anyIndexedEmpty &&
      std::find(broadcast.begin(), broadcast.end(), 0) == broadcast.end())
    return Error::failure("index is out of bounds for dimension with size 0");

  IndexPlan plan;
  const size_t b = broadcast.size();
  const size_t beforeDims = static_cast<size_t>(before);
  const size_t afterStart = beforeDims + static_cast<size_t>(indexedCount);
  for (size_t p = 0; p < beforeDims; ++p) {
    plan.sizes.push_back(layout.sizes[p]);
    plan.baseStrides.push_back(layout.strides[p]);
  }
  for (size_t j = 0; j < b; ++j) {
    plan.sizes.push_back(broadcast[j]);
    plan.baseStrides.push_back(0);
  }
  for (size_t p = afterStart; p < order.size(); ++p) {
    plan.sizes.push_back(layout.sizes[p]);
    plan.baseStrides.push_back(layout.strides[p]);
  }
  for (size_t p = beforeDims; p < afterStart; ++p) {
    Entry &e = entries[static_cast<size_t>(order[p])];
    std::vector<int64_t> strides(plan.sizes.size(), 0);
    const std::vector<int64_t> over = stridesOver(*e.index, broadcast);
    for (size_t j = 0; j < b; ++j)
      strides[beforeDims + j] = over[j];
    plan.indices.push_back(IndexOperand{std::move(*e.index), std::move(strides),
                                        layout.sizes[p], layout.strides[p],
                                        order[p], e.fromMask});
  }
  if (layoutOut)
    *layoutOut = std::move(layout);
  return plan;
}

// meta_index_Tensor's result strides.
std::vector<int64_t> metaIndexStrides(const IndexLayout &layout,
                                      std::span<const int64_t> resultSizes,
                                      int64_t selfNumel) {
  if (selfNumel == 0)
    return contiguousStrides(resultSizes);
  // before/after as the meta counts them: a dimension is "after" only once
  // a non-empty replacement shape was seen.
  size_t before = 0, after = 0;
  bool replaced = false;
  for (size_t p = 0; p < layout.indexed.size(); ++p) {
    if (layout.indexed[p])
      replaced = !layout.broadcast.empty();
    else if (replaced)
      ++after;
    else
      ++before;
  }
  // _restride_src: strides[before : ndim - after] = [0] * len(B).
  std::vector<int64_t> strides(layout.strides.begin(),
                               layout.strides.begin() +
                                   static_cast<std::ptrdiff_t>(before));
  strides.insert(strides.end(), layout.broadcast.size(), 0);
  strides.insert(strides.end(),
                 layout.strides.end() - static_cast<std::ptrdiff_t>(after),
                 layout.strides.end());
  const std::vector<int64_t> perm = logicalToPhysical(resultSizes, strides);
  return permutedDenseStrides(resultSizes, perm);
}

} // namespace aoti::shims::ops
