//===- ops/pooling_args.h - Checking and laying out a pooling call --------===//
//
// The argument work ops/pooling.cpp's entry points share, following torch
// 2.11's meta functions (torch/_meta_registrations.py: pooling_output_shape,
// pool2d_shape_check, pool3d_shape_check, utils.suggest_memory_format):
// reading the int lists, expanding torch's 1-or-n lists into a PoolWindow,
// the pooled output sizes, the shape checks with torch's messages, the
// memory-format rule and the PoolGeometry of a call. Included by
// ops/pooling.cpp only.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_POOLING_ARGS_H
#define AOTI_SHIMS_OPS_POOLING_ARGS_H

#include "dtype.h"
#include "error.h"
#include "ops/device.h"
#include "ops/pooling_windows.h"
#include "tensor.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace aoti::shims::ops::pooling {

using Ints = std::vector<int64_t>;

inline std::string shapeText(std::span<const int64_t> sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}

inline Expected<Ints> readInts(const int64_t *data, int64_t len,
                               const char *name) {
  if (len < 0)
    return Error::failure("'", name, "' has a negative length ", len);
  if (len > 0 && !data)
    return Error::failure("'", name, "' is null but has length ", len);
  Ints values(data, data + len);
  for (int64_t v : values)
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max())
      return Error::failure("'", name, "' value ", v,
                            " does not fit in int32 (torch's pooling kernels "
                            "take int)");
  return values;
}

// Python's floor division, as torch's meta functions compute.
inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a % b < 0) != (b < 0)))
    --q;
  return q;
}

