//===- Commands.h - The subcommands of aoti-audit -------------------------===//
//
// Each subcommand registers its options on the CLI11 app and returns the
// callback that runs it. Commands return an exit status: 0 nothing at error
// severity, 1 errors found, 2 bad usage or unreadable input.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TOOLS_AOTI_AUDIT_COMMANDS_H
#define AOTI_TOOLS_AOTI_AUDIT_COMMANDS_H

#include <functional>

namespace CLI {
class App;
}

namespace aoti::tool {

enum ExitCode : int { ExitOk = 0, ExitFindings = 1, ExitBadInput = 2 };

using CommandFn = std::function<int()>;

CommandFn addCheckCommand(CLI::App &App);
CommandFn addDupsCommand(CLI::App &App);
CommandFn addLinkCommand(CLI::App &App);
CommandFn addRulesCommand(CLI::App &App);

} // namespace aoti::tool

#endif
