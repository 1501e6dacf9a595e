//===- ops/scan.cpp - The scan family: arguments, dtypes, entry points -----===//
//
// torch 2.11's generated signatures:
//   aoti_torch_{cpu,cuda}_cumsum(self, dim, dtype, ret0)
//   aoti_torch_{cpu,cuda}_cumprod(self, dim, dtype, ret0)
//   aoti_torch_{cpu,cuda}_logcumsumexp(self, dim, ret0)
//   aoti_torch_{cpu,cuda}_cummax(self, dim, ret0, ret1)
//   aoti_torch_{cpu,cuda}_cummin(self, dim, ret0, ret1)
// What each settles before any device work, following ATen (ReduceOps.cpp)
// and torch's meta functions:
//  - dim may be negative (counted from the end); a 0-d self takes dim 0 or
//    -1, like a 1-d one;
//  - cumsum and cumprod: the result dtype is *dtype when dtype is non-null;
//    otherwise int64 for an integral or bool self (torch promotes them so
//    the running sum or product does not overflow), else self's dtype. self
//    is converted to the result dtype before the scan (ATen scans
//    self.to(result dtype)). Complex and float8 results, and bool or
//    16/32/64-bit unsigned ones, are refused (torch has no kernel for them
//    either, complex aside);
//  - logcumsumexp: a floating self (float16, bfloat16, float32, float64;
//    torch's kernel also takes complex, which the shims do not have); the
//    result has self's dtype;
//  - cummax, cummin: any real dtype and bool (torch's dispatch list); values
//    of self's dtype and int64 indices;
//  - every result is a new tensor of self's sizes with contiguous strides on
//    self's device, as torch's meta functions make them (empty with self's
//    sizes; empty_like(self, contiguous_format) for logcumsumexp).
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "dtype.h"
#include "error.h"
#include "tensor.h"

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

bool isIntegralOrBool(ScalarType type) {
  return type == ScalarType::Bool || isAtenIntegralType(type) ||
         isBarebonesUnsignedType(type);
}

// What the implementations read: every real dtype and bool.
bool isReal(ScalarType type) {
  return isFloatingType(type) || isIntegralOrBool(type);
}

// What cumsum and cumprod write: the dtypes torch's kernels are
// instantiated for, less complex.
bool isSupportedResult(ScalarType type) {
  return isAtenIntegralType(type) || isFloatingType(type);
}

constexpr const char *kSupportedResults =
    "uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64";

const char *nameOf(ScanOp op) {
  switch (op) {
  case ScanOp::Sum:
    return "cumsum";
  case ScanOp::Prod:
    return "cumprod";
  case ScanOp::LogSumExp:
    return "logcumsumexp";
  }
  return "scan";
}

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

// self, on `device`, with `dim` wrapped; the checks every scan makes first.
struct ScanInput {
  const Tensor *self;
  int64_t dim;
};

