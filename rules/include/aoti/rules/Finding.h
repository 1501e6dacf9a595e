//===- Finding.h - What a rule reports ------------------------------------===//
#ifndef AOTI_RULES_FINDING_H
#define AOTI_RULES_FINDING_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace aoti::rules {

enum class Severity : uint8_t { Note, Warning, Error };

llvm::StringRef toString(Severity S);

/// One problem, found by one rule, with the fix. Findings are values: rules
/// create them, the front-end prints them.
struct Finding {
  std::string Rule;     // stable id, "AOTI002"
  std::string RuleName; // "symbol-not-exported"
  Severity Sev = Severity::Error;
  std::string Plugin;   // the plugin being loaded; empty for host findings
  std::string Symbol;   // empty for findings about a file
  std::string File;     // the file at fault (host, library, archive member)
  std::string Message;  // what is wrong, for this one symbol or file
  std::string Fix;      // what to change; the same text for the same cause
};

} // namespace aoti::rules

#endif
