//===- ops/embedding.cpp - _embedding_bag: checks, results, entry points --===//
//
// aoti_torch_{cpu,cuda}__embedding_bag and _embedding_bag_forward_only
// (weight, indices, offsets, scale_grad_by_freq, mode, sparse,
// per_sample_weights, include_last_offset, padding_idx, ret0..ret3),
// torch 2.11's generated signatures; the two compute the same forward.
// scale_grad_by_freq and sparse only matter to the backward and are
// ignored, as torch's forward kernels ignore them. What is settled here,
// following torch's meta_embedding_bag and its CPU and CUDA kernels:
//  - weight is 2-d and floating (float16, bfloat16, float32, float64);
//    indices 1-d (torch's kernels accept a 2-d one but then read only its
//    first size(0) elements; torch.nn.functional.embedding_bag flattens a
//    2-d input into 1-d indices and offsets before it gets here, so 2-d is
//    refused rather than misread), offsets 1-d, both int32 or int64 (they
//    may differ: torch promotes them for the kernel, not for the results'
//    dtypes); mode 0 (sum), 1 (mean) or 2 (max); per_sample_weights only
//    with "sum", 1-d, one per index, of weight's dtype; include_last_offset
//    needs at least one offset (the last bag then ends at the end of
//    indices, as torch's CUDA kernel and its CPU general path do; torch's
//    CPU fast path for float32/float16 sums without padding ends it at the
//    last offset instead, which differs only when that offset is not
//    indices.numel());
//  - the data: every index in [0, weight.size(0)), offsets never
//    decreasing and in [0, indices.numel()], and on the CPU offsets[0] ==
//    0 (torch's CPU check; its CUDA kernel starts the first bag at 0
//    whatever offsets[0] holds, and so does ours there). On CUDA the
//    kernel checks as it reads, without waiting (torch asserts in-kernel):
//    a bad index is skipped, a bad offset clamped, and the first problem
//    recorded (ops/checks.h; AOTI_SHIMS_CUDA_CHECKS=sync fails instead);
//  - the results, with the sizes, dtypes and (contiguous) strides of
//    torch's meta on each device, numBags = offsets.size(0) -
//    include_last_offset:
//      output       [numBags, D], weight's dtype;
//      CPU (all in offsets' dtype):
//        offset2bag  [indices.numel()], or [0] for a "sum" on torch's fast
//                    path (weight float32 or float16 with stride(1) == 1,
//                    padding_idx < 0, per_sample_weights of stride 1):
//                    the bag of each index;
//        bag_size    [numBags] (_embedding_bag) or [offsets.size(0)]
//                    (_forward_only): each bag's non-padding count for
//                    mean and max, zeros for sum (torch zeroes it);
//        max_indices [numBags, D] for max: the index of each maximum (0
//                    for an empty bag); else [numBags]: bag_size's values;
//      CUDA (all in indices' dtype):
//        offset2bag  [indices.numel()]: the bag of each index;
//        bag_size    [offsets.size(0)]: each bag's non-padding count, for
//                    every mode (the slot past the last bag, there with
//                    include_last_offset, is 0: torch leaves it unset);
//        max_indices [numBags, D] for max (-1 for an empty bag); else [0].
//
//===----------------------------------------------------------------------===//
#include "ops/embedding.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "copy.h"
#include "dtype.h"
#include "error.h"
#include "tensor.h"

#include <optional>
#include <vector>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace {

bool isIndexDtype(ScalarType t) {
  return t == ScalarType::Int32 || t == ScalarType::Int64;
}

bool isWeightDtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ||
         t == ScalarType::Float32 || t == ScalarType::Float64;
}

Expected<Tensor> contiguousOf(const Tensor &t) {
  if (t.isContiguous())
    return t;
  return cloneContiguous(t);
}

Expected<Tensor> emptyOf(std::vector<int64_t> sizes, ScalarType type,
                         const Device &device) {
  return Tensor::emptyContiguous(sizes, type, device);
}

