//===- ops/scan.h - The scan fallbacks: cumsum ------------------------------===//
//
// ops/scan.cpp decodes aoti_torch_{cpu,cuda}_cumsum's arguments, settles the
// result dtype the way torch does, allocates the contiguous result and
// describes the work as lines: cumsum along `dim` is an independent running
// sum over each line of `length` elements, one line per index of the other
// dimensions. The device's implementation declared here walks the lines:
//  - cpu::cumsum   ops/cpu/scan.cpp, plain loops;
//  - cuda::cumsum  ops/cuda/scan.cu, one thread per line, compiled only in
//    CUDA builds (ops/device.h).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_SCAN_H
#define AOTI_SHIMS_OPS_SCAN_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

namespace aoti::shims::ops {

/// The lines of a scan over `self` into `out` (same sizes), strides in
/// elements. The outer dimensions are every dimension but the scanned one,
/// in order; a 0-d tensor is one line of one element.
struct ScanLines {
  int64_t lines = 1;  // product of outerSizes
  int64_t length = 1; // elements per line
  int64_t selfStride = 0, outStride = 0; // along the scanned dimension
  std::vector<int64_t> outerSizes, selfOuterStrides, outOuterStrides;
};

namespace cpu {
/// out[line, j] = sum of self[line, 0..j], self converted to out's dtype
/// first, accumulated in torch's CPU accumulation type of out's dtype.
Error cumsum(const Tensor &out, const Tensor &self, const ScanLines &lines);
} // namespace cpu

namespace cuda {
/// As cpu::cumsum, on self's device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, cumsum, const Tensor &out, const Tensor &self,
                   const ScanLines &lines);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_SCAN_H
