//===- ops_bench.cpp - The CUDA fallbacks' own time at the zoo's shapes ----===//
//
//   ops_bench [--iters N] > ours.json
//
// Times each convolution and attention fallback call that the model zoo's
// packages make (the shapes come from the zoo's generated code: ResNet-50,
// ViT, Whisper's conv1d, BERT / ViT / Llama attention), through the same C
// entry points a model calls, on the default stream. Each case is called
// `warmup` times untimed, then `iters` times between two CUDA events; the
// figure is the mean device time of one call, including the allocation of
// its output from the shims' stream-ordered pool (a model pays that too).
// bench/gpu/ops_bench_torch.py times eager PyTorch's kernels on the same
// cases, and bench/gpu/ops_compare.py puts the two side by side.
//
// Inputs are random (uniform in [-1, 1)), made on the host and copied once.
// Which attention path runs is the shims' choice, as in a model: cuDNN's
// fused attention for the float16 / bfloat16 cases it takes, the tiled
// kernel for the rest. AOTI_SHIMS_CUDA_ATTENTION forces one (cudnn, ours,
// row: the warp-per-row kernel before the tiled one, per-key, tiled-64 /
// tiled-32); the JSON names it in "attention_kernel", so two runs make an A/B.
//
//===----------------------------------------------------------------------===//
#include "aoti/shim.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case {
  const char *Name;
  const char *Op; // "conv" or one of the attention variants
  const char *DType;
  std::vector<int64_t> A, B; // input and weight, or query and key/value
  std::vector<int64_t> Stride, Padding, Dilation;
  int64_t Groups = 1;
  bool Causal = false;
};

int32_t dtypeCode(const std::string &D) {
  return D == "bfloat16" ? aoti_torch_dtype_bfloat16()
         : D == "float16" ? aoti_torch_dtype_float16()
                          : aoti_torch_dtype_float32();
}

size_t itemSize(const std::string &D) { return D == "float32" ? 4 : 2; }

uint16_t toHalfBits(float F, bool BFloat) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  if (BFloat)
    return static_cast<uint16_t>((Bits + 0x7fff + ((Bits >> 16) & 1)) >> 16);
  // float16 for values in [-1, 1): no overflow, flush tiny values.
  const uint32_t Sign = (Bits >> 16) & 0x8000;
  const int Exp = static_cast<int>((Bits >> 23) & 0xff) - 127 + 15;
  if (Exp <= 0)
    return static_cast<uint16_t>(Sign);
  return static_cast<uint16_t>(Sign | (Exp << 10) | ((Bits >> 13) & 0x3ff));
}

/// A contiguous CUDA tensor of random values.
AtenTensorHandle randomTensor(const std::vector<int64_t> &Sizes, const std::string &D,
                              std::mt19937 &Rng) {
  int64_t N = 1;
  for (int64_t S : Sizes)
    N *= S;
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  std::vector<unsigned char> Host(static_cast<size_t>(N) * itemSize(D));
  for (int64_t I = 0; I < N; ++I) {
    float V = U(Rng);
    if (D == "float32")
      std::memcpy(&Host[I * 4], &V, 4);
    else {
      uint16_t H = toHalfBits(V, D == "bfloat16");
      std::memcpy(&Host[I * 2], &H, 2);
    }
  }
  AtenTensorHandle T = nullptr;
  if (aoti_torch_empty_strided(static_cast<int64_t>(Sizes.size()), Sizes.data(), nullptr,
                               dtypeCode(D), aoti_torch_device_type_cuda(), 0, &T) != 0) {
    std::fprintf(stderr, "ops_bench: empty_strided: %s\n", aoti_shims_last_error());
    std::exit(2);
  }
  void *Data = nullptr;
  aoti_torch_get_data_ptr(T, &Data);
  cudaMemcpy(Data, Host.data(), Host.size(), cudaMemcpyHostToDevice);
  return T;
}

