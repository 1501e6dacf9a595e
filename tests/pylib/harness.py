"""What the test scripts share: options, tools, scratch space, commands, results.

The agreement and contract tests (tests/link, tests/macho, tests/loader,
tests/cli, tests/config) are scripts that build real fixtures, run real
tools and aoti-audit on them, and compare. Each keeps its cases and its
oracle; this module holds the rest, once:

  parser(doc)             argparse with --audit, --case (repeatable), --list
                          and --keep; a script adds its own options
  select(cases, names)    the cases --case names, or exit status 2 naming
                          the unknown ones
  skip_unless(tools)      SKIP and exit status 77 (the tests' SKIP_RETURN_CODE)
                          when a tool is not on PATH
  scratch(prefix, keep)   a temporary directory, removed unless kept
                          (or a directory the user named, kept)
  list_cases(cases, line) --list: a line a case, exit status 0
  run(cmd, cwd)           a command whose failure is a Failure
  expect(cond, what)      a Failure unless `cond`: a case's expectation
  Workdir                 one case's directory: write sources, run commands
  Tally                   "ok  "/"FAIL" rows, their problems, the exit status
  Checks                  named expectations counted for a summary line
  Cases                   the @case decorator's list

A script finds this file from its own location (tests/<area>/x.py ->
tests/pylib), so it runs the same from a fresh clone, from ctest in any
build directory and by hand:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "pylib"))
    import harness
"""
import argparse
import contextlib
import os
import shutil
import subprocess
import tempfile

# ctest's SKIP_RETURN_CODE for these tests.
SKIP = 77


class Failure(Exception):
    """A case's expectation or fixture build failed; the message says how."""


def parser(doc=None, audit_required=True, cases=True):
    """The options every script takes (--audit; with `cases`, --case, --list
    and --keep too); returns the parser for more."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--audit", required=audit_required, help="the aoti-audit to test")
    if cases:
        ap.add_argument("--case", action="append",
                        help="run only this case (repeatable)")
        ap.add_argument("--list", action="store_true", help="list the cases and exit")
        ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    return ap


def select(cases, names, name_of=lambda c: c.__name__):
    """The cases named (all of them when `names` is empty), in their order;
    None after saying which names are unknown."""
    if not names:
        return list(cases)
    known = {name_of(c) for c in cases}
    unknown = [n for n in names if n not in known]
    if unknown:
        print("no case named %s" % ", ".join(unknown))
        return None
    return [c for c in cases if name_of(c) in names]


def list_cases(cases, line=lambda c: c.__name__):
    """What --list prints: `line(case)` for each case; the exit status."""
    for c in cases:
        print(line(c))
    return 0


def missing_tools(tools):
    """The tools not on PATH. An entry may be a tuple of alternatives."""
    missing = []
    for tool in tools:
        alternatives = tool if isinstance(tool, tuple) else (tool,)
        if not any(shutil.which(t) for t in alternatives):
            missing.append(alternatives[0])
    return missing


def skip_unless(tools):
    """SKIP (the exit status to return) when a tool is missing, else None."""
    missing = missing_tools(tools)
    if missing:
        print("SKIP: missing %s" % " ".join(missing))
        return SKIP
    return None


@contextlib.contextmanager
def scratch(prefix, keep=False, at=None):
    """A temporary directory, removed afterwards unless `keep` (a bool, or a
    function asked at the end: keep it when a case failed) says otherwise.
    With `at` (a path the user chose to look into afterwards), that
    directory instead, emptied first and always kept."""
    if at:
        shutil.rmtree(at, ignore_errors=True)
        os.makedirs(at)
        yield at
        return
    d = tempfile.mkdtemp(prefix=prefix)
    try:
        yield d
    finally:
        if keep() if callable(keep) else keep:
            print("kept", d)
        else:
            shutil.rmtree(d, ignore_errors=True)


def run(cmd, cwd=None, check=True, env=None):
    """Runs `cmd` (a list) with text output captured; with `check`, a
    non-zero exit is a Failure that shows the command and what it said."""
    p = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True,
                       errors="replace", env=env)
    if check and p.returncode != 0:
        raise Failure("command failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p


def expect(cond, what):
    """A case's expectation: a Failure saying `what` unless `cond`."""
    if not cond:
        raise Failure(what)


class Workdir:
    """One case's directory: the sources written into it and the commands
    run in it (a failed command is a Failure)."""

    def __init__(self, root):
        self.root = root

    def path(self, name):
        return os.path.join(self.root, name)

    def write(self, name, text):
        """Writes `text` to `name` (its directories made); the full path."""
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run(self, *cmd, check=True, env=None):
        return run(cmd, cwd=self.root, check=check, env=env)


class Tally:
    """The result table of a run loop: one row a run, "ok  " or "FAIL" and
    the script's columns, each problem indented under its row."""

    def __init__(self):
        self.runs = self.failed = 0

    def row(self, problems, text):
        self.runs += 1
        self.failed += bool(problems)
        print("%s %s" % ("ok  " if not problems else "FAIL", text))
        for p in problems:
            print("       " + str(p).rstrip("\n").replace("\n", "\n       "))

    @property
    def passed(self):
        return self.runs - self.failed

    def status(self):
        return 1 if self.failed else 0

    def finish(self):
        """Prints the counts; the exit status."""
        print("%d passed, %d failed" % (self.passed, self.failed))
        return self.status()


class Checks:
    """Named expectations: a failed one is printed at once with its detail,
    and finish() prints the counts and returns the exit status."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            return True
        self.failed += 1
        detail = str(detail)
        print("FAIL %s%s" % (name, "\n    " + detail.replace("\n", "\n    ") if detail else ""))
        return False

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


class Cases(list):
    """The cases of a script in the order they are defined: `case = Cases()`,
    then `@case.add` on each function."""

    def add(self, fn):
        self.append(fn)
        return fn
