//===- ReaderTest.cpp - The ELF and archive readers -----------------------===//
#include "aoti/audit/Reader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace aoti::audit;
using namespace llvm;

namespace {

const Symbol *findDyn(const Binary &B, StringRef Name, bool Defined = true) {
  for (const Symbol &S : B.dynamicSymbols())
    if (S.Name == Name && S.Defined == Defined)
      return &S;
  return nullptr;
}

std::unique_ptr<Binary> readOrDie(StringRef Path) {
  auto B = readBinary(Path);
  if (!B) {
    ADD_FAILURE() << toString(B.takeError());
    return nullptr;
  }
  return std::move(*B);
}

std::string writeTemp(StringRef Name, StringRef Bytes) {
  SmallString<128> P;
  sys::path::system_temp_directory(true, P);
  sys::path::append(P, "aoti-reader-" + std::to_string(::getpid()) + "-" + Name);
  std::ofstream(std::string(P), std::ios::binary) << Bytes.str();
  return std::string(P);
}

TEST(ElfReader, DynamicSection) {
  auto B = readOrDie(FIXTURE_VERSIONED);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->format(), BinaryFormat::ELF);
  EXPECT_EQ(B->kind(), FileKind::SharedLibrary);
  EXPECT_EQ(B->soname(), "libfixture_versioned.so.3");
  ASSERT_EQ(B->rpath().size(), 2u);
  EXPECT_EQ(B->rpath()[0], "/opt/one");
  EXPECT_EQ(B->rpath()[1], "$ORIGIN/two");
  EXPECT_TRUE(B->runpath().empty());
  EXPECT_TRUE(B->noDefaultLib());
  bool NeedsLibc = false;
  for (const Dependency &D : B->dependencies())
    NeedsLibc |= D.Name == "libc.so.6";
  EXPECT_TRUE(NeedsLibc);
}

TEST(ElfReader, SymbolVersions) {
  auto B = readOrDie(FIXTURE_VERSIONED);
  ASSERT_TRUE(B);
  EXPECT_TRUE(B->hasSymbolVersions());
  const Symbol *V1 = findDyn(*B, "plain_v1");
  const Symbol *V2 = findDyn(*B, "plain_v2");
  ASSERT_TRUE(V1 && V2);
  EXPECT_EQ(V1->Version, "V1");
  EXPECT_EQ(V2->Version, "V2");
  EXPECT_FALSE(V2->VersionHidden);
  // compat@V1 is a non-default version, compat@@V2 the default.
  unsigned Compat = 0;
  for (const Symbol &S : B->dynamicSymbols())
    if (S.Name == "compat" && S.Defined) {
      ++Compat;
      EXPECT_EQ(S.VersionHidden, S.Version == "V1") << S.Version.str();
    }
  EXPECT_EQ(Compat, 2u);
  EXPECT_EQ(B->findExportedDefinitions("compat").size(), 2u);
  bool HaveV2 = false;
  for (const VersionDefinition &D : B->versionDefinitions())
    HaveV2 |= D.Name == "V2" && !D.IsBase;
  EXPECT_TRUE(HaveV2);
  // A reference to libc carries libc's version and names libc.
  bool SawGlibcRef = false;
  for (const Symbol &S : B->dynamicSymbols())
    if (!S.Defined && S.Version.starts_with("GLIBC_")) {
      SawGlibcRef = true;
      EXPECT_EQ(S.SourceLibrary, "libc.so.6");
    }
  (void)SawGlibcRef; // an ifunc-only library may need nothing from libc
}

