//===- ops/cuda/cudnn_handle.cpp - One cuDNN handle per thread and device --===//
//
// A thread_local table of handles, indexed by device, each with the stream
// it was last bound to (see cudnn_handle.h).
//
//===----------------------------------------------------------------------===//
#include "ops/cuda/cudnn_handle.h"

#include "cuda/cuda_internal.h"
#include "cuda_api.h"

namespace aoti::shims::ops::cuda {
namespace {

namespace rt = aoti::shims::cuda;

struct HandleCache {
  cudnnHandle_t handles[rt::kMaxDevices] = {};
  cudaStream_t streams[rt::kMaxDevices] = {};
  ~HandleCache() {
    for (cudnnHandle_t handle : handles)
      if (handle)
        (void)cudnnDestroy(handle);
  }
};
thread_local HandleCache handleCache;

} // namespace

Error checkCudnn(cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return Error::success();
  return Error::failure(what, " failed: ", cudnnGetErrorString(status));
}

Expected<cudnnHandle_t> cudnnHandleFor(int32_t device) {
  if (device < 0 || device >= rt::kMaxDevices)
    return Error::failure("CUDA device index ", device, " out of range");
  cudnnHandle_t &handle = handleCache.handles[device];
  const auto stream = static_cast<cudaStream_t>(rt::currentStream(device));
  if (!handle) {
    if (Error err = checkCudnn(cudnnCreate(&handle), "cudnnCreate")) {
      handle = nullptr;
      return err;
    }
  } else if (handleCache.streams[device] == stream) {
    return handle;
  }
  if (Error err = checkCudnn(cudnnSetStream(handle, stream), "cudnnSetStream"))
    return err;
  handleCache.streams[device] = stream;
  return handle;
}

} // namespace aoti::shims::ops::cuda
