//===- ops/cuda/scan.cpp - cumsum on a CUDA device (host side) -------------===//
//
// Packs ops/scan.h's lines into the kernel's arguments (ops/cuda/scan.cu)
// and launches it on the current stream of self's device. The result is
// ordered on that stream like every other shim's work; nothing waits.
//
//===----------------------------------------------------------------------===//
#include "ops/scan.h"

#include "cuda/device_scope.h"
#include "cuda_api.h"
#include "ops/cuda/scan_kernel.h"

namespace aoti::shims::cuda {
namespace {

Expected<ScanElement> elementOf(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return ScanElement::Bool;
  case ScalarType::UInt8:
    return ScanElement::UInt8;
  case ScalarType::Int8:
    return ScanElement::Int8;
  case ScalarType::Int16:
    return ScanElement::Int16;
  case ScalarType::Int32:
    return ScanElement::Int32;
  case ScalarType::Int64:
    return ScanElement::Int64;
  case ScalarType::UInt16:
    return ScanElement::UInt16;
  case ScalarType::UInt32:
    return ScanElement::UInt32;
  case ScalarType::UInt64:
    return ScanElement::UInt64;
  case ScalarType::Float16:
    return ScanElement::Float16;
  case ScalarType::BFloat16:
    return ScanElement::BFloat16;
  case ScalarType::Float32:
    return ScanElement::Float32;
  case ScalarType::Float64:
    return ScanElement::Float64;
  default:
    return Error::failure("the CUDA cumsum kernel has no ", dtypeName(type));
  }
}

} // namespace

Error cumsum(const Tensor &out, const Tensor &self, const ScanLines &lines) {
  if (lines.outerSizes.size() > static_cast<size_t>(kMaxScanOuterDims))
    return Error::failure("cumsum over a ", self.dim(),
                          "-d tensor: at most ", kMaxScanOuterDims + 1,
                          " dimensions are supported on CUDA");
  Expected<ScanElement> inType = elementOf(self.dtype());
  if (!inType)
    return inType.takeError();
  Expected<ScanElement> outType = elementOf(out.dtype());
  if (!outType)
    return outType.takeError();
  CumsumArgs args = {};
  args.dst = out.data();
  args.src = self.data();
  args.inType = *inType;
  args.outType = *outType;
  args.lines = lines.lines;
  args.length = lines.length;
  args.srcStride = lines.selfStride;
  args.dstStride = lines.outStride;
  args.outerDims = static_cast<int32_t>(lines.outerSizes.size());
  for (size_t d = 0; d < lines.outerSizes.size(); ++d) {
    args.outerSizes[d] = lines.outerSizes[d];
    args.srcOuterStrides[d] = lines.selfOuterStrides[d];
    args.dstOuterStrides[d] = lines.outOuterStrides[d];
  }
  const int32_t device = self.device().index;
  ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  return checkCuda(
      launchCumsum(args, static_cast<cudaStream_t>(currentStream(device))),
      "cumsum kernel launch");
}

} // namespace aoti::shims::cuda
