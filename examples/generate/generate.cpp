//===- generate.cpp - Greedy decoding with a prefill and a decode model ----===//
//
// aoti-generate: the serving loop of an LLM, on aoti::backend.
//
//   aoti-generate PACKAGE PROMPT.npy [--steps N] [--device D]
//                 [--expect TOKENS.npy] [--repeat R] [--json]
//
// PACKAGE holds two models exported from one decoder (export_llama.py):
//
//   prefill(tokens int64 [1, T], positions int64 [T])
//   decode (tokens int64 [1, 1], positions int64 [1])
//     -> next_token int64 [1, 1], next_position int64 [1]
//
// Both hold the same weights and the same static KV cache (buffers each run
// updates in place). They are loaded into one ConstantPool, so the device
// holds one copy, and the cache prefill writes is the one decode reads.
//
// The loop: prefill the prompt once; then decode N - 1 times, each step fed
// the previous step's outputs where they lie (inputsFrom: nothing goes back
// to the host, nothing waits); read the N tokens back at the end. Each
// repeat resets the cache first (resetState) and must give the same tokens.
// The figures: prefill time, and decode time per token (the steps' wall
// time over their count, the device's work included: the read at the end
// waits for it).
//
// Exit status: 0 generated (and matched --expect), 1 the tokens differ from
// --expect, 2 bad arguments or a model that cannot be loaded or run.
//
//===----------------------------------------------------------------------===//
#include "aoti/backend/Model.h"
#include "aoti/backend/Npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace aoti::backend;

namespace {

struct Args {
  std::string Package, Prompt, Expect, Device;
  int Steps = 32;
  int Repeat = 1;
  bool Json = false;
};

int usage(const char *Why) {
  std::cerr << "aoti-generate: " << Why << "\n"
            << "usage: aoti-generate PACKAGE PROMPT.npy [--steps N] [--device cpu|cuda|cuda:N]\n"
            << "                     [--expect TOKENS.npy] [--repeat R] [--json]\n";
  return 2;
}

int fail(const std::string &What, const Error &E) {
  std::cerr << "aoti-generate: " << What << ": " << E.message() << "\n";
  return 2;
}

double msSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count();
}

/// One generation: prefill, Steps - 1 decode steps, the tokens read back.
struct Generation {
  std::vector<int64_t> Tokens;
  double PrefillMs = 0, DecodeMsPerToken = 0;
};

Expected<Generation> generate(Model &Prefill, Model &Decode, const HostTensor &Prompt, int Steps) {
  const int64_t T = Prompt.Shape[1];
  HostTensor Positions(DType::Int64, {T});
  for (int64_t I = 0; I < T; ++I)
    Positions.data<int64_t>()[I] = I;

  Generation G;
  std::vector<OutputSet> Outs; // every step's (token, position), kept for the read at the end
  Outs.reserve(Steps);
  auto T0 = std::chrono::steady_clock::now();
  Expected<DeviceInputs> In = Prefill.upload({Prompt, Positions}, nullptr);
  if (!In)
    return In.takeError();
  Expected<OutputSet> First = Prefill.run(*In, nullptr);
  if (!First)
    return First.takeError();
  // The prefill's time includes its work on the device: its token is read.
  Expected<std::vector<HostTensor>> FirstHost = Prefill.download(*First, nullptr);
  if (!FirstHost)
    return FirstHost.takeError();
  G.PrefillMs = msSince(T0);
  Outs.push_back(std::move(*First));

  auto T1 = std::chrono::steady_clock::now();
  for (int S = 1; S < Steps; ++S) {
    Expected<DeviceInputs> Next = inputsFrom(Outs.back(), {0, 1});
    if (!Next)
      return Next.takeError();
    Expected<OutputSet> Out = Decode.run(*Next, nullptr);
    if (!Out)
      return Out.takeError();
    Outs.push_back(std::move(*Out));
  }
  for (OutputSet &O : Outs) {
    Expected<std::vector<HostTensor>> Host = Decode.download(O, nullptr);
    if (!Host)
      return Host.takeError();
    G.Tokens.push_back((*Host)[0].data<int64_t>()[0]);
  }
  if (Steps > 1)
    G.DecodeMsPerToken = msSince(T1) / (Steps - 1);
  for (OutputSet &O : Outs)
    Decode.release(O, nullptr);
  return G;
}

std::string list(const std::vector<int64_t> &V) {
  std::string S;
  for (int64_t X : V)
    S += (S.empty() ? "" : ", ") + std::to_string(X);
  return "[" + S + "]";
}

} // namespace

