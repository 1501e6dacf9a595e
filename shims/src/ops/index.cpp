//===- ops/index.cpp - Indexing fallbacks: checks and entry points --------===//
//
// The C entry points of the index family, written once for both devices.
// What each settles before any device work, following ATen (the checks and
// their wording) and torch's meta / fake implementations (the result
// layouts, which inductor compiles the reading code for):
//
//  index_Tensor(self, indices)  advanced indexing (ATen's make_info): int64
//    and int32 index tensors, bool and uint8 masks (each becomes the
//    columns of its nonzero(), one index per masked dimension; a 0-d mask
//    indexes nothing), None entries keep a dimension. The index tensors
//    broadcast together to B; when the indexed dimensions are not adjacent
//    self is transposed so that they come first (transposeToFront). The
//    result is self.shape[:before] + B + self.shape[after:]; its strides
//    are meta_index_Tensor's: contiguous for an empty self, else the
//    elementwise output layout of self restrided with 0 along B (the
//    permutation of torch._prims_common's
//    compute_elementwise_output_logical_to_physical_perm, reproduced here
//    with its quirk: after a 0-d broadcast index every later None dimension
//    counts as "before"). Negative indices wrap; out-of-range ones are
//    refused. Index tensors may be on the CPU for a CUDA self (copied).
//  index_put(self, indices, values, accumulate)  a new tensor: self cloned
//    with empty_like's strides (self's when non-overlapping and dense, else
//    ATen's infer_dense_strides), then values (self's dtype, broadcast to
//    the indexing result) put at the same offsets index would read. With
//    duplicates the last write in row-major order wins; accumulate sums.
//  nonzero(self)  int64 [n, self.dim()], strides (1, n) (ATen's CPU kernel
//    and the fake impl both use this column-major layout).
//  nonzero_static(self, size, fill_value)  [size, self.dim()]: contiguous
//    on the CPU, strides (1, size) on CUDA (meta's nonzero_static).
//  masked_select(self, mask)  self and mask broadcast; 1-d result.
//  masked_scatter(self, mask, source)  self and mask broadcast; the result
//    is contiguous (meta: empty_like(contiguous)); mask must be bool.
//  repeat_interleave_Tensor(repeats, output_size)  1-d int32/int64
//    repeats; the result has repeats' dtype.
//  index_reduce(self, dim, index, source, reduce, include_self)  a
//    contiguous copy of self reduced into; see ops/index.h.
//
// The shapes, layouts and the advanced-indexing plan are ops/index_plan.cpp's;
// this file holds the checks of each op and its entry points.
//
// Dtypes of self / values / source: bool, uint8, int8, int16, int32, int64,
// float16, bfloat16, float32, float64 (ATen's dispatch lists for these ops,
// less complex and float8); index_reduce has no bool (ATen's
// AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)).
//
//===----------------------------------------------------------------------===//
#include "ops/index.h"
#include "ops/index_plan.h"

#include "aoti/shim.h"
#include "copy.h"
#include "cuda_api.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours

#include <string>
#include <vector>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace aoti::shims::ops {
Error indexOutOfRange(const IndexOperand &operand, int64_t value) {
  return Error::failure("index ", value, " is out of bounds for dimension ",
                        operand.dim, " with size ", operand.size);
}
} // namespace aoti::shims::ops

