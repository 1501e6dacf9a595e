//===- ops/cuda/cudnn_graph_cache.cpp - Built cuDNN graphs, per thread -----===//
//
// See cudnn_graph_cache.h.
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/cudnn_graph_cache.h"

#include "cuda_api.h"

namespace aoti::shims::ops::cuda {

namespace rt = aoti::shims::cuda;

std::string cudnnFrontendFailure(cudnn_frontend::error_t status) {
  return status.is_good() ? std::string() : status.get_message();
}

const CudnnGraphPlan &CudnnGraphCache::insert(const std::vector<int64_t> &key,
                                              CudnnGraphPlan plan) {
  if (plans.size() >= maxPlans)
    plans.clear();
  return plans.emplace(key, std::move(plan)).first->second;
}

Error executeCudnnGraph(cudnnHandle_t handle, const CudnnGraphPlan &plan,
                        int32_t device,
                        std::unordered_map<int64_t, void *> &pointers,
                        const char *what) {
  void *workspace = nullptr;
  if (plan.workspaceBytes > 0) {
    Expected<void *> memory =
        rt::allocate(device, static_cast<size_t>(plan.workspaceBytes));
    if (!memory)
      return memory.takeError();
    workspace = *memory;
  }
  std::string failure;
  try {
    failure =
        cudnnFrontendFailure(plan.graph->execute(handle, pointers, workspace));
  } catch (const std::exception &e) {
    failure = std::string("cudnn-frontend threw: ") + e.what();
  }
  if (workspace)
    rt::release(workspace, Device{DeviceType::CUDA, device});
  if (!failure.empty())
    return Error::failure(what, failure);
  return Error::success();
}

} // namespace aoti::shims::ops::cuda
