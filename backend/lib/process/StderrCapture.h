//===- StderrCapture.h - What a model writes to stderr ----------*- C++ -*-===//
//
// A model reports failures by printing to stderr and returning non-zero;
// this is how those messages reach the backend's error values.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_STDERRCAPTURE_H
#define AOTI_BACKEND_LIB_STDERRCAPTURE_H

#include <string>
#include <sys/types.h>

namespace aoti::backend {

/// Captures what is written to file descriptor 2 while alive. A model prints
/// its exception messages there ("Error: ...") before returning a failure
/// code; this is how they reach the error value. A model that crashes while
/// captured (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) gets what it wrote
/// copied to the real stderr first, so its last words are not lost.
///
/// File descriptor 2 belongs to the process, so captures alive at once (runs
/// of several Models on several threads) share one: the first redirects it,
/// the last puts it back, and each sees everything written while it was
/// alive, another thread's output included. Nothing written is lost: each
/// byte reaches the real stderr (replay) or a capture's text (finish).
class StderrCapture {
public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  /// Stops capturing and returns what was written while this capture was
  /// alive; it is not written to the real stderr (unless another capture
  /// already replayed it).
  std::string finish();
  /// Stops capturing and writes what was captured, and not yet written, to
  /// the real stderr.
  void replay();

private:
  off_t Start = 0;
  bool Active = false;
};

} // namespace aoti::backend

#endif
