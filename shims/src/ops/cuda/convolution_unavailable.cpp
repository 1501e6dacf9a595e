//===- ops/cuda/convolution_unavailable.cpp - No cuDNN in this build -------===//
//
// Compiled instead of ops/cuda/convolution.cpp when AOTI_HAVE_CUDA is OFF, so
// aoti_torch_cuda_convolution exists in every build and fails with the same
// message as every other CUDA shim there (cuda_unavailable.cpp).
//
//===----------------------------------------------------------------------===//
#include "ops/convolution.h"

#include "cuda_api.h"

namespace aoti::shims::ops::cuda {

Error convolution(const ConvProblem &, const Tensor &) {
  return shims::cuda::currentDevice().takeError();
}

} // namespace aoti::shims::ops::cuda
