//===- ConfigOptions.h - --config, --no-config and what they change -------===//
//
// Every command that reports findings takes the same two options and passes
// its findings through one ActiveConfig: severities, then suppressions. The
// report says what was suppressed and which suppressions matched nothing.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_TOOLS_AOTI_AUDIT_CONFIGOPTIONS_H
#define AOTI_TOOLS_AOTI_AUDIT_CONFIGOPTIONS_H

#include "Sarif.h"

#include "aoti/rules/Config.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace aoti::tool {

struct ConfigArgs {
  std::string Path;
  bool None = false;
};

/// --config FILE and --no-config.
void addConfigOptions(CLI::App &Cmd, ConfigArgs &Args);

class ActiveConfig {
public:
  /// --config's file, else the nearest .aoti-audit.toml above the working
  /// directory, else none; --no-config: none.
  static llvm::Expected<ActiveConfig> load(const ConfigArgs &Args);

  bool active() const { return !Config.Path.empty(); }
  const rules::AuditConfig &config() const { return Config; }
  /// The configured prefixes, for a command given no --prefix.
  const std::vector<std::string> &prefixes() const { return Config.Prefixes; }

  /// Applies the configuration to one batch of findings.
  void apply(std::vector<rules::Finding> &Findings);

  /// "config .aoti-audit.toml: 2 finding(s) suppressed", and a warning per
  /// unused suppression; nothing when no configuration is active.
  void printText(llvm::raw_ostream &OS, bool Color) const;
  /// {"path", "suppressed": [...], "unused_suppressions": [...]}.
  llvm::json::Value json() const;
  /// The suppressed findings and the unused suppressions, for SARIF.
  void addToSarif(SarifRun &Run) const;

private:
  std::vector<const rules::Suppression *> unused() const;

  rules::AuditConfig Config;
  std::deque<rules::SuppressedFinding> Suppressed; // stable addresses
};

} // namespace aoti::tool

#endif
