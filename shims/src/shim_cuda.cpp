//===- shim_cuda.cpp - CUDA device and stream guards, current stream -------===//
//
// Written against cuda_api.h only, so a build without CUDA defines the same
// entry points; there every one of them fails with cuda_api's message.
// The op fallbacks (aoti_torch_cuda_mm_out & co.) live in ops/.
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include "cuda_api.h"
#include "error.h"
#include "tensor.h"

using namespace aoti::shims;

// The guard structs complete the opaque handle types of the C header.
struct CUDAGuardOpaque {
  int32_t originalDevice;
};

struct CUDAStreamGuardOpaque {
  int32_t originalDevice;
  int32_t device;
  void *originalStream;
};

extern "C" {

AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index,
                                            CUDAGuardHandle *ret_guard) {
  return runShim(__func__, [&]() -> Error {
    if (Error err = requireOutput(ret_guard, "ret_guard"))
      return err;
    Expected<int32_t> device = cuda::resolveDeviceIndex(device_index);
    if (!device)
      return device.takeError();
    Expected<int32_t> original = cuda::currentDevice();
    if (!original)
      return original.takeError();
    if (Error err = cuda::setDevice(*device))
      return err;
    *ret_guard = new CUDAGuardOpaque{*original};
    return Error::success();
  });
}

AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard) {
  return runShim(__func__, [&]() -> Error {
    if (!guard)
      return Error::failure("guard handle is null");
    const int32_t original = guard->originalDevice;
    delete guard;
    return cuda::setDevice(original);
  });
}

AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard,
                                               int32_t device_index) {
  return runShim(__func__, [&]() -> Error {
    if (!guard)
      return Error::failure("guard handle is null");
    Expected<int32_t> device = cuda::resolveDeviceIndex(device_index);
    if (!device)
      return device.takeError();
    return cuda::setDevice(*device);
  });
}

AOTITorchError aoti_torch_create_cuda_stream_guard(
    void *stream, int32_t device_index, CUDAStreamGuardHandle *ret_guard) {
  return runShim(__func__, [&]() -> Error {
    if (Error err = requireOutput(ret_guard, "ret_guard"))
      return err;
    Expected<int32_t> device = cuda::resolveDeviceIndex(device_index);
    if (!device)
      return device.takeError();
    Expected<int32_t> original = cuda::currentDevice();
    if (!original)
      return original.takeError();
    auto *guard =
        new CUDAStreamGuardOpaque{*original, *device, cuda::currentStream(*device)};
    if (Error err = cuda::setDevice(*device)) {
      delete guard;
      return err;
    }
    cuda::setCurrentStream(*device, stream);
    *ret_guard = guard;
    return Error::success();
  });
}

AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard) {
  return runShim(__func__, [&]() -> Error {
    if (!guard)
      return Error::failure("stream guard handle is null");
    const CUDAStreamGuardOpaque saved = *guard;
    delete guard;
    cuda::setCurrentStream(saved.device, saved.originalStream);
    return cuda::setDevice(saved.originalDevice);
  });
}

AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index,
                                                  void **ret_stream) {
  return runShim(__func__, [&]() -> Error {
    if (Error err = requireOutput(ret_stream, "ret_stream"))
      return err;
    Expected<int32_t> device = cuda::resolveDeviceIndex(device_index);
    if (!device)
      return device.takeError();
    *ret_stream = cuda::currentStream(*device);
    return Error::success();
  });
}

} // extern "C"