Expected<ScanInput> readInput(DeviceType device, AtenTensorHandle selfHandle,
                              int64_t dim, const char *op) {
  Expected<Tensor *> self = fromHandle(selfHandle, "self");
  if (!self)
    return self.takeError();
  if (Error err = requireDevice(**self, "self", device, op))
    return err;
  Expected<int64_t> wrapped = wrapDim(dim, (*self)->dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  return ScanInput{*self, *wrapped};
}

Error runScan(DeviceType device, ScanOp op, AtenTensorHandle selfHandle,
              int64_t dim, const int32_t *dtype, AtenTensorHandle *ret0) {
  const char *name = nameOf(op);
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<ScanInput> input = readInput(device, selfHandle, dim, name);
  if (!input)
    return input.takeError();
  const Tensor &self = *input->self;

  ScalarType resultType = self.dtype();
  if (op == ScanOp::LogSumExp) {
    if (!isFloatingType(self.dtype()))
      return Error::failure("'self' has dtype ", dtypeName(self.dtype()),
                            "; logcumsumexp needs float16, bfloat16, "
                            "float32 or float64");
  } else {
    if (!isReal(self.dtype()))
      return Error::failure("'self' has dtype ", dtypeName(self.dtype()),
                            ", which ", name, " does not support");
    if (dtype) {
      Expected<ScalarType> requested = toScalarType(*dtype);
      if (!requested)
        return Error::failure("'dtype': ", requested.takeError().message());
      resultType = *requested;
    } else if (isIntegralOrBool(self.dtype())) {
      resultType = ScalarType::Int64;
    }
    if (!isSupportedResult(resultType))
      return Error::failure("'dtype' ", dtypeName(resultType), " is not a ",
                            name, " result dtype (supported: ",
                            kSupportedResults, ")");
  }

  Expected<Tensor> out =
      Tensor::emptyContiguous(self.sizes(), resultType, self.device());
  if (!out)
    return out.takeError();
  const ScanLines lines = linesOf(self, *out, input->dim);
  if (self.numel() > 0) {
    Error err = device == DeviceType::CPU
                    ? ops::cpu::scan(op, *out, self, lines)
                    : ops::cuda::scan(op, *out, self, lines);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runScanExtreme(DeviceType device, bool max, AtenTensorHandle selfHandle,
                     int64_t dim, AtenTensorHandle *ret0,
                     AtenTensorHandle *ret1) {
  const char *name = max ? "cummax" : "cummin";
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (Error err = requireOutput(ret1, "ret1"))
    return err;
  Expected<ScanInput> input = readInput(device, selfHandle, dim, name);
  if (!input)
    return input.takeError();
  const Tensor &self = *input->self;
  if (!isReal(self.dtype()))
    return Error::failure("'self' has dtype ", dtypeName(self.dtype()),
                          ", which ", name, " does not support");
  Expected<Tensor> values =
      Tensor::emptyContiguous(self.sizes(), self.dtype(), self.device());
  if (!values)
    return values.takeError();
  Expected<Tensor> indices =
      Tensor::emptyContiguous(self.sizes(), ScalarType::Int64, self.device());
  if (!indices)
    return indices.takeError();
  const ScanLines lines = linesOf(self, *values, input->dim);
  if (self.numel() > 0) {
    Error err =
        device == DeviceType::CPU
            ? ops::cpu::scanExtreme(max, *values, *indices, self, lines)
            : ops::cuda::scanExtreme(max, *values, *indices, self, lines);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*values));
  *ret1 = toHandle(std::move(*indices));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self, int64_t dim,
                                     int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CPU, ScanOp::Sum, self, dim, dtype, ret0);
  });
}

AOTITorchError aoti_torch_cuda_cumsum(AtenTensorHandle self, int64_t dim,
                                      int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CUDA, ScanOp::Sum, self, dim, dtype, ret0);
  });
}

AOTITorchError aoti_torch_cpu_cumprod(AtenTensorHandle self, int64_t dim,
                                      int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CPU, ScanOp::Prod, self, dim, dtype, ret0);
  });
}

AOTITorchError aoti_torch_cuda_cumprod(AtenTensorHandle self, int64_t dim,
                                       int32_t *dtype, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CUDA, ScanOp::Prod, self, dim, dtype, ret0);
  });
}

AOTITorchError aoti_torch_cpu_logcumsumexp(AtenTensorHandle self, int64_t dim,
                                           AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CPU, ScanOp::LogSumExp, self, dim, nullptr,
                   ret0);
  });
}

AOTITorchError aoti_torch_cuda_logcumsumexp(AtenTensorHandle self,
                                            int64_t dim,
                                            AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runScan(DeviceType::CUDA, ScanOp::LogSumExp, self, dim, nullptr,
                   ret0);
  });
}

AOTITorchError aoti_torch_cpu_cummax(AtenTensorHandle self, int64_t dim,
                                     AtenTensorHandle *ret0,
                                     AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runScanExtreme(DeviceType::CPU, true, self, dim, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_cummax(AtenTensorHandle self, int64_t dim,
                                      AtenTensorHandle *ret0,
                                      AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runScanExtreme(DeviceType::CUDA, true, self, dim, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cpu_cummin(AtenTensorHandle self, int64_t dim,
                                     AtenTensorHandle *ret0,
                                     AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runScanExtreme(DeviceType::CPU, false, self, dim, ret0, ret1);
  });
}

AOTITorchError aoti_torch_cuda_cummin(AtenTensorHandle self, int64_t dim,
                                      AtenTensorHandle *ret0,
                                      AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runScanExtreme(DeviceType::CUDA, false, self, dim, ret0, ret1);
  });
}

} // extern "C"
