//===- DroppedAsNeeded.cpp - AOTI211 --------------------------------------===//
//
// A required name that a shared library on the line defines, but the output
// will not load that library: it is read under --as-needed (Debian's and
// Ubuntu's gcc pass it by default) and nothing the link takes refers to any
// of its names, so the linker leaves it without DT_NEEDED. A model that the
// host dlopen()s later finds none of its shims. AOTI205 ("nothing defines
// it") would send the user looking for a library that is on the line.
//
//===----------------------------------------------------------------------===//
#include "FixText.h"
#include "LinkRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::link {

const RuleInfo &DroppedAsNeeded::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "--as-needed drops the shared library that defines "
                          "a required symbol"};
  return I;
}

void DroppedAsNeeded::check(const LinkFacts &F,
                                std::vector<Finding> &Out) const {
  for (const RequiredSymbol &Q : F.Required) {
    if (Q.Status != RequiredStatus::DroppedAsNeeded || Q.Input < 0)
      continue;
    Finding Fd = make();
    Fd.Symbol = Q.Name;
    Fd.File = F.inputName(Q.Input);
    std::string W = fixtext::quote(fixtext::written(F, Q.Input));
    Fd.Message =
        formatv("{0} is defined by {1}, which is on the link line under "
                "--as-needed; nothing the link takes refers to it, so {2} "
                "leaves it out of DT_NEEDED and the output never loads it",
                fixtext::quote(Q.Name), W, fixtext::linkerName(F))
            .str();
    Fd.Fix = F.Line.isDriver()
                 ? formatv("keep it: wrap {0} in `-Wl,--push-state,--no-as-"
                           "needed … -Wl,--pop-state` (or put "
                           "`-Wl,--no-as-needed` before it; CMake: "
                           "target_link_options(TARGET PRIVATE "
                           "LINKER:--no-as-needed) before the library)",
                           W)
                       .str()
                 : formatv("keep it: wrap {0} in `--push-state --no-as-needed "
                           "… --pop-state` (or put `--no-as-needed` before "
                           "it)",
                           W)
                       .str();
    Out.push_back(std::move(Fd));
  }
}

} // namespace aoti::rules::link
