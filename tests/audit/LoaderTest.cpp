//===- LoaderTest.cpp - The loader model's pieces -------------------------===//
//
// The end-to-end agreement with the real ld.so is tests/loader; these test
// the pieces that a real run cannot isolate: the cache reader, environment
// parsing, and the search order inside a sysroot (where NODEFLIB and the
// default directories can be exercised without touching /usr/lib).
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/loader/Loader.h"
#include "aoti/audit/Reader.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace aoti::audit;
using namespace llvm;

namespace {

TEST(LdSoCache, ReadsTheSystemCache) {
  if (!sys::fs::exists("/etc/ld.so.cache"))
    GTEST_SKIP() << "no /etc/ld.so.cache";
  MachineId X86_64{ELF::EM_X86_64, true, true};
  auto C = readLdSoCache("/etc/ld.so.cache", X86_64);
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  auto It = C->find("libc.so.6");
  ASSERT_NE(It, C->end());
  EXPECT_TRUE(sys::fs::exists(It->second)) << It->second;
}

TEST(LdSoCache, RejectsGarbage) {
  SmallString<128> P;
  sys::path::system_temp_directory(true, P);
  sys::path::append(P, "aoti-bad-cache-" + std::to_string(::getpid()));
  {
    std::ofstream F(std::string(P), std::ios::binary);
    F << "glibc-ld.so.cache1.1";
    F.write("\xff\xff\xff\x0f", 4); // 268M entries in a 24-byte file
    F << std::string(24, '\0');
  }
  MachineId X86_64{ELF::EM_X86_64, true, true};
  auto C = readLdSoCache(P, X86_64);
  ASSERT_FALSE(bool(C));
  EXPECT_NE(toString(C.takeError()).find("do not fit"), std::string::npos);
  sys::fs::remove(P);
}

TEST(LoaderConfig, Environment) {
  LoaderConfig C;
  ASSERT_FALSE(bool(C.applyEnvironment("LD_LIBRARY_PATH=/a::/b;/c")));
  ASSERT_EQ(C.LibraryPath.size(), 4u);
  EXPECT_EQ(C.LibraryPath[0], "/a");
  EXPECT_EQ(C.LibraryPath[1], "."); // an empty element is the cwd
  EXPECT_EQ(C.LibraryPath[3], "/c");
  ASSERT_FALSE(bool(C.applyEnvironment("LD_PRELOAD=/x.so /y.so:/z.so")));
  EXPECT_EQ(C.Preload.size(), 3u);
  Error E = C.applyEnvironment("NOEQUALS");
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("NAME=VALUE"), std::string::npos);
}

/// A sysroot holding a copy of the fixture library in a trusted directory.
class SysrootTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("aoti-sysroot", Root));
    SmallString<256> Lib(Root);
    sys::path::append(Lib, "usr/lib/x86_64-linux-gnu");
    ASSERT_FALSE(sys::fs::create_directories(Lib));
    sys::path::append(Lib, "libfixture_versioned.so.3");
    ASSERT_FALSE(sys::fs::copy_file(FIXTURE_VERSIONED, Lib));
    LibInRoot = std::string(Lib);
  }
  void TearDown() override { sys::fs::remove_directories(Root); }
  SmallString<256> Root;
  std::string LibInRoot;
};

