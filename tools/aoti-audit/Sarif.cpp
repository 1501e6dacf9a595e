//===- Sarif.cpp - Findings as a SARIF 2.1.0 log --------------------------===//
#include "Sarif.h"
#include "Output.h"

#include "aoti/rules/Rule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

#ifndef AOTI_VERSION
#define AOTI_VERSION "0.0.0"
#endif

using namespace llvm;
using namespace aoti::audit;
using namespace aoti::rules;

namespace aoti::tool {
namespace {

struct EmbeddedPage {
  const char *Id;
  const char *Text;
};

// One entry per docs/rules/AOTI*.md, generated at build time.
constexpr EmbeddedPage EmbeddedPages[] = {
#include "RuleDocs.inc"
    {nullptr, nullptr}};

constexpr StringRef SchemaUri = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/"
                                "errata01/os/schemas/sarif-schema-2.1.0.json";

/// The lines of the section "## Heading", up to the next "## ".
std::vector<StringRef> sectionLines(StringRef Markdown, StringRef Heading) {
  SmallVector<StringRef, 0> Lines;
  Markdown.split(Lines, '\n');
  std::vector<StringRef> Out;
  bool In = false;
  for (StringRef L : Lines) {
    L = L.rtrim("\r");
    if (L.starts_with("## ")) {
      if (In)
        break;
      In = L.drop_front(3).trim().equals_insensitive(Heading);
      continue;
    }
    if (In)
      Out.push_back(L);
  }
  return Out;
}

/// The first paragraph of prose: consecutive non-blank lines, joined with
/// spaces; a code fence or table ends it. A paragraph that ends with ':'
/// takes the list that follows it too ("The name is: - a; - b").
std::string firstParagraph(ArrayRef<StringRef> Lines) {
  std::string P;
  bool InList = false;
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    bool Item = T.starts_with("- ") || T.starts_with("* ");
    if (T.starts_with("```") || T.starts_with("|"))
      break;
    if (T.empty()) {
      if (P.empty())
        continue;
      if (!InList && StringRef(P).ends_with(":")) {
        InList = true; // the list, after one blank line
        continue;
      }
      break;
    }
    if (InList && !Item && !L.starts_with(" "))
      break;
    if (!P.empty())
      P += ' ';
    P += T.str();
  }
  return P;
}

// json::Value borrows a StringRef; every string here is copied, so that the
// log owns what it says.
json::Object text(StringRef S) { return json::Object{{"text", jsonText(S)}}; }

json::Object ruleJson(const rules::RuleInfo &R) {
  RulePageText Page = parseRulePage(embeddedRulePage(R.Id));
  std::string Full = Page.FirstParagraph.empty() ? R.Summary.str()
                                                 : Page.FirstParagraph;
  std::string Help = Full;
  if (!Page.HowToFix.empty())
    Help += "\n\nHow to fix: " + Page.HowToFix;
  Help += formatv("\n\nSee docs/rules/{0}.md.", R.Id).str();

  json::Object Help_{{"text", Help}};
  if (!Page.Markdown.empty())
    Help_["markdown"] = Page.Markdown;
  json::Object O;
  O["id"] = R.Id.str();
  O["name"] = R.Name.str();
  O["shortDescription"] = text(R.Summary);
  O["fullDescription"] = text(Full);
  O["help"] = std::move(Help_);
  O["defaultConfiguration"] =
      json::Object{{"level", sarifLevel(R.DefaultSeverity).str()}};
  return O;
}

json::Object resultJson(const Finding &F, const StringMap<size_t> &RuleIndex) {
  json::Object O;
  O["ruleId"] = F.Rule;
  auto It = RuleIndex.find(F.Rule);
  if (It != RuleIndex.end())
    O["ruleIndex"] = int64_t(It->second);
  O["level"] = sarifLevel(F.Sev).str();

  // The message always names the symbol (a rule's message usually does
  // already), and carries the fix: a viewer shows the message, not properties.
  std::string Msg = F.Message;
  if (!F.Symbol.empty() && StringRef(Msg).find(F.Symbol) == StringRef::npos)
    Msg = "`" + F.Symbol + "`: " + Msg;
  if (!F.Fix.empty())
    Msg += "\nfix: " + F.Fix;
  O["message"] = text(Msg);

  // A result without a location is dropped by some viewers (GitHub): a
  // finding about no file in particular is placed on its plugin.
  StringRef File = F.File.empty() ? StringRef(F.Plugin) : StringRef(F.File);
  if (!File.empty()) {
    auto [Artifact, Member] = splitArchiveMember(File);
    json::Object Loc;
    Loc["physicalLocation"] = json::Object{
        {"artifactLocation", json::Object{{"uri", sarifUri(Artifact)}}}};
    json::Array Logical;
    if (!Member.empty())
      Logical.push_back(json::Object{{"name", jsonText(Member)},
                                     {"fullyQualifiedName", jsonText(File)},
                                     {"kind", "member"}});
    if (!F.Symbol.empty())
      Logical.push_back(json::Object{{"name", jsonText(F.Symbol)}, {"kind", "function"}});
    if (!Logical.empty())
      Loc["logicalLocations"] = std::move(Logical);
    O["locations"] = json::Array{std::move(Loc)};
  }

  // Stable across build trees: the rule, the symbol, the file's name and the
  // plugin's name, not their directories.
  std::string Key = F.Rule + "\n" + F.Symbol + "\n" +
                    sys::path::filename(F.File).str() + "\n" +
                    sys::path::filename(F.Plugin).str();
  O["partialFingerprints"] = json::Object{
      {"aotiFinding/v1", utohexstr(xxh3_64bits(Key), /*LowerCase=*/true)}};

  json::Object Props;
  Props["ruleName"] = F.RuleName;
  if (!F.Symbol.empty())
    Props["symbol"] = jsonText(F.Symbol);
  if (!F.Plugin.empty())
    Props["plugin"] = jsonText(F.Plugin);
  if (!F.Fix.empty())
    Props["fix"] = jsonText(F.Fix);
  O["properties"] = std::move(Props);
  return O;
}

} // namespace

