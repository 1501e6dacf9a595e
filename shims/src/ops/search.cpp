//===- ops/search.cpp - searchsorted, bucketize, histc, histogram ---------===//
//
// The entry points of torch 2.11's generated signatures, CPU and CUDA
// where torch's list has both:
//  - searchsorted_Tensor(sorted_sequence, self, out_int32, right, side,
//    sorter) and searchsorted_Scalar(sorted_sequence, double self, ...):
//    torch's searchsorted_pre_check, in its order: side is "left" or
//    "right" and may not be "left" with right=True (side "right" with
//    right=False searches right); all tensors on one device; sorter int64
//    with the boundaries' sizes and every value in [0, size(-1)) (on CUDA
//    checked by the search kernel without waiting, where torch's
//    aminmax().item() waits: ops/checks.h); a 0-d value only
//    with 1-d boundaries; boundaries not 0-d, and 1-d or with the values'
//    leading dimensions. The values and boundaries are compared in torch's
//    result_type of the two (a 0-d value or the Scalar, a wrapped double,
//    promote only across categories: float32 for integer boundaries and a
//    Scalar, the boundaries' dtype otherwise), which must be one of torch's
//    ALL_TYPES_AND2(Half, BFloat16) dispatch. The result is int64 (int32
//    with out_int32, which needs size(-1) < INT_MAX), contiguous, with the
//    values' sizes (0-d for the Scalar form), as torch's meta gives.
//    Non-contiguous inputs are copied contiguous first, as torch does.
//  - bucketize_Tensor(self, boundaries, out_int32, right): searchsorted
//    with 1-d boundaries.
//  - histc(self, bins, min, max): bins > 0 and max >= min (torch's meta).
//    The range is then settled the way each device's torch kernel does:
//    CPU (floating dtypes: "histogram_cpu"): [min, max] in double, the
//    data's [min, max] when they are equal and self is not empty (a NaN
//    there makes the range non-finite and is refused), widened by 1 on
//    each side when still equal, refused unless finite and min < max (on
//    CUDA the data's range is settled on the device, never read back, and
//    a bad one recorded: ops/checks.h); the
//    edges are then those of torch's linspace in self's dtype (min and max
//    rounded to it). CUDA (uint8, int8, int16, int32, int64, float32,
//    float64; float16 "is not supported" and bfloat16 has no kernel, as in
//    torch): min and max converted to the accumulation type first (int64
//    for the integers, truncating; a value the type cannot hold is
//    refused as c10 refuses it), then the same steps. The result is a new
//    contiguous [bins] tensor of self's dtype.
//  - histogram_bin_ct(self, bins, range, weight, density) (CPU only):
//    torch's histogram over bins equal bins of linspace edges: range, when
//    given, is 2 doubles; without it the data's range (float32 and float64
//    only, as torch's aminmax dispatch; [0, 1] for an empty self); the
//    range must be finite and ordered, and is widened by 0.5 when empty;
//    weight, when given, has self's dtype and numel. Returns hist [bins] and
//    bin_edges [bins + 1], both contiguous in self's dtype.
//  - _histogramdd_from_bin_cts(self, bins[], range, weight, density) (CPU
//    only): the same over self viewed as [M, N] with N = self.size(-1)
//    (self at least 2-d), one bin count per column, range 2N doubles,
//    weight of self's sizes less the last; hist has the sizes `bins`.
// Floating dtypes of the histograms: float32, float64, float16, bfloat16
// (float16/bfloat16 only with an explicit range: torch's range inference
// dispatches float32 and float64 only).
//
//===----------------------------------------------------------------------===//
#include "ops/search.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "copy.h"
#include "dtype.h"
#include "error.h"
#include "ops/cpu/float16.h"
#include "tensor.h"

#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

std::string shapeString(std::span<const int64_t> sizes) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < sizes.size(); ++i)
    os << (i ? ", " : "") << sizes[i];
  os << ']';
  return os.str();
}

