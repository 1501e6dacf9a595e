//===- attention.cpp - SDPA fallbacks: arguments, output layouts, C ABI ----===//
//
// Each entry point decodes its handles, checks them the way torch's op
// would (4-d query/key/value of one float dtype on one device, matching
// batch and head dims, key/value heads dividing query heads, a mask that
// broadcasts to [B, H, Lq, Lk]), refuses dropout (inference only), then
// allocates every output exactly as torch 2.11's meta function for that op
// (torch/_meta_registrations.py) shapes and strides it:
//
//   op               out                          logsumexp (float32)
//   efficient        [B,Lq,H,Ev].transpose(1,2)   [B,H,ceil(Lq/32)*32], [B,H,0]
//   flash (CUDA)     empty_like(query)            [B,H,Lq]
//   cudnn            alloc_with_matching_layout   [B,H,Lq,1]
//   flash_for_cpu    empty_like(query)            [B,Lq,H].transpose(1,2)
//
// and the rest: flash and cuDNN return max_seqlen_q/k through int64
// out-parameters, None (a null handle) for cum_seq_q/k, philox seed and
// offset (meta gives them on the meta device: here zeroed CPU tensors of
// meta's shape and dtype, which no inference graph reads), and flash's
// debug mask (meta's shape, zeroed; empty unless asked for). A null output
// pointer means the model does not want that output: inductor passes
// nullptr for the ones that are None.
//
// The computation itself is cpu::attention() / cuda::attention(), on
// AttentionArgs: pointers and element strides, so any strided view (the
// usual transposed [B,L,H,E] ones) and storage offset is read in place.
//
//===----------------------------------------------------------------------===//
#include "ops/attention.h"

#include "aoti/shim.h"
#include "torch_fallbacks.h" // torch's signatures, checked against ours
#include "cuda_api.h"
#include "tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

using namespace aoti::shims;
using namespace aoti::shims::ops;

