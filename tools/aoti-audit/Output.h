//===- Output.h - Printing findings for people and for programs -----------===//
//
// What the commands share: the options every command spells the same way
// (--format, --color, --prefix, --all), findings as text and as JSON, and
// the way errors are printed.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TOOLS_AOTI_AUDIT_OUTPUT_H
#define AOTI_TOOLS_AOTI_AUDIT_OUTPUT_H

#include "aoti/rules/Finding.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace aoti::tool {

/// --format text|json|sarif and --color auto|always|never, which every
/// command that reports findings takes.
void addOutputOptions(CLI::App &Cmd, std::string &Format, std::string &Color);

/// How a command's --prefix takes its values: check's takes every word up to
/// the next option (`--prefix a b`); link's and dups' one value per
/// --prefix, so that a positional argument after it stays one.
enum class PrefixValues { UpToNextOption, OnePerOption };

/// --prefix, the names a command looks at (repeatable), and, where All is
/// given, --all, every name, which excludes --prefix. The help strings are
/// the command's: what a prefix selects differs between commands.
void addPrefixOptions(CLI::App &Cmd, std::vector<std::string> &Prefixes,
                      PrefixValues Values, const std::string &PrefixHelp,
                      bool *All = nullptr, const std::string &AllHelp = {});

/// A finding as the JSON reports write it; "plugin" only where findings
/// belong to a plugin (check).
llvm::json::Value findingJson(const rules::Finding &Fd, bool WithPlugin);

enum class OutputFormat { Text, Json };

/// A JSON string for text that comes from an input: symbol names, paths and
/// the messages that quote them are bytes, JSON strings are UTF-8. Invalid
/// sequences become U+FFFD (llvm::json requires valid UTF-8 of its callers).
llvm::json::Value jsonText(llvm::StringRef S);
enum class ColorMode { Auto, Always, Never };

/// Whether to colour OS, from --color and whether OS is a terminal.
bool useColor(llvm::raw_ostream &OS, ColorMode M);
/// The same, from the value of --color: "always", "never" or "auto".
bool useColor(llvm::raw_ostream &OS, llvm::StringRef Flag);

/// Prints findings grouped by (rule, fix): one block per cause, the message
/// of the first finding, the other symbols named, then the fix.
void printFindingsText(llvm::raw_ostream &OS,
                       const std::vector<const rules::Finding *> &Findings,
                       bool Color);

/// "error", "warning", "note" coloured as clang colours them.
void printSeverity(llvm::raw_ostream &OS, rules::Severity S, bool Color);

/// Prints an error about the command line or an input, "aoti-audit: error: ...".
void printError(llvm::StringRef Message);
/// "aoti-audit: warning: MESSAGE" on stderr.
void printWarning(llvm::StringRef Message);

} // namespace aoti::tool

#endif
