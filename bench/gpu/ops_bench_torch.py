"""Eager PyTorch on the cases bench/gpu/ops_bench timed, and the two side by side.

    python3 ops_bench_torch.py OURS.json OUT.json [--iters N]

Reads the cases (op, dtype, shapes, convolution options) from ops_bench's
JSON, times the aten op eager PyTorch runs for the same call (the kernel the
model would call inside LibTorch: aten.convolution, and the efficient, flash
or cuDNN attention op itself, not the SDPA dispatcher) the same way (warm-up,
then N calls between two CUDA events, output allocation included), and
prints a table: case, ours ms, eager ms, ratio (ours / eager). TF32 is off on
both sides, as in the zoo.
"""
import json
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def call(c, a, b, v):
    aten = torch.ops.aten
    if c["op"] == "conv":
        n = len(c["stride"])
        return aten.convolution(a, b, None, c["stride"], c["padding"], c["dilation"], False,
                                [0] * n, c["groups"])
    if c["op"] == "efficient":
        return aten._scaled_dot_product_efficient_attention(a, b, v, None, False, 0.0,
                                                            c["causal"])
    if c["op"] == "flash":
        return aten._scaled_dot_product_flash_attention(a, b, v, 0.0, c["causal"])
    return aten._scaled_dot_product_cudnn_attention(a, b, v, None, False, 0.0, c["causal"])


def main():
    ours_path, out_path = sys.argv[1], sys.argv[2]
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 50
    ours = json.load(open(ours_path))
    rows = []
    for c in ours["cases"]:
        dt = getattr(torch, c["dtype"])
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.rand(c["a"], device="cuda", generator=g, dtype=torch.float32).mul(2).sub(1).to(dt)
        b = torch.rand(c["b"], device="cuda", generator=g, dtype=torch.float32).mul(2).sub(1).to(dt)
        v = b.clone() if c["op"] != "conv" else None
        row = {"name": c["name"], "ours_ms": c["ms"], "ours_error": c.get("error")}
        try:
            with torch.no_grad():
                for _ in range(5):
                    call(c, a, b, v)
                torch.cuda.synchronize()
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(iters):
                    call(c, a, b, v)
                e1.record()
                e1.synchronize()
                row["eager_ms"] = e0.elapsed_time(e1) / iters
        except Exception as e:  # an op eager cannot run on this shape
            row["eager_error"] = str(e).splitlines()[0][:200]
        if row.get("eager_ms") and c["ms"] > 0:
            row["ratio"] = c["ms"] / row["eager_ms"]
        rows.append(row)
    json.dump({"schema_version": 1, "iters": iters, "rows": rows}, open(out_path, "w"), indent=1)
    print("| call | ours ms | eager ms | ratio |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        ours_ms = f"{r['ours_ms']:.4f}" if r["ours_ms"] >= 0 else f"error: {r['ours_error']}"
        eager_ms = f"{r['eager_ms']:.4f}" if "eager_ms" in r else f"error: {r.get('eager_error')}"
        ratio = f"{r['ratio']:.2f}x" if "ratio" in r else "-"
        print(f"| {r['name']} | {ours_ms} | {eager_ms} | {ratio} |")


if __name__ == "__main__":
    main()
