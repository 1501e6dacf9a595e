//===- ConfigOptions.cpp --------------------------------------------------===//
#include "ConfigOptions.h"

#include "Output.h"

#include "aoti/rules/Rule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <CLI/CLI.hpp>

#include <map>

using namespace llvm;
using namespace aoti::audit;
using namespace aoti::rules;

namespace aoti::tool {

void addConfigOptions(CLI::App &Cmd, ConfigArgs &Args) {
  auto *Config = Cmd.add_option(
                        "--config", Args.Path,
                        "Configuration file (default: the nearest " +
                            ConfigFileName.str() +
                            " in this directory or above; docs/config.md)")
                     ->check(CLI::ExistingFile);
  Cmd.add_flag("--no-config", Args.None, "Read no configuration file")
      ->excludes(Config);
}

Expected<ActiveConfig> ActiveConfig::load(const ConfigArgs &Args) {
  ActiveConfig A;
  if (Args.None)
    return A;
  std::string Path = Args.Path;
  if (Path.empty()) {
    SmallString<256> Cwd;
    if (sys::fs::current_path(Cwd))
      return A;
    std::optional<std::string> Found = findConfig(Cwd);
    if (!Found)
      return A;
    Path = std::move(*Found);
  }
  std::vector<KnownRule> Known;
  for (const rules::RuleInfo *R : rules::allRules())
    Known.push_back({R->Id, R->Name});
  auto C = loadConfig(Path, Known);
  if (!C)
    return C.takeError();
  A.Config = std::move(*C);
  return A;
}

void ActiveConfig::apply(std::vector<Finding> &Findings) {
  if (!active())
    return;
  for (SuppressedFinding &S : applyConfig(Config, Findings))
    Suppressed.push_back(std::move(S));
}

std::vector<const Suppression *> ActiveConfig::unused() const {
  std::vector<const Suppression *> Out;
  for (const Suppression &S : Config.Suppressions)
    if (!S.Uses)
      Out.push_back(&S);
  return Out;
}

static std::string describe(const Suppression &S) {
  std::string D = S.Rule;
  if (!S.Symbol.empty())
    D += " symbol " + S.Symbol;
  if (!S.File.empty())
    D += " file " + S.File;
  if (!S.Plugin.empty())
    D += " plugin " + S.Plugin;
  return D;
}

void ActiveConfig::printText(raw_ostream &OS, bool Color) const {
  if (!active())
    return;
  std::map<std::string, unsigned> ByRule;
  for (const SuppressedFinding &S : Suppressed)
    ++ByRule[S.F.Rule];
  OS << "config " << Config.Path << ": " << Suppressed.size()
     << " finding(s) suppressed";
  if (!ByRule.empty()) {
    OS << " (";
    bool First = true;
    for (const auto &[Rule, N] : ByRule) {
      OS << (First ? "" : ", ") << Rule << " x" << N;
      First = false;
    }
    OS << ")";
  }
  OS << "\n";
  for (const Suppression *S : unused()) {
    OS << "  ";
    printSeverity(OS, Severity::Warning, Color);
    OS << formatv(": {0}:{1}: suppression {2} matched no finding; remove it "
                  "(reason given: {3})\n",
                  Config.Path, S->Line, describe(*S), S->Reason);
  }
}

json::Value ActiveConfig::json() const {
  if (!active())
    return nullptr;
  json::Array Sup;
  for (const SuppressedFinding &S : Suppressed) {
    json::Object O{{"rule", S.F.Rule},
                   {"severity", toString(S.F.Sev)},
                   {"symbol", S.F.Symbol.empty() ? json::Value(nullptr)
                                                 : jsonText(S.F.Symbol)},
                   {"plugin", S.F.Plugin.empty() ? json::Value(nullptr)
                                                 : jsonText(S.F.Plugin)},
                   {"file", jsonText(S.F.File)},
                   {"message", jsonText(S.F.Message)},
                   {"reason", S.By->Reason},
                   {"suppression_line", int64_t(S.By->Line)}};
    Sup.push_back(std::move(O));
  }
  json::Array Unused;
  for (const Suppression *S : unused()) {
    json::Object O{{"line", int64_t(S->Line)}, {"rule", S->Rule},
                   {"reason", S->Reason}};
    if (!S->Symbol.empty())
      O["symbol"] = S->Symbol;
    if (!S->File.empty())
      O["file"] = S->File;
    if (!S->Plugin.empty())
      O["plugin"] = S->Plugin;
    Unused.push_back(std::move(O));
  }
  return json::Object{{"path", Config.Path},
                      {"suppressed", std::move(Sup)},
                      {"unused_suppressions", std::move(Unused)}};
}

void ActiveConfig::addToSarif(SarifRun &Run) const {
  for (const SuppressedFinding &S : Suppressed)
    Run.Suppressed.push_back({&S.F, S.By->Reason});
  for (const Suppression *S : unused())
    Run.Notifications.push_back(
        {formatv("suppression {0} matched no finding; remove it", describe(*S))
             .str(),
         Config.Path, S->Line});
}

} // namespace aoti::tool
