//===- ops/cuda/cudnn_graph_cache.h - Built cuDNN graphs, per thread -------===//
//
// The users of cuDNN's graph API through cudnn-frontend (attention_cudnn.cpp,
// convolution_graph.cpp) build one graph per problem, which costs
// milliseconds on the host (heuristics, engine configs, plan finalization),
// and then execute it at every call with the same shape. This is the cache
// of those built graphs, and the one way they are executed:
//
//   what    a CudnnGraphPlan per problem: the graph, finalized with its
//           execution plan, and the workspace size it asks for; or, for a
//           problem cuDNN refused (or on which cudnn-frontend threw), no
//           graph and the reason, so that a refused problem is asked once
//           and then goes to the caller's other path at once.
//   key     a vector of int64_t that the user makes of everything the built
//           plan depends on: the device, the dtypes, every size and stride,
//           the op's attributes. Pointers are not in it (a plan is per
//           shape), so a user checks what depends on the pointers (such as
//           their alignment) itself.
//   bound   at most `maxPlans` plans; the cache is emptied when a new problem
//           finds it full. A model has a handful of shapes per op, so only
//           dynamic shapes could grow it without end, and dropping everything
//           once in a while costs only rebuilds.
//   threads none shared: a plan is finalized against the building thread's
//           cuDNN handle (cudnn_handle.h), and executing a graph writes to
//           the graph's own caches. Each user keeps its cache `thread_local`,
//           so every thread builds its own plans.
//
// Including this header also brings cudnn-frontend, with the NVRTC functions
// it references declared weak (below); it is compiled only in a build that
// has cudnn-frontend (shims/CMakeLists.txt).
//
// Errors. cudnn-frontend reports through error_t values, but parts of it
// (and the standard library under it) throw: the build and execute calls are
// made inside try blocks here, and a builder may throw whatever it likes.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_CUDNN_GRAPH_CACHE_H
#define AOTI_SHIMS_OPS_CUDA_CUDNN_GRAPH_CACHE_H

#include "error.h"

#include <cudnn_frontend.h>

// cudnn-frontend's plans.h includes, whatever the graph, an experimental
// SM100 RMS-norm engine that compiles kernels with NVRTC. Nothing here builds
// such a graph, so those NVRTC calls are never made: weak references keep
// libnvrtc out of the shims' dependencies (bound to it when the process has
// it, null otherwise). They are declared in every file that includes
// cudnn-frontend, through this header.
#pragma weak nvrtcCreateProgram
#pragma weak nvrtcCompileProgram
#pragma weak nvrtcDestroyProgram
#pragma weak nvrtcGetCUBIN
#pragma weak nvrtcGetCUBINSize
#pragma weak nvrtcGetProgramLog
#pragma weak nvrtcGetProgramLogSize

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoti::shims::ops::cuda {

/// One problem's graph, built, or why cuDNN refused it.
struct CudnnGraphPlan {
  std::shared_ptr<cudnn_frontend::graph::Graph> graph; // null: refused
  std::string whyNot;
  int64_t workspaceBytes = 0;
};

/// The status's message, or "" when it is good.
std::string cudnnFrontendFailure(cudnn_frontend::error_t status);

/// The built plans of one op family on one thread (see the file comment).
class CudnnGraphCache {
public:
  explicit CudnnGraphCache(size_t bound) : maxPlans(bound) {}

  /// The plan of `key`, built by `build()` (a CudnnGraphPlan) the first time
  /// the key is seen; a builder that throws gives a refused plan. The
  /// reference holds until this cache's next lookup.
  template <typename Build>
  const CudnnGraphPlan &find(const std::vector<int64_t> &key, Build &&build) {
    auto found = plans.find(key);
    if (found != plans.end())
      return found->second;
    CudnnGraphPlan plan;
    try {
      plan = build();
    } catch (const std::exception &e) {
      plan = CudnnGraphPlan{};
      plan.whyNot = std::string("cudnn-frontend threw: ") + e.what();
    }
    return insert(key, std::move(plan));
  }

private:
  const CudnnGraphPlan &insert(const std::vector<int64_t> &key,
                               CudnnGraphPlan plan);

  size_t maxPlans;
  std::map<std::vector<int64_t>, CudnnGraphPlan> plans;
};

/// Enqueues a built `plan` on `handle`'s stream (the device's current one;
/// `device` is current) with the operands bound by uid in `pointers`, and a
/// workspace of the plan's size from the shims' stream-ordered pool, freed
/// stream-ordered after it. A failure's message starts with `what`.
Error executeCudnnGraph(cudnnHandle_t handle, const CudnnGraphPlan &plan,
                        int32_t device,
                        std::unordered_map<int64_t, void *> &pointers,
                        const char *what);

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_CUDNN_GRAPH_CACHE_H
