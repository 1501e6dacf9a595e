//===- VocabularyTest.cpp - Every platform's words are there and well formed ===//
//
// A rule formats its message and fix from its platform's Vocabulary
// (rules/Vocabulary.h), so a phrase left empty or a pattern naming an
// argument the rules do not pass shows up only when that platform's finding
// fires, as a blank or garbled sentence. This test reads every format of
// Formats.def, as a new format would be added, and checks each phrase
// against the contract its field documents: filled unless "" is the
// documented way to say "none", every {N} below the number of arguments the
// rules pass, the optional phrases that go with a flag present exactly when
// the flag says so, and the vocabulary keyed by its own format.
//
//===----------------------------------------------------------------------===//
#include "Vocabulary.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <vector>

using namespace aoti;
using namespace aoti::rules::fixtext;

namespace aoti::audit {
// Failures name the format, not its byte.
void PrintTo(BinaryFormat F, std::ostream *OS) { *OS << formatInfo(F).Name.str(); }
} // namespace aoti::audit

namespace {

struct Phrase {
  const char *Name;
  llvm::StringRef Vocabulary::*Field;
  unsigned Args;     // the arguments the rules pass: {0} .. {Args-1}
  bool MayBeEmpty;   // "" is the documented way to say "none"
};

#define PHRASE(Name, Args, MayBeEmpty)                                         \
  Phrase { #Name, &Vocabulary::Name, Args, MayBeEmpty }

const Phrase Phrases[] = {
    PHRASE(ExportDynamicDriver, 4, false),
    PHRASE(ExportDynamicLinker, 4, false),
    PHRASE(ExportDynamicCMake, 4, false),
    PHRASE(ForceLinkDriver, 5, false),
    PHRASE(ForceLinkLinker, 5, false),
    PHRASE(ForceLinkCMake, 5, false),
    PHRASE(ExportFromLibrary, 2, false),
    PHRASE(ImplementRequiredFix, 2, false),
    PHRASE(LinkProviderFix, 0, false),
    PHRASE(NotExportedMessage, 2, false),
    PHRASE(HiddenMessage, 3, false),
    PHRASE(HiddenFix, 2, false),
    PHRASE(LocalMessage, 2, false),
    PHRASE(LocalFix, 2, false),
    PHRASE(LeftOutMessage, 2, false),
    PHRASE(LeftOutFix, 2, false),
    PHRASE(OutsideScopeMessage, 2, false),
    PHRASE(OutsideScopeFix, 3, false),
    PHRASE(LibraryNotFoundMessage, 5, false),
    PHRASE(PluginLibraryNotFound, 0, true),
    PHRASE(LibraryNotFoundFix, 4, false),
    PHRASE(DiscardedMessage, 2, false),
    PHRASE(DiscardedFixNote, 0, true),
    PHRASE(MadeHiddenMessage, 2, false),
    PHRASE(UndefinedEntryMessage, 2, true), // checked with its flag below
    PHRASE(UndefinedEntryFix, 0, true),
    PHRASE(RequireDefinedMessage, 1, false),
    PHRASE(AddDefinerWhere, 1, true),
    PHRASE(PluginMayLeaveUndefined, 0, true),
};
#undef PHRASE

const audit::BinaryFormat Formats[] = {
#define AOTI_FORMAT(Id, Accessor) audit::BinaryFormat::Id,
#include "aoti/audit/Formats.def"
};

/// The argument indices a formatv pattern refers to ("{{" is a literal brace).
/// Not formatv_object_base::parseFormatString: it drops an item whose index
/// is not a number ("{x}"), as formatv then prints nothing for it, and that
/// silent gap in a sentence is one of the faults this test is for.
std::vector<unsigned> placeholders(llvm::StringRef Pattern) {
  std::vector<unsigned> Out;
  for (size_t I = 0; I < Pattern.size(); ++I) {
    if (Pattern[I] != '{')
      continue;
    if (I + 1 < Pattern.size() && Pattern[I + 1] == '{') {
      ++I;
      continue;
    }
    size_t End = Pattern.find('}', I);
    llvm::StringRef Body = Pattern.slice(I + 1, End);
    unsigned Index;
    // "{0}", "{0,5}", "{0:x}": the index is what precedes ',' or ':'.
    if (!Body.take_until([](char C) { return C == ',' || C == ':'; })
             .trim()
             .getAsInteger(10, Index))
      Out.push_back(Index);
    else
      Out.push_back(~0u); // not an index: always out of range
    I = End == llvm::StringRef::npos ? Pattern.size() : End;
  }
  return Out;
}

class VocabularyTest : public ::testing::TestWithParam<audit::BinaryFormat> {};

TEST_P(VocabularyTest, IsKeyedByItsOwnFormat) {
  EXPECT_EQ(vocabularyFor(GetParam()).Format, GetParam());
}

TEST_P(VocabularyTest, EveryPhraseIsFilledUnlessNoneIsDocumented) {
  const Vocabulary &V = vocabularyFor(GetParam());
  for (const Phrase &P : Phrases)
    if (!P.MayBeEmpty)
      EXPECT_FALSE((V.*P.Field).trim().empty()) << P.Name << " is empty";
}

TEST_P(VocabularyTest, PatternsNameOnlyTheArgumentsTheRulesPass) {
  const Vocabulary &V = vocabularyFor(GetParam());
  for (const Phrase &P : Phrases)
    for (unsigned Index : placeholders(V.*P.Field))
      EXPECT_LT(Index, P.Args) << P.Name << ": \"" << (V.*P.Field).str()
                               << "\" names an argument the rules do not pass";
}

TEST_P(VocabularyTest, OptionalPhrasesFollowTheirFlags) {
  const Vocabulary &V = vocabularyFor(GetParam());
  // An entry point that stops the link is explained; one that does not is
  // not a finding, and a sentence for it would never be said.
  EXPECT_EQ(V.UndefinedEntryFails, !V.UndefinedEntryMessage.empty());
  EXPECT_EQ(V.UndefinedEntryFails, !V.UndefinedEntryFix.empty());
  // Where input order matters the fix says where the definer goes.
  EXPECT_EQ(V.InputOrderMatters, !V.AddDefinerWhere.empty());
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, VocabularyTest, ::testing::ValuesIn(Formats),
    [](const ::testing::TestParamInfo<audit::BinaryFormat> &Info) {
      std::string Name; // "Mach-O" -> "MachO": test names are identifiers
      for (char C : audit::formatInfo(Info.param).Name)
        if (llvm::isAlnum(C))
          Name += C;
      return Name;
    });

TEST(VocabularyPlaceholders, ReadsIndicesAndSkipsEscapes) {
  EXPECT_EQ(placeholders("a {0} b {1,5} c {2:x} {{literal}}"),
            (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(placeholders("{x}"), (std::vector<unsigned>{~0u}));
  EXPECT_TRUE(placeholders("none").empty());
}

} // namespace
