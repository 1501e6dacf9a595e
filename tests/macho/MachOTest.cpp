//===- MachOTest.cpp - The Mach-O reader and the dyld model, unit by unit -===//
//
// Each test links its fixtures at test time with clang-19 -target
// arm64-apple-macos11 / x86_64-apple-macos11 and ld64.lld-19 (skipped when
// they are missing), then checks what the reader and DyldModel say about
// them. macho_cases.py checks the same files against llvm-objdump/llvm-nm;
// here are the facts the JSON does not show: how a dylib was found, load
// order, lookup scopes.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/loader/DyldModel.h"
#include "aoti/audit/Reader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

using namespace llvm;
using namespace aoti::audit;

namespace {

const char *ShimsC =
    "int aoti_torch_get_sizes(void *t, long **s) { (void)t; *s = 0; return 0; }\n"
    "int aoti_torch_dtype_float32(void) { return 6; }\n"
    "__attribute__((visibility(\"hidden\"))) int aoti_torch_hidden(void) { return 1; }\n"
    "__attribute__((weak)) int aoti_torch_weak(void) { return 2; }\n"
    "__thread int aoti_torch_tls;\n"
    "int aoti_torch_common;\n";
const char *PluginC =
    "int aoti_torch_get_sizes(void *, long **);\n"
    "int aoti_torch_dtype_float32(void);\n"
    "extern int aoti_torch_maybe(void) __attribute__((weak_import));\n"
    "int model_run(void) { long *s; return aoti_torch_get_sizes(0, &s) + "
    "aoti_torch_dtype_float32() + (aoti_torch_maybe ? aoti_torch_maybe() : 0); }\n";
const char *HostC = "int main(void) { return 0; }\n";

class MachO : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *T : {"clang-19", "ld64.lld-19", "llvm-lipo-19"})
      if (!sys::findProgramByName(T)) {
        GTEST_SKIP() << T << " is not installed";
      }
    ASSERT_FALSE(sys::fs::createUniqueDirectory("aoti-macho-unit", Dir));
    write("libSystem.tbd",
          "--- !tapi-tbd\ntbd-version: 4\ntargets: [ arm64-macos, x86_64-macos ]\n"
          "install-name: '/usr/lib/libSystem.B.dylib'\ncurrent-version: 1\n"
          "exports:\n  - targets: [ arm64-macos, x86_64-macos ]\n"
          "    symbols: [ dyld_stub_binder, _malloc, __tlv_bootstrap ]\n...\n");
  }
  void TearDown() override {
    if (!Dir.empty())
      sys::fs::remove_directories(Dir);
  }

  std::string path(StringRef Name) const {
    SmallString<256> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }
  std::string write(StringRef Name, StringRef Text) {
    std::string P = path(Name);
    sys::fs::create_directories(sys::path::parent_path(P));
    std::ofstream(P) << Text.str();
    return P;
  }
  void sh(const std::string &Cmd) {
    ASSERT_EQ(std::system((Cmd + " 2>&1").c_str()), 0) << Cmd;
  }
  std::string cc(StringRef Name, StringRef Source, StringRef Arch = "arm64") {
    std::string Src = write((Name + ".c").str(), Source);
    std::string Obj = path((Name + "." + Arch + ".o").str());
    sh(("clang-19 -target " + Arch + "-apple-macos11 -c " + Src + " -o " + Obj).str());
    return Obj;
  }
  std::string ld(StringRef Out, const std::string &Args, StringRef Arch = "arm64") {
    std::string O = path(Out);
    sys::fs::create_directories(sys::path::parent_path(O));
    sh(("ld64.lld-19 -arch " + Arch + " -platform_version macos 11.0 11.0 " + Args +
        " " + path("libSystem.tbd") + " -o " + O)
           .str());
    return O;
  }
  std::unique_ptr<Binary> read(const std::string &P, StringRef Arch = "") {
    ReadOptions O;
    O.Arch = Arch.str();
    auto B = readBinary(P, O);
    if (!B) {
      ADD_FAILURE() << toString(B.takeError());
      return nullptr;
    }
    return std::move(*B);
  }
  static const Symbol *find(const std::vector<Symbol> &Syms, StringRef Name,
                            bool Defined) {
    for (const Symbol &S : Syms)
      if (S.Name == Name && S.Defined == Defined)
        return &S;
    return nullptr;
  }

  SmallString<128> Dir;
};

