//===- consumer.cpp - A program built on the installed aoti::backend -----===//
//
//   consumer FIXTURES_DIR
//
// Uses only the installed headers. Opens the CPU fake model as a .so and as
// a .pt2, lists its inputs and outputs, runs it on host arrays and on
// buffers it owns, and checks y = x * w + b against a reference computed
// here from the weights blob's own bytes. A model without weights must come
// back as an Error value. Exit 0 when everything holds; 1 and a line per
// failure otherwise.
//
//===----------------------------------------------------------------------===//
#include <aoti/backend/Model.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace aoti::backend;

namespace {

int Failures = 0;

void check(bool Ok, const std::string &What) {
  if (!Ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", What.c_str());
    ++Failures;
  }
}

/// y = x * w + b, row by row, from the blob's 8 floats (w then b).
std::vector<float> reference(const std::vector<float> &X, const float *Blob) {
  std::vector<float> Y(X.size());
  for (size_t I = 0; I < X.size(); ++I)
    Y[I] = X[I] * Blob[I % 4] + Blob[4 + I % 4];
  return Y;
}

void checkClose(const float *Got, const std::vector<float> &Want, const std::string &What) {
  for (size_t I = 0; I < Want.size(); ++I)
    if (std::fabs(Got[I] - Want[I]) > 1e-6f * (1.0f + std::fabs(Want[I]))) {
      check(false, What + ": element " + std::to_string(I) + " is " + std::to_string(Got[I]) +
                       ", want " + std::to_string(Want[I]));
      return;
    }
}

void runModel(const std::string &Path, const float *Blob) {
  LoadOptions Options;
  Options.TargetDevice = Device{DeviceType::CPU, 0};
  Expected<std::unique_ptr<Model>> M = Model::load(Path, Options);
  if (!M) {
    check(false, Path + ": " + M.error().message());
    return;
  }
  Model &Mod = **M;
  std::printf("%s on %s\n", Path.c_str(), Mod.device().str().c_str());
  for (const TensorSpec &In : Mod.inputs())
    std::printf("  input %s: %s %s\n", In.Name.c_str(),
                In.Type ? std::string(dtypeName(*In.Type)).c_str() : "?",
                In.Shape ? shapeString(*In.Shape).c_str() : "?");
  check(Mod.inputs().size() == 1 && Mod.inputs()[0].Name == "x", Path + ": one input, x");
  check(Mod.outputs().size() == 3 && Mod.outputs()[0].Name == "y", Path + ": three outputs");

  // Host arrays in, host arrays out.
  const int64_t Rows = 6;
  HostTensor X(DType::Float32, {Rows, 4});
  std::vector<float> XV(Rows * 4);
  for (size_t I = 0; I < XV.size(); ++I)
    XV[I] = 0.25f * static_cast<float>(I) - 1.5f;
  std::memcpy(X.data<float>(), XV.data(), XV.size() * sizeof(float));
  const std::vector<float> Want = reference(XV, Blob);
  Expected<std::vector<HostTensor>> Out = Mod.run({X});
  if (!Out) {
    check(false, Path + ": run: " + Out.error().message());
    return;
  }
  check(Out->size() == 3 && (*Out)[0].Shape == std::vector<int64_t>{Rows, 4},
        Path + ": y is [6, 4]");
  if (Out->size() == 3 && (*Out)[0].numel() == Rows * 4)
    checkClose((*Out)[0].data<float>(), Want, Path + ": y from host arrays");
  for (const TensorSpec &O : Mod.outputs())
    std::printf("  output %s: %s %s\n", O.Name.c_str(),
                O.Type ? std::string(dtypeName(*O.Type)).c_str() : "?",
                O.Shape ? shapeString(*O.Shape).c_str() : "?");

  // Buffers this program owns (host memory: a CPU model's device).
  std::vector<float> Y(Rows * 4, 0.0f), YAgain(Rows * 4, 0.0f), Row(4, 0.0f);
  Expected<DeviceInputs> In = Mod.wrap({BufferRef{XV.data(), DType::Float32, {Rows, 4}}});
  if (!In) {
    check(false, Path + ": wrap: " + In.error().message());
    return;
  }
  Expected<OutputSet> Slots = Mod.run(*In, nullptr);
  if (!Slots) {
    check(false, Path + ": run on buffers: " + Slots.error().message());
    return;
  }
  Status S = Mod.copyOutputs(*Slots,
                             {BufferRef{Y.data(), DType::Float32, {Rows, 4}},
                              BufferRef{YAgain.data(), DType::Float32, {Rows, 4}},
                              BufferRef{Row.data(), DType::Float32, {4}}},
                             nullptr);
  check(static_cast<bool>(S), Path + ": copyOutputs" + (S ? "" : ": " + S.error().message()));
  checkClose(Y.data(), Want, Path + ": y in the caller's buffer");
  checkClose(YAgain.data(), Want, Path + ": y_again in the caller's buffer");
  checkClose(Row.data(), std::vector<float>(XV.begin(), XV.begin() + 4), Path + ": x_row0");
  Mod.release(*Slots, nullptr);

  // A bad call is an Error value, not an exception or a crash.
  Expected<std::vector<HostTensor>> Bad = Mod.run({});
  check(!Bad && Bad.error().kind() == ErrorKind::InvalidArgument,
        Path + ": no inputs is an InvalidArgument error");
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
    return 2;
  }
  const std::string Dir = argv[1];
  std::ifstream BlobFile(Dir + "/so/m.wrapper_weights.blob", std::ios::binary);
  std::vector<char> BlobBytes((std::istreambuf_iterator<char>(BlobFile)), {});
  if (BlobBytes.size() != 8 * sizeof(float)) {
    std::fprintf(stderr, "consumer: cannot read the weights blob under %s\n", Dir.c_str());
    return 2;
  }
  float Blob[8];
  std::memcpy(Blob, BlobBytes.data(), sizeof Blob);

  runModel(Dir + "/so/m.wrapper.so", Blob);
  runModel(Dir + "/model.pt2", Blob);

  Expected<std::unique_ptr<Model>> NoWeights = Model::load(Dir + "/noweights.pt2");
  check(!NoWeights && NoWeights.error().kind() == ErrorKind::Weights,
        "a package without weights is a Weights error");
  if (!NoWeights)
    std::printf("noweights.pt2: %s: %s\n", toString(NoWeights.error().kind()),
                NoWeights.error().message().substr(0, 80).c_str());

  std::printf("consumer: %s\n", Failures ? "FAILED" : "ok");
  return Failures ? 1 : 0;
}
