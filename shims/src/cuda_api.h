//===- cuda_api.h - What the shims need from CUDA, without CUDA headers ----===//
//
// The neutral interface between the device-independent shims and CUDA. It has
// two implementations: cuda/*.cpp (built when AOTI_HAVE_CUDA is ON) and
// cuda_unavailable.cpp, whose every function fails with a message saying
// CUDA was not compiled in. The C entry points are written once, against this
// header, so both builds export the same symbols.
//
// Streams are cudaStream_t passed as void*. Every operation that touches
// device memory runs on the calling thread's current stream of that device
// (currentStream()), which aoti_torch_create_cuda_stream_guard sets; that is
// the one definition of "current stream" the allocator also uses.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_CUDA_API_H
#define AOTI_SHIMS_CUDA_API_H

#include "error.h"
#include "tensor.h"

#include <cstddef>
#include <cstdint>

namespace aoti::shims {
struct CopyPlan;
} // namespace aoti::shims

namespace aoti::shims::cuda {

/// Whether this build contains CUDA support.
bool compiledIn();

/// The failure of every CUDA operation in a build without CUDA (the op
/// families' CUDA halves use it too, see ops/gemm.h).
inline Error notCompiledIn() {
  return Error::failure("CUDA support was not compiled into libaoti_shims "
                        "(configure with AOTI_CUDA=ON and a CUDA toolkit)");
}

/// `index` if it names a visible device; -1 means the current device.
Expected<int32_t> resolveDeviceIndex(int32_t index);
Expected<int32_t> currentDevice();
Error setDevice(int32_t index);

/// The calling thread's current stream on `device` (a valid index); the
/// legacy default stream (null) until a stream guard sets another.
void *currentStream(int32_t device);
void setCurrentStream(int32_t device, void *stream);

/// `nbytes` of device memory, stream-ordered on the current stream of
/// `device` (cudaMallocAsync from the device's default memory pool).
Expected<void *> allocate(int32_t device, size_t nbytes);
/// Storage deleter for allocate(): cudaFreeAsync on the current stream of
/// the device at the time the last reference goes.
void release(void *data, Device device) noexcept;

/// Copies bytes between any two of host and device memory (unified
/// addressing), ordered on the current stream of `streamDevice`.
Error copyBytes(void *dst, const void *src, size_t nbytes,
                int32_t streamDevice);
/// Zeroes device bytes on the current stream of `device`.
Error zeroBytes(void *dst, size_t nbytes, int32_t device);
/// Waits for the current stream of `device`.
Error synchronize(int32_t device);

/// Elementwise strided copy within one device, on its current stream.
Error stridedCopy(const CopyPlan &plan, void *dst, const void *src,
                  size_t itemSize, int32_t device);

/// What a kernel records about the first bad argument it meets (an index
/// out of range, a decreasing offset, ...) instead of dereferencing it:
/// the op families' checks that do not wait (ops/checks.h). `set` is 0
/// until something is recorded; the first thread to change it to 1 (an
/// atomic compare-and-swap) fills in the rest, whose meaning `kind` gives.
struct DeviceCheck {
  uint32_t set;
  int32_t kind;
  int64_t value;
  int64_t detail[2];
};

/// The DeviceCheck of `device` (a valid index) in its memory: one per
/// device for the process's lifetime, zero when the library is loaded,
/// looked up once (safe during a stream capture).
Expected<DeviceCheck *> deviceCheckWord(int32_t device);
/// Reads the DeviceCheck of `device` and zeroes it, ordered on the
/// calling thread's current stream of the device, and waits for that
/// stream.
Expected<DeviceCheck> takeDeviceCheck(int32_t device);

} // namespace aoti::shims::cuda

#endif // AOTI_SHIMS_CUDA_API_H
