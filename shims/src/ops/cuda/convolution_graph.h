//===- ops/cuda/convolution_graph.h - Forward convolution on cuDNN's graph -===//
//
// Seen by cuda/convolution.cpp only, and only in a build with cudnn-frontend
// (AOTI_SHIMS_HAVE_CUDNN_FRONTEND; see convolution_graph.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_CONVOLUTION_GRAPH_H
#define AOTI_SHIMS_OPS_CUDA_CONVOLUTION_GRAPH_H

#include "error.h"
#include "tensor.h"

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aoti::shims::ops::cuda {

/// One forward convolution without bias in cuDNN's view (1-d as 2-d): every
/// operand dense in one layout (NCHW or NHWC), as convolution.cpp prepares
/// them.
struct ConvGraphProblem {
  ScalarType dtype;
  int32_t device;
  std::vector<int64_t> inSizes, inStrides, wSizes, wStrides, outSizes,
      outStrides;
  std::vector<int64_t> pad, stride, dilation;
};

/// What AOTI_SHIMS_CUDA_CONV asks for: the graph path where it takes the
/// problem (unset or "graph"), the legacy path for every call ("legacy"), or
/// the graph path and an error where it does not ("graph-only", for tests).
/// Any other value is an error naming the three.
enum class ConvPath { Legacy, Graph, GraphOnly };
Expected<ConvPath> requestedConvPath();

/// Enqueues the convolution on `handle`'s stream (the device's current one;
/// the device is current): true. False, with cuDNN's reason in `whyNot`,
/// when no graph-API engine takes the problem (nothing was enqueued). An
/// Error when one took it and failed.
Expected<bool> convolutionGraph(cudnnHandle_t handle,
                                const ConvGraphProblem &problem,
                                const void *input, const void *weight,
                                void *out, std::string &whyNot);

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_CONVOLUTION_GRAPH_H
