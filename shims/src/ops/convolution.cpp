//===- ops/convolution.cpp - aoti_torch_{cpu,cuda}_convolution -------------===//
//
// Both C entry points: decode the arguments, apply aten::convolution's checks,
// allocate the output with the sizes AND strides torch's compile-time
// (fake) convolution gives, and hand the problem to the device's
// implementation (ops/cpu on oneDNN, ops/cuda on cuDNN).
//
// The output's memory format. Inductor takes a fallback convolution's output
// layout from torch._subclasses.fake_impls.conv, which
//   1. views a 1-d convolution as 2-d: input.contiguous().unsqueeze(2) and
//      weight.unsqueeze(2) (so only the weight's layout counts in 1-d);
//   2. asks ATen's select_conv_backend which backend would run, and
//      _determine_backend_memory_format which format that backend returns:
//        Cudnn, CudnnTranspose:   cudnn_conv_suggest_memory_format: 4-d
//                                 weight and input or weight channels-last
//                                 -> ChannelsLast; 5-d weight and input or
//                                 weight channels-last-3d -> ChannelsLast3d
//        Mkldnn, MkldnnTranspose: mkldnn_conv_use_channels_last: input or
//                                 weight channels-last(-3d) -> ChannelsLast,
//                                 or ChannelsLast3d for a 5-d weight
//        Slow2d, SlowDilated2d,
//        SlowTranspose2d (CPU):   thnn_conv_use_channels_last: input or
//                                 weight channels-last -> ChannelsLast
//        anything else:           Contiguous (the 3-d slow kernels, CUDA's
//                                 own depthwise kernels, Empty for a zero
//                                 batch or channel count, NNPACK)
//      where "channels-last" is suggest_memory_format(), i.e. c10's stride
//      heuristic is_channels_last_strides_2d/_3d (reproduced below);
//   3. returns new_empty(meta shape).to(memory_format=that format), and for
//      a 1-d output with ChannelsLast, unsqueeze(2).to(...).squeeze(2).
// The backend choice, as it bears on the format:
//   CUDA: cuDNN runs unless some output_padding >= its stride
//         (is_output_padding_big; then the slow kernels, Contiguous). A
//         depthwise convolution uses cuDNN exactly when cuDNN would give a
//         channels-last result, so it follows the same rule.
//   CPU, 4-d (and 1-d): oneDNN or the slow 2-d kernels; both give
//         ChannelsLast when input or weight is channels-last.
//   CPU, 5-d: ChannelsLast3d only when oneDNN runs (use_mkldnn): float32
//         with groups > 1, or both last kernel sizes > 3, or batch > 1, or
//         N*C*D*H > 20480 (torch's "native is faster" cut), and not a
//         transposed convolution with a big output_padding; bfloat16 always
//         (torch's bf16 device check passes on AVX-512 machines, which we
//         assume of the compiling machine); float16 never (its device check
//         wants AVX512-FP16/AMX-FP16, which we assume absent). Otherwise the
//         slow 3-d kernels run: Contiguous.
// The test ops_convolution_test checks this rule case by case.
//
//===----------------------------------------------------------------------===//
#include "ops/convolution.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace aoti::shims::ops {
namespace {

std::string listText(std::span<const int64_t> values) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < values.size(); ++i)
    os << (i ? ", " : "") << values[i];
  os << ']';
  return os.str();
}

// One list argument: 1 or `dims` values (a single one repeats).
Expected<std::vector<int64_t>> readList(const char *name, const int64_t *data,
                                        int64_t length, int64_t dims) {
  if (length != 1 && length != dims)
    return Error::failure("expected ", name, " to be a single value or a list "
                          "of ", dims, " values to match the convolution "
                          "dimensions, but it has ", length, " values");
  if (!data)
    return Error::failure("'", name, "' is null");
  if (length == 1)
    return std::vector<int64_t>(static_cast<size_t>(dims), data[0]);
  return std::vector<int64_t>(data, data + dims);
}

bool anyOf(const std::vector<int64_t> &values, bool (*pred)(int64_t)) {
  return std::any_of(values.begin(), values.end(), pred);
}

__extension__ typedef __int128 Wide;

bool fitsInt64(Wide value) {
  return value >= INT64_MIN && value <= INT64_MAX;
}

bool isSupportedDtype(ScalarType type) {
  return type == ScalarType::Float32 || type == ScalarType::Float16 ||
         type == ScalarType::BFloat16;
}

} // namespace