/// torch's pooling_output_shape.
inline Expected<int64_t> pooledSize(int64_t in, int64_t k, int64_t pad,
                                    int64_t stride, int64_t dilation,
                                    bool ceilMode) {
  if (stride == 0)
    return Error::failure("stride should not be zero");
  if (pad < 0)
    return Error::failure("pad must be non-negative, but got pad: ", pad);
  if (pad > floorDiv((k - 1) * dilation + 1, 2))
    return Error::failure("pad should be at most half of effective kernel "
                          "size, but got pad=",
                          pad, ", kernel_size=", k, " and dilation=", dilation);
  int64_t out = floorDiv(in + 2 * pad - dilation * (k - 1) - 1 +
                             (ceilMode ? stride - 1 : 0),
                         stride) +
                1;
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

/// torch's are_strides_like_channels_last (4-d: channels_last, 5-d:
/// channels_last_3d; never for other ranks).
inline bool suggestsChannelsLast(const Tensor &t) {
  static constexpr int kOrder4[] = {1, 3, 2, 0};
  static constexpr int kOrder5[] = {1, 4, 3, 2, 0};
  std::span<const int> order;
  if (t.dim() == 4)
    order = kOrder4;
  else if (t.dim() == 5)
    order = kOrder5;
  else
    return false;
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  if (strides[1] == 0)
    return false;
  int64_t min = 0;
  for (int d : order) {
    if (sizes[d] == 0 || strides[d] < min)
      return false;
    if (d == 0 && min == strides[1])
      return false;
    min = strides[d] * sizes[d];
  }
  return true;
}

/// c10's channels-last strides of a 4-d or 5-d size: channels innermost,
/// then W, H, (D,) N, plain products of the sizes.
inline Ints channelsLastStrides(const Ints &sizes) {
  Ints strides(sizes.size());
  int64_t multiplier = 1;
  const size_t rank = sizes.size();
  std::vector<size_t> order = {1};
  for (size_t d = rank - 1; d >= 2; --d)
    order.push_back(d);
  order.push_back(0);
  for (size_t d : order) {
    strides[d] = multiplier;
    multiplier *= sizes[d];
  }
  return strides;
}

inline Expected<Tensor> allocate(const Ints &sizes, bool channelsLast,
                          ScalarType dtype, const Device &device) {
  if (channelsLast)
    return Tensor::empty(sizes, channelsLastStrides(sizes), dtype, device);
  return Tensor::emptyContiguous(sizes, dtype, device);
}

/// self's and a result's sizes and strides as (N, C, D, H, W); `spatial`
/// (2 or 3) trailing dimensions are pooled, a 2-d op's D is 1.
inline PoolGeometry geometryOf(const Tensor &self, const Tensor &out,
                               int spatial) {
  PoolGeometry g;
  const int64_t rank = self.dim();
  const bool batched = rank == spatial + 2;
  const int64_t first = rank - spatial;
  g.batch = batched ? self.sizes()[0] : 1;
  g.channels = self.sizes()[first - 1];
  g.inStrides[0] = batched ? self.strides()[0] : 0;
  g.inStrides[1] = self.strides()[first - 1];
  g.outStrides[0] = batched ? out.strides()[0] : 0;
  g.outStrides[1] = out.strides()[first - 1];
  for (int k = 0; k < spatial; ++k) {
    const int dim = 3 - spatial + k;
    g.in[dim] = self.sizes()[first + k];
    g.inStrides[2 + dim] = self.strides()[first + k];
    g.out[dim] = out.sizes()[first + k];
    g.outStrides[2 + dim] = out.strides()[first + k];
  }
  return g;
}

/// Which dtypes a kernel takes (ATen's dispatch lists per device).
enum class DtypeRule { Floating, MaxPool, AvgPool, Unpool };

inline bool isFloating(ScalarType t) { return isFloatingType(t); }
inline bool isSignedOrByte(ScalarType t) { return isAtenIntegralType(t); }

inline Error checkDtype(const Tensor &self, const char *op, DeviceType device,
                 DtypeRule rule) {
  const ScalarType t = self.dtype();
  const bool cuda = device == DeviceType::CUDA;
  bool integers = false, int64Only = false;
  switch (rule) {
  case DtypeRule::Floating:
    break;
  case DtypeRule::MaxPool:
    integers = !cuda;
    break;
  case DtypeRule::AvgPool:
    int64Only = !cuda;
    break;
  case DtypeRule::Unpool:
    integers = cuda;
    break;
  }
  if (isFloating(t) || (integers && isSignedOrByte(t)) ||
      (int64Only && t == ScalarType::Int64))
    return Error::success();
  return Error::failure(
      "'self' has dtype ", dtypeName(t), ", which torch's ",
      cuda ? "CUDA" : "CPU", " ", op, " kernel does not take (supported: ",
      integers    ? "uint8, int8, int16, int32, int64, "
      : int64Only ? "int64, "
                  : "",
      "float16, bfloat16, float32, float64)");
}

/// The start of every entry point: the output pointers and self.
inline Expected<Tensor *> selfFor(DeviceType device, const char *op,
                           AtenTensorHandle handle,
                           std::initializer_list<AtenTensorHandle *> outputs) {
  const char *names[] = {"ret0", "ret1"};
  size_t i = 0;
  for (AtenTensorHandle *out : outputs)
    if (Error err = requireOutput(out, names[i++]))
      return err;
  Expected<Tensor *> self = fromHandle(handle, "self");
  if (!self)
    return self.takeError();
  if (Error err = requireDevice(**self, "self", device, op))
    return err;
  return self;
}

/// A pooled tensor's sizes: self's leading dimensions, then `spatial`.
inline Ints pooledShape(const Tensor &self, const Ints &spatial) {
  Ints sizes(self.sizes().begin(), self.sizes().end() - spatial.size());
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  return sizes;
}

inline Error checkOutputSizes(const Ints &outputSize, const char *op) {
  for (int64_t s : outputSize)
    if (s < 0)
      return Error::failure(op, ": 'output_size' ", shapeText(outputSize),
                            " has a negative size");
  return Error::success();
}

// The per-dimension values of torch's n-or-1 lists.
inline int64_t pick(const Ints &list, size_t i) {
  return list.size() == 1 ? list[0] : list[i];
}

/// torch's pool2d_shape_check (kernel, stride, pad, dilation in D, H, W
/// order of `w`, outputs `out`).
inline Error checkPool2dShape(const Tensor &self, const PoolWindow &w,
                       const int64_t out[2], bool channelsLast) {
  const int64_t kH = w.kernel[1], kW = w.kernel[2];
  if (kW <= 0 || kH <= 0)
    return Error::failure("kernel size should be greater than zero, but got "
                          "kH: ",
                          kH, ", kW: ", kW);
  if (w.stride[2] <= 0 || w.stride[1] <= 0)
    return Error::failure("stride should be greater than zero, but got dH: ",
                          w.stride[1], ", dW: ", w.stride[2]);
  if (w.dilation[1] <= 0 || w.dilation[2] <= 0)
    return Error::failure("dilation should be greater than zero, but got "
                          "dilationH: ",
                          w.dilation[1], ", dilationW: ", w.dilation[2]);
  const auto s = self.sizes();
  const bool batchedOk = self.dim() == 4 && s[1] != 0 && s[2] != 0 && s[3] != 0;
  const bool unbatchedOk =
      self.dim() == 3 && s[0] != 0 && s[1] != 0 && s[2] != 0;
  if (channelsLast ? !batchedOk : !(batchedOk || unbatchedOk))
    return Error::failure(
        channelsLast ? "Expected 4D (batch mode) tensor expected for input "
                       "with channels_last layout with optional 0 dim batch "
                       "size for input, but got: "
                     : "Expected 3D or 4D (batch mode) tensor with optional 0 "
                       "dim batch size for input, but got: ",
        shapeText(s));
  if (kW / 2 < w.pad[2] || kH / 2 < w.pad[1])
    return Error::failure("pad should be smaller than or equal to half of "
                          "kernel size, but got padW = ",
                          w.pad[2], ", padH = ", w.pad[1], ", kW = ", kW,
                          ", kH = ", kH);
  if (out[1] < 1 || out[0] < 1)
    return Error::failure("Given input size: (", s[self.dim() - 3], "x",
                          s[self.dim() - 2], "x", s[self.dim() - 1],
                          "). Calculated output size: (", s[self.dim() - 3],
                          "x", out[0], "x", out[1],
                          "). Output size is too small");
  return Error::success();
}

/// torch's pool3d_shape_check (`checkInputSize` for avg_pool3d).
inline Error checkPool3dShape(const Tensor &self, const PoolWindow &w,
                       const int64_t out[3], const char *fn,
                       bool checkInputSize) {
  const int64_t *k = w.kernel, *d = w.stride, *p = w.pad, *dl = w.dilation;
  if (k[0] <= 0 || k[1] <= 0 || k[2] <= 0)
    return Error::failure("kernel size should be greater than zero, but got "
                          "kT: ",
                          k[0], ", kH: ", k[1], ", kW: ", k[2]);
  if (d[0] <= 0 || d[1] <= 0 || d[2] <= 0)
    return Error::failure("stride should be greater than zero, but got dT: ",
                          d[0], ", dH: ", d[1], ", dW: ", d[2]);
  if (dl[0] <= 0 || dl[1] <= 0 || dl[2] <= 0)
    return Error::failure("dilation should be greater than zero, but got "
                          "dilationT: ",
                          dl[0], ", dilationH: ", dl[1],
                          ", dilationW: ", dl[2]);
  const auto s = self.sizes();
  const int64_t rank = self.dim();
  for (int64_t i = rank == 5 ? 1 : 0; i < rank; ++i)
    if (s[i] <= 0)
      return Error::failure(fn, ": Expected input's non-batch dimensions to "
                                "have positive length, but input has a shape "
                                "of ",
                            shapeText(s), " and non-batch dimension ", s[i],
                            " has length zero!");
  const int64_t iT = s[rank - 3], iH = s[rank - 2], iW = s[rank - 1];
  if (checkInputSize && (iT < k[0] || iH < k[1] || iW < k[2]))
    return Error::failure("input image (T: ", iT, " H: ", iH, " W: ", iW,
                          ") smaller than kernel size (kT: ", k[0],
                          " kH: ", k[1], " kW: ", k[2], ")");
  if (k[0] / 2 < p[0] || k[2] / 2 < p[2] || k[1] / 2 < p[1])
    return Error::failure("pad should be smaller than or equal to half of "
                          "kernel size, but got kT: ",
                          k[0], " kW: ", k[2], " kH: ", k[1], " padT: ", p[0],
                          " padW: ", p[2], " padH: ", p[1]);
  if (out[0] < 1 || out[2] < 1 || out[1] < 1)
    return Error::failure("Given input size: (", s[rank - 4], "x", iT, "x", iH,
                          "x", iW, "). Calculated output size: (", s[rank - 4],
                          "x", out[0], "x", out[1], "x", out[2],
                          "). Output size is too small");
  return Error::success();
}

/// Expands torch's kernel_size/stride/padding/dilation lists of a
/// `spatial`-d op into `w` (D, H, W), checking their lengths with torch's
/// messages (`prefix`: "max_pool2d", ...; `dilation` null for avg_pool).
inline Error expandWindow(const Ints &kernel, const Ints &stride,
                          const Ints &padding, const Ints *dilation,
                          int spatial, const char *prefix, PoolWindow &w) {
  const bool two = spatial == 2;
  const size_t n = static_cast<size_t>(spatial);
  auto lengthOk = [&](const Ints &list) {
    return list.size() == 1 || list.size() == n;
  };
  // torch's wording differs per op: only avg_pool3d says "must be", and
  // max_pool3d's dilation "must be either".
  const bool plain = !two && !dilation;
  const char *either = plain ? "must be " : "must either be ";
  const char *ints = two ? "two ints" : "three ints";
  if (!lengthOk(kernel))
    return Error::failure(prefix, ": kernel_size ", either,
                          "a single int, or a tuple of ", ints);
  if (!stride.empty() && !lengthOk(stride))
    return Error::failure(prefix, ": stride ", either,
                          "omitted, a single int, or a tuple of ", ints);
  if (!lengthOk(padding))
    return Error::failure(prefix, ": padding ", either,
                          "a single int, or a tuple of ", ints);
  if (dilation && !lengthOk(*dilation))
    return Error::failure(prefix, ": dilation ",
                          two ? "must either be" : "must be either",
                          " a single int, or a tuple of ", ints);
  for (size_t i = 0; i < n; ++i) {
    const size_t dim = 3 - n + i;
    w.kernel[dim] = pick(kernel, i);
    w.stride[dim] = stride.empty() ? w.kernel[dim] : pick(stride, i);
    w.pad[dim] = pick(padding, i);
    w.dilation[dim] = dilation ? pick(*dilation, i) : 1;
  }
  return Error::success();
}

/// The pooled spatial sizes of self under `w`.
inline Expected<Ints> pooledSizes(const Tensor &self, const PoolWindow &w,
                                  int spatial, bool ceilMode) {
  Ints out;
  for (int i = 0; i < spatial; ++i) {
    const int dim = 3 - spatial + i;
    Expected<int64_t> size =
        pooledSize(self.sizes()[self.dim() - spatial + i], w.kernel[dim],
                   w.pad[dim], w.stride[dim], w.dilation[dim], ceilMode);
    if (!size)
      return size.takeError();
    out.push_back(*size);
  }
  return out;
}

} // namespace aoti::shims::ops::pooling

#endif // AOTI_SHIMS_OPS_POOLING_ARGS_H
