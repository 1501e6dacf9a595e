"""Every exported model through aoti-run, against eager PyTorch, and the bad inputs.

    python3 run_models.py MODELS_DIR AOTI_RUN OUT_DIR

MODELS_DIR holds what export_models.py wrote (model.pt2, pkg/, in_*.npy,
expect_*.npy, info.json per model). Writes OUT_DIR/run_models.json and prints
a table; exits 1 if any case fails.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402


def run(cmd, timeout=300):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def model_so(d):
    (so,) = glob.glob(os.path.join(d, "pkg", "*", "data", "aotinductor", "model", "*.so"))
    return so


def files(d, prefix, kind):
    n = 0
    out = []
    while os.path.exists(os.path.join(d, f"{prefix}{kind}_{n}.npy")):
        out.append(os.path.join(d, f"{prefix}{kind}_{n}.npy"))
        n += 1
    return out


def main():
    models_dir, aoti_run, out_dir = sys.argv[1:4]
    results, failures = [], 0

    def check(case, cmd, want_rc, want_text=None):
        nonlocal failures
        rc, out, err = run(cmd)
        doc = None
        try:
            doc = json.loads(out) if out.strip().startswith("{") else None
        except json.JSONDecodeError:
            pass
        text = out + err
        ok = rc == want_rc and (want_text is None or want_text in text)
        failures += not ok
        r = {"case": case, "rc": rc, "want_rc": want_rc, "ok": ok, "cmd": cmd[1:],
             "result": doc, "stderr": err[-1500:]}
        if want_text:
            r["want_text"] = want_text
        if not ok:
            r["stdout"] = out[-1500:]
        results.append(r)
        return r

    for name in models.ALL:
        d = os.path.join(models_dir, name)
        if not os.path.isdir(d):
            results.append({"case": name, "ok": False, "error": "not exported"})
            failures += 1
            continue
        info = json.load(open(os.path.join(d, "info.json")))
        tol = ["--rtol", str(info["rtol"]), "--atol", str(info["atol"])]
        for set_name in info["sets"]:
            prefix = "" if set_name == "default" else f"{set_name}_"
            args = []
            for f in files(d, prefix, "in"):
                args += ["-i", f]
            for f in files(d, prefix, "expect"):
                args += ["-e", f]
            case = name if set_name == "default" else f"{name}[{set_name}]"
            r = check(case, [aoti_run, os.path.join(d, "model.pt2")] + args + tol +
                      ["--iters", "100", "--warmup", "10", "--format", "json"], 0)
            r["tolerance"] = {"rtol": info["rtol"], "atol": info["atol"]}

    # The same model from its bare .so (weights blob and cubins beside it),
    # including the one whose kernels are cubin files (cuModuleLoad).
    for name in ("mlp", "mlp_nogemm"):
        d = os.path.join(models_dir, name)
        info = json.load(open(os.path.join(d, "info.json")))
        check(f"{name} (.so)", [aoti_run, model_so(d), "-i", f"{d}/in_0.npy", "-e", f"{d}/expect_0.npy",
                                "--rtol", str(info["rtol"]), "--atol", str(info["atol"]),
                                "--format", "json"], 0)

    # Bad input on real models: exit 2 and a message, never a crash.
    d = os.path.join(models_dir, "mlp")
    bad = os.path.join("/tmp", "aoti-bad-inputs")
    os.makedirs(bad, exist_ok=True)
    x = np.load(f"{d}/in_0.npy")
    np.save(f"{bad}/x_i64.npy", x.astype(np.int64))
    np.save(f"{bad}/x_wide.npy", np.zeros((8, 65), np.float32))
    np.save(f"{bad}/x_b1.npy", np.zeros((1, 64), np.float32))
    with open(f"{bad}/garbage.pt2", "w") as f:
        f.write("not a model")
    so = model_so(d)
    stem = so[:-3]
    lone = os.path.join(bad, "lone")
    short = os.path.join(bad, "short")
    for dst in (lone, short):
        os.makedirs(dst, exist_ok=True)
        shutil.copy(so, dst)
        shutil.copy(stem + "_metadata.json", dst)
    blob = open(stem + "_weights.blob", "rb").read()
    with open(os.path.join(short, os.path.basename(stem) + "_weights.blob"), "wb") as f:
        f.write(blob[: len(blob) // 2])
    pt2 = os.path.join(d, "model.pt2")
    check("bad: int64 input", [aoti_run, pt2, "-i", f"{bad}/x_i64.npy"], 2,
          "unmatched dtype, expected: 6(at::kFloat), but got: 4")
    check("bad: wrong shape", [aoti_run, pt2, "-i", f"{bad}/x_wide.npy"], 2,
          "unmatched dim value at 1, expected: 64, but got: 65")
    check("bad: two inputs", [aoti_run, pt2, "-i", f"{d}/in_0.npy", "-i", f"{d}/in_0.npy"], 2,
          "the model takes 1 input")
    check("bad: dynamic dim below its minimum", [aoti_run, os.path.join(models_dir, "dynbatch", "model.pt2"),
                                                 "-i", f"{bad}/x_b1.npy"], 2, "dim value is too small at 0")
    check("bad: cpu for a cuda model", [aoti_run, pt2, "--device", "cpu", "-i", f"{d}/in_0.npy"], 2,
          "compiled for cuda and cannot run on cpu")
    check("bad: no weights blob", [aoti_run, os.path.join(lone, os.path.basename(so)), "-i", f"{d}/in_0.npy"], 2,
          "needs a weights blob of")
    check("bad: short weights blob", [aoti_run, os.path.join(short, os.path.basename(so)), "-i", f"{d}/in_0.npy"], 2,
          "short or wrong blob")
    check("bad: not a model", [aoti_run, f"{bad}/garbage.pt2", "-i", f"{d}/in_0.npy"], 2, "not an AOTInductor model")
    check("bad: unreadable npy", [aoti_run, pt2, "-i", f"{bad}/garbage.pt2"], 2, "not a supported .npy file")
    check("bad: wrong expectation", [aoti_run, pt2, "-i", f"{d}/in_0.npy", "-e", f"{bad}/x_wide.npy"], 1, "MISMATCH")

    with open(os.path.join(out_dir, "run_models.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"{'case':36} {'rc':>3} {'ok':>3}  {'max abs err':>11} {'max rel err':>11}  {'rtol/atol':>12}  p50 ms")
    for r in results:
        doc = r.get("result") or {}
        errs = [o.get("check", {}) for o in doc.get("outputs", [])]
        mabs = max([c.get("max_abs_error") or 0 for c in errs] or [0])
        mrel = max([c.get("max_rel_error") or 0 for c in errs] or [0])
        tol = r.get("tolerance")
        tol_s = f"{tol['rtol']:g}/{tol['atol']:g}" if tol else ""
        p50 = doc.get("latency_ms", {}).get("p50", "")
        print(f"{r['case']:36} {r.get('rc', ''):>3} {'yes' if r['ok'] else 'NO':>3}  "
              f"{mabs:11.3g} {mrel:11.3g}  {tol_s:>12}  {p50}")
        if not r["ok"]:
            print("    stderr:", (r.get("stderr") or r.get("error", ""))[-600:].replace("\n", "\n    "))
    print(f"{len(results) - failures}/{len(results)} cases ok")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
