#!/usr/bin/env python3
"""`--format sarif`: real findings, validated against the SARIF 2.1.0 schema.

Each case builds a small host, plugin or set of archives with the real
compiler and linker (gcc + GNU ld), runs the command twice, with
`--format json` and with `--format sarif`, and passes only when

  * the SARIF log is valid against the official SARIF 2.1.0 JSON schema
    (sarif-schema-2.1.0.json next to this file; see README.md for where it
    comes from),
  * the case's rule fired (so a case cannot pass by testing nothing),
  * every JSON finding is one SARIF result, in order: same rule id, level,
    file (an archive member as the archive's uri plus a logical location),
    the symbol named in the message, the fix in the message and properties,
  * both formats exit with the same status.

Every run also checks the tool's rule table: one rule per `aoti-audit rules`
line, with its default level, and the help text of its docs/rules page.

Usage: sarif_test.py --audit PATH [--case NAME] [--list] [--keep]
"""
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402
from harness import Failure, expect  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "sarif-schema-2.1.0.json")
DOCS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "docs", "rules")

HOST_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : 0;
  puts(h ? "loaded" : "failed");
  return !h;
}
"""

SHIMS_C = r"""
int aoti_torch_get_sizes(void *t, long **s) { (void)t; *s = 0; return 0; }
int aoti_torch_dtype_float32(void) { return 6; }
"""

MODEL_C = r"""
int aoti_torch_get_sizes(void *, long **);
int aoti_torch_dtype_float32(void);
int model_run(void) { long *s; return aoti_torch_get_sizes(0, &s) + aoti_torch_dtype_float32(); }
"""


class Tree(harness.Workdir):
    """One case's directory: writes sources, compiles, links, archives."""

    p = harness.Workdir.path
    src = harness.Workdir.write

    def obj(self, name, text, *flags):
        out = self.p(name)
        self.run("gcc", "-c", "-fPIC", "-O1", *flags, self.src(name + ".c", text), "-o", out)
        return out

    def ar(self, name, *objs):
        out = self.p(name)
        self.run("ar", "rcs", out, *objs)
        return out

    def so(self, name, text, *flags):
        out = self.p(name)
        self.run("gcc", "-fuse-ld=bfd", "-shared", "-fPIC", "-O1", "-Wl,--no-as-needed",
                 self.src(name + ".c", text), "-o", out,
                 "-Wl,-soname," + os.path.basename(name), *flags)
        return out

    def host(self, *flags, as_needed=False):
        out = self.p("host")
        self.run("gcc", "-fuse-ld=bfd", "-O1", self.src("host.c", HOST_C), "-o", out,
                 "-Wl,--as-needed" if as_needed else "-Wl,--no-as-needed", *flags, "-ldl")
        return out

    def shims_archive(self, text=SHIMS_C, name="libshims.a"):
        return self.ar(name, self.obj(name[:-2] + "_shims.o", text))

    def model(self, extra="", *flags):
        return self.so("model.so", MODEL_C + extra, *flags)

    def whole(self, archive):
        return ["-Wl,--whole-archive", archive, "-Wl,--no-whole-archive"]


CASES = []


def case(rule, command="check"):
    def register(fn):
        CASES.append((fn.__name__, rule, command, fn))
        return fn
    return register


# Each case returns the command's arguments after `check`/`dups` (the format
# is added by the runner). The docstring says in one line what it is.

@case("AOTI001")
def undefined(t):
    """the host links the shim archive plainly and is audited without it: nothing defines the shims"""
    h = t.host("-rdynamic", t.shims_archive())
    return ["--host", h, t.model()]


@case("AOTI002")
def not_exported(t):
    """the host force-links the shims without --export-dynamic"""
    h = t.host(*t.whole(t.shims_archive()))
    return ["--host", h, t.model()]


@case("AOTI003")
def member_not_linked(t):
    """the host links the shim archive without --whole-archive: its member stays behind"""
    a = t.shims_archive()
    return ["--host", t.host("-rdynamic", a), "--archive", a, t.model()]


@case("AOTI004")
def hidden(t):
    """libshims.so is built with -fvisibility=hidden"""
    t.so("lib/libshims.so", SHIMS_C + "__attribute__((visibility(\"default\"))) int keep(void) { return 0; }\n",
         "-fvisibility=hidden")
    h = t.host("-L" + t.p("lib"), "-lshims", "-Wl,-rpath," + t.p("lib"))
    return ["--host", h, t.model()]


