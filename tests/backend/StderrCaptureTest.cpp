//===- StderrCaptureTest.cpp - Captures of fd 2 alive at once -------------===//
//
// File descriptor 2 is pointed at a file of the test's own, and captures are
// started and stopped in the orders runs on several threads produce; the
// file, read back, is the oracle for what reached "the real stderr". The
// first test is the interleaving that lost every later line of
// backend_concurrent_runs (A starts, B starts, A stops, B stops).
//
//===----------------------------------------------------------------------===//
#include "../../backend/lib/process/StderrCapture.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using aoti::backend::StderrCapture;

namespace {

/// Points fd 2 at a fresh memfd for the test's life; text() reads it back.
class RealStderr {
public:
  RealStderr() {
    std::fflush(stderr);
    // O_APPEND, as a file opened by the shell's >> (a memfd's offset is not
    // otherwise serialized between threads).
    File = memfd_create("stderr-capture-test", MFD_CLOEXEC);
    if (File >= 0)
      fcntl(File, F_SETFL, O_APPEND);
    Saved = dup(2);
    if (File >= 0 && Saved >= 0)
      dup2(File, 2);
  }
  ~RealStderr() {
    std::fflush(stderr);
    dup2(Saved, 2);
    close(Saved);
    close(File);
  }
  bool ok() const { return File >= 0 && Saved >= 0; }
  std::string text() const {
    std::string T;
    char Buf[4096];
    off_t Off = 0;
    ssize_t N;
    while ((N = pread(File, Buf, sizeof Buf, Off)) > 0) {
      T.append(Buf, static_cast<size_t>(N));
      Off += N;
    }
    return T;
  }
  /// Whether fd 2 is this file (not a capture's, not the terminal).
  bool isFd2() const {
    struct stat A, B;
    return fstat(2, &A) == 0 && fstat(File, &B) == 0 && A.st_ino == B.st_ino &&
           A.st_dev == B.st_dev;
  }

private:
  int File = -1;
  int Saved = -1;
};

void say(const std::string &S) { ASSERT_EQ(write(2, S.data(), S.size()), ssize_t(S.size())); }

TEST(StderrCapture, OverlappingCapturesPutTheRealStderrBack) {
  RealStderr Real;
  ASSERT_TRUE(Real.ok());
  auto A = std::make_unique<StderrCapture>();
  say("a");
  auto B = std::make_unique<StderrCapture>();
  EXPECT_FALSE(Real.isFd2());
  say("b");
  EXPECT_EQ(A->finish(), "ab"); // written while A was alive, B's included
  EXPECT_FALSE(Real.isFd2());   // B still captures
  say("c");
  EXPECT_EQ(B->finish(), "bc");
  EXPECT_TRUE(Real.isFd2());
  say("after");
  EXPECT_EQ(Real.text(), "after");
}

TEST(StderrCapture, ReplaysDeliverEachByteOnceAndInOrder) {
  RealStderr Real;
  ASSERT_TRUE(Real.ok());
  {
    StderrCapture A;
    say("1");
    StderrCapture B;
    say("2");
    A.replay();
    say("3");
    B.replay();
    say("4");
  }
  EXPECT_EQ(Real.text(), "1234");
}

TEST(StderrCapture, WhatAnEarlierFinishDidNotTakeIsWrittenOut) {
  RealStderr Real;
  ASSERT_TRUE(Real.ok());
  auto A = std::make_unique<StderrCapture>();
  say("others ");
  auto B = std::make_unique<StderrCapture>();
  say("mine");
  // B stops first: A's part before B started reaches the real stderr, B's
  // own is its text; A then has nothing new to write.
  EXPECT_EQ(B->finish(), "mine");
  EXPECT_EQ(Real.text(), "others ");
  A->replay();
  EXPECT_EQ(Real.text(), "others ");
  EXPECT_TRUE(Real.isFd2());
}

TEST(StderrCapture, ThreadsCapturingAtOnceLoseNothing) {
  RealStderr Real;
  ASSERT_TRUE(Real.ok());
  constexpr int Threads = 8, Rounds = 200;
  auto line = [](int T, int R) {
    return "t" + std::to_string(T) + "r" + std::to_string(R) + "\n";
  };
  std::vector<int> Missing(Threads, 0);
  std::barrier Phase(Threads);
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      // First every thread's captures replay (as runs that succeed do),
      // then every thread's finish (as runs that fail do).
      for (int R = 0; R < 2 * Rounds; ++R) {
        if (R == Rounds)
          Phase.arrive_and_wait();
        const std::string Line = line(T, R);
        StderrCapture C;
        if (write(2, Line.data(), Line.size()) != ssize_t(Line.size()))
          ++Missing[T];
        if (R >= Rounds && C.finish().find(Line) == std::string::npos)
          ++Missing[T]; // a capture sees what its own thread wrote
      }
    });
  for (std::thread &T : Pool)
    T.join();
  EXPECT_TRUE(Real.isFd2());
  say("end\n");
  const std::string Text = Real.text();
  for (int T = 0; T < Threads; ++T) {
    EXPECT_EQ(Missing[T], 0) << "thread " << T;
    for (int R = 0; R < Rounds; ++R) {
      const size_t At = Text.find(line(T, R));
      EXPECT_NE(At, std::string::npos) << "thread " << T << ", round " << R;
      if (At != std::string::npos)
        EXPECT_EQ(Text.find(line(T, R), At + 1), std::string::npos)
            << "thread " << T << ", round " << R << " written twice";
    }
  }
  EXPECT_EQ(Text.substr(Text.size() - 4), "end\n");
}

} // namespace