const char *memoryFormatName(MemoryFormat format) {
  switch (format) {
  case MemoryFormat::Contiguous:
    return "contiguous";
  case MemoryFormat::ChannelsLast:
    return "channels_last";
  case MemoryFormat::ChannelsLast3d:
    return "channels_last_3d";
  }
  return "?";
}

bool ConvParams::isStrided() const {
  return anyOf(stride, [](int64_t s) { return s != 1; });
}

bool ConvParams::isDilated() const {
  return anyOf(dilation, [](int64_t d) { return d != 1; });
}

bool ConvParams::isOutputPaddingBig() const {
  for (size_t i = 0; i < outputPadding.size(); ++i)
    if (outputPadding[i] >= stride[i])
      return true;
  return false;
}

Expected<ConvParams> readConvParams(int64_t weightDim, const int64_t *stride,
                                    int64_t strideLen, const int64_t *padding,
                                    int64_t paddingLen,
                                    const int64_t *dilation,
                                    int64_t dilationLen, int32_t transposed,
                                    const int64_t *outputPadding,
                                    int64_t outputPaddingLen, int64_t groups) {
  if (weightDim < 3 || weightDim > 5)
    return Error::failure("weight is ", weightDim, "-d; expected a 3-d, 4-d "
                          "or 5-d weight (1-d, 2-d or 3-d convolution)");
  ConvParams params;
  params.spatialDims = weightDim - 2;
  params.transposed = transposed != 0;
  params.groups = groups;
  struct ListArg {
    const char *name;
    const int64_t *data;
    int64_t length;
    std::vector<int64_t> *into;
  };
  for (const ListArg &arg :
       {ListArg{"stride", stride, strideLen, &params.stride},
        ListArg{"padding", padding, paddingLen, &params.padding},
        ListArg{"dilation", dilation, dilationLen, &params.dilation},
        ListArg{"output_padding", outputPadding, outputPaddingLen,
                &params.outputPadding}}) {
    Expected<std::vector<int64_t>> values =
        readList(arg.name, arg.data, arg.length, params.spatialDims);
    if (!values)
      return values.takeError();
    *arg.into = std::move(*values);
  }
  if (anyOf(params.stride, [](int64_t s) { return s <= 0; }))
    return Error::failure("non-positive stride is not supported (stride=",
                          listText(params.stride), ")");
  if (anyOf(params.padding, [](int64_t p) { return p < 0; }))
    return Error::failure("negative padding is not supported (padding=",
                          listText(params.padding), ")");
  if (anyOf(params.dilation, [](int64_t d) { return d <= 0; }))
    return Error::failure("dilation should be greater than zero (dilation=",
                          listText(params.dilation), ")");
  if (anyOf(params.outputPadding, [](int64_t p) { return p < 0; }))
    return Error::failure("negative output_padding is not supported "
                          "(output_padding=",
                          listText(params.outputPadding), ")");
  if (groups <= 0)
    return Error::failure("non-positive groups is not supported (groups=",
                          groups, ")");
  if (params.transposed)
    for (int64_t i = 0; i < params.spatialDims; ++i)
      if (params.outputPadding[i] >= params.stride[i] &&
          params.outputPadding[i] >= params.dilation[i])
        return Error::failure(
            "output padding must be smaller than either stride or dilation "
            "(output_padding=",
            listText(params.outputPadding), ", stride=",
            listText(params.stride), ", dilation=",
            listText(params.dilation), ")");
  return params;
}

