#!/usr/bin/env python3
"""`aoti-audit link --cmake-build-dir` and `--ninja` on a real CMake project.

cmake_project/ has a host, runner, that links the shim archive plainly (the
seed bug: no whole-archive), runner_ok that links it whole with
ENABLE_EXPORTS, and a tool that links no shims. The test configures and builds
it in a temporary directory and checks that

  * before cmake has answered the File API query, the audit writes the query,
    asks for a cmake re-run and exits 2;
  * after the re-run and a build, runner fails with AOTI201 (the shim it does
    not call) and AOTI202 (the one it calls), with the CMake fix
    ($<LINK_LIBRARY:WHOLE_ARCHIVE,shims>, ENABLE_EXPORTS); runner_ok passes;
    tool is skipped;
  * the real outputs agree: runner_ok's .dynsym has both shims, runner's none;
  * `--ninja BUILD runner` reaches the same verdict from ninja's command.

Usage: cmake_fixture.py --audit PATH
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHIMS = {"aoti_torch_get_sizes", "aoti_torch_dtype_float32"}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def dynsym(path):
    p = run(["llvm-nm-19", "-D", "--defined-only", "-j", path])
    return set(p.stdout.split()) & SHIMS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--audit", required=True)
    args = ap.parse_args()
    for tool in ("cmake", "ninja", "gcc", "llvm-nm-19"):
        if not shutil.which(tool):
            print("SKIP: %s not found" % tool)
            return 77
    d = tempfile.mkdtemp(prefix="aoti-link-cmake-")
    fails = []

    def expect(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    try:
        b = os.path.join(d, "build")
        env = dict(os.environ, CC="gcc")
        p = run(["cmake", "-S", os.path.join(HERE, "cmake_project"), "-B", b, "-G", "Ninja"], env=env)
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            return 1
        p = run([args.audit, "link", "--cmake-build-dir", b])
        expect(p.returncode == 2 and "re-run cmake" in p.stderr,
               "no reply yet: exit 2 and asks for a cmake re-run (%d: %s)" %
               (p.returncode, p.stderr.strip()[:200]))
        expect(os.path.exists(os.path.join(b, ".cmake/api/v1/query/codemodel-v2")),
               "the codemodel-v2 query is written")
        for cmd in (["cmake", b], ["ninja", "-C", b]):
            p = run(cmd, env=env)
            if p.returncode != 0:
                print(p.stdout, p.stderr)
                return 1

        p = run([args.audit, "link", "--cmake-build-dir", b, "--format", "json"])
        expect(p.returncode == 1, "the audit fails the build tree (exit %d)" % p.returncode)
        doc = json.loads(p.stdout)
        links = {l["target"]: l for l in doc["links"]}
        expect(set(links) == {"runner", "runner_ok"}, "linted targets: %s" % sorted(links))
        expect(doc.get("skipped_targets") == ["tool"], "skipped: %s" % doc.get("skipped_targets"))
        r = links.get("runner", {"findings": [], "required": []})
        status = {q["name"]: q["status"] for q in r["required"]}
        expect(status == {"aoti_torch_get_sizes": "defined-not-exported",
                          "aoti_torch_dtype_float32": "not-pulled-in"},
               "runner statuses: %s" % status)
        f201 = [f for f in r["findings"] if f["rule"] == "AOTI201"]
        expect(len(f201) == 1 and f201[0]["symbol"] == "aoti_torch_dtype_float32"
               and "$<LINK_LIBRARY:WHOLE_ARCHIVE,shims>" in f201[0]["fix"]
               and "target_link_libraries(runner" in f201[0]["fix"]
               and "ENABLE_EXPORTS" in f201[0]["fix"],
               "AOTI201 names the CMake fix: %s" % (f201[0]["fix"] if f201 else None))
        f202 = [f for f in r["findings"] if f["rule"] == "AOTI202"]
        expect(len(f202) == 1 and "set_target_properties(runner PROPERTIES ENABLE_EXPORTS ON)"
               in f202[0]["fix"], "AOTI202 names ENABLE_EXPORTS")
        ok = links.get("runner_ok", {"ok": False, "required": []})
        expect(ok["ok"] and all(q["status"] == "exported" for q in ok["required"])
               and len(ok["required"]) == 2, "runner_ok exports both shims")
        expect(dynsym(os.path.join(b, "runner_ok")) == SHIMS, "runner_ok's real .dynsym has both")
        expect(dynsym(os.path.join(b, "runner")) == set(), "runner's real .dynsym has none")

        p = run([args.audit, "link", "--ninja", b, "runner", "--format", "json"])
        doc = json.loads(p.stdout) if p.stdout.startswith("{") else {"links": [{}]}
        n = doc["links"][0]
        nstatus = {q["name"]: q["status"] for q in n.get("required", [])}
        expect(p.returncode == 1 and nstatus == status,
               "--ninja reaches the same verdict (%d, %s)" % (p.returncode, nstatus))
        p = run([args.audit, "link", "--ninja", b, "runner_ok"])
        expect(p.returncode == 0, "--ninja runner_ok passes (%d: %s)" % (p.returncode, p.stdout[-300:]))
        p = run([args.audit, "link", "--ninja", b, "no_such_target"])
        expect(p.returncode == 2, "--ninja with an unknown target: exit 2")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("%d failure(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
