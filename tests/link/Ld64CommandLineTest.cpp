//===- Ld64CommandLineTest.cpp - ld64 link lines, as the model reads them --===//
//
// What link_matrix_macho.py cannot show through JSON: the words a fix
// edits, options that take several values, -filelist, and the flavor rules.
// The linker is never run: these lines are parsed, not linked.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/link/CommandLine.h"
#include "aoti/audit/link/Scripts.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace aoti::audit;

namespace {

LinkCommandLine parse(std::vector<std::string> Argv, LinkParseOptions O = {}) {
  O.QueryDriver = false;
  if (O.Cwd.empty())
    O.Cwd = "/work";
  auto L = parseLinkCommand(Argv, O);
  EXPECT_TRUE(bool(L)) << (L ? "" : llvm::toString(L.takeError()));
  return L ? std::move(*L) : LinkCommandLine();
}

std::vector<std::string> inputs(const LinkCommandLine &L) {
  std::vector<std::string> Out;
  for (const LinkArg &A : L.Args)
    if (A.ArgKind == LinkArg::Kind::File || A.ArgKind == LinkArg::Kind::Library ||
        A.ArgKind == LinkArg::Kind::ForceLoad)
      Out.push_back((A.ArgKind == LinkArg::Kind::Library     ? "-l"
                     : A.ArgKind == LinkArg::Kind::ForceLoad ? "force:"
                                                             : "") +
                    A.Value);
  return Out;
}

TEST(Ld64CommandLine, Ld64LldIsTheLd64Flavor) {
  LinkCommandLine L = parse({"ld64.lld-19", "-arch", "arm64", "main.o", "-o", "runner"});
  EXPECT_EQ(L.Flavor, LinkFlavor::LD64);
  EXPECT_TRUE(L.isMachO());
  EXPECT_EQ(L.Arch, "arm64");
  EXPECT_EQ(L.OutputKind, LinkOutputKind::PIE);
  EXPECT_EQ(L.Output, "/work/runner");
}

TEST(Ld64CommandLine, ApplesLdIsRecognisedByItsOptions) {
  // /usr/bin/ld on a Mac is ld64; GNU ld has no -arch.
  LinkCommandLine L = parse({"/usr/bin/ld", "-arch", "x86_64", "-dylib", "a.o"});
  EXPECT_EQ(L.Flavor, LinkFlavor::LD64);
  EXPECT_EQ(L.OutputKind, LinkOutputKind::SharedLibrary);
  LinkCommandLine G = parse({"/usr/bin/ld", "-o", "x", "a.o"});
  EXPECT_EQ(G.Flavor, LinkFlavor::GNU);
}

TEST(Ld64CommandLine, OptionsWithSeveralValuesStepOverThemAll) {
  LinkCommandLine L =
      parse({"ld64.lld", "-platform_version", "macos", "11.0", "14.0", "-sectcreate",
             "__TEXT", "__info", "info.plist", "-rpath", "@loader_path/../lib",
             "-install_name", "@rpath/model.so", "-bundle",
             "model.o", "-undefined", "dynamic_lookup"});
  EXPECT_EQ(inputs(L), std::vector<std::string>{"model.o"});
  EXPECT_EQ(L.OutputKind, LinkOutputKind::Bundle);
  EXPECT_EQ(L.UndefinedTreatment, "dynamic_lookup");
  EXPECT_TRUE(L.Ignored.empty()) << L.Ignored.front();
}

TEST(Ld64CommandLine, ForceLoadKeepsThePathsWord) {
  LinkCommandLine L = parse({"ld64.lld", "-arch", "arm64", "main.o", "-force_load",
                             "libshims.a", "-all_load", "-ObjC", "-lfoo",
                             "-needed-lbar", "-framework", "Metal"});
  EXPECT_EQ(inputs(L), (std::vector<std::string>{"main.o", "force:libshims.a", "-lfoo",
                                                 "-lbar", "-lframework:Metal"}));
  ASSERT_EQ(L.Args[1].ArgKind, LinkArg::Kind::ForceLoad);
  EXPECT_EQ(L.Argv[L.Args[1].Token], "libshims.a");
  EXPECT_TRUE(L.AllLoad);
  EXPECT_TRUE(L.ObjC);
}

TEST(Ld64CommandLine, ExportOptions) {
  LinkCommandLine L = parse({"ld64.lld", "-arch", "arm64", "main.o", "-exported_symbol",
                             "_aoti_torch_*", "-exported_symbols_list", "e.txt",
                             "-unexported_symbol", "_x", "-dead_strip", "-export_dynamic",
                             "-no_exported_symbols", "-U", "_maybe", "-u", "_need"});
  EXPECT_EQ(L.ExportedSymbols, std::vector<std::string>{"_aoti_torch_*"});
  EXPECT_EQ(L.ExportedSymbolsLists, std::vector<std::string>{"/work/e.txt"});
  EXPECT_EQ(L.UnexportedSymbols, std::vector<std::string>{"_x"});
  EXPECT_TRUE(L.GcSections);
  EXPECT_TRUE(L.ExportDynamic);
  EXPECT_TRUE(L.NoExportedSymbols);
  EXPECT_EQ(L.AllowedUndefined, std::vector<std::string>{"_maybe"});
  EXPECT_EQ(L.Undefined, std::vector<std::string>{"_need"});
}

TEST(Ld64CommandLine, FileListNamesInputs) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ld64-filelist", Dir));
  llvm::SmallString<128> List(Dir);
  llvm::sys::path::append(List, "objs.txt");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(List, EC);
    ASSERT_FALSE(EC);
    OS << "a.o\n\nsub/b.o\n";
  }
  LinkParseOptions O;
  O.Cwd = std::string(Dir);
  LinkCommandLine L =
      parse({"ld64.lld", "-arch", "arm64", "-filelist", std::string(List) + ",objs"}, O);
  // DIRNAME is prepended; the paths are then read from the link's directory.
  EXPECT_EQ(inputs(L), (std::vector<std::string>{"objs/a.o", "objs/sub/b.o"}));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Ld64CommandLine, AnAppleDriverTranslatesToLd64Words) {
  LinkCommandLine L =
      parse({"clang++", "-target", "arm64-apple-macos11", "main.o", "-force_load",
             "libshims.a", "-dynamiclib", "-Wl,-dead_strip", "-rdynamic", "-o", "libm.dylib"});
  EXPECT_EQ(L.Flavor, LinkFlavor::LD64);
  EXPECT_EQ(L.OutputKind, LinkOutputKind::SharedLibrary);
  EXPECT_EQ(inputs(L), (std::vector<std::string>{"main.o", "force:libshims.a"}));
  EXPECT_TRUE(L.GcSections);
  EXPECT_TRUE(L.ExportDynamic);
  EXPECT_EQ(L.Argv[L.Args[1].Token], "libshims.a");
}

