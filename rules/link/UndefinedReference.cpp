//===- UndefinedReference.cpp - AOTI208 -----------------------------------===//
//
// A non-weak reference that nothing resolves stops the link: from a linked
// object (always, for an executable; with -z defs for a shared library), or
// from a shared library on the line (--no-allow-shlib-undefined, the default
// for executables). With --gc-sections only references from live sections
// count. The usual cause under GNU ld is order: the archive that defines the
// name was read before the object that needs it.
//
//===----------------------------------------------------------------------===//
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &UndefinedReference::info() const {
  static const RuleInfo I{Id, Name,
                          Severity::Error,
                          "a reference nothing on the link line resolves: "
                          "the link fails"};
  return I;
}

void UndefinedReference::check(const LinkFacts &F,
                                   std::vector<Finding> &Out) const {
  const fixtext::Vocabulary &V = fixtext::vocabularyFor(F);
  for (const audit::UndefinedReference &U : F.Result.Undefined) {
    Finding Fd = make();
    Fd.Symbol = U.Symbol;
    // Named as the linker names it (demangled), so that the finding and
    // the linker's error can be matched by eye.
    std::string Shown = fixtext::linkerSpelling(F, U.Symbol);
    std::string Q = fixtext::quote(Shown);
    if (U.RequireDefined) {
      // A required name the line does not list with -u is the entry point,
      // where the linker fails on one.
      bool Entry = V.UndefinedEntryFails &&
                   std::find(F.Line.Undefined.begin(), F.Line.Undefined.end(),
                             U.Symbol) == F.Line.Undefined.end();
      Fd.File = F.displayPath(F.Line.Output);
      Fd.Message = Entry ? fixtext::phrase(V.UndefinedEntryMessage, Q, U.Symbol)
                         : fixtext::phrase(V.RequireDefinedMessage, U.Symbol);
      Fd.Fix = Entry ? V.UndefinedEntryFix.str()
                     : "add what defines it, or drop the option";
      Out.push_back(std::move(Fd));
      continue;
    }
    std::string By = U.ByObject >= 0 ? F.objectName(F.Result, U.ByObject)
                                     : F.inputName(U.BySharedInput);
    Fd.File = By;
    Fd.Message = formatv("{0} refers to {1}, which nothing the link takes "
                         "defines; {2} stops with \"undefined {3}\"",
                         By, Q, fixtext::linkerName(F),
                         F.Line.Flavor != LinkFlavor::GNU ? "symbol: " + Shown
                                                          : "reference to `" +
                                                                Shown + "'")
                     .str();
    if (V.InputOrderMatters && U.DefinedInInput >= 0) {
      std::string W = fixtext::quote(fixtext::written(F, U.DefinedInInput));
      Fd.Message += formatv(" ({0} defines it, but is read before the "
                            "reference and GNU ld does not go back)",
                            W)
                        .str();
      Fd.Fix = formatv("move {0} after {1} on the line, or put both in "
                       "`-Wl,--start-group … -Wl,--end-group`",
                       W, By)
                   .str();
    } else {
      bool Plugin = F.Line.OutputKind == LinkOutputKind::Bundle ||
                    F.Line.OutputKind == LinkOutputKind::SharedLibrary;
      Fd.Fix = formatv("add the object or library that defines {0} to the "
                       "link line{1}{2}",
                       Q, fixtext::phrase(V.AddDefinerWhere, By),
                       Plugin ? V.PluginMayLeaveUndefined : "")
                   .str();
    }
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
