//===- ops/search.h - searchsorted, bucketize, histc, histogram -----------===//
//
// ops/search.cpp decodes aoti_torch_{cpu,cuda}_searchsorted_{Tensor,Scalar},
// bucketize_Tensor and histc, and the CPU-only histogram_bin_ct and
// _histogramdd_from_bin_cts, checks them the way torch does, settles the
// dtypes and ranges, allocates the results and hands the devices:
//  - a search (SearchSorted): every value looked up in its row of sorted
//    boundaries by binary search, both read in a common dtype;
//  - a histc (Histc): counts of values in `bins` equal bins over a range
//    already settled, with the device's own bin arithmetic;
//  - on the CPU only, a histogramdd over linspace edges.
// Implementations: ops/cpu/search.cpp (plain loops) and ops/cuda/search.cu
// (one thread per value; shared-memory histograms).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_SEARCH_H
#define AOTI_SHIMS_OPS_SEARCH_H

#include "error.h"
#include "ops/device.h"
#include "tensor.h"

#include <cstdint>
#include <vector>

namespace aoti::shims::ops {

/// A searchsorted once checked. `input` and `boundaries` are contiguous
/// (of any supported dtype), `sorter` is contiguous int64 or null; values
/// and boundaries are both converted to `common` before they are compared
/// (torch's result_type of the two). The i-th value (row-major) searches
/// boundaries row i / valuesPerRow, or the one row when oneRow.
struct SearchSorted {
  ScalarType common = ScalarType::Float32;
  int64_t values = 0;
  int64_t valuesPerRow = 1;
  int64_t boundaryLength = 0; // boundaries.size(-1)
  bool oneRow = true;
  bool right = false;
  bool scalarInput = false; // searchsorted_Scalar: input is `scalar`
  double scalar = 0.0;
};

/// The smallest and largest value of a tensor (NaN when it holds a NaN).
struct ValueRange {
  double low = 0.0, high = 0.0;
};

/// A histc once its range is settled: values in [low, high] (the high edge
/// included) counted into `bins` bins of `hist` (contiguous, self's dtype).
/// On CUDA the range may instead come from the data (fromData: min == max
/// and self not empty), settled on the device.
struct Histc {
  int64_t bins = 1;
  double low = 0.0, high = 1.0;
  bool fromData = false;
};

namespace cpu {
/// out[i] = the insertion position of value i in its row of boundaries:
/// the first position whose boundary is >= the value (> with right), by
/// torch's comparisons `!(b >= v)` / `!(b > v)`, which send a NaN value past
/// every boundary. Through sorter when it is non-null.
Error searchSorted(const Tensor &out, const Tensor *input,
                   const Tensor &boundaries, const Tensor *sorter,
                   const SearchSorted &problem);
/// Fails unless every sorter value is in [0, boundaryLength).
Error checkSorter(const Tensor &sorter, int64_t boundaryLength);
/// The smallest and largest value of `input` (NaN when it holds one), as
/// torch's aminmax reads them.
Expected<ValueRange> valueRange(const Tensor &input);
Error histc(const Tensor &hist, const Tensor &input, const Histc &problem);

/// `edges` (1-d, contiguous, the input's floating dtype) = torch's
/// linspace(low, high, edges.numel()) in that dtype.
Error linspaceEdges(const Tensor &edges, double low, double high);
/// Per column of a contiguous [M, N] input: its smallest and largest value
/// (torch's aminmax over dim 0; NaN when a column holds one).
Error columnRanges(const Tensor &input, std::vector<double> &low,
                   std::vector<double> &high);
/// torch's histogramdd kernel with linspace edges (LINEAR_INTERPOLATION_
/// WITH_LOCAL_SEARCH): `input` contiguous [M, N], `weight` contiguous [M]
/// or null, one contiguous edge tensor per column, `hist` contiguous with
/// sizes edges[d].numel() - 1; density divides by the total and by each
/// bin's widths.
Error histogramdd(const Tensor &hist, const Tensor &input, const Tensor *weight,
                  const std::vector<Tensor> &edges, bool density);
} // namespace cpu

namespace cuda {
/// As cpu::searchSorted, and the sorter's check (cpu::checkSorter) in the
/// same launch: a bad entry is recorded, not followed (ops/checks.h), and
/// fails the call only with AOTI_SHIMS_CUDA_CHECKS=sync.
AOTI_SHIMS_CUDA_OP(Error, searchSorted, const Tensor &out, const Tensor *input,
                   const Tensor &boundaries, const Tensor *sorter,
                   const SearchSorted &problem);
/// The histogram; with problem.fromData, over the data's range settled on
/// the device (a range that is not finite is recorded, and the histogram
/// stays zero), never read back.
AOTI_SHIMS_CUDA_OP(Error, histc, const Tensor &hist, const Tensor &input,
                   const Histc &problem);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_SEARCH_H
