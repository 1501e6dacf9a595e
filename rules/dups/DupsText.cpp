//===- DupsText.cpp - Wording shared by the dups rules --------------------===//
#include "DupsRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::dupstext {

std::string quote(const Duplicate &D) {
  return "`" + D.displayName().str() + "`";
}

std::string definitions(const Duplicate &D,
                        std::optional<DefinitionStrength> Only) {
  std::string L;
  for (const DuplicateDefinition &DD : D.Definitions) {
    if (Only && DD.Strength != *Only)
      continue;
    L += (L.empty() ? "`" : ", `") + DD.displayName() + "`";
  }
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
