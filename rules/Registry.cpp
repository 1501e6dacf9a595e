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
    R.push_back(std::make_unique<check::UndefinedSymbol>());
    R.push_back(std::make_unique<check::SymbolNotExported>());
    R.push_back(std::make_unique<check::ArchiveMemberNotLinked>());
    R.push_back(std::make_unique<check::HiddenDefinition>());
    R.push_back(std::make_unique<check::ProviderOutsideScope>());
    R.push_back(std::make_unique<check::SymbolVersionMismatch>());
    R.push_back(std::make_unique<check::MissingVersionNode>());
    R.push_back(std::make_unique<check::LibraryNotFound>());
    R.push_back(std::make_unique<check::DuplicateProvider>());
    R.push_back(std::make_unique<check::LibTorchClash>());
    R.push_back(std::make_unique<check::SymbolInterposition>());
    R.push_back(std::make_unique<check::WeakUnresolved>());
    R.push_back(std::make_unique<check::ExecutableNotLoadable>());
    R.push_back(std::make_unique<check::StaticHost>());
    R.push_back(std::make_unique<check::FallbackNotImplemented>());
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<DupsRule>> &dupsRules() {
  static const std::vector<std::unique_ptr<DupsRule>> Rules = [] {
    std::vector<std::unique_ptr<DupsRule>> R;
    R.push_back(std::make_unique<dups::StrongDuplicate>());
    R.push_back(std::make_unique<dups::StrongWeakDuplicate>());
    R.push_back(std::make_unique<dups::WeakDuplicate>());
    R.push_back(std::make_unique<dups::CommonDuplicate>());
    R.push_back(std::make_unique<dups::LibTorchShimClash>());
    return R;
  }();
  return Rules;
}

const std::vector<std::unique_ptr<LinkRule>> &linkRules() {
  static const std::vector<std::unique_ptr<LinkRule>> Rules = [] {
    std::vector<std::unique_ptr<LinkRule>> R;
    R.push_back(std::make_unique<link::MemberNotPulledIn>());
    R.push_back(std::make_unique<link::NotExported>());
    R.push_back(std::make_unique<link::DiscardedByGc>());
    R.push_back(std::make_unique<link::MadeLocal>());
    R.push_back(std::make_unique<link::NotDefined>());
    R.push_back(std::make_unique<link::DroppedAsNeeded>());
    R.push_back(std::make_unique<link::MultipleDefinition>());
    R.push_back(std::make_unique<link::WholeArchiveDuplicate>());
    R.push_back(std::make_unique<link::UndefinedReference>());
    R.push_back(std::make_unique<link::LldOnly>());
    R.push_back(std::make_unique<link::InputProblem>());
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