TEST_F(MachO, DylibLoadCommandsAndExports) {
  std::string Lib = ld("lib/libshims.dylib",
                       "-dylib -install_name @rpath/libshims.dylib -rpath "
                       "@loader_path/../deps " +
                           cc("shims", ShimsC));
  auto B = read(Lib);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->format(), BinaryFormat::MachO);
  EXPECT_EQ(B->kind(), FileKind::SharedLibrary);
  EXPECT_EQ(B->archName(), "arm64");
  EXPECT_TRUE(B->twoLevelNamespace());
  EXPECT_EQ(B->soname(), "@rpath/libshims.dylib");
  ASSERT_EQ(B->rpath().size(), 1u);
  EXPECT_EQ(B->rpath()[0], "@loader_path/../deps");
  ASSERT_EQ(B->dependencies().size(), 1u);
  EXPECT_EQ(B->dependencies()[0].Name, "/usr/lib/libSystem.B.dylib");

  const Symbol *Sizes = find(B->dynamicSymbols(), "_aoti_torch_get_sizes", true);
  ASSERT_TRUE(Sizes);
  EXPECT_EQ(Sizes->Type, SymbolType::Function);
  EXPECT_TRUE(Sizes->isExportedDefinition());
  const Symbol *Weak = find(B->dynamicSymbols(), "_aoti_torch_weak", true);
  ASSERT_TRUE(Weak);
  EXPECT_TRUE(Weak->isWeak());
  const Symbol *Tls = find(B->dynamicSymbols(), "_aoti_torch_tls", true);
  ASSERT_TRUE(Tls);
  EXPECT_EQ(Tls->Type, SymbolType::TLS);
  // A private extern is in the nlist table only, as a hidden local.
  EXPECT_FALSE(find(B->dynamicSymbols(), "_aoti_torch_hidden", true));
  const Symbol *Hidden = find(B->staticSymbols(), "_aoti_torch_hidden", true);
  ASSERT_TRUE(Hidden);
  EXPECT_EQ(Hidden->Visibility, SymbolVisibility::Hidden);
  EXPECT_TRUE(Hidden->isLocal());
  EXPECT_TRUE(B->findExportedDefinitions("_aoti_torch_hidden").empty());
}

TEST_F(MachO, ObjectsCarryPrivateExternsAndCommons) {
  auto B = read(cc("shims", ShimsC));
  ASSERT_TRUE(B);
  EXPECT_EQ(B->kind(), FileKind::Relocatable);
  EXPECT_TRUE(B->dynamicSymbols().empty());
  const Symbol *Hidden = find(B->linkSymbols(), "_aoti_torch_hidden", true);
  ASSERT_TRUE(Hidden);
  EXPECT_FALSE(Hidden->isLocal()); // N_EXT|N_PEXT: global to the link
  EXPECT_EQ(Hidden->Visibility, SymbolVisibility::Hidden);
  const Symbol *Common = find(B->linkSymbols(), "_aoti_torch_common", true);
  if (Common) // clang-19 defaults to -fno-common: a regular definition
    EXPECT_TRUE(Common->isStrongDefinition());
  const Symbol *Weak = find(B->linkSymbols(), "_aoti_torch_weak", true);
  ASSERT_TRUE(Weak);
  EXPECT_EQ(Weak->Binding, SymbolBinding::Weak);
}

