#!/usr/bin/env python3
"""The project's own link lines audit clean: `aoti-audit link --ninja`.

aoti-run and aoti-audit are GCC-built C++ programs whose objects define
dozens of the same STB_GNU_UNIQUE names (statics of inline functions,
template static members, each in a COMDAT group). For each target given:

  * the oracle: the exact command ninja linked it with (`ninja -t commands
    TARGET`, its last line) is run again into a scratch output, in the build
    directory, and must link;
  * the lines have STB_GNU_UNIQUE names defined in two or more of their
    objects (readelf; at least one line must, so the test is about what it
    says: how many a line has depends on the build type and the options, an
    ASan Debug build of aoti-run has none);
  * `aoti-audit link --format json --ninja BUILD TARGET` exits 0 with
    `ok: true`, no multiple definition and no error finding.

Needs a Ninja build tree (exit 77, a skip, for another generator).

Usage: own_link_lines.py --audit PATH --build-dir DIR TARGET...
"""
import collections
import json
import os
import re
import shlex
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402


def run(cmd, cwd=None):
    return harness.run(cmd, cwd=cwd, check=False)


def link_command(build, target):
    p = run(["ninja", "-C", build, "-t", "commands", target])
    if p.returncode != 0 or not p.stdout.strip():
        raise harness.Failure("ninja -t commands %s: %s" % (target, p.stderr))
    line = p.stdout.strip().splitlines()[-1]
    # CMake's link rule: ": && CMD && :"
    line = re.sub(r"^:\s*&&\s*", "", line)
    line = re.sub(r"\s*&&\s*:\s*$", "", line)
    return shlex.split(line)


def unique_names(build, words):
    """STB_GNU_UNIQUE names defined by two or more of the line's objects."""
    seen = collections.Counter()
    for w in words:
        if not w.endswith(".o"):
            continue
        p = run(["readelf", "-sW", os.path.join(build, w)])
        names = set()
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) >= 8 and f[4] == "UNIQUE" and f[6] != "UND":
                names.add(f[7])
        seen.update(names)
    return sorted(n for n, c in seen.items() if c >= 2)


def main():
    ap = harness.parser(__doc__, cases=False)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("targets", nargs="+")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    if not os.path.exists(os.path.join(build, "build.ninja")) or not shutil.which("ninja"):
        print("SKIP: %s is not a Ninja build tree" % build)
        return harness.SKIP
    tally = harness.Tally()

    def expect(cond, what, detail=""):
        tally.row([] if cond else [detail or "not so"], what)

    unique_total = 0
    with harness.scratch("aoti-own-link-") as scratch:
        for t in args.targets:
            words = link_command(build, t)
            out = words.index("-o")
            relinked = list(words)
            relinked[out + 1] = os.path.join(scratch, t)
            p = run(relinked, cwd=build)
            expect(p.returncode == 0, "%s: the real linker links ninja's line again" % t,
                   p.stderr[-2000:])
            uniq = unique_names(build, words)
            unique_total += len(uniq)
            print("     %s: %d STB_GNU_UNIQUE name(s) defined in several objects (e.g. %s)" %
                  (t, len(uniq), uniq[0] if uniq else "-"))
            a = run([args.audit, "link", "--format", "json", "--ninja", build, t])
            expect(a.returncode == 0, "%s: aoti-audit link --ninja exits 0 (got %d)" %
                   (t, a.returncode), a.stderr + a.stdout[:3000])
            try:
                link = json.loads(a.stdout)["links"][0]
            except (ValueError, KeyError, IndexError):
                expect(False, "%s: aoti-audit printed a report" % t)
                continue
            errors = [f["rule"] + " " + f.get("symbol", "") for f in link["findings"]
                      if f["severity"] == "error"]
            expect(link["ok"] and not link["multiple_definitions"] and not errors,
                   "%s: audits clean (multiple definitions %s, errors %s)" %
                   (t, [m["symbol"] for m in link["multiple_definitions"]][:5], errors[:5]))
        expect(unique_total > 0, "the lines define %d STB_GNU_UNIQUE name(s) in several objects"
               % unique_total)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
