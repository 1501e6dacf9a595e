//===- device_check.cu - The device-side record of a bad kernel argument ---===//
//
// The storage of cuda_api.h's DeviceCheck: a __device__ variable, so that
// every device holds one for the life of the process, zero from the moment
// the module is loaded, with no allocation and no memset to order against
// a capture. (Each .cu file compiled without relocatable device code would
// get its own copy of a __device__ variable it declared: the op families'
// kernels therefore take this one's address as an argument, which
// runtime.cpp looks up once per device.)
//
//===----------------------------------------------------------------------===//
#include "cuda_internal.h"

namespace aoti::shims::cuda {

__device__ unsigned long long
    aotiShimsDeviceCheck[kDeviceCheckBytes / sizeof(unsigned long long)];

cudaError_t deviceCheckAddress(void **address) {
  return cudaGetSymbolAddress(address, aotiShimsDeviceCheck);
}

} // namespace aoti::shims::cuda
