//===- attention.h - Scaled dot-product attention fallbacks ----------------===//
//
// The forward pass of torch's fused SDPA ops, as AOTInductor calls them when
// it cannot generate the attention itself:
//   aoti_torch_cuda__scaled_dot_product_efficient_attention
//   aoti_torch_cuda__scaled_dot_product_flash_attention
//   aoti_torch_cuda__scaled_dot_product_cudnn_attention
//   aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu
// All four compute the same function (attention_args.h); they differ in
// which outputs they return and in those outputs' layouts, which inductor
// takes from torch's meta functions and bakes into the model, so
// attention.cpp reproduces each meta function exactly.
//
// attention.cpp decodes and checks the arguments and allocates the outputs
// (device-neutral); cpu/attention.cpp and cuda/attention.{cpp,cu} compute.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_ATTENTION_H
#define AOTI_SHIMS_OPS_ATTENTION_H

#include "error.h"
#include "ops/attention_args.h"
#include "ops/device.h"

#include <cstdint>
#include <span>
#include <vector>

namespace aoti::shims::ops {

/// Strides of torch.empty_like(t) (memory_format=preserve) for a tensor
/// with these sizes and strides: the same strides when the layout is
/// non-overlapping and dense, otherwise dense strides that keep the order
/// of the dimensions by stride (ATen's infer_dense_strides).
std::vector<int64_t> emptyLikeStrides(std::span<const int64_t> sizes,
                                      std::span<const int64_t> strides);

/// Strides of _meta_registrations.alloc_with_matching_layout(query, shape)
/// (cuDNN attention's output): empty_like(query) when the shapes are equal,
/// else a dense tensor whose dimensions are ordered like query's strides.
std::vector<int64_t>
matchingLayoutStrides(std::span<const int64_t> querySizes,
                      std::span<const int64_t> queryStrides,
                      std::span<const int64_t> sizes);

namespace cpu {
/// Runs `args` on the host (every pointer is host memory).
Error attention(const AttentionArgs &args);
} // namespace cpu

namespace cuda {
/// Runs `args` on CUDA `device` (every pointer is memory of that device),
/// on the device's current stream.
AOTI_SHIMS_CUDA_OP(Error, attention, const AttentionArgs &args,
                   int32_t device);
} // namespace cuda

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_ATTENTION_H
