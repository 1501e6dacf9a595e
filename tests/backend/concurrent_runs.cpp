//===- concurrent_runs.cpp - One model run on several host threads at once -===//
//
// A server runs a model from several threads at once; the shims' fallbacks
// then run concurrently, and whatever state they share (cached oneDNN
// primitives, OpenBLAS's thread count, the host block cache, cuBLAS and
// cuDNN handles) must hold up. This program loads the model once per thread
// (a Model is not thread-safe: each thread owns one, as a server would),
// starts every thread together, and has each run the model R times on the
// same inputs. Every output of every run that has an expectation file (the
// first ones, in order) must match it within rtol/atol, and every run of every thread must give the bits of
// thread 0's first run: the same model on the same inputs computes the same
// way whichever thread runs it and whatever runs beside it.
//
//   backend_concurrent_runs MODEL [--threads N] [--runs R] [--device D]
//       [--rtol X] [--atol X] -i IN.npy... [-e EXPECT.npy...]
//
// Exit status: 0 all runs agree (and match), 1 a run failed, mismatched or
// differed, 2 bad usage or a model that does not load.
//
// Found with it (2026-12-05): the CPU convolution's cached oneDNN primitives
// shared one thread's scratchpad, and ResNet-18 on two threads gave wrong
// values on 6 of 16 runs (ops/cpu/convolution.cpp, "Threads").
//
//===----------------------------------------------------------------------===//
#include "aoti/backend/Compare.h"
#include "aoti/backend/Model.h"
#include "aoti/backend/Npy.h"

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace aoti::backend;

namespace {

struct Options {
  std::string Model;
  int Threads = 2;
  int Runs = 20;
  std::optional<Device> Target;
  Tolerance Tol{1e-4, 1e-5};
  std::vector<std::string> Inputs, Expects;
};

int usage(const char *Why) {
  std::fprintf(stderr,
               "backend_concurrent_runs: %s\n"
               "usage: backend_concurrent_runs MODEL [--threads N] [--runs R] "
               "[--device D] [--rtol X] [--atol X] -i IN.npy... [-e EXPECT.npy...]\n",
               Why);
  return 2;
}

bool parse(int Argc, char **Argv, Options &O, std::string &Why) {
  std::vector<std::string> *List = nullptr;
  for (int I = 1; I < Argc; ++I) {
    const std::string A = Argv[I];
    auto Value = [&]() -> const char * {
      if (I + 1 >= Argc) {
        Why = A + " needs a value";
        return nullptr;
      }
      return Argv[++I];
    };
    auto Positive = [&](int &Into) {
      const char *V = Value();
      if (!V)
        return false;
      Into = std::atoi(V);
      if (Into < 1)
        Why = A + " needs a positive integer";
      return Into >= 1;
    };
    if (A == "--threads") {
      if (!Positive(O.Threads))
        return false;
    } else if (A == "--runs") {
      if (!Positive(O.Runs))
        return false;
    } else if (A == "--device") {
      const char *V = Value();
      if (!V)
        return false;
      Expected<Device> D = Device::parse(V);
      if (!D) {
        Why = D.error().message();
        return false;
      }
      O.Target = *D;
    } else if (A == "--rtol" || A == "--atol") {
      const char *V = Value();
      if (!V)
        return false;
      (A == "--rtol" ? O.Tol.RTol : O.Tol.ATol) = std::strtod(V, nullptr);
    } else if (A == "-i") {
      List = &O.Inputs;
    } else if (A == "-e") {
      List = &O.Expects;
    } else if (!A.empty() && A[0] == '-') {
      Why = "unknown option " + A;
      return false;
    } else if (List) {
      List->push_back(A);
    } else if (O.Model.empty()) {
      O.Model = A;
    } else {
      Why = "one model only: " + A;
      return false;
    }
  }
  if (O.Model.empty())
    Why = "no model given";
  return !O.Model.empty();
}

bool sameBits(const std::vector<HostTensor> &A, const std::vector<HostTensor> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].Shape != B[I].Shape || A[I].Data != B[I].Data)
      return false;
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  std::string Why;
  if (!parse(Argc, Argv, O, Why))
    return usage(Why.c_str());
  std::vector<HostTensor> Inputs, Expects;
  for (auto [Files, Into] : {std::pair{&O.Inputs, &Inputs}, std::pair{&O.Expects, &Expects}})
    for (const std::string &F : *Files) {
      Expected<HostTensor> T = readNpy(F);
      if (!T)
        return usage(T.error().message().c_str());
      Into->push_back(std::move(*T));
    }
  LoadOptions Load;
  Load.TargetDevice = O.Target;
  std::vector<std::unique_ptr<Model>> Models;
  for (int T = 0; T < O.Threads; ++T) {
    Expected<std::unique_ptr<Model>> M = Model::load(O.Model, Load);
    if (!M)
      return usage(M.error().message().c_str());
    Models.push_back(std::move(*M));
  }

  // Each thread's first run, and what went wrong where (one line each, the
  // first few only).
  std::vector<std::vector<HostTensor>> First(static_cast<size_t>(O.Threads));
  std::atomic<int> Problems{0};
  auto Report = [&](int T, int R, const std::string &What) {
    if (Problems.fetch_add(1) < 10)
      std::fprintf(stderr, "thread %d, run %d: %s\n", T, R, What.c_str());
  };
  std::barrier Start(O.Threads);
  std::vector<std::thread> Threads;
  for (int T = 0; T < O.Threads; ++T)
    Threads.emplace_back([&, T] {
      Start.arrive_and_wait();
      for (int R = 0; R < O.Runs; ++R) {
        Expected<std::vector<HostTensor>> Out = Models[static_cast<size_t>(T)]->run(Inputs);
        if (!Out) {
          Report(T, R, Out.error().message());
          continue;
        }
        if (Expects.size() > Out->size())
          Report(T, R, std::to_string(Out->size()) + " outputs, " +
                           std::to_string(Expects.size()) + " expectations");
        for (size_t I = 0; I < std::min(Expects.size(), Out->size()); ++I) {
          const Comparison C = compare((*Out)[I], Expects[I], O.Tol);
          if (!C.Match)
            Report(T, R, "output " + std::to_string(I) + ": " +
                             (C.Incompatible.empty()
                                  ? std::to_string(C.Mismatched) + " of " +
                                        std::to_string(C.Compared) +
                                        " elements off the expectation, max abs error " +
                                        std::to_string(C.MaxAbsError)
                                  : C.Incompatible));
        }
        if (R == 0)
          First[static_cast<size_t>(T)] = std::move(*Out);
        else if (!sameBits(*Out, First[static_cast<size_t>(T)]))
          Report(T, R, "other bits than this thread's first run");
      }
    });
  for (std::thread &T : Threads)
    T.join();
  for (int T = 1; T < O.Threads; ++T)
    if (!First[static_cast<size_t>(T)].empty() && !First[0].empty() &&
        !sameBits(First[static_cast<size_t>(T)], First[0]))
      Report(T, 0, "other bits than thread 0's first run");
  std::printf("%s: %d threads x %d runs, %d problem(s)\n", O.Model.c_str(), O.Threads,
              O.Runs, Problems.load());
  return Problems.load() == 0 ? 0 : 1;
}
