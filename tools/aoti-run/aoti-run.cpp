//===- aoti-run.cpp - Run an AOTInductor model without LibTorch -----------===//
//
//   aoti-run MODEL [--device cuda:0] [--input x.npy]... [--output-dir D]
//            [--expect y.npy]... [--rtol R --atol A] [--iters N --warmup K]
//            [--format text|json] [--seed N]
//
// Exit status: 0 every output matched (or nothing was expected), 1 an output
// differs from its expectation, 2 anything else (bad arguments, a file that
// is not a model or not a .npy, a model that cannot load in this process,
// inputs the model rejects, a failing run).
//
// This executable is also the host the model binds to: it is linked so that
// its global scope exports every aoti_torch_* shim and the CUDA runtime.
// Nothing is printed to stdout before the first run has finished, so the
// first line marks the first output being ready.
//
//===----------------------------------------------------------------------===//
#include "Timer.h"

#include "aoti/backend/Compare.h"
#include "aoti/backend/Model.h"
#include "aoti/backend/Npy.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

using namespace aoti::backend;

namespace {

constexpr int ExitOk = 0, ExitMismatch = 1, ExitBadInput = 2;

struct Options {
  std::string ModelPath;
  std::string ModelName; // --model: which model of a package
  bool ListModels = false;
  std::string DeviceText;
  std::vector<std::string> Inputs;
  std::vector<std::string> Expects;
  std::string OutputDir;
  std::string Weights;
  std::string CubinDir;
  double RTol = 1e-4, ATol = 1e-5;
  int Iters = 0, Warmup = 5;
  std::string Format = "text";
  bool NoCheckInputs = false;
  bool NoPrecheck = false;
  bool SingleThreaded = false;
  bool CudaGraph = false;
  int LoadCycles = 0;
  std::optional<uint64_t> Seed;
};

/// What --cuda-graph did: whether the run could be captured (else why not),
/// the device time per replay when replays are queued back to back (the
/// kernels plus the gaps between them, with no host in the loop), and
/// whether the last replay's outputs matched the expectations.
struct GraphReport {
  bool Captured = false;
  std::string Reason;
  double PipelinedMs = 0;
  std::optional<bool> OutputsMatch;
};

/// What --load-cycles measured: memory in use after the first cycle (the
/// caches every process keeps are filled by then) and after the last.
struct CycleReport {
  int Cycles = 0;
  long long HostFirst = 0, HostLast = 0;
  long long DeviceFirst = -1, DeviceLast = -1; // -1: not a CUDA run
};

struct OutputReport {
  TensorSpec Spec;
  std::string File;
  std::optional<Comparison> Check;
  std::string ExpectFile;
};

struct Latency {
  double P50 = 0, P90 = 0, P99 = 0, Mean = 0, Min = 0, Max = 0;
  int Iters = 0, Warmup = 0;
};

double percentile(std::vector<double> Sorted, double P) {
  if (Sorted.empty())
    return 0;
  // Linear interpolation between closest ranks (NumPy's default).
  const double Rank = P / 100.0 * static_cast<double>(Sorted.size() - 1);
  const size_t Lo = static_cast<size_t>(std::floor(Rank));
  const size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * (Rank - static_cast<double>(Lo));
}

std::string jsonString(std::string_view S) {
  std::string Out = "\"";
  for (char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\t': Out += "\\t"; break;
    case '\r': Out += "\\r"; break;
    default:
      if (static_cast<unsigned char>(C) < 0x20) {
        char Buf[8];
        std::snprintf(Buf, sizeof Buf, "\\u%04x", C);
        Out += Buf;
      } else {
        Out += C;
      }
    }
  }
  return Out + "\"";
}

std::string signedBytes(long long V) {
  return (V >= 0 ? "+" : "") + std::to_string(V) + " bytes";
}

std::string jsonNumber(double V) {
  if (!std::isfinite(V))
    return "null";
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.6g", V);
  return Buf;
}