TEST(ElfReader, BindingVisibilityType) {
  auto B = readOrDie(FIXTURE_VERSIONED);
  ASSERT_TRUE(B);
  const Symbol *Weak = findDyn(*B, "weak_fn");
  ASSERT_TRUE(Weak);
  EXPECT_EQ(Weak->Binding, SymbolBinding::Weak);
  const Symbol *Prot = findDyn(*B, "protected_fn");
  ASSERT_TRUE(Prot);
  EXPECT_EQ(Prot->Visibility, SymbolVisibility::Protected);
  EXPECT_TRUE(Prot->isExportedDefinition());
  const Symbol *IFunc = findDyn(*B, "ifunc_fn");
  ASSERT_TRUE(IFunc);
  EXPECT_EQ(IFunc->Type, SymbolType::IFunc);
  const Symbol *Data = findDyn(*B, "data_object");
  ASSERT_TRUE(Data);
  EXPECT_EQ(Data->Type, SymbolType::Object);
  const Symbol *Undef = findDyn(*B, "undefined_ref", /*Defined=*/false);
  ASSERT_TRUE(Undef);
  EXPECT_TRUE(Undef->isWeak());
  // Hidden and script-local names never reach .dynsym, only .symtab.
  EXPECT_EQ(findDyn(*B, "hidden_fn"), nullptr);
  ASSERT_TRUE(B->hasStaticSymbolTable());
  // The linker turns a hidden definition into a local one (ld.bfd also drops
  // the visibility bits, lld keeps them).
  bool HiddenLocal = false;
  for (const Symbol &S : B->staticSymbols())
    if (S.Name == "hidden_fn")
      HiddenLocal = S.isLocal() && S.Defined;
  EXPECT_TRUE(HiddenLocal);
}

TEST(ArchiveReader, IndexAndMembers) {
  auto In = readInput(FIXTURE_ARCHIVE);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  ASSERT_TRUE(In->Ar);
  const Archive &A = *In->Ar;
  ASSERT_TRUE(A.hasSymbolIndex());
  ASSERT_EQ(A.members().size(), 2u);
  std::map<std::string, uint32_t> Index;
  for (const Archive::IndexEntry &E : A.symbolIndex())
    Index[E.Name.str()] = E.MemberIndex;
  ASSERT_TRUE(Index.count("member_a_fn"));
  ASSERT_TRUE(Index.count("member_b_fn"));
  EXPECT_NE(Index["member_a_fn"], Index["member_b_fn"]);
  EXPECT_FALSE(Index.count("member_b_local")); // locals are not indexed
  auto M = A.member(Index["member_b_fn"]);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->kind(), FileKind::Relocatable);
  bool WeakDef = false, UndefRef = false;
  for (const Symbol &S : M->linkSymbols()) {
    WeakDef |= S.Name == "member_b_weak" && S.Defined && S.isWeak();
    UndefRef |= S.Name == "member_a_fn" && !S.Defined;
  }
  EXPECT_TRUE(WeakDef);
  EXPECT_TRUE(UndefRef);
  auto MA = A.member(Index["member_a_fn"]);
  ASSERT_TRUE(bool(MA));
  bool Common = false;
  for (const Symbol &S : MA->linkSymbols())
    Common |= S.Name == "shared_common_name" && S.Type == SymbolType::Common;
  EXPECT_TRUE(Common);
  EXPECT_NE(A.memberDisplayName(0).find(".a("), std::string::npos);
}

TEST(Reader, BadInputsAreErrorsThatNameTheFile) {
  struct Case {
    const char *Name;
    std::string Bytes;
    const char *Says;
  };
  std::string Real;
  {
    auto Buf = MemoryBuffer::getFile(FIXTURE_VERSIONED);
    ASSERT_TRUE(bool(Buf));
    Real = (*Buf)->getBuffer().str();
  }
  std::vector<Case> Cases = {
      {"empty", "", "is empty"},
      {"text", "hello, world\n", "is not an ELF or Mach-O file"},
      {"truncated", Real.substr(0, 100), ""},
      {"half", Real.substr(0, Real.size() / 2), ""},
      {"bad-archive", "!<arch>\nthis is not a member header", ""},
  };
  for (const Case &C : Cases) {
    std::string Path = writeTemp(C.Name, C.Bytes);
    auto In = readInput(Path);
    if (In) {
      // A half file may still parse; reading it must not crash, and what
      // it says about the dynamic table must be self-consistent.
      EXPECT_STREQ(C.Name, "half");
    } else {
      std::string Msg = toString(In.takeError());
      EXPECT_NE(Msg.find(Path), std::string::npos) << Msg;
      EXPECT_NE(Msg.find(C.Says), std::string::npos) << Msg;
    }
    sys::fs::remove(Path);
  }
  auto Dir = readInput("/");
  ASSERT_FALSE(bool(Dir));
  EXPECT_NE(toString(Dir.takeError()).find("is a directory"), std::string::npos);
  auto Gone = readInput("/nonexistent/aoti/file.so");
  ASSERT_FALSE(bool(Gone));
  consumeError(Gone.takeError());
}

} // namespace