namespace {

// --- Entry points ----------------------------------------------------------

Expected<Tensor *> selfOn(DeviceType device, AtenTensorHandle handle,
                          const char *op) {
  Expected<Tensor *> self = fromHandle(handle, "self");
  if (!self)
    return self.takeError();
  if (Error err = requireDevice(**self, "self", device, op))
    return err;
  return self;
}

Error runIndex(DeviceType device, AtenTensorHandle selfHandle,
               const AtenTensorHandle **indices, int64_t count,
               AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "index");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "index"))
    return err;
  if (count == 0)
    return Error::failure("at least one index must be provided");
  Expected<std::vector<Tensor *>> given = readIndices(indices, count);
  if (!given)
    return given.takeError();
  IndexLayout layout;
  Expected<IndexPlan> plan =
      planIndexing(self, self.strides(), *given, &layout);
  if (!plan)
    return plan.takeError();
  const std::vector<int64_t> strides =
      metaIndexStrides(layout, plan->sizes, self.numel());
  Expected<Tensor> out =
      Tensor::empty(plan->sizes, strides, self.dtype(), self.device());
  if (!out)
    return out.takeError();
  if (out->numel() > 0) {
    Error err = device == DeviceType::CPU ? ops::cpu::index(*out, self, *plan)
                                          : ops::cuda::index(*out, self, *plan);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runIndexPut(DeviceType device, AtenTensorHandle selfHandle,
                  const AtenTensorHandle **indices, int64_t count,
                  AtenTensorHandle valuesHandle, int32_t accumulate,
                  AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "index_put");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "index_put"))
    return err;
  Expected<Tensor *> valuesOr = fromHandle(valuesHandle, "values");
  if (!valuesOr)
    return valuesOr.takeError();
  Tensor values = **valuesOr;
  if (values.dtype() != self.dtype())
    return Error::failure("Index put requires the source and destination "
                          "dtypes match, got ",
                          dtypeName(self.dtype()), " for the destination and ",
                          dtypeName(values.dtype()), " for the source.");
  if (!values.device().sameMemory(self.device())) {
    if (!(values.device().isCpu() && values.dim() == 0))
      return Error::failure("'values' is on ", describe(values.device()),
                            " but 'self' is on ", describe(self.device()),
                            " (only a 0-d 'values' may be on the CPU)");
    Expected<Tensor> moved = onDevice(values, self.device());
    if (!moved)
      return moved.takeError();
    values = std::move(*moved);
  }
  Expected<std::vector<Tensor *>> given = readIndices(indices, count);
  if (!given)
    return given.takeError();
  const std::vector<int64_t> outStrides = emptyLikeStrides(self);
  Expected<Tensor> out = cloneWith(self, self.sizes(), outStrides);
  if (!out)
    return out.takeError();
  Expected<IndexPlan> plan =
      planIndexing(self, out->strides(), *given, nullptr);
  if (!plan)
    return plan.takeError();
  if (!expandableTo(values.sizes(), plan->sizes))
    return Error::failure("shape mismatch: value tensor of shape ",
                          shapeString(values.sizes()),
                          " cannot be broadcast to indexing result of shape ",
                          shapeString(plan->sizes));
  const std::vector<int64_t> valueStrides = stridesOver(values, plan->sizes);
  if (plan->numel() > 0) {
    Error err = device == DeviceType::CPU
                    ? ops::cpu::indexPut(*out, values, valueStrides, *plan,
                                         accumulate != 0)
                    : ops::cuda::indexPut(*out, values, valueStrides, *plan,
                                          accumulate != 0);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runNonzero(DeviceType device, AtenTensorHandle selfHandle,
                 AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "nonzero");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "nonzero"))
    return err;
  Expected<Tensor> out = device == DeviceType::CPU ? ops::cpu::nonzero(self)
                                                   : ops::cuda::nonzero(self);
  if (!out)
    return out.takeError();
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runNonzeroStatic(DeviceType device, AtenTensorHandle selfHandle,
                       int64_t size, int64_t fillValue,
                       AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "nonzero_static");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "nonzero_static"))
    return err;
  if (size < 0)
    return Error::failure("nonzero_static: 'size' must be an non-negative "
                          "integer (got ",
                          size, ")");
  const int64_t sizes[] = {size, self.dim()};
  // The CPU kernel allocates at::empty({size, ndim}); CUDA's meta (and
  // kernel) the column-major (1, size).
  const std::vector<int64_t> strides = device == DeviceType::CPU
                                           ? contiguousStrides(sizes)
                                           : std::vector<int64_t>{1, size};
  Expected<Tensor> out =
      Tensor::empty(sizes, strides, ScalarType::Int64, self.device());
  if (!out)
    return out.takeError();
  if (out->numel() > 0) {
    Error err = device == DeviceType::CPU
                    ? ops::cpu::nonzeroStatic(*out, self, fillValue)
                    : ops::cuda::nonzeroStatic(*out, self, fillValue);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runMaskedSelect(DeviceType device, AtenTensorHandle selfHandle,
                      AtenTensorHandle maskHandle, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "masked_select");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "masked_select"))
    return err;
  Expected<Tensor *> maskOr = fromHandle(maskHandle, "mask");
  if (!maskOr)
    return maskOr.takeError();
  const Tensor &mask = **maskOr;
  if (mask.dtype() != ScalarType::Bool && mask.dtype() != ScalarType::UInt8)
    return Error::failure("masked_select: expected BoolTensor or ByteTensor "
                          "for mask (got ",
                          dtypeName(mask.dtype()), ")");
  if (Error err = requireWith(mask, "mask", self))
    return err;
  Expected<std::vector<int64_t>> shape = inferSize(mask.sizes(), self.sizes());
  if (!shape)
    return shape.takeError();
  Expected<Tensor> selfView = expandTo(self, *shape);
  if (!selfView)
    return selfView.takeError();
  Expected<Tensor> maskView = expandTo(mask, *shape);
  if (!maskView)
    return maskView.takeError();
  Expected<Tensor> out = device == DeviceType::CPU
                             ? ops::cpu::maskedSelect(*selfView, *maskView)
                             : ops::cuda::maskedSelect(*selfView, *maskView);
  if (!out)
    return out.takeError();
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runMaskedScatter(DeviceType device, AtenTensorHandle selfHandle,
                       AtenTensorHandle maskHandle,
                       AtenTensorHandle sourceHandle, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "masked_scatter");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  if (Error err = requireDataType(self, "self", "masked_scatter"))
    return err;
  Expected<std::array<Tensor *, 2>> rest =
      fromHandles({{maskHandle, "mask"}, {sourceHandle, "source"}});
  if (!rest)
    return rest.takeError();
  const Tensor &mask = *(*rest)[0];
  const Tensor &source = *(*rest)[1];
  if (Error err = requireWith(mask, "mask", self))
    return err;
  if (Error err = requireWith(source, "source", self))
    return err;
  Expected<std::vector<int64_t>> shape = inferSize(mask.sizes(), self.sizes());
  if (!shape)
    return shape.takeError();
  if (source.dtype() != self.dtype())
    return Error::failure("masked_scatter: expected self and source to have "
                          "same dtypes but got ",
                          dtypeName(self.dtype()), " and ",
                          dtypeName(source.dtype()));
  if (mask.dtype() != ScalarType::Bool)
    return Error::failure("masked_scatter_ only supports boolean masks, but "
                          "got mask with dtype ",
                          dtypeName(mask.dtype()));
  Expected<Tensor> out = cloneWith(self, *shape, contiguousStrides(*shape));
  if (!out)
    return out.takeError();
  Expected<Tensor> maskView = expandTo(mask, *shape);
  if (!maskView)
    return maskView.takeError();
  if (out->numel() > 0) {
    Error err = device == DeviceType::CPU
                    ? ops::cpu::maskedScatter(*out, *maskView, source)
                    : ops::cuda::maskedScatter(*out, *maskView, source);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Error runRepeatInterleave(DeviceType device, AtenTensorHandle repeatsHandle,
                          const int64_t *outputSize, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> repeatsOr = fromHandle(repeatsHandle, "repeats");
  if (!repeatsOr)
    return repeatsOr.takeError();
  const Tensor &repeats = **repeatsOr;
  if (Error err =
          requireDevice(repeats, "repeats", device, "repeat_interleave"))
    return err;
  if (repeats.dim() != 1)
    return Error::failure("repeat_interleave only accept 1D vector as repeat "
                          "('repeats' is ",
                          repeats.dim(), "-d)");
  if (repeats.dtype() != ScalarType::Int64 &&
      repeats.dtype() != ScalarType::Int32)
    return Error::failure("repeats has to be Long or Int tensor (got ",
                          dtypeName(repeats.dtype()), ")");
  if (outputSize && *outputSize < 0)
    return Error::failure("'output_size' is ", *outputSize,
                          "; it must be non-negative");
  Expected<Tensor> out = [&]() -> Expected<Tensor> {
    if (repeats.sizes()[0] == 0) {
      const int64_t empty[] = {0};
      return Tensor::emptyContiguous(empty, repeats.dtype(), repeats.device());
    }
    return device == DeviceType::CPU
               ? ops::cpu::repeatInterleave(repeats, outputSize)
               : ops::cuda::repeatInterleave(repeats, outputSize);
  }();
  if (!out)
    return out.takeError();
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

Expected<IndexReduce> parseReduce(const char *reduce) {
  const std::string r = reduce ? reduce : "";
  if (r == "prod")
    return IndexReduce::Prod;
  if (r == "mean")
    return IndexReduce::Mean;
  if (r == "amax")
    return IndexReduce::Amax;
  if (r == "amin")
    return IndexReduce::Amin;
  return Error::failure("index_reduce(): Expected reduce to be one of prod, "
                        "mean, amax or amin but got ",
                        reduce ? r : std::string("(null)"), ".");
}

// `t` with at least one dimension: a 0-d tensor as [1].
Expected<Tensor> atLeast1d(const Tensor &t) {
  if (t.dim() > 0)
    return t;
  const int64_t one[] = {1};
  return viewOf(t, one, one, t.storageOffset());
}

Error runIndexReduce(DeviceType device, AtenTensorHandle selfHandle,
                     int64_t dim, AtenTensorHandle indexHandle,
                     AtenTensorHandle sourceHandle, const char *reduce,
                     int32_t includeSelf, AtenTensorHandle *ret0) {
  if (Error err = requireOutput(ret0, "ret0"))
    return err;
  Expected<Tensor *> selfOr = selfOn(device, selfHandle, "index_reduce");
  if (!selfOr)
    return selfOr.takeError();
  const Tensor &self = **selfOr;
  Expected<std::array<Tensor *, 2>> rest =
      fromHandles({{indexHandle, "index"}, {sourceHandle, "source"}});
  if (!rest)
    return rest.takeError();
  const Tensor &index = *(*rest)[0];
  const Tensor &source = *(*rest)[1];
  Expected<IndexReduce> op = parseReduce(reduce);
  if (!op)
    return op.takeError();
  Expected<int64_t> wrapped = wrapDim(dim, self.dim(), "dim");
  if (!wrapped)
    return wrapped.takeError();
  dim = *wrapped;
  const int64_t numel = index.numel();
  if (index.dim() > 1)
    return Error::failure("index_reduce_(): Index is supposed to be a vector, "
                          "but got dim: ",
                          index.dim(), " with type: ", dtypeName(index.dtype()),
                          " and size: ", shapeString(index.sizes()));
  if (index.dtype() != ScalarType::Int64 && index.dtype() != ScalarType::Int32)
    return Error::failure("index_reduce_(): Expected dtype int32/int64 for "
                          "index but got: ",
                          dtypeName(index.dtype()));
  if (self.dtype() != source.dtype())
    return Error::failure("index_reduce_(): self (", dtypeName(self.dtype()),
                          ") and source (", dtypeName(source.dtype()),
                          ") must have the same scalar type");
  if (!(dim == 0 || dim < source.dim()))
    return Error::failure("index_reduce_(): Indexing dim ", dim,
                          " is out of bounds of the source tensor with dim ",
                          source.dim());
  const int64_t sourceCount = source.dim() == 0 ? 1 : source.sizes()[dim];
  if (numel != sourceCount)
    return Error::failure("index_reduce_(): Number of indices (", numel,
                          ") should be equal to source.size(dim): (",
                          sourceCount, "), for dim: ", dim);
  {
    std::vector<int64_t> selfSizes(self.sizes().begin(), self.sizes().end());
    std::vector<int64_t> sourceSizes(source.sizes().begin(),
                                     source.sizes().end());
    if (source.dim() != 0 && self.dim() != 0) {
      selfSizes.erase(selfSizes.begin() + dim);
      sourceSizes.erase(sourceSizes.begin() + dim);
    }
    if (selfSizes != sourceSizes)
      return Error::failure("source tensor shape must match self tensor "
                            "shape, excluding the specified dimension. Got "
                            "self.shape = ",
                            shapeString(self.sizes()),
                            " source.shape = ", shapeString(source.sizes()));
  }
  if (Error err = requireDataType(self, "self", "index_reduce",
                                  /*allowBool=*/false))
    return err;
  if (Error err = requireWith(index, "index", self))
    return err;
  if (Error err = requireWith(source, "source", self))
    return err;
  Expected<Tensor> out =
      cloneWith(self, self.sizes(), contiguousStrides(self.sizes()));
  if (!out)
    return out.takeError();
  if (numel > 0) {
    Expected<Tensor> out1 = atLeast1d(*out);
    Expected<Tensor> source1 = atLeast1d(source);
    Expected<Tensor> index1 = atLeast1d(index);
    if (!out1)
      return out1.takeError();
    if (!source1)
      return source1.takeError();
    if (!index1)
      return index1.takeError();
    IndexReducePlan plan;
    plan.dim = dim;
    plan.reduce = *op;
    plan.includeSelf = includeSelf != 0;
    Error err = device == DeviceType::CPU
                    ? ops::cpu::indexReduce(*out1, *index1, *source1, plan)
                    : ops::cuda::indexReduce(*out1, *index1, *source1, plan);
    if (err)
      return err;
  }
  *ret0 = toHandle(std::move(*out));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_index_Tensor(AtenTensorHandle self,
                                           const AtenTensorHandle **indices,
                                           int64_t indices_len_,
                                           AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndex(DeviceType::CPU, self, indices, indices_len_, ret0);
  });
}

AOTITorchError aoti_torch_cuda_index_Tensor(AtenTensorHandle self,
                                            const AtenTensorHandle **indices,
                                            int64_t indices_len_,
                                            AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndex(DeviceType::CUDA, self, indices, indices_len_, ret0);
  });
}

