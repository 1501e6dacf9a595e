//===- Config.h - .aoti-audit.toml: severities, prefixes, suppressions ----===//
//
// A project states once what its audits take for granted:
//
//   prefixes = ["aoti_torch_", "aoti_shims_"]   # the default of --prefix
//
//   [severity]                                  # by rule id or name
//   AOTI104 = "error"                           # error, warning, note, off
//
//   [[suppress]]                                # every key but rule optional
//   rule = "AOTI101"
//   symbol = "aoti_torch_legacy_*"              # glob over the symbol
//   file = "libold_shims.a*"                    # glob over the file at fault
//   plugin = "*/models/*.so"                    # glob over the plugin (check)
//   reason = "removed in the Q1 cleanup"        # required
//
// A glob without '/' matches the base name as well as the whole path, as a
// .gitignore line does. The file is found by walking up from the working
// directory (findConfig); command-line options win over it. Unknown keys,
// rules and severities are errors that name the line: a typo must not turn
// an audit off in silence.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_CONFIG_H
#define AOTI_RULES_CONFIG_H

#include "aoti/rules/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aoti::rules {

/// The file name findConfig looks for.
inline constexpr llvm::StringLiteral ConfigFileName = ".aoti-audit.toml";

/// A rule the configuration may name.
struct KnownRule {
  llvm::StringRef Id;   // "AOTI101"
  llvm::StringRef Name; // "duplicate-strong-definition"
};

struct Suppression {
  std::string Rule; // the rule's id, whichever way the file named it
  std::string Symbol, File, Plugin; // globs; empty matches anything
  std::string Reason;
  unsigned Line = 0;
  unsigned Uses = 0; // findings it suppressed in this run
};

struct AuditConfig {
  std::string Path; // empty: no configuration
  std::vector<std::string> Prefixes;
  /// Rule id -> severity; std::nullopt turns the rule off.
  std::map<std::string, std::optional<Severity>> Severities;
  std::vector<Suppression> Suppressions;
};

/// The nearest .aoti-audit.toml in StartDir or a directory above it.
std::optional<std::string> findConfig(llvm::StringRef StartDir);

/// Reads and validates a configuration file against the rules there are.
llvm::Expected<AuditConfig> loadConfig(llvm::StringRef Path,
                                       llvm::ArrayRef<KnownRule> Rules);
/// The same for text already read (Path names it in messages).
llvm::Expected<AuditConfig> parseConfig(llvm::StringRef Text,
                                        llvm::StringRef Path,
                                        llvm::ArrayRef<KnownRule> Rules);

/// A finding a suppression removed.
struct SuppressedFinding {
  Finding F;
  const Suppression *By = nullptr;
};

/// Applies severities (a rule turned off drops its findings) and then
/// suppressions (the first that matches wins) to Findings in place, counting
/// each suppression's uses; returns what was suppressed.
std::vector<SuppressedFinding> applyConfig(AuditConfig &Config,
                                           std::vector<Finding> &Findings);

/// Whether a suppression matches a finding.
bool matches(const Suppression &S, const Finding &F);

} // namespace aoti::rules

#endif
