//===- ops/sort.cpp - sort, topk, kthvalue, median, mode: entry points ----===//
//
// aoti_torch_{cpu,cuda}_{sort, sort_stable, topk, kthvalue, median,
// nanmedian, mode}, torch 2.11's generated signatures. What each settles
// before any device work, following torch's meta functions
// (torch/_meta_registrations.py) and ATen's checks (Sorting.cpp,
// TensorCompare.cpp, ReduceOpsUtils.h):
//  - dim may be negative; a 0-d self takes 0 or -1 and is one row of one
//    element.
//  - sort, sort_stable: values and indices (int64) have self's sizes and
//    the strides of torch.empty_like(self) under the fake tensor mode
//    (meta_sort): emptyLikeStrides below. Every sort is stable, so `stable`
//    (None, true or false) changes nothing: a stable order is also a valid
//    result of torch's unstable sort.
//  - topk: 0 <= k <= size of dim (1 for a 0-d self); the results are
//    contiguous, of self's sizes with dim's replaced by k; a 0-d self gives
//    itself and index 0 for k 0 and 1 alike (torch's CPU kernel). `sorted`
//    false still returns sorted order, which torch allows.
//  - kthvalue: 1 <= k <= size of dim; mode: dim must not be empty unless
//    self is 0-d (zero_numel_check_dims). Both return contiguous results of
//    self's sizes without dim, or with it as 1 under keepdim.
//  - median, nanmedian: a 0-d result of self's dtype, NaN for an empty self.
// The dtypes are those of torch's AT_DISPATCH lists per device (kSupported);
// others, complex and float8 among them, are refused naming the argument.
// Outputs are set only once everything succeeded.
//
//===----------------------------------------------------------------------===//
#include "ops/sort.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

enum class SortOp { Sort, Topk, Kthvalue, Median, Mode };

// The dtypes every op of the family reads on both devices: torch's
// AT_ALL_TYPES with float16 and bfloat16.
constexpr std::array kCommonTypes = {
    ScalarType::UInt8,   ScalarType::Int8,     ScalarType::Int16,
    ScalarType::Int32,   ScalarType::Int64,    ScalarType::Float16,
    ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float64};

// Beyond them: bool for sort and mode (both devices), and the 16/32/64-bit
// unsigned integers for sort on the CPU (SortingKernel.cpp's
// AT_BAREBONES_UNSIGNED_TYPES; the CUDA sort dispatches AT_ALL_TYPES_AND3
// of bool, half and bfloat16 only).
std::vector<ScalarType> supportedTypes(SortOp op, DeviceType device) {
  std::vector<ScalarType> types(kCommonTypes.begin(), kCommonTypes.end());
  if (op == SortOp::Sort || op == SortOp::Mode)
    types.push_back(ScalarType::Bool);
  if (op == SortOp::Sort && device == DeviceType::CPU) {
    types.push_back(ScalarType::UInt16);
    types.push_back(ScalarType::UInt32);
    types.push_back(ScalarType::UInt64);
  }
  return types;
}

const char *deviceWord(DeviceType device) {
  return device == DeviceType::CUDA ? "CUDA" : "the CPU";
}

Error requireSupportedType(const Tensor &self, SortOp op, const char *opName,
                           DeviceType device) {
  const std::vector<ScalarType> types = supportedTypes(op, device);
  if (std::find(types.begin(), types.end(), self.dtype()) != types.end())
    return Error::success();
  std::string list;
  for (ScalarType type : types)
    list += (list.empty() ? "" : ", ") + std::string(dtypeName(type));
  return Error::failure("'self' has dtype ", dtypeName(self.dtype()), ", which ",
                        opName, " does not support on ", deviceWord(device),
                        " (supported: ", list, ")");
}

// The argument checks every op starts with: its outputs are there (ret1
// null for the ops with one result), self is a tensor on `device` of a
// dtype the op reads.
Expected<const Tensor *> checkedSelf(DeviceType device, SortOp op,
                                     const char *opName,
                                     AtenTensorHandle selfHandle,
                                     AtenTensorHandle *ret0,
                                     AtenTensorHandle *const *ret1) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (ret1) {
    if (Error err = requireOutput(*ret1, "ret1"))
      return err;
  }
  Expected<Tensor *> self = fromHandle(selfHandle, "self");
  if (!self)
    return self.takeError();
  if (Error err = requireDevice(**self, "self", device, opName))
    return err;
  if (Error err = requireSupportedType(**self, op, opName, device))
    return err;
  return static_cast<const Tensor *>(*self);
}

// --- Result strides ---------------------------------------------------------

