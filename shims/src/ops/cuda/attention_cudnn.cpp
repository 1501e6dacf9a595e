//===- ops/cuda/attention_cudnn.cpp - SDPA on cuDNN's fused attention ------===//
//
// The float16 / bfloat16 attention of AttentionArgs on cuDNN's fused
// scaled-dot-product attention (the tensor-core flash-attention kernels that
// eager PyTorch's _scaled_dot_product_cudnn_attention runs), through NVIDIA's
// cudnn-frontend graph API (header-only; ci/setup.sh fetches it):
//
//   graph   Q [B,H,Lq,E], K [B,Hk,Lk,E], V [B,Hk,Lk,Ev] (Hk divides H:
//           grouped-query heads read their shared K/V head in place),
//           each with its own strides (the usual [B,L,H,E] transposes read
//           in place) -> sdpa(scale, causal top-left or bottom-right,
//           additive bias) -> O [B,H,Lq,Ev] with out's strides, and Stats
//           [B,H,Lq,1] float32 with the logsumexp's strides when the op
//           returns a logsumexp (cuDNN's Stats is exactly it: max + log of
//           the sum of exponentials, natural log). float32 accumulation and
//           softmax; the probabilities are rounded to the input dtype before
//           they multiply V (as in every flash-attention kernel).
//   plan    built once per problem (validate, operation graph, heuristics'
//           engine configs, support check, the first plan that builds) and
//           kept in a per-thread CudnnGraphCache (cudnn_graph_cache.h says
//           why per thread) of at most kMaxSdpaPlans plans. A problem cuDNN
//           refuses is cached too, as "refused, because ...", so it is asked
//           once.
//   call    key, lookup, cudnnSetStream when the stream changed, then
//           executeCudnnGraph (workspace from the shims' stream-ordered
//           pool, graph.execute, workspace freed stream-ordered).
//
// What is left to our own kernel (attention.cu), decided before cuDNN is
// asked, because cuDNN's answer would differ from AttentionArgs' definition
// or its kernels cannot read the operands: float32 (cuDNN's fused attention
// has no float32 kernel); boolean masks (torch's semantics give a row whose
// keys are all masked out = 0 and logsumexp = -inf, which an additive -inf
// bias in cuDNN does not produce); a float mask of another dtype than the
// inputs; flash's bottom-right causal mask when Lq > Lk (rows with no key at
// all, the same case); efficient attention's logsumexp padded to a multiple
// of 32 rows (the padding rows hold +inf, which cuDNN does not write); head
// dims that are not multiples of 8, operands whose head dim is not dense or
// whose rows or base address are not 16-byte aligned (cuDNN's kernels load
// 16-byte vectors); empty sequences. Everything else is cuDNN's to accept or
// refuse (head dims beyond its kernels, bias broadcasts it does not take):
// a graph that fails to build is a refusal, and our kernel runs.
// A float bias that masks a whole row with -inf is the one input whose
// result depends on the path: cuDNN's (as eager's cuDNN attention) rather
// than our kernel's zeros.
//
// Errors. cudnn-frontend reports through error_t values, but parts of it
// (and the standard library under it) throw; the graph cache builds and
// executes inside try blocks, and the C entry points' runShim() guard
// catches anything else, so no exception reaches a model.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/attention_cudnn.h"

