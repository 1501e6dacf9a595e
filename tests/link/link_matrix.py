#!/usr/bin/env python3
"""Link agreement matrix: `aoti-audit link` against the real linkers.

Every case is one link line over fixtures compiled at test time. Each line
runs twice: with gcc (GNU ld, the default) and with clang-19 -fuse-ld=lld.
For each run the audit predicts first (`aoti-audit link --format json -- CMD`),
then the real linker links, with -Map (GNU ld) or --why-extract (lld) to say
which archive members it took. A run passes only when

  * the link succeeds exactly when the audit predicts no error, and the
    "multiple definition" / "undefined reference" names it reports are the
    audit's;
  * the archive members the linker extracted are the audit's (libc.a's,
    libgcc.a's and libc_nonshared.a's included);
  * the output's .dynsym (llvm-nm -D --defined-only) and .symtab definitions
    are the audit's, and so are its DT_NEEDED test libraries;
  * the case's own expectation holds (a status, a finding), so a case cannot
    pass by testing nothing;
  * when the audit proposes a fixed command, running it links and exports
    every required name -- or fails with exactly the duplicates the audit
    said the fix would add.

Names compared are the fixtures' own (aoti_torch_*, t_*).

Usage: link_matrix.py --audit PATH [--case NAME] [--keep] [--list]
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import link_agreement as agreement  # noqa: E402
from harness import run  # noqa: E402
from link_agreement import member_key  # noqa: E402

# aoti_uq: the C++ fixtures' namespace, inside mangled names.
NS = re.compile(r"^(aoti_torch_|t_)|aoti_uq")

# The common fixtures (link_agreement.py), then this format's own.
SOURCES = {
    **agreement.COMMON_SOURCES,
    # two shims in one object, for --gc-sections (built with and without
    # -ffunction-sections)
    "gc.c": "int aoti_torch_ga(void) { return 5; }\nint aoti_torch_gb(void) { return 6; }\n",
    # a shared library that refers to a shim
    "use.c": "int aoti_torch_c(void);\nint t_use(void) { return aoti_torch_c(); }\n",
    # mains
    "main_weak.c": "int aoti_torch_a(void) __attribute__((weak));\n"
                   "int main(void) { return aoti_torch_a ? aoti_torch_a() : 0; }\n",
    "main_ga.c": "int aoti_torch_ga(void);\nint main(void) { return aoti_torch_ga(); }\n",
    "main_use.c": "int t_use(void);\nint main(void) { return t_use(); }\n",
    # g++: a static inside an inline function and a template's static
    # member, both STB_GNU_UNIQUE in a COMDAT group, in two objects
    "uq.h": None,
    "uq1.cpp": '#include "uq.h"\nextern "C" int t_uq1(void) { return aoti_uq::count() + aoti_uq::S<int>::v; }\n',
    "uq2.cpp": '#include "uq.h"\nextern "C" int t_uq2(void) { return aoti_uq::count() + aoti_uq::S<int>::v; }\n',
    "main_uq.c": "int t_uq1(void);\nint t_uq2(void);\nint main(void) { return t_uq1() + t_uq2() == 18 ? 0 : 1; }\n",
    # STB_GNU_UNIQUE outside any group: a plain multiple definition
    "uqs_a.s": "\t.globl t_uqs\n\t.type t_uqs, @gnu_unique_object\n\t.data\nt_uqs:\t.long 1\n"
               "\t.section .note.GNU-stack,\"\",@progbits\n",
    "uqs_b.s": "\t.globl t_uqs\n\t.type t_uqs, @gnu_unique_object\n\t.data\nt_uqs:\t.long 2\n"
               "\t.section .note.GNU-stack,\"\",@progbits\n",
    "main_uqs.c": "extern int t_uqs;\nint main(void) { return t_uqs; }\n",
    # a shim whose member needs a name nothing on the line defines
    "shim_needy.c": "int t_missing_dep(void);\nint aoti_torch_needy(void) { return t_missing_dep(); }\n",
    # a C++ reference nothing defines: linkers print it demangled
    "uqref.cpp": 'namespace aoti_uq { int missing(int); }\n'
                 'extern "C" int t_uqref(void) { return aoti_uq::missing(1); }\n',
    "main_uqref.c": "int t_uqref(void);\nint main(void) { return t_uqref(); }\n",
}

FILES = {
    "uq.h": "namespace aoti_uq {\ninline int count() { static int c = 0; return ++c; }\n"
            "template <typename T> struct S { static int v; };\n"
            "template <typename T> int S<T>::v = 7;\n}\n",
    "vs.map": "{ global: aoti_torch_a; local: *; };\n",
    "dl.list": "{ aoti_torch_b; };\n",
    "link.rsp": "main_a.o libshims.a\n",
    "required.txt": "# the shims the model needs\naoti_torch_c\naoti_torch_b\n",
}

WHOLE = ["-Wl,--whole-archive", "libshims.a", "-Wl,--no-whole-archive"]

# name, what it is about, link words (after the driver, before -o),
# expectations: {"gnu"|"lld"|"both": {"status": {sym: status}, "rules": [...],
#                "no_rules": [...], "ok": bool}}
CASES = [
    ("plain-archive", "an archive nothing calls: every shim is left out",
     ["main_plain.o", "libshims.a"],
     {"both": {"status": {"aoti_torch_a": "not-pulled-in"}, "rules": ["AOTI201"]}}),
    ("one-call", "main calls one shim: only its member, and it is not exported",
     ["main_a.o", "libshims.a"],
     {"both": {"status": {"aoti_torch_a": "defined-not-exported",
                          "aoti_torch_b": "not-pulled-in"},
               "rules": ["AOTI201", "AOTI202"]}}),
    ("archive-before-object", "the archive comes first: GNU ld misses the reference, lld does not",
     ["libshims.a", "main_a.o"],
     {"gnu": {"rules": ["AOTI208"], "ok": False},
      "lld": {"status": {"aoti_torch_a": "defined-not-exported"}, "rules": ["AOTI209"]}}),
    ("member-pulls-member", "b's member refers to c: the archive is rescanned",
     ["main_b.o", "libshims.a"],
     {"both": {"status": {"aoti_torch_b": "defined-not-exported",
                          "aoti_torch_c": "defined-not-exported",
                          "aoti_torch_a": "not-pulled-in"}}}),
    ("archive-pulls-archive", "libhelper.a needs libshims.a, which follows it",
     ["main_helper.o", "libhelper.a", "libshims.a"],
     {"both": {"status": {"aoti_torch_b": "defined-not-exported"}}}),
    ("archive-pulls-archive-backwards", "libhelper.a needs libshims.a, which precedes it",
     ["main_helper.o", "libshims.a", "libhelper.a"],
     {"gnu": {"rules": ["AOTI208"], "ok": False},
      "lld": {"status": {"aoti_torch_b": "defined-not-exported"}}}),
    ("group", "--start-group makes GNU ld rescan both archives",
     ["main_helper.o", "-Wl,--start-group", "libshims.a", "libhelper.a", "-Wl,--end-group"],
     {"both": {"status": {"aoti_torch_b": "defined-not-exported"}, "no_rules": ["AOTI208"]}}),
    ("whole-archive", "--whole-archive links every shim, but nothing exports them",
     ["main_plain.o"] + WHOLE,
     {"both": {"status": {"aoti_torch_d": "defined-not-exported"}, "rules": ["AOTI202"],
               "no_rules": ["AOTI201"]}}),
    ("whole-archive-rdynamic", "the right link: whole archive and -rdynamic",
     ["main_plain.o"] + WHOLE + ["-rdynamic"],
     {"both": {"status": {"aoti_torch_a": "exported", "aoti_torch_d": "exported"}, "ok": True}}),
    ("undefined-option", "-u pulls one member in",
     ["main_plain.o", "-Wl,-u,aoti_torch_d", "libshims.a"],
     {"both": {"status": {"aoti_torch_d": "defined-not-exported", "aoti_torch_a": "not-pulled-in"}}}),
    ("shared-lib-reference", "a shared library's reference pulls c in and exports it",
     ["main_plain.o", "-Wl,--no-as-needed", "libuse.so", "libshims.a"],
     {"both": {"status": {"aoti_torch_c": "exported"}}}),
    ("shared-lib-as-needed", "gcc passes --as-needed: GNU ld drops libuse.so and its reference",
     ["main_plain.o", "libuse.so", "libshims.a"],
     {"gnu": {"status": {"aoti_torch_c": "not-pulled-in"}},
      "lld": {"status": {"aoti_torch_c": "exported"}}}),
    ("shared-lib-needed-by-main", "main uses libuse.so, which needs c from the archive after it",
     ["main_use.o", "libuse.so", "libshims.a"],
     {"both": {"status": {"aoti_torch_c": "exported"}}}),
    ("search-prefers-shared", "-lshims finds libshims.so before libshims.a in one directory",
     ["main_a.o", "-Lshared", "-lshims", "-Wl,-rpath,shared"],
     {"both": {"status": {"aoti_torch_a": "from-shared-library"},
               "audit": ["--require-from", "shared/libshims.a"]}}),
    ("search-bstatic", "-Bstatic makes -lshims take the archive",
     ["main_a.o", "-Lshared", "-Wl,-Bstatic", "-lshims", "-Wl,-Bdynamic"],
     {"both": {"status": {"aoti_torch_a": "defined-not-exported"}}}),
    ("export-dynamic-symbol", "--export-dynamic-symbol exports one shim",
     ["main_plain.o"] + WHOLE + ["-Wl,--export-dynamic-symbol=aoti_torch_a"],
     {"both": {"status": {"aoti_torch_a": "exported", "aoti_torch_b": "defined-not-exported"}}}),
    ("dynamic-list", "--dynamic-list exports the names it lists",
     ["main_plain.o"] + WHOLE + ["-Wl,--dynamic-list=dl.list"],
     {"both": {"status": {"aoti_torch_b": "exported", "aoti_torch_a": "defined-not-exported"}}}),
    ("version-script", "a version script's local: * hides all but one shim from -rdynamic",
     ["main_plain.o"] + WHOLE + ["-rdynamic", "-Wl,--version-script=vs.map"],
     {"both": {"status": {"aoti_torch_a": "exported", "aoti_torch_b": "made-local"},
               "rules": ["AOTI204"]}}),
    ("gc-sections", "--gc-sections drops an uncalled shim in its own section",
     ["main_ga.o", "libgc_fs.a", "-Wl,--gc-sections"],
     {"both": {"status": {"aoti_torch_gb": "discarded-by-gc",
                          "aoti_torch_ga": "defined-not-exported"}, "rules": ["AOTI203"]}}),
    ("gc-sections-one-section", "without -ffunction-sections both shims share .text and stay",
     ["main_ga.o", "libgc.a", "-Wl,--gc-sections"],
     {"both": {"status": {"aoti_torch_gb": "defined-not-exported"}}}),
    ("gc-sections-exported", "exported names are gc roots",
     ["main_plain.o"] + WHOLE + ["-Wl,--gc-sections", "-rdynamic"],
     {"both": {"status": {"aoti_torch_b": "exported"}, "ok": True}}),
    ("multiple-definition", "an object and a force-linked member both define a shim",
     ["main_plain.o", "dup_a.o"] + WHOLE,
     {"both": {"rules": ["AOTI206"], "ok": False}}),
    ("silent-duplicate", "an object duplicates a member nothing extracts; the whole-archive fix would collide",
     ["main_a.o", "dup_d.o", "libshims.a"],
     {"both": {"rules": ["AOTI201", "AOTI207"]}}),
    ("weak-reference", "a weak reference does not pull a member in",
     ["main_weak.o", "libshims.a"],
     {"both": {"status": {"aoti_torch_a": "not-pulled-in"}}}),
    ("hidden-visibility", "a hidden shim stays out of .dynsym even with -rdynamic",
     ["main_plain.o", "-Wl,--whole-archive", "libhidden.a", "-Wl,--no-whole-archive", "-rdynamic"],
     {"both": {"status": {"aoti_torch_h": "made-local", "aoti_torch_v": "exported"}}}),
    ("gnu-unique-comdat", "g++'s STB_GNU_UNIQUE statics in COMDAT groups of two objects: one group is kept",
     ["main_uq.o", "uq1.o", "uq2.o"],
     {"both": {"no_rules": ["AOTI206"], "ok": True, "symtab_has": ["_ZZN7aoti_uq5countEvE1c"]}}),
    ("gnu-unique-outside-comdat", "STB_GNU_UNIQUE outside a group is a multiple definition",
     ["main_uqs.o", "uqs_a.o", "uqs_b.o"],
     {"both": {"rules": ["AOTI206"], "ok": False}}),
    ("shared-shims-as-needed", "--as-needed drops the shared shim library nothing calls: AOTI211, not AOTI205",
     ["main_plain.o", "-Wl,--as-needed", "-Lshared", "-lshims", "-Wl,-rpath,shared"],
     {"both": {"audit": ["--plugin", "model.so"], "rules": ["AOTI211"], "no_rules": ["AOTI205"],
               "status": {"aoti_torch_a": "dropped-as-needed", "aoti_torch_d": "dropped-as-needed"},
               "text_has": ["-Wl,--push-state,--no-as-needed -lshims -Wl,--pop-state"]}}),
    ("shared-shims-gcc-default", "Debian's gcc passes --as-needed itself; clang does not",
     ["main_plain.o", "-Lshared", "-lshims", "-Wl,-rpath,shared"],
     {"gnu": {"audit": ["--plugin", "model.so"], "rules": ["AOTI211"],
              "status": {"aoti_torch_a": "dropped-as-needed"}},
      "lld": {"audit": ["--plugin", "model.so"], "status": {"aoti_torch_a": "from-shared-library"},
              "no_rules": ["AOTI211"]}}),
    ("fix-still-fails", "the whole-archive fix pulls in a member with an undefined reference: the text says so",
     ["main_plain.o", "libneedy.a"],
     {"both": {"rules": ["AOTI201"],
               "text_has": ["but the fixed line still fails to link: 1 undefined reference(s): `t_missing_dep`"]}}),
    ("cxx-undefined-reference", "a C++ reference nothing defines: AOTI208 names it as the linker does",
     ["main_uqref.o", "uqref.o"],
     {"both": {"rules": ["AOTI208"], "ok": False, "quotes_linker": "AOTI208"}}),
    ("response-file", "the line comes from a response file",
     ["@link.rsp"],
     {"both": {"status": {"aoti_torch_a": "defined-not-exported"}}}),
    ("shared-output", "a shared library exports every default-visibility definition",
     ["-shared"] + WHOLE,
     {"both": {"status": {"aoti_torch_a": "exported"}, "ok": True}}),
    ("plugin-requires", "--plugin: only what the model leaves undefined is required",
     ["main_a.o", "libshims.a"],
     {"both": {"audit": ["--plugin", "model.so"],
               "status": {"aoti_torch_a": "defined-not-exported", "aoti_torch_d": "not-pulled-in"},
               "required": ["aoti_torch_a", "aoti_torch_d"]}}),
    ("require-list", "--require: a list file names the required shims",
     ["main_b.o", "libshims.a"],
     {"both": {"audit": ["--require", "required.txt"],
               "status": {"aoti_torch_b": "defined-not-exported", "aoti_torch_c": "defined-not-exported"},
               "required": ["aoti_torch_b", "aoti_torch_c"]}}),
    ("wl-combined", "one -Wl, word holds the whole-archive region and the export",
     ["main_plain.o", "-Wl,--whole-archive,libshims.a,--no-whole-archive,--export-dynamic"],
     {"both": {"status": {"aoti_torch_c": "exported"}, "ok": True}}),
    ("static-executable", "-static: libc.a joins the link, and nothing can be exported",
     ["-static", "main_a.o", "libshims.a", "-rdynamic"],
     {"both": {"status": {"aoti_torch_a": "defined-not-exported"}, "rules": ["AOTI202"]}}),
    ("direct-static", "the linker run directly: a static executable exports nothing",
     ["-e", "main", "main_a.o", "libshims.a"],
     {"both": {"direct": True, "status": {"aoti_torch_a": "defined-not-exported"}}}),
    ("direct-shared-lib", "the linker run directly, with a shared library that needs a shim",
     ["-e", "main", "main_use.o", "libuse.so", "libshims.a"],
     {"both": {"direct": True, "status": {"aoti_torch_c": "exported"}}}),
    ("direct-shared-output", "the linker run directly to make a shared library",
     ["-shared", "--whole-archive", "libshims.a", "--no-whole-archive"],
     {"both": {"direct": True, "status": {"aoti_torch_d": "exported"}, "ok": True}}),
    ("shared-output-exclude-libs", "--exclude-libs hides an archive's symbols in a shared library",
     ["-shared", "-Wl,--exclude-libs,libshims.a"] + WHOLE,
     {"both": {"status": {"aoti_torch_a": "made-local"}}}),
]


def build_fixtures(d):
    for name, text in SOURCES.items():
        if text is None:  # in FILES
            continue
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    for name, text in FILES.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    for name in SOURCES:
        if name in ("gc.c",) or name.endswith(".h"):
            continue
        run(["gcc", "-c", "-O1", "-fPIC", name], d)
    run(["gcc", "-c", "-O1", "-fPIC", "-ffunction-sections", "gc.c", "-o", "gc_fs.o"], d)
    run(["gcc", "-c", "-O1", "-fPIC", "gc.c", "-o", "gc.o"], d)
    ar = lambda out, *objs: run(["ar", "rcs", out] + list(objs), d)
    ar("libshims.a", "shim_a.o", "shim_b.o", "shim_c.o", "shim_d.o")
    ar("libhelper.a", "helper.o")
    ar("libneedy.a", "shim_needy.o")
    ar("libhidden.a", "hidden.o")
    ar("libgc_fs.a", "gc_fs.o")
    ar("libgc.a", "gc.o")
    run(["gcc", "-shared", "-o", "libuse.so", "use.o"], d)
    run(["gcc", "-shared", "-o", "model.so", "model.o"], d)
    os.makedirs(os.path.join(d, "shared"), exist_ok=True)
    run(["gcc", "-shared", "-o", "shared/libshims.so", "shim_a.o", "shim_b.o", "shim_c.o",
         "shim_d.o"], d)
    shutil.copy(os.path.join(d, "libshims.a"), os.path.join(d, "shared", "libshims.a"))


# --- what the linker did ----------------------------------------------------

def bfd_extracted(map_path):
    """Members from GNU ld's map: "Archive member included to satisfy ..."."""
    out = set()
    if not os.path.exists(map_path):
        return out
    lines = open(map_path, errors="replace").read().splitlines()
    try:
        i = lines.index("Archive member included to satisfy reference by file (symbol)")
    except ValueError:
        return out
    for line in lines[i + 1:]:
        if line and not line[0].isspace():
            if "(" not in line.split()[0]:
                break  # the next section's title
            out.add(member_key(line.split()[0]))
    return out


