//===- ops/cuda/index_select.cu - nonzero, masked_*, repeat_interleave ----===//
//
// The data-dependent members of the index family on CUDA. Each marks its
// elements with a byte flag per element of the (possibly strided or
// broadcast) input, in row-major order, then lets CUB count, scan or
// select:
//
//  - nonzero: flags (x != 0), DeviceReduce::Sum counts them, the count is
//    read back (the op's one synchronisation: the result's size depends on
//    it), the [n, ndim] result (strides (1, n)) is allocated, and
//    DeviceSelect::Flagged writes the selected linear indices straight into
//    its first column; a last kernel turns each into coordinates in place.
//  - nonzero_static: never waits. DeviceScan::ExclusiveSum of the flags
//    gives each non-zero element its row; rows below `size` are written,
//    the rest filled (the fill kernel reads the total on the device).
//  - masked_select: mask flags, count read back (one synchronisation),
//    DeviceSelect::Flagged of the linear indices, then a gather.
//  - masked_scatter: mask flags, DeviceScan::ExclusiveSum gives each true
//    element its source position, then a scatter. Nothing waits: a true
//    element whose position is past the source's end (a source with too
//    few elements, which torch refuses with a device assert) keeps self's
//    value and is recorded (ops/checks.h; AOTI_SHIMS_CUDA_CHECKS=sync
//    reads the record back and fails instead).
//  - repeat_interleave: DeviceScan::InclusiveSum of the repeats (as
//    int64); without output_size the total, the smallest repeat and the
//    smallest partial sum are read back together (one synchronisation:
//    negative repeats and overflow are refused); with it nothing waits and
//    nothing is checked, as in torch (whose kernel device-asserts). Each
//    output element binary-searches the sums for its repeat.
//
//===----------------------------------------------------------------------===//
#include "ops/index.h"

#include "ops/cuda/checks.cuh"
#include "ops/cuda/index_common.cuh"

