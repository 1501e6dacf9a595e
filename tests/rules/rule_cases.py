#!/usr/bin/env python3
"""One focused test for each rule that no agreement suite pins down itself.

Most rules have a case of their own in an agreement suite: the check rules in
tests/loader (against ld.so), the dups rules in tests/dups and the link rules
in tests/link (against GNU ld and lld), AOTI015 in fallback_rule.py. Three
had none that fails without them: AOTI011 was only in the SARIF test,
nothing at all expected AOTI205, and AOTI210 only in the Mach-O matrix. Each
case here builds its fixtures with the real compiler and linker, asks the
real loader or linker what happens, runs aoti-audit, and asserts

  * the rule's id, severity and what its message names, and its fix text,
    in the JSON report and in the text a person reads;
  * on fixtures that differ in the one way the rule depends on, that the id
    does not appear: so a rule that fires on everything fails too.

ctest registers each case as rules.<ID>.<name> (tests/rules/CMakeLists.txt).

Usage: rule_cases.py --audit PATH [--case NAME] [--list] [--keep]
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402
from harness import Failure, expect  # noqa: E402

# The drivers a link line is written for: gcc runs GNU ld, clang-19 lld.
TOOLCHAINS = {
    "gnu": ["gcc"],
    "lld": ["clang-19", "-fuse-ld=lld"],
}

CASES = harness.Cases()
case = CASES.add


class Build(harness.Workdir):
    """One case's directory: compiles, links, runs, and runs the audit."""

    def __init__(self, audit, root):
        super().__init__(root)
        self.audit = audit

    def so(self, name, src, *flags):
        """A shared library built from C source `src`; its path."""
        out = self.path(name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        c = self.write(os.path.splitext(name)[0] + ".c", src)
        self.run("gcc", "-shared", "-fPIC", "-o", out, c, "-Wl,-soname," + os.path.basename(name), *flags)
        return out

    def obj(self, name, src):
        self.run("gcc", "-c", "-fPIC", "-o", name, self.write(os.path.splitext(name)[0] + ".c", src))
        return name

    def audit_json(self, *args, rc):
        """aoti-audit ARGS --format json (no configuration file): the report."""
        r = self.run(self.audit, args[0], "--no-config", "--format", "json", *args[1:], check=False)
        expect(r.returncode == rc, "aoti-audit %s exited %d, expected %d:\n%s%s" %
               (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
        try:
            return json.loads(r.stdout)
        except ValueError:
            raise Failure("aoti-audit %s printed no JSON:\n%s%s" % (" ".join(args), r.stdout, r.stderr))

    def audit_text(self, *args):
        return self.run(self.audit, args[0], "--no-config", "--color", "never", *args[1:], check=False).stdout


def with_rule(findings, rule):
    return [f for f in findings if f["rule"] == rule]


def expect_text(text, *parts):
    for p in parts:
        expect(p in text, "expected %r in the text report:\n%s" % (p, text))


# --- AOTI011 symbol-interposition (check) -------------------------------------

HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
/* Opens the model RTLD_NOW | RTLD_LOCAL, as a model host does, and runs it. */
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("FAILED %s\n", dlerror()); return 1; }
  int (*run)(void) = (int (*)(void))dlsym(h, "model_run");
  printf("RAN %d\n", run());
  return 0;
}
"""
INTERPOSITION_FIX = "if the override is not intended, remove the extra definition or give it hidden visibility"
BIND_RE = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")


def loader_binding(b, host, model, sym):
    """What ld.so bound the model's `sym` to (LD_DEBUG=bindings), and what
    the model's run returned."""
    env = dict(os.environ, LD_DEBUG="bindings")
    env.pop("LD_LIBRARY_PATH", None)
    r = b.run(host, model, env=env, check=False)
    bound = [dst for src, dst, s in BIND_RE.findall(r.stderr)
             if s == sym and os.path.basename(src) == os.path.basename(model)]
    m = re.search(r"RAN (-?\d+)", r.stdout)
    expect(m and len(bound) == 1, "the host did not run the model:\n%s%s" % (r.stdout, r.stderr[-2000:]))
    return bound[0], int(m.group(1))


@case
def AOTI011_symbol_interposition(b):
    """two loaded libraries define helper(), which the model calls: the first interposes, AOTI011 with --all"""
    b.so("lib/liba.so", "int helper(void) { return 1; }\n")
    b.so("lib/libb.so", "int helper(void) { return 2; }\n")
    b.so("lib/libw.so", "__attribute__((weak)) int helper(void) { return 3; }\n")
    b.so("lib/libdata.so", "int counter = 5;\n")
    model = b.so("model.so", "int helper(void);\nint model_run(void) { return helper(); }\n")
    model_data = b.so("model_data.so", "extern int counter;\nint model_run(void) { return counter; }\n")
    host_c = b.write("host.c", HOST_C)
    lib = ["-L" + b.path("lib"), "-Wl,--no-as-needed"]
    rpath = "-Wl,-rpath," + b.path("lib")

    def host(name, *libs, flags=()):
        b.run("gcc", *flags, "-o", b.path(name), host_c, *lib, *libs, rpath, "-ldl")
        return b.path(name)

    both = host("host", "-la", "-lb")
    # The loader: liba.so, first in lookup order, serves the model; libb.so's
    # helper is interposed.
    dst, ran = loader_binding(b, both, model, "helper")
    expect(os.path.basename(dst) == "liba.so" and ran == 1,
           "ld.so bound helper to %s (returned %d), expected liba.so (1)" % (dst, ran))

    rep = b.audit_json("check", "--host", both, "--all", model, rc=0)
    mine = with_rule(rep["findings"], "AOTI011")
    expect(len(mine) == 1, "expected one AOTI011 finding, got %s" % rep["findings"])
    f = mine[0]
    expect(f["symbol"] == "helper" and f["severity"] == "warning", f)
    expect(os.path.realpath(f["file"]) == os.path.realpath(dst), "the winner is %s, ld.so says %s" % (f["file"], dst))
    expect("`liba.so` (wins)" in f["message"] and "`libb.so`" in f["message"], f["message"])
    expect(f["fix"] == INTERPOSITION_FIX, f["fix"])
    expect(rep["plugins"][0]["ok"], "a warning must not fail the plugin: %s" % rep["plugins"][0])
    expect_text(b.audit_text("check", "--host", both, "--all", model),
                "warning[AOTI011] symbol-interposition: `helper` is defined by 2 objects in scope",
                "fix: " + INTERPOSITION_FIX)

    # Not without --all: helper is no required (aoti_torch_*) name.
    rep = b.audit_json("check", "--host", both, model, rc=0)
    expect(not with_rule(rep["findings"], "AOTI011"), "AOTI011 without --all: %s" % rep["findings"])

    # One definition: nothing is interposed.
    one = host("host_one", "-la")
    rep = b.audit_json("check", "--host", one, "--all", model, rc=0)
    expect(not with_rule(rep["findings"], "AOTI011"), "AOTI011 with one definition: %s" % rep["findings"])

    # The second definition is weak: weak definitions exist to be overridden.
    weak = host("host_weak", "-la", "-lw")
    dst, ran = loader_binding(b, weak, model, "helper")
    expect(os.path.basename(dst) == "liba.so" and ran == 1, "ld.so bound helper to %s (%d)" % (dst, ran))
    rep = b.audit_json("check", "--host", weak, "--all", model, rc=0)
    expect(not with_rule(rep["findings"], "AOTI011"), "AOTI011 for a weak definition: %s" % rep["findings"])

    # A copy relocation: the non-PIE host's copy of libdata.so's counter is
    # the one every object uses, by design (the host wrote 7 into it, the
    # model reads 7).
    b.write("host_copy.c", HOST_C.replace("int main(", "extern int counter;\nint main(")
            .replace("void *h =", "counter = 7;\n  void *h ="))
    b.run("gcc", "-no-pie", "-fno-pic", "-o", b.path("host_copy"), b.path("host_copy.c"), *lib, "-ldata",
          rpath, "-ldl")
    relocs = b.run("readelf", "-r", b.path("host_copy")).stdout
    expect(re.search(r"R_X86_64_COPY\s+\S+\s+counter", relocs), "no copy relocation for counter:\n" + relocs)
    dst, ran = loader_binding(b, b.path("host_copy"), model_data, "counter")
    expect(os.path.basename(dst) == "host_copy" and ran == 7, "ld.so bound counter to %s (%d)" % (dst, ran))
    rep = b.audit_json("check", "--host", b.path("host_copy"), "--all", model_data, rc=0)
    expect(not with_rule(rep["findings"], "AOTI011"), "AOTI011 for a copy relocation: %s" % rep["findings"])


# --- AOTI205 link-not-defined (link) ------------------------------------------

NOT_DEFINED_FIX = "add the shim archive (or the object or library that defines it) to the link line, force-linked"
INPUT_SOURCES = {
    "shim_a.o": "int aoti_torch_a(void) { return 1; }\n",
    "main_plain.o": "int main(void) { return 0; }\n",
}


def link_fixtures(b):
    for name, src in INPUT_SOURCES.items():
        b.obj(name, src)
    b.run("ar", "rcs", "libshims.a", "shim_a.o")


def nm_dynamic(b, path):
    out = b.run("nm", "-D", "--defined-only", path).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@case
def AOTI205_link_not_defined(b):
    """--require names a shim that no input on the line defines: AOTI205 names it and the inputs read"""
    link_fixtures(b)
    b.write("need.txt", "# what the model needs\naoti_torch_a\naoti_torch_missing\n")
    b.write("need_ok.txt", "aoti_torch_a\n")
    for tc, driver in TOOLCHAINS.items():
        out = "runner-" + tc
        line = driver + ["main_plain.o", "-Wl,--whole-archive", "libshims.a", "-Wl,--no-whole-archive",
                         "-rdynamic", "-o", out]
        # The linker: the line links, and exports aoti_torch_a; nothing on it
        # defines aoti_torch_missing, so no flag could export it.
        r = b.run(*line, check=False)
        expect(r.returncode == 0, "%s: the link failed:\n%s" % (tc, r.stderr))
        exported = nm_dynamic(b, b.path(out))
        expect("aoti_torch_a" in exported and "aoti_torch_missing" not in exported,
               "%s: the output exports %s" % (tc, sorted(n for n in exported if n.startswith("aoti_"))))

        rep = b.audit_json("link", "--require", "need.txt", "--", *line, rc=1)
        mine = with_rule(rep["links"][0]["findings"], "AOTI205")
        expect([f["symbol"] for f in mine] == ["aoti_torch_missing"], "%s: AOTI205 findings %s" % (tc, mine))
        f = mine[0]
        expect(f["severity"] == "error" and "required by need.txt" in f["message"], f)
        expect(f["fix"] == NOT_DEFINED_FIX, f["fix"])
        # The message names the first inputs read, so that a wrong file where
        # the shim archive should be shows. (With the driver asked, its crt
        # files come first and fill the four places: hence without it here.)
        quiet = b.audit_json("link", "--require", "need.txt", "--no-driver-query", "--", *line, rc=1)
        msg = with_rule(quiet["links"][0]["findings"], "AOTI205")[0]["message"]
        expect("the line's inputs: main_plain.o, libshims.a" in msg, "%s: %s" % (tc, msg))
        status = {q["name"]: q["status"] for q in rep["links"][0]["required"]}
        expect(status == {"aoti_torch_a": "exported", "aoti_torch_missing": "not-defined"}, status)
        expect_text(b.audit_text("link", "--require", "need.txt", "--", *line),
                    "error[AOTI205] link-not-defined: nothing on the link line defines `aoti_torch_missing`",
                    "fix: " + NOT_DEFINED_FIX)

        # Every required name defined (and exported): no AOTI205, exit 0.
        rep = b.audit_json("link", "--require", "need_ok.txt", "--", *line, rc=0)
        expect(not with_rule(rep["links"][0]["findings"], "AOTI205"), rep["links"][0]["findings"])


# --- AOTI210 link-input-problem (link) ----------------------------------------

@case
def AOTI210_link_input_problem(b):
    """a library no -L directory holds, a missing object, an archive without an index: AOTI210 when the linker stops"""
    link_fixtures(b)
    b.run("ar", "rcS", "libnoindex.a", "shim_a.o")  # S: no symbol index
    # (words after the driver, the text the linker stops with, the message, the fix)
    problems = [
        (["-L.", "-lnope"], {"gnu": "cannot find -lnope", "lld": "unable to find library -lnope"},
         "cannot find -lnope",
         "add -L<dir> for the directory that holds libnope.so or libnope.a, or build it first"),
        (["gone.o"], {"gnu": "gone.o: No such file", "lld": "no such file or directory: 'gone.o'"},
         "gone.o: no such file", "build it first, or fix the path"),
        # GNU ld needs an archive's index; lld builds one itself.
        (["libnoindex.a"], {"gnu": "archive has no index; run ranlib to add one", "lld": None},
         "archive has no index; run ranlib to add one",
         "run `ranlib libnoindex.a` (or build it with `ar rcs`)"),
        # An executable is no link input for GNU ld, PIE or not; lld
        # refuses an ET_EXEC and links against a PIE as against a library.
        (["exe_pie"], {"gnu": "cannot use executable file", "lld": None},
         "cannot use executable file '",
         "link the shared library or objects that provide what exe_pie defines, or rebuild exe_pie "
         "if it is damaged"),
        (["exe_fixed"], {"gnu": "cannot use executable file", "lld": "unknown file type"},
         {"gnu": "cannot use executable file '", "lld": "exe_fixed: unknown file type"},
         "link the shared library or objects that provide what exe_fixed defines, or rebuild "
         "exe_fixed if it is damaged"),
    ]
    b.write("exe.c", "int aoti_torch_exe(void) { return 0; }\nint main(void) { return 0; }\n")
    b.run("gcc", "-pie", "-fPIE", "-rdynamic", "-o", "exe_pie", "exe.c")
    b.run("gcc", "-no-pie", "-rdynamic", "-o", "exe_fixed", "exe.c")
    for tc, driver in TOOLCHAINS.items():
        for words, stops, message, fix in problems:
            if isinstance(message, dict):
                message = message[tc]
            line = driver + ["main_plain.o"] + words + ["-o", "runner-" + tc]
            r = b.run(*line, check=False)
            if stops[tc] is None:
                # The linker takes it: so must the audit.
                expect(r.returncode == 0, "%s %s: the link failed:\n%s" % (tc, words, r.stderr))
                rep = b.audit_json("link", "--require-from", "libshims.a", "--", *line, rc=1)
                expect(not with_rule(rep["links"][0]["findings"], "AOTI210"),
                       "%s %s: AOTI210 where the linker links: %s" % (tc, words, rep["links"][0]["findings"]))
                continue
            expect(r.returncode != 0 and stops[tc] in r.stderr,
                   "%s %s: expected the link to stop with %r:\n%s" % (tc, words, stops[tc], r.stderr))
            rep = b.audit_json("link", "--require-from", "libshims.a", "--", *line, rc=1)
            mine = with_rule(rep["links"][0]["findings"], "AOTI210")
            expect(len(mine) == 1, "%s %s: AOTI210 findings %s" % (tc, words, rep["links"][0]["findings"]))
            f = mine[0]
            expect(f["severity"] == "error" and message in f["message"], "%s %s: %s" % (tc, words, f))
            expect(f["fix"] == fix, "%s %s: fix %r" % (tc, words, f["fix"]))
            expect(rep["links"][0]["ok"] is False, "%s %s: a link that stops is not ok" % (tc, words))
            expect_text(b.audit_text("link", "--require-from", "libshims.a", "--", *line),
                        "error[AOTI210] link-input-problem: " + message, "fix: " + fix)

        # Every input there and usable: no AOTI210, and the link succeeds.
        line = driver + ["main_plain.o", "-L.", "-Wl,--whole-archive", "-lshims", "-Wl,--no-whole-archive",
                         "-rdynamic", "-o", "runner-" + tc]
        r = b.run(*line, check=False)
        expect(r.returncode == 0, "%s: the clean link failed:\n%s" % (tc, r.stderr))
        rep = b.audit_json("link", "--require-from", "libshims.a", "--", *line, rc=0)
        expect(not with_rule(rep["links"][0]["findings"], "AOTI210"), rep["links"][0]["findings"])


def main():
    ap = harness.parser(__doc__, audit_required=False)
    args = ap.parse_args()
    if args.list:
        return harness.list_cases(CASES)
    if not args.audit:
        ap.error("--audit is required")
    selected = harness.select(CASES, args.case)
    if selected is None:
        return 2
    skip = harness.skip_unless(("gcc", "clang-19", "ar", "nm", "readelf"))
    if skip:
        return skip
    audit = os.path.abspath(args.audit)
    tally = harness.Tally()
    for c in selected:
        problems = []
        with harness.scratch("aoti-rule-%s-" % c.__name__, keep=lambda: args.keep or problems) as root:
            try:
                c(Build(audit, root))
            except Failure as e:
                problems = [e]
            tally.row(problems, "%s: %s" % (c.__name__, c.__doc__.strip()))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
