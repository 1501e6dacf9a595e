//===- Registry.cpp - The list of rules -----------------------------------===//
//
// Rules are listed here explicitly rather than registered by static
// constructors: a static initializer in an archive member is exactly what a
// static link drops.
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
    R.push_back(std::make_unique<UndefinedSymbol>());
    R.push_back(std::make_unique<NotExported>());
    R.push_back(std::make_unique<ArchiveMemberNotLinked>());
    R.push_back(std::make_unique<HiddenDefinition>());
    R.push_back(std::make_unique<OutsideScope>());
    R.push_back(std::make_unique<VersionMismatch>());
    R.push_back(std::make_unique<MissingVersionNode>());
    R.push_back(std::make_unique<LibraryNotFound>());
    R.push_back(std::make_unique<DuplicateProvider>());
    R.push_back(std::make_unique<LibTorchClash>());
    R.push_back(std::make_unique<Interposition>());
    R.push_back(std::make_unique<WeakUnresolved>());
    R.push_back(std::make_unique<ExecutableNotLoadable>());
    R.push_back(std::make_unique<StaticHost>());
    R.push_back(std::make_unique<FallbackNotImplemented>());
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<DupsRule>> &dupsRules() {
  static const std::vector<std::unique_ptr<DupsRule>> Rules = [] {
    std::vector<std::unique_ptr<DupsRule>> R;
    R.push_back(std::make_unique<StrongDuplicate>());
    R.push_back(std::make_unique<StrongWeakDuplicate>());
    R.push_back(std::make_unique<WeakDuplicate>());
    R.push_back(std::make_unique<CommonDuplicate>());
    R.push_back(std::make_unique<DupsLibTorchClash>());
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<LinkRule>> &linkRules() {
  static const std::vector<std::unique_ptr<LinkRule>> Rules = [] {
    std::vector<std::unique_ptr<LinkRule>> R;
    R.push_back(std::make_unique<LinkMemberNotPulledIn>());
    R.push_back(std::make_unique<LinkNotExported>());
    R.push_back(std::make_unique<LinkDiscardedByGc>());
    R.push_back(std::make_unique<LinkMadeLocal>());
    R.push_back(std::make_unique<LinkNotDefined>());
    R.push_back(std::make_unique<LinkDroppedAsNeeded>());
    R.push_back(std::make_unique<LinkMultipleDefinition>());
    R.push_back(std::make_unique<LinkWholeArchiveDuplicate>());
    R.push_back(std::make_unique<LinkUndefinedReference>());
    R.push_back(std::make_unique<LinkLldOnlyBackReference>());
    R.push_back(std::make_unique<LinkInputProblem>());
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