namespace aoti::shims::ops::cuda {
namespace {

// flags[i] = (element i of the view, row-major, is non-zero).
template <typename T>
__global__ void flagsKernel(const T *data, ViewArgs view,
                            unsigned char *flags) {
  for (int64_t i = firstItem(); i < view.numel; i += itemStep())
    flags[i] = load(data[offsetIn(view, i)]) != Compute<T>(0) ? 1 : 0;
}

// The byte flags of `t` (any dtype; masks are bytes), in row-major order.
Expected<Tensor> flagsOf(const Tensor &t, const ViewArgs &view,
                         const OnStream &on, const char *op) {
  Expected<Tensor> flags = scratch(static_cast<size_t>(view.numel), t.device());
  if (!flags)
    return flags.takeError();
  auto *out = static_cast<unsigned char *>(flags->data());
  if (Error err = visitDtype(t.dtype(), op, [&]<typename T>() {
        flagsKernel<T>
            <<<blocksFor(view.numel), kThreadsPerBlock, 0, on.stream()>>>(
                static_cast<const T *>(t.data()), view, out);
        return on.launched("flags kernel launch");
      }))
    return err;
  return flags;
}

// The number of set flags, read back (a synchronisation).
Expected<int64_t> countFlags(const Tensor &flags, int64_t numel,
                             const OnStream &on, const Device &device) {
  Expected<Tensor> count = scratch(sizeof(long long), device);
  if (!count)
    return count.takeError();
  auto in = thrust::make_transform_iterator(
      static_cast<const unsigned char *>(flags.data()), FlagToCount{});
  auto *out = static_cast<long long *>(count->data());
  if (Error err = cubCall("cub::DeviceReduce::Sum", device,
                          [&](void *temp, size_t &bytes) {
                            return cub::DeviceReduce::Sum(temp, bytes, in, out,
                                                          numel, on.stream());
                          }))
    return err;
  long long host = 0;
  if (Error err = readBack(&host, out, sizeof host, on.device()))
    return err;
  return static_cast<int64_t>(host);
}

// The row-major linear indices of the set flags, into `out` (n of them).
Error selectFlagged(const Tensor &flags, int64_t numel, long long *out,
                    const OnStream &on, const Device &device) {
  Expected<Tensor> selected = scratch(sizeof(long long), device);
  if (!selected)
    return selected.takeError();
  auto *count = static_cast<long long *>(selected->data());
  const auto *f = static_cast<const unsigned char *>(flags.data());
  return cubCall("cub::DeviceSelect::Flagged", device,
                 [&](void *temp, size_t &bytes) {
                   return cub::DeviceSelect::Flagged(
                       temp, bytes, thrust::counting_iterator<long long>(0), f,
                       out, count, numel, on.stream());
                 });
}

// Exclusive prefix sums of the flags, as int64.
Expected<Tensor> flagPositions(const Tensor &flags, int64_t numel,
                               const OnStream &on, const Device &device) {
  Expected<Tensor> positions = scratch(static_cast<size_t>(numel) * 8, device);
  if (!positions)
    return positions.takeError();
  auto in = thrust::make_transform_iterator(
      static_cast<const unsigned char *>(flags.data()), FlagToCount{});
  auto *out = static_cast<long long *>(positions->data());
  if (Error err = cubCall("cub::DeviceScan::ExclusiveSum", device,
                          [&](void *temp, size_t &bytes) {
                            return cub::DeviceScan::ExclusiveSum(
                                temp, bytes, in, out, numel, on.stream());
                          }))
    return err;
  return positions;
}

// Column 0 of `out` (n rows, strides (1, n)) holds linear indices of a
// `sizes` shape; each row becomes its coordinates.
__global__ void coordinatesKernel(long long *out, int64_t n, ViewArgs shape) {
  for (int64_t r = firstItem(); r < n; r += itemStep()) {
    long long linear = out[r];
    for (int32_t d = shape.ndim - 1; d >= 0; --d) {
      out[r + d * n] = linear % shape.sizes[d];
      linear /= shape.sizes[d];
    }
  }
}

__global__ void staticScatterKernel(long long *out, int64_t size,
                                    int64_t rowStride, int64_t colStride,
                                    ViewArgs shape, const unsigned char *flags,
                                    const long long *positions) {
  for (int64_t i = firstItem(); i < shape.numel; i += itemStep()) {
    if (!flags[i])
      continue;
    const long long r = positions[i];
    if (r >= size)
      continue;
    long long linear = i;
    for (int32_t d = shape.ndim - 1; d >= 0; --d) {
      out[r * rowStride + d * colStride] = linear % shape.sizes[d];
      linear /= shape.sizes[d];
    }
  }
}

__global__ void staticFillKernel(long long *out, int64_t size, int64_t ndim,
                                 int64_t rowStride, int64_t colStride,
                                 const unsigned char *flags,
                                 const long long *positions, int64_t numel,
                                 long long fill) {
  const long long total =
      numel > 0 ? positions[numel - 1] + (flags[numel - 1] ? 1 : 0) : 0;
  for (int64_t r = firstItem(); r < size; r += itemStep()) {
    if (r < total)
      continue;
    for (int64_t d = 0; d < ndim; ++d)
      out[r * rowStride + d * colStride] = fill;
  }
}

template <typename W>
__global__ void gatherKernel(W *out, const W *self, ViewArgs view,
                             const long long *positions, int64_t n) {
  for (int64_t r = firstItem(); r < n; r += itemStep())
    out[r] = self[offsetIn(view, positions[r])];
}

// A true element past the source's end keeps out's value and is recorded
// (with the number of true elements, which the last flag and position
// give).
template <typename W>
__global__ void scatterKernel(W *out, const W *source, ViewArgs sourceView,
                              const unsigned char *flags,
                              const long long *positions, int64_t numel,
                              DeviceCheck *check) {
  for (int64_t i = firstItem(); i < numel; i += itemStep()) {
    if (!flags[i])
      continue;
    const long long position = positions[i];
    if (position >= sourceView.numel) {
      const long long total =
          positions[numel - 1] + (flags[numel - 1] ? 1 : 0);
      recordCheck(check, CheckKind::MaskedScatterSource, total,
                  sourceView.numel);
      continue;
    }
    out[i] = source[offsetIn(sourceView, position)];
  }
}

// repeats[i] (int32 or int64, strided) as int64.
struct RepeatAt {
  const void *data;
  int64_t stride;
  int32_t int32;
  __host__ __device__ long long operator()(long long i) const {
    return int32 ? static_cast<long long>(
                       static_cast<const int32_t *>(data)[i * stride])
                 : static_cast<const long long *>(data)[i * stride];
  }
};

// out[j] = the first i with cumsum[i] > j.
__global__ void repeatFillKernel(void *out, int32_t int32,
                                 const long long *cumsum, int64_t n,
                                 int64_t total) {
  for (int64_t j = firstItem(); j < total; j += itemStep()) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (cumsum[mid] <= j)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (int32)
      static_cast<int32_t *>(out)[j] = static_cast<int32_t>(lo);
    else
      static_cast<long long *>(out)[j] = lo;
  }
}

} // namespace