TEST_F(SysrootTest, DefaultDirectoriesAreInsideTheSysroot) {
  LoaderConfig C;
  C.Sysroot = std::string(Root);
  C.UseLdSoCache = false;
  ProcessModel P(C);
  // The fixture library needs libc.so.6, which the sysroot lacks; using it
  // as the "executable" exercises the search for its own dependencies.
  ASSERT_FALSE(bool(P.startExecutable(LibInRoot)));
  bool MissingLibc = false;
  for (const MissingLibrary &M : P.missingLibraries())
    if (M.Name == "libc.so.6") {
      MissingLibc = true;
      // RPATH first (/opt/one inside the sysroot, then $ORIGIN/two) -- but
      // the library is NODEFLIB, so the trusted directories are not tried.
      ASSERT_GE(M.Tried.size(), 2u);
      EXPECT_EQ(M.Tried[0], std::string(Root) + "/opt/one/libc.so.6");
      EXPECT_NE(M.Tried[1].find("/two/libc.so.6"), std::string::npos);
      for (const std::string &T : M.Tried)
        for (const char *Trusted : {"/lib/x86_64-linux-gnu/libc.so.6",
                                    "/usr/lib/x86_64-linux-gnu/libc.so.6",
                                    "/lib/libc.so.6", "/usr/lib/libc.so.6"})
          EXPECT_NE(T, std::string(Root) + Trusted);
    }
  EXPECT_TRUE(MissingLibc);
}

TEST_F(SysrootTest, WithoutNodeflibTheTrustedDirectoriesAreSearched) {
  // The host (this test program) is not NODEFLIB: a library it needs by name
  // is searched in the sysroot's trusted directories and found there.
  LoaderConfig C;
  C.Sysroot = std::string(Root);
  C.UseLdSoCache = false;
  C.Preload.push_back("libfixture_versioned.so.3");
  ProcessModel P(C);
  ASSERT_FALSE(bool(P.startExecutable("/proc/self/exe")));
  bool Found = false;
  for (const LoadedObject &O : P.objects())
    if (O.Path == LibInRoot) {
      Found = true;
      EXPECT_EQ(O.FoundVia, "LD_PRELOAD");
      EXPECT_TRUE(O.InGlobalScope);
    }
  EXPECT_TRUE(Found);
}

TEST_F(SysrootTest, DlopenByNameSearchesTheTrustedDirectories) {
  auto Exe = readBinary("/proc/self/exe");
  ASSERT_TRUE(bool(Exe)) << toString(Exe.takeError());
  LoaderConfig C;
  C.Sysroot = std::string(Root);
  C.UseLdSoCache = false;
  ProcessModel P(C);
  ASSERT_FALSE(bool(P.startExecutable("/proc/self/exe")));
  auto I = P.dlopen(LibInRoot, false);
  ASSERT_TRUE(bool(I)) << toString(I.takeError());
  EXPECT_EQ(P.object(*I).Bin->soname(), "libfixture_versioned.so.3");
  // Its references are looked up in the global scope first.
  std::vector<unsigned> Scope = P.lookupScope(*I);
  ASSERT_FALSE(Scope.empty());
  EXPECT_EQ(Scope.front(), 0u);
  EXPECT_EQ(Scope.back(), *I);
}

TEST(ProcessModel, VersionedLookup) {
  LoaderConfig C;
  ProcessModel P(C);
  ASSERT_FALSE(bool(P.startExecutable("/proc/self/exe")));
  auto I = P.dlopen(FIXTURE_VERSIONED, false);
  ASSERT_TRUE(bool(I)) << toString(I.takeError());
  std::vector<unsigned> Only{*I};
  auto Lookup = [&](StringRef Name, StringRef Version) {
    Symbol Ref;
    Ref.Name = Name;
    Ref.Version = Version;
    SmallVector<Binding, 2> Matches, Rejected;
    P.lookup(Ref, Only, Matches, &Rejected);
    return std::make_pair(Matches.size(), Rejected.size());
  };
  // Unversioned reference: binds to the default version compat@@V2.
  EXPECT_EQ(Lookup("compat", ""), std::make_pair(size_t(1), size_t(0)));
  // Explicit V1 reference: binds to the hidden compat@V1.
  EXPECT_EQ(Lookup("compat", "V1").first, 1u);
  // A version the library does not define for that name: rejected.
  EXPECT_EQ(Lookup("plain_v1", "V2"), std::make_pair(size_t(0), size_t(1)));
  EXPECT_EQ(Lookup("no_such_name", ""), std::make_pair(size_t(0), size_t(0)));
}

} // namespace
