"""Two builds of aoti-run on the same zoo packages, alternating: which is faster.

    python3 aoti_run_ab.py AOTI_RUN_A AOTI_RUN_B PKG_DIR... [--rounds N]
        [--iters N] [--warmup N] [--threads N] [--env-a K=V] [--env-b K=V]
        [--label-a A] [--label-b B]

PKG_DIR is a zoo package directory (tests/gpu/zoo/export.py: model.pt2,
in_<i>.npy, info.json). Each round runs every package once with A and once
with B, in alternating order (A first in even rounds, B first in odd ones),
each `aoti-run MODEL.pt2 -i in_*.npy --iters N --warmup K --format json` in
a process of its own, CPU packages with --device cpu and OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS = --threads (default: the package's own thread count).
--env-a / --env-b add environment variables to one side (the same binary
twice with two settings is an A/B too). Each figure is the median over the
rounds of the run's p50; on a shared host the load drifts between two
processes run once, and alternating puts both sides under the same drift.

Prints a Markdown table: package, A ms, B ms, B / A.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys


def run_once(aoti_run, pkg, info, args, extra_env):
    env = dict(os.environ)
    env.update(extra_env)
    cmd = [aoti_run, os.path.join(pkg, "model.pt2"), "-i"]
    cmd += sorted(glob.glob(os.path.join(pkg, "in_*.npy")),
                  key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    cmd += ["--iters", str(args.iters), "--warmup", str(args.warmup), "--format", "json"]
    if info.get("device") == "cpu":
        threads = str(args.threads or info.get("threads") or os.cpu_count())
        env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = threads
        cmd += ["--device", "cpu"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"{aoti_run} failed on {pkg} (exit {r.returncode}): {r.stderr.strip()[:400]}")
    return json.loads(r.stdout)["latency_ms"]["p50"]


def parse_env(pairs):
    out = {}
    for p in pairs or []:
        if "=" not in p:
            sys.exit(f"--env-a/--env-b take K=V, got '{p}'")
        k, v = p.split("=", 1)
        out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--env-a", action="append")
    ap.add_argument("--env-b", action="append")
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    args = ap.parse_args()
    sides = [(args.a, parse_env(args.env_a)), (args.b, parse_env(args.env_b))]
    for exe, _ in sides:
        if not os.access(exe, os.X_OK):
            ap.error(f"{exe} is not an executable")
    infos = {}
    for pkg in args.packages:
        try:
            infos[pkg] = json.load(open(os.path.join(pkg, "info.json")))
        except OSError as e:
            ap.error(f"{pkg}: no info.json ({e.strerror})")
    times = {pkg: ([], []) for pkg in args.packages}
    for rnd in range(args.rounds):
        for pkg in args.packages:
            order = (0, 1) if rnd % 2 == 0 else (1, 0)
            for side in order:
                exe, env = sides[side]
                times[pkg][side].append(run_once(exe, pkg, infos[pkg], args, env))
        print(f"round {rnd + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(f"| package | {args.label_a} ms | {args.label_b} ms | {args.label_b} / {args.label_a} |")
    print("| --- | --- | --- | --- |")
    for pkg in args.packages:
        a, b = (statistics.median(t) for t in times[pkg])
        print(f"| {os.path.basename(os.path.normpath(pkg))} | {a:.2f} | {b:.2f} | {b / a:.2f} |")
    print(f"\nmedian over {args.rounds} alternating rounds of each run's p50 "
          f"({args.iters} iterations after {args.warmup})")


if __name__ == "__main__":
    main()
