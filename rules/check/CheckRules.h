//===- CheckRules.h - The rules of `aoti-audit check` ---------------------===//
#ifndef AOTI_RULES_CHECK_CHECKRULES_H
#define AOTI_RULES_CHECK_CHECKRULES_H

#include "FixText.h"
#include "RuleClass.h"
#include "aoti/audit/Check.h"
#include "aoti/rules/MissingCause.h"

#include <optional>
#include <string>

namespace aoti::rules::check {

#define AOTI_CHECK_RULE(CLASS, ID, NAME)                                       \
  AOTI_DECLARE_RULE(Check, CLASS, ID, NAME)
#include "Rules.def"

/// Calls Do(plugin, symbol, cause) for every missing symbol of every plugin
/// that is reported for the reason R (MissingCause.h decides).
template <typename Fn>
void forEachMissing(const audit::CheckFacts &F, audit::MissingReason R, Fn &&Do) {
  for (const audit::PluginFacts &P : F.Plugins)
    for (const audit::SymbolFacts &S : P.Symbols)
      if (S.Status == audit::SymbolStatus::Missing)
        if (MissingCause C = missingCause(S); C.Reason == R)
          Do(P, S, C);
}

/// "`a.so` (wins), `b.so`".
std::string providerList(const audit::CheckFacts &F, const audit::SymbolFacts &S);
bool hasLibTorchProvider(const audit::CheckFacts &F, const audit::SymbolFacts &S);

/// Whether this build's libaoti_shims.so exports Name (the list generated
/// from its dynamic symbols, FallbackNotImplemented.cpp); nullopt when the
/// shims were not part of the build.
std::optional<bool> projectShimsExport(llvm::StringRef Name);

/// An entry of torch 2.11's fallback list (shims/coverage/torch-2.11.tsv):
/// the op's family (empty unless forward) and kind ("forward", "backward",
/// "sparse").
struct TorchFallback {
  llvm::StringRef Family;
  llvm::StringRef Kind;
};
/// Name's entry in torch 2.11's fallback list, if it has one.
std::optional<TorchFallback> torchFallback(llvm::StringRef Name);

} // namespace aoti::rules::check

#endif