TEST_F(MachO, ImportOrdinalsAndWeakImports) {
  std::string Lib = ld("libshims.dylib", "-dylib -install_name @rpath/libshims.dylib " +
                                             cc("shims", ShimsC));
  std::string TwoLevel = ld("two.so", "-bundle -undefined dynamic_lookup " +
                                          cc("plugin", PluginC) + " " + Lib);
  auto B = read(TwoLevel);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->kind(), FileKind::Bundle);
  const Symbol *Sizes = find(B->dynamicSymbols(), "_aoti_torch_get_sizes", false);
  ASSERT_TRUE(Sizes);
  EXPECT_EQ(Sizes->LibraryOrdinal, 1);
  EXPECT_EQ(Sizes->SourceLibrary, "@rpath/libshims.dylib");
  const Symbol *Maybe = find(B->dynamicSymbols(), "_aoti_torch_maybe", false);
  ASSERT_TRUE(Maybe);
  EXPECT_TRUE(Maybe->isWeak());
  EXPECT_EQ(Maybe->LibraryOrdinal, 0xFE); // not in libshims: dynamic lookup

  std::string Loader = ld("host", cc("host", HostC) + " " + cc("shims", ShimsC));
  auto BL = read(ld("bl.so", "-bundle -bundle_loader " + Loader + " -undefined "
                             "dynamic_lookup " + cc("plugin", PluginC)));
  ASSERT_TRUE(BL);
  EXPECT_EQ(find(BL->dynamicSymbols(), "_aoti_torch_get_sizes", false)->LibraryOrdinal,
            0xFF);
}

TEST_F(MachO, UniversalSlices) {
  std::string A = ld("host.arm64", cc("host", HostC, "arm64"), "arm64");
  std::string X = ld("host.x86_64", cc("host", HostC, "x86_64"), "x86_64");
  std::string Fat = path("host.fat");
  sh("llvm-lipo-19 -create " + A + " " + X + " -output " + Fat);
  auto Arm = read(Fat, "arm64");
  ASSERT_TRUE(Arm);
  EXPECT_EQ(Arm->archName(), "arm64");
  auto Intel = read(Fat, "x86_64");
  ASSERT_TRUE(Intel);
  EXPECT_EQ(Intel->archName(), "x86_64");
  EXPECT_FALSE(Arm->machine() == Intel->machine());
  auto Aarch64 = read(Fat, "aarch64"); // the ELF spelling works too
  ASSERT_TRUE(Aarch64);
  EXPECT_EQ(Aarch64->archName(), "arm64");
  auto Default = read(Fat); // the audit machine's slice, else the first
  ASSERT_TRUE(Default);
  ReadOptions Ppc;
  Ppc.Arch = "ppc";
  auto None = readBinary(Fat, Ppc);
  ASSERT_FALSE(bool(None));
  EXPECT_NE(toString(None.takeError()).find("no ppc slice (it has"), std::string::npos);
}

TEST_F(MachO, MalformedInputIsAnError) {
  std::string Lib = ld("libshims.dylib", "-dylib " + cc("shims", ShimsC));
  auto Buf = MemoryBuffer::getFile(Lib);
  ASSERT_TRUE(bool(Buf));
  for (size_t Cut : {4u, 31u, 100u, 700u}) {
    std::string T = write("cut" + std::to_string(Cut),
                          (*Buf)->getBuffer().take_front(Cut));
    auto B = readBinary(T);
    EXPECT_FALSE(bool(B)) << Cut;
    if (!B)
      EXPECT_NE(toString(B.takeError()).find(T), std::string::npos);
  }
}

