//===- Timer.h - Per-run latency for aoti-run -------------------*- C++ -*-===//
//
// On CUDA, an event is recorded on the run's stream before and after each
// run, and the host waits for the second: the time covers the model's host
// work (launches) and its kernels, which is what a caller waits for. On CPU,
// a steady clock does the same.
//
// With --cuda-graph one run is captured into a CUDA graph (stream capture in
// relaxed mode, so the model's own calls that merely query state still work)
// and the timed runs replay it. That is sound because every device buffer a
// run uses comes from the shims' stream-ordered allocator (cudaMallocAsync):
// inside a capture those calls become the graph's own allocation and free
// nodes, and the graph is instantiated with AutoFreeOnLaunch so the outputs,
// which the run allocates and does not free, are reallocated at the same
// addresses by each replay. A run that synchronises the host (dynamic shapes
// read back a size) cannot be captured; capture() then fails with CUDA's
// reason and the stream is usable again.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RUN_TIMER_H
#define AOTI_RUN_TIMER_H

#include "aoti/backend/Error.h"
#include "aoti/backend/Model.h"

#include <functional>
#include <memory>
#include <string>

namespace aoti::run {

/// A run captured into a CUDA graph.
class CapturedRun {
public:
  virtual ~CapturedRun() = default;
  /// Enqueues one replay on the stream it was captured from.
  virtual backend::Status replay() = 0;
};

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
  /// Captures what Body enqueues on stream() into a graph. Fails, with the
  /// reason, on the CPU, when Body fails, or when what it enqueued cannot be
  /// captured; the stream can be used again either way.
  virtual backend::Expected<std::unique_ptr<CapturedRun>>
  capture(const std::function<backend::Status()> &Body) = 0;
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