std::string jsonShape(const std::optional<std::vector<int64_t>> &S) {
  if (!S)
    return "null";
  std::string Out = "[";
  for (size_t I = 0; I < S->size(); ++I)
    Out += (I ? "," : "") + std::to_string((*S)[I]);
  return Out + "]";
}

std::string jsonSpec(const TensorSpec &S) {
  return "{\"name\":" + jsonString(S.Name) + ",\"dtype\":" +
         (S.Type ? jsonString(dtypeName(*S.Type)) : "null") + ",\"shape\":" + jsonShape(S.Shape) + "}";
}

std::string textSpec(const TensorSpec &S) {
  return std::string(S.Type ? dtypeName(*S.Type) : "?") + " " +
         (S.Shape ? shapeString(*S.Shape) : "[?]");
}

/// Everything the run found out, printed once at the end in either format.
struct Report {
  std::string ModelPath;
  std::string PackageModel; // the package's model that ran; empty for a .so
  std::string Device;
  std::string CompiledFor;
  std::vector<TensorSpec> Inputs;
  std::vector<OutputReport> Outputs;
  size_t NumConstants = 0;
  uint64_t BlobSize = 0;
  std::optional<Latency> Timing;
  std::optional<CycleReport> Cycles;
  std::optional<GraphReport> Graph;
  std::vector<std::string> Notes;
  Tolerance Tol;
  std::string Status = "ok";
  std::optional<Error> Failure;

  void printText(std::ostream &OS) const {
    if (Failure) {
      std::cerr << "aoti-run: error: " << Failure->message() << "\n";
      return;
    }
    OS << "model: " << ModelPath << (PackageModel.empty() ? "" : " (model " + PackageModel + ")")
       << " on " << Device
       << (CompiledFor.empty() ? "" : " (compiled for " + CompiledFor + ")") << ", "
       << NumConstants << " constants, " << BlobSize << " blob bytes\n";
    for (size_t I = 0; I < Inputs.size(); ++I)
      OS << "input " << I << " " << Inputs[I].Name << ": " << textSpec(Inputs[I]) << "\n";
    for (size_t I = 0; I < Outputs.size(); ++I) {
      const OutputReport &O = Outputs[I];
      OS << "output " << I << " " << O.Spec.Name << ": " << textSpec(O.Spec);
      if (!O.File.empty())
        OS << " -> " << O.File;
      if (O.Check) {
        const Comparison &C = *O.Check;
        if (!C.Incompatible.empty())
          OS << "  MISMATCH: " << C.Incompatible;
        else if (C.Match)
          OS << "  ok";
        else
          OS << "  MISMATCH: " << C.Mismatched << " of " << C.Compared
             << " elements differ (first at flat index " << C.FirstMismatch << ")";
        if (C.Incompatible.empty())
          OS << " (max abs err " << jsonNumber(C.MaxAbsError) << ", max rel err "
             << jsonNumber(C.MaxRelError) << "; rtol " << jsonNumber(Tol.RTol) << ", atol "
             << jsonNumber(Tol.ATol) << ")";
      }
      OS << "\n";
    }
    if (Cycles) {
      OS << "load cycles: " << Cycles->Cycles << " (load, run, unload); host heap in use "
         << Cycles->HostFirst << " bytes after the first, " << Cycles->HostLast
         << " after the last (" << signedBytes(Cycles->HostLast - Cycles->HostFirst) << ")";
      if (Cycles->DeviceFirst >= 0)
        OS << "; device memory in use " << Cycles->DeviceFirst << " -> " << Cycles->DeviceLast
           << " (" << signedBytes(Cycles->DeviceLast - Cycles->DeviceFirst) << ")";
      OS << "\n";
    }
    if (Timing)
      OS << "latency ms over " << Timing->Iters << " runs (" << Timing->Warmup
         << " warm-up): p50 " << jsonNumber(Timing->P50) << " p90 " << jsonNumber(Timing->P90)
         << " p99 " << jsonNumber(Timing->P99) << " mean " << jsonNumber(Timing->Mean)
         << " min " << jsonNumber(Timing->Min) << "\n";
    if (Graph && Graph->Captured) {
      OS << "cuda graph: the timed runs replay one captured run; queued back to back, "
         << jsonNumber(Graph->PipelinedMs) << " ms a replay";
      if (Graph->OutputsMatch)
        OS << "; the last replay's outputs " << (*Graph->OutputsMatch ? "match" : "DIFFER");
      OS << "\n";
    }
    for (const std::string &N : Notes)
      OS << "note: " << N << "\n";
    OS << "result: " << Status << "\n";
  }

