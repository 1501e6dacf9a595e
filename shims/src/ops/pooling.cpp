//===- ops/pooling.cpp - Pooling: arguments, result layouts, entry points -===//
//
// aoti_torch_{cpu,cuda}_<op> for torch 2.11's twelve pooling fallbacks, with
// the generated signatures. What each settles before any device work,
// following torch's Python meta functions (torch/_meta_registrations.py,
// the Meta kernels inductor's fake tensors run; fractional_max_pool3d has
// only ATen's structured meta, max_unpool only its decomposition):
//  - the 1-or-n lists: a single kernel_size/stride/padding/dilation value
//    stands for every spatial dimension, an empty stride for kernel_size;
//  - the output size pooled = floor((in + 2p - d(k-1) - 1 [+ s-1 with
//    ceil_mode]) / s) + 1, less one with ceil_mode when the last window
//    would start at or past in + p (it must start inside the input or the
//    left padding); 0 < s, 0 <= p <= ((k-1)d+1)/2 and p <= k/2;
//  - the results' strides, which inductor compiles the code reading them
//    for: the input's suggested memory format (torch's
//    are_strides_like_channels_last) for max_pool2d, avg_pool2d,
//    _adaptive_avg_pool2d and 4-d adaptive_max_pool2d; channels_last_3d for
//    a 5-d channels-last max_pool3d; contiguous for everything else
//    (avg_pool3d, _adaptive_avg_pool3d, adaptive_max_pool3d, fractional,
//    unpool, and every unbatched input), even where eager ATen keeps the
//    input's format: the fake tensor is what the compiled model reads by.
//    Channels-last strides are c10's, products of the sizes without
//    clamping 0 to 1. Values and indices share one layout.
//  - the dtypes each device's kernel takes (ATen's AT_DISPATCH lists): max
//    pooling on the CPU also integers (not bool), avg pooling on the CPU
//    also int64, max_unpool on CUDA also integers; everything else float16,
//    bfloat16, float32, float64.
// Refused with a message naming the argument: what torch refuses, plus
// list values beyond int32 (ATen's safe_downcast) and negative output
// sizes. A refusal leaves ret0/ret1 untouched.
//
//===----------------------------------------------------------------------===//
#include "ops/pooling.h"
#include "ops/pooling_args.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

using namespace aoti::shims::ops::pooling;

// --- max_pool{2,3}d_with_indices, avg_pool{2,3}d ---------------------------