std::string number(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

bool isFloating(ScalarType t) { return isFloatingType(t); }
bool isIntegral(ScalarType t) { return isAtenIntegralType(t); }

// torch's promoteTypes over the dtypes these ops read (bool, the signed
// integers and uint8, the four floating types); others are unsupported.
std::optional<ScalarType> promote(ScalarType a, ScalarType b) {
  auto known = [](ScalarType t) {
    return t == ScalarType::Bool || isIntegral(t) || isFloating(t);
  };
  if (!known(a) || !known(b))
    return std::nullopt;
  if (a == b)
    return a;
  if (a == ScalarType::Bool)
    return b;
  if (b == ScalarType::Bool)
    return a;
  auto floatRank = [](ScalarType t) {
    return t == ScalarType::Float64 ? 3 : t == ScalarType::Float32 ? 2 : 1;
  };
  if (isFloating(a) && isFloating(b)) {
    if (floatRank(a) == 1 && floatRank(b) == 1)
      return ScalarType::Float32; // float16 with bfloat16
    return floatRank(a) >= floatRank(b) ? a : b;
  }
  if (isFloating(a))
    return a;
  if (isFloating(b))
    return b;
  auto width = [](ScalarType t) {
    return t == ScalarType::Int64 ? 8 : t == ScalarType::Int32 ? 4
                                    : t == ScalarType::Int16 ? 2 : 1;
  };
  if (a == ScalarType::UInt8 || b == ScalarType::UInt8) {
    const ScalarType other = a == ScalarType::UInt8 ? b : a;
    return other == ScalarType::Int8 ? ScalarType::Int16 : other;
  }
  return width(a) >= width(b) ? a : b;
}

// torch's combine_categories(higher, lower): a lower-priority operand
// (0-d tensor, wrapped number) changes the result only across categories.
std::optional<ScalarType> combineCategories(ScalarType higher,
                                            std::optional<ScalarType> lower) {
  if (!lower)
    return higher;
  if (isFloating(higher))
    return higher;
  if (higher == ScalarType::Bool || isFloating(*lower))
    return promote(higher, *lower);
  return higher;
}

// A dtype torch's searchsorted kernels are instantiated for.
bool isSearchDtype(ScalarType t) { return isIntegral(t) || isFloating(t); }

// c10's overflows<To, double>, for the dtypes histc converts its bounds to.
bool overflows(double value, ScalarType type) {
  auto outside = [&](double lowest, double highest) {
    return std::isnan(value) || value < lowest || value > highest;
  };
  switch (type) {
  case ScalarType::UInt8:
    return outside(0.0, 255.0);
  case ScalarType::Int8:
    return outside(-128.0, 127.0);
  case ScalarType::Int16:
    return outside(-32768.0, 32767.0);
  case ScalarType::Int32:
    return outside(-2147483648.0, 2147483647.0);
  case ScalarType::Int64:
    return std::isnan(value) || value < -9223372036854775808.0 ||
           value >= 9223372036854775808.0;
  case ScalarType::Float16:
    return std::isfinite(value) && std::fabs(value) > 65504.0;
  case ScalarType::BFloat16:
  case ScalarType::Float32:
    return std::isfinite(value) &&
           std::fabs(value) > static_cast<double>(std::numeric_limits<float>::max());
  default:
    return false;
  }
}

Error refuseOverflow(double value, ScalarType type) {
  return Error::failure("value cannot be converted to type ", dtypeName(type),
                        " without overflow: ", number(value));
}

// `value` as the nearest value a floating dtype holds (c10 converts double
// to its 16-bit types through float).
double roundToDtype(double value, ScalarType type) {
  switch (type) {
  case ScalarType::Float32:
    return static_cast<float>(value);
  case ScalarType::Float16:
    return cpu::float16ToFloat(cpu::floatToFloat16(static_cast<float>(value)));
  case ScalarType::BFloat16:
    return cpu::bfloat16ToFloat(cpu::floatToBFloat16(static_cast<float>(value)));
  default:
    return value;
  }
}

Expected<Tensor> contiguousOf(const Tensor &t) {
  if (t.isContiguous())
    return t;
  return cloneContiguous(t);
}

// --- searchsorted and bucketize ----------------------------------------------

struct SearchArgs {
  const Tensor *boundaries = nullptr;
  const Tensor *input = nullptr; // null for the Scalar form
  double scalar = 0.0;
  bool outInt32 = false;
  bool right = false;
  const char *side = nullptr; // null: not given
  const Tensor *sorter = nullptr;
};

Error runSearch(DeviceType device, const char *op, const SearchArgs &a,
                AtenTensorHandle *ret0) {
  const Tensor &bd = *a.boundaries;
  if (Error err = requireDevice(bd, "sorted_sequence", device, op))
    return err;
  bool right = a.right;
  if (a.side) {
    const std::string side = a.side;
    if (side != "left" && side != "right")
      return Error::failure("torch.searchsorted(): side can only be 'left' or "
                            "'right' but got ", side);
    if (right && side != "right")
      return Error::failure("torch.searchsorted(): side and right can't be set "
                            "to opposites, got side of ", side,
                            " while right was True");
    right = side == "right";
  }
  if (a.input)
    if (Error err = requireSameDevice(*a.input, "self", bd.device(),
                                      "sorted_sequence"))
      return err;
  if (a.sorter) {
    const Tensor &s = *a.sorter;
    if (Error err = requireSameDevice(s, "sorter", bd.device(), "sorted_sequence"))
      return err;
    if (!std::equal(s.sizes().begin(), s.sizes().end(), bd.sizes().begin(),
                    bd.sizes().end()))
      return Error::failure("torch.searchsorted(): boundary and sorter must "
                            "have the same size, but got boundary tensor ",
                            shapeString(bd.sizes()), " and got sorter tensor ",
                            shapeString(s.sizes()));
    if (s.dtype() != ScalarType::Int64)
      return Error::failure("torch.searchsorted(): sorter must be a tensor of "
                            "long dtype but got dtype ", dtypeName(s.dtype()));
  }
  const int64_t inputDim = a.input ? a.input->dim() : 0;
  if (inputDim == 0 && bd.dim() != 1)
    return Error::failure("torch.searchsorted(): input value can be a scalar "
                          "only when boundaries tensor dimension is 1, but we "
                          "got boundaries tensor dim(", bd.dim(),
                          ") and input value's dim(0) numel(1)");
  if (bd.dim() == 0)
    return Error::failure("torch.searchsorted(): boundaries tensor should have "
                          "positive dimension, but got 0 dimension");
  if (bd.dim() != 1) {
    bool matched = a.input->dim() == bd.dim();
    for (int64_t d = 0; matched && d + 1 < bd.dim(); ++d)
      matched = bd.sizes()[d] == a.input->sizes()[d];
    if (!matched)
      return Error::failure(
          "torch.searchsorted(): boundaries tensor should be 1 dimension or "
          "the first N-1 dimensions of boundaries tensor and input value "
          "tensor must match, but we got boundaries tensor ",
          shapeString(bd.sizes()), " and input value tensor ",
          shapeString(a.input->sizes()));
  }
  const int64_t length = bd.sizes().back();
  if (a.outInt32 && length >= INT_MAX)
    return Error::failure("torch.searchsorted(): the size of boundaries' last "
                          "dimension should be less than ", INT_MAX,
                          ", but we got ", length);

  // The comparison dtype: boundaries (never 0-d) with the values, a 0-d
  // value or the wrapped Scalar taking part only across categories.
  std::optional<ScalarType> common;
  if (!a.input)
    common = combineCategories(bd.dtype(), ScalarType::Float32);
  else if (a.input->dim() > 0)
    common = promote(bd.dtype(), a.input->dtype());
  else if (promote(bd.dtype(), a.input->dtype())) // both dtypes known
    common = combineCategories(bd.dtype(), a.input->dtype());
  if (!common || !isSearchDtype(*common))
    return Error::failure(
        op, " has no ", device == DeviceType::CUDA ? "CUDA" : "CPU",
        " kernel comparing ", dtypeName(bd.dtype()), " boundaries with ",
        a.input ? dtypeName(a.input->dtype()) : "a Scalar",
        common ? std::string(" (in ") + dtypeName(*common) + ")" : std::string(),
        " (supported: uint8, int8, int16, int32, int64, float16, bfloat16, "
        "float32, float64)");

  // On CUDA the search checks the sorter itself, without waiting.
  if (device == DeviceType::CPU && a.sorter && a.sorter->numel() > 0)
    if (Error err = ops::cpu::checkSorter(*a.sorter, length))
      return Error::failure("torch.searchsorted(): sorter index out of range (",
                            err.message(), ")");

  const ScalarType outType = a.outInt32 ? ScalarType::Int32 : ScalarType::Int64;
  const std::span<const int64_t> outSizes =
      a.input ? a.input->sizes() : std::span<const int64_t>();
  Expected<Tensor> out = Tensor::emptyContiguous(outSizes, outType, bd.device());
  if (!out)
    return out.takeError();

  SearchSorted problem;
  problem.common = *common;
  problem.values = a.input ? a.input->numel() : 1;
  problem.valuesPerRow =
      a.input && a.input->dim() > 0 ? a.input->sizes().back() : 1;
  problem.boundaryLength = length;
  problem.oneRow = bd.dim() == 1;
  problem.right = right;
  problem.scalarInput = !a.input;
  problem.scalar = a.scalar;
  if (problem.values > 0) {
    Expected<Tensor> boundaries = contiguousOf(bd);
    if (!boundaries)
      return boundaries.takeError();
    std::optional<Tensor> input, sorter;
    if (a.input) {
      Expected<Tensor> in = contiguousOf(*a.input);
      if (!in)
        return in.takeError();
      input = std::move(*in);
    }
    if (a.sorter) {
      Expected<Tensor> s = contiguousOf(*a.sorter);
      if (!s)
        return s.takeError();
      sorter = std::move(*s);
    }
    const Tensor *in = input ? &*input : nullptr;
    const Tensor *st = sorter ? &*sorter : nullptr;
    Error err = device == DeviceType::CPU
                    ? ops::cpu::searchSorted(*out, in, *boundaries, st, problem)
                    : ops::cuda::searchSorted(*out, in, *boundaries, st, problem);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error searchEntry(DeviceType device, AtenTensorHandle sortedSequence,
                  AtenTensorHandle self, bool scalarForm, double scalar,
                  int32_t outInt32, int32_t right, const char **side,
                  AtenTensorHandle *sorter, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<std::array<Tensor *, 3>> tensors =
      fromHandles({{sortedSequence, "sorted_sequence"},
                   {self, "self", !scalarForm},
                   optionalTensorArg(sorter, "sorter")});
  if (!tensors)
    return tensors.takeError();
  SearchArgs a;
  a.boundaries = (*tensors)[0];
  a.input = (*tensors)[1];
  a.sorter = (*tensors)[2];
  a.scalar = scalar;
  a.outInt32 = outInt32 != 0;
  a.right = right != 0;
  a.side = side ? *side : nullptr;
  return runSearch(device, "searchsorted", a, ret0);
}

Error bucketizeEntry(DeviceType device, AtenTensorHandle self,
                     AtenTensorHandle boundaries, int32_t outInt32,
                     int32_t right, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<std::array<Tensor *, 2>> tensors =
      fromHandles({{self, "self"}, {boundaries, "boundaries"}});
  if (!tensors)
    return tensors.takeError();
  auto [in, bd] = *tensors;
  if (Error err = requireDevice(*bd, "boundaries", device, "bucketize"))
    return err;
  if (bd->dim() != 1)
    return Error::failure("boundaries tensor must be 1 dimension, but got dim(",
                          bd->dim(), ")");
  SearchArgs a;
  a.boundaries = bd;
  a.input = in;
  a.outInt32 = outInt32 != 0;
  a.right = right != 0;
  return runSearch(device, "bucketize", a, ret0);
}

// --- histc ---------------------------------------------------------------------

bool isCpuHistDtype(ScalarType t) { return isFloating(t); }
bool isCudaHistcDtype(ScalarType t) {
  return isIntegral(t) || t == ScalarType::Float32 || t == ScalarType::Float64;
}

Error runHistc(DeviceType device, AtenTensorHandle selfHandle, int64_t bins,
               double min, double max, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = fromHandle(selfHandle, "self");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDevice(self, "self", device, "histc"))
    return err;
  const ScalarType t = self.dtype();
  if (device == DeviceType::CPU && !isCpuHistDtype(t))
    return Error::failure("\"histogram_cpu\" not implemented for ",
                          dtypeName(t), " (histc on the CPU takes float16, "
                          "bfloat16, float32 and float64)");
  if (device == DeviceType::CUDA && t == ScalarType::Float16)
    return Error::failure("histc on CUDA: HalfTensor is not supported");
  if (device == DeviceType::CUDA && !isCudaHistcDtype(t))
    return Error::failure("\"histc\" not implemented for ", dtypeName(t),
                          " on CUDA (supported: uint8, int8, int16, int32, "
                          "int64, float32, float64)");
  if (bins <= 0)
    return Error::failure("histc(): bins must be > 0, but got ", bins);
  if (!(max >= min))
    return Error::failure("histc(): max must be larger than min (min ",
                          number(min), ", max ", number(max), ")");

  double low = min, high = max;
  if (device == DeviceType::CUDA) {
    // torch's bounds are min/max converted to the accumulation type.
    const ScalarType bounds = isIntegral(t) ? ScalarType::Int64 : t;
    if (overflows(low, bounds))
      return refuseOverflow(low, bounds);
    if (overflows(high, bounds))
      return refuseOverflow(high, bounds);
    if (isIntegral(t)) {
      low = std::trunc(low);
      high = std::trunc(high);
    } else {
      low = roundToDtype(low, t);
      high = roundToDtype(high, t);
    }
  }
  // The data's range: read on the CPU; on CUDA settled by the device,
  // which also widens and checks it (ops/cuda/search.cu).
  const bool fromDevice =
      device == DeviceType::CUDA && low == high && self.numel() > 0;
  if (device == DeviceType::CPU && low == high && self.numel() > 0) {
    Expected<ValueRange> range = ops::cpu::valueRange(self);
    if (!range)
      return range.takeError();
    low = range->low;
    high = range->high;
  }
  if (!fromDevice) {
    if (low == high) {
      low -= 1;
      high += 1;
    }
    if (!std::isfinite(low) || !std::isfinite(high))
      return Error::failure("torch.histc: range of [", number(low), ", ",
                            number(high), "] is not finite");
    if (!(low < high))
      return Error::failure("torch.histc: max must be larger than min");
  }
  if (device == DeviceType::CPU) {
    // linspace's endpoints: the bounds converted to self's dtype.
    if (overflows(low, t))
      return refuseOverflow(low, t);
    if (overflows(high, t))
      return refuseOverflow(high, t);
    low = roundToDtype(low, t);
    high = roundToDtype(high, t);
  }

  Expected<Tensor> hist =
      Tensor::emptyContiguous(std::span<const int64_t>(&bins, 1), t, self.device());
  if (!hist)
    return hist.takeError();
  Histc problem{bins, low, high, fromDevice};
  Error err = device == DeviceType::CPU
                  ? ops::cpu::histc(*hist, self, problem)
                  : ops::cuda::histc(*hist, self, problem);
  if (err)
    return err;
  *ret0 = toHandle(std::move(*hist));
  return Error::success();
}

// --- histogram (CPU) -------------------------------------------------------------

// The outer edges of each of N dimensions: torch's select_outer_bin_edges.
Error outerEdges(const Tensor &rows, int64_t n, const double *range,
                 int64_t rangeLen, std::vector<double> &low,
                 std::vector<double> &high) {
  low.assign(static_cast<size_t>(n), 0.0);
  high.assign(static_cast<size_t>(n), 1.0);
  if (range) {
    if (rangeLen != 2 * n)
      return Error::failure("torch.histogramdd: for a ", n,
                            "-dimensional histogram range should have ", 2 * n,
                            " elements, but got ", rangeLen);
    for (int64_t d = 0; d < n; ++d) {
      low[d] = range[2 * d];
      high[d] = range[2 * d + 1];
    }
  } else if (rows.numel() > 0) {
    if (rows.dtype() != ScalarType::Float32 && rows.dtype() != ScalarType::Float64)
      return Error::failure("\"histogramdd\" not implemented for ",
                            dtypeName(rows.dtype()),
                            " without a range (torch infers the range for "
                            "float32 and float64 only)");
    if (Error err = cpu::columnRanges(rows, low, high))
      return err;
  }
  for (int64_t d = 0; d < n; ++d) {
    if (!std::isfinite(low[d]) || !std::isfinite(high[d]))
      return Error::failure("torch.histogramdd: dimension ", d, "'s range [",
                            number(low[d]), ", ", number(high[d]),
                            "] is not finite");
    if (!(low[d] <= high[d]))
      return Error::failure("torch.histogramdd: min should not exceed max, but "
                            "got min ", number(low[d]), " max ",
                            number(high[d]), " for dimension ", d);
    if (low[d] == high[d]) {
      low[d] -= 0.5;
      high[d] += 0.5;
    }
  }
  return Error::success();
}

// histogramdd over `self` read as [M, N] rows; `binCounts` has N entries.
// Writes the histogram (sizes binCounts) and the N edge tensors.
Error histogramRows(const Tensor &self, const Tensor &rows,
                    const std::vector<int64_t> &binCounts, const double *range,
                    int64_t rangeLen, const Tensor *weight,
                    std::span<const int64_t> expectedWeightSizes,
                    bool weightByNumel, bool density, Tensor &hist,
                    std::vector<Tensor> &edges) {
  const int64_t n = rows.sizes()[1];
  const ScalarType t = self.dtype();
  if (!isCpuHistDtype(t))
    return Error::failure("\"histogram_cpu\" not implemented for ", dtypeName(t),
                          " (supported: float16, bfloat16, float32, float64)");
  for (int64_t d = 0; d < n; ++d)
    if (binCounts[d] <= 0)
      return Error::failure("torch.histogram(): bins must be > 0, but got ",
                            binCounts[d], " for dimension ", d);
  std::vector<double> low, high;
  if (Error err = outerEdges(rows, n, range, rangeLen, low, high))
    return err;
  std::optional<Tensor> weightRows;
  if (weight) {
    if (weight->dtype() != t)
      return Error::failure("torch.histogramdd: if weight tensor is provided, "
                            "input tensor and weight tensor should have the "
                            "same dtype, but got input(", dtypeName(t),
                            "), and weight(", dtypeName(weight->dtype()), ")");
    // histogram reshapes weight to [numel] first; histogramdd compares its
    // sizes (a 0-d weight counting as [1]).
    const std::vector<int64_t> given =
        weightByNumel ? std::vector<int64_t>{weight->numel()}
        : weight->dim() == 0
            ? std::vector<int64_t>{1}
            : std::vector<int64_t>(weight->sizes().begin(), weight->sizes().end());
    if (!std::equal(given.begin(), given.end(), expectedWeightSizes.begin(),
                    expectedWeightSizes.end()))
      return Error::failure("torch.histogramdd: if weight tensor is provided it "
                            "should have the same shape as the input tensor "
                            "excluding its innermost dimension, but got input "
                            "with shape ", shapeString(self.sizes()),
                            " and weight with shape ",
                            shapeString(weight->sizes()));
    Expected<Tensor> w = contiguousOf(*weight);
    if (!w)
      return w.takeError();
    weightRows = std::move(*w);
  }
  for (int64_t d = 0; d < n; ++d) {
    // linspace converts its endpoints with c10's checked conversion.
    if (overflows(low[d], t))
      return refuseOverflow(low[d], t);
    if (overflows(high[d], t))
      return refuseOverflow(high[d], t);
  }
  Expected<Tensor> h = Tensor::emptyContiguous(binCounts, t, self.device());
  if (!h)
    return h.takeError();
  edges.clear();
  for (int64_t d = 0; d < n; ++d) {
    const int64_t count = binCounts[d] + 1;
    Expected<Tensor> e = Tensor::emptyContiguous(
        std::span<const int64_t>(&count, 1), t, self.device());
    if (!e)
      return e.takeError();
    if (Error err = cpu::linspaceEdges(*e, low[d], high[d]))
      return err;
    edges.push_back(std::move(*e));
  }
  if (Error err = cpu::histogramdd(*h, rows, weightRows ? &*weightRows : nullptr,
                                   edges, density))
    return err;
  hist = std::move(*h);
  return Error::success();
}

// self as a contiguous [M, N] tensor (a reshape: a copy when self is not
// contiguous).
Expected<Tensor> rowsOf(const Tensor &self, int64_t n) {
  Expected<Tensor> contiguous = contiguousOf(self);
  if (!contiguous)
    return contiguous.takeError();
  const int64_t m = n > 0 ? self.numel() / n : [&] {
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < self.dim(); ++d)
      rows *= self.sizes()[d];
    return rows;
  }();
  const int64_t sizes[] = {m, n};
  const int64_t strides[] = {n, 1};
  return Tensor::make(contiguous->storage(), self.dtype(), sizes, strides,
                      contiguous->storageOffset());
}

Error runHistogramBinCt(AtenTensorHandle selfHandle, int64_t bins,
                        const double **range, int64_t rangeLen,
                        AtenTensorHandle *weightHandle, int32_t density,
                        AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  if (Error err = requireOutput(ret1, "ret1"))
    return err;
  Expected<std::array<Tensor *, 2>> tensors = fromHandles(
      {{selfHandle, "self"}, optionalTensorArg(weightHandle, "weight")});
  if (!tensors)
    return tensors.takeError();
  auto [selfP, weight] = *tensors;
  const Tensor &self = *selfP;
  if (Error err = requireDevice(self, "self", DeviceType::CPU, "histogram"))
    return err;
  if (weight)
    if (Error err = requireSameDevice(*weight, "weight", self.device(), "self"))
      return err;
  Expected<Tensor> rows = rowsOf(self, 1);
  if (!rows)
    return rows.takeError();
  const int64_t m = self.numel();
  Tensor hist = *rows; // replaced below
  std::vector<Tensor> edges;
  Error err = histogramRows(self, *rows, {bins}, range ? *range : nullptr,
                            rangeLen, weight, std::span<const int64_t>(&m, 1),
                            /*weightByNumel=*/true, density != 0, hist, edges);
  if (err)
    return err;
  *ret0 = toHandle(std::move(hist));
  *ret1 = toHandle(std::move(edges[0]));
  return Error::success();
}

Error runHistogramdd(AtenTensorHandle selfHandle, const int64_t *bins,
                     int64_t binsLen, const double **range, int64_t rangeLen,
                     AtenTensorHandle *weightHandle, int32_t density,
                     AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<std::array<Tensor *, 2>> tensors = fromHandles(
      {{selfHandle, "self"}, optionalTensorArg(weightHandle, "weight")});
  if (!tensors)
    return tensors.takeError();
  auto [selfP, weight] = *tensors;
  const Tensor &self = *selfP;
  if (Error err = requireDevice(self, "self", DeviceType::CPU, "histogramdd"))
    return err;
  if (weight)
    if (Error err = requireSameDevice(*weight, "weight", self.device(), "self"))
      return err;
  if (self.dim() < 2)
    return Error::failure("torch.histogramdd: input tensor should have at "
                          "least 2 dimensions, but got ", self.dim());
  const int64_t n = self.sizes().back();
  if (binsLen != n)
    return Error::failure("torch.histogramdd: expected ", n,
                          " sequences of bin edges for a ", n,
                          "-dimensional histogram but got ", binsLen);
  if (binsLen > 0 && !bins)
    return Error::failure("'bins' is null");
  const std::vector<int64_t> binCounts(bins, bins + binsLen);
  Expected<Tensor> rows = rowsOf(self, n);
  if (!rows)
    return rows.takeError();
  const std::vector<int64_t> weightSizes(self.sizes().begin(),
                                         self.sizes().end() - 1);
  Tensor hist = *rows;
  std::vector<Tensor> edges;
  Error err = histogramRows(self, *rows, binCounts, range ? *range : nullptr,
                            rangeLen, weight, weightSizes,
                            /*weightByNumel=*/false, density != 0, hist, edges);
  if (err)
    return err;
  *ret0 = toHandle(std::move(hist));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_searchsorted_Tensor(
    AtenTensorHandle sorted_sequence, AtenTensorHandle self, int32_t out_int32,
    int32_t right, const char **side, AtenTensorHandle *sorter,
    AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return searchEntry(DeviceType::CPU, sorted_sequence, self, false, 0.0,
                       out_int32, right, side, sorter, ret0);
  });
}