  void printJson(std::ostream &OS) const {
    OS << "{\"schema_version\":1,\"model\":" << jsonString(ModelPath)
       << ",\"status\":" << jsonString(Status);
    if (Failure) {
      OS << ",\"error\":{\"kind\":" << jsonString(toString(Failure->kind()))
         << ",\"message\":" << jsonString(Failure->message()) << "}}\n";
      return;
    }
    if (!PackageModel.empty())
      OS << ",\"package_model\":" << jsonString(PackageModel);
    OS << ",\"device\":" << jsonString(Device) << ",\"compiled_for\":" << jsonString(CompiledFor)
       << ",\"constants\":" << NumConstants << ",\"constants_blob_bytes\":" << BlobSize
       << ",\"inputs\":[";
    for (size_t I = 0; I < Inputs.size(); ++I)
      OS << (I ? "," : "") << jsonSpec(Inputs[I]);
    OS << "],\"outputs\":[";
    for (size_t I = 0; I < Outputs.size(); ++I) {
      const OutputReport &O = Outputs[I];
      std::string Spec = jsonSpec(O.Spec);
      Spec.pop_back();
      OS << (I ? "," : "") << Spec;
      if (!O.File.empty())
        OS << ",\"file\":" << jsonString(O.File);
      if (O.Check) {
        const Comparison &C = *O.Check;
        OS << ",\"check\":{\"expected\":" << jsonString(O.ExpectFile)
           << ",\"match\":" << (C.Match ? "true" : "false");
        if (!C.Incompatible.empty())
          OS << ",\"incompatible\":" << jsonString(C.Incompatible);
        OS << ",\"mismatched\":" << C.Mismatched << ",\"compared\":" << C.Compared
           << ",\"max_abs_error\":" << jsonNumber(C.MaxAbsError)
           << ",\"max_rel_error\":" << jsonNumber(C.MaxRelError)
           << ",\"rtol\":" << jsonNumber(Tol.RTol) << ",\"atol\":" << jsonNumber(Tol.ATol) << "}";
      }
      OS << "}";
    }
    OS << "]";
    if (Timing)
      OS << ",\"latency_ms\":{\"p50\":" << jsonNumber(Timing->P50) << ",\"p90\":"
         << jsonNumber(Timing->P90) << ",\"p99\":" << jsonNumber(Timing->P99)
         << ",\"mean\":" << jsonNumber(Timing->Mean) << ",\"min\":" << jsonNumber(Timing->Min)
         << ",\"max\":" << jsonNumber(Timing->Max) << ",\"iters\":" << Timing->Iters
         << ",\"warmup\":" << Timing->Warmup << "}";
    if (Graph) {
      OS << ",\"cuda_graph\":{\"captured\":" << (Graph->Captured ? "true" : "false");
      if (Graph->Captured)
        OS << ",\"pipelined_ms_per_run\":" << jsonNumber(Graph->PipelinedMs);
      else
        OS << ",\"reason\":" << jsonString(Graph->Reason);
      if (Graph->OutputsMatch)
        OS << ",\"outputs_match\":" << (*Graph->OutputsMatch ? "true" : "false");
      OS << "}";
    }
    if (Cycles) {
      OS << ",\"load_cycles\":{\"cycles\":" << Cycles->Cycles << ",\"host_heap_bytes\":{\"first\":"
         << Cycles->HostFirst << ",\"last\":" << Cycles->HostLast << "},\"device_bytes\":";
      if (Cycles->DeviceFirst >= 0)
        OS << "{\"first\":" << Cycles->DeviceFirst << ",\"last\":" << Cycles->DeviceLast << "}";
      else
        OS << "null";
      OS << "}";
    }
    OS << ",\"notes\":[";
    for (size_t I = 0; I < Notes.size(); ++I)
      OS << (I ? "," : "") << jsonString(Notes[I]);
    OS << "]}\n";
  }
};