int main(int Argc, char **Argv) {
  Args A;
  std::vector<std::string> Positional;
  for (int I = 1; I < Argc; ++I) {
    std::string S = Argv[I];
    auto Value = [&]() -> const char * { return I + 1 < Argc ? Argv[++I] : nullptr; };
    if (S == "--steps" || S == "--repeat" || S == "--device" || S == "--expect") {
      const char *V = Value();
      if (!V)
        return usage((S + " needs a value").c_str());
      if (S == "--steps" || S == "--repeat") {
        char *End = nullptr;
        long N = std::strtol(V, &End, 10);
        if (*End || N < 1 || N > 1 << 20)
          return usage((S + " takes a positive count").c_str());
        (S == "--steps" ? A.Steps : A.Repeat) = static_cast<int>(N);
      } else {
        (S == "--device" ? A.Device : A.Expect) = V;
      }
    } else if (S == "--json") {
      A.Json = true;
    } else if (S == "-h" || S == "--help") {
      usage("greedy decoding with a package's prefill and decode models");
      return 0;
    } else if (!S.empty() && S[0] == '-') {
      return usage(("unknown option " + S).c_str());
    } else {
      Positional.push_back(S);
    }
  }
  if (Positional.size() != 2)
    return usage("takes a package and a prompt");
  A.Package = Positional[0];
  A.Prompt = Positional[1];

  Expected<HostTensor> Prompt = readNpy(A.Prompt);
  if (!Prompt)
    return fail(A.Prompt, Prompt.error());
  if (Prompt->Type != DType::Int64 || Prompt->Shape.size() != 2 || Prompt->Shape[0] != 1 ||
      Prompt->Shape[1] < 2)
    return usage("the prompt must be int64 [1, T] with T >= 2");
  std::vector<int64_t> ExpectedTokens;
  if (!A.Expect.empty()) {
    auto E = readNpy(A.Expect);
    if (!E)
      return fail(A.Expect, E.error());
    if (E->Type != DType::Int64)
      return usage("--expect takes int64 tokens");
    ExpectedTokens.assign(E->data<int64_t>(), E->data<int64_t>() + E->numel());
  }

  // One pool: the decode model finds the prefill's weights and cache there.
  LoadOptions O;
  if (!A.Device.empty()) {
    auto D = Device::parse(A.Device);
    if (!D)
      return fail("--device", D.error());
    O.TargetDevice = *D;
  }
  O.SharedConstants = std::make_shared<ConstantPool>();
  O.SingleThreaded = true;
  auto T0 = std::chrono::steady_clock::now();
  O.ModelName = "prefill";
  auto Prefill = Model::load(A.Package, O);
  if (!Prefill)
    return fail("loading prefill", Prefill.error());
  O.ModelName = "decode";
  auto Decode = Model::load(A.Package, O);
  if (!Decode)
    return fail("loading decode", Decode.error());
  const double LoadMs = msSince(T0);

  std::vector<Generation> Runs;
  for (int R = 0; R < A.Repeat; ++R) {
    if (Status S = (*Prefill)->resetState(); !S)
      return fail("resetting the cache", S.error());
    auto G = generate(**Prefill, **Decode, *Prompt, A.Steps);
    if (!G)
      return fail("generating", G.error());
    if (!Runs.empty() && G->Tokens != Runs.front().Tokens) {
      std::cerr << "aoti-generate: repeat " << R << " gave other tokens than the first: "
                << list(G->Tokens) << "\n";
      return 1;
    }
    Runs.push_back(std::move(*G));
  }
  // The best repeat's figures; the first also pays for first-run work.
  auto Best = [&](double Generation::*F) {
    double B = Runs.front().*F;
    for (const Generation &G : Runs)
      B = std::min(B, G.*F);
    return B;
  };
  const std::vector<int64_t> &Tokens = Runs.front().Tokens;
  const bool Matches = ExpectedTokens.empty() || ExpectedTokens == Tokens;
  const ConstantSharing &Shared = (*Decode)->sharing();
  if (A.Json) {
    std::printf("{\"schema_version\": 1, \"tokens\": %s, \"steps\": %d, \"prompt_length\": %lld, "
                "\"device\": \"%s\", \"load_ms\": %.3f, \"prefill_ms\": %.3f, "
                "\"decode_ms_per_token\": %.4f, \"repeats\": %d, "
                "\"decode_shares_constants\": %zu, \"decode_shared_bytes\": %llu, "
                "\"decode_added_constants\": %zu, \"matches_expected\": %s}\n",
                list(Tokens).c_str(), A.Steps, static_cast<long long>(Prompt->Shape[1]),
                (*Decode)->device().str().c_str(), LoadMs, Best(&Generation::PrefillMs),
                Best(&Generation::DecodeMsPerToken), A.Repeat, Shared.Shared,
                static_cast<unsigned long long>(Shared.SharedBytes), Shared.Added,
                ExpectedTokens.empty() ? "null" : Matches ? "true" : "false");
  } else {
    std::printf("tokens %s\n", list(Tokens).c_str());
    std::printf("device %s; load %.1f ms; prefill of %lld tokens %.3f ms; decode %.3f ms/token "
                "(best of %d)\n",
                (*Decode)->device().str().c_str(), LoadMs,
                static_cast<long long>(Prompt->Shape[1]), Best(&Generation::PrefillMs),
                Best(&Generation::DecodeMsPerToken), A.Repeat);
    std::printf("decode shares %zu constants (%.1f MiB) with prefill, adds %zu\n", Shared.Shared,
                Shared.SharedBytes / 1048576.0, Shared.Added);
    if (!ExpectedTokens.empty())
      std::printf("%s\n", Matches ? "matches the expected tokens"
                                  : ("differs from the expected " + list(ExpectedTokens)).c_str());
  }
  return Matches ? 0 : 1;
}
