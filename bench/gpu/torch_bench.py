"""Per-run latency of torch's own runners and of eager PyTorch, plus cold start.

    python3 torch_bench.py MODELS_DIR OUT.json [--iters N --warmup K]

For every MODELS_DIR/<name>.<build> (LibTorch-linked builds: "linked" has the
same inductor options as the LibTorch-free build bar link_libtorch and where
the weights live; "linked-default" is torch's default options), in child
processes so that a crash is recorded and the rest still runs:
  eager    the eager module
  runner   torch._C._aoti.AOTIModelContainerRunnerCuda on the extracted .so
  package  torch._inductor.aoti_load_package(model.pt2)
A child prints one JSON line per finished measurement; a crash (faulthandler
prints where) ends it and is recorded with its exit status.
Latency is timed the way aoti-run times it: a CUDA event before and after one
run on the current stream, synchronised after each run, so host overhead
counts. Cold start: process start to the first output line.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_TESTS = os.path.join(HERE, "..", "..", "tests", "gpu")


def child(kinds, d, iters, warmup):
    import numpy as np
    import torch
    sys.path.insert(0, GPU_TESTS)
    import models

    torch.backends.cuda.matmul.allow_tf32 = False
    info = json.load(open(os.path.join(d, "info.json")))
    specs = info["sets"]["default"]["inputs"]
    ins = [torch.from_numpy(np.load(os.path.join(d, f"in_{i}.npy"))).to(getattr(torch, s[0])).cuda()
           for i, s in enumerate(specs)]
    for kind in kinds.split(","):
        print(json.dumps({"starting": kind}), flush=True)
        with torch.no_grad():
            if kind == "package":
                m = torch._inductor.aoti_load_package(os.path.join(d, "model.pt2"))
                fn = lambda: m(*ins)  # noqa: E731
            elif kind == "runner":
                (so,) = glob.glob(os.path.join(d, "pkg", "*", "data", "aotinductor", "model", "*.so"))
                r = torch._C._aoti.AOTIModelContainerRunnerCuda(so, 1, "cuda", os.path.dirname(so))
                fn = lambda: r.run(ins)  # noqa: E731
            else:
                m, _, _, _ = models.build(info["name"])
                m = m.cuda().eval()
                fn = lambda: m(*ins)  # noqa: E731
            fn()
            print(json.dumps({"first_run_ok": kind}), flush=True)
            for _ in range(warmup):
                fn()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            ms = []
            for _ in range(iters):
                start.record()
                fn()
                end.record()
                end.synchronize()
                ms.append(start.elapsed_time(end))
        a = np.asarray(ms)
        print(json.dumps({"kind": kind, "p50": float(np.percentile(a, 50)), "p90": float(np.percentile(a, 90)),
                          "p99": float(np.percentile(a, 99)), "mean": float(a.mean()), "n": len(ms)}), flush=True)


def measure(kinds, d, iters, warmup):
    """Runs a child; returns {kind: result or crash record}."""
    try:
        p = subprocess.run([sys.executable, "-X", "faulthandler", __file__, "--child", kinds, d, str(iters),
                            str(warmup)], capture_output=True, text=True, timeout=150)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = (e.stdout or b"").decode(), (e.stderr or b"").decode(), "timeout"
    res, started = {}, None
    for line in out.splitlines():
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "starting" in doc:
            started = doc["starting"]
        elif "first_run_ok" in doc:
            res[started] = {"first_run_ok": True}
        elif "kind" in doc:
            res[doc.pop("kind")] = doc
            started = None
    if started:
        stage = "run" if res.get(started, {}).get("first_run_ok") else "load or first run"
        res[started] = {"crashed": True, "rc": rc, "during": stage, "stderr_tail": err[-1200:]}
    return res


COLD_RUNNER = r"""
import sys, os, torch, numpy as np
r = torch._C._aoti.AOTIModelContainerRunnerCuda(sys.argv[1], 1, "cuda", os.path.dirname(sys.argv[1]))
x = [torch.from_numpy(np.load(a.split(":")[0])).to(getattr(torch, a.split(":")[1])).cuda() for a in sys.argv[2:]]
y = r.run(x); torch.cuda.synchronize(); print("ready", flush=True)
"""

COLD_EAGER = r"""
import sys, torch
sys.path.insert(0, sys.argv[1])
import models
m, ins, _, _ = models.build(sys.argv[2])
m = m.cuda().eval()
with torch.no_grad():
    y = m(*models.to_device(ins))
torch.cuda.synchronize(); print("ready", flush=True)
"""


def cold(cmd, repeats):
    p = subprocess.run([sys.executable, os.path.join(HERE, "cold_start.py"), str(repeats)] + cmd,
                       capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": (p.stdout + p.stderr)[-800:]}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("models_dir")
    ap.add_argument("out")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--cold-repeats", type=int, default=3)
    ap.add_argument("--models", default="mlp,convbn,attn_bf16,embed_argmax")
    args = ap.parse_args()
    results = {"iters": args.iters, "warmup": args.warmup, "models": {}}
    for name in args.models.split(","):
        r = {}
        d = os.path.join(args.models_dir, f"{name}.linked")
        if os.path.isdir(d):
            r.update(measure("eager,runner", d, args.iters, args.warmup))
            if name == "mlp":
                r["package"] = measure("package", d, args.iters, args.warmup).get("package")
        dd = os.path.join(args.models_dir, f"{name}.linked-default")
        if os.path.isdir(dd):
            got = measure("runner,package", dd, args.iters, args.warmup)
            r["runner_default_build"] = got.get("runner")
            r["package_default_build"] = got.get("package")
        if name == "mlp":
            r["cold_eager"] = cold([sys.executable, "-c", COLD_EAGER, GPU_TESTS, name], args.cold_repeats)
            for build, key in ((d, "cold_runner"), (dd, "cold_runner_default_build")):
                ok = r.get("runner" if build == d else "runner_default_build") or {}
                if os.path.isdir(build) and "p50" in ok:
                    (so,) = glob.glob(os.path.join(build, "pkg", "*", "data", "aotinductor", "model", "*.so"))
                    specs = json.load(open(os.path.join(build, "info.json")))["sets"]["default"]["inputs"]
                    r[key] = cold([sys.executable, "-c", COLD_RUNNER, so] +
                                  [f"{build}/in_{i}.npy:{s[0]}" for i, s in enumerate(specs)], args.cold_repeats)
        results["models"][name] = r
        print(name, json.dumps({k: (v.get("p50", v.get("median_s", "crash" if v.get("crashed") else v))
                                    if isinstance(v, dict) else v) for k, v in r.items()})[:600], flush=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
