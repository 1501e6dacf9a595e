//===- cuda/attention.cpp - Launching the attention kernel -----------------===//
//
// Checks what only the CUDA kernel limits (head dims within the registers a
// lane holds, grid dimensions), makes the tensors' device current and
// enqueues attention.cu's kernel on that device's current stream, the one
// the allocator and every other shim use. Nothing is synchronised.
//
// Which implementation runs (cuDNN first in a build with cudnn-frontend):
// float16 / bfloat16 problems that cuDNN's fused attention computes exactly
// as AttentionArgs defines go to it (attention_cudnn.cpp says which); the
// rest run attention.cu's tiled kernel. AOTI_SHIMS_CUDA_ATTENTION, read per
// call so tests and benchmarks can switch, overrides that:
//   cudnn              cuDNN, and a problem it does not take is an error
//                      saying why
//   ours               our kernel (the tiled one) even where cuDNN would run
//   row, per-key       the warp-per-row kernel before the tiled one, or the
//                      per-key cross-check kernel
//   tiled-64, tiled-32 one tile height of the tiled kernel
// Every choice is tested; an unknown value is an error, not a silent default.
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

namespace {

enum class AttentionPath { Auto, Cudnn, Ours };

struct AttentionChoice {
  AttentionPath path = AttentionPath::Auto;
  AttentionKernel kernel = AttentionKernel::Tiled;
};

Expected<AttentionChoice> attentionChoice() {
  const char *value = std::getenv("AOTI_SHIMS_CUDA_ATTENTION");
  if (!value || !*value)
    return AttentionChoice{};
  static constexpr struct {
    const char *name;
    AttentionPath path;
    AttentionKernel kernel;
  } kChoices[] = {
      {"cudnn", AttentionPath::Cudnn, AttentionKernel::Tiled},
      {"ours", AttentionPath::Ours, AttentionKernel::Tiled},
      {"row", AttentionPath::Ours, AttentionKernel::Chunked},
      {"per-key", AttentionPath::Ours, AttentionKernel::PerKey},
      {"tiled-64", AttentionPath::Ours, AttentionKernel::TiledRows64},
      {"tiled-32", AttentionPath::Ours, AttentionKernel::TiledRows32},
  };
  for (const auto &c : kChoices)
    if (std::strcmp(value, c.name) == 0)
      return AttentionChoice{c.path, c.kernel};
  return Error::failure("AOTI_SHIMS_CUDA_ATTENTION=", value,
                        ": expected cudnn, ours, row, per-key, tiled-64 or "
                        "tiled-32 (or unset)");
}

} // namespace

Error cuda::attention(const AttentionArgs &args, int32_t device) {
  Expected<AttentionChoice> choice = attentionChoice();
  if (!choice)
    return choice.takeError();
  if (choice->path != AttentionPath::Ours) {
#ifdef AOTI_SHIMS_HAVE_CUDNN_FRONTEND
    std::string whyNot;
    Expected<bool> ran = attentionCudnn(args, device, whyNot);
    if (!ran)
      return ran.takeError();
    if (*ran)
      return Error::success();
#else
    const std::string whyNot =
        "this build has no cudnn-frontend (see ci/setup.sh)";
#endif
    if (choice->path == AttentionPath::Cudnn)
      return Error::failure("AOTI_SHIMS_CUDA_ATTENTION=cudnn, but cuDNN does "
                            "not take this attention: ", whyNot);
  }
  if (args.headDim > kMaxCudaHeadDim || args.valueDim > kMaxCudaHeadDim)
    return Error::failure("head dims ", args.headDim, " (query/key) and ",
                          args.valueDim, " (value): the CUDA attention "
                          "kernel takes at most ", kMaxCudaHeadDim);
  constexpr int64_t kMaxGridYZ = 65535;
  if (args.heads > kMaxGridYZ || args.batch > kMaxGridYZ)
    return Error::failure("batch ", args.batch, " x heads ", args.heads,
                          ": the CUDA attention kernel takes at most ",
                          kMaxGridYZ, " of each");
  shims::cuda::ScopedDevice scope(device);
  if (Error err = scope.takeStatus())
    return err;
  auto stream = static_cast<cudaStream_t>(shims::cuda::currentStream(device));
  return shims::cuda::checkCuda(launchAttentionKernel(args, choice->kernel, stream),
                         "attention kernel launch");
}

} // namespace aoti::shims::ops
