#!/usr/bin/env python3
"""The shims' fallback ops against eager PyTorch's kernels, side by side in one process.

    python3 fallbacks_vs_eager.py LIBAOTI_SHIMS [--iters N] [--device cuda|cpu]
                                  [--filter REGEX] [--json OUT]

Loads libaoti_shims.so with ctypes (tests/pylib/aoti_shims.py: its C
signatures are read from shims/coverage/torch-2.11.tsv, the same facts the
build checks its definitions against) next to torch, and for each case makes the inputs once
as torch tensors, wraps them as shim tensors over the same memory
(aoti_torch_create_tensor_from_blob: no copy), and times `iters` calls of
the shims' entry point and of the torch op that a model's graph would have
run eagerly, each between two CUDA events on the default stream (which both
use) after warm-up; on the CPU, wall time. Each case also compares the two
results (values, and integer outputs exactly where the op defines them), so
a fast wrong answer cannot pass. Prints a Markdown table (call, shape, ours
ms, eager ms, ours/eager) and writes it as JSON with --json.

The shapes are those the op modules of tests/gpu/ops_families.py call (an
MoE router, a kNN head, a sampling head, DLRM's bags, a graph layer, ...),
plus a larger one per op.
"""
import argparse
import ctypes
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "pylib"))
from aoti_shims import Shims, outs  # noqa: E402

def cases(torch, dev):
    """(name, shape text, make inputs, call ours -> list of out handles, eager, compare outputs)."""
    g = torch.Generator(device=dev).manual_seed(0)

    def randn(*s, dtype=torch.float32):
        return torch.randn(*s, generator=g, device=dev, dtype=dtype)

    def randint(hi, *s):
        return torch.randint(0, hi, s, generator=g, device=dev)

    c = []

    def topk(shape, k, largest=True):
        def run(S, x):
            o = outs(2)
            S.call(f"aoti_torch_{dev}_topk", x[0], k, -1, int(largest), 1, ctypes.byref(o[0]), ctypes.byref(o[1]))
            return o
        c.append((f"topk k={k}{'' if largest else ' smallest'}", shape, lambda: [randn(*shape)], run,
                  lambda x: torch.topk(x, k, -1, largest), "values"))

    def sort(shape, descending=False):
        def run(S, x):
            o = outs(2)
            stable = ctypes.c_int32(1)
            S.call(f"aoti_torch_{dev}_sort_stable", x[0], ctypes.byref(stable), -1, int(descending),
                   ctypes.byref(o[0]), ctypes.byref(o[1]))
            return o
        c.append(("sort stable" + (" desc" if descending else ""), shape, lambda: [randn(*shape)], run,
                  lambda x: torch.sort(x, dim=-1, descending=descending, stable=True), "all"))

    def scan(op, shape):
        def run(S, x):
            if op in ("cummax", "cummin"):
                o = outs(2)
                S.call(f"aoti_torch_{dev}_{op}", x[0], 1, ctypes.byref(o[0]), ctypes.byref(o[1]))
            elif op == "logcumsumexp":
                o = outs(1)
                S.call(f"aoti_torch_{dev}_logcumsumexp", x[0], 1, ctypes.byref(o[0]))
            else:
                o = outs(1)
                S.call(f"aoti_torch_{dev}_{op}", x[0], 1, None, ctypes.byref(o[0]))
            return o
        eager = {"cummax": lambda x: torch.cummax(x, 1), "cummin": lambda x: torch.cummin(x, 1),
                 "logcumsumexp": lambda x: torch.logcumsumexp(x, 1), "cumsum": lambda x: torch.cumsum(x, 1),
                 "cumprod": lambda x: torch.cumprod(x, 1)}[op]
        c.append((op, shape, lambda: [randn(*shape) * (0.01 if op == "cumprod" else 1) + (1 if op == "cumprod" else 0)],
                  run, eager, "all"))

    def nonzero(shape):
        def run(S, x):
            o = outs(1)
            S.call(f"aoti_torch_{dev}_nonzero", x[0], ctypes.byref(o[0]))
            return o
        c.append(("nonzero", shape, lambda: [randn(*shape) > 0.5], run, lambda x: torch.nonzero(x), "all"))

    def masked_select(shape):
        def run(S, x, m):
            o = outs(1)
            S.call(f"aoti_torch_{dev}_masked_select", x[0], m[0], ctypes.byref(o[0]))
            return o
        c.append(("masked_select", shape, lambda: [randn(*shape), randn(*shape) > 0.5], run,
                  lambda x, m: torch.masked_select(x, m), "all"))

    def embedding_bag(num, dim, bags, mode):
        def make():
            lengths = torch.randint(1, 20, (bags,), generator=g, device=dev)
            offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=dev), lengths.cumsum(0)[:-1]])
            return [randn(num, dim), randint(num, int(lengths.sum())), offsets]

        def run(S, w, i, off):
            o = outs(4)
            S.call(f"aoti_torch_{dev}__embedding_bag", w[0], i[0], off[0], 0, mode, 0, None, 0, -1,
                   *[ctypes.byref(h) for h in o])
            return o
        c.append((f"_embedding_bag mode {mode}", (num, dim, bags), make, run,
                  lambda w, i, off: torch.ops.aten._embedding_bag(w, i, off, False, mode), "first"))

    def scatter_reduce(n, f, e, reduce):
        def make():
            return [torch.zeros(n, f, device=dev), randint(n, e).unsqueeze(1).expand(e, f).contiguous(), randn(e, f)]

        def run(S, x, idx, src):
            out = torch.empty_like(S._x)
            h = S.wrap(out)
            S.call(f"aoti_torch_{dev}_scatter_reduce_two_out", h, x[0], 0, idx[0], src[0], reduce.encode(), 0)
            S._keep = out
            return [h]
        c.append((f"scatter_reduce {reduce}", (n, f, e), make, run,
                  lambda x, idx, src: x.scatter_reduce(0, idx, src, reduce, include_self=False), "all"))

    def max_pool(shape):
        def run(S, x):
            o = outs(2)
            k = (ctypes.c_int64 * 2)(3, 3)
            s = (ctypes.c_int64 * 2)(2, 2)
            p = (ctypes.c_int64 * 2)(1, 1)
            d = (ctypes.c_int64 * 2)(1, 1)
            S.call(f"aoti_torch_{dev}_max_pool2d_with_indices", x[0], k, 2, s, 2, p, 2, d, 2, 0,
                   ctypes.byref(o[0]), ctypes.byref(o[1]))
            return o
        c.append(("max_pool2d_with_indices 3x3/2", shape, lambda: [randn(*shape)], run,
                  lambda x: torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1]), "all"))

    def searchsorted(rows, length, queries):
        def make():
            return [torch.sort(randn(rows, length), -1).values, randn(rows, queries)]

        def run(S, seq, q):
            o = outs(1)
            S.call(f"aoti_torch_{dev}_searchsorted_Tensor", seq[0], q[0], 0, 0, None, None, ctypes.byref(o[0]))
            return o
        c.append(("searchsorted", (rows, length, queries), make, run, lambda s, q: torch.searchsorted(s, q), "all"))

    def histc(n, bins):
        def run(S, x):
            o = outs(1)
            S.call(f"aoti_torch_{dev}_histc", x[0], bins, -3.0, 3.0, ctypes.byref(o[0]))
            return o
        c.append(("histc", (n, bins), lambda: [randn(n)], run, lambda x: torch.histc(x, bins, -3, 3), "all"))

    topk((512, 8), 2)
    topk((8, 32000), 50)
    topk((64, 1000), 5, largest=False)
    sort((8, 2000), descending=True)
    sort((8, 32000), descending=True)
    for op in ("cummax", "logcumsumexp", "cumprod"):
        scan(op, (16, 400))
        scan(op, (64, 4096))
    nonzero((64, 48))
    nonzero((1 << 20,))
    masked_select((64, 48))
    masked_select((1 << 20,))
    embedding_bag(5000, 32, 128, 0)
    embedding_bag(5000, 32, 128, 2)
    embedding_bag(1000000, 128, 2048, 0)
    scatter_reduce(300, 32, 2000, "mean")
    scatter_reduce(300, 32, 2000, "amax")
    scatter_reduce(100000, 64, 1000000, "sum")
    max_pool((2, 8, 31, 29))
    max_pool((32, 64, 112, 112))
    searchsorted(100, 50, 5)
    searchsorted(1, 100000, 1000000)
    histc(100 * 30, 20)
    histc(1 << 22, 100)
    return c


