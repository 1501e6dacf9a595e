//===- copy.cpp - Strided copies between host and device tensors -----------===//
//
// Every copy is planned the same way: src is broadcast to dst's shape (a
// broadcast dimension gets stride 0), then planCopy() simplifies the pair of
// layouts. Within one memory space the plan is executed elementwise (a host
// loop, or a CUDA kernel). Across memory spaces only raw bytes can move, so
// both sides are brought to one dense layout first: the source is compacted
// on its own device if it is not dense, the bytes are copied, and if dst is
// not dense in that same layout the bytes land in a temporary on dst's device
// that is then scattered into dst elementwise.
//
//===----------------------------------------------------------------------===//
#include "copy.h"

#include "cuda_api.h"

#include <algorithm>
#include <cstring>

namespace aoti::shims {
namespace {

// src's strides when broadcast to `sizes` (numpy rules: dimensions align at
// the end; a size-1 or missing dimension repeats with stride 0).
Expected<std::vector<int64_t>> broadcastStrides(const Tensor &src,
                                                std::span<const int64_t> sizes) {
  const size_t ndim = sizes.size();
  const size_t srcDim = static_cast<size_t>(src.dim());
  if (srcDim > ndim)
    return Error::failure("cannot broadcast a ", srcDim,
                          "-d source to a ", ndim, "-d destination");
  std::vector<int64_t> strides(ndim, 0);
  for (size_t i = 0; i < srcDim; ++i) {
    const size_t dim = ndim - srcDim + i;
    const int64_t srcSize = src.sizes()[i];
    if (srcSize == sizes[dim])
      strides[dim] = src.strides()[i];
    else if (srcSize != 1)
      return Error::failure("source size ", srcSize, " of dimension ", i,
                            " does not broadcast to destination size ",
                            sizes[dim]);
  }
  return strides;
}

// True when a and b put every element of a tensor of `sizes` at the same
// offset (strides of size-1 dimensions never matter).
bool sameLayout(std::span<const int64_t> sizes, std::span<const int64_t> a,
                std::span<const int64_t> b) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != 1 && a[i] != b[i])
      return false;
  return true;
}

size_t byteCount(const Tensor &tensor) {
  return static_cast<size_t>(tensor.numel()) * tensor.itemSize();
}

template <size_t N>
void copyRow(char *dst, const char *src, int64_t count, int64_t dstStep,
             int64_t srcStep) {
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(dst + i * dstStep, src + i * srcStep, N);
}

// Elementwise copy of src (viewed with srcStrides, broadcast already applied)
// into dst, both in the same memory space.
Error copyWithinDevice(const Tensor &dst, const Tensor &src,
                       std::span<const int64_t> srcStrides) {
  CopyPlan plan = planCopy(dst.sizes(), dst.strides(), srcStrides);
  if (dst.device().isCpu()) {
    copyHostStrided(plan, dst.data(), src.data(), dst.itemSize());
    return Error::success();
  }
  return cuda::stridedCopy(plan, dst.data(), src.data(), dst.itemSize(),
                           dst.device().index);
}

// src's values, broadcast to `sizes`, in a dense layout on src's device:
// src itself when it already is, else a new contiguous tensor.
Expected<Tensor> denseSource(const Tensor &src, std::span<const int64_t> sizes,
                             std::span<const int64_t> srcStrides) {
  const bool broadcast = !std::equal(src.sizes().begin(), src.sizes().end(),
                                     sizes.begin(), sizes.end());
  if (!broadcast && src.isNonOverlappingAndDense())
    return src;
  Expected<Tensor> dense =
      Tensor::emptyContiguous(sizes, src.dtype(), src.device());
  if (!dense)
    return dense.takeError();
  if (Error err = copyWithinDevice(*dense, src, srcStrides))
    return err;
  return dense;
}

// The byte copy into dst, for a dense source with dst's sizes. Copies straight
// into dst when it has the source's layout, else into a temporary of that
// layout on dst's device that is then scattered into dst. `streamDevice`
// orders the byte copy. A device temporary may go as soon as this returns:
// its free is ordered on the same stream as its last use.
Error copyDenseAcross(const Tensor &dst, const Tensor &dense,
                      int32_t streamDevice, bool syncBeforeScatter) {
  if (dst.isNonOverlappingAndDense() &&
      sameLayout(dst.sizes(), dst.strides(), dense.strides()))
    return cuda::copyBytes(dst.data(), dense.data(), byteCount(dst),
                           streamDevice);
  Expected<Tensor> staged =
      Tensor::empty(dst.sizes(), dense.strides(), dst.dtype(), dst.device());
  if (!staged)
    return staged.takeError();
  if (Error err = cuda::copyBytes(staged->data(), dense.data(), byteCount(dst),
                                  streamDevice))
    return err;
  // A host-side scatter, or one on another device's stream, must not start
  // before the bytes have arrived.
  if (syncBeforeScatter)
    if (Error err = cuda::synchronize(streamDevice))
      return err;
  return copyWithinDevice(dst, *staged, staged->strides());
}

} // namespace

int64_t CopyPlan::numel() const {
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  return count;
}

