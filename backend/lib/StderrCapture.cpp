//===- StderrCapture.cpp - What a model writes to stderr ------------------===//
#include "StderrCapture.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iterator>

namespace aoti::backend {

namespace {

// The capture a crash handler flushes: one at a time (a nested or concurrent
// capture leaves the handlers to the first).
std::atomic<int> CrashSink{-1}, CrashSaved{-1};
constexpr int CrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
struct sigaction OldActions[std::size(CrashSignals)];

// Async-signal-safe: pread, write, dup2, sigaction, raise.
void flushOnCrash(int Sig) {
  int Sink = CrashSink.load(), Saved = CrashSaved.load();
  if (Sink >= 0 && Saved >= 0) {
    char Buf[4096];
    off_t Off = 0;
    ssize_t N;
    while ((N = pread(Sink, Buf, sizeof Buf, Off)) > 0) {
      if (write(Saved, Buf, static_cast<size_t>(N)) < 0)
        break;
      Off += N;
    }
    dup2(Saved, 2);
  }
  for (size_t I = 0; I < std::size(CrashSignals); ++I)
    sigaction(CrashSignals[I], &OldActions[I], nullptr);
  raise(Sig); // delivered, to the previous handler, when this one returns
}

} // namespace

StderrCapture::StderrCapture() {
  std::fflush(stderr);
  Sink = memfd_create("aoti-model-stderr", MFD_CLOEXEC);
  if (Sink < 0)
    return;
  Saved = dup(2);
  if (Saved < 0 || dup2(Sink, 2) < 0) {
    close(Sink);
    Sink = -1;
    if (Saved >= 0)
      close(Saved);
    Saved = -1;
    return;
  }
  int None = -1;
  if (CrashSink.compare_exchange_strong(None, Sink)) {
    CrashSaved.store(Saved);
    struct sigaction A = {};
    A.sa_handler = flushOnCrash;
    sigemptyset(&A.sa_mask);
    for (size_t I = 0; I < std::size(CrashSignals); ++I)
      sigaction(CrashSignals[I], &A, &OldActions[I]);
    CrashHandlers = true;
  }
}

std::string StderrCapture::finish() {
  if (Done)
    return {};
  Done = true;
  if (Sink < 0)
    return {};
  std::fflush(stderr);
  if (CrashHandlers) {
    for (size_t I = 0; I < std::size(CrashSignals); ++I)
      sigaction(CrashSignals[I], &OldActions[I], nullptr);
    CrashSaved.store(-1);
    CrashSink.store(-1);
  }
  dup2(Saved, 2);
  close(Saved);
  std::string Text;
  if (lseek(Sink, 0, SEEK_SET) == 0) {
    char Buf[4096];
    ssize_t N;
    while ((N = read(Sink, Buf, sizeof Buf)) > 0)
      Text.append(Buf, static_cast<size_t>(N));
  }
  close(Sink);
  return Text;
}

void StderrCapture::replay() {
  std::string Text = finish();
  if (!Text.empty()) {
    std::fwrite(Text.data(), 1, Text.size(), stderr);
    std::fflush(stderr);
  }
}

StderrCapture::~StderrCapture() { replay(); }

} // namespace aoti::backend
