//===- ops/convolution.h - aten::convolution for the fallback shims --------===//
//
// The device-neutral half of aoti_torch_{cpu,cuda}_convolution: decoding the
// C arguments, torch's checks, the output shape, and the output's strides.
//
// The strides matter as much as the values. Inductor does not read the
// strides of the tensor a fallback returns: it bakes the strides that torch's
// fake-tensor convolution (torch/_subclasses/fake_impls.py `conv`, which asks
// ATen's _select_conv_backend and _conv_determine_backend_memory_format)
// gives at compile time into the code that reads the result. So the output
// here has exactly that memory format, decided by convOutputMemoryFormat()
// from the same inputs torch looks at (see the comment in convolution.cpp).
//
// The two implementations (ops/cpu/convolution.cpp on oneDNN,
// ops/cuda/convolution.cpp on cuDNN) receive a checked ConvProblem and an
// output tensor already allocated with the right sizes and strides.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CONVOLUTION_H
#define AOTI_SHIMS_OPS_CONVOLUTION_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace aoti::shims::ops {

/// The layouts torch gives a convolution's output.
enum class MemoryFormat { Contiguous, ChannelsLast, ChannelsLast3d };

const char *memoryFormatName(MemoryFormat format);

/// stride, padding, dilation and output_padding, each expanded to one value
/// per spatial dimension (torch accepts a single value for all of them).
struct ConvParams {
  int64_t spatialDims = 0; // 1, 2 or 3
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  std::vector<int64_t> outputPadding;
  bool transposed = false;
  int64_t groups = 1;

  bool isStrided() const;
  bool isDilated() const;
  /// Some output_padding >= its stride (torch then avoids cuDNN and oneDNN).
  bool isOutputPaddingBig() const;
};

/// Reads and validates the list arguments of aten::convolution for a weight
/// of `weightDim` dimensions: each list has 1 or weightDim-2 entries (a
/// single entry applies to every dimension); strides and dilations are
/// positive, paddings non-negative, groups positive.
Expected<ConvParams> readConvParams(int64_t weightDim, const int64_t *stride,
                                    int64_t strideLen, const int64_t *padding,
                                    int64_t paddingLen,
                                    const int64_t *dilation,
                                    int64_t dilationLen, int32_t transposed,
                                    const int64_t *outputPadding,
                                    int64_t outputPaddingLen, int64_t groups);

/// A checked convolution: operands agree with each other and with params.
struct ConvProblem {
  const Tensor *input = nullptr;
  const Tensor *weight = nullptr;
  const Tensor *bias = nullptr; // null: no bias
  ConvParams params;
  /// The output's layout (convOutputMemoryFormat), set before the
  /// implementation runs.
  MemoryFormat outputFormat = MemoryFormat::Contiguous;
};

/// torch's shape checks (check_shape_forward), the output sizes (meta_conv's
/// formula) and the dtype/device rules. `device` is the implementation's
/// device type; `dtypeSupported` says whether it takes input's dtype.
/// An output with an empty spatial dimension is an error on the CPU (as in
/// torch) and allowed on CUDA (cuDNN short-circuits it, and torch's meta
/// function lets it through there too).
Expected<std::vector<int64_t>>
checkConvolution(const ConvProblem &problem, DeviceType device);

/// The rule of torch 2.11's fake convolution for the output's memory format,
/// for `device` (CPU or CUDA); see convolution.cpp for the derivation.
MemoryFormat convOutputMemoryFormat(DeviceType device, ScalarType dtype,
                                    std::span<const int64_t> inputSizes,
                                    std::span<const int64_t> inputStrides,
                                    std::span<const int64_t> weightSizes,
                                    std::span<const int64_t> weightStrides,
                                    const ConvParams &params);

/// The strides torch gives a fresh tensor of `sizes` converted to `format`
/// (new_empty(sizes).to(memory_format=format), with a 3-d tensor going
/// through unsqueeze(2) for ChannelsLast as torch's fake conv does).
std::vector<int64_t> stridesForMemoryFormat(std::span<const int64_t> sizes,
                                            MemoryFormat format);

/// c10's is_channels_last_strides_2d / _3d (the heuristic behind
/// suggest_memory_format()), for 4-d and 5-d tensors.
bool isChannelsLastStrides2d(std::span<const int64_t> sizes,
                             std::span<const int64_t> strides);
bool isChannelsLastStrides3d(std::span<const int64_t> sizes,
                             std::span<const int64_t> strides);

// The implementations. `out` has the sizes checkConvolution() returned and
// the strides of convOutputMemoryFormat(); it has at least one element.
namespace cpu {
Error convolution(const ConvProblem &problem, const Tensor &out);
} // namespace cpu
namespace cuda {
AOTI_SHIMS_CUDA_OP(Error, convolution, const ConvProblem &problem,
                   const Tensor &out);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CONVOLUTION_H