Expected<std::vector<int64_t>> checkConvolution(const ConvProblem &problem,
                                                DeviceType device) {
  const Tensor &input = *problem.input;
  const Tensor &weight = *problem.weight;
  const ConvParams &params = problem.params;
  const bool onCuda = device == DeviceType::CUDA;
  const char *deviceWord = onCuda ? "CUDA" : "CPU";

  struct Named {
    const char *name;
    const Tensor *tensor;
  };
  for (const Named &operand :
       {Named{"input", &input}, Named{"weight", &weight},
        Named{"bias", problem.bias}}) {
    if (!operand.tensor)
      continue;
    const Tensor &t = *operand.tensor;
    if (t.device().type != device)
      return Error::failure("'", operand.name, "' is on ",
                            describe(t.device()), "; this convolution needs ",
                            deviceWord, " tensors");
    if (!t.device().sameMemory(input.device()))
      return Error::failure("'", operand.name, "' is on ",
                            describe(t.device()), ", expected ",
                            describe(input.device()), " (the input's)");
    if (t.dtype() != input.dtype())
      return Error::failure("'", operand.name, "' has dtype ",
                            dtypeName(t.dtype()), ", expected ",
                            dtypeName(input.dtype()), " (the input's)");
  }
  if (!isSupportedDtype(input.dtype()))
    return Error::failure("unsupported dtype ", dtypeName(input.dtype()),
                          " (supported: float32, float16, bfloat16)");

  const int64_t k = weight.dim();
  auto in = input.sizes();
  auto w = weight.sizes();
  if (input.dim() != k)
    return Error::failure(
        "expected ", k, "-d input for ", k, "-d weight ", listText(w),
        ", but got ", input.dim(), "-d input ", listText(in),
        " (aten::convolution takes no unbatched input: torch's meta function "
        "reads dimension 0 as the batch, and inductor's lowering and "
        "torch's conv1d/2d/3d add the batch dimension before calling it)");
  if (std::any_of(w.begin(), w.end(), [](int64_t s) { return s == 0; }))
    return Error::failure("weight ", listText(w), " has an empty dimension");
  const int64_t groups = params.groups;
  if (w[0] % groups != 0)
    return Error::failure("given groups=", groups,
                          ", expected weight to be divisible by groups at "
                          "dimension 0, but got weight of size ",
                          listText(w));
  if (!params.transposed && in[1] != w[1] * groups)
    return Error::failure("given groups=", groups, ", weight of size ",
                          listText(w), ", expected input ", listText(in),
                          " to have ", w[1] * groups,
                          " channels, but got ", in[1], " channels instead");
  if (params.transposed && in[1] != w[0])
    return Error::failure("given transposed=1, weight of size ", listText(w),
                          ", expected input ", listText(in), " to have ",
                          w[0], " channels, but got ", in[1],
                          " channels instead");
  if (in[0] != 0 && in[1] != 0)
    for (int64_t d = 2; d < k; ++d)
      if (in[d] == 0)
        return Error::failure("only zero batch or zero channel inputs are "
                              "supported, but got input ",
                              listText(in));

  std::vector<int64_t> out(static_cast<size_t>(k));
  out[0] = in[0];
  out[1] = params.transposed ? w[1] * groups : w[0];
  if (in[1] == 0) // meta_conv: no input channels, no output channels
    out[1] = 0;
  for (int64_t d = 2; d < k; ++d) {
    const size_t i = static_cast<size_t>(d - 2);
    const Wide length = in[d], pad = params.padding[i],
               dil = params.dilation[i], kernel = w[d],
               str = params.stride[i];
    const Wide extent = dil * (kernel - 1) + 1;
    Wide size;
    if (params.transposed) {
      size = (length - 1) * str - 2 * pad + extent + params.outputPadding[i];
    } else {
      if (length + 2 * pad < extent)
        return Error::failure(
            "calculated padded input size per channel ", listText(in), " + "
            "2 * padding ", listText(params.padding), " is smaller than the "
            "dilated kernel size ", static_cast<int64_t>(extent),
            " in dimension ", d, "; kernel size can't be greater than the "
            "actual input size");
      size = (length + 2 * pad - extent) / str + 1;
    }
    if (!fitsInt64(size) || size < 0 || (size == 0 && !onCuda))
      return Error::failure("given input size per channel ", listText(in),
                            ", the calculated output size of dimension ", d,
                            " is ", static_cast<long long>(size),
                            ": output size is too small");
    out[static_cast<size_t>(d)] = static_cast<int64_t>(size);
  }

  if (const Tensor *bias = problem.bias)
    if (bias->dim() != 1 || bias->sizes()[0] != out[1])
      return Error::failure("given weight of size ", listText(w),
                            ", expected bias to be 1-dimensional with ",
                            out[1], " elements, but got bias of size ",
                            listText(bias->sizes()));
  return out;
}

bool isChannelsLastStrides2d(std::span<const int64_t> sizes,
                             std::span<const int64_t> strides) {
  if (sizes.size() != 4 || strides[1] == 0)
    return false;
  int64_t min = 0;
  for (size_t d : {1, 3, 2, 0}) {
    if (sizes[d] == 0 || strides[d] < min)
      return false;
    // An N111 tensor (or N11W sliced on W) is ambiguous: NCHW wins.
    if (d == 0 && min == strides[1])
      return false;
    min = strides[d];
    if (sizes[d] > 1)
      min *= sizes[d];
  }
  return true;
}