namespace aoti::shims::ops {

std::vector<int64_t> emptyLikeStrides(std::span<const int64_t> sizes,
                                      std::span<const int64_t> strides) {
  if (isNonOverlappingAndDense(sizes, strides))
    return {strides.begin(), strides.end()};
  const size_t ndim = sizes.size();
  // perm[0] is the innermost dimension. Start from the contiguous order and
  // insertion-sort by stride (stable; a zero stride compares as ambiguous,
  // as ATen's infer_dense_strides and TensorIterator do; equal strides put
  // the smaller dimension inside).
  std::vector<size_t> perm(ndim);
  for (size_t i = 0; i < ndim; ++i)
    perm[i] = ndim - 1 - i;
  auto shouldSwap = [&](size_t dim0, size_t dim1) {
    const int64_t stride0 = strides[dim0];
    const int64_t stride1 = strides[dim1];
    if (stride0 == 0 || stride1 == 0)
      return 0;
    if (stride0 < stride1)
      return -1;
    if (stride0 > stride1)
      return 1;
    return sizes[dim0] > sizes[dim1] ? 1 : 0;
  };
  for (size_t i = 1; i < ndim; ++i) {
    size_t dim1 = i;
    for (size_t j = 1; j <= i; ++j) {
      const size_t dim0 = i - j;
      const int comparison = shouldSwap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> result(ndim);
  int64_t stride = 1;
  for (size_t i = 0; i < ndim; ++i) {
    result[perm[i]] = stride;
    if (sizes[perm[i]] > 1)
      stride *= sizes[perm[i]];
  }
  return result;
}

std::vector<int64_t>
matchingLayoutStrides(std::span<const int64_t> querySizes,
                      std::span<const int64_t> queryStrides,
                      std::span<const int64_t> sizes) {
  if (std::equal(querySizes.begin(), querySizes.end(), sizes.begin(),
                 sizes.end()))
    return emptyLikeStrides(querySizes, queryStrides);
  // Python's sorted(..., reverse=True) is stable: equal strides keep their
  // dimension order. dimOrder lists dimensions outermost first.
  std::vector<size_t> dimOrder(sizes.size());
  std::iota(dimOrder.begin(), dimOrder.end(), size_t{0});
  std::stable_sort(dimOrder.begin(), dimOrder.end(), [&](size_t a, size_t b) {
    return queryStrides[a] > queryStrides[b];
  });
  // A contiguous tensor of the permuted shape, permuted back.
  std::vector<int64_t> result(sizes.size());
  int64_t stride = 1;
  for (size_t k = dimOrder.size(); k-- > 0;) {
    result[dimOrder[k]] = stride;
    stride *= std::max<int64_t>(sizes[dimOrder[k]], 1);
  }
  return result;
}

} // namespace aoti::shims::ops

namespace {

enum class AttentionOp { CudaEfficient, CudaFlash, CudaCudnn, CpuFlash };

const char *opName(AttentionOp op) {
  switch (op) {
  case AttentionOp::CudaEfficient:
    return "_scaled_dot_product_efficient_attention";
  case AttentionOp::CudaFlash:
    return "_scaled_dot_product_flash_attention";
  case AttentionOp::CudaCudnn:
    return "_scaled_dot_product_cudnn_attention";
  case AttentionOp::CpuFlash:
    return "_scaled_dot_product_flash_attention_for_cpu";
  }
  return "?";
}

// The arguments of one call, as the C entry point received them.
struct AttentionCall {
  AttentionOp op;
  AtenTensorHandle query;
  AtenTensorHandle key;
  AtenTensorHandle value;
  AtenTensorHandle *mask; // an optional argument: null, or -> null, is None
  const char *maskName;   // attn_bias or attn_mask
  double dropoutP;
  bool causal;
  const double *scale; // null: 1/sqrt(E)
  bool computeLogSumExp;
  bool returnDebugMask;
};

// Every output any of the four ops returns; each op fills its own.
struct AttentionOutputs {
  std::optional<Tensor> out;
  std::optional<Tensor> logsumexp;
  std::optional<Tensor> philoxSeed;
  std::optional<Tensor> philoxOffset;
  std::optional<Tensor> debugMask;
  int64_t maxSeqlenQ = 0;
  int64_t maxSeqlenK = 0;
};

Expected<AttentionElement> elementOf(ScalarType type) {
  switch (type) {
  case ScalarType::Float32:
    return AttentionElement::Float32;
  case ScalarType::Float16:
    return AttentionElement::Float16;
  case ScalarType::BFloat16:
    return AttentionElement::BFloat16;
  default:
    return Error::failure("query has dtype ", dtypeName(type),
                          "; supported: float32, float16, bfloat16");
  }
}

Expected<AttentionMask> maskKindOf(ScalarType type, const char *name) {
  switch (type) {
  case ScalarType::Bool:
    return AttentionMask::Bool;
  case ScalarType::Float32:
    return AttentionMask::Float32;
  case ScalarType::Float16:
    return AttentionMask::Float16;
  case ScalarType::BFloat16:
    return AttentionMask::BFloat16;
  default:
    return Error::failure("'", name, "' has dtype ", dtypeName(type),
                          "; supported: bool (true = attend) or a float "
                          "dtype (added to the scores)");
  }
}

void copyStrides(const Tensor &t, int64_t (&strides)[4]) {
  for (size_t d = 0; d < 4; ++d)
    strides[d] = t.strides()[d];
}

Error checkDevice(const Tensor &t, const char *name, AttentionOp op,
                  const Device &expected) {
  const bool wantCuda = op != AttentionOp::CpuFlash;
  if (wantCuda ? !t.device().isCuda() : !t.device().isCpu())
    return Error::failure("'", name, "' is on ", describe(t.device()), "; ",
                          opName(op), " takes ", wantCuda ? "CUDA" : "CPU",
                          " tensors");
  if (!t.device().sameMemory(expected))
    return Error::failure("'", name, "' is on ", describe(t.device()),
                          " but query is on ", describe(expected));
  return Error::success();
}

Error check4d(const Tensor &t, const char *name, const char *layout) {
  if (t.dim() != 4)
    return Error::failure("'", name, "' is ", t.dim(), "-d; expected 4-d ",
                          layout);
  return Error::success();
}

// Strides that read a mask of any rank <= 4 as [B, H, Lq, Lk]: aligned to the
// right, 0 along dimensions it broadcasts over.
Error broadcastMask(const Tensor &mask, const char *name,
                    const int64_t (&shape)[4], int64_t (&strides)[4]) {
  if (mask.dim() > 4)
    return Error::failure("'", name, "' is ", mask.dim(),
                          "-d; it must broadcast to [B, H, Lq, Lk]");
  const int64_t lead = 4 - mask.dim();
  for (int64_t d = 0; d < 4; ++d) {
    strides[d] = 0;
    if (d < lead)
      continue;
    const int64_t size = mask.sizes()[d - lead];
    if (size == shape[d])
      strides[d] = size == 1 ? 0 : mask.strides()[d - lead];
    else if (size != 1)
      return Error::failure("'", name, "' has size ", size, " in dimension ",
                            d - lead, ", which does not broadcast to ",
                            shape[d], " (expected [", shape[0], ", ", shape[1],
                            ", ", shape[2], ", ", shape[3],
                            "] or a broadcastable shape)");
  }
  return Error::success();
}

Expected<Tensor> emptyOn(std::span<const int64_t> sizes,
                         std::span<const int64_t> strides, ScalarType dtype,
                         const Device &device) {
  return Tensor::empty(sizes, strides, dtype, device);
}

// A zeroed tensor: philox seed/offset and the debug mask, which nothing in
// an inference graph reads, still hold defined values.
Expected<Tensor> zeros(std::span<const int64_t> sizes, ScalarType dtype,
                       const Device &device) {
  Expected<Tensor> t = Tensor::emptyContiguous(sizes, dtype, device);
  if (!t)
    return t;
  const size_t nbytes = static_cast<size_t>(t->numel()) * t->itemSize();
  if (nbytes == 0)
    return t;
  if (device.isCpu()) {
    std::memset(t->data(), 0, nbytes);
  } else if (Error err = aoti::shims::cuda::zeroBytes(t->data(), nbytes, device.index)) {
    return err;
  }
  return t;
}

// Logsumexp (float32) and philox tensors of each op; see the table above.
Error allocateAuxiliary(const AttentionCall &call, const Tensor &query,
                        int64_t B, int64_t H, int64_t Lq, int64_t Lk,
                        AttentionOutputs &outputs, AttentionArgs &args) {
  const Device device = query.device();
  const Device cpu{DeviceType::CPU, -1};
  std::vector<int64_t> lseSizes;
  std::vector<int64_t> lseStrides;
  args.logsumexpRows = Lq;
  switch (call.op) {
  case AttentionOp::CudaEfficient: {
    const int64_t rows = call.computeLogSumExp ? (Lq + 31) / 32 * 32 : 0;
    lseSizes = {B, H, rows};
    lseStrides = contiguousStrides(lseSizes);
    args.logsumexpRows = rows;
    break;
  }
  case AttentionOp::CudaFlash:
    lseSizes = {B, H, Lq};
    lseStrides = contiguousStrides(lseSizes);
    break;
  case AttentionOp::CudaCudnn:
    lseSizes = {B, H, Lq, 1};
    lseStrides = contiguousStrides(lseSizes);
    break;
  case AttentionOp::CpuFlash:
    // empty((B, Lq, H)).transpose(1, 2)
    lseSizes = {B, H, Lq};
    lseStrides = {Lq * H, 1, H};
    break;
  }
  Expected<Tensor> lse =
      emptyOn(lseSizes, lseStrides, ScalarType::Float32, device);
  if (!lse)
    return lse.takeError();
  args.logsumexp = nullptr;
  if (lse->numel() > 0) {
    args.logsumexp = static_cast<float *>(lse->data());
    for (size_t d = 0; d < 3; ++d)
      args.logsumexpStrides[d] = lseStrides[d];
  } else {
    args.logsumexpRows = Lq;
  }
  outputs.logsumexp = std::move(*lse);

  switch (call.op) {
  case AttentionOp::CudaEfficient:
  case AttentionOp::CudaCudnn: {
    Expected<Tensor> seed = zeros({}, ScalarType::Int64, cpu);
    Expected<Tensor> offset = zeros({}, ScalarType::Int64, cpu);
    if (!seed)
      return seed.takeError();
    if (!offset)
      return offset.takeError();
    outputs.philoxSeed = std::move(*seed);
    outputs.philoxOffset = std::move(*offset);
    break;
  }
  case AttentionOp::CudaFlash: {
    const int64_t two[] = {2};
    Expected<Tensor> seed = zeros(two, ScalarType::UInt64, cpu);
    Expected<Tensor> offset = zeros({}, ScalarType::UInt64, cpu);
    if (!seed)
      return seed.takeError();
    if (!offset)
      return offset.takeError();
    outputs.philoxSeed = std::move(*seed);
    outputs.philoxOffset = std::move(*offset);
    // The debug mask: meta's sizes, whatever the kernel would fill.
    std::vector<int64_t> maskSizes = {0};
    if (call.returnDebugMask) {
      const int64_t headDim = query.sizes()[3];
      const int64_t blocksizeC = headDim > 64 ? 128 : 256;
      int64_t maxSeqlenK = (Lq + blocksizeC - 1) / blocksizeC;
      if (Lk <= 128)
        maxSeqlenK = 128;
      else if (Lk <= 256)
        maxSeqlenK = 256;
      maskSizes = {B, H, Lq, maxSeqlenK};
    }
    Expected<Tensor> debugMask = zeros(maskSizes, query.dtype(), device);
    if (!debugMask)
      return debugMask.takeError();
    outputs.debugMask = std::move(*debugMask);
    break;
  }
  case AttentionOp::CpuFlash:
    break;
  }
  return Error::success();
}

Error runAttention(const AttentionCall &call, AttentionOutputs &outputs) {
  Expected<std::array<Tensor *, 4>> tensors =
      fromHandles({{call.query, "query"},
                   {call.key, "key"},
                   {call.value, "value"},
                   optionalTensorArg(call.mask, call.maskName)});
  if (!tensors)
    return tensors.takeError();
  auto [queryTensor, keyTensor, valueTensor, mask] = *tensors;
  const Tensor &query = *queryTensor;
  const Tensor &key = *keyTensor;
  const Tensor &value = *valueTensor;

  if (call.dropoutP != 0.0)
    return Error::failure(
        "dropout_p is ", call.dropoutP,
        ": these shims run inference only and dropout is used only in "
        "training; export the model in eval mode (model.eval() before "
        "torch.export) so attention is traced with dropout_p=0");

  const Device device = query.device();
  if (Error err = checkDevice(query, "query", call.op, device))
    return err;
  if (Error err = checkDevice(key, "key", call.op, device))
    return err;
  if (Error err = checkDevice(value, "value", call.op, device))
    return err;
  if (mask)
    if (Error err = checkDevice(*mask, call.maskName, call.op, device))
      return err;

  Expected<AttentionElement> element = elementOf(query.dtype());
  if (!element)
    return element.takeError();
  if (key.dtype() != query.dtype() || value.dtype() != query.dtype())
    return Error::failure("query, key and value have dtypes ",
                          dtypeName(query.dtype()), ", ",
                          dtypeName(key.dtype()), ", ",
                          dtypeName(value.dtype()), "; they must be equal");

  if (Error err = check4d(query, "query", "[batch, heads, Lq, E]"))
    return err;
  if (Error err = check4d(key, "key", "[batch, kv_heads, Lk, E]"))
    return err;
  if (Error err = check4d(value, "value", "[batch, kv_heads, Lk, Ev]"))
    return err;
  const int64_t B = query.sizes()[0];
  const int64_t H = query.sizes()[1];
  const int64_t Lq = query.sizes()[2];
  const int64_t E = query.sizes()[3];
  const int64_t Hk = key.sizes()[1];
  const int64_t Lk = key.sizes()[2];
  const int64_t Ev = value.sizes()[3];
  if (key.sizes()[0] != B || value.sizes()[0] != B)
    return Error::failure("batch sizes differ: query ", B, ", key ",
                          key.sizes()[0], ", value ", value.sizes()[0]);
  if (value.sizes()[1] != Hk)
    return Error::failure("key has ", Hk, " heads but value has ",
                          value.sizes()[1]);
  if (Hk == 0 ? H != 0 : H % Hk != 0)
    return Error::failure("query has ", H, " heads, which is not a multiple "
                          "of key/value's ", Hk,
                          " (grouped-query attention needs a whole number "
                          "of query heads per key/value head)");
  if (value.sizes()[2] != Lk)
    return Error::failure("key has sequence length ", Lk, " but value has ",
                          value.sizes()[2]);
  if (key.sizes()[3] != E)
    return Error::failure("query has head dim ", E, " but key has ",
                          key.sizes()[3], "; they must be equal");
  const bool sameValueDim =
      call.op == AttentionOp::CudaFlash || call.op == AttentionOp::CpuFlash;
  if (sameValueDim && Ev != E)
    return Error::failure("value has head dim ", Ev, " but query has ", E,
                          "; ", opName(call.op),
                          " returns empty_like(query), so they must be equal "
                          "(efficient and cuDNN attention allow them to "
                          "differ)");

  AttentionArgs args{};
  args.batch = B;
  args.heads = H;
  args.kvHeads = Hk;
  args.queryLen = Lq;
  args.keyLen = Lk;
  args.headDim = E;
  args.valueDim = Ev;
  args.scale = static_cast<float>(call.scale ? *call.scale
                                             : 1.0 / std::sqrt(double(E)));
  args.causal = call.causal;
  // Flash-attention's own causal mask is aligned to the bottom-right corner
  // when Lq != Lk (torch's SDPA never picks flash for that case, whose
  // semantics are top-left); the other kernels align it top-left.
  args.causalOffset = call.op == AttentionOp::CudaFlash ? Lk - Lq : 0;
  args.element = *element;
  args.query = query.data();
  args.key = key.data();
  args.value = value.data();
  copyStrides(query, args.queryStrides);
  copyStrides(key, args.keyStrides);
  copyStrides(value, args.valueStrides);
  args.maskKind = AttentionMask::None;
  if (mask) {
    Expected<AttentionMask> kind = maskKindOf(mask->dtype(), call.maskName);
    if (!kind)
      return kind.takeError();
    const int64_t shape[4] = {B, H, Lq, Lk};
    if (Error err = broadcastMask(*mask, call.maskName, shape,
                                  args.maskStrides))
      return err;
    args.maskKind = *kind;
    args.mask = mask->data();
  }

  // The attention output.
  const std::vector<int64_t> outSizes = {B, H, Lq, Ev};
  std::vector<int64_t> outStrides;
  switch (call.op) {
  case AttentionOp::CudaEfficient:
    // empty(B, Lq, H, Ev).transpose(1, 2)
    outStrides = {Lq * H * Ev, Ev, H * Ev, 1};
    break;
  case AttentionOp::CudaFlash:
  case AttentionOp::CpuFlash:
    outStrides = emptyLikeStrides(query.sizes(), query.strides());
    break;
  case AttentionOp::CudaCudnn:
    outStrides =
        matchingLayoutStrides(query.sizes(), query.strides(), outSizes);
    break;
  }
  Expected<Tensor> out = emptyOn(outSizes, outStrides, query.dtype(), device);
  if (!out)
    return out.takeError();
  args.out = out->data();
  copyStrides(*out, args.outStrides);
  outputs.out = std::move(*out);

  if (Error err = allocateAuxiliary(call, query, B, H, Lq, Lk, outputs, args))
    return err;
  outputs.maxSeqlenQ = Lq;
  outputs.maxSeqlenK = Lk;

  if (B == 0 || H == 0 || (Lq == 0 && args.logsumexpRows == 0))
    return Error::success();
  return device.isCpu() ? ops::cpu::attention(args)
                        : ops::cuda::attention(args, device.index);
}

void store(AtenTensorHandle *ret, std::optional<Tensor> &tensor) {
  if (ret)
    *ret = tensor ? toHandle(std::move(*tensor)) : nullptr;
}

// Stores the outputs in the order of the flash/cuDNN signature: out, lse,
// cum_seq_q, cum_seq_k, max_q, max_k, seed, offset, debug mask.
void storeFlashLayout(AttentionOutputs &outputs, AtenTensorHandle *ret0,
                      AtenTensorHandle *ret1, AtenTensorHandle *ret2,
                      AtenTensorHandle *ret3, int64_t *ret4, int64_t *ret5,
                      AtenTensorHandle *ret6, AtenTensorHandle *ret7,
                      AtenTensorHandle *ret8) {
  store(ret0, outputs.out);
  store(ret1, outputs.logsumexp);
  if (ret2)
    *ret2 = nullptr;
  if (ret3)
    *ret3 = nullptr;
  if (ret4)
    *ret4 = outputs.maxSeqlenQ;
  if (ret5)
    *ret5 = outputs.maxSeqlenK;
  store(ret6, outputs.philoxSeed);
  store(ret7, outputs.philoxOffset);
  store(ret8, outputs.debugMask);
}

} // namespace

extern "C" {

AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle *attn_bias, int32_t compute_log_sumexp, double dropout_p,
    int32_t is_causal, double *scale, AtenTensorHandle *ret0,
    AtenTensorHandle *ret1, AtenTensorHandle *ret2, AtenTensorHandle *ret3) {
  return runShim(__func__, [&]() -> Error {
    AttentionCall call{AttentionOp::CudaEfficient,
                       query,
                       key,
                       value,
                       attn_bias,
                       "attn_bias",
                       dropout_p,
                       is_causal != 0,
                       scale,
                       compute_log_sumexp != 0,
                       false};
    AttentionOutputs outputs;
    if (Error err = runAttention(call, outputs))
      return err;
    store(ret0, outputs.out);
    store(ret1, outputs.logsumexp);
    store(ret2, outputs.philoxSeed);
    store(ret3, outputs.philoxOffset);
    return Error::success();
  });
}

AOTITorchError aoti_torch_cuda__scaled_dot_product_flash_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    double dropout_p, int32_t is_causal, int32_t return_debug_mask,
    double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3, int64_t *ret4,
    int64_t *ret5, AtenTensorHandle *ret6, AtenTensorHandle *ret7,
    AtenTensorHandle *ret8) {
  return runShim(__func__, [&]() -> Error {
    AttentionCall call{AttentionOp::CudaFlash,
                       query,
                       key,
                       value,
                       nullptr,
                       "attn_mask",
                       dropout_p,
                       is_causal != 0,
                       scale,
                       true,
                       return_debug_mask != 0};
    AttentionOutputs outputs;
    if (Error err = runAttention(call, outputs))
      return err;
    storeFlashLayout(outputs, ret0, ret1, ret2, ret3, ret4, ret5, ret6, ret7,
                     ret8);
    return Error::success();
  });
}

AOTITorchError aoti_torch_cuda__scaled_dot_product_cudnn_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle *attn_bias, int32_t compute_log_sumexp, double dropout_p,
    int32_t is_causal, int32_t return_debug_mask, double *scale,
    AtenTensorHandle *ret0, AtenTensorHandle *ret1, AtenTensorHandle *ret2,
    AtenTensorHandle *ret3, int64_t *ret4, int64_t *ret5,
    AtenTensorHandle *ret6, AtenTensorHandle *ret7, AtenTensorHandle *ret8) {
  return runShim(__func__, [&]() -> Error {
    AttentionCall call{AttentionOp::CudaCudnn,
                       query,
                       key,
                       value,
                       attn_bias,
                       "attn_bias",
                       dropout_p,
                       is_causal != 0,
                       scale,
                       compute_log_sumexp != 0,
                       return_debug_mask != 0};
    AttentionOutputs outputs;
    if (Error err = runAttention(call, outputs))
      return err;
    // meta returns None for the debug mask of cuDNN attention.
    outputs.debugMask.reset();
    storeFlashLayout(outputs, ret0, ret1, ret2, ret3, ret4, ret5, ret6, ret7,
                     ret8);
    return Error::success();
  });
}

AOTITorchError aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    double dropout_p, int32_t is_causal, AtenTensorHandle *attn_mask,
    double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1) {
  return runShim(__func__, [&]() -> Error {
    AttentionCall call{AttentionOp::CpuFlash,
                       query,
                       key,
                       value,
                       attn_mask,
                       "attn_mask",
                       dropout_p,
                       is_causal != 0,
                       scale,
                       true,
                       false};
    AttentionOutputs outputs;
    if (Error err = runAttention(call, outputs))
      return err;
    store(ret0, outputs.out);
    store(ret1, outputs.logsumexp);
    return Error::success();
  });
}

} // extern "C"
