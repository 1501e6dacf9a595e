//===- StderrCapture.h - What a model writes to stderr ----------*- C++ -*-===//
//
// A model reports failures by printing to stderr and returning non-zero;
// this is how those messages reach the backend's error values.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_STDERRCAPTURE_H
#define AOTI_BACKEND_LIB_STDERRCAPTURE_H

#include <string>

namespace aoti::backend {

/// Captures what is written to file descriptor 2 while alive. A model prints
/// its exception messages there ("Error: ...") before returning a failure
/// code; this is how they reach the error value. A model that crashes while
/// captured (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) gets what it wrote
/// copied to the real stderr first, so its last words are not lost.
class StderrCapture {
public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  /// Stops capturing and returns what was written.
  std::string finish();
  /// Stops capturing and writes what was captured to the real stderr.
  void replay();

private:
  int Saved = -1;
  int Sink = -1;
  bool Done = false;
  bool CrashHandlers = false;
};

} // namespace aoti::backend

#endif
