//===- Output.h - Printing findings for people and for programs -----------===//
#ifndef AOTI_TOOLS_AOTI_AUDIT_OUTPUT_H
#define AOTI_TOOLS_AOTI_AUDIT_OUTPUT_H

#include "aoti/rules/Finding.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace aoti::tool {

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

} // namespace aoti::tool

#endif
