//===- attention_cuda_unavailable.cpp - attentionCuda without CUDA ---------===//
//
// Compiled instead of cuda/attention.{cpp,cu} when AOTI_HAVE_CUDA is OFF, so
// the CUDA attention entry points exist in every build. They cannot get
// here with real CUDA tensors (none can be made), but fail the same way the
// other CUDA shims do if they ever did.
//
//===----------------------------------------------------------------------===//
#include "ops/attention.h"

namespace aoti::shims::ops {

Error attentionCuda(const AttentionArgs &, int32_t) {
  return Error::failure("CUDA support was not compiled into libaoti_shims "
                        "(configure with AOTI_CUDA=ON and a CUDA toolkit)");
}

} // namespace aoti::shims::ops
