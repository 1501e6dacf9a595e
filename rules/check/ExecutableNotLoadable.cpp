//===- ExecutableNotLoadable.cpp - AOTI013 --------------------------------===//
//
// An object the loader model records as refused (Loader.cpp): an executable
// given as a plugin or named by a DT_NEEDED, which glibc maps only as the main
// program, or a DF_1_NOOPEN library under dlopen. The load fails whatever its
// symbols say, so this is reported once per refused object, in ld.so's words.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &ExecutableNotLoadable::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "an executable (or a DF_1_NOOPEN library) is "
                          "dlopen()ed or needed; glibc refuses to map it"};
  return I;
}

void ExecutableNotLoadable::check(const CheckFacts &F,
                                  std::vector<Finding> &Out) const {
  auto Emit = [&](const RefusedObject &R, StringRef Plugin) {
    const LoadedObject &O = F.Process->object(R.Object);
    const LoadedObject &Req = F.Process->object(R.Requester);
    bool Asked = O.FoundVia == "dlopen";
    Finding Fd = make();
    Fd.Plugin = Plugin.str();
    Fd.File = O.Path;
    std::string By = Asked ? "dlopen()" : "the DT_NEEDED of " +
                                              fixtext::quote(fixtext::base(Req.Path));
    Fd.Message = formatv("{0} is {1}; {2} fails: \"{3}: {4}\"",
                         fixtext::quote(fixtext::base(O.Path)),
                         O.Bin->noDlopen() && !O.Bin->fixedAddress() &&
                                 !O.Bin->markedPie()
                             ? "marked DF_1_NOOPEN (-z nodlopen)"
                             : O.Bin->fixedAddress()
                                   ? "an executable (ELF type ET_EXEC)"
                                   : "a position-independent executable "
                                     "(DF_1_PIE)",
                         By, O.Path, R.Reason)
                     .str();
    if (O.Bin->noDlopen() && !O.Bin->fixedAddress() && !O.Bin->markedPie())
      Fd.Fix = formatv("link {0} without -z nodlopen, or link the host "
                       "against it instead of opening it",
                       fixtext::quote(fixtext::base(O.Path)))
                   .str();
    else if (!Asked)
      Fd.Fix = formatv("build the code {0} needs from {1} as a shared library "
                       "(-shared -fPIC; CMake: add_library(... SHARED)) and "
                       "link {0} against that: an executable loads only as a "
                       "program of its own",
                       fixtext::quote(fixtext::base(Req.Path)),
                       fixtext::quote(fixtext::base(O.Path)))
                   .str();
    else
      Fd.Fix = formatv("build the model as a shared library (-shared -fPIC; "
                       "CMake: add_library(... SHARED)); an executable loads "
                       "only as a program of its own. If {0} is the program "
                       "that loads models, give it as --host and the model as "
                       "the plugin",
                       fixtext::quote(fixtext::base(O.Path)))
                   .str();
    Out.push_back(std::move(Fd));
  };
  for (const RefusedObject &R : F.HostRefused)
    Emit(R, "");
  for (const PluginFacts &P : F.Plugins)
    for (const RefusedObject &R : P.Refused)
      Emit(R, P.Path);
}

} // namespace aoti::rules::check