bool isChannelsLastStrides3d(std::span<const int64_t> sizes,
                             std::span<const int64_t> strides) {
  if (sizes.size() != 5 || strides[1] == 0)
    return false;
  int64_t min = 0;
  for (size_t d : {1, 4, 3, 2, 0}) {
    if (sizes[d] == 0 || strides[d] < min)
      return false;
    if (d == 0 && min == strides[1])
      return false;
    min = strides[d];
    if (sizes[d] > 1)
      min *= sizes[d];
  }
  return true;
}

MemoryFormat convOutputMemoryFormat(DeviceType device, ScalarType dtype,
                                    std::span<const int64_t> inputSizes,
                                    std::span<const int64_t> inputStrides,
                                    std::span<const int64_t> weightSizes,
                                    std::span<const int64_t> weightStrides,
                                    const ConvParams &params) {
  // The Empty backend (zero batch or zero channels): contiguous.
  if (inputSizes[0] == 0 || inputSizes[1] == 0)
    return MemoryFormat::Contiguous;

  std::vector<int64_t> in(inputSizes.begin(), inputSizes.end());
  std::vector<int64_t> inStrides(inputStrides.begin(), inputStrides.end());
  std::vector<int64_t> w(weightSizes.begin(), weightSizes.end());
  std::vector<int64_t> wStrides(weightStrides.begin(), weightStrides.end());
  if (w.size() == 3) {
    // input.contiguous() (which keeps an already contiguous tensor's
    // strides), then unsqueeze(2) on both: the new dimension's stride is
    // size(2) * stride(2).
    if (!isContiguous(in, inStrides))
      inStrides = contiguousStrides(in);
    in.insert(in.begin() + 2, 1);
    inStrides.insert(inStrides.begin() + 2, in[3] * inStrides[2]);
    w.insert(w.begin() + 2, 1);
    wStrides.insert(wStrides.begin() + 2, w[3] * wStrides[2]);
  }
  const size_t k = w.size();
  const bool channelsLast =
      k == 4 && (isChannelsLastStrides2d(in, inStrides) ||
                 isChannelsLastStrides2d(w, wStrides));
  const bool channelsLast3d =
      k == 5 && (isChannelsLastStrides3d(in, inStrides) ||
                 isChannelsLastStrides3d(w, wStrides));

  if (device == DeviceType::CUDA) {
    if (params.isOutputPaddingBig()) // not cuDNN: the slow kernels
      return MemoryFormat::Contiguous;
    if (channelsLast)
      return MemoryFormat::ChannelsLast;
    if (channelsLast3d)
      return MemoryFormat::ChannelsLast3d;
    return MemoryFormat::Contiguous;
  }

  if (k == 4)
    return channelsLast ? MemoryFormat::ChannelsLast
                        : MemoryFormat::Contiguous;
  // 5-d on the CPU: channels-last-3d only through oneDNN (use_mkldnn).
  bool mkldnn = false;
  if (!(params.transposed && params.isOutputPaddingBig())) {
    if (dtype == ScalarType::BFloat16)
      mkldnn = true;
    else if (dtype == ScalarType::Float32)
      // The first clause of torch's test (strided, dilated, >= 16 elements,
      // a kernel not 1x1, or more than one thread) is taken as true: the
      // compiling machine runs more than one thread.
      mkldnn = params.groups > 1 || (w[k - 1] > 3 && w[k - 2] > 3) ||
               in[0] > 1 || static_cast<Wide>(in[0]) * in[1] * in[2] * in[3] > 20480;
  }
  return mkldnn && channelsLast3d ? MemoryFormat::ChannelsLast3d
                                  : MemoryFormat::Contiguous;
}

std::vector<int64_t> stridesForMemoryFormat(std::span<const int64_t> sizes,
                                            MemoryFormat format) {
  std::vector<int64_t> strides = contiguousStrides(sizes);
  if (format == MemoryFormat::Contiguous)
    return strides;
  // .to(memory_format=f) keeps a tensor whose strides already suggest f.
  if (format == MemoryFormat::ChannelsLast3d) {
    if (sizes.size() != 5 || isChannelsLastStrides3d(sizes, strides))
      return strides;
    // c10::get_channels_last_strides_3d (raw sizes, no max(size, 1)).
    strides[1] = 1;
    strides[4] = sizes[1];
    strides[3] = strides[4] * sizes[4];
    strides[2] = strides[3] * sizes[3];
    strides[0] = strides[2] * sizes[2];
    return strides;
  }
  const bool oneD = sizes.size() == 3;
  if (!oneD && sizes.size() != 4)
    return strides;
  std::vector<int64_t> s4(sizes.begin(), sizes.end());
  std::vector<int64_t> t4 = strides;
  if (oneD) { // unsqueeze(2)
    s4.insert(s4.begin() + 2, 1);
    t4.insert(t4.begin() + 2, s4[3] * t4[2]);
  }
  if (!isChannelsLastStrides2d(s4, t4)) {
    // c10::get_channels_last_strides_2d.
    t4[1] = 1;
    t4[3] = s4[1];
    t4[2] = t4[3] * s4[3];
    t4[0] = t4[2] * s4[2];
  }
  if (oneD) // squeeze(2)
    t4.erase(t4.begin() + 2);
  return t4;
}