def lld_extracted(why_path):
    out = set()
    if not os.path.exists(why_path):
        return out
    for line in open(why_path).read().splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) >= 2:
            out.add(member_key(parts[1]))
    return out


def nm(path, dynamic):
    cmd = ["llvm-nm-19", "--defined-only", "-j"] + (["-D"] if dynamic else []) + [path]
    p = run(cmd, os.path.dirname(path), check=False)
    return {n for n in p.stdout.split() if NS.search(n)}


def needed(path, d):
    p = run(["readelf", "-d", path], d, check=False)
    return {m for m in re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", p.stdout)
            if m.startswith("lib") and ("use" in m or "shims" in m)}


def link_errors(stderr):
    mult = set(re.findall(r"multiple definition of [`']([^'`]+)'", stderr))
    mult |= set(re.findall(r"duplicate symbol: (\S+)", stderr))
    undef = set(re.findall(r"undefined reference to [`']([^'`]+)'", stderr))
    undef |= set(re.findall(r"undefined reference to (\S+) \[--no-allow-shlib-undefined\]", stderr))
    undef |= set(re.findall(r"undefined symbol: (\S+)", stderr))
    return ({n for n in mult if NS.search(n)}, {n for n in undef if NS.search(n)})


# --- one run ------------------------------------------------------------------

