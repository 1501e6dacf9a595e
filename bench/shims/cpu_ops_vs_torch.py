"""The CPU fallbacks against eager PyTorch's own kernels, at a zoo model's shapes.

    python3 cpu_ops_vs_torch.py LIBAOTI_SHIMS INFO.json [--threads N] [--iters N] [--rounds N]
                                [--conv-input nchw|channels-last]

INFO.json is a zoo package's info.json (tests/gpu/zoo/export.py): its "calls"
are the convolution, attention and GEMM calls of the exported graph with their
argument shapes. Each convolution, scaled-dot-product-attention and linear call
is run two ways on random float32 operands of those shapes: through the shims'
C ABI (aoti_torch_cpu_convolution, aoti_torch_cpu__scaled_dot_product_flash_
attention_for_cpu, and for a linear layer aoti_torch_cpu_addmm_out or mm_out on
the weight read transposed, as inductor calls them; loaded from LIBAOTI_SHIMS
with ctypes) and through torch's ATen op (addmm / mm for a linear layer, what
eager's linear runs), each in a process of its own (two OpenMP runtimes in one process
would spin against each other), N threads each side (AOTI_NUM_THREADS /
torch.set_num_threads). The outputs are compared, so a fast wrong answer
cannot pass, and the table gives both p50s and their ratio, once per call
shape, with how many times the graph makes that call. With --rounds N the two
processes alternate N times and each figure is the median of the N p50s: on a
shared host the load drifts between two processes run once (seen: the same
call 0.63x and 1.5x within minutes), and alternating puts both sides under
the same drift.

The convolutions' operands are NCHW on both sides by default, as the
exported graph has them. An inductor CPU model passes its 2-d and 3-d
convolutions a channels-last input instead (its layout optimization: in six
of the zoo's CPU conv models, every convolution input that the wrapper
allocates is channels-last, and the others are outputs of convolutions),
which changes the kernels oneDNN runs:
--conv-input channels-last gives the shims' side its input in that layout,
while torch's side stays NCHW, as eager runs it.

This is how a model's time over eager (docs/aoti-run.md) is traced to a
fallback: the package's own kernels are torch's, so what differs is here.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time


def parse_calls(info):
    """(kind, args) for each distinct convolution / attention / linear call."""
    out = []
    for op, args, kwargs, count in info["calls"]:
        if "convolution" in op or op.startswith("aten.conv"):
            out.append(("conv", op, args, kwargs, count))
        elif "scaled_dot_product" in op:
            out.append(("sdpa", op, args, kwargs, count))
        elif op.startswith("aten.linear"):
            out.append(("linear", op, args, kwargs, count))
    return out


def shape_of(a):
    """The shape of a tensor argument, which export.py's describe_arg writes as
    "dtype[d0, d1, ...]"; None for anything else."""
    if not isinstance(a, str) or not a.endswith("]") or "[" not in a:
        return None
    dims = a[a.index("[") + 1:-1]
    return [int(d) for d in dims.split(",")] if dims.strip() else []


def conv_params(op, args, kwargs):
    """input shape, weight shape, has bias, stride, padding, dilation, groups."""
    x, w = shape_of(args[0]), shape_of(args[1])
    bias = len(args) > 2 and shape_of(args[2]) is not None
    d = len(x) - 2
    rest = list(args[3:]) + [None] * 8
    if "convolution" in op:  # aten.convolution(x, w, b, stride, padding, dilation, transposed, out_pad, groups)
        stride, padding, dilation, transposed, _, groups = rest[:6]
        if transposed:
            return None
    else:  # aten.convNd(x, w, b=None, stride=1, padding=0, dilation=1, groups=1)
        stride, padding, dilation, groups = rest[:4]
        stride = kwargs.get("stride", stride)
        padding = kwargs.get("padding", padding)
        dilation = kwargs.get("dilation", dilation)
        groups = kwargs.get("groups", groups)
    if isinstance(padding, str):
        return None

    def full(v, dflt):
        v = dflt if v is None else v
        return list(v) * d if len(list(v)) == 1 else list(v)
    return x, w, bias, full(stride, [1]), full(padding, [0]), full(dilation, [1]), int(groups or 1)


def sdpa_params(op, args, kwargs):
    q, k, v = (shape_of(a) for a in args[:3])
    mask = kwargs.get("attn_mask", args[3] if len(args) > 3 else None)
    causal = bool(kwargs.get("is_causal", args[5] if len(args) > 5 else False))
    scale = kwargs.get("scale")
    return q, k, v, shape_of(mask) if mask is not None else None, causal, scale


def linear_params(op, args, kwargs):
    """M, K, N and whether there is a bias: aten.linear(x[..., K], w[N, K], b[N])
    is one [M, K] x [K, N] product over the flattened leading dimensions."""
    x, w = shape_of(args[0]), shape_of(args[1])
    b = args[2] if len(args) > 2 else kwargs.get("bias")
    if x is None or w is None or len(w) != 2:
        return None
    m = 1
    for d in x[:-1]:
        m *= d
    return m, x[-1], w[0], shape_of(b) is not None


def params(kind, op, args, kwargs):
    return {"conv": conv_params, "sdpa": sdpa_params, "linear": linear_params}[kind](op, args, kwargs)


def time_it(fn, iters, warmup):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e3


def summary(out):
    """What the two sides' outputs are compared by: their sum and largest
    magnitude (the operands are the same seeded ones on both sides)."""
    return [float(out.double().sum()), float(out.abs().max())]


def operands(shapes, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*s, generator=g) if s is not None else None for s in shapes]


def run_torch(calls, iters, warmup, threads):
    import torch
    torch.set_num_threads(threads)
    results = []
    with torch.no_grad():
        for i, (kind, p) in enumerate(calls):
            if kind == "conv":
                x, w, bias, stride, padding, dilation, groups = p
                xs, ws, bs = operands([x, w, [w[0]] if bias else None], i)
                fn = lambda: torch.ops.aten.convolution(xs, ws, bs, stride, padding, dilation,
                                                        False, [0] * len(stride), groups)
            elif kind == "sdpa":
                q, k, v, mask, causal, scale = p
                qs, ks, vs, ms = operands([q, k, v, mask], i)
                fn = lambda: torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
                    qs, ks, vs, 0.0, causal, attn_mask=ms, scale=scale)[0]
            else:
                m, k, n, bias = p
                xs, ws, bs = operands([[m, k], [n, k], [n] if bias else None], i)
                wt = ws.t()
                fn = (lambda: torch.ops.aten.addmm(bs, xs, wt)) if bias else \
                    (lambda: torch.ops.aten.mm(xs, wt))
            out = fn()
            results.append({"ms": time_it(fn, iters, warmup), "out": summary(out)})
    return results


class Shims:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        L = self.lib
        L.aoti_torch_dtype_float32.restype = ctypes.c_int32
        L.aoti_torch_device_type_cpu.restype = ctypes.c_int32
        self.f32 = L.aoti_torch_dtype_float32()
        self.cpu = L.aoti_torch_device_type_cpu()

    def wrap(self, t):
        """A handle over a torch tensor's memory (kept alive by the caller)."""
        h = ctypes.c_void_p()
        n = t.dim()
        sizes = (ctypes.c_int64 * n)(*t.shape)
        strides = (ctypes.c_int64 * n)(*t.stride())
        err = self.lib.aoti_torch_create_tensor_from_blob(
            ctypes.c_void_p(t.data_ptr()), ctypes.c_int64(n), sizes, strides, ctypes.c_int64(0),
            ctypes.c_int32(self.f32), ctypes.c_int32(self.cpu), ctypes.c_int32(0), ctypes.byref(h))
        assert err == 0, "aoti_torch_create_tensor_from_blob failed"
        return h

    def to_torch(self, h):
        import torch
        L = self.lib
        nd = ctypes.c_int64()
        sz, st = ctypes.POINTER(ctypes.c_int64)(), ctypes.POINTER(ctypes.c_int64)()
        data = ctypes.c_void_p()
        assert L.aoti_torch_get_dim(h, ctypes.byref(nd)) == 0
        assert L.aoti_torch_get_sizes(h, ctypes.byref(sz)) == 0
        assert L.aoti_torch_get_strides(h, ctypes.byref(st)) == 0
        assert L.aoti_torch_get_data_ptr(h, ctypes.byref(data)) == 0
        shape = [sz[i] for i in range(nd.value)]
        strides = [st[i] for i in range(nd.value)]
        extent = 1 + sum((s - 1) * d for s, d in zip(shape, strides))
        buf = (ctypes.c_float * extent).from_address(data.value)
        flat = torch.frombuffer(buf, dtype=torch.float32, count=extent)
        return torch.as_strided(flat, shape, strides).clone()

    def delete(self, h):
        self.lib.aoti_torch_delete_tensor_object(h)


