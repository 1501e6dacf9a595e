//===- DupsText.cpp - Wording shared by the dups rules --------------------===//
#include "DupsRules.h"
#include "check/FixText.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dupstext {

std::string quote(const Duplicate &D) {
  return fixtext::quote(D.displayName());
}

std::string definitions(const Duplicate &D,
                        std::optional<DefinitionStrength> Only) {
  // The finding lists every definition anyway; a message names a few.
  constexpr unsigned Named = 4;
  std::string L;
  unsigned N = 0;
  for (const DuplicateDefinition &DD : D.Definitions) {
    if (Only && DD.Strength != *Only)
      continue;
    if (N++ >= Named)
      continue;
    L += L.empty() ? "`" : ", `";
    L.append(DD.File.data(), DD.File.size());
    if (!DD.Member.empty()) {
      L += '(';
      L.append(DD.Member.data(), DD.Member.size());
      L += ')';
    }
    L += '`';
  }
  if (N > Named)
    L += " and " + std::to_string(N - Named) + " more";
  return L;
}

unsigned count(const Duplicate &D, DefinitionStrength S) {
  unsigned N = 0;
  for (const DuplicateDefinition &DD : D.Definitions)
    N += DD.Strength == S;
  return N;
}

std::string linkState(const Duplicate &D) {
  if (!D.Latent)
    return "a plain link of these inputs already pulls in two of them";
  bool Members = false, Shared = false;
  for (const DuplicateDefinition &DD : D.Definitions) {
    Members |= DD.Origin == DefinitionOrigin::ArchiveMember;
    Shared |= DD.Origin == DefinitionOrigin::SharedLibrary;
  }
  std::string How = Members ? "a force-link (--whole-archive, link_whole, "
                              "-force_load)"
                            : "";
  if (Shared)
    How += (How.empty() ? "" : " or ") + std::string("loading both shared "
                                                     "libraries");
  return "latent: no reference among these inputs pulls in two of them; " +
         How + " does";
}

Finding start(Finding F, const Duplicate &D) {
  F.Symbol = D.Name;
  F.File = D.Definitions.front().displayName();
  return F;
}

} // namespace aoti::rules::dupstext