AOTITorchError aoti_torch_cpu_index_put(AtenTensorHandle self,
                                        const AtenTensorHandle **indices,
                                        int64_t indices_len_,
                                        AtenTensorHandle values,
                                        int32_t accumulate,
                                        AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndexPut(DeviceType::CPU, self, indices, indices_len_, values,
                       accumulate, ret0);
  });
}

AOTITorchError aoti_torch_cuda_index_put(AtenTensorHandle self,
                                         const AtenTensorHandle **indices,
                                         int64_t indices_len_,
                                         AtenTensorHandle values,
                                         int32_t accumulate,
                                         AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndexPut(DeviceType::CUDA, self, indices, indices_len_, values,
                       accumulate, ret0);
  });
}

AOTITorchError aoti_torch_cpu_nonzero(AtenTensorHandle self,
                                      AtenTensorHandle *ret0) {
  return runShim(__func__,
                 [&] { return runNonzero(DeviceType::CPU, self, ret0); });
}

AOTITorchError aoti_torch_cuda_nonzero(AtenTensorHandle self,
                                       AtenTensorHandle *ret0) {
  return runShim(__func__,
                 [&] { return runNonzero(DeviceType::CUDA, self, ret0); });
}

AOTITorchError aoti_torch_cpu_nonzero_static(AtenTensorHandle self,
                                             int64_t size, int64_t fill_value,
                                             AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runNonzeroStatic(DeviceType::CPU, self, size, fill_value, ret0);
  });
}

