//===- ops/scan.h - The scan family: cumsum, cumprod, logcumsumexp, cummax --===//
//
// ops/scan.cpp decodes aoti_torch_{cpu,cuda}_{cumsum,cumprod,logcumsumexp,
// cummax,cummin}'s arguments, settles the result dtype the way torch does,
// allocates the contiguous results (torch's meta functions give every scan
// result self's sizes and default strides) and describes the work as lines:
// a scan along `dim` is an independent running reduction over each line of
// `length` elements, one line per index of the other dimensions. The
// device's implementation declared here walks the lines:
//  - cpu::scan, cpu::scanExtreme   ops/cpu/scan.cpp, plain loops;
//  - cuda::scan, cuda::scanExtreme ops/cuda/scan.cu, one thread per line,
//    compiled only in CUDA builds (ops/device.h).
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

/// The lines of a scan over `self` into outputs of self's sizes that share
/// one layout, strides in elements. The outer dimensions are every
/// dimension but the scanned one, in order; a 0-d tensor is one line of one
/// element.
struct ScanLines {
  int64_t lines = 1;  // product of outerSizes
  int64_t length = 1; // elements per line
  int64_t selfStride = 0, outStride = 0; // along the scanned dimension
  std::vector<int64_t> outerSizes, selfOuterStrides, outOuterStrides;
};

/// The running reduction of scan(): out[j] = op(out[j-1], self[j]).
enum class ScanOp {
  Sum,       // cumsum
  Prod,      // cumprod
  LogSumExp, // logcumsumexp: log(exp(out[j-1]) + exp(self[j])), stably
};

namespace cpu {
/// out[line, j] = op over self[line, 0..j], each element of self converted
/// to out's dtype first (ATen scans self.to(result dtype)), accumulated in
/// torch's CPU accumulation type of out's dtype (double for float32 and
/// float64, float for the 16-bit floats, wrapping int64 for integers).
Error scan(ScanOp op, const Tensor &out, const Tensor &self,
           const ScanLines &lines);
/// cummax (`max`) or cummin: values[j] is the extreme of self[0..j] and
/// indices[j] (int64) where it is; values has self's dtype, both outputs
/// the layout of `lines`. ATen's rule: an element equal to the running
/// extreme takes its place (so the index is the last one), and a NaN takes
/// it and keeps it (the index is the last NaN's).
Error scanExtreme(bool max, const Tensor &values, const Tensor &indices,
                  const Tensor &self, const ScanLines &lines);
} // namespace cpu

namespace cuda {
/// As cpu::scan, on self's device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, scan, ScanOp op, const Tensor &out,
                   const Tensor &self, const ScanLines &lines);
/// As cpu::scanExtreme, on self's device and its current stream.
AOTI_SHIMS_CUDA_OP(Error, scanExtreme, bool max, const Tensor &values,
                   const Tensor &indices, const Tensor &self,
                   const ScanLines &lines);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_SCAN_H
