//===- cuda/attention.cpp - Launching the attention kernel -----------------===//
//
// Checks what only the CUDA kernel limits (head dims within the registers a
// lane holds, grid dimensions), makes the tensors' device current and
// enqueues attention.cu's kernel on that device's current stream, the one
// the allocator and every other shim use. Nothing is synchronised.
// AOTI_SHIMS_CUDA_ATTENTION=per-key selects the simpler per-key kernel
// instead of the default chunked one (a cross-check; both are tested).
//
// cuDNN first (a build with cudnn-frontend): float16 / bfloat16 problems
// that cuDNN's fused attention computes exactly as AttentionArgs defines go
// to it (attention_cudnn.cpp says which); the rest, and every problem when
// AOTI_SHIMS_CUDA_ATTENTION is "ours", "chunked" or "per-key", run our
// kernel. AOTI_SHIMS_CUDA_ATTENTION=cudnn makes a problem cuDNN does not
// take an error saying why (for tests and A/B measurement).
//
//===----------------------------------------------------------------------===//
#include "ops/attention.h"

#include "cuda/device_scope.h"
#include "cuda_api.h"
#include "ops/cuda/attention_kernel.h"
#ifdef AOTI_SHIMS_HAVE_CUDNN_FRONTEND
#include "ops/cuda/attention_cudnn.h"
#endif

#include <cstdlib>
#include <cstring>
#include <string>

namespace aoti::shims::ops {

Error attentionCuda(const AttentionArgs &args, int32_t device) {
  // --- cuDNN's fused attention first (see the file comment) ---------------
  {
    const char *path = std::getenv("AOTI_SHIMS_CUDA_ATTENTION");
    const bool ours = path && (std::strcmp(path, "ours") == 0 ||
                               std::strcmp(path, "chunked") == 0 ||
                               std::strcmp(path, "per-key") == 0);
    const bool onlyCudnn = path && std::strcmp(path, "cudnn") == 0;
#ifdef AOTI_SHIMS_HAVE_CUDNN_FRONTEND
    std::string whyNot;
    if (!ours) {
      Expected<bool> ran = attentionCudnn(args, device, whyNot);
      if (!ran)
        return ran.takeError();
      if (*ran)
        return Error::success();
    }
#else
    const std::string whyNot =
        "this build has no cudnn-frontend (see ci/setup.sh)";
#endif
    if (onlyCudnn)
      return Error::failure("AOTI_SHIMS_CUDA_ATTENTION=cudnn, but cuDNN does "
                            "not take this attention: ", whyNot);
    (void)ours;
  }
  // -------------------------------------------------------------------------
  if (args.headDim > kMaxCudaHeadDim || args.valueDim > kMaxCudaHeadDim)
    return Error::failure("head dims ", args.headDim, " (query/key) and ",
                          args.valueDim, " (value): the CUDA attention "
                          "kernel takes at most ", kMaxCudaHeadDim);
  constexpr int64_t kMaxGridYZ = 65535;
  if (args.heads > kMaxGridYZ || args.batch > kMaxGridYZ)
    return Error::failure("batch ", args.batch, " x heads ", args.heads,
                          ": the CUDA attention kernel takes at most ",
                          kMaxGridYZ, " of each");
  cuda::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  auto stream = static_cast<cudaStream_t>(cuda::currentStream(device));
  // Read per call (cheap next to a launch) so a test can switch kernels.
  const char *choice = std::getenv("AOTI_SHIMS_CUDA_ATTENTION");
  const AttentionKernel kernel =
      choice && std::strcmp(choice, "per-key") == 0 ? AttentionKernel::PerKey
                                                    : AttentionKernel::Chunked;
  return cuda::checkCuda(launchAttentionKernel(args, kernel, stream),
                         "attention kernel launch");
}

} // namespace aoti::shims::ops
