//===- ops/scan.cpp - cumsum: arguments, result dtype, entry points --------===//
//
// aoti_torch_{cpu,cuda}_cumsum(self, dim, dtype, ret0), torch 2.11's
// generated signature. What it settles before any device work, following
// ATen's cumsum (and torch._refs' cumsum for the checks):
//  - dim may be negative (counted from the end); a 0-d self takes dim 0 or
//    -1, like a 1-d one;
//  - the result dtype is *dtype when dtype is non-null; otherwise int64 for
//    an integral or bool self (torch promotes them so sums do not
//    overflow), else self's dtype;
//  - self is converted to the result dtype before it is summed (ATen sums
//    self.to(result dtype));
//  - the result is a new tensor with self's sizes and contiguous strides on
//    self's device (torch's meta: empty with self's sizes, default strides).
// Refused: complex and float8 dtypes, and bool or 16/32/64-bit unsigned
// results (torch implements no cumsum kernel for them either).
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

bool isIntegralOrBool(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
  case ScalarType::UInt8:
  case ScalarType::Int8:
  case ScalarType::Int16:
  case ScalarType::Int32:
  case ScalarType::Int64:
  case ScalarType::UInt16:
  case ScalarType::UInt32:
  case ScalarType::UInt64:
    return true;
  default:
    return false;
  }
}

// What the implementations read.
bool isSupportedInput(ScalarType type) {
  switch (type) {
  case ScalarType::Float16:
  case ScalarType::BFloat16:
  case ScalarType::Float32:
  case ScalarType::Float64:
    return true;
  default:
    return isIntegralOrBool(type);
  }
}

// What they write: the dtypes torch's cumsum kernels are instantiated for,
// less complex.
bool isSupportedResult(ScalarType type) {
  switch (type) {
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

constexpr const char *kSupportedResults =
    "uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64";

ScanLines linesOf(const Tensor &self, const Tensor &out, int64_t dim) {
  ScanLines lines;
  if (self.dim() == 0)
    return lines;
  const size_t scanned = static_cast<size_t>(dim);
  for (size_t d = 0; d < static_cast<size_t>(self.dim()); ++d) {
    if (d == scanned) {
      lines.length = self.sizes()[d];
      lines.selfStride = self.strides()[d];
      lines.outStride = out.strides()[d];
      continue;
    }
    lines.outerSizes.push_back(self.sizes()[d]);
    lines.selfOuterStrides.push_back(self.strides()[d]);
    lines.outOuterStrides.push_back(out.strides()[d]);
    lines.lines *= self.sizes()[d];
  }
  return lines;
}

Error runCumsum(DeviceType device, AtenTensorHandle selfHandle, int64_t dim,
                const int32_t *dtype, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = fromHandle(selfHandle, "self");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (self.device().type != device)
    return Error::failure("'self' is on ", describe(self.device()),
                          "; this cumsum needs a ",
                          device == DeviceType::CUDA ? "CUDA" : "CPU",
                          " tensor");

  // A 0-d tensor scans like a 1-d one (torch wraps dims with at least 1).
  const int64_t rank = self.dim() > 0 ? self.dim() : 1;
  if (dim < -rank || dim >= rank)
    return Error::failure("dim ", dim, " is out of range for a ", self.dim(),
                          "-d 'self' (expected [", -rank, ", ", rank - 1,
                          "])");
  if (dim < 0)
    dim += rank;

  if (!isSupportedInput(self.dtype()))
    return Error::failure("'self' has dtype ", dtypeName(self.dtype()),
                          ", which cumsum does not support");
  ScalarType resultType = self.dtype();
  if (dtype) {
    Expected<ScalarType> requested = toScalarType(*dtype);
    if (!requested)
      return Error::failure("'dtype': ", requested.takeError().message());
    resultType = *requested;
  } else if (isIntegralOrBool(self.dtype())) {
    resultType = ScalarType::Int64;
  }
  if (!isSupportedResult(resultType))
    return Error::failure("'dtype' ", dtypeName(resultType),
                          " is not a cumsum result dtype (supported: ",
                          kSupportedResults, ")");

  Expected<Tensor> out =
      Tensor::emptyContiguous(self.sizes(), resultType, self.device());
  if (!out)
    return out.takeError();
  const ScanLines lines = linesOf(self, *out, dim);
  if (self.numel() > 0) {
    Error err = device == DeviceType::CPU ? ops::cpu::cumsum(*out, self, lines)
                                          : ops::cuda::cumsum(*out, self, lines);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self, int64_t dim,
                                     int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runCumsum(DeviceType::CPU, self, dim, dtype, ret0);
  });
}

AOTITorchError aoti_torch_cuda_cumsum(AtenTensorHandle self, int64_t dim,
                                      int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runCumsum(DeviceType::CUDA, self, dim, dtype, ret0);
  });
}

} // extern "C"