TOOLCHAINS = {
    "gnu": ["gcc"],
    "lld": ["clang-19", "-fuse-ld=lld"],
}
LINKERS = {  # cases that run the linker itself
    "gnu": ["ld.bfd"],
    "lld": ["ld.lld-19" if shutil.which("ld.lld-19") else "ld.lld"],
}


def predicted_members(link, lld):
    out = set()
    for e in link["extracted"]:
        if e["member"] is None:
            continue
        if lld and e["reason"] == "whole-archive":
            continue  # --why-extract does not list --whole-archive members
        out.add("%s(%s)" % (os.path.basename(e["archive"]), e["member"]))
    return out


def demangled(names):
    """C++ names as c++filt (binutils) prints them, the linkers' spelling."""
    names = list(names)
    mangled = [n for n in names if n.startswith("_Z")]
    if not mangled:
        return names
    out = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n", stdout=subprocess.PIPE,
                         text=True).stdout.splitlines()
    table = dict(zip(mangled, out))
    return [table.get(n, n) for n in names]


def ns(names):
    return {n for n in names if NS.search(n)}


def compare(pred, p, outp, tc, d, label, problems):
    """The prediction `pred` (a link, or a fix replay) against run `p`."""
    def differ(what, a, b):
        agreement.differ(problems, label, what, a, b)

    # The linkers' messages name C++ symbols demangled; the JSON as mangled.
    predicted = (ns(demangled(m["symbol"] for m in pred["multiple_definitions"])),
                 ns(demangled(u["symbol"] for u in pred["undefined"])))
    agreement.compare_outcome(pred, p, predicted, link_errors(p.stderr),
                              ("multiple definitions", "undefined references"), label,
                              problems)
    if p.returncode != 0:
        return
    if not label:  # members: from the map or --why-extract of the first run
        real_members = (lld_extracted(outp + ".why") if tc == "lld"
                        else bfd_extracted(outp + ".map"))
        differ("extracted members", predicted_members(pred, tc == "lld"), real_members)
    differ(".dynsym", ns(pred["exports"]), nm(outp, True))
    differ(".symtab", ns(pred["defined"]), nm(outp, False))
    pred_needed = {os.path.basename(n) for n in pred["needed"] if "use" in n or "shims" in n}
    differ("DT_NEEDED", pred_needed, needed(outp, d))


