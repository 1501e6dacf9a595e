#!/usr/bin/env python3
"""ELF and Mach-O twins: the same mistake gets the same verdict on both.

Each case builds one host and one model twice, with each platform's own
spelling of the same link: an ELF host (gcc, GNU ld) with a plain model .so,
and a Mach-O host (clang-19 -target arm64-apple-macos11, ld64.lld-19) with an
`-undefined dynamic_lookup` model bundle. `aoti-audit check` judges both. A
case passes only when

  * on ELF, the real loader agrees: the host dlopen()s the model
    (RTLD_NOW | RTLD_LOCAL) and succeeds exactly when the audit says it loads;
  * the Mach-O verdict is the ELF one: the same exit status, the same status
    for every shim (`_` prefix aside), and each platform's expected rule, whose
    fix is in that platform's terms.

Nothing runs dyld here; the Mach-O side's facts are cross-checked against
LLVM's dumpers by macho_cases.py, and its link lines against ld64.lld by
tests/link/link_matrix_macho.py.

Usage: twins.py --audit PATH [--case NAME] [--keep] [--list]
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402
from harness import Failure  # noqa: E402

SHIMS_C = "int aoti_torch_a(void) { return 1; }\nint aoti_torch_d(void) { return 4; }\n"
MODEL_C = ("int aoti_torch_a(void);\nint aoti_torch_d(void);\n"
           "int t_model_run(void) { return aoti_torch_a() + aoti_torch_d(); }\n")
ELF_HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  return 0;
}
"""
MACHO_HOST_C = "int main(void) { return 0; }\n"
SHIMS = ["aoti_torch_a", "aoti_torch_d"]
LIBSYSTEM_TBD = """--- !tapi-tbd
tbd-version: 4
targets: [ arm64-macos ]
install-name: '/usr/lib/libSystem.B.dylib'
current-version: 1319
exports:
  - targets: [ arm64-macos ]
    symbols: [ dyld_stub_binder, _malloc, _free, _printf, _dlopen, _dlerror ]
...
"""


class Side:
    """One platform's fixtures in one directory."""

    def __init__(self, root, case, kind):
        self.kind = kind
        self.dir = os.path.join(root, case, kind)
        os.makedirs(self.dir)
        for name, text in (("shims.c", SHIMS_C), ("model.c", MODEL_C),
                           ("host.c", ELF_HOST_C if kind == "elf" else MACHO_HOST_C)):
            self.write(name, text)
        if kind == "macho":
            self.tbd = self.write("libSystem.tbd", LIBSYSTEM_TBD)

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def sh(self, *cmd, env=None, ok=True):
        return harness.run(cmd, cwd=self.dir, check=ok, env=env)

    def obj(self, name):
        if self.kind == "elf":
            self.sh("gcc", "-c", "-O1", "-fPIC", name + ".c", "-o", name + ".o")
        else:
            self.sh("clang-19", "-target", "arm64-apple-macos11", "-c", "-O1", name + ".c",
                    "-o", name + ".o")
        return name + ".o"

    def link(self, out, *words):
        if self.kind == "elf":
            self.sh("gcc", "-o", out, *words, "-ldl")
        else:
            self.sh("ld64.lld-19", "-arch", "arm64", "-platform_version", "macos", "11.0",
                    "11.0", *words, self.tbd, "-o", out)
        return out

    def archive(self, out, *objs):
        self.sh("llvm-ar-19", "rcs", out, *objs)
        return out

    def model(self):
        m = self.obj("model")
        if self.kind == "elf":
            return self.link("model.so", "-shared", m)
        return self.link("model.so", "-bundle", "-undefined", "dynamic_lookup", m)

    def shared(self, out, *words, install_name=None):
        """A shared library (ELF .so, Mach-O dylib)."""
        if self.kind == "elf":
            return self.link(out, "-shared", *words)
        return self.link(out, "-dylib", "-install_name", install_name or "@rpath/" + out, *words)

    def check(self, args, host, model, extra=()):
        p = self.sh(args.audit, "check", "--format", "json", "--host", host, *extra, model,
                    ok=False)
        if p.returncode not in (0, 1):
            raise Failure("aoti-audit check exit %d: %s" % (p.returncode, p.stderr))
        doc = json.loads(p.stdout)
        plugin = doc["plugins"][0]
        status = {s["name"].lstrip("_"): s["status"] for s in plugin["symbols"]
                  if s["name"].lstrip("_") in SHIMS}
        return {"rc": p.returncode, "loads": plugin["loads"], "status": status,
                "rules": sorted({f["rule"] for f in doc["findings"]}),
                "fixes": " ".join(f.get("fix") or "" for f in doc["findings"])}


# --- the cases: each builds (host, model, audit args, loader env) per side ---

def exported(s):
    """The host links the shims' object and exports them."""
    flags = ["-rdynamic"] if s.kind == "elf" else []
    return s.link("host", s.obj("host"), s.obj("shims"), *flags), s.model(), [], {}


def not_exported(s):
    """The host links the shims but its dynamic exports leave them out."""
    if s.kind == "elf":
        host = s.link("host", s.obj("host"), s.obj("shims"))  # no -rdynamic
    else:
        lst = s.write("exports.txt", "_main\n")
        host = s.link("host", s.obj("host"), s.obj("shims"), "-exported_symbols_list", lst)
    return host, s.model(), [], {}


def force_loaded(s):
    """The shim archive, force-linked and exported."""
    lib = s.archive("libshims.a", s.obj("shims"))
    if s.kind == "elf":
        host = s.link("host", s.obj("host"), "-Wl,--whole-archive", lib,
                      "-Wl,--no-whole-archive", "-rdynamic")
    else:
        host = s.link("host", s.obj("host"), "-force_load", lib)
    return host, s.model(), ["--archive", lib], {}


