//===- ops/scatter.cpp - scatter and scatter_reduce: checks, entry points -===//
//
// aoti_torch_{cpu,cuda}_scatter_src_out(out, self, dim, index, src),
// scatter_value_out(out, self, dim, index, value) and
// scatter_reduce_two_out(out, self, dim, index, src, reduce, include_self),
// torch 2.11's generated signatures. What they settle before any device
// work, following ATen's scatter_meta_impl, scatter_gather_dtype_check and
// scatter_shape_check (ScatterGatherChecks.h) and scatter_impl:
//  - dim is wrapped against self (a 0-d self takes 0 and -1);
//  - a non-empty index is int64 or int32; src has self's dtype;
//  - a non-empty index has self's rank (0-d counting as 1-d), and
//    index.size(d) <= self.size(d) for d != dim, index.size(d) <=
//    src.size(d) for every d, src with index's rank; an empty index skips
//    these checks and scatters nothing;
//  - reduce is one of "sum", "prod", "mean", "amax", "amin";
//  - out is the caller's tensor: self's sizes (torch would resize it; a
//    compiled model always passes the right size, so another is refused),
//    self's dtype and device, no element written twice (a stride-0
//    dimension) and no memory shared with index or src (torch's
//    assert_no_internal_overlap / assert_no_overlap);
//  - the value form converts value to self's dtype with c10's checked
//    conversion: a value the dtype cannot hold (300 into uint8, NaN into an
//    integer, 1e39 into float32, 2 into bool) is refused as torch refuses
//    it.
// Then, on the CPU, every index value is checked against out.size(dim)
// before out is written (torch checks during its loop; failing first
// leaves out untouched); on CUDA the kernels check as they go, skipping
// and recording a bad element without waiting (ops/checks.h), unless
// AOTI_SHIMS_CUDA_CHECKS=sync, which checks first as the CPU does. self is
// copied into out (unless they are the same view), and the device
// scatters. Dtypes: bool, uint8, int8, int16, int32, int64,
// float16, bfloat16, float32, float64 on both devices (torch's
// ALL_TYPES_AND3(Bool, Half, BFloat16) dispatch, less complex); "mean" is
// refused for bool (torch's CPU kernel has no bool mean, and its floor
// division of the counts has none either).
//
// segment_reduce(data, reduce, lengths, indices, offsets, axis, unsafe,
// initial), following ATen's segment_reduce_kernel: axis is wrapped
// against data; indices are refused ("not supported yet", as in torch);
// offsets win over lengths when both are given; reduce is "max"/"amax",
// "mean", "min"/"amin", "sum" or "prod"; the lengths or offsets tensor is
// on data's device, int32 or int64, has at most data's rank and axis as
// its last dimension, and (ours: torch would read out of bounds) its
// leading sizes equal data's before axis. Lengths must be >= 0 and,
// unless unsafe, each row must sum to data.size(axis) (torch's checks);
// either way they may not run past it, and offsets must not decrease or
// leave [0, data.size(axis)] (torch does not check; its kernel would read
// out of bounds). On the CPU these values are checked and turned into a
// table of segment bounds here. On CUDA they are never read back (torch's
// min().item() and sum().item() wait; ours do not): the device scans
// lengths into bounds and checks them, or reads offsets directly, and a
// bad value is recorded and clamped (ops/checks.h; with
// AOTI_SHIMS_CUDA_CHECKS=sync the call fails with these messages; of
// offsets only those a non-empty result reads are checked). initial is
// converted to data's dtype as c10 converts a Scalar (checked). The
// result is a new contiguous tensor of data's sizes with axis replaced by
// the segment count (torch's meta). Dtypes: float16, bfloat16, float32,
// float64 (torch's FLOATING_TYPES_AND2(Half, BFloat16) on both devices).
//
//===----------------------------------------------------------------------===//
#include "ops/scatter.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "copy.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

#include <cmath>
#include <cstring>
#include <limits>
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

const char *deviceWord(DeviceType type) {
  return type == DeviceType::CUDA ? "CUDA" : "CPU";
}