TEST(Ld64CommandLine, FlavorOfAnotherFormatIsRefused) {
  LinkParseOptions O;
  O.QueryDriver = false;
  O.Flavor = LinkFlavor::GNU;
  auto L = parseLinkCommand({"ld64.lld", "-arch", "arm64", "a.o"}, O);
  ASSERT_FALSE(bool(L));
  EXPECT_NE(llvm::toString(L.takeError()).find("ld64 link"), std::string::npos);
  O.Flavor = LinkFlavor::LD64;
  auto G = parseLinkCommand({"ld.lld", "a.o"}, O);
  ASSERT_FALSE(bool(G));
  llvm::consumeError(G.takeError());
}

TEST(Ld64CommandLine, BadUndefinedTreatmentIsAnError) {
  LinkParseOptions O;
  O.QueryDriver = false;
  auto L = parseLinkCommand({"ld64.lld", "-arch", "arm64", "-undefined", "maybe", "a.o"}, O);
  ASSERT_FALSE(bool(L));
  EXPECT_NE(llvm::toString(L.takeError()).find("dynamic_lookup"), std::string::npos);
}

TEST(SymbolPatternList, GlobsOwnTheirText) {
  // GlobPattern keeps a reference into its pattern: the list must not
  // depend on the caller's buffer staying alive.
  SymbolPatternList P;
  {
    std::string Text = "_aoti_torch_*";
    P.add(Text, false);
    Text.assign(Text.size(), 'x');
  }
  SymbolPatternList Copy = P;
  EXPECT_TRUE(P.matches("_aoti_torch_a"));
  EXPECT_TRUE(Copy.matches("_aoti_torch_b"));
  EXPECT_FALSE(P.matches("_main"));
}

} // namespace
