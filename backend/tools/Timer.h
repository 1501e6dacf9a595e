//===- Timer.h - Per-run latency for aoti-run -------------------*- C++ -*-===//
//
// On CUDA, an event is recorded on the run's stream before and after each
// run, and the host waits for the second: the time covers the model's host
// work (launches) and its kernels, which is what a caller waits for. On CPU,
// a steady clock does the same.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RUN_TIMER_H
#define AOTI_RUN_TIMER_H

#include "aoti/backend/Error.h"
#include "aoti/backend/Model.h"

#include <memory>
#include <string>

namespace aoti::run {

/// The stream a model runs on, and how a run is timed.
class DeviceContext {
public:
  virtual ~DeviceContext() = default;
  virtual void *stream() const = 0;
  virtual void start() = 0;
  /// Milliseconds since start(), once the device has finished.
  virtual backend::Expected<double> stop() = 0;
  /// Waits for everything queued on the stream.
  virtual backend::Status synchronize() = 0;
};

/// Bytes of memory in use on D's CUDA device (total minus free, every
/// process's), or -1 for the CPU or a build without CUDA.
long long deviceMemoryInUse(const backend::Device &D);

/// Bytes of host heap the allocator has handed out and not had back.
long long hostHeapInUse();

/// Creates the context for Device, or explains why it cannot (no CUDA in
/// this build, no such device).
backend::Expected<std::unique_ptr<DeviceContext>> makeDeviceContext(const backend::Device &D);

} // namespace aoti::run

#endif
