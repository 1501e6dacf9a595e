//===- Output.cpp ---------------------------------------------------------===//
#include "Output.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/WithColor.h"

#include <CLI/CLI.hpp>

#include <map>

using namespace llvm;
using namespace aoti::rules;

namespace aoti::tool {

void addOutputOptions(CLI::App &Cmd, std::string &Format, std::string &Color) {
  Cmd.add_option("--format", Format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  Cmd.add_option("--color", Color, "Colour text output")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void addPrefixOptions(CLI::App &Cmd, std::vector<std::string> &Prefixes,
                      PrefixValues Values, const std::string &PrefixHelp,
                      bool *All, const std::string &AllHelp) {
  CLI::Option *Prefix = Cmd.add_option("--prefix", Prefixes, PrefixHelp);
  if (Values == PrefixValues::OnePerOption)
    Prefix->allow_extra_args(false)->multi_option_policy(
        CLI::MultiOptionPolicy::TakeAll);
  if (All)
    Cmd.add_flag("--all", *All, AllHelp)->excludes(Prefix);
}

json::Value findingJson(const Finding &Fd, bool WithPlugin) {
  json::Object O;
  O["rule"] = Fd.Rule;
  O["rule_name"] = Fd.RuleName;
  O["severity"] = toString(Fd.Sev);
  O["symbol"] = Fd.Symbol.empty() ? json::Value(nullptr) : jsonText(Fd.Symbol);
  if (WithPlugin)
    O["plugin"] = Fd.Plugin.empty() ? json::Value(nullptr) : jsonText(Fd.Plugin);
  O["file"] = jsonText(Fd.File);
  O["message"] = jsonText(Fd.Message);
  O["fix"] = jsonText(Fd.Fix);
  return O;
}

bool useColor(raw_ostream &OS, ColorMode M) {
  switch (M) {
  case ColorMode::Always: return true;
  case ColorMode::Never: return false;
  case ColorMode::Auto: return OS.has_colors();
  }
  return false;
}

json::Value jsonText(StringRef S) {
  return json::isUTF8(S) ? json::Value(S.str()) : json::Value(json::fixUTF8(S));
}

bool useColor(raw_ostream &OS, StringRef Flag) {
  return useColor(OS, Flag == "always"  ? ColorMode::Always
                      : Flag == "never" ? ColorMode::Never
                                        : ColorMode::Auto);
}

void printSeverity(raw_ostream &OS, Severity S, bool Color) {
  raw_ostream::Colors C = S == Severity::Error     ? raw_ostream::RED
                          : S == Severity::Warning ? raw_ostream::MAGENTA
                                                   : raw_ostream::CYAN;
  if (Color)
    OS.changeColor(C, /*Bold=*/true);
  OS << toString(S);
  if (Color)
    OS.resetColor();
}

void printFindingsText(raw_ostream &OS, const std::vector<const Finding *> &Fs,
                       bool Color) {
  // Group by cause, keeping first-seen order.
  std::vector<std::vector<const Finding *>> Groups;
  std::map<std::pair<std::string, std::string>, size_t> Index;
  for (const Finding *F : Fs) {
    auto [It, New] = Index.try_emplace({F->Rule, F->Fix}, Groups.size());
    if (New)
      Groups.emplace_back();
    Groups[It->second].push_back(F);
  }
  for (const auto &G : Groups) {
    const Finding &First = *G.front();
    OS << "  ";
    printSeverity(OS, First.Sev, Color);
    if (Color)
      OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    OS << "[" << First.Rule << "] " << First.RuleName;
    if (G.size() > 1)
      OS << " (" << G.size() << (First.Symbol.empty() ? " files)" : " symbols)");
    if (Color)
      OS.resetColor();
    OS << ": " << First.Message << "\n";
    if (G.size() > 1) {
      OS << "    the same for:";
      size_t Shown = 0;
      for (size_t I = 1; I < G.size(); ++I) {
        const std::string &What = G[I]->Symbol.empty() ? G[I]->File : G[I]->Symbol;
        if (Shown == 24) {
          OS << " ... and " << (G.size() - 1 - Shown) << " more";
          break;
        }
        OS << (Shown ? ", " : " ") << What;
        ++Shown;
      }
      OS << "\n";
    }
    if (!First.Fix.empty()) {
      if (Color)
        OS.changeColor(raw_ostream::GREEN, /*Bold=*/false);
      OS << "    fix: ";
      if (Color)
        OS.resetColor();
      OS << First.Fix << "\n";
    }
  }
}

void printError(StringRef Message) {
  WithColor::error(errs(), "aoti-audit") << Message << "\n";
}

void printWarning(StringRef Message) {
  WithColor::warning(errs(), "aoti-audit") << Message << "\n";
}

} // namespace aoti::tool