AOTITorchError aoti_torch_cuda_searchsorted_Tensor(
    AtenTensorHandle sorted_sequence, AtenTensorHandle self, int32_t out_int32,
    int32_t right, const char **side, AtenTensorHandle *sorter,
    AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return searchEntry(DeviceType::CUDA, sorted_sequence, self, false, 0.0,
                       out_int32, right, side, sorter, ret0);
  });
}

AOTITorchError aoti_torch_cpu_searchsorted_Scalar(
    AtenTensorHandle sorted_sequence, double self, int32_t out_int32,
    int32_t right, const char **side, AtenTensorHandle *sorter,
    AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return searchEntry(DeviceType::CPU, sorted_sequence, nullptr, true, self,
                       out_int32, right, side, sorter, ret0);
  });
}

AOTITorchError aoti_torch_cuda_searchsorted_Scalar(
    AtenTensorHandle sorted_sequence, double self, int32_t out_int32,
    int32_t right, const char **side, AtenTensorHandle *sorter,
    AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return searchEntry(DeviceType::CUDA, sorted_sequence, nullptr, true, self,
                       out_int32, right, side, sorter, ret0);
  });
}

AOTITorchError aoti_torch_cpu_bucketize_Tensor(AtenTensorHandle self,
                                               AtenTensorHandle boundaries,
                                               int32_t out_int32, int32_t right,
                                               AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return bucketizeEntry(DeviceType::CPU, self, boundaries, out_int32, right,
                          ret0);
  });
}

