//===- ops/cuda/attention_cudnn.h - SDPA on cuDNN's fused attention --------===//
//
// Seen by cuda/attention.cpp only, and only in a build with cudnn-frontend
// (AOTI_SHIMS_HAVE_CUDNN_FRONTEND; see attention_cudnn.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_OPS_CUDA_ATTENTION_CUDNN_H
#define AOTI_SHIMS_OPS_CUDA_ATTENTION_CUDNN_H

#include "error.h"
#include "ops/attention_args.h"

#include <cstdint>
#include <string>

namespace aoti::shims::ops {

/// Enqueues `args` (a checked problem whose pointers are memory of CUDA
/// `device`) on cuDNN's fused attention, on the device's current stream,
/// when cuDNN takes the problem and computes exactly what AttentionArgs
/// defines: true. False, with the reason in `whyNot`, when it does not (the
/// caller runs its own kernel); nothing was enqueued then. An Error when
/// cuDNN took the problem and failed to run it.
Expected<bool> attentionCudnn(const AttentionArgs &args, int32_t device,
                              std::string &whyNot);

} // namespace aoti::shims::ops

#endif // AOTI_SHIMS_OPS_CUDA_ATTENTION_CUDNN_H
