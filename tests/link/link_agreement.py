"""What the two link agreement matrices share.

link_matrix.py (ELF: GNU ld and lld) and link_matrix_macho.py (ld64.lld)
run the same experiment on two formats: every case is one link line over
fixtures compiled at test time, run once per linker; the audit predicts
first (`aoti-audit link --format json`), the real linker links, and a run
passes only when the two agree and the case's own expectation holds. Each
script keeps what is its format's -- its fixtures beyond the common ones,
its cases, how it reads what the linker did -- and takes the rest from here:

  COMMON_SOURCES          the C fixtures both build: four shims, a helper
                          that needs one, two duplicates, a hidden shim,
                          four mains and a model
  audit(args, extra, cmd, d)
                          the audit's prediction of one link line
  member_key(s)           "ARCHIVE(MEMBER)" as the linkers name a member,
                          with the archive's basename
  compare_outcome(...)    did the link fail exactly when predicted, and
                          with the predicted duplicate and undefined names?
  check_expectations(link, exp, problems)
                          the case's own point: statuses, findings, fixes'
                          words, required names, ok
  check_fix(...)          the proposed fixed command, run for real
  main(...)               --list, --case, the tool check, the scratch
                          directory and the tally of runs
"""
import json
import os
import re

import harness
from harness import Failure, run

COMMON_SOURCES = {
    # shim archive: four members; b calls c (members pull members).
    "shim_a.c": "int aoti_torch_a(void) { return 1; }\n",
    "shim_b.c": "int aoti_torch_c(void);\nint aoti_torch_b(void) { return aoti_torch_c() + 1; }\n",
    "shim_c.c": "int aoti_torch_c(void) { return 3; }\n",
    "shim_d.c": "int aoti_torch_d(void) { return 4; }\n",
    # a second archive whose member needs the shims
    "helper.c": "int aoti_torch_b(void);\nint t_helper(void) { return aoti_torch_b(); }\n",
    # objects that duplicate a shim
    "dup_a.c": "int aoti_torch_a(void) { return 11; }\n",
    "dup_d.c": "int aoti_torch_d(void) { return 14; }\nint t_dup_d(void) { return 0; }\n",
    # hidden shim
    "hidden.c": "__attribute__((visibility(\"hidden\"))) int aoti_torch_h(void) { return 8; }\n"
                "int aoti_torch_v(void) { return 9; }\n",
    # mains
    "main_plain.c": "int main(void) { return 0; }\n",
    "main_a.c": "int aoti_torch_a(void);\nint main(void) { return aoti_torch_a(); }\n",
    "main_b.c": "int aoti_torch_b(void);\nint main(void) { return aoti_torch_b(); }\n",
    "main_helper.c": "int t_helper(void);\nint main(void) { return t_helper(); }\n",
    # a model: what it leaves undefined is what the host must export
    "model.c": "int aoti_torch_a(void);\nint aoti_torch_d(void);\n"
               "int t_model_run(void) { return aoti_torch_a() + aoti_torch_d(); }\n",
}


def audit(args, extra, cmd, d):
    """The one link of `aoti-audit link --format json EXTRA -- CMD`, run in d."""
    p = run([args.audit, "link", "--format", "json"] + extra + ["--"] + cmd, d, check=False)
    if p.returncode not in (0, 1):
        raise Failure("aoti-audit exit %d: %s" % (p.returncode, p.stderr))
    doc = json.loads(p.stdout)
    if doc.get("schema_version") != 1 or len(doc["links"]) != 1:
        raise Failure("unexpected JSON shape")
    return doc["links"][0]


def member_key(s):
    m = re.match(r"^(.*)\(([^()]*)\)$", s.strip())
    if not m:
        return os.path.basename(s.strip())
    return "%s(%s)" % (os.path.basename(m.group(1)), m.group(2))


def differ(problems, label, what, a, b):
    if a != b:
        problems.append("%s%s: audit %s, linker %s" % (label, what, sorted(a), sorted(b)))


