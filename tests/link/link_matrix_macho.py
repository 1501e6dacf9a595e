#!/usr/bin/env python3
"""Mach-O link agreement matrix: `aoti-audit link` against ld64.lld.

The twin of link_matrix.py for ld64 links. Every case is one link line over
Mach-O fixtures compiled at test time (clang-19 -target ...-apple-macos11),
run two ways: ld64.lld-19 itself for arm64, and the clang-19 driver for
x86_64 (-fuse-ld=lld, -isysroot of a small SDK whose libSystem is a .tbd), so
the driver's own ld64 line (`clang -###`) is what the audit reads. For each
run the audit predicts first, then ld64.lld links with -why_load. A run passes
only when

  * the link succeeds exactly when the audit predicts no error, and the
    "duplicate symbol" / "undefined symbol" names are the audit's;
  * the archive members ld64.lld loaded (-why_load, -force_load ones
    included) are the audit's;
  * the output's export trie (llvm-objdump --macho --exports-trie) and its
    symbol table definitions (llvm-nm) are the audit's;
  * the case's own expectation holds (a status, a finding, a fix's words);
  * a proposed fixed command, run for real, links and exports every required
    name -- or fails with exactly the duplicates the audit said it would add.

Names compared are the fixtures' own (_aoti_torch_*, _t_*, _main).

Usage: link_matrix_macho.py --audit PATH [--case NAME] [--keep] [--list]
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import link_agreement as agreement  # noqa: E402
from harness import run  # noqa: E402
from link_agreement import member_key  # noqa: E402

NS = re.compile(r"^_(aoti_torch_|t_|main$)")

# The common fixtures (link_agreement.py), then this format's own.
SOURCES = {
    **agreement.COMMON_SOURCES,
    "main_weak.c": "int aoti_torch_a(void) __attribute__((weak_import));\n"
                   "int main(void) { return aoti_torch_a ? aoti_torch_a() : 0; }\n",
    # Objective-C members (as in a Metal backend's shims): a class, a category
    "objc_class.m": "__attribute__((objc_root_class)) @interface ShimObj @end\n"
                    "@implementation ShimObj @end\n"
                    "int aoti_torch_objc(void) { return 7; }\n",
    "objc_category.m": "__attribute__((objc_root_class)) @interface Base @end\n"
                       "@interface Base (Shims)\n- (int)shim;\n@end\n"
                       "@implementation Base (Shims)\n- (int)shim { return 1; }\n@end\n"
                       "int aoti_torch_cat(void) { return 8; }\n",
}

LIBSYSTEM_TBD = """--- !tapi-tbd
tbd-version: 4
targets: [ arm64-macos, x86_64-macos ]
install-name: '/usr/lib/libSystem.B.dylib'
current-version: 1319
exports:
  - targets: [ arm64-macos, x86_64-macos ]
    symbols: [ dyld_stub_binder, _malloc, _free, _printf, __objc_empty_cache,
               '_OBJC_CLASS_$_Base', '_OBJC_METACLASS_$_Base' ]