TEST_F(MachO, EnvironmentSettings) {
  DyldConfig C;
  ASSERT_FALSE(bool(C.applyEnvironment("DYLD_LIBRARY_PATH=/a::/b")));
  EXPECT_EQ(C.LibraryPath, (std::vector<std::string>{"/a", "/b"}));
  ASSERT_FALSE(bool(C.applyEnvironment("DYLD_FALLBACK_LIBRARY_PATH=")));
  ASSERT_TRUE(C.FallbackLibraryPath.has_value());
  EXPECT_TRUE(C.FallbackLibraryPath->empty());
  ASSERT_FALSE(bool(C.applyEnvironment("DYLD_INSERT_LIBRARIES=/x.dylib")));
  EXPECT_EQ(C.InsertLibraries.size(), 1u);
  ASSERT_FALSE(bool(C.applyEnvironment("LD_LIBRARY_PATH=/ignored")));
  Error E = C.applyEnvironment("no-equals-sign");
  EXPECT_TRUE(bool(E));
  consumeError(std::move(E));
}

TEST_F(MachO, HowEachDylibIsFound) {
  // host -> @rpath/libexe.dylib via its LC_RPATH @executable_path/lib;
  // plugin -> @loader_path/libnear.dylib, @rpath/libmid.dylib (its own
  // LC_RPATH), and libmid -> @rpath/libdeep.dylib via the chain (libmid has
  // no LC_RPATH; the plugin's second one finds it); /usr/lib/libSystem in
  // the shared cache; a missing weak dylib.
  auto Dylib = [&](StringRef Out, StringRef Install, const std::string &Extra = "") {
    return ld(Out, ("-dylib -install_name " + Install + " ").str() +
                       cc(sys::path::stem(Out), "int f_" + sys::path::stem(Out).str() +
                                                    "(void) { return 1; }\n") +
                       " " + Extra);
  };
  std::string Exe = Dylib("app/lib/libexe.dylib", "@rpath/libexe.dylib");
  std::string Deep = Dylib("app/models/deep/libdeep.dylib", "@rpath/libdeep.dylib");
  std::string Mid = Dylib("app/models/mid/libmid.dylib", "@rpath/libmid.dylib", Deep);
  std::string Near = Dylib("app/models/libnear.dylib", "@loader_path/libnear.dylib");
  std::string Gone = Dylib("gone/libgone.dylib", "@rpath/libgone.dylib");
  std::string Host = ld("app/host", cc("host", HostC) + " " + Exe +
                                        " -rpath @executable_path/lib");
  std::string Plugin =
      ld("app/models/model.so", "-bundle " + cc("plugin", PluginC) +
                                    " -undefined dynamic_lookup " + Near + " " + Mid +
                                    " -weak_library " + Gone +
                                    " -rpath @loader_path/mid -rpath @loader_path/deep");
  sys::fs::remove(Gone);

  DyldModel M({});
  ASSERT_FALSE(bool(M.startExecutable(Host)));
  auto P = M.dlopen(Plugin, /*Global=*/false);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  EXPECT_TRUE(M.missingLibraries().empty());

  auto Via = [&](StringRef Leaf) -> std::string {
    for (const LoadedObject &O : M.objects())
      if (sys::path::filename(O.Path) == Leaf)
        return O.FoundVia;
    return "<not loaded>";
  };
  EXPECT_EQ(Via("host"), "executable");
  EXPECT_EQ(Via("libexe.dylib"), "LC_RPATH @executable_path/lib of host");
  EXPECT_EQ(Via("libSystem.B.dylib"), "dyld shared cache (not modelled)");
  EXPECT_EQ(Via("model.so"), "dlopen");
  EXPECT_EQ(Via("libnear.dylib"), "@loader_path of model.so");
  EXPECT_EQ(Via("libmid.dylib"), "LC_RPATH @loader_path/mid of model.so");
  EXPECT_EQ(Via("libdeep.dylib"), "LC_RPATH @loader_path/deep of model.so");
  EXPECT_EQ(Via("libgone.dylib"), "<not loaded>");

  // dyld4 order: an image maps all its dependencies before recursing.
  std::vector<std::string> Order;
  for (const LoadedObject &O : M.objects())
    Order.push_back(sys::path::filename(O.Path).str());
  EXPECT_EQ(Order, (std::vector<std::string>{"host", "libexe.dylib",
                                             "libSystem.B.dylib", "model.so",
                                             "libnear.dylib", "libmid.dylib",
                                             "libdeep.dylib"}));
  for (unsigned I = 0; I != M.objects().size(); ++I)
    EXPECT_EQ(M.inSharedCache(I), Order[I] == "libSystem.B.dylib");
  const std::vector<int> &Deps = M.dependencyObjects(*P);
  ASSERT_EQ(Deps.size(), 4u);       // near, mid, gone (weak), libSystem
  EXPECT_EQ(Deps[2], -1);

  // RTLD_LOCAL hides the plugin from other images' flat lookups, not from its
  // own; its dependencies stay visible.
  Symbol Flat;
  Flat.Name = "_x";
  Flat.LibraryOrdinal = 0xFE;
  std::vector<unsigned> FromPlugin = M.lookupScope(*P, Flat);
  std::vector<unsigned> FromHost = M.lookupScope(0, Flat);
  EXPECT_NE(std::find(FromPlugin.begin(), FromPlugin.end(), *P), FromPlugin.end());
  EXPECT_EQ(std::find(FromHost.begin(), FromHost.end(), *P), FromHost.end());
  EXPECT_EQ(FromHost.size() + 1, M.objects().size());
  EXPECT_EQ(FromPlugin.front(), 0u); // main executable first

  Symbol Main;
  Main.Name = "_main";
  Main.LibraryOrdinal = 0xFF;
  EXPECT_EQ(M.lookupScope(*P, Main), std::vector<unsigned>{0});
  Symbol ToGone;
  ToGone.Name = "_f_libgone";
  ToGone.LibraryOrdinal = 3;
  EXPECT_TRUE(M.lookupScope(*P, ToGone).empty());
}

