//===- InputProblem.cpp - AOTI210 -----------------------------------------===//
//
// The link cannot read an input: a library no search directory holds, a file
// that does not exist (yet), an archive without a symbol index (GNU ld needs
// one). The link fails, and the replay is incomplete without the input.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &InputProblem::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "an input on the link line cannot be found or read"};
  return I;
}

void InputProblem::check(const LinkFacts &F,
                             std::vector<Finding> &Out) const {
  for (const audit::InputProblem &P : F.Result.Problems) {
    Finding Fd = make();
    const LinkInput &In = F.Inputs[P.Input];
    Fd.File = In.Path.empty() ? In.AsWritten : F.displayPath(In.Path);
    Fd.Message = P.Message;
    if (P.Refused)
      Fd.Fix = formatv("link the shared library or objects that provide what "
                       "{0} defines, or rebuild {0} if it is damaged",
                       Fd.File)
                   .str();
    else if (In.InputKind == LinkInput::Kind::Archive)
      Fd.Fix = formatv("run `ranlib {0}` (or build it with `ar rcs`)",
                       Fd.File)
                   .str();
    else if (In.AsWritten.starts_with("-l"))
      Fd.Fix = formatv("add -L<dir> for the directory that holds lib{0}.so "
                       "or lib{0}.a, or build it first",
                       StringRef(In.AsWritten).drop_front(2))
                   .str();
    else
      Fd.Fix = "build it first, or fix the path";
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