@case("AOTI005")
def outside_scope(t):
    """--as-needed drops the host's DT_NEEDED on libshims.so: a candidate outside the scope"""
    s = t.so("lib/libshims.so", SHIMS_C)
    h = t.host("-L" + t.p("lib"), "-lshims", "-Wl,-rpath," + t.p("lib"), as_needed=True)
    return ["--host", h, "--candidate", s, t.model()]


@case("AOTI006")
def version_mismatch(t):
    """the model wants ver_fn@VER_2; the host's libver.so has ver_fn@VER_1"""
    t.src("new.map", "VER_1 { }; VER_2 { global: ver_fn; } VER_1;\n")
    t.src("old.map", "VER_1 { global: ver_fn; }; VER_2 { global: other; } VER_1;\n")
    t.so("new/libver.so", "int ver_fn(void){return 2;}", "-Wl,--version-script=" + t.p("new.map"))
    t.so("old/libver.so", "int ver_fn(void){return 1;} int other(void){return 0;}",
         "-Wl,--version-script=" + t.p("old.map"))
    h = t.host("-rdynamic", *t.whole(t.shims_archive()), "-L" + t.p("old"), "-lver",
               "-Wl,-rpath," + t.p("old"))
    m = t.model("int ver_fn(void); int use(void){return ver_fn();}", "-L" + t.p("new"), "-lver")
    return ["--host", h, "--all", m]


@case("AOTI007")
def missing_version_node(t):
    """the model was linked against a libver.so with VER_2; the host ships VER_1 only"""
    t.src("v2.map", "VER_1 { global: ver_one; }; VER_2 { global: ver_two; } VER_1;\n")
    t.src("v1.map", "VER_1 { global: ver_one; };\n")
    t.so("new/libver.so", "int ver_one(void){return 1;} int ver_two(void){return 2;}",
         "-Wl,--version-script=" + t.p("v2.map"))
    t.so("old/libver.so", "int ver_one(void){return 1;}", "-Wl,--version-script=" + t.p("v1.map"))
    h = t.host("-rdynamic", *t.whole(t.shims_archive()), "-L" + t.p("old"), "-lver",
               "-Wl,-rpath," + t.p("old"))
    m = t.model("int ver_two(void); int use(void){return ver_two();}", "-L" + t.p("new"), "-lver")
    return ["--host", h, m]


@case("AOTI008")
def library_not_found(t):
    """the host needs libshims.so, which is on no search path"""
    t.so("lib/libshims.so", SHIMS_C)
    h = t.host("-L" + t.p("lib"), "-lshims")
    return ["--host", h, t.model()]


@case("AOTI009")
def duplicate_provider(t):
    """the host and a library it links both export the shims"""
    t.so("lib/libother.so", SHIMS_C)
    h = t.host("-rdynamic", *t.whole(t.shims_archive()), "-L" + t.p("lib"), "-lother",
               "-Wl,-rpath," + t.p("lib"))
    return ["--host", h, t.model()]


@case("AOTI010")
def libtorch_clash(t):
    """a library named like LibTorch provides the shims too"""
    t.so("torch/libtorch_cpu.so", SHIMS_C)
    t.so("lib/libaoti_shims.so", SHIMS_C)
    h = t.host("-L" + t.p("torch"), "-L" + t.p("lib"), "-ltorch_cpu", "-laoti_shims",
               "-Wl,-rpath," + t.p("torch") + ":" + t.p("lib"))
    return ["--host", h, t.model()]


@case("AOTI011")
def interposition(t):
    """with --all: two loaded libraries define helper(), which the model calls"""
    t.so("lib/liba.so", "int helper(void){return 1;}")
    t.so("lib/libb.so", "int helper(void){return 2;}")
    h = t.host("-rdynamic", *t.whole(t.shims_archive()), "-L" + t.p("lib"), "-la", "-lb",
               "-Wl,-rpath," + t.p("lib"))
    return ["--host", h, "--all", t.model("int helper(void); int h(void){return helper();}")]


@case("AOTI012")
def weak_unresolved(t):
    """a weak reference that nothing defines"""
    h = t.host("-rdynamic", *t.whole(t.shims_archive()))
    m = t.model("extern int aoti_torch_optional(void) __attribute__((weak));\n"
                "int probe(void) { return aoti_torch_optional ? aoti_torch_optional() : 0; }\n")
    return ["--host", h, m]


