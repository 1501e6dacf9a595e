//===- Registry.cpp - The list of rules -----------------------------------===//
//
// The rules are Rules.def's rows, instantiated here in the order of the rows,
// rather than registered by static constructors: a static initializer in an
// archive member is exactly what a static link drops.
//
//===----------------------------------------------------------------------===//
#include "check/CheckRules.h"
#include "dups/DupsRules.h"
#include "link/LinkRules.h"

#include <algorithm>

namespace aoti::rules {

Rule::~Rule() = default;

Finding Rule::make() const {
  Finding F;
  F.Rule = info().Id.str();
  F.RuleName = info().Name.str();
  F.Sev = info().DefaultSeverity;
  return F;
}

const std::vector<std::unique_ptr<CheckRule>> &checkRules() {
  static const std::vector<std::unique_ptr<CheckRule>> Rules = [] {
    std::vector<std::unique_ptr<CheckRule>> R;
#define AOTI_CHECK_RULE(CLASS, ID, NAME)                                       \
  R.push_back(std::make_unique<check::CLASS>());
#include "Rules.def"
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<DupsRule>> &dupsRules() {
  static const std::vector<std::unique_ptr<DupsRule>> Rules = [] {
    std::vector<std::unique_ptr<DupsRule>> R;
#define AOTI_DUPS_RULE(CLASS, ID, NAME)                                       \
  R.push_back(std::make_unique<dups::CLASS>());
#include "Rules.def"
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<LinkRule>> &linkRules() {
  static const std::vector<std::unique_ptr<LinkRule>> Rules = [] {
    std::vector<std::unique_ptr<LinkRule>> R;
#define AOTI_LINK_RULE(CLASS, ID, NAME)                                       \
  R.push_back(std::make_unique<link::CLASS>());
#include "Rules.def"
    return R;
  }();
  return Rules;
}

std::vector<Finding> runLinkRules(const audit::LinkFacts &Facts) {
  std::vector<Finding> Out;
  for (const auto &R : linkRules())
    R->check(Facts, Out);
  return Out;
}

std::vector<const RuleInfo *> allRules() {
  std::vector<const RuleInfo *> Out;
  for (const auto &R : linkRules())
    Out.push_back(&R->info());
  for (const auto &R : checkRules())
    Out.push_back(&R->info());
  for (const auto &R : dupsRules())
    Out.push_back(&R->info());
  std::sort(Out.begin(), Out.end(),
            [](const RuleInfo *A, const RuleInfo *B) { return A->Id < B->Id; });
  return Out;
}

std::vector<Finding> runCheckRules(const audit::CheckFacts &Facts) {
  std::vector<Finding> Out;
  for (const auto &R : checkRules())
    R->check(Facts, Out);
  return Out;
}

std::vector<Finding> runDupsRules(const audit::DupsFacts &Facts) {
  std::vector<Finding> Out;
  for (const auto &R : dupsRules())
    R->check(Facts, Out);
  return Out;
}

} // namespace aoti::rules