StringRef sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "none";
}

RulePageText parseRulePage(StringRef Markdown) {
  RulePageText T;
  if (Markdown.empty())
    return T;
  std::vector<StringRef> Finds = sectionLines(Markdown, "What it finds");
  std::vector<StringRef> Fix = sectionLines(Markdown, "How to fix");
  T.FirstParagraph = firstParagraph(Finds);
  T.HowToFix = firstParagraph(Fix);
  auto Join = [](ArrayRef<StringRef> Ls) {
    std::string S;
    for (StringRef L : Ls)
      S += L.str() + "\n";
    return StringRef(S).trim().str();
  };
  if (!Finds.empty())
    T.Markdown = "## What it finds\n\n" + Join(Finds);
  if (!Fix.empty())
    T.Markdown += (T.Markdown.empty() ? "" : "\n\n") + ("## How to fix\n\n" + Join(Fix));
  return T;
}

StringRef embeddedRulePage(StringRef Id) {
  for (const EmbeddedPage &P : EmbeddedPages)
    if (P.Id && Id == P.Id)
      return P.Text;
  return {};
}

std::string sarifUri(StringRef Path) {
  // RFC 3986 unreserved characters and '/' stay; everything else is encoded.
  std::string Out;
  if (sys::path::is_absolute(Path, sys::path::Style::posix))
    Out = "file://";
  for (unsigned char C : Path) {
    if (isAlnum(C) || C == '-' || C == '.' || C == '_' || C == '~' || C == '/')
      Out += char(C);
    else
      Out += formatv("%{0:X2}", unsigned(C)).str();
  }
  return Out;
}

std::pair<StringRef, StringRef> splitArchiveMember(StringRef File) {
  // A model library inside a package: "model.pt2!data/aotinductor/m/x.so".
  if (size_t Bang = File.find(".pt2!"); Bang != StringRef::npos)
    return {File.take_front(Bang + 4), File.drop_front(Bang + 5)};
  if (!File.ends_with(")"))
    return {File, {}};
  size_t Open = File.rfind('(');
  if (Open == StringRef::npos || Open == 0)
    return {File, {}};
  return {File.take_front(Open), File.slice(Open + 1, File.size() - 1)};
}

json::Value sarifLog(ArrayRef<Finding> Findings,
                     ArrayRef<const rules::RuleInfo *> Rules,
                     const SarifRun &Run) {
  json::Array RulesJson;
  StringMap<size_t> RuleIndex;
  for (const rules::RuleInfo *R : Rules) {
    RuleIndex.try_emplace(R->Id, RulesJson.size());
    RulesJson.push_back(ruleJson(*R));
  }
  json::Array Results;
  for (const Finding &F : Findings)
    Results.push_back(resultJson(F, RuleIndex));
  for (const SarifSuppressed &S : Run.Suppressed) {
    json::Object Res = resultJson(*S.F, RuleIndex);
    Res["suppressions"] = json::Array{json::Object{
        {"kind", "external"}, {"justification", S.Justification}}};
    Results.push_back(std::move(Res));
  }

  json::Object Driver;
  Driver["name"] = "aoti-audit";
  Driver["version"] =
      (Run.ToolVersion.empty() ? StringRef(AOTI_VERSION) : Run.ToolVersion).str();
  Driver["semanticVersion"] = Driver["version"];
  Driver["rules"] = std::move(RulesJson);

  json::Object R;
  R["tool"] = json::Object{{"driver", std::move(Driver)}};
  // GitHub code scanning keeps one analysis per category; this one names it.
  R["automationDetails"] =
      json::Object{{"id", ("aoti-audit/" + Run.Command + "/").str()}};
  R["columnKind"] = "unicodeCodePoints";
  R["results"] = std::move(Results);
  if (!Run.Notifications.empty()) {
    json::Array Ns;
    for (const SarifNotification &N : Run.Notifications) {
      json::Object Region{{"startLine", int64_t(std::max(N.Line, 1u))}};
      json::Object Loc{{"physicalLocation",
                        json::Object{{"artifactLocation",
                                      json::Object{{"uri", sarifUri(N.File)}}},
                                     {"region", std::move(Region)}}}};
      Ns.push_back(json::Object{{"level", "warning"},
                                {"message", text(N.Message)},
                                {"locations", json::Array{std::move(Loc)}}});
    }
    R["invocations"] = json::Array{json::Object{
        {"executionSuccessful", true},
        {"toolConfigurationNotifications", std::move(Ns)}}};
  }

  return json::Object{{"$schema", SchemaUri},
                      {"version", "2.1.0"},
                      {"runs", json::Array{std::move(R)}}};
}

void printSarif(raw_ostream &OS, ArrayRef<Finding> Findings,
                const SarifRun &Run) {
  std::vector<const rules::RuleInfo *> Rules = rules::allRules();
  OS << formatv("{0:2}", sarifLog(Findings, Rules, Run)) << "\n";
}

} // namespace aoti::tool