AOTITorchError aoti_torch_cuda_nonzero_static(AtenTensorHandle self,
                                              int64_t size, int64_t fill_value,
                                              AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runNonzeroStatic(DeviceType::CUDA, self, size, fill_value, ret0);
  });
}

AOTITorchError aoti_torch_cpu_masked_select(AtenTensorHandle self,
                                            AtenTensorHandle mask,
                                            AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMaskedSelect(DeviceType::CPU, self, mask, ret0);
  });
}

AOTITorchError aoti_torch_cuda_masked_select(AtenTensorHandle self,
                                             AtenTensorHandle mask,
                                             AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMaskedSelect(DeviceType::CUDA, self, mask, ret0);
  });
}

AOTITorchError aoti_torch_cpu_masked_scatter(AtenTensorHandle self,
                                             AtenTensorHandle mask,
                                             AtenTensorHandle source,
                                             AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMaskedScatter(DeviceType::CPU, self, mask, source, ret0);
  });
}

AOTITorchError aoti_torch_cuda_masked_scatter(AtenTensorHandle self,
                                              AtenTensorHandle mask,
                                              AtenTensorHandle source,
                                              AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runMaskedScatter(DeviceType::CUDA, self, mask, source, ret0);
  });
}

AOTITorchError aoti_torch_cpu_repeat_interleave_Tensor(AtenTensorHandle repeats,
                                                       int64_t *output_size,
                                                       AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runRepeatInterleave(DeviceType::CPU, repeats, output_size, ret0);
  });
}

AOTITorchError aoti_torch_cuda_repeat_interleave_Tensor(
    AtenTensorHandle repeats, int64_t *output_size, AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runRepeatInterleave(DeviceType::CUDA, repeats, output_size, ret0);
  });
}

AOTITorchError aoti_torch_cpu_index_reduce(AtenTensorHandle self, int64_t dim,
                                           AtenTensorHandle index,
                                           AtenTensorHandle source,
                                           const char *reduce,
                                           int32_t include_self,
                                           AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndexReduce(DeviceType::CPU, self, dim, index, source, reduce,
                          include_self, ret0);
  });
}

AOTITorchError aoti_torch_cuda_index_reduce(AtenTensorHandle self, int64_t dim,
                                            AtenTensorHandle index,
                                            AtenTensorHandle source,
                                            const char *reduce,
                                            int32_t include_self,
                                            AtenTensorHandle *ret0) {
  return runShim(__func__, [&] {
    return runIndexReduce(DeviceType::CUDA, self, dim, index, source, reduce,
                          include_self, ret0);
  });
}

} // extern "C"
