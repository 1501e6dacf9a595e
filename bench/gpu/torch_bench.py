"""Per-run latency of torch's own runners and of eager PyTorch, plus cold start.

    python3 torch_bench.py MODELS_DIR OUT.json [--iters N --warmup K]

For every MODELS_DIR/<name>.linked (the LibTorch-linked build of the model,
which is what torch's runners load), each in a child process of its own so a
crash is recorded and the rest still runs:
  package  torch._inductor.aoti_load_package(model.pt2)
  runner   torch._C._aoti.AOTIModelContainerRunnerCuda on the extracted .so
  eager    the eager module
Latency is timed the way aoti-run times it: a CUDA event before and after one
run on the current stream, synchronised after each run, so host overhead
counts. Cold start: process start to the first output, through the runner.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_TESTS = os.path.join(HERE, "..", "..", "tests", "gpu")


def child(kind, d, iters, warmup):
    import numpy as np
    import torch
    sys.path.insert(0, GPU_TESTS)
    import models

    torch.backends.cuda.matmul.allow_tf32 = False
    info = json.load(open(os.path.join(d, "info.json")))
    specs = info["sets"]["default"]["inputs"]
    ins = [torch.from_numpy(np.load(os.path.join(d, f"in_{i}.npy"))).to(getattr(torch, s[0])).cuda()
           for i, s in enumerate(specs)]
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
    print(json.dumps({"p50": float(np.percentile(a, 50)), "p90": float(np.percentile(a, 90)),
                      "p99": float(np.percentile(a, 99)), "mean": float(a.mean()), "n": len(ms)}))


COLD_RUNNER = r"""
import sys, os, torch, numpy as np
r = torch._C._aoti.AOTIModelContainerRunnerCuda(sys.argv[1], 1, "cuda", os.path.dirname(sys.argv[1]))
x = [torch.from_numpy(np.load(a.split(":")[0])).to(getattr(torch, a.split(":")[1])).cuda() for a in sys.argv[2:]]
y = r.run(x); torch.cuda.synchronize(); print("ready", flush=True)
"""


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
        d = os.path.join(args.models_dir, f"{name}.linked")
        r = {}
        for kind in ("package", "runner", "eager"):
            try:
                p = subprocess.run([sys.executable, __file__, "--child", kind, d, str(args.iters), str(args.warmup)],
                                   capture_output=True, text=True, timeout=240)
                if p.returncode == 0:
                    r[kind] = json.loads(p.stdout.strip().splitlines()[-1])
                else:
                    r[kind] = {"crashed": True, "rc": p.returncode, "stderr_tail": p.stderr[-800:]}
            except subprocess.TimeoutExpired:
                r[kind] = {"crashed": True, "rc": "timeout"}
        (so,) = glob.glob(os.path.join(d, "pkg", "*", "data", "aotinductor", "model", "*.so"))
        specs = json.load(open(os.path.join(d, "info.json")))["sets"]["default"]["inputs"]
        in_args = [f"{d}/in_{i}.npy:{s[0]}" for i, s in enumerate(specs)]
        p = subprocess.run([sys.executable, os.path.join(HERE, "cold_start.py"), str(args.cold_repeats),
                            sys.executable, "-c", COLD_RUNNER, so] + in_args, capture_output=True, text=True)
        r["cold_runner"] = json.loads(p.stdout) if p.returncode == 0 else {"error": p.stdout[-400:] + p.stderr[-800:]}
        results["models"][name] = r
        print(name, {k: (v.get("p50") if "p50" in v else v.get("median_s", v.get("rc"))) for k, v in r.items()},
              flush=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