int finish(const Options &O, Report &R, int Code) {
  if (O.Format == "json")
    R.printJson(std::cout);
  else
    R.printText(std::cout);
  std::cout.flush();
  return Code;
}

int fail(const Options &O, Report &R, Error E) {
  R.Status = "error";
  R.Failure = std::move(E);
  return finish(O, R, ExitBadInput);
}

/// One --load-cycles cycle: load, upload, run, download, release, unload.
/// The stream is the host's: made in the first cycle, kept across them, so
/// what is measured is the model's load and unload, not stream churn.
Status cycle(const Options &O, const LoadOptions &LO, const std::vector<HostTensor> &Inputs,
             Device &Used, std::unique_ptr<aoti::run::DeviceContext> &Kept) {
  Expected<std::unique_ptr<Model>> M = Model::load(O.ModelPath, LO);
  if (!M)
    return M.takeError();
  Used = (*M)->device();
  if (!Kept) {
    Expected<std::unique_ptr<aoti::run::DeviceContext>> C = aoti::run::makeDeviceContext(Used);
    if (!C)
      return C.takeError();
    Kept = std::move(*C);
  }
  aoti::run::DeviceContext &Ctx = *Kept;
  Expected<DeviceInputs> In = (*M)->upload(Inputs, Ctx.stream());
  if (!In)
    return In.takeError();
  Expected<OutputSet> Out = (*M)->run(*In, Ctx.stream(), /*CaptureDiagnostics=*/true);
  if (!Out)
    return Out.takeError();
  Expected<std::vector<HostTensor>> Host = (*M)->download(*Out, Ctx.stream());
  (*M)->release(*Out, Ctx.stream());
  if (!Host)
    return Host.takeError();
  if (Status S = Ctx.synchronize(); !S)
    return S;
  In->Tensors.clear();
  return Status::success();
}

/// --list-models: the package's models, one per line ("NAME LIBRARY"), or
/// as JSON.
int listModels(const Options &O) {
  Expected<std::vector<PackageModel>> Models = listPackageModels(O.ModelPath);
  if (!Models) {
    Report R;
    R.ModelPath = O.ModelPath;
    return fail(O, R, Models.takeError());
  }
  if (O.Format == "json") {
    std::cout << "{\"schema_version\":1,\"package\":" << jsonString(O.ModelPath)
              << ",\"models\":[";
    for (size_t I = 0; I < Models->size(); ++I)
      std::cout << (I ? "," : "") << "{\"name\":" << jsonString((*Models)[I].Name)
                << ",\"library\":" << jsonString((*Models)[I].Library) << "}";
    std::cout << "]}\n";
  } else {
    for (const PackageModel &M : *Models)
      std::cout << M.Name << " " << M.Library << "\n";
  }
  return ExitOk;
}

