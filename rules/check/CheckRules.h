//===- CheckRules.h - The rules of `aoti-audit check` ---------------------===//
#ifndef AOTI_RULES_CHECK_CHECKRULES_H
#define AOTI_RULES_CHECK_CHECKRULES_H

#include "FixText.h"
#include "aoti/audit/Check.h"
#include "aoti/rules/Rule.h"

#include <optional>
#include <string>

namespace aoti::rules::check {

#define AOTI_CHECK_RULE(Class)                                                 \
  class Class final : public CheckRule {                                       \
  public:                                                                      \
    const RuleInfo &info() const override;                                     \
    void check(const audit::CheckFacts &Facts,                                 \
               std::vector<Finding> &Out) const override;                      \
  };

AOTI_CHECK_RULE(UndefinedSymbol)        // AOTI001
AOTI_CHECK_RULE(SymbolNotExported)      // AOTI002
AOTI_CHECK_RULE(ArchiveMemberNotLinked) // AOTI003
AOTI_CHECK_RULE(HiddenDefinition)       // AOTI004
AOTI_CHECK_RULE(ProviderOutsideScope)   // AOTI005
AOTI_CHECK_RULE(SymbolVersionMismatch)  // AOTI006
AOTI_CHECK_RULE(MissingVersionNode)     // AOTI007
AOTI_CHECK_RULE(LibraryNotFound)        // AOTI008
AOTI_CHECK_RULE(DuplicateProvider)      // AOTI009
AOTI_CHECK_RULE(LibTorchClash)          // AOTI010
AOTI_CHECK_RULE(SymbolInterposition)    // AOTI011
AOTI_CHECK_RULE(WeakUnresolved)         // AOTI012
AOTI_CHECK_RULE(ExecutableNotLoadable)  // AOTI013
AOTI_CHECK_RULE(StaticHost)             // AOTI014
AOTI_CHECK_RULE(FallbackNotImplemented) // AOTI015

#undef AOTI_CHECK_RULE

/// Calls Fn for every missing symbol of every plugin with the given reason.
template <typename Fn>
void forEachMissing(const audit::CheckFacts &F, audit::MissingReason R, Fn &&Do) {
  for (const audit::PluginFacts &P : F.Plugins)
    for (const audit::SymbolFacts &S : P.Symbols)
      if (S.Status == audit::SymbolStatus::Missing && S.Reason == R)
        Do(P, S);
}

/// "`a.so` (wins), `b.so`".
std::string providerList(const audit::CheckFacts &F, const audit::SymbolFacts &S);
bool hasLibTorchProvider(const audit::CheckFacts &F, const audit::SymbolFacts &S);

/// Whether this build's libaoti_shims.so exports Name (the list generated
/// from its dynamic symbols, FallbackNotImplemented.cpp); nullopt when the
/// shims were not part of the build.
std::optional<bool> projectShimsExport(llvm::StringRef Name);

} // namespace aoti::rules::check

#endif
