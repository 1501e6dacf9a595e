//===- ops/cuda/convolution_graph.cpp - Forward convolution on cuDNN's graph ===//
//
// The forward convolution (no bias) through cuDNN's graph API, as torch runs
// its cuDNN convolutions (an execution plan per problem, built with
// cudnn-frontend), instead of the legacy cudnnConvolutionForward, which in
// cuDNN 9 is an emulation on top of the same graph API and pays for it on
// the host at every call. The default: forward convolutions without bias
// (inductor adds a CUDA convolution's bias itself) take it, and a problem
// the graph API does not take runs on the legacy path. On the H200 it took
// the zoo's convnets from 1.3-3x eager's time to 0.3-0.6x (docs/shims.md).
// AOTI_SHIMS_CUDA_CONV=legacy keeps every call on the legacy path (an A/B,
// and the tests of that path); =graph-only makes a refusal an error (tests);
// any other value is an error.
//
//   graph   X [N,C,(D,)H,W] -> conv_fprop(padding, stride, dilation; float32
//           compute) -> Y, each with the strides of its layout; W [K, C/g,
//           ...] (the graph infers the group count from C and W's C/g).
//   engines the heuristics' list (mode A), without the engines whose
//           numerical notes change the maths: TENSOR_CORE and
//           DOWN_CONVERT_INPUTS for float32 (that is TF32, which torch's
//           allow_tf32=False forbids, and the legacy path's CUDNN_FMA_MATH
//           too), REDUCED_PRECISION_REDUCTION for every dtype (half types
//           accumulate in float32, as the legacy descriptor says).
//   plan    the first engine that builds; kept in a per-thread
//           CudnnGraphCache (cudnn_graph_cache.h) of at most kMaxConvGraphs
//           plans. A refused problem is cached as refused.
//   call    lookup, alignment check, then executeCudnnGraph (workspace from
//           the stream-ordered pool, execute).
//
// cudnn_graph_cache.h says how exceptions are kept in and why the NVRTC
// references are weak.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/convolution_graph.h"

#include "ops/cuda/cudnn_graph_cache.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace aoti::shims::ops::cuda {
namespace {

namespace fe = cudnn_frontend;

enum : int64_t { kUidX = 1, kUidW, kUidY };

constexpr size_t kMaxConvGraphs = 1024;

thread_local CudnnGraphCache convGraphs(kMaxConvGraphs);

std::vector<int64_t> graphKey(const ConvGraphProblem &p) {
  std::vector<int64_t> key{p.device, static_cast<int64_t>(p.dtype)};
  for (const std::vector<int64_t> *part :
       {&p.inSizes, &p.inStrides, &p.wSizes, &p.wStrides, &p.outSizes,
        &p.outStrides, &p.pad, &p.stride, &p.dilation}) {
    key.push_back(static_cast<int64_t>(part->size()));
    key.insert(key.end(), part->begin(), part->end());
  }
  return key;
}

// The convolution's graph, or a refusal: a plan without a graph (the cache
// turns what cudnn-frontend throws into one).
CudnnGraphPlan buildGraph(cudnnHandle_t handle, const ConvGraphProblem &p) {
  CudnnGraphPlan built;
  auto graph = std::make_shared<fe::graph::Graph>();
  const fe::DataType_t io = p.dtype == ScalarType::Float16
                                ? fe::DataType_t::HALF
                            : p.dtype == ScalarType::BFloat16
                                ? fe::DataType_t::BFLOAT16
                                : fe::DataType_t::FLOAT;
  graph->set_io_data_type(io)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto x = graph->tensor(fe::graph::Tensor_attributes()
                             .set_name("X")
                             .set_uid(kUidX)
                             .set_dim(p.inSizes)
                             .set_stride(p.inStrides));
  auto w = graph->tensor(fe::graph::Tensor_attributes()
                             .set_name("W")
                             .set_uid(kUidW)
                             .set_dim(p.wSizes)
                             .set_stride(p.wStrides));
  auto y = graph->conv_fprop(x, w,
                             fe::graph::Conv_fprop_attributes()
                                 .set_name("conv")
                                 .set_padding(p.pad)
                                 .set_stride(p.stride)
                                 .set_dilation(p.dilation)
                                 .set_compute_data_type(
                                     fe::DataType_t::FLOAT));
  y->set_output(true).set_uid(kUidY).set_dim(p.outSizes).set_stride(
      p.outStrides);
  std::string why = cudnnFrontendFailure(graph->validate());
  if (why.empty())
    why = cudnnFrontendFailure(graph->build_operation_graph(handle));
  if (why.empty())
    why = cudnnFrontendFailure(
        graph->create_execution_plans({fe::HeurMode_t::A}));
  if (why.empty()) {
    std::vector<fe::NumericalNote_t> barred = {
        fe::NumericalNote_t::REDUCED_PRECISION_REDUCTION};
    if (p.dtype == ScalarType::Float32) {
      barred.push_back(fe::NumericalNote_t::TENSOR_CORE);
      barred.push_back(fe::NumericalNote_t::DOWN_CONVERT_INPUTS);
    }
    graph->deselect_numeric_notes(barred);
    why = cudnnFrontendFailure(graph->check_support());
  }
  if (why.empty())
    why = cudnnFrontendFailure(graph->build_plans());
  int64_t bytes = 0;
  if (why.empty())
    why = cudnnFrontendFailure(graph->get_workspace_size(bytes));
  if (!why.empty()) {
    built.whyNot = "cuDNN's graph API refused the convolution: " + why;
    return built;
  }
  built.workspaceBytes = bytes;
  built.graph = std::move(graph);
  return built;
}

} // namespace

Expected<ConvPath> requestedConvPath() {
  // Read per call (cheap next to a launch) so a test can switch paths.
  const char *path = std::getenv("AOTI_SHIMS_CUDA_CONV");
  if (!path || !*path || std::strcmp(path, "graph") == 0)
    return ConvPath::Graph;
  if (std::strcmp(path, "legacy") == 0)
    return ConvPath::Legacy;
  if (std::strcmp(path, "graph-only") == 0)
    return ConvPath::GraphOnly;
  return Error::failure("AOTI_SHIMS_CUDA_CONV=", path,
                        ": expected graph, legacy or graph-only (or unset)");
}

Expected<bool> convolutionGraph(cudnnHandle_t handle,
                                const ConvGraphProblem &problem,
                                const void *input, const void *weight,
                                void *out, std::string &whyNot) {
  const CudnnGraphPlan &built = convGraphs.find(
      graphKey(problem), [&] { return buildGraph(handle, problem); });
  if (!built.graph) {
    whyNot = built.whyNot;
    return false;
  }
  // The engines a graph plan picks assume 16-byte aligned operands (the H200
  // run: CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER for a tensor at an element
  // offset). The plan is per shape, not per pointer, so such a call takes the
  // legacy path, whose algorithms cuDNN ranks for the pointers it is given.
  for (const void *operand : {input, weight, static_cast<const void *>(out)})
    if (reinterpret_cast<uintptr_t>(operand) % 16 != 0) {
      whyNot = "an operand is not 16-byte aligned (a view at an offset); "
               "the graph API's plans assume it is";
      return false;
    }
  std::unordered_map<int64_t, void *> pointers = {
      {kUidX, const_cast<void *>(input)},
      {kUidW, const_cast<void *>(weight)},
      {kUidY, out}};
  if (Error err = executeCudnnGraph(handle, built, problem.device, pointers,
                                    "cuDNN graph convolution failed: "))
    return err;
  return true;
}

} // namespace aoti::shims::ops::cuda
