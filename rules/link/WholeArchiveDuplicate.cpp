//===- WholeArchiveDuplicate.cpp - AOTI207 --------------------------------===//
//
// A duplicate between archive members stays silent while the link never
// extracts both. Force-linking the shim archive (the fix for AOTI201)
// extracts every member, and the replay with that fix shows the strong
// definitions it would then hit.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &WholeArchiveDuplicate::info() const {
  static const RuleInfo I{Id, Name,
                          Severity::Warning,
                          "force-linking the shim archive would add a "
                          "multiple definition the link does not hit today"};
  return I;
}

void WholeArchiveDuplicate::check(const LinkFacts &F,
                                      std::vector<Finding> &Out) const {
  if (!F.Fixed)
    return;
  std::string Archives;
  for (unsigned I : F.FixWholeArchive)
    Archives += (Archives.empty() ? "" : ", ") +
                fixtext::quote(fixtext::written(F, int(I)));
  for (const audit::MultipleDefinition &M : F.AddedByFix) {
    Finding Fd = make();
    Fd.Symbol = M.Symbol;
    std::string A = F.objectName(*F.Fixed, M.First);
    std::string B = F.objectName(*F.Fixed, M.Second);
    Fd.File = B;
    Fd.Message = formatv("force-linking {0} extracts {1}, which defines {2} "
                         "as {3} already does: the link would stop with "
                         "\"multiple definition of `{2}'\"",
                         Archives, B, M.Symbol, A)
                     .str();
    Fd.Fix = formatv("remove the duplicate definition of {0} from one of the "
                     "members before force-linking (today neither link "
                     "notices, because one member is never extracted)",
                     fixtext::quote(M.Symbol))
                 .str();
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
