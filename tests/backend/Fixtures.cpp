//===- Fixtures.cpp - Files the backend tests load ------------------------===//
#include "Fixtures.h"

#include "aoti/backend/Npy.h"

#include <zip.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;
using namespace aoti::backend;

namespace aoti::testing {

const float FixtureW[4] = {1.0f, 2.0f, -3.0f, 0.5f};
const float FixtureB[4] = {0.25f, -1.0f, 0.0f, 4.0f};
float fixtureX(int Row, int Col) { return static_cast<float>(Row * 4 + Col) * 0.5f - 2.0f; }

namespace {

std::string blob(size_t Bytes) {
  std::string B(reinterpret_cast<const char *>(FixtureW), sizeof FixtureW);
  B.append(reinterpret_cast<const char *>(FixtureB), sizeof FixtureB);
  B.resize(Bytes);
  return B;
}

std::string metadata(const char *Device, const char *CpuIsa = nullptr) {
  return std::string("{\"AOTI_DEVICE_KEY\": \"") + Device +
         "\", \"AOTI_PLATFORM\": \"linux\", \"nested\": {\"a\": [1, 2, {\"b\": null}]}" +
         (CpuIsa ? std::string(", \"AOTI_CPU_ISA\": \"") + CpuIsa + "\"" : std::string()) + "}";
}

bool writeText(const fs::path &P, const std::string &Text) {
  fs::create_directories(P.parent_path());
  std::ofstream Out(P, std::ios::binary | std::ios::trunc);
  Out << Text;
  return static_cast<bool>(Out);
}

std::string readText(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(In), {});
}

std::string zipFiles(const fs::path &Out,
                     const std::vector<std::pair<std::string, std::string>> &Files) {
  int Err = 0;
  zip_t *Z = zip_open(Out.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &Err);
  if (!Z)
    return "cannot create " + Out.string();
  // libzip reads sources at zip_close; keep the bytes alive until then.
  std::vector<std::string> Keep;
  Keep.reserve(Files.size());
  for (const auto &[Name, Bytes] : Files) {
    Keep.push_back(Bytes);
    zip_source_t *S = zip_source_buffer(Z, Keep.back().data(), Keep.back().size(), 0);
    if (!S || zip_file_add(Z, Name.c_str(), S, ZIP_FL_OVERWRITE) < 0) {
      zip_source_free(S);
      zip_discard(Z);
      return "cannot add " + Name + " to " + Out.string();
    }
  }
  if (zip_close(Z) != 0)
    return "cannot write " + Out.string();
  return "";
}

HostTensor floats(std::vector<int64_t> Shape, float (*Fn)(int, int)) {
  HostTensor T(DType::Float32, Shape);
  for (int64_t I = 0; I < T.numel(); ++I)
    T.data<float>()[I] = Fn(static_cast<int>(I / 4), static_cast<int>(I % 4));
  return T;
}

} // namespace

std::string fortranOrderNpy(const HostTensor &T) {
  std::string Bytes = serializeNpy(T);
  const size_t Header = Bytes.size() - T.Data.size();
  Bytes.replace(Bytes.find("'fortran_order': False"), 22, "'fortran_order': True ");
  const size_t Elem = elementSize(T.Type), Rank = T.Shape.size();
  for (int64_t C = 0; C < T.numel(); ++C) {
    // C-order flat index -> multi-index -> Fortran flat index.
    int64_t Rest = C, F = 0, Scale = 1;
    std::vector<int64_t> Index(Rank);
    for (size_t D = Rank; D-- > 0;) {
      Index[D] = Rest % T.Shape[D];
      Rest /= T.Shape[D];
    }
    for (size_t D = 0; D < Rank; ++D) {
      F += Index[D] * Scale;
      Scale *= T.Shape[D];
    }
    std::memcpy(Bytes.data() + Header + F * Elem, T.Data.data() + C * Elem, Elem);
  }
  return Bytes;
}