@case("AOTI101", "dups")
def strong_duplicate(t):
    """two archives define the same shim strongly"""
    return [t.shims_archive(name="liba.a"), t.shims_archive(name="libb.a")]


@case("AOTI102", "dups")
def strong_weak_duplicate(t):
    """one archive defines a shim weakly, another strongly"""
    weak = SHIMS_C.replace("int aoti", "__attribute__((weak)) int aoti")
    return [t.shims_archive(name="liba.a"), t.shims_archive(weak, name="libb.a")]


@case("AOTI103", "dups")
def weak_duplicate(t):
    """two archives define the same shim weakly"""
    weak = SHIMS_C.replace("int aoti", "__attribute__((weak)) int aoti")
    return [t.shims_archive(weak, name="liba.a"), t.shims_archive(weak, name="libb.a")]


@case("AOTI104", "dups")
def common_duplicate(t):
    """two objects define the same tentative (common) variable"""
    src = "int aoti_torch_flag;\n"
    return [t.obj("a.o", src, "-fcommon"), t.obj("b.o", src, "-fcommon")]


@case("AOTI2", "link")
def link_line(t):
    """a link line that names the shim archive plainly and does not export: an AOTI2xx rule"""
    t.shims_archive()
    t.obj("host.o", HOST_C)
    return ["--", "gcc", "-o", "runner", "host.o", "libshims.a", "-ldl"]


# --- checking -------------------------------------------------------------------

