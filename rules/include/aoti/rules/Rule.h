//===- Rule.h - One check, one stable id ----------------------------------===//
//
// A rule consumes facts (Check.h, and later Dups.h, Link.h) and emits
// findings with a fix. It parses no files and prints nothing. Each rule is
// one row of rules/Rules.def and lives in its own file under rules/<command>/,
// has a stable id that never changes meaning, and a page docs/rules/<ID>.md
// that says what it finds, why it matters, how to fix it, and shows an
// example.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_RULES_RULE_H
#define AOTI_RULES_RULE_H

#include "aoti/rules/Finding.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <vector>

namespace aoti::audit {
struct CheckFacts;
struct DupsFacts;
struct LinkFacts;
}

namespace aoti::rules {

struct RuleInfo {
  llvm::StringRef Id;      // "AOTI002"
  llvm::StringRef Name;    // "symbol-not-exported"
  Severity DefaultSeverity;
  llvm::StringRef Summary; // one line, for --list-rules and SARIF
};

class Rule {
public:
  virtual ~Rule();
  virtual const RuleInfo &info() const = 0;

protected:
  /// A finding of this rule at its default severity.
  Finding make() const;
};

class CheckRule : public Rule {
public:
  virtual void check(const audit::CheckFacts &Facts,
                     std::vector<Finding> &Out) const = 0;
};

class DupsRule : public Rule {
public:
  virtual void check(const audit::DupsFacts &Facts,
                     std::vector<Finding> &Out) const = 0;
};

class LinkRule : public Rule {
public:
  virtual void check(const audit::LinkFacts &Facts,
                     std::vector<Finding> &Out) const = 0;
};

/// Every `link` rule, in id order.
const std::vector<std::unique_ptr<LinkRule>> &linkRules();

/// Runs every link rule over the facts.
std::vector<Finding> runLinkRules(const audit::LinkFacts &Facts);

/// Every `check` rule, in id order.
const std::vector<std::unique_ptr<CheckRule>> &checkRules();

/// Every `dups` rule, in id order.
const std::vector<std::unique_ptr<DupsRule>> &dupsRules();

/// Runs every dups rule over the facts.
std::vector<Finding> runDupsRules(const audit::DupsFacts &Facts);

/// Every rule of every command, for --list-rules and documentation.
std::vector<const RuleInfo *> allRules();

/// Runs every check rule over the facts.
std::vector<Finding> runCheckRules(const audit::CheckFacts &Facts);

} // namespace aoti::rules

#endif