/// One call of the case's fallback; deletes what it returns.
int32_t callOnce(const Case &C, AtenTensorHandle A, AtenTensorHandle B, AtenTensorHandle V) {
  const std::string Op = C.Op;
  if (Op == "conv") {
    const std::vector<int64_t> OutPad(C.Stride.size(), 0);
    AtenTensorHandle Out = nullptr;
    int32_t E = aoti_torch_cuda_convolution(
        A, B, nullptr, C.Stride.data(), static_cast<int64_t>(C.Stride.size()), C.Padding.data(),
        static_cast<int64_t>(C.Padding.size()), C.Dilation.data(),
        static_cast<int64_t>(C.Dilation.size()), 0, OutPad.data(),
        static_cast<int64_t>(OutPad.size()), C.Groups, &Out);
    if (Out)
      aoti_torch_delete_tensor_object(Out);
    return E;
  }
  AtenTensorHandle R[9] = {};
  int64_t Ints[2] = {};
  int32_t E;
  if (Op == "efficient")
    E = aoti_torch_cuda__scaled_dot_product_efficient_attention(
        A, B, V, nullptr, 0, 0.0, C.Causal, nullptr, &R[0], &R[1], &R[2], &R[3]);
  else if (Op == "flash")
    E = aoti_torch_cuda__scaled_dot_product_flash_attention(A, B, V, 0.0, C.Causal, 0, nullptr,
                                                            &R[0], &R[1], &R[2], &R[3], &Ints[0],
                                                            &Ints[1], &R[6], &R[7], &R[8]);
  else // what the zoo's generated code passes: no debug outputs asked for
    E = aoti_torch_cuda__scaled_dot_product_cudnn_attention(
        A, B, V, nullptr, 0, 0.0, C.Causal, 0, nullptr, &R[0], &R[1], nullptr, nullptr, &Ints[0],
        &Ints[1], &R[6], &R[7], nullptr);
  for (AtenTensorHandle H : R)
    if (H)
      aoti_torch_delete_tensor_object(H);
  return E;
}

std::string shape(const std::vector<int64_t> &S) {
  std::string Out = "[";
  for (size_t I = 0; I < S.size(); ++I)
    Out += (I ? "," : "") + std::to_string(S[I]);
  return Out + "]";
}

} // namespace