Error runMaxPool(DeviceType device, int spatial, AtenTensorHandle selfHandle,
                 const int64_t *kernelSize, int64_t kernelLen,
                 const int64_t *strideData, int64_t strideLen,
                 const int64_t *paddingData, int64_t paddingLen,
                 const int64_t *dilationData, int64_t dilationLen,
                 int32_t ceilMode, AtenTensorHandle *ret0,
                 AtenTensorHandle *ret1) {
  const char *op = spatial == 2 ? "max_pool2d_with_indices"
                                : "max_pool3d_with_indices";
  Expected<Tensor *> selfOr = selfFor(device, op, selfHandle, {ret0, ret1});
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Ints> kernel = readInts(kernelSize, kernelLen, "kernel_size");
  Expected<Ints> stride = readInts(strideData, strideLen, "stride");
  Expected<Ints> padding = readInts(paddingData, paddingLen, "padding");
  Expected<Ints> dilation = readInts(dilationData, dilationLen, "dilation");
  for (Expected<Ints> *list : {&kernel, &stride, &padding, &dilation})
    if (!*list)
      return list->takeError();
  MaxPoolArgs args;
  if (Error err = expandWindow(*kernel, *stride, *padding, &*dilation, spatial,
                               spatial == 2 ? "max_pool2d" : "max_pool3d",
                               args.window))
    return err;
  if (self.dim() != spatial + 1 && self.dim() != spatial + 2)
    return Error::failure(spatial == 2 ? "non-empty 3D or 4D (batch mode) "
                                         "tensor expected for input"
                                       : "non-empty 4D or 5D (batch mode) "
                                         "tensor expected for input");
  Expected<Ints> out = pooledSizes(self, args.window, spatial, ceilMode != 0);
  if (!out)
    return out.takeError();
  const bool channelsLast = suggestsChannelsLast(self);
  if (Error err = spatial == 2
                      ? checkPool2dShape(self, args.window, out->data(),
                                         channelsLast)
                      : checkPool3dShape(self, args.window, out->data(),
                                         "max_pool3d_with_indices()", false))
    return err;
  if (Error err = checkDtype(self, op, device, DtypeRule::MaxPool))
    return err;
  const Ints sizes = pooledShape(self, *out);
  Expected<Tensor> values = allocate(sizes, channelsLast, self.dtype(),
                                     self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      allocate(sizes, channelsLast, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  const PoolGeometry geometry = geometryOf(self, *values, spatial);
  args.firstIndexZero =
      device == DeviceType::CUDA && spatial == 2 && channelsLast;
  if (geometry.outputs() > 0) {
    Error err =
        device == DeviceType::CPU
            ? cpu::maxPool(*values, *indices, self, geometry, args)
            : ops::cuda::maxPool(*values, *indices, self, geometry, args);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

Error runAvgPool(DeviceType device, int spatial, AtenTensorHandle selfHandle,
                 const int64_t *kernelSize, int64_t kernelLen,
                 const int64_t *strideData, int64_t strideLen,
                 const int64_t *paddingData, int64_t paddingLen,
                 int32_t ceilMode, int32_t countIncludePad,
                 const int64_t *divisorOverride, AtenTensorHandle *ret0) {
  const char *op = spatial == 2 ? "avg_pool2d" : "avg_pool3d";
  Expected<Tensor *> selfOr = selfFor(device, op, selfHandle, {ret0});
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Ints> kernel = readInts(kernelSize, kernelLen, "kernel_size");
  Expected<Ints> stride = readInts(strideData, strideLen, "stride");
  Expected<Ints> padding = readInts(paddingData, paddingLen, "padding");
  for (Expected<Ints> *list : {&kernel, &stride, &padding})
    if (!*list)
      return list->takeError();
  AvgPoolArgs args;
  if (Error err = expandWindow(*kernel, *stride, *padding, nullptr, spatial,
                               op, args.window))
    return err;
  const ScalarType t = self.dtype();
  if (t == ScalarType::UInt8 || t == ScalarType::UInt16 ||
      t == ScalarType::UInt32 || t == ScalarType::UInt64)
    return Error::failure("\"", op, "\" not implemented for '", dtypeName(t),
                          "'");
  if (divisorOverride && *divisorOverride == 0)
    return Error::failure("divisor must be not zero");
  args.divisor = divisorOverride ? *divisorOverride : 0;
  args.countIncludePad = countIncludePad != 0;
  if (self.dim() != spatial + 1 && self.dim() != spatial + 2)
    return Error::failure(
        spatial == 2 ? "Expected 3D or 4D (batch mode) tensor with optional 0 "
                       "dim batch size for input, but got: "
                     : "non-empty 4D or 5D (batch mode) tensor expected for "
                       "input, but got: ",
        shapeText(self.sizes()));
  Expected<Ints> out = pooledSizes(self, args.window, spatial, ceilMode != 0);
  if (!out)
    return out.takeError();
  // avg_pool3d's meta makes a contiguous result whatever self's layout.
  const bool channelsLast = spatial == 2 && suggestsChannelsLast(self);
  if (Error err = spatial == 2
                      ? checkPool2dShape(self, args.window, out->data(),
                                         channelsLast)
                      : checkPool3dShape(self, args.window, out->data(),
                                         "avg_pool3d()", true))
    return err;
  if (Error err = checkDtype(self, op, device, DtypeRule::AvgPool))
    return err;
  Expected<Tensor> result =
      allocate(pooledShape(self, *out), channelsLast, t, self.device());
  if (!result)
    return result.takeError();
  const PoolGeometry geometry = geometryOf(self, *result, spatial);
  if (geometry.outputs() > 0) {
    Error err = device == DeviceType::CPU
                    ? cpu::avgPool(*result, self, geometry, args)
                    : ops::cuda::avgPool(*result, self, geometry, args);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*result));
  return Error::success();
}

// --- adaptive_max_pool{2,3}d, _adaptive_avg_pool{2,3}d -----------------------

Error runAdaptive(DeviceType device, int spatial, bool max,
                  AtenTensorHandle selfHandle, const int64_t *outputData,
                  int64_t outputLen, AtenTensorHandle *ret0,
                  AtenTensorHandle *ret1) {
  const char *op = max ? (spatial == 2 ? "adaptive_max_pool2d"
                                       : "adaptive_max_pool3d")
                       : (spatial == 2 ? "_adaptive_avg_pool2d"
                                       : "_adaptive_avg_pool3d");
  const char *name = max ? op : op + 1; // torch's messages drop the '_'
  Expected<Tensor *> selfOr =
      max ? selfFor(device, op, selfHandle, {ret0, ret1})
          : selfFor(device, op, selfHandle, {ret0});
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Ints> outputSize = readInts(outputData, outputLen, "output_size");
  if (!outputSize)
    return outputSize.takeError();
  const int64_t rank = self.dim();
  const char *ranks = spatial == 2 ? "3D or 4D" : "4D or 5D";
  if (rank != spatial + 1 && rank != spatial + 2)
    return max ? Error::failure(name, "(): Expected ", ranks,
                                " tensor, but got: ", shapeText(self.sizes()))
               : Error::failure("Expected ", ranks, " tensor, but got ",
                                shapeText(self.sizes()));
  // adaptive_max_pool and _adaptive_avg_pool3d need every non-batch
  // dimension, _adaptive_avg_pool2d its spatial ones.
  const int64_t firstChecked = max || spatial == 3 ? 1 : rank - 2;
  for (int64_t i = firstChecked; i < rank; ++i)
    if (self.sizes()[i] <= 0)
      return Error::failure(name, "(): Expected input to have non-zero size "
                                  "for non-batch dimensions, but input has "
                                  "sizes ",
                            shapeText(self.sizes()), " with dimension ", i,
                            " being empty");
  if (outputSize->size() != static_cast<size_t>(spatial))
    return max ? Error::failure(name, "(): internal error: output_size.size() "
                                      "must be ",
                                spatial)
               : Error::failure(name, ": output_size must be ", spatial);
  if (Error err = checkOutputSizes(*outputSize, op))
    return err;
  if (Error err = checkDtype(self, op, device, DtypeRule::Floating))
    return err;
  const bool channelsLast = spatial == 2 && suggestsChannelsLast(self);
  const Ints sizes = pooledShape(self, *outputSize);
  Expected<Tensor> values =
      allocate(sizes, channelsLast, self.dtype(), self.device());
  if (!values)
    return values.takeError();
  const PoolGeometry geometry = geometryOf(self, *values, spatial);
  if (!max) {
    if (geometry.outputs() > 0) {
      Error err = device == DeviceType::CPU
                      ? cpu::adaptiveAvgPool(*values, self, geometry)
                      : ops::cuda::adaptiveAvgPool(*values, self, geometry);
      if (err)
        return err;
    }
    *ret0 = toHandle(std::move(*values));
    return Error::success();
  }
  Expected<Tensor> indices =
      allocate(sizes, channelsLast, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  if (geometry.outputs() > 0) {
    Error err =
        device == DeviceType::CPU
            ? cpu::adaptiveMaxPool(*values, *indices, self, geometry)
            : ops::cuda::adaptiveMaxPool(*values, *indices, self, geometry);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

// --- max_unpool{2,3}d ----------------------------------------------------

Error runMaxUnpool(DeviceType device, int spatial, AtenTensorHandle selfHandle,
                   AtenTensorHandle indicesHandle, const int64_t *outputData,
                   int64_t outputLen, const int64_t *strideData,
                   int64_t strideLen, const int64_t *paddingData,
                   int64_t paddingLen, AtenTensorHandle *ret0) {
  const char *op = spatial == 2 ? "max_unpool2d" : "max_unpool3d";
  const char *name = spatial == 2 ? "max_unpooling2d" : "max_unpooling3d";
  Expected<Tensor *> selfOr = selfFor(device, op, selfHandle, {ret0});
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Tensor *> indicesOr = fromHandle(indicesHandle, "indices");
  if (!indicesOr)
    return indicesOr.takeError();
  const Tensor &indices = **indicesOr;
  if (Error err = requireSameDevice(indices, "indices", self.device(), "self"))
    return err;
  Expected<Ints> outputSize = readInts(outputData, outputLen, "output_size");
  if (!outputSize)
    return outputSize.takeError();
  if (indices.dtype() != ScalarType::Int64)
    return Error::failure("elements in indices should be type int64 but got: ",
                          dtypeName(indices.dtype()));
  const int64_t rank = self.dim();
  if (spatial == 2) {
    if (outputSize->size() != 2)
      return Error::failure("There should be exactly two elements (height, "
                            "width) in output_size, but got ",
                            outputSize->size(), " elements.");
    if (rank != 3 && rank != 4)
      return Error::failure("Input to max_unpooling2d should be a 3d or 4d "
                            "Tensor, but got a tensor with ",
                            rank, " dimensions.");
  } else {
    if (rank != 4 && rank != 5)
      return Error::failure("Input to max_unpooling3d should be a 4d or 5d "
                            "Tensor, but got a tensor with ",
                            rank, " dimensions.");
    Expected<Ints> stride = readInts(strideData, strideLen, "stride");
    Expected<Ints> padding = readInts(paddingData, paddingLen, "padding");
    for (Expected<Ints> *list : {&stride, &padding})
      if (!*list)
        return list->takeError();
    if (outputSize->size() != 3)
      return Error::failure("There should be exactly three elements (depth, "
                            "height, width) in output_size, but got ",
                            outputSize->size(), " elements.");
    if (stride->size() != 3)
      return Error::failure("There should be exactly three elements (depth, "
                            "height, width) in stride, but got: ",
                            stride->size(), " elements.");
    if (padding->size() != 3)
      return Error::failure("There should be exactly three elements (depth, "
                            "height, width) in padding, but got: ",
                            padding->size(), " elements.");
    if ((*stride)[0] <= 0 || (*stride)[1] <= 0 || (*stride)[2] <= 0) {
      // torch checks the shapes first; the order of two refusals of one
      // call is not part of its contract.
      return Error::failure("strides should be greater than zero, but got "
                            "stride: ",
                            shapeText(*stride));
    }
  }
  if (!std::equal(self.sizes().begin(), self.sizes().end(),
                  indices.sizes().begin(), indices.sizes().end()))
    return Error::failure("Expected shape of indices to be same as that of "
                          "the input tensor (",
                          shapeText(self.sizes()),
                          ") but got indices tensor with shape: ",
                          shapeText(indices.sizes()));
  for (int64_t i = 1; i < rank; ++i)
    if (self.sizes()[i] <= 0)
      return Error::failure(name, "(): Expected input to have non-zero size "
                                  "for non-batch dimensions, but got ",
                            shapeText(self.sizes()), " with dimension ", i,
                            " being empty.");
  if (Error err = checkOutputSizes(*outputSize, op))
    return err;
  if (Error err = checkDtype(self, op, device, DtypeRule::Unpool))
    return err;
  // torch's decomposition (the fake tensor) returns a contiguous result.
  Expected<Tensor> out = allocate(pooledShape(self, *outputSize), false,
                                  self.dtype(), self.device());
  if (!out)
    return out.takeError();
  PoolGeometry geometry = geometryOf(self, *out, spatial);
  UnpoolArgs args;
  args.spatialDims = spatial;
  const PoolGeometry indexGeometry = geometryOf(indices, *out, spatial);
  for (int i = 0; i < 5; ++i)
    args.indexStrides[i] = indexGeometry.inStrides[i];
  if (out->numel() > 0) {
    Error err = device == DeviceType::CPU
                    ? cpu::maxUnpool(*out, self, indices, geometry, args)
                    : ops::cuda::maxUnpool(*out, self, indices, geometry, args);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

// --- fractional_max_pool{2,3}d ----------------------------------------------

Error runFractional(DeviceType device, int spatial, AtenTensorHandle selfHandle,
                    const int64_t *kernelData, int64_t kernelLen,
                    const int64_t *outputData, int64_t outputLen,
                    AtenTensorHandle samplesHandle, AtenTensorHandle *ret0,
                    AtenTensorHandle *ret1) {
  const char *op =
      spatial == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d";
  Expected<Tensor *> selfOr = selfFor(device, op, selfHandle, {ret0, ret1});
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<Tensor *> samplesOr = fromHandle(samplesHandle, "random_samples");
  if (!samplesOr)
    return samplesOr.takeError();
  const Tensor &samples = **samplesOr;
  if (Error err = requireSameDevice(samples, "random_samples", self.device(),
                                    "self"))
    return err;
  Expected<Ints> kernel = readInts(kernelData, kernelLen, "kernel_size");
  Expected<Ints> outputSize = readInts(outputData, outputLen, "output_size");
  for (Expected<Ints> *list : {&kernel, &outputSize})
    if (!*list)
      return list->takeError();
  const int64_t rank = self.dim();
  const size_t n = static_cast<size_t>(spatial);
  if (spatial == 2 && rank != 3 && rank != 4)
    return Error::failure("fractional_max_pool2d: Expected 3D or 4D tensor, "
                          "but got: ",
                          rank);
  if (spatial == 3 && rank != 4 && rank != 5)
    return Error::failure("fractional_max_pool3d_out(): Expected 4D or 5D "
                          "tensor, but got: ",
                          shapeText(self.sizes()));
  // The 2-d meta checks the channels and the spatial dimensions, the 3-d
  // one every dimension after the first.
  for (int64_t i = spatial == 2 ? rank - 3 : 1; i < rank; ++i)
    if (self.sizes()[i] <= 0)
      return Error::failure(op, ": Expected input to have non-zero size for "
                                "non-batch dimensions, but got ",
                            shapeText(self.sizes()), " with dimension ", i,
                            " empty");
  if (kernel->size() != n)
    return Error::failure(op, ": kernel_size must either be a single int or "
                              "a tuple of ",
                          spatial, " ints");
  if (outputSize->size() != n)
    return Error::failure(op, ": output_size must either be a single int or "
                              "a tuple of ",
                          spatial, " ints");
  if (samples.dtype() != self.dtype())
    return Error::failure("Expect _random_samples to have the same dtype as "
                          "input");
  if (samples.dim() != 3)
    return Error::failure("Expect _random_samples to have 3 dimensions, got ",
                          samples.dim());
  const bool batched = rank == spatial + 2;
  const int64_t batch = batched ? self.sizes()[0] : 1;
  const int64_t channels = self.sizes()[rank - spatial - 1];
  if (samples.sizes()[0] < batch)
    return Error::failure("Expect _random_samples.size(0) no less then input "
                          "batch size.");
  if (samples.sizes()[1] != channels)
    return Error::failure("Expect _random_samples.size(1) equals to input "
                          "channel size.");
  if (samples.sizes()[2] != spatial)
    return Error::failure("Expect _random_samples.size(2) equals to ", spatial,
                          "; got ", samples.sizes()[2], ".");
  static const char *kDimNames[] = {"time", "height", "width"};
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = self.sizes()[rank - spatial + static_cast<int64_t>(i)];
    const int64_t limit = (*outputSize)[i] + (*kernel)[i] - 1;
    // The 2-d meta allows the windows to end at the input's edge, the 3-d
    // one asks for one element more (ATen's `<`).
    if (spatial == 2 ? limit > in : limit >= in)
      return Error::failure(op, ": pool ", kDimNames[3 - n + i], " ",
                            (*kernel)[i], " too large relative to input ",
                            kDimNames[3 - n + i], " ", in);
  }
  if (Error err = checkOutputSizes(*outputSize, op))
    return err;
  if (Error err = checkDtype(self, op, device, DtypeRule::Floating))
    return err;
  const Ints sizes = pooledShape(self, *outputSize);
  Expected<Tensor> values =
      allocate(sizes, false, self.dtype(), self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      allocate(sizes, false, ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  const PoolGeometry geometry = geometryOf(self, *values, spatial);
  FractionalArgs args;
  for (size_t i = 0; i < n; ++i)
    args.kernel[3 - n + i] = (*kernel)[i];
  for (int i = 0; i < 3; ++i)
    args.sampleStrides[i] = samples.strides()[i];
  if (spatial == 2) { // torch's 2-d kernel: sample 0 for W, 1 for H
    args.sampleIndex[1] = 1;
    args.sampleIndex[2] = 0;
  } else {
    args.sampleIndex[0] = 0;
    args.sampleIndex[1] = 1;
    args.sampleIndex[2] = 2;
  }
  if (geometry.outputs() > 0) {
    Error err = device == DeviceType::CPU
                    ? cpu::fractionalMaxPool(*values, *indices, self, samples,
                                             geometry, args)
                    : ops::cuda::fractionalMaxPool(*values, *indices, self,
                                                   samples, geometry, args);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

} // namespace

// Every entry point once per device: DEVICE is cpu or cuda.
#define AOTI_POOLING_ENTRY_POINTS(DEVICE, TYPE)                                \
  AOTITorchError aoti_torch_##DEVICE##_max_pool2d_with_indices(                \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_,    \
      const int64_t *padding, int64_t padding_len_, const int64_t *dilation,   \
      int64_t dilation_len_, int32_t ceil_mode, AtenTensorHandle *ret0,        \
      AtenTensorHandle *ret1) {                                                \
    return runShim(__func__, [&] {                                             \
      return runMaxPool(TYPE, 2, self, kernel_size, kernel_size_len_, stride,  \
                        stride_len_, padding, padding_len_, dilation,          \
                        dilation_len_, ceil_mode, ret0, ret1);                 \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_max_pool3d_with_indices(                \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_,    \
      const int64_t *padding, int64_t padding_len_, const int64_t *dilation,   \
      int64_t dilation_len_, int32_t ceil_mode, AtenTensorHandle *ret0,        \
      AtenTensorHandle *ret1) {                                                \
    return runShim(__func__, [&] {                                             \
      return runMaxPool(TYPE, 3, self, kernel_size, kernel_size_len_, stride,  \
                        stride_len_, padding, padding_len_, dilation,          \
                        dilation_len_, ceil_mode, ret0, ret1);                 \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_avg_pool2d(                             \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_,    \
      const int64_t *padding, int64_t padding_len_, int32_t ceil_mode,         \
      int32_t count_include_pad, int64_t *divisor_override,                    \
      AtenTensorHandle *ret0) {                                                \
    return runShim(__func__, [&] {                                             \
      return runAvgPool(TYPE, 2, self, kernel_size, kernel_size_len_, stride,  \
                        stride_len_, padding, padding_len_, ceil_mode,         \
                        count_include_pad, divisor_override, ret0);            \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_avg_pool3d(                             \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *stride, int64_t stride_len_,    \
      const int64_t *padding, int64_t padding_len_, int32_t ceil_mode,         \
      int32_t count_include_pad, int64_t *divisor_override,                    \
      AtenTensorHandle *ret0) {                                                \
    return runShim(__func__, [&] {                                             \
      return runAvgPool(TYPE, 3, self, kernel_size, kernel_size_len_, stride,  \
                        stride_len_, padding, padding_len_, ceil_mode,         \
                        count_include_pad, divisor_override, ret0);            \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_adaptive_max_pool2d(                    \
      AtenTensorHandle self, const int64_t *output_size,                       \
      int64_t output_size_len_, AtenTensorHandle *ret0,                        \
      AtenTensorHandle *ret1) {                                                \
    return runShim(__func__, [&] {                                             \
      return runAdaptive(TYPE, 2, true, self, output_size, output_size_len_,   \
                         ret0, ret1);                                          \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_adaptive_max_pool3d(                    \
      AtenTensorHandle self, const int64_t *output_size,                       \
      int64_t output_size_len_, AtenTensorHandle *ret0,                        \
      AtenTensorHandle *ret1) {                                                \
    return runShim(__func__, [&] {                                             \
      return runAdaptive(TYPE, 3, true, self, output_size, output_size_len_,   \
                         ret0, ret1);                                          \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##__adaptive_avg_pool2d(                   \
      AtenTensorHandle self, const int64_t *output_size,                       \
      int64_t output_size_len_, AtenTensorHandle *ret0) {                      \
    return runShim(__func__, [&] {                                             \
      return runAdaptive(TYPE, 2, false, self, output_size, output_size_len_,  \
                         ret0, nullptr);                                       \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##__adaptive_avg_pool3d(                   \
      AtenTensorHandle self, const int64_t *output_size,                       \
      int64_t output_size_len_, AtenTensorHandle *ret0) {                      \
    return runShim(__func__, [&] {                                             \
      return runAdaptive(TYPE, 3, false, self, output_size, output_size_len_,  \
                         ret0, nullptr);                                       \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_max_unpool2d(                           \
      AtenTensorHandle self, AtenTensorHandle indices,                         \
      const int64_t *output_size, int64_t output_size_len_,                    \
      AtenTensorHandle *ret0) {                                                \
    return runShim(__func__, [&] {                                             \
      return runMaxUnpool(TYPE, 2, self, indices, output_size,                 \
                          output_size_len_, nullptr, 0, nullptr, 0, ret0);     \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_max_unpool3d(                           \
      AtenTensorHandle self, AtenTensorHandle indices,                         \
      const int64_t *output_size, int64_t output_size_len_,                    \
      const int64_t *stride, int64_t stride_len_, const int64_t *padding,      \
      int64_t padding_len_, AtenTensorHandle *ret0) {                          \
    return runShim(__func__, [&] {                                             \
      return runMaxUnpool(TYPE, 3, self, indices, output_size,                 \
                          output_size_len_, stride, stride_len_, padding,      \
                          padding_len_, ret0);                                 \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_fractional_max_pool2d(                  \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *output_size,                    \
      int64_t output_size_len_, AtenTensorHandle random_samples,               \
      AtenTensorHandle *ret0, AtenTensorHandle *ret1) {                        \
    return runShim(__func__, [&] {                                             \
      return runFractional(TYPE, 2, self, kernel_size, kernel_size_len_,       \
                           output_size, output_size_len_, random_samples,      \
                           ret0, ret1);                                        \
    });                                                                        \
  }                                                                            \
  AOTITorchError aoti_torch_##DEVICE##_fractional_max_pool3d(                  \
      AtenTensorHandle self, const int64_t *kernel_size,                       \
      int64_t kernel_size_len_, const int64_t *output_size,                    \
      int64_t output_size_len_, AtenTensorHandle random_samples,               \
      AtenTensorHandle *ret0, AtenTensorHandle *ret1) {                        \
    return runShim(__func__, [&] {                                             \
      return runFractional(TYPE, 3, self, kernel_size, kernel_size_len_,       \
                           output_size, output_size_len_, random_samples,      \
                           ret0, ret1);                                        \
    });                                                                        \
  }

extern "C" {
AOTI_POOLING_ENTRY_POINTS(cpu, DeviceType::CPU)
AOTI_POOLING_ENTRY_POINTS(cuda, DeviceType::CUDA)
} // extern "C"
