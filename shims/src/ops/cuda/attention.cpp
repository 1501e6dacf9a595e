//===- cuda/attention.cpp - Launching the attention kernel -----------------===//
//
// Checks what only the CUDA kernel limits (head dims within the registers a
// lane holds, grid dimensions), makes the tensors' device current and
// enqueues attention.cu's kernel on that device's current stream, the one
// the allocator and every other shim use. Nothing is synchronised.
// AOTI_SHIMS_CUDA_ATTENTION=row selects the warp-per-row kernel and =per-key
// the per-key one instead of the default tiled kernel, =tiled-64 or tiled-32
// one tile height of it (cross-checks and A/B timing; all are tested).
//
//===----------------------------------------------------------------------===//
#include "ops/attention.h"

#include "cuda/device_scope.h"
#include "cuda_api.h"
#include "ops/cuda/attention_kernel.h"

#include <cstdlib>
#include <cstring>

namespace aoti::shims::ops {

Error attentionCuda(const AttentionArgs &args, int32_t device) {
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
  AttentionKernel kernel = AttentionKernel::Tiled;
  if (choice && std::strcmp(choice, "per-key") == 0)
    kernel = AttentionKernel::PerKey;
  else if (choice && std::strcmp(choice, "row") == 0)
    kernel = AttentionKernel::Chunked;
  else if (choice && std::strcmp(choice, "tiled-64") == 0)
    kernel = AttentionKernel::TiledRows64;
  else if (choice && std::strcmp(choice, "tiled-32") == 0)
    kernel = AttentionKernel::TiledRows32;
  return cuda::checkCuda(launchAttentionKernel(args, kernel, stream),
                         "attention kernel launch");
}

} // namespace aoti::shims::ops