namespace {

// The body shared by both entry points.
Error runConvolution(DeviceType device, AtenTensorHandle inputHandle,
                     AtenTensorHandle weightHandle,
                     AtenTensorHandle *biasHandle, const int64_t *stride,
                     int64_t strideLen, const int64_t *padding,
                     int64_t paddingLen, const int64_t *dilation,
                     int64_t dilationLen, int32_t transposed,
                     const int64_t *outputPadding, int64_t outputPaddingLen,
                     int64_t groups, AtenTensorHandle *ret) {
  if (Error err = requireOutput(ret, "ret0"))
    return err;
  Expected<std::array<Tensor *, 3>> tensors =
      fromHandles({{inputHandle, "input"},
                   {weightHandle, "weight"},
                   optionalTensorArg(biasHandle, "bias")});
  if (!tensors)
    return tensors.takeError();
  ConvProblem problem;
  auto [input, weight, bias] = *tensors;
  problem.input = input;
  problem.weight = weight;
  problem.bias = bias; // null for "no bias"
  Expected<ConvParams> params = readConvParams(
      problem.weight->dim(), stride, strideLen, padding, paddingLen, dilation,
      dilationLen, transposed, outputPadding, outputPaddingLen, groups);
  if (!params)
    return params.takeError();
  problem.params = std::move(*params);
  Expected<std::vector<int64_t>> sizes = checkConvolution(problem, device);
  if (!sizes)
    return sizes.takeError();

  const MemoryFormat format = convOutputMemoryFormat(
      device, problem.input->dtype(), problem.input->sizes(),
      problem.input->strides(), problem.weight->sizes(),
      problem.weight->strides(), problem.params);
  problem.outputFormat = format;
  const std::vector<int64_t> strides = stridesForMemoryFormat(*sizes, format);
  Expected<Tensor> out = Tensor::empty(*sizes, strides, problem.input->dtype(),
                                       problem.input->device());
  if (!out)
    return out.takeError();
  if (out->numel() > 0) {
    Error err = device == DeviceType::CUDA ? cuda::convolution(problem, *out)
                                           : cpu::convolution(problem, *out);
    if (err)
      return err;
  }
  *ret = toHandle(std::move(*out));
  return Error::success();
}

} // namespace
} // namespace aoti::shims::ops

using namespace aoti::shims;

extern "C" {

AOTITorchError aoti_torch_cpu_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle *bias,
    const int64_t *stride, int64_t stride_len_, const int64_t *padding,
    int64_t padding_len_, const int64_t *dilation, int64_t dilation_len_,
    int32_t transposed, const int64_t *output_padding,
    int64_t output_padding_len_, int64_t groups, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return ops::runConvolution(DeviceType::CPU, input, weight, bias, stride,
                               stride_len_, padding, padding_len_, dilation,
                               dilation_len_, transposed, output_padding,
                               output_padding_len_, groups, ret0);
  });
}

AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle *bias,
    const int64_t *stride, int64_t stride_len_, const int64_t *padding,
    int64_t padding_len_, const int64_t *dilation, int64_t dilation_len_,
    int32_t transposed, const int64_t *output_padding,
    int64_t output_padding_len_, int64_t groups, AtenTensorHandle *ret0) {
  return runShim(__func__, [&]() -> Error {
    // A build without CUDA has no CUDA tensors: say so (cuda_api's message)
    // before a check could blame the arguments.
    if (!cuda::compiledIn())
      return cuda::currentDevice().takeError();
    return ops::runConvolution(DeviceType::CUDA, input, weight, bias, stride,
                               stride_len_, padding, padding_len_, dilation,
                               dilation_len_, transposed, output_padding,
                               output_padding_len_, groups, ret0);
  });
}

} // extern "C"