bool isScatterDtype(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
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

// torch's ensure_nonempty_size / ensure_nonempty_stride.
int64_t sizeAt(const Tensor &t, int64_t d) {
  return t.dim() == 0 ? 1 : t.sizes()[static_cast<size_t>(d)];
}
int64_t strideAt(const Tensor &t, int64_t d) {
  return t.dim() == 0 ? 1 : t.strides()[static_cast<size_t>(d)];
}
int64_t rankOf(const Tensor &t) { return t.dim() > 0 ? t.dim() : 1; }

// The bytes a view can touch, from its lowest to its highest address.
struct ByteRange {
  uintptr_t begin = 0, end = 0;
};
ByteRange bytesOf(const Tensor &t) {
  ByteRange range;
  if (t.numel() == 0)
    return range;
  int64_t low = 0, high = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
    (span < 0 ? low : high) += span;
  }
  const auto base = reinterpret_cast<uintptr_t>(t.data());
  range.begin = base + static_cast<uintptr_t>(low) * t.itemSize();
  range.end = base + static_cast<uintptr_t>(high + 1) * t.itemSize();
  return range;
}

// torch's assert_no_overlap: refuses two dense views of one storage that
// share bytes (torch gives up, and allows, when either is not dense).
Error requireNoOverlap(const Tensor &out, const Tensor &other,
                       const char *name) {
  if (out.storage() != other.storage() || out.numel() == 0 ||
      other.numel() == 0 || !out.isNonOverlappingAndDense() ||
      !other.isNonOverlappingAndDense())
    return Error::success();
  const ByteRange a = bytesOf(out), b = bytesOf(other);
  if (a.begin < b.end && b.begin < a.end)
    return Error::failure("'out' and '", name,
                          "' share memory (unsupported: some elements of "
                          "the input tensor and the written-to tensor refer "
                          "to a single memory location; clone() it first)");
  return Error::success();
}

bool sameView(const Tensor &a, const Tensor &b) {
  return a.storage() == b.storage() &&
         a.storageOffset() == b.storageOffset() && a.dtype() == b.dtype() &&
         std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin(),
                    b.sizes().end()) &&
         std::equal(a.strides().begin(), a.strides().end(),
                    b.strides().begin(), b.strides().end());
}