Expected<Tensor> nonzero(const Tensor &self) {
  const int64_t ndim = self.dim();
  Expected<ViewArgs> view = viewArgs(self.sizes(), self.strides(), "nonzero");
  if (!view)
    return view.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  int64_t n = 0;
  Tensor flags = self; // replaced below when there are elements
  if (view->numel > 0) {
    Expected<Tensor> f = flagsOf(self, *view, on, "nonzero");
    if (!f)
      return f.takeError();
    flags = std::move(*f);
    Expected<int64_t> count = countFlags(flags, view->numel, on, self.device());
    if (!count)
      return count.takeError();
    n = *count;
  }
  const int64_t sizes[] = {n, ndim};
  const int64_t strides[] = {1, n};
  Expected<Tensor> out =
      Tensor::empty(sizes, strides, ScalarType::Int64, self.device());
  if (!out)
    return out.takeError();
  if (n > 0 && ndim > 0) {
    auto *data = static_cast<long long *>(out->data());
    if (Error err = selectFlagged(flags, view->numel, data, on, self.device()))
      return err;
    coordinatesKernel<<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
        data, n, *view);
    if (Error err = on.launched("nonzero coordinates kernel launch"))
      return err;
  }
  return out;
}

Error nonzeroStatic(const Tensor &out, const Tensor &self, int64_t fillValue) {
  Expected<ViewArgs> view =
      viewArgs(self.sizes(), self.strides(), "nonzero_static");
  if (!view)
    return view.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  const int64_t size = out.sizes()[0];
  const int64_t rowStride = out.strides()[0];
  const int64_t colStride = out.strides()[1];
  auto *data = static_cast<long long *>(out.data());
  const int64_t numel = view->numel;
  const unsigned char *flags = nullptr;
  const long long *positions = nullptr;
  Tensor keepFlags = out, keepPositions = out;
  if (numel > 0) {
    Expected<Tensor> f = flagsOf(self, *view, on, "nonzero_static");
    if (!f)
      return f.takeError();
    Expected<Tensor> p = flagPositions(*f, numel, on, self.device());
    if (!p)
      return p.takeError();
    keepFlags = std::move(*f);
    keepPositions = std::move(*p);
    flags = static_cast<const unsigned char *>(keepFlags.data());
    positions = static_cast<const long long *>(keepPositions.data());
    staticScatterKernel<<<blocksFor(numel), kThreadsPerBlock, 0, on.stream()>>>(
        data, size, rowStride, colStride, *view, flags, positions);
    if (Error err = on.launched("nonzero_static scatter kernel launch"))
      return err;
  }
  staticFillKernel<<<blocksFor(size), kThreadsPerBlock, 0, on.stream()>>>(
      data, size, self.dim(), rowStride, colStride, flags, positions, numel,
      fillValue);
  return on.launched("nonzero_static fill kernel launch");
}

Expected<Tensor> maskedSelect(const Tensor &self, const Tensor &mask) {
  Expected<ViewArgs> selfView =
      viewArgs(self.sizes(), self.strides(), "masked_select");
  if (!selfView)
    return selfView.takeError();
  Expected<ViewArgs> maskView =
      viewArgs(mask.sizes(), mask.strides(), "masked_select");
  if (!maskView)
    return maskView.takeError();
  OnStream on(self);
  if (Error err = on.takeStatus())
    return err;
  const Device &device = self.device();
  const int64_t numel = selfView->numel;
  int64_t n = 0;
  Tensor flags = self;
  if (numel > 0) {
    // A uint8 mask selects where it is non-zero, as torch's CUDA
    // masked_select (through index) does.
    Expected<Tensor> f = flagsOf(mask, *maskView, on, "masked_select");
    if (!f)
      return f.takeError();
    flags = std::move(*f);
    Expected<int64_t> count = countFlags(flags, numel, on, device);
    if (!count)
      return count.takeError();
    n = *count;
  }
  const int64_t sizes[] = {n};
  Expected<Tensor> out = Tensor::emptyContiguous(sizes, self.dtype(), device);
  if (!out)
    return out.takeError();
  if (n == 0)
    return out;
  Expected<Tensor> positions = scratch(static_cast<size_t>(n) * 8, device);
  if (!positions)
    return positions.takeError();
  auto *p = static_cast<long long *>(positions->data());
  if (Error err = selectFlagged(flags, numel, p, on, device))
    return err;
  if (Error err = visitWord(self.itemSize(), [&]<typename W>() {
        gatherKernel<W><<<blocksFor(n), kThreadsPerBlock, 0, on.stream()>>>(
            static_cast<W *>(out->data()), static_cast<const W *>(self.data()),
            *selfView, p, n);
        return on.launched("masked_select gather kernel launch");
      }))
    return err;
  return out;
}