def compare(torch, ours, theirs, how):
    theirs = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    if how == "values":
        theirs, ours = theirs[:1], ours[:1]
    if how == "first":
        theirs, ours = theirs[:1], ours[:1]
    for a, b in zip(ours, theirs):
        if a.shape != b.shape:
            return f"shape {list(a.shape)} vs {list(b.shape)}"
        if a.is_floating_point():
            if not torch.allclose(a.float(), b.float(), rtol=1e-4, atol=1e-4, equal_nan=True):
                return f"values differ by {float((a.float() - b.float()).abs().max()):.3g}"
        elif not torch.equal(a, b):
            return "integer outputs differ"
    return ""


def time_it(torch, dev, fn, iters):
    for _ in range(3):
        fn()
    if dev == "cuda":
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) / iters
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) * 1e3 / iters


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--filter")
    ap.add_argument("--json")
    a = ap.parse_args()
    import torch
    S = Shims(a.lib)
    dev = a.device
    rows = []
    rx = re.compile(a.filter) if a.filter else None
    for name, shape, make, run, eager, how in cases(torch, dev):
        if rx and not rx.search(name):
            continue
        row = {"call": name, "shape": list(shape), "device": dev}
        try:
            if f"aoti_torch_{dev}_" + name.split()[0] not in S.signatures and not any(
                    s.startswith(f"aoti_torch_{dev}_" + name.split()[0]) for s in S.signatures):
                raise RuntimeError("not implemented in this libaoti_shims")
            ins = make()
            S._x = ins[0]
            wrapped = [[S.wrap(t)] for t in ins]
            handles = run(S, *wrapped)
            got = [S.to_torch(h, dev) for h in handles]
            S.free(*handles)
            with torch.no_grad():
                ref = eager(*ins)
            row["check"] = compare(torch, got, ref, how) or "ok"

            def ours():
                S.free(*run(S, *wrapped))

            row["ours_ms"] = time_it(torch, dev, ours, a.iters)
            row["eager_ms"] = time_it(torch, dev, lambda: eager(*ins), a.iters)
            row["ratio"] = row["ours_ms"] / row["eager_ms"]
            for w in wrapped:
                S.free(*w)
        except Exception as e:  # the row says why
            row["check"] = f"error: {str(e).splitlines()[0][:160]}"
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    gpu = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    print(f"Fallbacks vs eager on {gpu} (torch {torch.__version__}), mean of {a.iters} calls\n")
    print("| call | shape | ours ms | eager ms | ours/eager | check |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        f = lambda k: f"{r[k]:.4f}" if k in r else "-"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
        print(f"| {r['call']} | {r['shape']} | {f('ours_ms')} | {f('eager_ms')} | {ratio} | {r['check']} |")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"gpu": gpu, "torch": torch.__version__, "rows": rows}, fh, indent=1)
    return 0 if all(r["check"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