std::string writeFixtures(const std::string &DirName, const Plugins &P) {
  const fs::path Dir(DirName);
  std::error_code EC;
  fs::create_directories(Dir, EC);
  const std::string So = readText(P.Model);
  const std::string Missing = readText(P.MissingModel);
  const std::string InSo = readText(P.InSoModel);
  const std::string NoWeights = readText(P.NoWeightsModel);
  if (So.empty() || Missing.empty() || InSo.empty() || NoWeights.empty())
    return "cannot read the plugins " + P.Model + ", " + P.MissingModel + ", " + P.InSoModel +
           ", " + P.NoWeightsModel;

  bool Ok = writeText(Dir / "so/m.wrapper.so", So) &&
            writeText(Dir / "so/m.wrapper_metadata.json", metadata("cpu")) &&
            writeText(Dir / "so/m.wrapper_weights.blob", blob(32)) &&
            writeText(Dir / "noblob/m.wrapper.so", So) &&
            writeText(Dir / "noblob/m.wrapper_metadata.json", metadata("cpu")) &&
            writeText(Dir / "short/m.wrapper.so", So) &&
            writeText(Dir / "short/m.wrapper_weights.blob", blob(20)) &&
            writeText(Dir / "short/m.wrapper_metadata.json", metadata("cpu")) &&
            writeText(Dir / "missing/m.wrapper_metadata.json", metadata("cpu")) &&
            writeText(Dir / "missing/m.wrapper.so", Missing) &&
            writeText(Dir / "missing/m.wrapper_weights.blob", blob(32)) &&
            writeText(Dir / "notamodel.so", readText(P.NotAModel)) &&
            writeText(Dir / "garbage.bin", "this is not a model\n") &&
            writeText(Dir / "inso/m.wrapper.so", InSo) &&
            writeText(Dir / "inso/m.wrapper_metadata.json", metadata("cpu")) &&
            writeText(Dir / "noweights/m.wrapper.so", NoWeights) &&
            writeText(Dir / "noweights/m.wrapper_metadata.json", metadata("cpu"));
  if (!Ok)
    return "cannot write fixtures under " + Dir.string();

  const std::string Folder = "some_model/data/aotinductor/model/";
  std::vector<std::pair<std::string, std::string>> Package = {
      {"some_model/archive_format", "pt2"},
      {"some_model/version", "0"},
      {Folder + "chash.wrapper.so", So},
      {Folder + "chash.wrapper_metadata.json", metadata("cpu")},
      {Folder + "chash.wrapper_weights.blob", blob(32)},
      {Folder + "chash.wrapper.cpp",
       // What AOTInductor generates to check an input, reduced to the lines
       // the backend reads its declared dtype and shape from.
       "AOTI_NOINLINE static void check_input_0(AtenTensorHandle* input_handles) {\n"
       "    int32_t arg0_1_expected_dtype = aoti_torch_dtype_float32();\n"
       "    if (arg0_1_size[0] < 1) {\n"
       "    if (4 != arg0_1_size[1]) {\n"
       "}\n"
       "static bool _check_aoti_runtime_check_inputs_env() {\n"},
  };
  if (std::string E = zipFiles(Dir / "model.pt2", Package); !E.empty())
    return E;
  Package[3].second = metadata("cuda");
  if (std::string E = zipFiles(Dir / "cuda.pt2", Package); !E.empty())
    return E;
  Package[3].second = metadata("cpu", "AVX512 AVX512_VNNI AMX_TILE");
  if (std::string E = zipFiles(Dir / "amx.pt2", Package); !E.empty())
    return E;
  Package[3].second = metadata("cpu", "INVALID_VEC_ISA");
  if (std::string E = zipFiles(Dir / "scalar.pt2", Package); !E.empty())
    return E;
  Package[3].second = metadata("cpu");
  // Kernels generated for more threads than any machine here has.
  Package.push_back({Folder + "ckernels.kernel.cpp",
                     "#pragma omp parallel num_threads(4096)\n{\n}\n"
                     "#pragma omp parallel num_threads(4)\n{\n}\n"});
  if (std::string E = zipFiles(Dir / "threads.pt2", Package); !E.empty())
    return E;
  Package.pop_back();
  // The same package, but the .so without weights in it or beside it; then
  // with them pickled as torch's pickle_weights format stores them.
  auto WithSo = [&](const std::string &Lib, bool Pickled) {
    std::vector<std::pair<std::string, std::string>> Files;
    for (const auto &F : Package)
      if (F.first.find("_weights.blob") == std::string::npos)
        Files.push_back(F);
    Files[2].second = Lib;
    Files[3].second = metadata("cpu");
    if (Pickled) {
      Files.push_back({"some_model/data/weights/weight_0", "\x80\x02pickled fc.weight"});
      Files.push_back({"some_model/data/weights/weight_1", "\x80\x02pickled fc.bias"});
      Files.push_back({Folder + "weights_config.json", "{}"});
    }
    return Files;
  };
  if (std::string E = zipFiles(Dir / "inso.pt2", WithSo(InSo, false)); !E.empty())
    return E;
  if (std::string E = zipFiles(Dir / "noweights.pt2", WithSo(NoWeights, false)); !E.empty())
    return E;
  if (std::string E = zipFiles(Dir / "pickled.pt2", WithSo(NoWeights, true)); !E.empty())
    return E;
  if (std::string E = zipFiles(Dir / "nomodel.pt2", {{"some_model/data/readme.txt", "no model"}});
      !E.empty())
    return E;
  // Several models in one package, as package_aoti(path, {"prefill": ...,
  // "decode": ...}) writes them: the same library under two folders,
  // "decode" with its weights doubled (so its Y is twice prefill's).
  {
    std::string Doubled;
    for (float V : FixtureW)
      Doubled.append(reinterpret_cast<const char *>(&(V = 2 * V)), sizeof V);
    for (float V : FixtureB)
      Doubled.append(reinterpret_cast<const char *>(&(V = 2 * V)), sizeof V);
    std::vector<std::pair<std::string, std::string>> Two = {{"two/archive_format", "pt2"}};
    for (const auto &[Model, Weights] :
         {std::pair<std::string, std::string>{"prefill", blob(32)}, {"decode", Doubled}}) {
      const std::string F = "two/data/aotinductor/" + Model + "/c" + Model + ".wrapper";
      Two.push_back({F + ".so", So});
      Two.push_back({F + "_metadata.json", metadata("cpu")});
      Two.push_back({F + "_weights.blob", Weights});
    }
    if (std::string E = zipFiles(Dir / "two.pt2", Two); !E.empty())
      return E;
    // One model, not named "model": opened without being named.
    const std::string F = "only/data/aotinductor/encoder/cenc.wrapper";
    if (std::string E = zipFiles(Dir / "only_encoder.pt2",
                                 {{F + ".so", So},
                                  {F + "_metadata.json", metadata("cpu")},
                                  {F + "_weights.blob", blob(32)}});
        !E.empty())
      return E;
  }

  HostTensor X = floats({3, 4}, fixtureX);
  HostTensor Y = floats({3, 4}, [](int R, int C) {
    return fixtureX(R, C) * FixtureW[C] + FixtureB[C];
  });
  HostTensor Row = floats({4}, [](int, int C) { return fixtureX(0, C); });
  HostTensor Wrong = Y;
  Wrong.data<float>()[5] += 1.0f;
  HostTensor XI64(DType::Int64, {3, 4});
  HostTensor X35 = floats({3, 5}, [](int R, int C) { return float(R + C); });
  Expected<HostTensor> X64 = convert(X, DType::Float64);
  for (auto [Name, T] : {std::pair<const char *, const HostTensor *>{"x.npy", &X},
                         {"expect_y.npy", &Y}, {"expect_row.npy", &Row},
                         {"wrong_y.npy", &Wrong}, {"x_i64.npy", &XI64},
                         {"x_3x5.npy", &X35}, {"x_f64.npy", &*X64}})
    if (Status S = writeNpy((Dir / Name).string(), *T); !S)
      return S.error().message();
  std::string Truncated = serializeNpy(X);
  Truncated.resize(Truncated.size() - 3);
  if (!writeText(Dir / "truncated.npy", Truncated) ||
      !writeText(Dir / "x_fortran.npy", fortranOrderNpy(X)) ||
      !writeText(Dir / "expect_y_fortran.npy", fortranOrderNpy(Y)))
    return "cannot write the bad .npy files";
  return "";
}

} // namespace aoti::testing
