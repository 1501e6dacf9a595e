//===- ConfigTest.cpp - .aoti-audit.toml parsing and matching -------------===//
//
// tests/config runs the tool end to end on real binaries; these pin the
// matching rules a suppression follows and the order severities and
// suppressions apply in.
//
//===----------------------------------------------------------------------===//
#include "aoti/rules/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace aoti::rules;
using namespace llvm;

namespace {

const KnownRule Rules[] = {{"AOTI002", "symbol-not-exported"},
                           {"AOTI101", "duplicate-strong-definition"}};

AuditConfig parse(StringRef Text) {
  auto C = parseConfig(Text, "t.toml", Rules);
  EXPECT_TRUE(bool(C)) << toString(C.takeError());
  return C ? std::move(*C) : AuditConfig();
}

std::string parseError(StringRef Text) {
  auto C = parseConfig(Text, "t.toml", Rules);
  if (C)
    return "";
  return toString(C.takeError());
}

Finding finding(StringRef Rule, StringRef Symbol, StringRef File,
                StringRef Plugin = "") {
  Finding F;
  F.Rule = Rule.str();
  F.Symbol = Symbol.str();
  F.File = File.str();
  F.Plugin = Plugin.str();
  return F;
}

TEST(Config, RulesByIdOrName) {
  AuditConfig C = parse("[severity]\nsymbol-not-exported = \"note\"\n"
                        "aoti101 = \"off\"\n");
  ASSERT_EQ(C.Severities.size(), 2u);
  EXPECT_EQ(C.Severities["AOTI002"], Severity::Note);
  EXPECT_EQ(C.Severities["AOTI101"], std::nullopt);
}

TEST(Config, ErrorsNameTheLine) {
  EXPECT_EQ(parseError("\n\nbogus = 1\n"),
            "t.toml:3: unknown key 'bogus' (expected prefixes, severity or "
            "[[suppress]])");
  EXPECT_NE(parseError("[[suppress]]\nrule = \"AOTI002\"\nreason = \" \"\n")
                .find("t.toml:1: a [[suppress]] needs reason"),
            std::string::npos);
  EXPECT_NE(parseError("[severity]\nAOTI002 = 3\n").find("t.toml:2:"),
            std::string::npos);
}

TEST(Config, GlobWithoutSlashMatchesTheBaseName) {
  Suppression S;
  S.Rule = "AOTI101";
  S.File = "libold.a";
  EXPECT_TRUE(matches(S, finding("AOTI101", "x", "/b/libold.a(m.o)")));
  EXPECT_TRUE(matches(S, finding("AOTI101", "x", "libold.a")));
  EXPECT_FALSE(matches(S, finding("AOTI101", "x", "/b/libnew.a(libold.a.o)")));
  EXPECT_FALSE(matches(S, finding("AOTI002", "x", "libold.a")));
  S.File = "*/vendor/*";
  EXPECT_TRUE(matches(S, finding("AOTI101", "x", "/src/vendor/lib.a")));
  EXPECT_FALSE(matches(S, finding("AOTI101", "x", "vendor")));
}

TEST(Config, SymbolAndPluginGlobsNeedTheField) {
  Suppression S;
  S.Rule = "AOTI002";
  S.Symbol = "aoti_torch_*";
  EXPECT_TRUE(matches(S, finding("AOTI002", "aoti_torch_a", "host")));
  EXPECT_FALSE(matches(S, finding("AOTI002", "", "host")));
  S.Symbol.clear();
  S.Plugin = "model*.so";
  EXPECT_TRUE(matches(S, finding("AOTI002", "a", "host", "/m/model1.so")));
  EXPECT_FALSE(matches(S, finding("AOTI002", "a", "host")));
}

TEST(Config, SeverityFirstThenTheFirstMatchingSuppression) {
  AuditConfig C = parse("[severity]\nAOTI101 = \"off\"\nAOTI002 = \"warning\"\n"
                        "[[suppress]]\nrule = \"AOTI002\"\nsymbol = \"b*\"\n"
                        "reason = \"one\"\n"
                        "[[suppress]]\nrule = \"AOTI002\"\nreason = \"two\"\n"
                        "symbol = \"b\"\n"
                        "[[suppress]]\nrule = \"AOTI002\"\nreason = \"three\"\n"
                        "symbol = \"zzz\"\n");
  std::vector<Finding> Fs{finding("AOTI101", "d", "x.o"),
                          finding("AOTI002", "a", "host"),
                          finding("AOTI002", "b", "host")};
  for (Finding &F : Fs)
    F.Sev = Severity::Error;
  std::vector<SuppressedFinding> S = applyConfig(C, Fs);
  ASSERT_EQ(Fs.size(), 1u);
  EXPECT_EQ(Fs[0].Symbol, "a");
  EXPECT_EQ(Fs[0].Sev, Severity::Warning);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].By->Reason, "one");
  EXPECT_EQ(S[0].F.Sev, Severity::Warning);
  EXPECT_EQ(C.Suppressions[0].Uses, 1u);
  EXPECT_EQ(C.Suppressions[1].Uses, 0u); // shadowed by the first
  EXPECT_EQ(C.Suppressions[2].Line, 12u);
}

TEST(Config, FoundByWalkingUp) {
  SmallString<128> Root;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("aoti-config", Root));
  SmallString<128> Deep(Root);
  sys::path::append(Deep, "a", "b");
  ASSERT_FALSE(sys::fs::create_directories(Deep));
  SmallString<128> File(Root);
  sys::path::append(File, ConfigFileName);
  std::ofstream(std::string(File)) << "prefixes = []\n";
  std::optional<std::string> Found = findConfig(Deep);
  ASSERT_TRUE(Found.has_value());
  EXPECT_EQ(*Found, std::string(File));
  sys::fs::remove_directories(Root);
}

} // namespace