int runAll(const Options &O) {
  Report R;
  R.ModelPath = O.ModelPath;
  R.Tol = {O.RTol, O.ATol};

  LoadOptions LO;
  if (!O.ModelName.empty())
    LO.ModelName = O.ModelName;
  if (!O.DeviceText.empty()) {
    Expected<Device> D = Device::parse(O.DeviceText);
    if (!D)
      return fail(O, R, D.takeError());
    LO.TargetDevice = *D;
  }
  if (!O.Weights.empty())
    LO.WeightsPath = O.Weights;
  if (!O.CubinDir.empty())
    LO.CubinDir = O.CubinDir;
  LO.CheckInputs = !O.NoCheckInputs;
  LO.Seed = O.Seed;
  LO.PrecheckSymbols = !O.NoPrecheck;
  // A graph capture must not wait on the container's run events.
  LO.SingleThreaded = O.SingleThreaded || O.CudaGraph;

  // Read every file first: a bad .npy is reported before a model is loaded.
  std::vector<HostTensor> Inputs, Expects;
  for (const std::string &P : O.Inputs) {
    Expected<HostTensor> T = readNpy(P);
    if (!T)
      return fail(O, R, T.takeError());
    Inputs.push_back(std::move(*T));
  }
  for (const std::string &P : O.Expects) {
    Expected<HostTensor> T = readNpy(P);
    if (!T)
      return fail(O, R, T.takeError());
    Expects.push_back(std::move(*T));
  }

  if (O.LoadCycles > 0) {
    CycleReport C;
    C.Cycles = O.LoadCycles;
    Device Used;
    std::unique_ptr<aoti::run::DeviceContext> Stream;
    for (int I = 0; I < O.LoadCycles; ++I) {
      if (Status S = cycle(O, LO, Inputs, Used, Stream); !S)
        return fail(O, R, S.takeError());
      if (I == 0) {
        C.HostFirst = aoti::run::hostHeapInUse();
        C.DeviceFirst = aoti::run::deviceMemoryInUse(Used);
      }
    }
    C.HostLast = aoti::run::hostHeapInUse();
    C.DeviceLast = aoti::run::deviceMemoryInUse(Used);
    R.Cycles = C;
  }

  Expected<std::unique_ptr<Model>> Loaded = Model::load(O.ModelPath, LO);
  if (!Loaded)
    return fail(O, R, Loaded.takeError());
  Model &M = **Loaded;
  R.PackageModel = M.modelName();
  R.Device = M.device().str();
  R.CompiledFor = M.compiledForDevice();
  R.NumConstants = M.constants().size();
  R.BlobSize = M.constantsBlobSize();
  R.Notes = M.notes();
  if (Expects.size() > M.outputNames().size())
    return fail(O, R, Error(ErrorKind::InvalidArgument,
                            std::to_string(Expects.size()) + " expectations given, but the model has " +
                                std::to_string(M.outputNames().size()) + " outputs"));

  Expected<std::unique_ptr<aoti::run::DeviceContext>> Ctx = aoti::run::makeDeviceContext(M.device());
  if (!Ctx)
    return fail(O, R, Ctx.takeError());
  aoti::run::DeviceContext &Dev = **Ctx;

  Expected<DeviceInputs> In = M.upload(Inputs, Dev.stream());
  if (!In)
    return fail(O, R, In.takeError());
  R.Inputs = M.inputs();
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (!R.Inputs[I].Type)
      R.Inputs[I].Type = Inputs[I].Type;
    R.Inputs[I].Shape = Inputs[I].Shape;
  }

  Expected<OutputSet> First = M.run(*In, Dev.stream(), /*CaptureDiagnostics=*/true);
  if (!First)
    return fail(O, R, First.takeError());
  Expected<std::vector<HostTensor>> Host = M.download(*First, Dev.stream());
  M.release(*First, Dev.stream());
  if (!Host)
    return fail(O, R, Host.takeError());

  if (!O.OutputDir.empty()) {
    std::error_code EC;
    std::filesystem::create_directories(O.OutputDir, EC);
    if (EC)
      return fail(O, R, Error(ErrorKind::Io, O.OutputDir + ": " + EC.message()));
  }
  bool AllMatch = true;
  for (size_t I = 0; I < Host->size(); ++I) {
    const HostTensor &T = (*Host)[I];
    OutputReport Out;
    Out.Spec = {M.outputNames()[I], T.Type, T.Shape};
    if (!O.OutputDir.empty()) {
      Out.File = O.OutputDir + "/output_" + std::to_string(I) + ".npy";
      if (Status S = writeNpy(Out.File, T); !S)
        return fail(O, R, S.takeError());
    }
    if (I < Expects.size()) {
      Out.Check = compare(T, Expects[I], R.Tol);
      Out.ExpectFile = O.Expects[I];
      AllMatch = AllMatch && Out.Check->Match;
    }
    R.Outputs.push_back(std::move(Out));
  }

  // --cuda-graph: capture one run and time its replays. The captured run's
  // output handles stay alive until the end: each replay rewrites them.
  std::unique_ptr<aoti::run::CapturedRun> Graph;
  std::optional<OutputSet> GraphOut;
  if (O.CudaGraph && O.Iters > 0) {
    R.Graph = GraphReport();
    Expected<std::unique_ptr<aoti::run::CapturedRun>> G = Dev.capture([&]() -> Status {
      Expected<OutputSet> Out = M.run(*In, Dev.stream(), /*CaptureDiagnostics=*/false);
      if (!Out)
        return Out.takeError();
      GraphOut = std::move(*Out);
      return Status::success();
    });
    if (G) {
      Graph = std::move(*G);
      R.Graph->Captured = true;
    } else {
      R.Graph->Reason = G.takeError().message();
      R.Notes.push_back("--cuda-graph: the run could not be captured (" + R.Graph->Reason +
                        "); timed plain runs instead");
      if (GraphOut)
        M.release(*GraphOut, Dev.stream());
      GraphOut.reset();
    }
  }

  if (O.Iters > 0) {
    std::vector<double> Ms;
    for (int I = 0; Graph && I < O.Warmup + O.Iters; ++I) {
      Dev.start();
      if (Status S = Graph->replay(); !S)
        return fail(O, R, S.takeError());
      Expected<double> T = Dev.stop();
      if (!T)
        return fail(O, R, T.takeError());
      if (I >= O.Warmup)
        Ms.push_back(*T);
    }
    if (Graph) {
      Dev.start();
      for (int I = 0; I < O.Iters; ++I)
        if (Status S = Graph->replay(); !S)
          return fail(O, R, S.takeError());
      Expected<double> T = Dev.stop();
      if (!T)
        return fail(O, R, T.takeError());
      R.Graph->PipelinedMs = *T / O.Iters;
      Expected<std::vector<HostTensor>> Replayed = M.download(*GraphOut, Dev.stream());
      if (!Replayed)
        return fail(O, R, Replayed.takeError());
      bool Match = true;
      for (size_t I = 0; I < Replayed->size() && I < Expects.size(); ++I)
        Match = Match && compare((*Replayed)[I], Expects[I], R.Tol).Match;
      if (!Expects.empty()) {
        R.Graph->OutputsMatch = Match;
        AllMatch = AllMatch && Match;
      }
    }
    for (int I = 0; !Graph && I < O.Warmup + O.Iters; ++I) {
      Dev.start();
      Expected<OutputSet> Out = M.run(*In, Dev.stream(), /*CaptureDiagnostics=*/false);
      if (!Out)
        return fail(O, R, Out.takeError());
      M.release(*Out, Dev.stream());
      Expected<double> T = Dev.stop();
      if (!T)
        return fail(O, R, T.takeError());
      if (I >= O.Warmup)
        Ms.push_back(*T);
    }
    std::sort(Ms.begin(), Ms.end());
    Latency L;
    L.Iters = O.Iters;
    L.Warmup = O.Warmup;
    L.P50 = percentile(Ms, 50);
    L.P90 = percentile(Ms, 90);
    L.P99 = percentile(Ms, 99);
    L.Min = Ms.front();
    L.Max = Ms.back();
    for (double V : Ms)
      L.Mean += V / static_cast<double>(Ms.size());
    R.Timing = L;
  }
  if (GraphOut)
    M.release(*GraphOut, Dev.stream());
  if (Status S = Dev.synchronize(); !S)
    return fail(O, R, S.takeError());
  Graph.reset();
  // The stream is idle: the inputs can go in any order.
  In->Tensors.clear();
  R.Status = AllMatch ? "ok" : "mismatch";
  return finish(O, R, AllMatch ? ExitOk : ExitMismatch);
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  CLI::App App{"Run an AOTInductor model (.pt2 package or .so) without LibTorch."};
  App.add_option("model", O.ModelPath, "a .pt2 package or a model .so")->required();
  App.add_option("--model", O.ModelName,
                 "which model of a package holding several (default: model, or the only one)");
  App.add_flag("--list-models", O.ListModels,
               "list the package's models (name, then library) and exit");
  App.add_option("--device", O.DeviceText,
                 "cpu, cuda or cuda:N (default: what the model was compiled for)");
  App.add_option("--input,-i", O.Inputs,
                 "an input as .npy (C or Fortran order), one per model input, in order");
  App.add_option("--output-dir,-o", O.OutputDir,
                 "write outputs there as output_<i>.npy, always written in C order");
  App.add_option("--expect,-e", O.Expects,
                 "expected output .npy (C or Fortran order), in output order");
  App.add_option("--rtol", O.RTol, "relative tolerance for floating-point outputs")
      ->check(CLI::NonNegativeNumber);
  App.add_option("--atol", O.ATol, "absolute tolerance for floating-point outputs")
      ->check(CLI::NonNegativeNumber);
  App.add_option("--iters", O.Iters, "timed runs after the first (default 0)")
      ->check(CLI::NonNegativeNumber);
  App.add_option("--warmup", O.Warmup, "untimed runs before the timed ones (default 5)")
      ->check(CLI::NonNegativeNumber);
  App.add_option("--format", O.Format, "text or json")->check(CLI::IsMember({"text", "json"}));
  App.add_option("--load-cycles", O.LoadCycles,
                 "first load, run and unload the model N times and report the host heap and "
                 "device memory in use after the first and the last cycle (a leak check)")
      ->check(CLI::NonNegativeNumber);
  uint64_t Seed = 0;
  CLI::Option *SeedOption = App.add_option(
      "--seed", Seed,
      "seed the random ops (rand, dropout, inductor's own RNG) when the model loads, "
      "so that runs repeat (default: AOTI_SHIMS_SEED, else torch's default seed)");
  App.add_option("--weights", O.Weights, "weights blob for a .so (default <stem>_weights.blob)");
  App.add_option("--cubin-dir", O.CubinDir, "cubin directory for a .so (default its directory)");
  App.add_flag("--no-check-inputs", O.NoCheckInputs,
               "do not turn on the model's own input checks (AOTI_RUNTIME_CHECK_INPUTS)");
  App.add_flag("--no-precheck", O.NoPrecheck,
               "skip the symbol check before dlopen (to see what dlopen itself says)");
  App.add_flag("--single-threaded", O.SingleThreaded, "use RunSingleThreaded");
  App.add_flag("--cuda-graph", O.CudaGraph,
               "time replays of one run captured into a CUDA graph (CUDA models, with --iters; "
               "implies --single-threaded); a run that cannot be captured (one that waits for "
               "the device, as dynamic shapes do) is timed plainly, with a note");
  try {
    App.parse(argc, argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    App.exit(E);
    return ExitBadInput;
  }
  if (SeedOption->count() > 0)
    O.Seed = Seed;
  if (O.ListModels)
    return listModels(O);
  return runAll(O);
}