#include "cuda/device_scope.h"
#include "ops/cuda/cudnn_graph_cache.h"
#include "ops/cuda/cudnn_handle.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace aoti::shims::ops {
namespace {

namespace fe = cudnn_frontend;
namespace rt = aoti::shims::cuda;
using cuda::CudnnGraphPlan;

// The graph's tensors, by the uid their pointers are bound to at execution.
enum : int64_t { kUidQ = 1, kUidK, kUidV, kUidBias, kUidO, kUidStats };

constexpr size_t kMaxSdpaPlans = 256;

thread_local cuda::CudnnGraphCache sdpaPlans(kMaxSdpaPlans);

bool aligned16(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// Why `strides` of a [.., .., rows, headDim] operand at `data` cannot be
// read by cuDNN's kernels, or "".
std::string layoutProblem(const char *name, const void *data,
                          const int64_t (&strides)[4]) {
  if (strides[3] != 1)
    return std::string(name) + " is not dense in its head dim (stride " +
           std::to_string(strides[3]) + ")";
  for (int d = 0; d < 3; ++d)
    if (strides[d] % 8 != 0)
      return std::string(name) + " has stride " + std::to_string(strides[d]) +
             " in dim " + std::to_string(d) +
             ", not a multiple of 8 elements (16 bytes)";
  if (!aligned16(data))
    return std::string(name) + " does not start on a 16-byte boundary";
  return "";
}

// The mask's element kind as cuDNN's bias would need it: the inputs'.
bool maskMatchesInputs(const AttentionArgs &a) {
  return (a.maskKind == AttentionMask::Float16 &&
          a.element == AttentionElement::Float16) ||
         (a.maskKind == AttentionMask::BFloat16 &&
          a.element == AttentionElement::BFloat16);
}

// Why this problem stays with our kernel (see the file comment), or "".
std::string whyNotCudnn(const AttentionArgs &a) {
  if (a.element == AttentionElement::Float32)
    return "float32 (cuDNN's fused attention takes float16 and bfloat16)";
  if (a.queryLen == 0 || a.keyLen == 0)
    return "an empty sequence";
  if (a.headDim % 8 != 0 || a.valueDim % 8 != 0)
    return "head dims " + std::to_string(a.headDim) + "/" +
           std::to_string(a.valueDim) + " are not multiples of 8";
  for (const auto &[name, data, strides] :
       {std::tuple<const char *, const void *, const int64_t(&)[4]>{
            "query", a.query, a.queryStrides},
        {"key", a.key, a.keyStrides},
        {"value", a.value, a.valueStrides},
        {"out", a.out, a.outStrides}})
    if (std::string problem = layoutProblem(name, data, strides);
        !problem.empty())
      return problem;
  if (a.maskKind == AttentionMask::Bool)
    return "a boolean mask (a row with every key masked must give 0 and a "
           "logsumexp of -inf)";
  if (a.maskKind != AttentionMask::None) {
    if (!maskMatchesInputs(a))
      return "a mask whose dtype differs from the inputs'";
    if (a.maskStrides[3] > 1)
      return "a mask that is not dense along the keys";
    for (int d = 0; d < 3; ++d)
      if (a.maskStrides[d] % 8 != 0)
        return "a mask with a stride that is not a multiple of 8 elements";
    if (!aligned16(a.mask))
      return "a mask that does not start on a 16-byte boundary";
  }
  if (a.logsumexp && a.logsumexpRows != a.queryLen)
    return "a logsumexp padded to " + std::to_string(a.logsumexpRows) +
           " rows (efficient attention's multiple of 32)";
  if (a.causal && a.causalOffset < 0)
    return "a bottom-right causal mask with more queries than keys (rows "
           "that see no key)";
  if (a.causal && a.causalOffset != 0 && a.causalOffset != a.keyLen - a.queryLen)
    return "a causal offset other than top-left or bottom-right";
  return "";
}

std::vector<int64_t> planKey(const AttentionArgs &a, int32_t device) {
  std::vector<int64_t> key{device,
                           static_cast<int64_t>(a.element),
                           a.batch,
                           a.heads,
                           a.kvHeads,
                           a.queryLen,
                           a.keyLen,
                           a.headDim,
                           a.valueDim,
                           static_cast<int64_t>(std::bit_cast<uint32_t>(a.scale)),
                           a.causal,
                           a.causalOffset,
                           static_cast<int64_t>(a.maskKind),
                           a.logsumexp != nullptr};
  for (const int64_t *strides : {a.queryStrides, a.keyStrides, a.valueStrides,
                                 a.outStrides, a.maskStrides})
    key.insert(key.end(), strides, strides + 4);
  if (a.logsumexp)
    key.insert(key.end(), a.logsumexpStrides, a.logsumexpStrides + 3);
  return key;
}

// The bias tensor's dims and strides: size 1 along the dimensions the mask
// broadcasts over (stride 0 in AttentionArgs), with a packed stride there.
void biasLayout(const AttentionArgs &a, std::vector<int64_t> &dims,
                std::vector<int64_t> &strides) {
  const int64_t full[4] = {a.batch, a.heads, a.queryLen, a.keyLen};
  dims.assign(4, 1);
  strides.assign(4, 1);
  int64_t extent = 1;
  for (int d = 3; d >= 0; --d) {
    if (a.maskStrides[d] == 0) {
      strides[static_cast<size_t>(d)] = extent;
      continue;
    }
    dims[static_cast<size_t>(d)] = full[d];
    strides[static_cast<size_t>(d)] = a.maskStrides[d];
    extent = std::max(extent, a.maskStrides[d] * full[d]);
  }
}

// Builds the graph of `a` against `handle`; a refusal is a plan without a
// graph (the cache turns what cudnn-frontend throws into one).
CudnnGraphPlan buildPlan(cudnnHandle_t handle, const AttentionArgs &a) {
  CudnnGraphPlan plan;
  auto graph = std::make_shared<fe::graph::Graph>();
  const fe::DataType_t io = a.element == AttentionElement::Float16
                                ? fe::DataType_t::HALF
                                : fe::DataType_t::BFLOAT16;
  graph->set_io_data_type(io)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto input = [&](const char *name, int64_t uid, std::vector<int64_t> dims,
                   const int64_t (&strides)[4]) {
    return graph->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim(std::move(dims))
                             .set_stride({strides[0], strides[1],
                                          strides[2], strides[3]}));
  };
  auto q = input("Q", kUidQ, {a.batch, a.heads, a.queryLen, a.headDim},
                 a.queryStrides);
  auto k = input("K", kUidK, {a.batch, a.kvHeads, a.keyLen, a.headDim},
                 a.keyStrides);
  auto v = input("V", kUidV, {a.batch, a.kvHeads, a.keyLen, a.valueDim},
                 a.valueStrides);
  fe::graph::SDPA_attributes options;
  options.set_name("sdpa")
      .set_generate_stats(a.logsumexp != nullptr)
      .set_attn_scale(a.scale);
  if (a.causal) {
    if (a.causalOffset == 0)
      options.set_causal_mask(true);
    else
      options.set_causal_mask_bottom_right(true);
  }
  if (a.maskKind != AttentionMask::None) {
    std::vector<int64_t> dims, strides;
    biasLayout(a, dims, strides);
    options.set_bias(graph->tensor(fe::graph::Tensor_attributes()
                                       .set_name("bias")
                                       .set_uid(kUidBias)
                                       .set_dim(dims)
                                       .set_stride(strides)
                                       .set_data_type(io)));
  }
  auto [o, stats] = graph->sdpa(q, k, v, options);
  o->set_output(true)
      .set_uid(kUidO)
      .set_dim({a.batch, a.heads, a.queryLen, a.valueDim})
      .set_stride({a.outStrides[0], a.outStrides[1], a.outStrides[2],
                   a.outStrides[3]});
  if (a.logsumexp) {
    if (!stats) {
      plan.whyNot = "cuDNN's graph has no Stats output";
      return plan;
    }
    stats->set_output(true)
        .set_uid(kUidStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim({a.batch, a.heads, a.queryLen, 1})
        .set_stride({a.logsumexpStrides[0], a.logsumexpStrides[1],
                     a.logsumexpStrides[2], 1});
  }
  fe::error_t status = graph->build(handle, {fe::HeurMode_t::A});
  if (status.is_bad()) {
    plan.whyNot = "cuDNN refused the graph: " + status.get_message();
    return plan;
  }
  int64_t bytes = 0;
  status = graph->get_workspace_size(bytes);
  if (status.is_bad()) {
    plan.whyNot = "cuDNN gave no workspace size: " + status.get_message();
    return plan;
  }
  plan.workspaceBytes = bytes;
  plan.graph = std::move(graph);
  return plan;
}

// Enqueues the plan's graph on the operands of `a`.
Error execute(cudnnHandle_t handle, const CudnnGraphPlan &plan,
              const AttentionArgs &a, int32_t device) {
  std::unordered_map<int64_t, void *> pointers = {
      {kUidQ, const_cast<void *>(a.query)},
      {kUidK, const_cast<void *>(a.key)},
      {kUidV, const_cast<void *>(a.value)},
      {kUidO, a.out}};
  if (a.maskKind != AttentionMask::None)
    pointers.emplace(kUidBias, const_cast<void *>(a.mask));
  if (a.logsumexp)
    pointers.emplace(kUidStats, a.logsumexp);
  return cuda::executeCudnnGraph(handle, plan, device, pointers,
                                 "cuDNN attention failed: ");
}

} // namespace

Expected<bool> attentionCudnn(const AttentionArgs &args, int32_t device,
                              std::string &whyNot) {
  whyNot = whyNotCudnn(args);
  if (!whyNot.empty())
    return false;
  rt::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  Expected<cudnnHandle_t> handle = cuda::cudnnHandleFor(device);
  if (!handle)
    return handle.takeError();
  const CudnnGraphPlan &plan = sdpaPlans.find(
      planKey(args, device), [&] { return buildPlan(*handle, args); });
  if (!plan.graph) {
    whyNot = plan.whyNot;
    return false;
  }
  if (Error err = execute(*handle, plan, args, device))
    return err;
  return true;
}

} // namespace aoti::shims::ops