// torch._prims_common.is_contiguous: fewer than two elements, or row-major
// strides wherever the size is not 1.
bool isTorchContiguous(std::span<const int64_t> sizes,
                       std::span<const int64_t> strides) {
  int64_t numel = 1;
  for (int64_t size : sizes)
    numel *= size;
  if (numel < 2)
    return true;
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1)
      continue;
    if (strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

// torch._prims_common.is_channels_last_contiguous_2d: 4-d, strides nested
// in the order C, W, H, N wherever the size is not 1.
bool isTorchChannelsLast(std::span<const int64_t> sizes,
                         std::span<const int64_t> strides) {
  if (sizes.size() != 4)
    return false;
  int64_t expected = 1;
  for (size_t d : {size_t{1}, size_t{3}, size_t{2}, size_t{0}}) {
    if (sizes[d] == 1)
      continue;
    if (strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

// The strides of torch.empty_like(self) (preserve_format) as torch's fake
// tensors compute them, which is what inductor compiles the code reading a
// fallback's result for: torch._refs.empty_like is the Meta kernel, and it
// lays the tensor out densely in the order
// compute_elementwise_output_logical_to_physical_perm gives:
//  - 0-d and 1-d tensors, and contiguous ones: row-major;
//  - channels-last (and not also contiguous) 4-d tensors: channels last;
//  - otherwise the dimensions sorted by stride, innermost smallest, by the
//    same insertion sort with the same ambiguous comparisons (a stride of
//    0 compares as equal to anything; equal strides order by size).
// Then the strides are the row-major ones of the permuted sizes (a size of
// 0 counting as 1). A dense self keeps its strides, except those of size-1
// dimensions, which come out as the row-major ones.
std::vector<int64_t> emptyLikeStrides(std::span<const int64_t> sizes,
                                      std::span<const int64_t> strides) {
  const size_t ndim = sizes.size();
  std::vector<size_t> perm(ndim); // physical order, outermost first
  std::iota(perm.begin(), perm.end(), size_t{0});
  const bool contiguous = isTorchContiguous(sizes, strides);
  const bool channelsLast = isTorchChannelsLast(sizes, strides);
  if (ndim >= 2 && channelsLast && !contiguous) {
    perm = {0, 2, 3, 1};
  } else if (ndim >= 2 && !(contiguous && !channelsLast)) {
    // a >= b for the sizes and strides involved (all >= 0).
    auto ge = [](int64_t a, int64_t b) {
      if (b == 0)
        return true;
      if (a == 0)
        return false;
      return a >= b || a % b == 0;
    };
    auto shouldSwap = [&](size_t a, size_t b) -> int {
      const int64_t strideA = strides[a], strideB = strides[b];
      if (strideA == 0 || strideB == 0)
        return 0;
      if (strideA == strideB)
        return ge(sizes[b], sizes[a]) ? 0 : 1;
      if (ge(strideB, strideA))
        return -1;
      if (ge(strideA, strideB))
        return 1;
      return 0;
    };
    std::vector<size_t> order(ndim); // innermost first
    for (size_t i = 0; i < ndim; ++i)
      order[i] = ndim - 1 - i;
    for (size_t i = 1; i < ndim; ++i) {
      size_t dim1 = i;
      for (size_t dim0 = i; dim0-- > 0;) {
        const int comparison = shouldSwap(order[dim0], order[dim1]);
        if (comparison > 0) {
          std::swap(order[dim0], order[dim1]);
          dim1 = dim0;
        } else if (comparison < 0) {
          break;
        }
      }
    }
    perm.assign(order.rbegin(), order.rend());
  }
  std::vector<int64_t> result(ndim, 1);
  int64_t next = 1;
  for (size_t p = ndim; p-- > 0;) {
    result[perm[p]] = next;
    next *= std::max<int64_t>(sizes[perm[p]], 1);
  }
  return result;
}

// --- Rows ---------------------------------------------------------------

// Where `tensor`'s rows lie: along `dim` and across the others when it has
// the dimension (hasDim), else across all of its dimensions (a reduction's
// result without keepdim), with nothing along.
RowStrides stridesOf(const Tensor &tensor, int64_t dim, bool hasDim) {
  RowStrides strides;
  for (int64_t d = 0; d < tensor.dim(); ++d) {
    const int64_t stride = tensor.strides()[static_cast<size_t>(d)];
    if (hasDim && d == dim)
      strides.along = stride;
    else
      strides.outer.push_back(stride);
  }
  return strides;
}

SortRows rowsOf(const Tensor &self, int64_t dim) {
  SortRows rows;
  if (self.dim() == 0)
    return rows;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t size = self.sizes()[static_cast<size_t>(d)];
    if (d == dim) {
      rows.length = size;
      continue;
    }
    rows.outerSizes.push_back(size);
    rows.rows *= size;
  }
  rows.self = stridesOf(self, dim, true);
  return rows;
}

Error sortedSliceOn(DeviceType device, const Tensor &values,
                    const Tensor &indices, const Tensor &self,
                    const SortRows &rows, const SortSlice &slice) {
  return device == DeviceType::CPU
             ? ops::cpu::sortedSlice(values, indices, self, rows, slice)
             : ops::cuda::sortedSlice(values, indices, self, rows, slice);
}

// The sizes of a reduction over `dim` of `self`: without it, or with it as
// 1 under keepdim (a 0-d self stays 0-d).
std::vector<int64_t> reducedSizes(const Tensor &self, int64_t dim,
                                  bool keepdim) {
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != dim)
      sizes.push_back(self.sizes()[static_cast<size_t>(d)]);
    else if (keepdim)
      sizes.push_back(1);
  }
  return sizes;
}

// --- The ops -------------------------------------------------------------

Error runSort(DeviceType device, AtenTensorHandle selfHandle, int64_t dim,
              bool descending, AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
  Expected<const Tensor *> selfOr =
      checkedSelf(device, SortOp::Sort, "sort", selfHandle, ret0, &ret1);
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<int64_t> wrapped = wrapDim(dim, self.dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  const std::vector<int64_t> strides =
      emptyLikeStrides(self.sizes(), self.strides());
  Expected<Tensor> values =
      Tensor::empty(self.sizes(), strides, self.dtype(), self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      Tensor::empty(self.sizes(), strides, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  SortRows rows = rowsOf(self, *wrapped);
  const bool hasDim = self.dim() > 0;
  rows.values = stridesOf(*values, *wrapped, hasDim);
  rows.indices = stridesOf(*indices, *wrapped, hasDim);
  if (self.numel() > 0) {
    if (Error err = sortedSliceOn(device, *values, *indices, self, rows,
                                  {descending, 0, rows.length}))
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

Error runTopk(DeviceType device, AtenTensorHandle selfHandle, int64_t k,
              int64_t dim, bool largest, AtenTensorHandle *ret0,
              AtenTensorHandle *ret1) {
  Expected<const Tensor *> selfOr =
      checkedSelf(device, SortOp::Topk, "topk", selfHandle, ret0, &ret1);
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<int64_t> wrapped = wrapDim(dim, self.dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  const bool hasDim = self.dim() > 0;
  const int64_t sliceSize =
      hasDim ? self.sizes()[static_cast<size_t>(*wrapped)] : 1;
  if (k < 0 || k > sliceSize)
    return Error::failure("'k' ", k, " is out of range for dim ", *wrapped,
                          " of size ", sliceSize, " (topk expects 0 <= k <= ",
                          sliceSize, ")");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  if (hasDim)
    sizes[static_cast<size_t>(*wrapped)] = k;
  Expected<Tensor> values =
      Tensor::emptyContiguous(sizes, self.dtype(), self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      Tensor::emptyContiguous(sizes, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  SortRows rows = rowsOf(self, *wrapped);
  rows.values = stridesOf(*values, *wrapped, hasDim);
  rows.indices = stridesOf(*indices, *wrapped, hasDim);
  // A 0-d self is its own top 1, and torch's CPU kernel returns it for k 0
  // too (the result is 0-d, one element, either way).
  const int64_t count = hasDim ? k : 1;
  if (values->numel() > 0) {
    if (Error err = sortedSliceOn(device, *values, *indices, self, rows,
                                  {largest, 0, count}))
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

// The two reductions with an index: kthvalue (k >= 1) and mode (k 0).
Error runReduction(DeviceType device, SortOp op, const char *opName,
                   AtenTensorHandle selfHandle, int64_t k, int64_t dim,
                   bool keepdim, AtenTensorHandle *ret0,
                   AtenTensorHandle *ret1) {
  Expected<const Tensor *> selfOr =
      checkedSelf(device, op, opName, selfHandle, ret0, &ret1);
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<int64_t> wrapped = wrapDim(dim, self.dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  const bool hasDim = self.dim() > 0;
  const int64_t dimSize =
      hasDim ? self.sizes()[static_cast<size_t>(*wrapped)] : 1;
  if (op == SortOp::Kthvalue && (k < 1 || k > dimSize))
    return Error::failure("'k' ", k, " is out of range for dim ", *wrapped,
                          " of size ", dimSize, " (kthvalue expects 1 <= k <= ",
                          dimSize, ")");
  if (op == SortOp::Mode && dimSize == 0)
    return Error::failure("mode over dim ", *wrapped,
                          " of size 0: the reduced dimension must not be "
                          "empty");
  const std::vector<int64_t> sizes = reducedSizes(self, *wrapped, keepdim);
  Expected<Tensor> values =
      Tensor::emptyContiguous(sizes, self.dtype(), self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      Tensor::emptyContiguous(sizes, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  SortRows rows = rowsOf(self, *wrapped);
  rows.values = stridesOf(*values, *wrapped, keepdim && hasDim);
  rows.indices = stridesOf(*indices, *wrapped, keepdim && hasDim);
  if (self.numel() > 0) {
    Error err = Error::success();
    if (op == SortOp::Kthvalue)
      err = sortedSliceOn(device, *values, *indices, self, rows,
                          {false, k - 1, 1});
    else
      err = device == DeviceType::CPU
                ? ops::cpu::mode(*values, *indices, self, rows)
                : ops::cuda::mode(*values, *indices, self, rows);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

Error runMedian(DeviceType device, const char *opName,
                AtenTensorHandle selfHandle, bool ignoreNan,
                AtenTensorHandle *ret0) {
  Expected<const Tensor *> selfOr = checkedSelf(
      device, SortOp::Median, opName, selfHandle, ret0, nullptr);
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Tensor> out = Tensor::emptyContiguous({}, self.dtype(), self.device());
  if (!out)
    return out.takeError();
  // All elements, as rows along the last dimension.
  const SortRows rows = rowsOf(self, self.dim() > 0 ? self.dim() - 1 : 0);
  Error err = device == DeviceType::CPU
                  ? ops::cpu::median(*out, self, rows, ignoreNan)
                  : ops::cuda::median(*out, self, rows, ignoreNan);
  if (err)
    return err;
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_sort(AtenTensorHandle self, int64_t dim,
                                   int32_t descending, AtenTensorHandle *ret0,
                                   AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runSort(DeviceType::CPU, self, dim, descending != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_sort(AtenTensorHandle self, int64_t dim,
                                    int32_t descending, AtenTensorHandle *ret0,
                                    AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runSort(DeviceType::CUDA, self, dim, descending != 0, ret0, ret1);
  });
}

// `stable` is ignored: every sort here is stable.
AOTITorchError aoti_torch_cpu_sort_stable(AtenTensorHandle self,
                                          int32_t * /*stable*/, int64_t dim,
                                          int32_t descending,
                                          AtenTensorHandle *ret0,
                                          AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runSort(DeviceType::CPU, self, dim, descending != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_sort_stable(AtenTensorHandle self,
                                           int32_t * /*stable*/, int64_t dim,
                                           int32_t descending,
                                           AtenTensorHandle *ret0,
                                           AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runSort(DeviceType::CUDA, self, dim, descending != 0, ret0, ret1);
  });
}

// `sorted` is ignored: the results are always in sorted order.
AOTITorchError aoti_torch_cpu_topk(AtenTensorHandle self, int64_t k,
                                   int64_t dim, int32_t largest,
                                   int32_t /*sorted*/, AtenTensorHandle *ret0,
                                   AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runTopk(DeviceType::CPU, self, k, dim, largest != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_topk(AtenTensorHandle self, int64_t k,
                                    int64_t dim, int32_t largest,
                                    int32_t /*sorted*/, AtenTensorHandle *ret0,
                                    AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runTopk(DeviceType::CUDA, self, k, dim, largest != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cpu_kthvalue(AtenTensorHandle self, int64_t k,
                                       int64_t dim, int32_t keepdim,
                                       AtenTensorHandle *ret0,
                                       AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runReduction(DeviceType::CPU, SortOp::Kthvalue, "kthvalue", self, k,
                        dim, keepdim != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_kthvalue(AtenTensorHandle self, int64_t k,
                                        int64_t dim, int32_t keepdim,
                                        AtenTensorHandle *ret0,
                                        AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runReduction(DeviceType::CUDA, SortOp::Kthvalue, "kthvalue", self,
                        k, dim, keepdim != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cpu_mode(AtenTensorHandle self, int64_t dim,
                                   int32_t keepdim, AtenTensorHandle *ret0,
                                   AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runReduction(DeviceType::CPU, SortOp::Mode, "mode", self, 0, dim,
                        keepdim != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_mode(AtenTensorHandle self, int64_t dim,
                                    int32_t keepdim, AtenTensorHandle *ret0,
                                    AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runReduction(DeviceType::CUDA, SortOp::Mode, "mode", self, 0, dim,
                        keepdim != 0, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cpu_median(AtenTensorHandle self,
                                     AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMedian(DeviceType::CPU, "median", self, false, ret0);
  });
}

AOTITorchError aoti_torch_cuda_median(AtenTensorHandle self,
                                      AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMedian(DeviceType::CUDA, "median", self, false, ret0);
  });
}

AOTITorchError aoti_torch_cpu_nanmedian(AtenTensorHandle self,
                                        AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMedian(DeviceType::CPU, "nanmedian", self, true, ret0);
  });
}

AOTITorchError aoti_torch_cuda_nanmedian(AtenTensorHandle self,
                                         AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMedian(DeviceType::CUDA, "nanmedian", self, true, ret0);
  });
}

} // extern "C"
