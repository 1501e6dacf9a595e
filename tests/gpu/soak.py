#!/usr/bin/env python3
"""GPU soak: compute-sanitizer memcheck and load/unload cycles over the models.

For every exported model of models.ALL (its default input set):
  memcheck  compute-sanitizer --tool memcheck over aoti-run with the model's
            inputs and expected outputs: 0 errors and exit 0 wanted
  cycles    aoti-run --load-cycles N: device and host memory in use after
            the first and the last load-run-unload cycle; the device must
            come back within 16 MiB and the host heap within 1 MiB

Usage: soak.py MODELS_DIR AOTI_RUN OUT_DIR [--cycles N] [--cycles-for NAME=N]...
Writes OUT_DIR/soak.json and OUT_DIR/memcheck_<model>.log.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

DEVICE_SLACK = 16 << 20
HOST_SLACK = 1 << 20


def sanitizer():
    for c in (shutil.which("compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer",
              "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if c and os.path.exists(c):
            return c
    return None


def model_args(d):
    info = json.load(open(os.path.join(d, "info.json")))
    args = []
    for kind, flag in (("in", "-i"), ("expect", "-e")):
        n = 0
        while os.path.exists(os.path.join(d, f"{kind}_{n}.npy")):
            args += [flag, os.path.join(d, f"{kind}_{n}.npy")]
            n += 1
    return args + ["--rtol", str(info["rtol"]), "--atol", str(info["atol"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models_dir")
    ap.add_argument("aoti_run")
    ap.add_argument("out_dir")
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--cycles-for", action="append", default=[], help="NAME=N")
    a = ap.parse_args()
    per = {k: int(v) for k, v in (s.split("=") for s in a.cycles_for)}
    cs = sanitizer()
    print("compute-sanitizer:", cs)
    rows, failures = [], 0
    for name in models.ALL:
        d = os.path.join(a.models_dir, name)
        if not os.path.isdir(d):
            rows.append({"model": name, "ok": False, "error": "not exported"})
            failures += 1
            continue
        pt2 = os.path.join(d, "model.pt2")
        args = model_args(d)
        row = {"model": name}
        if cs:
            t = time.time()
            p = subprocess.run([cs, "--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99",
                                a.aoti_run, pt2, *args], capture_output=True, text=True, timeout=600)
            log = p.stdout + p.stderr
            open(os.path.join(a.out_dir, f"memcheck_{name}.log"), "w").write(log)
            summary = [l for l in log.splitlines() if "ERROR SUMMARY" in l]
            row["memcheck"] = {"rc": p.returncode, "summary": summary[-1] if summary else None,
                               "seconds": round(time.time() - t, 1)}
            ok = p.returncode == 0 and summary and "0 errors" in summary[-1]
            row["memcheck"]["ok"] = bool(ok)
            failures += not ok
        n = per.get(name, a.cycles)
        t = time.time()
        p = subprocess.run([a.aoti_run, pt2, *args, "--load-cycles", str(n), "--format", "json"],
                           capture_output=True, text=True, timeout=900)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = {}
        c = doc.get("load_cycles")
        cyc = {"cycles": n, "rc": p.returncode, "seconds": round(time.time() - t, 1)}
        if c:
            cyc["host_growth"] = c["host_heap_bytes"]["last"] - c["host_heap_bytes"]["first"]
            dev = c["device_bytes"]
            cyc["device_first"] = dev and dev["first"]
            cyc["device_growth"] = dev and dev["last"] - dev["first"]
            cyc["ok"] = (p.returncode == 0 and dev is not None and cyc["device_growth"] <= DEVICE_SLACK
                         and cyc["host_growth"] <= HOST_SLACK)
        else:
            cyc["ok"] = False
            cyc["stderr"] = (p.stdout + p.stderr)[-800:]
        failures += not cyc["ok"]
        row["cycles"] = cyc
        row["ok"] = cyc["ok"] and row.get("memcheck", {"ok": True})["ok"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump({"schema_version": 1, "rows": rows, "failures": failures},
              open(os.path.join(a.out_dir, "soak.json"), "w"), indent=1)
    print("soak: %d model(s), %d failure(s)" % (len(rows), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
