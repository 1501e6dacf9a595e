//===- main.cpp - aoti-audit ----------------------------------------------===//
//
// A thin front-end: CLI11 parses, the audit library analyses, the rules
// judge, Output.cpp prints. Exit status: 0 clean, 1 findings at error
// severity, 2 bad usage or unreadable input.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ConfigOptions.h"
#include "Output.h"

#include "aoti/rules/Rule.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <map>
#include <memory>

using namespace aoti;

#ifndef AOTI_VERSION
#define AOTI_VERSION "0.0.0"
#endif

namespace aoti::tool {

CommandFn addRulesCommand(CLI::App &App) {
  CLI::App *Cmd = App.add_subcommand("rules", "List every rule: id, name, severity");
  Cmd->footer("A rule whose severity the configuration changes shows both: "
              "[warning -> error].");
  auto Args = std::make_shared<ConfigArgs>();
  addConfigOptions(*Cmd, *Args);
  return [Args] {
    auto Config = ActiveConfig::load(*Args);
    if (!Config) {
      printError(llvm::toString(Config.takeError()));
      return int(ExitBadInput);
    }
    const auto &Severities = Config->config().Severities;
    for (const rules::RuleInfo *R : rules::allRules()) {
      std::string Level(rules::toString(R->DefaultSeverity));
      if (auto It = Severities.find(R->Id.str()); It != Severities.end())
        Level += " -> " + (It->second ? rules::toString(*It->second).str()
                                      : std::string("off"));
      llvm::outs() << R->Id << "  " << R->Name << "  [" << Level << "]  "
                   << R->Summary << "\n";
    }
    return int(ExitOk);
  };
}

} // namespace aoti::tool

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  CLI::App App{"aoti-audit: prove before anything runs that an AOTInductor "
               "model binds every symbol it needs, exactly once"};
  App.set_version_flag("--version", "aoti-audit " AOTI_VERSION);
  App.require_subcommand(1);
  App.footer("Run `aoti-audit COMMAND --help` for a command's options and "
             "examples; rule pages are in docs/rules/.");

  std::map<std::string, tool::CommandFn> Commands;
  Commands["check"] = tool::addCheckCommand(App);
  Commands["dups"] = tool::addDupsCommand(App);
  Commands["link"] = tool::addLinkCommand(App);
  Commands["rules"] = tool::addRulesCommand(App);

  try {
    App.parse(argc, argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    App.exit(E);
    return tool::ExitBadInput;
  }
  for (CLI::App *Sub : App.get_subcommands())
    return Commands.at(Sub->get_name())();
  return tool::ExitBadInput;
}
