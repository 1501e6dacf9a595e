#!/usr/bin/env python3
"""cmake/AotiAudit.cmake on a real project (fixture/), configured, built and
tested in a temporary directory with the real CMake, compiler and CTest.

  default          the host force-links the shims but forgets ENABLE_EXPORTS:
                   the check test fails with AOTI002, the dups test passes,
                   and check.sarif holds the AOTI002 results;
  FIXED=ON         the same host with ENABLE_EXPORTS: both tests pass;
  DUPLICATE=ON     a second archive on the host's link line defines a shim
                   again: the dups test (over the host's LINK_LIBRARIES)
                   fails with AOTI101. This one finds the module through
                   find_package(AotiAudit), from an install-shaped prefix.

Usage: cmake_helper_test.py --audit PATH --module PATH [--keep]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


def run(cmd, cwd=None, ok=True):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise Failure("`%s` exited %d:\n%s%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    return r


def ctest(build, name):
    """Runs one test; returns (passed, its output)."""
    r = run(["ctest", "--test-dir", build, "-R", "^%s$" % name.replace(".", "\\."),
             "-V", "--no-tests=error"], ok=False)
    return r.returncode == 0, r.stdout + r.stderr


def configure_and_build(build, defs):
    run(["cmake", "-S", os.path.join(HERE, "fixture"), "-B", build, "-G", "Ninja"] +
        ["-D%s=%s" % kv for kv in defs.items()])
    run(["cmake", "--build", build])


def expect(cond, what, log=""):
    if not cond:
        raise Failure(what + ("\n--- test output ---\n" + log[-3000:] if log else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--audit", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    top = tempfile.mkdtemp(prefix="aoti-cmake-helper-")
    in_tree = {"AOTI_AUDIT_MODULE": a.module, "AOTI_AUDIT_EXECUTABLE": a.audit}
    failed = 0

    def case(name, fn):
        nonlocal failed
        try:
            fn(os.path.join(top, name))
            print("PASS", name)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))

    def default(build):
        configure_and_build(build, in_tree)
        ok, log = ctest(build, "audit.host_loads_model")
        expect(not ok, "the audit of a host without ENABLE_EXPORTS passed", log)
        expect("AOTI002" in log and "ENABLE_EXPORTS" in log, "the failure does not name AOTI002 and its fix", log)
        ok, log = ctest(build, "audit.host_dups")
        expect(ok, "the dups test failed on a project without duplicates", log)
        expect("libshims.a" in log, "the dups test did not look at the host's archive", log)
        with open(os.path.join(build, "check.sarif")) as f:
            sarif = json.load(f)
        rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
        expect(rules == {"AOTI002"}, "check.sarif has results %s, expected AOTI002" % sorted(rules))

    def fixed(build):
        configure_and_build(build, dict(in_tree, FIXED="ON"))
        for t in ("audit.host_loads_model", "audit.host_dups"):
            ok, log = ctest(build, t)
            expect(ok, "%s failed with ENABLE_EXPORTS set" % t, log)
        out = run([os.path.join(build, "host"), os.path.join(build, "model.so")])
        expect("loaded" in out.stdout, "the fixed host does not load the model: " + out.stdout)

    def duplicate(build):
        # An install-shaped prefix: the module as a package config, the tool in bin/.
        prefix = os.path.join(os.path.dirname(build), "prefix")
        os.makedirs(os.path.join(prefix, "lib/cmake/AotiAudit"))
        os.makedirs(os.path.join(prefix, "bin"))
        shutil.copy(a.module, os.path.join(prefix, "lib/cmake/AotiAudit/AotiAuditConfig.cmake"))
        shutil.copy(a.module, os.path.join(prefix, "lib/cmake/AotiAudit/AotiAudit.cmake"))
        os.symlink(os.path.abspath(a.audit), os.path.join(prefix, "bin/aoti-audit"))
        configure_and_build(build, {"CMAKE_PREFIX_PATH": prefix, "FIXED": "ON", "DUPLICATE": "ON"})
        cache = open(os.path.join(build, "CMakeCache.txt")).read()
        expect("AOTI_AUDIT_EXECUTABLE:FILEPATH=%s/bin/aoti-audit" % prefix in cache,
               "find_package did not find the tool next to the package")
        ok, log = ctest(build, "audit.host_dups")
        expect(not ok and "AOTI101" in log, "the dups test did not fail with AOTI101", log)
        ok, log = ctest(build, "audit.host_loads_model")
        expect(ok, "the check test failed on the exported host", log)

    case("default", default)
    case("fixed", fixed)
    case("duplicate", duplicate)
    if a.keep:
        print("kept in", top)
    else:
        shutil.rmtree(top, ignore_errors=True)
    print("%d case(s) failed" % failed if failed else "all cases passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