Error maskedScatter(const Tensor &out, const Tensor &mask,
                    const Tensor &source) {
  Expected<ViewArgs> maskView =
      viewArgs(mask.sizes(), mask.strides(), "masked_scatter");
  if (!maskView)
    return maskView.takeError();
  Expected<ViewArgs> sourceView =
      viewArgs(source.sizes(), source.strides(), "masked_scatter");
  if (!sourceView)
    return sourceView.takeError();
  OnStream on(out);
  if (Error err = on.takeStatus())
    return err;
  const Device &device = out.device();
  const int64_t numel = maskView->numel;
  Expected<Tensor> flags = flagsOf(mask, *maskView, on, "masked_scatter");
  if (!flags)
    return flags.takeError();
  Expected<Tensor> positions = flagPositions(*flags, numel, on, device);
  if (!positions)
    return positions.takeError();
  const auto *f = static_cast<const unsigned char *>(flags->data());
  const auto *p = static_cast<const long long *>(positions->data());
  Expected<DeviceCheck *> check = checkWordFor(on);
  if (!check)
    return check.takeError();
  if (Error err = visitWord(out.itemSize(), [&]<typename W>() {
        scatterKernel<W>
            <<<blocksFor(numel), kThreadsPerBlock, 0, on.stream()>>>(
                static_cast<W *>(out.data()),
                static_cast<const W *>(source.data()), *sourceView, f, p,
                numel, *check);
        return on.launched("masked_scatter kernel launch");
      }))
    return err;
  return verdictIfSync(on);
}

Expected<Tensor> repeatInterleave(const Tensor &repeats,
                                  const int64_t *outputSize) {
  OnStream on(repeats);
  if (Error err = on.takeStatus())
    return err;
  const Device &device = repeats.device();
  const int64_t n = repeats.sizes()[0];
  const bool int32 = repeats.dtype() == ScalarType::Int32;
  const RepeatAt at{repeats.data(), repeats.strides()[0], int32 ? 1 : 0};
  auto values = thrust::make_transform_iterator(
      thrust::counting_iterator<long long>(0), at);
  Expected<Tensor> cumsum = scratch(static_cast<size_t>(n) * 8, device);
  if (!cumsum)
    return cumsum.takeError();
  auto *sums = static_cast<long long *>(cumsum->data());
  if (Error err = cubCall("cub::DeviceScan::InclusiveSum", device,
                          [&](void *temp, size_t &bytes) {
                            return cub::DeviceScan::InclusiveSum(
                                temp, bytes, values, sums, n, on.stream());
                          }))
    return err;
  int64_t total = 0;
  if (outputSize) {
    total = *outputSize;
  } else {
    // total, smallest repeat, smallest partial sum: one read-back.
    Expected<Tensor> stats = scratch(3 * sizeof(long long), device);
    if (!stats)
      return stats.takeError();
    auto *s = static_cast<long long *>(stats->data());
    if (Error err = shims::cuda::copyBytes(s, sums + n - 1, sizeof(long long),
                                           on.device()))
      return err;
    if (Error err = cubCall("cub::DeviceReduce::Min", device,
                            [&](void *temp, size_t &bytes) {
                              return cub::DeviceReduce::Min(
                                  temp, bytes, values, s + 1, n, on.stream());
                            }))
      return err;
    if (Error err = cubCall("cub::DeviceReduce::Min", device,
                            [&](void *temp, size_t &bytes) {
                              return cub::DeviceReduce::Min(
                                  temp, bytes, sums, s + 2, n, on.stream());
                            }))
      return err;
    long long host[3] = {};
    if (Error err = readBack(host, s, sizeof host, on.device()))
      return err;
    if (host[1] < 0)
      return Error::failure("repeats can not be negative (the smallest "
                            "repeat is ",
                            host[1], ")");
    if (host[2] < 0)
      return Error::failure("cumulative sum values overflowed. check the "
                            "repeats tensor values");
    total = host[0];
  }
  const int64_t sizes[] = {total};
  Expected<Tensor> out =
      Tensor::emptyContiguous(sizes, repeats.dtype(), device);
  if (!out)
    return out.takeError();
  if (total > 0) {
    repeatFillKernel<<<blocksFor(total), kThreadsPerBlock, 0, on.stream()>>>(
        out->data(), int32 ? 1 : 0, sums, n, total);
    if (Error err = on.launched("repeat_interleave kernel launch"))
      return err;
  }
  return out;
}

} // namespace aoti::shims::ops::cuda