def check_run(args, case, tc, d):
    name, _, words, expect = case
    exp = dict(expect.get("both", {}))
    exp.update(expect.get(tc, {}))
    out = "out-%s-%s%s" % (name, tc, ".so" if "-shared" in words else "")
    wl = "" if exp.get("direct") else "-Wl,"
    base = (LINKERS if exp.get("direct") else TOOLCHAINS)[tc] + words + \
        ["-o", out, "%s-Map=%s.map" % (wl, out)]
    if tc == "lld":
        base.append("%s--why-extract=%s.why" % (wl, out))
    link = agreement.audit(args, exp.get("audit", []), base, d)
    p = run(base, d, check=False)
    problems = []
    compare(link, p, os.path.join(d, out), tc, d, "", problems)

    # The case's own point.
    agreement.check_expectations(link, exp, problems)
    if exp.get("text_has"):
        t = run([args.audit, "link", "--color", "never"] + exp.get("audit", []) + ["--"] + base, d,
                check=False)
        for want in exp["text_has"]:
            if want not in t.stdout:
                problems.append("expected %r in the text output:\n%s" % (want, t.stdout))
    if exp.get("quotes_linker"):
        # Every name the linker's error quotes appears, as quoted, in the
        # finding's message.
        msgs = " ".join(f["message"] for f in link["findings"] if f["rule"] == exp["quotes_linker"])
        quoted = link_errors(p.stderr)[1] | link_errors(p.stderr)[0]
        if not quoted:
            problems.append("the linker quoted no name")
        for q in quoted:
            if "`%s`" % q not in msgs:
                problems.append("the linker says %r, %s does not: %s" % (q, exp["quotes_linker"], msgs))
    for sym in exp.get("symtab_has", []):
        if sym not in link["defined"]:
            problems.append("expected %s among the output's definitions" % sym)

    def exported(path):
        have = nm(path, True)
        # ... or a shared library the fixed output loads defines them.
        for lib in needed(path, d):
            for where in (lib, os.path.join("shared", lib)):
                if os.path.exists(os.path.join(d, where)):
                    have |= nm(os.path.join(d, where), True)
                    break
        return have

    note = agreement.check_fix(
        link, out, d, problems,
        lambda replay, fp, path, label: compare(replay, fp, path, tc, d, label, problems),
        exported,
        lambda cmd: [w for w in cmd if not w.startswith(("-Wl,-Map=", "-Wl,--why-extract=",
                                                         "-Map=", "--why-extract="))])
    return problems, note


def main():
    return agreement.main(
        __doc__, CASES,
        ("gcc", "clang-19", ("ld.lld-19", "ld.lld"), "llvm-nm-19", "readelf", "ar"),
        "aoti-link-matrix-", build_fixtures, ("gnu", "lld"), check_run, (32, 4),
        lambda n, tally: "%d link line(s) x 2 linkers: %d of %d runs agree with the real linker"
        % (n, tally.passed, tally.runs))


if __name__ == "__main__":
    sys.exit(main())