int main(int argc, char **argv) {
  int Iters = 50, Warmup = 5;
  for (int I = 1; I + 1 < argc; ++I)
    if (std::string(argv[I]) == "--iters")
      Iters = std::atoi(argv[I + 1]);
  // The zoo's shapes (N, C, H, W) / (B, H, L, E), from the scout exports.
  const std::vector<Case> Cases = {
      {"resnet50.conv1 7x7/2", "conv", "float32", {1, 3, 224, 224}, {64, 3, 7, 7}, {2, 2}, {3, 3}, {1, 1}},
      {"resnet50.layer1 3x3", "conv", "float32", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"resnet50.layer1 1x1", "conv", "float32", {1, 256, 56, 56}, {64, 256, 1, 1}, {1, 1}, {0, 0}, {1, 1}},
      {"resnet50.layer4 3x3", "conv", "float32", {1, 512, 7, 7}, {512, 512, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"resnet50.layer1 3x3 bf16", "conv", "bfloat16", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {"vit_b_16.patch 16x16/16", "conv", "float32", {1, 3, 224, 224}, {768, 3, 16, 16}, {16, 16}, {0, 0}, {1, 1}},
      {"mobilenet.depthwise 3x3", "conv", "float32", {1, 72, 56, 56}, {72, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 72},
      {"whisper.conv1 k3", "conv", "float32", {1, 80, 3000}, {256, 80, 3}, {1}, {1}, {1}},
      {"whisper.conv2 k3/2", "conv", "float32", {1, 256, 3000}, {256, 256, 3}, {2}, {1}, {1}},
      {"bert.sdpa", "efficient", "float32", {1, 12, 128, 64}, {1, 12, 128, 64}, {}, {}, {}},
      {"vit_b_16.sdpa", "efficient", "float32", {1, 12, 197, 64}, {1, 12, 197, 64}, {}, {}, {}},
      {"gpt2.sdpa causal", "efficient", "float32", {1, 12, 128, 64}, {1, 12, 128, 64}, {}, {}, {}, 1, true},
      {"whisper.sdpa", "efficient", "float32", {1, 4, 1500, 64}, {1, 4, 1500, 64}, {}, {}, {}},
      {"whisper_tiny.sdpa", "efficient", "float32", {1, 6, 1500, 64}, {1, 6, 1500, 64}, {}, {}, {}},
      {"whisper_large.sdpa", "efficient", "float32", {1, 20, 1500, 64}, {1, 20, 1500, 64}, {}, {}, {}},
      {"gpt2.sdpa causal 1024", "efficient", "float32", {1, 12, 1024, 64}, {1, 12, 1024, 64}, {}, {}, {}, 1, true},
      {"vit_b_16.sdpa bf16", "cudnn", "bfloat16", {1, 12, 197, 64}, {1, 12, 197, 64}, {}, {}, {}},
      {"llama.sdpa bf16 causal", "cudnn", "bfloat16", {1, 8, 128, 64}, {1, 8, 128, 64}, {}, {}, {}, 1, true},
      {"whisper.sdpa bf16", "cudnn", "bfloat16", {1, 4, 1500, 64}, {1, 4, 1500, 64}, {}, {}, {}},
      {"bert.sdpa bf16 flash", "flash", "bfloat16", {1, 12, 128, 64}, {1, 12, 128, 64}, {}, {}, {}},
      // Half-type efficient / flash calls, which take cuDNN's fused attention
      // too (AOTI_SHIMS_CUDA_ATTENTION=ours times our kernel on every case).
      {"whisper.sdpa fp16 efficient", "efficient", "float16", {1, 4, 1500, 64}, {1, 4, 1500, 64}, {}, {}, {}},
      {"gpt2.sdpa bf16 causal efficient", "efficient", "bfloat16", {1, 12, 128, 64}, {1, 12, 128, 64}, {}, {}, {}, 1, true},
      {"llama.sdpa bf16 causal flash", "flash", "bfloat16", {1, 8, 128, 64}, {1, 8, 128, 64}, {}, {}, {}, 1, true},
  };
  std::mt19937 Rng(42);
  cudaEvent_t Begin, End;
  cudaEventCreate(&Begin);
  cudaEventCreate(&End);
  // The kernel attention.cpp picks for this value (anything else: tiled).
  const char *Env = std::getenv("AOTI_SHIMS_CUDA_ATTENTION");
  const std::string Choice = Env ? Env : "";
  const char *Kernel = Choice == "row"        ? "row"
                       : Choice == "per-key"  ? "per-key"
                       : Choice == "tiled-64" ? "tiled-64"
                       : Choice == "tiled-32" ? "tiled-32"
                                              : "tiled";
  std::printf("{\"schema_version\":1,\"iters\":%d,\"attention_kernel\":\"%s\",\"cases\":[",
              Iters, Kernel);
  bool First = true;
  for (const Case &C : Cases) {
    AtenTensorHandle A = randomTensor(C.A, C.DType, Rng);
    AtenTensorHandle B = randomTensor(C.B, C.DType, Rng);
    AtenTensorHandle V = std::string(C.Op) == "conv" ? nullptr : randomTensor(C.B, C.DType, Rng);
    std::string Error;
    for (int I = 0; I < Warmup && Error.empty(); ++I)
      if (callOnce(C, A, B, V) != 0)
        Error = aoti_shims_last_error();
    double Ms = -1;
    if (Error.empty()) {
      cudaDeviceSynchronize();
      cudaEventRecord(Begin, nullptr);
      for (int I = 0; I < Iters && Error.empty(); ++I)
        if (callOnce(C, A, B, V) != 0)
          Error = aoti_shims_last_error();
      cudaEventRecord(End, nullptr);
      cudaEventSynchronize(End);
      float Total = 0;
      cudaEventElapsedTime(&Total, Begin, End);
      Ms = Total / Iters;
    }
    std::printf("%s\n{\"name\":\"%s\",\"op\":\"%s\",\"dtype\":\"%s\",\"a\":%s,\"b\":%s,"
                "\"stride\":%s,\"padding\":%s,\"dilation\":%s,\"groups\":%lld,\"causal\":%s,"
                "\"ms\":%.5f",
                First ? "" : ",", C.Name, C.Op, C.DType, shape(C.A).c_str(), shape(C.B).c_str(),
                shape(C.Stride).c_str(), shape(C.Padding).c_str(), shape(C.Dilation).c_str(),
                static_cast<long long>(C.Groups), C.Causal ? "true" : "false", Ms);
    if (!Error.empty()) {
      std::string Safe = Error.substr(0, 200);
      for (char &Ch : Safe)
        if (Ch == '"' || Ch == '\\' || static_cast<unsigned char>(Ch) < 0x20)
          Ch = '\'';
      std::printf(",\"error\":\"%s\"", Safe.c_str());
    }
    std::printf("}");
    First = false;
    aoti_torch_delete_tensor_object(A);
    aoti_torch_delete_tensor_object(B);
    if (V)
      aoti_torch_delete_tensor_object(V);
  }
  std::printf("]}\n");
  return 0;
}
