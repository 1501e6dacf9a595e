//===- StaticHost.cpp - AOTI014 -------------------------------------------===//
//
// The host is a static executable (no PT_INTERP: -static or -static-pie). It
// starts without ld.so, and what it dlopen()s gets a namespace of its own in
// which the executable is in no scope (Loader.cpp): it provides no symbol to a
// plugin, even one in its .dynsym. Every missing reference of such a host
// gets this reason, whatever else is wrong, since no other fix can work
// until the host is linked dynamically.
//
//===----------------------------------------------------------------------===//
#include "CheckRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace aoti::audit;

namespace aoti::rules::check {

const RuleInfo &StaticHost::info() const {
  static const RuleInfo I{Id, Name, Severity::Error,
                          "the host is a static executable: a library it "
                          "dlopen()s never sees the host's symbols"};
  return I;
}

void StaticHost::check(const CheckFacts &F, std::vector<Finding> &Out) const {
  forEachMissing(F, MissingReason::StaticHost,
                 [&](const PluginFacts &P, const SymbolFacts &S, const MissingCause &C) {
    const Binary &Host = *F.host().Bin;
    StringRef H = fixtext::base(F.host().Path);
    bool Defines = !C.Evidence.empty() && C.Evidence.front()->Sym;
    Finding Fd = make();
    Fd.Plugin = P.Path;
    Fd.Symbol = S.Ref->Name.str();
    Fd.File = F.host().Path;
    Fd.Message =
        formatv("{0} is a static{1} executable, so it provides nothing to "
                "what it dlopen()s{2}: {3} binds only to the plugin's own "
                "libraries, and none defines it",
                fixtext::quote(H), Host.markedPie() ? "-pie" : "",
                Defines ? " (it does export " + fixtext::quote(S.Ref->Name) +
                              " in its .dynsym; static dlopen ignores it)"
                        : "",
                fixtext::quote(S.Ref->Name))
            .str();
    Fd.Fix = formatv("link {0} dynamically: drop -static/-static-pie (CMake: "
                     "remove it from the target's link options), then link "
                     "the shims into it as for any host (aoti::shims_static, "
                     "or aoti::shims)",
                     fixtext::quote(H))
                 .str();
    Out.push_back(std::move(Fd));
  });
}

} // namespace aoti::rules::check
