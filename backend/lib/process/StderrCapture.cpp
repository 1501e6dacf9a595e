//===- StderrCapture.cpp - What a model writes to stderr ------------------===//
//
// One sink for the whole process. File descriptor 2 is process-wide, so two
// captures that each redirected it on their own would undo each other: with
// runs on two threads, A redirects 2 to its file, B saves A's file as "the
// real stderr" and redirects 2 to its own, A puts the real one back, and B
// then puts A's file back, where everything the process writes afterwards
// goes unread (seen in backend_concurrent_runs, 2026-12-06).
//
// So the first capture to start creates one memfd, keeps a duplicate of the
// real descriptor 2 and points 2 at the memfd; later ones only join. Each
// capture remembers the memfd's size when it started (Start); what was written
// while it was alive is the range from there to the size when it stops. A
// watermark (Delivered) says how much of the memfd has reached someone: a
// capture that stops first writes to the real stderr whatever lies between
// the watermark and its own range (others' output), then takes its range as
// its text (finish) or writes it to the real stderr too (replay), and moves
// the watermark past it. The last capture to stop writes what is left and
// points 2 back at the real stderr. Ranges of captures alive at once overlap;
// a byte in two of them reaches one, or both.
//
// A crash while any capture is alive copies what nobody has delivered to the
// real stderr, from a signal handler (async-signal-safe: pread, write, dup2,
// sigaction, raise), and re-raises the signal for the handler before ours.
//
//===----------------------------------------------------------------------===//
#include "StderrCapture.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <mutex>

namespace aoti::backend {

namespace {

constexpr int CrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

// The shared sink. The descriptors and the watermark are atomics because the
// crash handler reads them; every change happens under Lock.
std::mutex Lock;
int Users = 0;
std::atomic<int> Sink{-1}, Real{-1};
std::atomic<off_t> Delivered{0};
struct sigaction OldActions[std::size(CrashSignals)];

off_t sizeOf(int Fd) {
  struct stat St;
  return fstat(Fd, &St) == 0 ? St.st_size : 0;
}

// Hands [Begin, End) of Fd (End < 0: to its end) to Take in chunks, until
// Take returns false. Async-signal-safe when Take is.
template <typename Fn> void chunks(int Fd, off_t Begin, off_t End, Fn &&Take) {
  char Buf[4096];
  while (End < 0 || Begin < End) {
    size_t Want = sizeof Buf;
    if (End >= 0)
      Want = std::min<size_t>(Want, static_cast<size_t>(End - Begin));
    ssize_t N = pread(Fd, Buf, Want, Begin);
    if (N <= 0 || !Take(Buf, static_cast<size_t>(N)))
      return;
    Begin += N;
  }
}

// Copies [Begin, End) of From to Fd. Async-signal-safe.
void copyOut(int From, int Fd, off_t Begin, off_t End) {
  chunks(From, Begin, End, [Fd](const char *Data, size_t N) {
    for (size_t Off = 0; Off < N;) {
      ssize_t W = write(Fd, Data + Off, N - Off);
      if (W <= 0)
        return false;
      Off += static_cast<size_t>(W);
    }
    return true;
  });
}

std::string readRange(int Fd, off_t Begin, off_t End) {
  std::string Text;
  chunks(Fd, Begin, End, [&Text](const char *Data, size_t N) {
    Text.append(Data, N);
    return true;
  });
  return Text;
}

void flushOnCrash(int Sig) {
  int S = Sink.load(), R = Real.load();
  if (S >= 0 && R >= 0) {
    copyOut(S, R, Delivered.load(), -1);
    dup2(R, 2);
  }
  for (size_t I = 0; I < std::size(CrashSignals); ++I)
    sigaction(CrashSignals[I], &OldActions[I], nullptr);
  raise(Sig); // delivered, to the previous handler, when this one returns
}

// Under Lock: the first capture's set-up. False (and nothing changed) if the
// descriptors cannot be had.
bool openSink() {
  // O_APPEND: every write lands at the end under the inode's lock. Threads
  // writing through one description otherwise race on its offset, and a
  // memfd does not serialize them (lines overwrote each other, 2026-12-06).
  int S = memfd_create("aoti-model-stderr", MFD_CLOEXEC);
  if (S < 0)
    return false;
  if (fcntl(S, F_SETFL, O_APPEND) < 0) {
    close(S);
    return false;
  }
  int R = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (R < 0 || dup2(S, 2) < 0) {
    close(S);
    if (R >= 0)
      close(R);
    return false;
  }
  Sink.store(S);
  Real.store(R);
  Delivered.store(0);
  struct sigaction A = {};
  A.sa_handler = flushOnCrash;
  sigemptyset(&A.sa_mask);
  for (size_t I = 0; I < std::size(CrashSignals); ++I)
    sigaction(CrashSignals[I], &A, &OldActions[I]);
  return true;
}

// Under Lock: one capture stops. Writes [Delivered, Begin) to the real
// stderr (what others' captures hold and nobody delivered yet) and returns
// [Begin, End); the last one out writes what remains and restores fd 2.
std::string leave(off_t Begin, bool Replay) {
  std::fflush(stderr);
  const int S = Sink.load(), R = Real.load();
  const off_t End = sizeOf(S);
  off_t D = Delivered.load();
  if (D < Begin)
    copyOut(S, R, D, Begin);
  std::string Text;
  if (Replay)
    copyOut(S, R, std::max(D, Begin), End);
  else
    Text = readRange(S, Begin, End);
  Delivered.store(std::max(D, End));
  if (--Users == 0) {
    for (size_t I = 0; I < std::size(CrashSignals); ++I)
      sigaction(CrashSignals[I], &OldActions[I], nullptr);
    copyOut(S, R, Delivered.load(), -1);
    dup2(R, 2);
    Sink.store(-1);
    Real.store(-1);
    close(R);
    close(S);
  }
  return Text;
}

} // namespace

StderrCapture::StderrCapture() {
  std::lock_guard<std::mutex> G(Lock);
  std::fflush(stderr);
  if (Users == 0 && !openSink())
    return;
  ++Users;
  Start = sizeOf(Sink.load());
  Active = true;
}

std::string StderrCapture::finish() {
  if (!Active)
    return {};
  Active = false;
  std::lock_guard<std::mutex> G(Lock);
  return leave(Start, /*Replay=*/false);
}

void StderrCapture::replay() {
  if (!Active)
    return;
  Active = false;
  std::lock_guard<std::mutex> G(Lock);
  leave(Start, /*Replay=*/true);
}

StderrCapture::~StderrCapture() { replay(); }

} // namespace aoti::backend