def as_model_passes(t, conv_input):
    """The convolution input in the layout the model gives the shims."""
    import torch
    if conv_input != "channels-last" or t.dim() not in (4, 5):
        return t
    fmt = torch.channels_last if t.dim() == 4 else torch.channels_last_3d
    return t.contiguous(memory_format=fmt)


def run_shims(calls, iters, warmup, lib, conv_input="nchw"):
    import torch
    torch.set_num_threads(1)  # only builds operands here; the shims run on their own OpenMP
    s = Shims(lib)
    L = s.lib
    I64 = ctypes.c_int64
    results = []
    for i, (kind, p) in enumerate(calls):
        if kind == "conv":
            x, w, bias, stride, padding, dilation, groups = p
            xs, ws, bs = operands([x, w, [w[0]] if bias else None], i)
            xs = as_model_passes(xs, conv_input)
            hx, hw = s.wrap(xs), s.wrap(ws)
            hb = s.wrap(bs) if bs is not None else ctypes.c_void_p()
            d = len(stride)
            arr = lambda v: (I64 * d)(*v)
            st, pa, di, op = arr(stride), arr(padding), arr(dilation), arr([0] * d)

            def fn():
                out = ctypes.c_void_p()
                err = L.aoti_torch_cpu_convolution(hx, hw, ctypes.byref(hb), st, I64(d), pa, I64(d), di,
                                                   I64(d), ctypes.c_int32(0), op, I64(d), I64(groups),
                                                   ctypes.byref(out))
                assert err == 0, "aoti_torch_cpu_convolution failed"
                return out
        elif kind == "linear":
            m, k, n, bias = p
            xs, ws, bs = operands([[m, k], [n, k], [n] if bias else None], i)
            outs = torch.empty(m, n)
            hx, hwt, ho = s.wrap(xs), s.wrap(ws.t()), s.wrap(outs)
            hb = s.wrap(bs) if bs is not None else None

            def fn():
                if hb is not None:
                    err = L.aoti_torch_cpu_addmm_out(ho, hb, hx, hwt, ctypes.c_double(1.0),
                                                     ctypes.c_double(1.0))
                else:
                    err = L.aoti_torch_cpu_mm_out(ho, hx, hwt)
                assert err == 0, "aoti_torch_cpu_addmm_out / mm_out failed"
                return None
        else:
            q, k, v, mask, causal, scale = p
            qs, ks, vs, ms = operands([q, k, v, mask], i)
            hq, hk, hv = s.wrap(qs), s.wrap(ks), s.wrap(vs)
            hm = s.wrap(ms) if ms is not None else ctypes.c_void_p()
            sc = ctypes.c_double(scale) if scale is not None else None

            def fn():
                out, lse = ctypes.c_void_p(), ctypes.c_void_p()
                err = L.aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
                    hq, hk, hv, ctypes.c_double(0.0), ctypes.c_int32(int(causal)),
                    ctypes.byref(hm) if ms is not None else None,
                    ctypes.byref(sc) if sc is not None else None, ctypes.byref(out), ctypes.byref(lse))
                assert err == 0, "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu failed"
                s.delete(lse)
                return out

        if kind == "linear":  # writes into outs, a tensor of its own
            ms_ = time_it(fn, iters, warmup)
            fn()
            results.append({"ms": ms_, "out": summary(outs)})
            continue

        def timed():
            s.delete(fn())
        ms_ = time_it(timed, iters, warmup)
        h = fn()
        out = s.to_torch(h)
        s.delete(h)
        results.append({"ms": ms_, "out": summary(out)})
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib")
    ap.add_argument("info")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--conv-input", choices=["nchw", "channels-last"], default="nchw",
                    help="the layout of the shims' convolution inputs (torch's stay NCHW)")
    ap.add_argument("--impl", choices=["torch", "shims"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    with open(a.info) as f:
        info = json.load(f)
    calls, labels = [], []
    for kind, op, args, kwargs, count in parse_calls(info):
        p = params(kind, op, args, kwargs)
        if p is None:
            continue
        calls.append((kind, p))
        labels.append((op, p, count))
    if a.impl:  # a worker: one implementation, results to --out
        res = run_torch(calls, a.iters, a.warmup, a.threads) if a.impl == "torch" else \
            run_shims(calls, a.iters, a.warmup, a.lib, a.conv_input)
        with open(a.out, "w") as f:
            json.dump(res, f)
        return 0
    rounds = {"torch": [], "shims": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(max(a.rounds, 1)):
            for impl in ("torch", "shims"):
                env = dict(os.environ, AOTI_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
                out = os.path.join(tmp, impl + ".json")
                subprocess.run([sys.executable, __file__, a.lib, a.info, "--threads", str(a.threads),
                                "--iters", str(a.iters), "--warmup", str(a.warmup), "--impl", impl,
                                "--conv-input", a.conv_input, "--out", out], env=env, check=True)
                with open(out) as f:
                    rounds[impl].append(json.load(f))
    res = {}
    for impl, runs in rounds.items():  # per call: the median of the rounds' p50s
        res[impl] = []
        for per_call in zip(*runs):
            ms = sorted(r["ms"] for r in per_call)
            res[impl].append({"ms": ms[len(ms) // 2], "out": per_call[0]["out"]})
    how = f"p50 of {a.iters}" + (f", median of {a.rounds} alternating rounds" if a.rounds > 1 else "")
    layout = "" if a.conv_input == "nchw" else ", the shims' convolution inputs channels-last"
    print(f"{info.get('tag', a.info)}: {a.threads} threads, {how}{layout}\n")
    print("| call | count | shims ms | torch ms | ratio | sum rel. diff |")
    print("| --- | --- | --- | --- | --- | --- |")
    total = {"shims": 0.0, "torch": 0.0}
    worst = 0.0
    for (op, p, count), sh, to in zip(labels, res["shims"], res["torch"]):
        rel = abs(sh["out"][0] - to["out"][0]) / max(abs(to["out"][0]), to["out"][1], 1e-30)
        worst = max(worst, rel)
        total["shims"] += sh["ms"] * count
        total["torch"] += to["ms"] * count
        print(f"| {op} {json.dumps(p)} | {count} | {sh['ms']:.3f} | {to['ms']:.3f} | "
              f"{sh['ms'] / to['ms']:.2f} | {rel:.1e} |")
    print(f"\nper model run (p50 x count): shims {total['shims']:.2f} ms, torch {total['torch']:.2f} ms")
    if worst > 1e-3:
        print(f"outputs differ: relative difference {worst:.2e} > 1e-3", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
