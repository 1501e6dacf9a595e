//===- ops/cuda/cudnn_handle.h - One cuDNN handle per thread and device ----===//
//
// Shared by the cuDNN users (convolution.cpp, attention_cudnn.cpp), so that a
// thread holds one handle per device however many op families use cuDNN.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_CUDNN_HANDLE_H
#define AOTI_SHIMS_OPS_CUDA_CUDNN_HANDLE_H

#include "error.h"

#include <cudnn.h>

#include <cstdint>

namespace aoti::shims::ops::cuda {

/// Success, or a failure naming `what` and cuDNN's status.
Error checkCudnn(cudnnStatus_t status, const char *what);

/// This thread's handle for `device` (which must be current), bound to the
/// device's current stream. A handle must not be used by two threads at
/// once, and creating one is expensive: each thread creates its own once per
/// device and destroys it when the thread ends. cudnnSetStream is called
/// only when the stream differs from the one the handle was last bound to.
Expected<cudnnHandle_t> cudnnHandleFor(int32_t device);

} // namespace aoti::shims::ops::cuda

#endif // AOTI_SHIMS_OPS_CUDA_CUDNN_HANDLE_H