TEST_F(MachO, ReexportScopeIsDepthFirst) {
  auto Dylib = [&](StringRef Name, const std::string &Extra = "") {
    std::string Out = ("lib" + Name + ".dylib").str();
    return ld(Out, "-dylib -install_name @rpath/" + Out + " " +
                       cc(Name, "int f_" + Name.str() + "(void) { return 1; }\n") +
                       " " + Extra);
  };
  // ld64.lld finds a re-exported @rpath dylib through the LC_RPATH of the
  // dylib that re-exports it.
  std::string C = Dylib("c"), D = Dylib("d");
  std::string B = Dylib("b", "-reexport_library " + C + " -rpath @loader_path/.");
  std::string A = Dylib("a", "-reexport_library " + B + " -reexport_library " + D +
                                 " -rpath @loader_path/.");
  std::string Plugin = ld("model.so", "-bundle " + cc("use", "int f_c(void); int f_d(void);"
                                                              "int g(void){return f_c()+f_d();}") +
                                          " " + A + " -rpath @loader_path/.");
  std::string Host = ld("host", cc("host", HostC));
  DyldModel M({});
  ASSERT_FALSE(bool(M.startExecutable(Host)));
  auto P = M.dlopen(Plugin, false);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  const Binary &Model = *M.object(*P).Bin;
  const Symbol *FC = find(Model.dynamicSymbols(), "_f_c", false);
  ASSERT_TRUE(FC);
  EXPECT_EQ(FC->SourceLibrary, "@rpath/liba.dylib");
  std::vector<std::string> Scope;
  for (unsigned I : M.lookupScope(*P, *FC))
    Scope.push_back(sys::path::filename(M.object(I).Path).str());
  EXPECT_EQ(Scope, (std::vector<std::string>{"liba.dylib", "libb.dylib", "libc.dylib",
                                             "libd.dylib"}));
  SmallVector<Binding, 2> Matches;
  M.resolve(*P, *FC, Matches, nullptr);
  ASSERT_EQ(Matches.size(), 1u);
  EXPECT_EQ(sys::path::filename(M.object(Matches[0].Object).Path), "libc.dylib");
}

} // namespace