// c10's overflows<To, double>: whether `value` cannot be converted to
// `type` (torch's Scalar::to<T>() refuses it).
bool overflows(double value, ScalarType type) {
  auto outside = [&](double lowest, double highest) {
    return std::isnan(value) || value < lowest || value > highest;
  };
  switch (type) {
  case ScalarType::Bool:
    return outside(0.0, 1.0);
  case ScalarType::UInt8:
    return outside(0.0, 255.0);
  case ScalarType::Int8:
    return outside(-128.0, 127.0);
  case ScalarType::Int16:
    return outside(-32768.0, 32767.0);
  case ScalarType::Int32:
    return outside(-2147483648.0, 2147483647.0);
  case ScalarType::Int64:
    // Doubles at or above 2^63 do not fit (2^63 - 1 rounds to 2^63).
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

Expected<ScatterOp> parseReduce(const char *reduce) {
  if (!reduce)
    return Error::failure("'reduce' is null");
  const std::string name = reduce;
  if (name == "sum")
    return ScatterOp::Sum;
  if (name == "prod")
    return ScatterOp::Prod;
  if (name == "mean")
    return ScatterOp::Mean;
  if (name == "amax")
    return ScatterOp::Amax;
  if (name == "amin")
    return ScatterOp::Amin;
  return Error::failure("reduce argument must be either sum, prod, mean, amax "
                        "or amin (got '", name, "')");
}

ScatterLines linesOf(const Tensor &out, const Tensor &index, const Tensor *src,
                     int64_t dim) {
  ScatterLines lines;
  lines.dim = dim;
  lines.bound = sizeAt(out, dim);
  lines.outNumel = out.numel();
  const int64_t rank = rankOf(index);
  // Row-major strides of out's logical shape.
  std::vector<int64_t> dense(static_cast<size_t>(rank), 1);
  for (int64_t d = rank - 1; d > 0; --d)
    dense[d - 1] = dense[d] * std::max<int64_t>(sizeAt(out, d), 1);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t srcStride = src ? strideAt(*src, d) : 0;
    if (d == dim) {
      lines.length = sizeAt(index, d);
      lines.indexStride = strideAt(index, d);
      lines.srcStride = srcStride;
      lines.outStride = strideAt(out, d);
      lines.denseStride = dense[d];
      continue;
    }
    lines.outerSizes.push_back(sizeAt(index, d));
    lines.indexOuterStrides.push_back(strideAt(index, d));
    lines.srcOuterStrides.push_back(srcStride);
    lines.outOuterStrides.push_back(strideAt(out, d));
    lines.denseOuterStrides.push_back(dense[d]);
    lines.lines *= sizeAt(index, d);
  }
  return lines;
}

// scatter_shape_check, for a non-empty index.
Error checkShapes(const Tensor &self, const Tensor &index, const Tensor *src,
                  int64_t dim) {
  if (rankOf(index) != rankOf(self))
    return Error::failure("Index tensor must have the same number of "
                          "dimensions as self tensor (index is ",
                          index.dim(), "-d, self is ", self.dim(), "-d)");
  if (src && rankOf(*src) != rankOf(index))
    return Error::failure("Index tensor must have the same number of "
                          "dimensions as src tensor (index is ",
                          index.dim(), "-d, src is ", src->dim(), "-d)");
  for (int64_t d = 0; d < rankOf(self); ++d) {
    const bool tooLarge =
        (d != dim && sizeAt(index, d) > sizeAt(self, d)) ||
        (src && sizeAt(index, d) > sizeAt(*src, d));
    if (!tooLarge)
      continue;
    if (src)
      return Error::failure("Expected index ", shapeString(index.sizes()),
                            " to be no larger than self ",
                            shapeString(self.sizes()), " apart from dimension ",
                            dim, " and to be no larger size than src ",
                            shapeString(src->sizes()));
    return Error::failure("Expected index ", shapeString(index.sizes()),
                          " to be no larger than self ",
                          shapeString(self.sizes()), " apart from dimension ",
                          dim);
  }
  return Error::success();
}

Error runScatter(DeviceType device, const char *op, AtenTensorHandle outHandle,
                 AtenTensorHandle selfHandle, int64_t dim,
                 AtenTensorHandle indexHandle, AtenTensorHandle srcHandle,
                 bool hasSrc, double value, const char *reduce,
                 bool includeSelf, bool reduces) {
  Expected<std::array<Tensor *, 4>> tensors = fromHandles(
      {{outHandle, "out"},
       {selfHandle, "self"},
       {indexHandle, "index"},
       {srcHandle, "src", hasSrc}});
  if (!tensors)
    return tensors.takeError();
  auto [outP, selfP, indexP, srcP] = *tensors;
  const Tensor &out = *outP, &self = *selfP, &index = *indexP;
  const Tensor *src = srcP;
  if (Error err = requireDevice(self, "self", device, op))
    return err;
  if (Error err = requireSameDevice(index, "index", self.device(), "self"))
    return err;
  if (src)
    if (Error err = requireSameDevice(*src, "src", self.device(), "self"))
      return err;
  if (Error err = requireSameDevice(out, "out", self.device(), "self"))
    return err;

  Expected<int64_t> wrapped = wrapDim(dim, self.dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  dim = *wrapped;

  const bool indexEmpty = index.numel() == 0;
  if (!indexEmpty && index.dtype() != ScalarType::Int64 &&
      index.dtype() != ScalarType::Int32)
    return Error::failure("scatter(): Expected dtype int32/int64 for index "
                          "(got ", dtypeName(index.dtype()), ")");
  if (src && src->dtype() != self.dtype())
    return Error::failure("scatter(): Expected self.dtype to be equal to "
                          "src.dtype (self is ", dtypeName(self.dtype()),
                          ", src is ", dtypeName(src->dtype()), ")");
  if (!indexEmpty)
    if (Error err = checkShapes(self, index, src, dim))
      return err;

  ScatterWork work;
  work.src = src;
  work.value = value;
  work.includeSelf = includeSelf;
  if (reduces) {
    Expected<ScatterOp> parsed = parseReduce(reduce);
    if (!parsed)
      return parsed.takeError();
    work.op = *parsed;
  }

  if (!std::equal(out.sizes().begin(), out.sizes().end(),
                  self.sizes().begin(), self.sizes().end()))
    return Error::failure("'out' has sizes ", shapeString(out.sizes()),
                          " but the result has self's sizes ",
                          shapeString(self.sizes()),
                          " (resizing an out= tensor is not supported)");
  if (out.dtype() != self.dtype())
    return Error::failure("Expected out tensor to have dtype ",
                          dtypeName(self.dtype()), ", but got ",
                          dtypeName(out.dtype()), " instead");
  for (int64_t d = 0; d < out.dim(); ++d)
    if (out.sizes()[d] > 1 && out.strides()[d] == 0)
      return Error::failure("'out' has stride 0 in dimension ", d,
                            " (unsupported: more than one element of the "
                            "written-to tensor refers to a single memory "
                            "location)");
  if (Error err = requireNoOverlap(out, index, "index"))
    return err;
  if (src)
    if (Error err = requireNoOverlap(out, *src, "src"))
      return err;

  if (!isScatterDtype(self.dtype()))
    return Error::failure(op, " has no ", deviceWord(device), " kernel for ",
                          dtypeName(self.dtype()));
  if (work.op == ScatterOp::Mean && self.dtype() == ScalarType::Bool)
    return Error::failure("scatter_reduce 'mean' is not implemented for bool");
  if (!src && overflows(value, self.dtype())) {
    std::ostringstream shown;
    shown << value;
    return Error::failure("value cannot be converted to type ",
                          dtypeName(self.dtype()),
                          " without overflow: ", shown.str());
  }

  // An empty index was not shape-checked: it scatters nothing, and its
  // lines are never built (its rank may differ from self's).
  ScatterLines lines;
  if (!indexEmpty) {
    lines = linesOf(out, index, src, dim);
    Error err = device == DeviceType::CPU
                    ? ops::cpu::checkScatterIndex(index, lines)
                    : ops::cuda::checkScatterIndex(index, lines);
    if (err)
      return err;
  }
  if (!sameView(out, self))
    if (Error err = copyTensor(out, self, /*nonBlocking=*/true))
      return err;
  if (indexEmpty || out.numel() == 0)
    return Error::success();
  return device == DeviceType::CPU ? ops::cpu::scatter(out, index, lines, work)
                                   : ops::cuda::scatter(out, index, lines, work);
}

// --- segment_reduce --------------------------------------------------------

Expected<SegmentOp> parseSegmentReduce(const char *reduce) {
  if (!reduce)
    return Error::failure("'reduce' is null");
  const std::string name = reduce;
  if (name == "max" || name == "amax")
    return SegmentOp::Max;
  if (name == "mean")
    return SegmentOp::Mean;
  if (name == "min" || name == "amin")
    return SegmentOp::Min;
  if (name == "sum")
    return SegmentOp::Sum;
  if (name == "prod")
    return SegmentOp::Prod;
  return Error::failure("reduce argument must be either sum, prod, mean, amax "
                        "or amin, got ", name);
}

// `t`'s values, row-major, as int64 (a CPU tensor of int32 or int64).
Expected<std::vector<int64_t>> hostIndexValues(const Tensor &t) {
  Expected<Tensor> host = Tensor::emptyContiguous(t.sizes(), t.dtype(), Device{});
  if (!host)
    return host.takeError();
  if (Error err = copyTensor(*host, t, /*nonBlocking=*/false))
    return err;
  std::vector<int64_t> values(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < values.size(); ++k)
    values[k] = t.dtype() == ScalarType::Int32
                    ? static_cast<const int32_t *>(host->data())[k]
                    : static_cast<const int64_t *>(host->data())[k];
  return values;
}

Error runSegmentReduce(DeviceType device, AtenTensorHandle dataHandle,
                       const char *reduce, AtenTensorHandle *lengthsHandle,
                       AtenTensorHandle *indicesHandle,
                       AtenTensorHandle *offsetsHandle, int64_t axis,
                       bool unsafe, const double *initial,
                       AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<std::array<Tensor *, 4>> tensors =
      fromHandles({{dataHandle, "data"},
                   optionalTensorArg(lengthsHandle, "lengths"),
                   optionalTensorArg(indicesHandle, "indices"),
                   optionalTensorArg(offsetsHandle, "offsets")});
  if (!tensors)
    return tensors.takeError();
  auto [dataP, lengths, indices, offsets] = *tensors;
  const Tensor &data = *dataP;
  if (Error err = requireDevice(data, "data", device, "segment_reduce"))
    return err;
  Expected<int64_t> wrapped = wrapDim(axis, data.dim(), "axis");
  if (!wrapped)
    return wrapped.takeError();
  axis = *wrapped;
  if (indices)
    return Error::failure("segment_reduce(): indices based reduction is not "
                          "supported yet.");
  if (!lengths && !offsets)
    return Error::failure("segment_reduce(): Either lengths or offsets must be "
                          "defined.");
  Expected<SegmentOp> op = parseSegmentReduce(reduce);
  if (!op)
    return op.takeError();
  const bool byOffsets = offsets != nullptr;
  const Tensor &seg = byOffsets ? *offsets : *lengths;
  const char *segName = byOffsets ? "offsets" : "lengths";
  if (Error err = requireSameDevice(seg, segName, data.device(), "data"))
    return err;
  if (data.dim() < seg.dim())
    return Error::failure("segment_reduce(): ", segName, " has ", seg.dim(),
                          " dimensions, more than data's ", data.dim());
  if (axis != seg.dim() - 1)
    return Error::failure("segment_reduce(): Expected axis to be the last "
                          "dimension of ", segName, " but got ", axis, ".");
  const ScalarType t = data.dtype();
  if (t != ScalarType::Float16 && t != ScalarType::BFloat16 &&
      t != ScalarType::Float32 && t != ScalarType::Float64)
    return Error::failure("segment_reduce has no ",
                          device == DeviceType::CUDA ? "CUDA" : "CPU",
                          " kernel for ", dtypeName(t),
                          " (supported: float16, bfloat16, float32, float64)");
  if (seg.dtype() != ScalarType::Int32 && seg.dtype() != ScalarType::Int64)
    return Error::failure("segment_reduce(): ", segName, " must be int32 or "
                          "int64, got ", dtypeName(seg.dtype()));
  for (int64_t d = 0; d < axis; ++d)
    if (seg.sizes()[d] != data.sizes()[d])
      return Error::failure("segment_reduce(): ", segName, " has sizes ",
                            shapeString(seg.sizes()),
                            " but data's sizes before axis are ",
                            shapeString(data.sizes().first(axis)));
  const int64_t width = seg.sizes().back();
  if (byOffsets && width == 0)
    return Error::failure("segment_reduce(): offsets need at least one value "
                          "along axis");
  if (initial && overflows(*initial, t)) {
    std::ostringstream shown;
    shown << *initial;
    return Error::failure("value cannot be converted to type ", dtypeName(t),
                          " without overflow: ", shown.str());
  }

  SegmentReduce problem;
  problem.op = *op;
  problem.dataAxis = data.sizes()[axis];
  problem.segments = byOffsets ? width - 1 : width;
  for (int64_t d = 0; d < axis; ++d)
    problem.outer *= data.sizes()[d];
  for (int64_t d = axis + 1; d < data.dim(); ++d)
    problem.inner *= data.sizes()[d];
  problem.hasInitial = initial != nullptr;
  problem.initial = initial ? *initial : 0.0;

  std::vector<int64_t> outSizes(data.sizes().begin(), data.sizes().end());
  outSizes[axis] = problem.segments;
  if (device == DeviceType::CUDA) {
    Expected<Tensor> out = Tensor::emptyContiguous(outSizes, t, data.device());
    if (!out)
      return out.takeError();
    Expected<Tensor> dense =
        data.isContiguous() ? Expected<Tensor>(data) : cloneContiguous(data);
    if (!dense)
      return dense.takeError();
    Expected<Tensor> segments =
        seg.isContiguous() ? Expected<Tensor>(seg) : cloneContiguous(seg);
    if (!segments)
      return segments.takeError();
    if (Error err = ops::cuda::segmentReduce(*out, *dense, *segments,
                                             byOffsets, unsafe, problem))
      return err;
    *ret0 = toHandle(std::move(*out));
    return Error::success();
  }

  Expected<std::vector<int64_t>> values = hostIndexValues(seg);
  if (!values)
    return values.takeError();
  const int64_t rows = problem.outer, stride = problem.segments + 1;
  std::vector<int64_t> bounds(static_cast<size_t>(rows * stride));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t *row = values->data() + r * width;
    int64_t *b = bounds.data() + r * stride;
    if (byOffsets) {
      for (int64_t k = 0; k < width; ++k) {
        if (row[k] < 0 || row[k] > problem.dataAxis)
          return Error::failure("segment_reduce(): offsets hold ", row[k],
                                ", outside [0, ", problem.dataAxis,
                                "] (data.size(axis))");
        if (k > 0 && row[k] < row[k - 1])
          return Error::failure("segment_reduce(): offsets must not decrease "
                                "(", row[k - 1], " then ", row[k], ")");
        b[k] = row[k];
      }
      continue;
    }
    b[0] = 0;
    for (int64_t k = 0; k < width; ++k) {
      if (row[k] < 0)
        return Error::failure("lengths contains negative value!");
      b[k + 1] = b[k] + row[k];
      if (b[k + 1] > problem.dataAxis)
        return Error::failure("segment_reduce(): lengths run past "
                              "data.size(axis) = ", problem.dataAxis);
    }
    if (!unsafe && b[width] != problem.dataAxis)
      return Error::failure("segment_reduce(): Expected all rows of lengths "
                            "along axis to sum to data.size(lengths.dim()-1) "
                            "when !unsafe.");
  }

  Expected<Tensor> out = Tensor::emptyContiguous(outSizes, t, data.device());
  if (!out)
    return out.takeError();
  if (out->numel() > 0) {
    Expected<Tensor> dense =
        data.isContiguous() ? Expected<Tensor>(data) : cloneContiguous(data);
    if (!dense)
      return dense.takeError();
    const int64_t count = static_cast<int64_t>(bounds.size()), unit = 1;
    Expected<Tensor> hostBounds = Tensor::fromBlob(
        bounds.data(), std::span<const int64_t>(&count, 1),
        std::span<const int64_t>(&unit, 1), 0, ScalarType::Int64, Device{});
    if (!hostBounds)
      return hostBounds.takeError();
    Expected<Tensor> table =
        Tensor::emptyContiguous(std::span<const int64_t>(&count, 1),
                                ScalarType::Int64, data.device());
    if (!table)
      return table.takeError();
    if (Error err = copyTensor(*table, *hostBounds, /*nonBlocking=*/false))
      return err;
    if (Error err = ops::cpu::segmentReduce(*out, *dense, *table, problem))
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_scatter_src_out(AtenTensorHandle out,
                                              AtenTensorHandle self,
                                              int64_t dim,
                                              AtenTensorHandle index,
                                              AtenTensorHandle src) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CPU, "scatter", out, self, dim, index, src,
                      true, 0.0, nullptr, true, false);
  });
}