def compare_outcome(pred, p, predicted, real, names, label, problems):
    """Whether run `p` succeeded exactly when the prediction `pred` (a link,
    or a fix replay) has no error, and failed with its names: `predicted`
    and `real` are (duplicates, undefined) sets, `names` how the format
    calls the two."""
    pred_ok = not pred["multiple_definitions"] and not pred["undefined"] and \
        not pred.get("problems")
    if pred_ok != (p.returncode == 0):
        problems.append("%slink %s, audit predicted %s (stderr: %s)" %
                        (label, "succeeded" if p.returncode == 0 else "failed",
                         "success" if pred_ok else "failure", p.stderr.strip()[:400]))
    differ(problems, label, names[0], predicted[0], real[0])
    differ(problems, label, names[1], predicted[1], real[1])


def check_expectations(link, exp, problems):
    """The case's own expectation `exp` of the audit's `link`, so that a case
    cannot pass by testing nothing."""
    status = {r["name"]: r["status"] for r in link["required"]}
    rules = {f["rule"] for f in link["findings"]}
    fixes = " ".join(f.get("fix") or "" for f in link["findings"])
    for sym, want in exp.get("status", {}).items():
        if status.get(sym) != want:
            problems.append("expected %s %s, audit says %s" % (sym, want, status.get(sym)))
    for r in exp.get("rules", []):
        if r not in rules:
            problems.append("expected finding %s, got %s" % (r, sorted(rules)))
    for r in exp.get("no_rules", []):
        if r in rules:
            problems.append("unexpected finding %s" % r)
    for w in exp.get("fix_has", []):
        if w not in fixes:
            problems.append("no fix says %r: %s" % (w, fixes[:300]))
    if "required" in exp and sorted(status) != sorted(exp["required"]):
        problems.append("expected required %s, audit says %s" % (exp["required"], sorted(status)))
    if "ok" in exp and link["ok"] != exp["ok"]:
        problems.append("expected ok=%s" % exp["ok"])


def check_fix(link, out, d, problems, compare, exported, words=lambda cmd: cmd):
    """The fix, run for real: it must do what its replay says. Runs the
    audit's fixed command (output OUT.fixed; `words` drops what the run must
    not repeat), compares it with compare(replay, run, output path, label)
    and, when it links as replayed, checks that exported(output path) holds
    every required name. Returns the note of the run's row."""
    fix = link.get("fix")
    if not (fix and fix.get("command")):
        return ""
    cmd = list(fix["command"])
    cmd[cmd.index("-o") + 1] = out + ".fixed"
    cmd = words(cmd)
    fp = run(cmd, d, check=False)
    before = len(problems)
    compare(fix["replay"], fp, os.path.join(d, out + ".fixed"), "with the fix: ")
    if fix["adds_multiple_definitions"]:
        return "fix collides as predicted"
    if fp.returncode == 0 and len(problems) == before:
        required = {r["name"] for r in link["required"]}
        have = exported(os.path.join(d, out + ".fixed"))
        if fix["required_exported"] == fix["required_total"] and not required <= have:
            problems.append("fixed command does not export %s" % sorted(required - have))
        return "fix verified"
    return "fix replayed"


def main(doc, cases, tools, prefix, build_fixtures, linkers, check_run, widths, summary):
    """A matrix script's main: each case of `cases` (name, about, words,
    expectations) runs once per entry of `linkers` through
    check_run(args, case, linker, dir) -> (problems, note), in one scratch
    directory that build_fixtures(dir) filled. `widths` are the name and
    linker columns of the rows; summary(cases run, tally) is the last line."""
    args = harness.parser(doc).parse_args()
    if args.list:
        for c in cases:
            print("%-*s %s" % (widths[0], c[0], c[1]))
        return 0
    selected = harness.select(cases, args.case, name_of=lambda c: c[0])
    if selected is None:
        return 2
    skip = harness.skip_unless(tools)
    if skip:
        return skip
    with harness.scratch(prefix, keep=args.keep) as d:
        build_fixtures(d)
        tally = harness.Tally()
        for case in selected:
            for tc in linkers:
                try:
                    problems, note = check_run(args, case, tc, d)
                except Failure as e:
                    problems, note = [str(e)], ""
                tally.row(problems, "%-*s %-*s %s%s" % (widths[0], case[0], widths[1], tc,
                                                        case[1],
                                                        (" [%s]" % note) if note else ""))
        print(summary(len(selected), tally))
        return tally.status()