AOTITorchError aoti_torch_cuda_bucketize_Tensor(AtenTensorHandle self,
                                                AtenTensorHandle boundaries,
                                                int32_t out_int32, int32_t right,
                                                AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return bucketizeEntry(DeviceType::CUDA, self, boundaries, out_int32, right,
                          ret0);
  });
}

AOTITorchError aoti_torch_cpu_histc(AtenTensorHandle self, int64_t bins,
                                    double min, double max,
                                    AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runHistc(DeviceType::CPU, self, bins, min, max, ret0);
  });
}

AOTITorchError aoti_torch_cuda_histc(AtenTensorHandle self, int64_t bins,
                                     double min, double max,
                                     AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runHistc(DeviceType::CUDA, self, bins, min, max, ret0);
  });
}

AOTITorchError aoti_torch_cpu_histogram_bin_ct(
    AtenTensorHandle self, int64_t bins, const double **range,
    int64_t range_len_, AtenTensorHandle *weight, int32_t density,
    AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
  return runShim(__func__, [&] {
    return runHistogramBinCt(self, bins, range, range_len_, weight, density,
                             ret0, ret1);
  });
}

AOTITorchError aoti_torch_cpu__histogramdd_from_bin_cts(
    AtenTensorHandle self, const int64_t *bins, int64_t bins_len_,
    const double **range, int64_t range_len_, AtenTensorHandle *weight,
    int32_t density, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runHistogramdd(self, bins, bins_len_, range, range_len_, weight,
                          density, ret0);
  });
}

} // extern "C"