def not_force_loaded(s):
    """The shim archive, linked plainly: nothing calls the shims, so no member is taken."""
    lib = s.archive("libshims.a", s.obj("shims"))
    flags = ["-rdynamic"] if s.kind == "elf" else []
    host = s.link("host", s.obj("host"), lib, *flags)
    return host, s.model(), ["--archive", lib], {}


def two_providers(s):
    """The host exports the shims and a preloaded library defines them too."""
    host, model, _, _ = exported(s)
    other = s.shared("libother.so" if s.kind == "elf" else "libother.dylib", "shims.o")
    path = os.path.join(s.dir, other)
    env = {"LD_PRELOAD": path} if s.kind == "elf" else {}
    return host, model, ["--preload", path], env


def missing_reexport(s):
    """The shims come from a library the host's dependency brings in, and it is gone."""
    if s.kind == "elf":
        lib = s.shared("libshims.so", s.obj("shims"))
        mid = s.shared("libmid.so", "-L.", "-Wl,--no-as-needed", "-lshims")
        host = s.link("host", s.obj("host"), "-L.", "-Wl,--no-as-needed", "-lmid",
                      "-Wl,-rpath,$ORIGIN")
    else:
        lib = s.shared("libshims.dylib", s.obj("shims"),
                       install_name="@loader_path/libshims.dylib")
        mid = s.shared("libmid.dylib", "-reexport_library", lib)
        host = s.link("host", s.obj("host"), mid, "-rpath", "@executable_path")
    os.remove(os.path.join(s.dir, lib))
    return host, s.model(), [], {}


# name, builder, the verdict both must reach (rc, every shim's status), and
# each platform's rule.
CASES = [
    ("exported", exported, 0, "bound", {"elf": [], "macho": []}),
    ("not-exported", not_exported, 1, "missing", {"elf": ["AOTI002"], "macho": ["AOTI004"]}),
    ("force-loaded", force_loaded, 0, "bound", {"elf": [], "macho": []}),
    ("not-force-loaded", not_force_loaded, 1, "missing",
     {"elf": ["AOTI003"], "macho": ["AOTI003"]}),
    ("two-providers", two_providers, 1, "ambiguous", {"elf": ["AOTI009"], "macho": ["AOTI009"]}),
    ("missing-reexport", missing_reexport, 1, "missing",
     {"elf": ["AOTI008"], "macho": ["AOTI008"]}),
]
FIX_WORDS = {  # each platform's spelling of the fix, per rule
    ("elf", "AOTI003"): "--whole-archive", ("macho", "AOTI003"): "-force_load",
    ("elf", "AOTI002"): "-rdynamic", ("macho", "AOTI004"): "-exported_symbols_list",
}


def run_case(args, root, case):
    name, build, rc, status, rules = case
    problems, seen = [], {}
    for kind in ("elf", "macho"):
        s = Side(root, name, kind)
        host, model, extra, env = build(s)
        v = s.check(args, host, model, extra)
        seen[kind] = v
        if v["rc"] != rc:
            problems.append("%s: exit %d, expected %d (%s)" % (kind, v["rc"], rc, v["rules"]))
        for shim in SHIMS:
            if v["status"].get(shim) != status:
                problems.append("%s: %s is %s, expected %s" % (kind, shim, v["status"].get(shim),
                                                               status))
        for r in rules[kind]:
            if r not in v["rules"]:
                problems.append("%s: no %s finding (%s)" % (kind, r, v["rules"]))
            word = FIX_WORDS.get((kind, r))
            if word and word not in v["fixes"]:
                problems.append("%s: the %s fix does not say %s: %s" % (kind, r, word,
                                                                        v["fixes"][:200]))
        if kind == "elf":  # the real loader is the oracle
            e = dict(os.environ)
            e.update(env)
            p = s.sh(os.path.join(s.dir, host), os.path.join(s.dir, model), env=e, ok=False)
            if (p.returncode == 0) != v["loads"]:
                problems.append("elf: dlopen %s, the audit says it %s (%s)" %
                                ("succeeds" if p.returncode == 0 else "fails",
                                 "loads" if v["loads"] else "does not load", p.stderr.strip()))
    if seen["elf"]["status"] != seen["macho"]["status"] or seen["elf"]["rc"] != seen["macho"]["rc"]:
        problems.append("the twins differ: ELF %s, Mach-O %s" % (seen["elf"], seen["macho"]))
    return problems, seen


def main():
    args = harness.parser(__doc__).parse_args()
    if args.list:
        for c in CASES:
            print("%-18s %s" % (c[0], c[1].__doc__.strip()))
        return 0
    cases = harness.select(CASES, args.case, name_of=lambda c: c[0])
    if cases is None:
        return 2
    skip = harness.skip_unless(("gcc", "clang-19", "ld64.lld-19", "llvm-ar-19"))
    if skip:
        return skip
    with harness.scratch("aoti-twins-", keep=args.keep) as root:
        tally = harness.Tally()
        for case in cases:
            try:
                problems, seen = run_case(args, root, case)
            except Failure as e:
                problems, seen = [str(e)], {}
            rules = "  ".join("%s %s" % (k, ",".join(v["rules"]) or "-") for k, v in seen.items())
            tally.row(problems, "%-18s %s  [%s]" % (case[0], case[1].__doc__.strip(), rules))
        print("%d twin case(s): %d agree (ELF verdicts confirmed by ld.so)" %
              (len(cases), tally.passed))
        return tally.status()


if __name__ == "__main__":
    sys.exit(main())