CopyPlan planCopy(std::span<const int64_t> sizes,
                  std::span<const int64_t> dstStrides,
                  std::span<const int64_t> srcStrides) {
  CopyPlan plan;
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    plan.sizes = {0};
    plan.dstStrides = {1};
    plan.srcStrides = {1};
    return plan;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1)
      continue;
    // Merge into the next-outer dimension when stepping that one is the
    // same as stepping this one sizes[i] times, in both tensors.
    if (!plan.sizes.empty() &&
        plan.dstStrides.back() == sizes[i] * dstStrides[i] &&
        plan.srcStrides.back() == sizes[i] * srcStrides[i]) {
      plan.sizes.back() *= sizes[i];
      plan.dstStrides.back() = dstStrides[i];
      plan.srcStrides.back() = srcStrides[i];
      continue;
    }
    plan.sizes.push_back(sizes[i]);
    plan.dstStrides.push_back(dstStrides[i]);
    plan.srcStrides.push_back(srcStrides[i]);
  }
  if (plan.sizes.empty()) {
    plan.sizes = {1};
    plan.dstStrides = {1};
    plan.srcStrides = {1};
  }
  return plan;
}

void copyHostStrided(const CopyPlan &plan, void *dst, const void *src,
                     size_t itemSize) {
  const int64_t numel = plan.numel();
  if (numel == 0)
    return;
  const size_t ndim = plan.sizes.size();
  const int64_t item = static_cast<int64_t>(itemSize);
  const int64_t rowSize = plan.sizes[ndim - 1];
  const int64_t dstStep = plan.dstStrides[ndim - 1] * item;
  const int64_t srcStep = plan.srcStrides[ndim - 1] * item;
  const bool rowIsContiguous = dstStep == item && srcStep == item;

  // Walk the outer dimensions with an odometer; copy one row per position.
  std::vector<int64_t> index(ndim, 0);
  auto *dstBase = static_cast<char *>(dst);
  auto *srcBase = static_cast<const char *>(src);
  for (int64_t done = 0; done < numel; done += rowSize) {
    int64_t dstOffset = 0;
    int64_t srcOffset = 0;
    for (size_t d = 0; d + 1 < ndim; ++d) {
      dstOffset += index[d] * plan.dstStrides[d];
      srcOffset += index[d] * plan.srcStrides[d];
    }
    char *dstRow = dstBase + dstOffset * item;
    const char *srcRow = srcBase + srcOffset * item;
    if (rowIsContiguous) {
      std::memcpy(dstRow, srcRow, static_cast<size_t>(rowSize * item));
    } else {
      switch (itemSize) {
      case 1: copyRow<1>(dstRow, srcRow, rowSize, dstStep, srcStep); break;
      case 2: copyRow<2>(dstRow, srcRow, rowSize, dstStep, srcStep); break;
      case 4: copyRow<4>(dstRow, srcRow, rowSize, dstStep, srcStep); break;
      case 8: copyRow<8>(dstRow, srcRow, rowSize, dstStep, srcStep); break;
      default:
        for (int64_t i = 0; i < rowSize; ++i)
          std::memcpy(dstRow + i * dstStep, srcRow + i * srcStep, itemSize);
      }
    }
    for (size_t d = ndim - 1; d-- > 0;) {
      if (++index[d] < plan.sizes[d])
        break;
      index[d] = 0;
    }
  }
}

Error copyTensor(const Tensor &dst, const Tensor &src, bool nonBlocking) {
  if (dst.dtype() != src.dtype())
    return Error::failure("dtype mismatch: destination is ",
                          dtypeName(dst.dtype()), ", source is ",
                          dtypeName(src.dtype()),
                          " (copy_ does not convert)");
  Expected<std::vector<int64_t>> srcStrides = broadcastStrides(src, dst.sizes());
  if (!srcStrides)
    return srcStrides.takeError();
  for (int64_t i = 0; i < dst.dim(); ++i)
    if (dst.sizes()[i] > 1 && dst.strides()[i] == 0)
      return Error::failure("destination dimension ", i,
                            " has stride 0: several elements share one "
                            "memory location");
  if (dst.numel() == 0)
    return Error::success();

  const Device &to = dst.device();
  const Device &from = src.device();
  if (to.sameMemory(from))
    return copyWithinDevice(dst, src, *srcStrides);

  Expected<Tensor> dense = denseSource(src, dst.sizes(), *srcStrides);
  if (!dense)
    return dense.takeError();

  if (from.isCpu()) {
    // Host to device. A host temporary must not be freed before the device
    // has read it, so it forces a synchronous copy.
    const bool staged = dense->storage() != src.storage();
    if (Error err = copyDenseAcross(dst, *dense, to.index,
                                    /*syncBeforeScatter=*/false))
      return err;
    if (!nonBlocking || staged)
      return cuda::synchronize(to.index);
    return Error::success();
  }
  if (to.isCpu()) {
    // Device to host.
    if (Error err = copyDenseAcross(dst, *dense, from.index,
                                    /*syncBeforeScatter=*/true))
      return err;
    if (!nonBlocking)
      return cuda::synchronize(from.index);
    return Error::success();
  }
  // Device to another device: ordered by hand, and always synchronous. Wait
  // for dst's device so the copy does not race work still using dst.
  if (Error err = cuda::synchronize(to.index))
    return err;
  if (Error err = copyDenseAcross(dst, *dense, from.index,
                                  /*syncBeforeScatter=*/true))
    return err;
  if (Error err = cuda::synchronize(from.index))
    return err;
  return cuda::synchronize(to.index);
}

Expected<Tensor> cloneContiguous(const Tensor &src) {
  Expected<Tensor> copy =
      Tensor::emptyContiguous(src.sizes(), src.dtype(), src.device());
  if (!copy)
    return copy.takeError();
  if (Error err = copyTensor(*copy, src, /*nonBlocking=*/false))
    return err;
  return copy;
}

} // namespace aoti::shims