def load_validator():
    """The SARIF 2.1.0 schema's validator; None (a skip) without jsonschema."""
    try:
        import jsonschema
    except ImportError:
        print("SKIP: Python's jsonschema is not installed (Debian: python3-jsonschema)")
        return None
    with open(SCHEMA) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft4Validator)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def validate(validator, log):
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    expect(not errors, "not valid SARIF 2.1.0:\n" + "\n".join(
        "  at /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message) for e in errors[:10]))


def uri_to_path(uri):
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme == "file":
        return urllib.parse.unquote(parsed.path)
    expect(parsed.scheme == "", "uri %r: neither file: nor relative" % uri)
    return urllib.parse.unquote(uri)


def split_member(path):
    if path.endswith(")") and "(" in path[1:]:
        i = path.rindex("(")
        return path[:i], path[i + 1:-1]
    return path, None


LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def check_rules(log, rule_lines):
    driver = log["runs"][0]["tool"]["driver"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    expect(len(ids) == len(set(ids)), "rule ids repeat: %s" % ids)
    expect(len(rules) == len(rule_lines), "%d rules in SARIF, %d in `aoti-audit rules`" % (len(rules), len(rule_lines)))
    for r, (rid, name, sev) in zip(rules, rule_lines):
        expect(r["id"] == rid and r["name"] == name, "rule %s/%s, expected %s/%s" % (r["id"], r["name"], rid, name))
        expect(r["defaultConfiguration"]["level"] == LEVELS[sev], "%s: level %s, severity %s" % (rid, r["defaultConfiguration"]["level"], sev))
        expect(r["shortDescription"]["text"], "%s: no shortDescription" % rid)
        expect("docs/rules/%s.md" % rid in r["help"]["text"], "%s: help does not name its page" % rid)
        page = os.path.join(DOCS, rid + ".md")
        if os.path.exists(page):
            # The first sentence of "What it finds", embedded at build time.
            with open(page) as f:
                text = f.read()
            body = text.split("## What it finds", 1)[1].strip()
            first_line = body.splitlines()[0].strip()
            expect(r["fullDescription"]["text"].startswith(first_line),
                   "%s: fullDescription %r does not start with the page's %r" % (rid, r["fullDescription"]["text"][:80], first_line))
            expect(r["help"]["text"].startswith(first_line), "%s: help text is not the page's first paragraph" % rid)
            expect("## How to fix" in r["help"].get("markdown", ""), "%s: help.markdown lacks How to fix" % rid)
    return ids


def check_results(log, findings, rule_ids):
    results = log["runs"][0]["results"]
    expect(len(results) == len(findings), "%d SARIF results, %d JSON findings" % (len(results), len(findings)))
    for res, fd in zip(results, findings):
        where = "result for %s %s" % (fd["rule"], fd.get("symbol"))
        expect(res["ruleId"] == fd["rule"], "%s: ruleId %s" % (where, res["ruleId"]))
        expect(rule_ids[res["ruleIndex"]] == res["ruleId"], "%s: ruleIndex points elsewhere" % where)
        expect(res["level"] == LEVELS[fd["severity"]], "%s: level %s, severity %s" % (where, res["level"], fd["severity"]))
        msg = res["message"]["text"]
        if fd.get("symbol"):
            expect(fd["symbol"] in msg, "%s: message does not name the symbol: %r" % (where, msg))
        expect(fd["fix"] in msg and res["properties"]["fix"] == fd["fix"], "%s: the fix is not carried" % where)
        loc = res["locations"][0]
        path = uri_to_path(loc["physicalLocation"]["artifactLocation"]["uri"])
        archive, member = split_member(fd["file"])
        expect(path == archive, "%s: uri names %s, the finding %s" % (where, path, fd["file"]))
        if member:
            names = [l["name"] for l in loc.get("logicalLocations", []) if l.get("kind") == "member"]
            expect(names == [member], "%s: member %s not in logicalLocations %s" % (where, member, names))
        expect(res["partialFingerprints"]["aotiFinding/v1"], "%s: no fingerprint" % where)


def dups_findings(report):
    # `dups --format json` lists duplicates; each is one finding.
    out = []
    for d in report["duplicates"]:
        if d.get("baselined"):
            continue
        first = d["definitions"][0]
        f = first["file"] + ("(%s)" % first["member"] if first.get("member") else "")
        out.append({"rule": d["rule"], "severity": d["severity"], "symbol": d["name"],
                    "fix": d["fix"], "file": f})
    return out


def run_audit(audit, command, args, fmt, cwd):
    r = harness.run([audit, command, "--format", fmt] + args, cwd=cwd, check=False)
    if r.returncode not in (0, 1):
        raise Failure("aoti-audit %s --format %s exited %d: %s" % (command, fmt, r.returncode, r.stderr))
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError as e:
        raise Failure("aoti-audit %s --format %s printed no JSON (%s):\n%s" % (command, fmt, e, r.stdout[:2000]))


def run_case(audit, validator, rule_lines, name, rule, command, build, root):
    args = build(Tree(root))
    rc_json, report = run_audit(audit, command, args, "json", root)
    rc_sarif, log = run_audit(audit, command, args, "sarif", root)
    validate(validator, log)
    expect(rc_json == rc_sarif, "exit status: json %d, sarif %d" % (rc_json, rc_sarif))
    ids = check_rules(log, rule_lines)
    if command == "check":
        findings = report["findings"]
    elif command == "link":
        findings = [f for link in report["links"] for f in link["findings"]]
    else:
        findings = dups_findings(report)
    fired = [r["ruleId"] for r in log["runs"][0]["results"]]
    # A rule id, or an id prefix ("AOTI2": any link rule).
    expect(any(f.startswith(rule) for f in fired), "%s did not fire (results: %s)" % (rule, sorted(set(fired))))
    check_results(log, findings, ids)
    return len(log["runs"][0]["results"])


def main():
    ap = harness.parser(__doc__)
    a = ap.parse_args()
    a.audit = os.path.abspath(a.audit)
    if a.list:
        return harness.list_cases(CASES, lambda c: "%-22s %s %-5s %s" % (c[0], c[1], c[2], c[3].__doc__))
    cases = harness.select(CASES, a.case, name_of=lambda c: c[0])
    if cases is None:
        return 2
    validator = load_validator()
    if validator is None:
        return harness.SKIP
    # The schema is in force: a log that breaks it is rejected.
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                         "results": [{"message": {"text": "m"}, "level": "fatal",
                                                      "fixes": [{"description": {"text": "d"}}]}]}]}
    if not list(validator.iter_errors(bad)):
        print("FAIL the validator accepts an invalid log")
        return 1
    r = harness.run([a.audit, "rules"])
    rule_lines = []
    for line in r.stdout.splitlines():
        parts = line.split()
        rule_lines.append((parts[0], parts[1], parts[2].strip("[]")))

    tally = harness.Tally()
    with harness.scratch("aoti-sarif-", keep=a.keep) as top:
        for name, rule, command, fn in cases:
            root = os.path.join(top, name)
            os.makedirs(root)
            try:
                n = run_case(a.audit, validator, rule_lines, name, rule, command, fn, root)
                tally.row([], "%-22s %s (%d result(s), schema-valid)" % (name, rule, n))
            except Failure as e:
                tally.row([e], "%-22s %s" % (name, rule))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