AOTITorchError aoti_torch_cuda_scatter_src_out(AtenTensorHandle out,
                                               AtenTensorHandle self,
                                               int64_t dim,
                                               AtenTensorHandle index,
                                               AtenTensorHandle src) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CUDA, "scatter", out, self, dim, index, src,
                      true, 0.0, nullptr, true, false);
  });
}

AOTITorchError aoti_torch_cpu_scatter_value_out(AtenTensorHandle out,
                                                AtenTensorHandle self,
                                                int64_t dim,
                                                AtenTensorHandle index,
                                                double value) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CPU, "scatter", out, self, dim, index,
                      nullptr, false, value, nullptr, true, false);
  });
}

AOTITorchError aoti_torch_cuda_scatter_value_out(AtenTensorHandle out,
                                                 AtenTensorHandle self,
                                                 int64_t dim,
                                                 AtenTensorHandle index,
                                                 double value) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CUDA, "scatter", out, self, dim, index,
                      nullptr, false, value, nullptr, true, false);
  });
}

AOTITorchError aoti_torch_cpu_scatter_reduce_two_out(
    AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
    AtenTensorHandle index, AtenTensorHandle src, const char *reduce,
    int32_t include_self) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CPU, "scatter_reduce", out, self, dim, index,
                      src, true, 0.0, reduce, include_self != 0, true);
  });
}