...
"""

FILES = {
    "main_only.exp": "# only main\n_main\n",
    "shims.exp": "_main\n_aoti_torch_*\n",
    "required.txt": "aoti_torch_c\naoti_torch_b\n",
}

ARCH = {"ld64": "arm64", "clang": "x86_64"}

# name, what it is about, link words (after the linker or driver, before -o),
# expectations: {"ld64"|"clang"|"both": {"status": {sym: status},
#   "rules": [...], "no_rules": [...], "ok": bool, "fix_has": [...],
#   "audit": [extra audit args]}}
CASES = [
    ("plain-archive", "an archive nothing calls: every shim is left out",
     ["main_plain.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_a": "not-pulled-in"}, "rules": ["AOTI201"],
               "fix_has": ["-force_load"]}}),
    ("one-call", "main calls one shim: loaded, and exported (ld64 exports every global)",
     ["main_a.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_a": "exported", "_aoti_torch_b": "not-pulled-in"},
               "rules": ["AOTI201"], "no_rules": ["AOTI202"]}}),
    ("archive-before-object", "the archive comes first: ld64 still loads the member",
     ["libshims.a", "main_a.o"],
     {"both": {"status": {"_aoti_torch_a": "exported"}, "no_rules": ["AOTI208", "AOTI209"]}}),
    ("member-pulls-member", "b's member refers to c: both are loaded",
     ["main_b.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_b": "exported", "_aoti_torch_c": "exported",
                          "_aoti_torch_a": "not-pulled-in"}}}),
    ("archive-pulls-archive-backwards", "libhelper.a needs libshims.a, which precedes it",
     ["main_helper.o", "libshims.a", "libhelper.a"],
     {"both": {"status": {"_aoti_torch_b": "exported"}, "no_rules": ["AOTI208"]}}),
    ("weak-reference", "a weak_import reference loads the member too (unlike ELF)",
     ["main_weak.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_a": "exported"}}}),
    ("weak-reference-undefined", "a weak_import nothing on the line defines: ld64 stops (unlike ELF)",
     ["main_weak.o"],
     {"both": {"rules": ["AOTI208"], "ok": False}}),
    ("weak-reference-dynamic-lookup", "the same weak_import with -undefined dynamic_lookup links",
     ["main_weak.o", "-undefined", "dynamic_lookup"],
     {"both": {"ok": True, "no_rules": ["AOTI208"]}}),
    ("force-load", "-force_load: every member, every shim exported",
     ["main_plain.o", "-force_load", "libshims.a", "-rpath", "@executable_path/../lib"],
     {"both": {"status": {"_aoti_torch_a": "exported", "_aoti_torch_d": "exported"},
               "ok": True}}),
    ("all-load", "-all_load: every member of every archive",
     ["main_plain.o", "-all_load", "libshims.a", "libhelper.a"],
     {"both": {"status": {"_aoti_torch_d": "exported"}, "ok": True}}),
    ("objc-plain", "Objective-C members nothing refers to are left out",
     ["main_plain.o", "libobjcshims.a"],
     {"both": {"status": {"_aoti_torch_objc": "not-pulled-in",
                          "_aoti_torch_cat": "not-pulled-in"}, "rules": ["AOTI201"]}}),
    ("objc-flag", "-ObjC loads the members with a class or a category, not the others",
     ["main_plain.o", "-ObjC", "libobjcshims.a"],
     {"both": {"status": {"_aoti_torch_objc": "exported", "_aoti_torch_cat": "exported",
                          "_aoti_torch_a": "not-pulled-in"}}}),
    ("undefined-option", "-u loads one member",
     ["main_plain.o", "-u", "_aoti_torch_d", "libshims.a"],
     {"both": {"status": {"_aoti_torch_d": "exported", "_aoti_torch_a": "not-pulled-in"}}}),
    ("library-search", "-lshims finds libshims.dylib before libshims.a in one directory",
     ["main_a.o", "-Lshared", "-lshims"],
     {"both": {"status": {"_aoti_torch_a": "from-shared-library"},
               "audit": ["--require-from", "shared/libshims.a"]}}),
    ("library-search-static", "-lshims in a directory with only the archive",
     ["main_a.o", "-Lstatic", "-lshims"],
     {"both": {"status": {"_aoti_torch_a": "exported", "_aoti_torch_d": "not-pulled-in"},
               "fix_has": ["-force_load", "static/libshims.a"]}}),
    ("library-not-found", "-lnothere: ld64 stops",
     ["main_plain.o", "-lnothere"],
     {"both": {"rules": ["AOTI210"], "ok": False}}),
    ("dead-strip", "-dead_strip removes force-loaded shims nothing calls",
     ["main_plain.o", "-force_load", "libshims.a", "-dead_strip"],
     {"both": {"status": {"_aoti_torch_a": "discarded-by-gc"}, "rules": ["AOTI203"],
               "fix_has": ["-export_dynamic"]}}),
    ("dead-strip-export-dynamic", "-export_dynamic keeps the globals through -dead_strip",
     ["main_plain.o", "-force_load", "libshims.a", "-dead_strip", "-export_dynamic"],
     {"both": {"status": {"_aoti_torch_a": "exported"}, "ok": True}}),
    ("dead-strip-called", "-dead_strip keeps what main calls, and c through b",
     ["main_b.o", "-force_load", "libshims.a", "-dead_strip"],
     {"both": {"status": {"_aoti_torch_b": "exported", "_aoti_torch_c": "exported",
                          "_aoti_torch_a": "discarded-by-gc"}}}),
    ("dead-strip-export-list", "an export list's names are dead-strip roots",
     ["main_plain.o", "-force_load", "libshims.a", "-dead_strip",
      "-exported_symbols_list", "shims.exp"],
     {"both": {"status": {"_aoti_torch_d": "exported"}, "ok": True}}),
    ("exported-symbols-list", "an export list naming only _main makes the shims private",
     ["main_plain.o", "-force_load", "libshims.a", "-exported_symbols_list", "main_only.exp"],
     {"both": {"status": {"_aoti_torch_a": "made-local"}, "rules": ["AOTI204"],
               "fix_has": ["main_only.exp"]}}),
    ("exported-symbol-glob", "-exported_symbol with a glob",
     ["main_plain.o", "-force_load", "libshims.a", "-exported_symbol", "_aoti_torch_*"],
     {"both": {"status": {"_aoti_torch_b": "exported"}, "ok": True}}),
    ("unexported-symbol", "-unexported_symbol hides one shim",
     ["main_plain.o", "-force_load", "libshims.a", "-unexported_symbol", "_aoti_torch_a"],
     {"both": {"status": {"_aoti_torch_a": "made-local", "_aoti_torch_b": "exported"},
               "rules": ["AOTI204"]}}),
    ("no-exported-symbols", "-no_exported_symbols hides everything",
     ["main_plain.o", "-force_load", "libshims.a", "-no_exported_symbols"],
     {"both": {"status": {"_aoti_torch_c": "made-local"}, "rules": ["AOTI204"],
               "fix_has": ["-no_exported_symbols"]}}),
    ("hidden-visibility", "a private external shim is never exported",
     ["main_plain.o", "-force_load", "libhidden.a"],
     {"both": {"status": {"_aoti_torch_h": "made-local", "_aoti_torch_v": "exported"},
               "rules": ["AOTI204"]}}),
    ("duplicate", "an object and a force-loaded member define the same shim",
     ["main_plain.o", "dup_a.o", "-force_load", "libshims.a"],
     {"both": {"rules": ["AOTI206"], "ok": False}}),
    ("two-providers-fix-collides", "the object's d wins; force-loading the archive collides",
     ["main_plain.o", "dup_d.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_d": "exported", "_aoti_torch_a": "not-pulled-in"},
               "rules": ["AOTI201", "AOTI207"]}}),
    ("undefined", "main calls a shim nothing defines",
     ["main_a.o"],
     {"both": {"rules": ["AOTI208"], "ok": False}}),
    ("no-main", "an executable with no _main",
     ["-force_load", "libshims.a"],
     {"both": {"rules": ["AOTI208"], "ok": False}}),
    ("bundle-undefined", "a model bundle without -undefined dynamic_lookup: ld64 stops",
     ["-bundle", "model.o"],
     {"both": {"rules": ["AOTI208"], "ok": False, "fix_has": ["-undefined dynamic_lookup"]}}),
    ("bundle-dynamic-lookup", "the model bundle, -undefined dynamic_lookup: links",
     ["-bundle", "model.o", "-undefined", "dynamic_lookup"],
     {"both": {"ok": True, "no_rules": ["AOTI208"]}}),
    ("bundle-loader", "the model bundle against the host that exports the shims",
     ["-bundle", "model.o", "-bundle_loader", "host"],
     {"both": {"ok": True, "no_rules": ["AOTI208"]}}),
    ("dylib", "a dylib force-loading the shims exports them",
     ["-dylib", "-force_load", "libshims.a"],
     {"both": {"status": {"_aoti_torch_a": "exported"}, "ok": True}}),
    ("dylib-dead-strip", "a dylib's exported globals are dead-strip roots",
     ["-dylib", "-force_load", "libshims.a", "-dead_strip"],
     {"both": {"status": {"_aoti_torch_a": "exported", "_aoti_torch_d": "exported"},
               "ok": True}}),
    ("dylib-unexported-dead-strip", "an unexported global of a dylib is stripped",
     ["-dylib", "-force_load", "libshims.a", "-dead_strip", "-unexported_symbol",
      "_aoti_torch_a"],
     {"both": {"status": {"_aoti_torch_a": "made-local", "_aoti_torch_d": "exported"}}}),
    ("plugin-required", "what the model bundle leaves undefined is required",
     ["main_plain.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_a": "not-pulled-in", "_aoti_torch_d": "not-pulled-in"},
               "required": ["_aoti_torch_a", "_aoti_torch_d"],
               "audit": ["--plugin", "model.bundle"]}}),
    ("require-list", "a --require list of C names",
     ["main_b.o", "libshims.a"],
     {"both": {"status": {"_aoti_torch_b": "exported", "_aoti_torch_c": "exported"},
               "required": ["_aoti_torch_b", "_aoti_torch_c"], "ok": True,
               "audit": ["--require", "required.txt"]}}),
]


def ld64(arch, words, out):
    return ["ld64.lld-19", "-arch", arch, "-platform_version", "macos", "11.0", "11.0"] + \
        words + ["-o", out]


def build_fixtures(root):
    """One directory per architecture, the same fixtures in each."""
    for tc, arch in ARCH.items():
        d = os.path.join(root, tc)
        os.makedirs(os.path.join(d, "sdk", "usr", "lib"))
        for name, text in list(SOURCES.items()) + list(FILES.items()):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        tbd = os.path.join(d, "sdk", "usr", "lib", "libSystem.tbd")
        with open(tbd, "w") as f:
            f.write(LIBSYSTEM_TBD)
        for name in SOURCES:
            run(["clang-19", "-target", arch + "-apple-macos11", "-c", "-O1", name], d)
        ar = lambda out, *objs: run(["llvm-ar-19", "rcs", out] + list(objs), d)
        ar("libshims.a", "shim_a.o", "shim_b.o", "shim_c.o", "shim_d.o")
        ar("libhelper.a", "helper.o")
        ar("libhidden.a", "hidden.o")
        ar("libobjcshims.a", "objc_class.o", "objc_category.o", "shim_a.o")
        for sub in ("shared", "static"):
            os.makedirs(os.path.join(d, sub))
            shutil.copy(os.path.join(d, "libshims.a"), os.path.join(d, sub, "libshims.a"))
        run(ld64(arch, ["-dylib", "-install_name", "@rpath/libshims.dylib", "-force_load",
                        "libshims.a", tbd], "shared/libshims.dylib"), d)
        run(ld64(arch, ["main_plain.o", "-force_load", "libshims.a", tbd], "host"), d)
        run(ld64(arch, ["-bundle", "model.o", "-undefined", "dynamic_lookup", tbd],
                 "model.bundle"), d)


def command(tc, words, out, d):
    """The link line as the case runs it, with -why_load."""
    if tc == "ld64":
        return ld64(ARCH[tc], words + [os.path.join("sdk", "usr", "lib", "libSystem.tbd"),
                                       "-why_load"], out)
    drv = []
    i = 0
    while i < len(words):  # ld64 options a driver does not take go through -Wl,
        w = words[i]
        if w in ("-u", "-exported_symbols_list", "-exported_symbol", "-unexported_symbol", "-rpath",
                 "-bundle_loader", "-force_load", "-undefined"):
            if w in ("-force_load", "-bundle_loader", "-undefined", "-exported_symbols_list"):
                drv += [w, words[i + 1]]  # the driver knows these
            else:
                drv.append("-Wl,%s,%s" % (w, words[i + 1]))
            i += 2
            continue
        if w in ("-dylib",):
            drv.append("-dynamiclib")
        elif w in ("-dead_strip", "-export_dynamic", "-no_exported_symbols", "-all_load",
                   "-ObjC"):
            drv.append("-Wl," + w)
        else:
            drv.append(w)
        i += 1
    return ["clang-19", "-target", ARCH[tc] + "-apple-macos11", "-fuse-ld=lld", "-isysroot",
            "sdk"] + drv + ["-o", out, "-Wl,-why_load"]


# --- what the linker did ----------------------------------------------------

def loaded_members(text):
    """-why_load: "SYMBOL forced load of ARCHIVE(MEMBER)", "-force_load forced load of ..."."""
    return {member_key(m) for m in re.findall(r"^\S+ forced load of (.+)$", text, re.M)}


def exports(path, d):
    p = run(["llvm-objdump-19", "--macho", "--exports-trie", path], d, check=False)
    return {m for m in re.findall(r"^0x[0-9A-Fa-f]+\s+(\S+)", p.stdout, re.M) if NS.match(m)}


def defined(path, d):
    p = run(["llvm-nm-19", "--defined-only", "-j", path], d, check=False)
    return {n for n in p.stdout.split() if NS.match(n)}


def link_errors(stderr):
    # The driver passes -demangle, which prints C names without their `_`.
    mangle = lambda n: n if n.startswith("_") else "_" + n
    dup = {mangle(n) for n in re.findall(r"duplicate symbol: (\S+)", stderr)}
    undef = {mangle(n) for n in re.findall(r"undefined symbol: (\S+)", stderr)}
    return ({n for n in dup if NS.match(n)}, {n for n in undef if NS.match(n)})


def ns(names):
    return {n for n in names if NS.match(n)}


def compare(pred, p, outp, d, label, problems):
    def differ(what, a, b):
        agreement.differ(problems, label, what, a, b)

    predicted = (ns(m["symbol"] for m in pred["multiple_definitions"]),
                 ns(u["symbol"] for u in pred["undefined"]))
    agreement.compare_outcome(pred, p, predicted, link_errors(p.stderr),
                              ("duplicate symbols", "undefined symbols"), label, problems)
    if p.returncode != 0:
        return
    pred_members = {"%s(%s)" % (os.path.basename(e["archive"]), e["member"])
                    for e in pred["extracted"] if e["member"] is not None}
    differ("loaded members", pred_members, loaded_members(p.stdout + p.stderr))
    differ("export trie", ns(pred["exports"]), exports(outp, d))
    differ("symbol table", ns(pred["defined"]), defined(outp, d))


def check_run(args, case, tc, root):
    name, _, words, expect = case
    d = os.path.join(root, tc)
    exp = dict(expect.get("both", {}))
    exp.update(expect.get(tc, {}))
    out = "out-" + name
    cmd = command(tc, words, out, d)
    link = agreement.audit(args, exp.get("audit", []), cmd, d)
    p = run(cmd, d, check=False)
    problems = []
    if link["flavor"] != "ld64":
        problems.append("flavor %s, not ld64" % link["flavor"])
    compare(link, p, os.path.join(d, out), d, "", problems)

    agreement.check_expectations(link, exp, problems)

    note = agreement.check_fix(
        link, out, d, problems,
        lambda replay, fp, path, label: compare(replay, fp, path, d, label, problems),
        lambda path: exports(path, d))
    return problems, note


def main():
    return agreement.main(
        __doc__, CASES,
        ("clang-19", "ld64.lld-19", "llvm-nm-19", "llvm-objdump-19", "llvm-ar-19"),
        "aoti-link-macho-", build_fixtures, ARCH, check_run, (34, 5),
        lambda n, tally: "%d link line(s) x 2 (ld64.lld arm64, clang x86_64): %d of %d runs "
        "agree with ld64.lld" % (n, tally.passed, tally.runs))


if __name__ == "__main__":
    sys.exit(main())
