#!/usr/bin/env python3
"""Every rule has a documentation page.

Runs `aoti-audit rules` and checks, for each rule it lists, that
DOCS/rules/<ID>.md exists and that its first heading names the rule's id and
name. A rule added without a page fails here. The test reads whatever the
binary lists, so rules of every command (AOTI0xx check, AOTI1xx dups, AOTI2xx
link) are held to the same contract.

Usage: rule_pages.py --audit PATH --docs DIR [--id-prefix AOTI0]
"""
import argparse
import os
import re
import subprocess
import sys

# "AOTI001  undefined-symbol  [error]  a plugin's reference is ..."
RULE_LINE = re.compile(r"^(?P<id>[A-Z]+[0-9]+)\s+(?P<name>\S+)\s+\[(?P<severity>\w+)\]\s+(?P<summary>.*)$")
HEADING = re.compile(r"^#{1,6}\s+(?P<text>.*\S)\s*$")


def list_rules(audit):
    r = subprocess.run([audit, "rules"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("`%s rules` exited %d: %s" % (audit, r.returncode, r.stderr.strip()))
    rules, bad = [], []
    for line in r.stdout.splitlines():
        if not line.strip():
            continue
        m = RULE_LINE.match(line)
        if m:
            rules.append(m.groupdict())
        else:
            bad.append(line)
    return rules, bad


def first_heading(path):
    """The first Markdown heading outside a fenced code block, or None."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            if fenced:
                continue
            m = HEADING.match(line)
            if m:
                return m.group("text")
    return None


def check_page(docs, rule):
    """Returns the reason the rule's page is wrong, or None."""
    page = os.path.join(docs, "rules", rule["id"] + ".md")
    if not os.path.isfile(page):
        return "no page %s" % page
    heading = first_heading(page)
    if heading is None:
        return "%s has no heading" % page
    words = set(re.split(r"[^A-Za-z0-9_-]+", heading))
    missing = [w for w in (rule["id"], rule["name"]) if w not in words]
    if missing:
        return "%s: first heading %r does not name %s" % (page, heading, " and ".join(missing))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--audit", required=True, help="the aoti-audit binary")
    ap.add_argument("--docs", required=True, help="the docs directory (holds rules/)")
    ap.add_argument("--id-prefix", default="", help="check only rules whose id starts with this")
    args = ap.parse_args()

    try:
        rules, bad = list_rules(args.audit)
    except (OSError, RuntimeError) as e:
        print("FAIL cannot list the rules: %s" % e)
        print("0 passed, 1 failed")
        return 1
    rules = [r for r in rules if r["id"].startswith(args.id_prefix)]

    passed = failed = 0
    for line in bad:
        print("FAIL `aoti-audit rules` printed a line that is not a rule: %r" % line)
        failed += 1
    if not rules:
        print("FAIL `aoti-audit rules` listed no rule%s" %
              (" with id prefix %r" % args.id_prefix if args.id_prefix else ""))
        failed += 1
    for rule in rules:
        problem = check_page(args.docs, rule)
        if problem:
            print("FAIL %s %s: %s" % (rule["id"], rule["name"], problem))
            failed += 1
        else:
            print("ok   %s %s" % (rule["id"], rule["name"]))
            passed += 1

    # A page without a rule is not an error (its rule may be on its way),
    # but say so: it may be a renamed or removed rule's leftover.
    listed = {r["id"] for r in rules}
    rules_dir = os.path.join(args.docs, "rules")
    if os.path.isdir(rules_dir):
        for f in sorted(os.listdir(rules_dir)):
            m = re.match(r"^([A-Z]+[0-9]+)\.md$", f)
            if m and m.group(1).startswith(args.id_prefix) and m.group(1) not in listed:
                print("note %s has no rule in `aoti-audit rules`" % f)

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