AOTITorchError aoti_torch_cuda_scatter_reduce_two_out(
    AtenTensorHandle out, AtenTensorHandle self, int64_t dim,
    AtenTensorHandle index, AtenTensorHandle src, const char *reduce,
    int32_t include_self) {
  return runShim(__func__, [&] {
    return runScatter(DeviceType::CUDA, "scatter_reduce", out, self, dim,
                      index, src, true, 0.0, reduce, include_self != 0, true);
  });
}

AOTITorchError aoti_torch_cpu_segment_reduce(
    AtenTensorHandle data, const char *reduce, AtenTensorHandle *lengths,
    AtenTensorHandle *indices, AtenTensorHandle *offsets, int64_t axis,
    int32_t unsafe, double *initial, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runSegmentReduce(DeviceType::CPU, data, reduce, lengths, indices,
                            offsets, axis, unsafe != 0, initial, ret0);
  });
}

AOTITorchError aoti_torch_cuda_segment_reduce(
    AtenTensorHandle data, const char *reduce, AtenTensorHandle *lengths,
    AtenTensorHandle *indices, AtenTensorHandle *offsets, int64_t axis,
    int32_t unsafe, double *initial, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runSegmentReduce(DeviceType::CUDA, data, reduce, lengths, indices,
                            offsets, axis, unsafe != 0, initial, ret0);
  });
}

} // extern "C"
