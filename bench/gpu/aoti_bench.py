"""aoti-run's per-run latency and cold start, and the comparison with torch.

    python3 aoti_bench.py MODELS_DIR AOTI_RUN TORCH_BENCH.json OUT.json

Runs aoti-run on the LibTorch-free build of each model (same kernels as the
LibTorch-linked build torch_bench.py timed: same inductor options bar
link_libtorch and where the weights live), with the same iteration counts,
and cold start as the time from spawning aoti-run to its first line of
output, which it prints once the first run's outputs are on the host.
Prints the table and the ratios against the targets (<= 0.8x torch's runner
per run; cold start < 1/10 of torch's).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    models_dir, aoti_run, torch_json, out = sys.argv[1:5]
    tb = json.load(open(torch_json)) if os.path.exists(torch_json) else {"models": {}}
    iters, warmup = tb.get("iters", 300), tb.get("warmup", 30)
    results = {}
    for name, t in tb["models"].items():
        d = os.path.join(models_dir, name)
        ins = sorted(f for f in os.listdir(d) if f.startswith("in_"))
        args = [aoti_run, os.path.join(d, "model.pt2")] + sum((["-i", os.path.join(d, f)] for f in ins), [])
        p = subprocess.run(args + ["--iters", str(iters), "--warmup", str(warmup), "--format", "json"],
                           capture_output=True, text=True)
        lat = json.loads(p.stdout).get("latency_ms", {}) if p.returncode == 0 else {"error": p.stderr[-500:]}
        c = subprocess.run([sys.executable, os.path.join(HERE, "cold_start.py"), "3"] + args,
                           capture_output=True, text=True)
        cold = json.loads(c.stdout) if c.returncode == 0 else {"error": c.stdout + c.stderr[-500:]}
        results[name] = {"aoti_run": lat, "cold_aoti_run": cold, "torch": t}

    def p50(x):
        return x.get("p50") if isinstance(x, dict) and "p50" in x else None

    def state(x):
        if x is None:
            return "-"
        if isinstance(x, dict) and x.get("crashed"):
            return f"crash({x.get('rc')})"
        return "-"

    hdr = (f"{'model':13} {'aoti-run':>9} {'runner':>10} {'runner*':>9} {'package':>10} {'eager':>8} "
           f"{'vs runner':>10} {'vs eager':>8} | {'cold aoti':>9} {'cold torch':>10} {'(what)':>14} {'ratio':>6}")
    print("per-run p50 latency in ms; runner* = torch's runner on the torch-default build")
    print(hdr)
    for name, r in results.items():
        a, t = p50(r["aoti_run"]), r["torch"]
        rn, rd = p50(t.get("runner")), p50(t.get("runner_default_build"))
        pk, eg = p50(t.get("package")), p50(t.get("eager"))
        ref = rn or rd
        r["ratio_vs_runner"] = a / ref if a and ref else None
        r["ratio_vs_runner_against"] = "runner" if rn else ("runner_default_build" if rd else None)
        r["ratio_vs_eager"] = a / eg if a and eg else None
        ca = r["cold_aoti_run"].get("median_s")
        ct, what = None, None
        for key in ("cold_runner", "cold_runner_default_build", "cold_eager"):
            v = t.get(key) or {}
            if v.get("median_s"):
                ct, what = v["median_s"], key.replace("cold_", "")
                break
        r["cold_ratio"] = ca / ct if ca and ct else None
        r["cold_ratio_against"] = what

        def f(v, w, fmt="{:.4f}", raw=None):
            return (fmt.format(v) if v is not None else state(raw)).rjust(w)

        print(f"{name:13} {f(a, 9)} {f(rn, 10, raw=t.get('runner'))} {f(rd, 9, raw=t.get('runner_default_build'))} "
              f"{f(pk, 10, raw=t.get('package'))} {f(eg, 8)} {f(r['ratio_vs_runner'], 10, '{:.2f}x')} "
              f"{f(r['ratio_vs_eager'], 8, '{:.2f}x')} | {f(ca, 9, '{:.3f}s')} {f(ct, 10, '{:.3f}s')} "
              f"{(what or '-'):>14} {f(r['cold_ratio'], 6, '{:.3f}')}")
    with open(out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