Error runEmbeddingBag(DeviceType device, const char *op,
                      AtenTensorHandle weightHandle,
                      AtenTensorHandle indicesHandle,
                      AtenTensorHandle offsetsHandle, int64_t mode,
                      AtenTensorHandle *perSampleWeightsHandle,
                      bool includeLastOffset, int64_t paddingIdx,
                      bool forwardOnly, AtenTensorHandle *ret0,
                      AtenTensorHandle *ret1, AtenTensorHandle *ret2,
                      AtenTensorHandle *ret3) {
  AtenTensorHandle *rets[] = {ret0, ret1, ret2, ret3};
  const char *retNames[] = {"ret0", "ret1", "ret2", "ret3"};
  for (int i = 0; i < 4; ++i)
    if (Error err = requireOutput(rets[i], retNames[i]))
      return err;
  Expected<std::array<Tensor *, 4>> tensors = fromHandles(
      {{weightHandle, "weight"},
       {indicesHandle, "indices"},
       {offsetsHandle, "offsets"},
       optionalTensorArg(perSampleWeightsHandle, "per_sample_weights")});
  if (!tensors)
    return tensors.takeError();
  auto [weightP, indicesP, offsetsP, pswP] = *tensors;
  const Tensor &weight = *weightP, &indices = *indicesP, &offsets = *offsetsP;
  if (Error err = requireDevice(weight, "weight", device, op))
    return err;
  if (Error err = requireSameDevice(indices, "indices", weight.device(), "weight"))
    return err;
  if (Error err = requireSameDevice(offsets, "offsets", weight.device(), "weight"))
    return err;
  if (pswP)
    if (Error err = requireSameDevice(*pswP, "per_sample_weights",
                                      weight.device(), "weight"))
      return err;

  if (indices.dim() != 1 && indices.dim() != 2)
    return Error::failure("input has to be a 1D or 2D Tensor, but got Tensor "
                          "of dimension ", indices.dim());
  if (indices.dim() == 2)
    return Error::failure("2-d indices are not supported: torch's kernels read "
                          "only their first size(0) elements "
                          "(torch.nn.functional.embedding_bag flattens a 2-d "
                          "input into 1-d indices and offsets)");
  if (offsets.dim() != 1)
    return Error::failure("offsets has to be a 1D Tensor, but got Tensor of "
                          "dimension ", offsets.dim());
  if (weight.dim() != 2)
    return Error::failure("weight has to be a 2D Tensor, but got Tensor of "
                          "dimension ", weight.dim());
  if (!isIndexDtype(indices.dtype()))
    return Error::failure("expected indices to be long or int, got ",
                          dtypeName(indices.dtype()));
  if (!isIndexDtype(offsets.dtype()))
    return Error::failure("expected offsets to be long or int, got ",
                          dtypeName(offsets.dtype()));
  if (!isWeightDtype(weight.dtype()))
    return Error::failure("expected weight to be floating point type (float16, "
                          "bfloat16, float32 or float64), got ",
                          dtypeName(weight.dtype()));
  if (mode < 0 || mode > 2)
    return Error::failure("mode must be 0 (sum), 1 (mean) or 2 (max), got ",
                          mode);
  if (includeLastOffset && offsets.sizes()[0] < 1)
    return Error::failure("include_last_offset: numBags should be at least 1");
  if (pswP) {
    const Tensor &psw = *pswP;
    if (mode != 0)
      return Error::failure("embedding_bag: per_sample_weights only supported "
                            "with mode='sum'");
    if (psw.dim() != 1)
      return Error::failure("expected per_sample_weights to be 1D tensor, got ",
                            psw.dim(), "D");
    if (psw.numel() != indices.numel())
      return Error::failure("expected per_sample_weights.numel() (",
                            psw.numel(), ") to be the same as indices.numel() (",
                            indices.numel(), ")");
    if (psw.dtype() != weight.dtype())
      return Error::failure("embedding_bag: expected per_sample_weights to have "
                            "weight's dtype ", dtypeName(weight.dtype()),
                            ", got ", dtypeName(psw.dtype()));
  }

  EmbeddingBag bag;
  bag.mode = static_cast<BagMode>(mode);
  bag.numIndices = indices.sizes()[0];
  bag.numBags = offsets.sizes()[0] - (includeLastOffset ? 1 : 0);
  bag.features = weight.sizes()[1];
  bag.numWeights = weight.sizes()[0];
  bag.paddingIdx = paddingIdx;

  Expected<Tensor> idx = contiguousOf(indices);
  if (!idx)
    return idx.takeError();
  Expected<Tensor> off = contiguousOf(offsets);
  if (!off)
    return off.takeError();
  std::optional<Tensor> psw;
  if (pswP) {
    Expected<Tensor> p = contiguousOf(*pswP);
    if (!p)
      return p.takeError();
    psw = std::move(*p);
  }
  // On CUDA the kernel checks the data as it reads it (ops/checks.h).
  if (device == DeviceType::CPU)
    if (Error err = ops::cpu::checkEmbeddingBag(*idx, *off, bag))
      return err;

  const Device &where = weight.device();
  const int64_t d = bag.features;
  const int64_t offsetCount = offsets.sizes()[0];
  std::vector<int64_t> offset2bagSizes, bagSizeSizes, maxIndicesSizes;
  ScalarType aux;
  if (device == DeviceType::CPU) {
    aux = offsets.dtype();
    const bool fastPathSum =
        (weight.dtype() == ScalarType::Float32 ||
         weight.dtype() == ScalarType::Float16) &&
        weight.strides()[1] == 1 && paddingIdx < 0 &&
        (!pswP || pswP->strides()[0] == 1);
    offset2bagSizes = {bag.mode != BagMode::Sum || !fastPathSum ? bag.numIndices
                                                                : 0};
    bagSizeSizes = {forwardOnly ? offsetCount : bag.numBags};
    maxIndicesSizes = bag.mode == BagMode::Max ? std::vector<int64_t>{bag.numBags, d}
                                               : std::vector<int64_t>{bag.numBags};
    bag.countBags = bag.mode != BagMode::Sum;
    bag.maxIndicesAreCounts = bag.mode == BagMode::Mean;
  } else {
    aux = indices.dtype();
    offset2bagSizes = {bag.numIndices};
    bagSizeSizes = {offsetCount};
    maxIndicesSizes = bag.mode == BagMode::Max ? std::vector<int64_t>{bag.numBags, d}
                                               : std::vector<int64_t>{0};
    bag.countBags = true;
    bag.maxIndicesAreCounts = false;
  }
  Expected<Tensor> output = emptyOf({bag.numBags, d}, weight.dtype(), where);
  if (!output)
    return output.takeError();
  Expected<Tensor> offset2bag = emptyOf(offset2bagSizes, aux, where);
  if (!offset2bag)
    return offset2bag.takeError();
  Expected<Tensor> bagSize = emptyOf(bagSizeSizes, aux, where);
  if (!bagSize)
    return bagSize.takeError();
  Expected<Tensor> maxIndices = emptyOf(maxIndicesSizes, aux, where);
  if (!maxIndices)
    return maxIndices.takeError();

  const Tensor *pswArg = psw ? &*psw : nullptr;
  Error err = device == DeviceType::CPU
                  ? ops::cpu::embeddingBag(*output, *offset2bag, *bagSize,
                                           *maxIndices, weight, *idx, *off,
                                           pswArg, bag)
                  : ops::cuda::embeddingBag(*output, *offset2bag, *bagSize,
                                            *maxIndices, weight, *idx, *off,
                                            pswArg, bag);
  if (err)
    return err;
  *ret0 = toHandle(std::move(*output));
  *ret1 = toHandle(std::move(*offset2bag));
  *ret2 = toHandle(std::move(*bagSize));
  *ret3 = toHandle(std::move(*maxIndices));
  return Error::success();
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cpu__embedding_bag(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
    int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
    AtenTensorHandle *per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return runShim(__func__, [&] {
    return runEmbeddingBag(DeviceType::CPU, "_embedding_bag", weight, indices,
                           offsets, mode, per_sample_weights,
                           include_last_offset != 0, padding_idx, false, ret0,
                           ret1, ret2, ret3);
  });
}

AOTITorchError aoti_torch_cuda__embedding_bag(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
    int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
    AtenTensorHandle *per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return runShim(__func__, [&] {
    return runEmbeddingBag(DeviceType::CUDA, "_embedding_bag", weight, indices,
                           offsets, mode, per_sample_weights,
                           include_last_offset != 0, padding_idx, false, ret0,
                           ret1, ret2, ret3);
  });
}

AOTITorchError aoti_torch_cpu__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
    int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
    AtenTensorHandle *per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return runShim(__func__, [&] {
    return runEmbeddingBag(DeviceType::CPU, "_embedding_bag_forward_only",
                           weight, indices, offsets, mode, per_sample_weights,
                           include_last_offset != 0, padding_idx, true, ret0,
                           ret1, ret2, ret3);
  });
}

AOTITorchError aoti_torch_cuda__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
    int32_t scale_grad_by_freq, int64_t mode, int32_t sparse,
    AtenTensorHandle *per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return runShim(__func__, [&] {
    return runEmbeddingBag(DeviceType::CUDA, "_embedding_bag_forward_only",
                           weight, indices, offsets, mode, per_sample_weights,
                           include_last_offset != 0, padding_idx, true, ret0,
                           ret1, ret2, ret3);
  });
}

} // extern "C"
