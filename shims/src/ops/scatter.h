//===- ops/scatter.h - The scatter fallbacks: scatter, scatter_reduce -----===//
//
// ops/scatter.cpp decodes aoti_torch_{cpu,cuda}_scatter_src_out,
// scatter_value_out and scatter_reduce_two_out, checks them the way
// torch's scatter meta function does, copies self into the caller's `out`
// and describes the work as lines (ScatterLines): every element of `index`
// at coordinates c writes out[c with c[dim] replaced by index[c]], reading
// src[c] (or the scalar value). Two elements of index can only meet in out
// when they share every coordinate but `dim`, so the elements are grouped
// into lines along `dim`: within a line, the order of i along `dim` is the
// order torch's CPU kernel applies them in (the last write wins for
// scatter, sums are accumulated in that order), and different lines never
// meet.
//
// The devices' implementations:
//  - cpu::*   ops/cpu/scatter.cpp, one pass per line;
//  - cuda::*  ops/cuda/scatter.cu, one thread per element of index, with
//    atomics for the reductions (ops/device.h: CUDA builds only).
//
// segment_reduce lives here too (families.tsv puts it in this family): a
// reduction of consecutive runs (segments) of `data` along an axis, the
// runs given by lengths or offsets. On the CPU the entry point checks them
// and turns them into a table of segment bounds (SegmentReduce); on CUDA
// the device reads them itself, never waiting (ops/checks.h).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_SCATTER_H
#define AOTI_SHIMS_OPS_SCATTER_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

namespace aoti::shims::ops {

/// What a scatter does at each position it reaches.
enum class ScatterOp {
  Assign, // scatter: out[...] = src (or value)
  Sum,
  Prod,
  Mean,
  Amax,
  Amin,
};

/// `index` as lines along the scattered dimension, strides in elements. A
/// 0-d tensor is a 1-d one of one element (torch's ensure_nonempty_*).
/// The outer dimensions are the other dimensions of index, in order.
struct ScatterLines {
  int64_t dim = 0;      // the scattered dimension, wrapped (for messages)
  int64_t lines = 1;    // product of outerSizes
  int64_t length = 1;   // index.size(dim)
  int64_t bound = 1;    // out.size(dim): index values lie in [0, bound)
  int64_t indexStride = 0, srcStride = 0, outStride = 0; // along dim
  std::vector<int64_t> outerSizes;
  std::vector<int64_t> indexOuterStrides, srcOuterStrides, outOuterStrides;
  // Row-major strides of out's logical shape (positions of a dense count
  // per element of out, for "mean" on CUDA), along dim and outer.
  int64_t denseStride = 1;
  std::vector<int64_t> denseOuterStrides;
  int64_t outNumel = 1;
};

/// A scatter once the arguments are checked. `src` is null for the value
/// form, whose `value` is then known to fit out's dtype (torch's checked
/// Scalar conversion).
struct ScatterWork {
  ScatterOp op = ScatterOp::Assign;
  bool includeSelf = true;
  const Tensor *src = nullptr;
  double value = 0.0;
};

enum class SegmentOp { Max, Mean, Min, Sum, Prod };

/// A segment_reduce once checked: data (contiguous) seen as [outer,
/// dataAxis, inner], the result (contiguous) as [outer, segments, inner];
/// segment s of row o covers data[o, bounds[o][s] .. bounds[o][s + 1], :],
/// `bounds` an int64 [outer, segments + 1] contiguous tensor on data's
/// device with 0 <= bounds[o][s] <= bounds[o][s + 1] <= dataAxis.
struct SegmentReduce {
  SegmentOp op = SegmentOp::Sum;
  int64_t outer = 1, segments = 0, inner = 1, dataAxis = 0;
  bool hasInitial = false;
  double initial = 0.0; // known to fit data's dtype
};

namespace cpu {
/// Fails, naming the first (in index's row-major order) element of `index`
/// outside [0, lines.bound), as torch's "index 7 is out of bounds for
/// dimension 0 with size 5".
Error checkScatterIndex(const Tensor &index, const ScatterLines &lines);
/// Applies `work` to `out` (which already holds self), line by line.
Error scatter(const Tensor &out, const Tensor &index, const ScatterLines &lines,
              const ScatterWork &work);
/// out[o, s, i] = the reduction of segment s of row o at inner position i,
/// in data's dtype's arithmetic, from the initial value (or the
/// reduction's identity), as torch's kernels compute it.
Error segmentReduce(const Tensor &out, const Tensor &data, const Tensor &bounds,
                    const SegmentReduce &problem);
} // namespace cpu

namespace cuda {
/// With AOTI_SHIMS_CUDA_CHECKS=sync, as cpu::checkScatterIndex (a kernel
/// records a bad element, the host waits for the stream to read it); by
/// default nothing, at once: cuda::scatter checks as it goes.
AOTI_SHIMS_CUDA_OP(Error, checkScatterIndex, const Tensor &index,
                   const ScatterLines &lines);
/// As cpu::scatter, on out's device and its current stream. An element
/// whose index is out of range is skipped and recorded (ops/checks.h).
AOTI_SHIMS_CUDA_OP(Error, scatter, const Tensor &out, const Tensor &index,
                   const ScatterLines &lines, const ScatterWork &work);
/// As cpu::segmentReduce, one thread per element of out, from `segments`:
/// the lengths or offsets as given (contiguous [outer, width], int32 or
/// int64, on data's device), never read back. Bad values (the entry
/// point's CPU checks) are recorded and clamped (ops/checks.h); with
/// AOTI_SHIMS_CUDA_CHECKS=sync the call then fails.
AOTI_SHIMS_CUDA_OP(Error, segmentReduce, const Tensor &out, const Tensor &data,
                   const Tensor &segments, bool byOffsets, bool unsafe,
                   const SegmentReduce &problem);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_SCATTER_H
