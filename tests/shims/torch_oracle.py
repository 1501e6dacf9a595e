#!/usr/bin/env python3
"""The shims' fallback ops against torch itself, where torch is installed.

    python3 torch_oracle.py LIBAOTI_SHIMS [--device cpu|cuda] [--filter REGEX] [--list]

The families' own tests (tests/shims/ops/) compare with references written
in the tests, which encode what their authors read in torch's sources. This
is the other oracle: torch 2.11 running the same op. For each case it makes
the inputs once, in several dtypes and layouts (contiguous, transposed,
strided with a storage offset, channels-last for pooling), runs the op
three ways and compares:
  - eagerly in torch: the values;
  - under torch's FakeTensorMode: the sizes, dtype and strides inductor
    compiles the code that reads a fallback's result against (the shims
    must return exactly these; dimensions of size 1, whose stride nothing
    reads, are not compared);
  - through the shim entry point (tests/pylib/aoti_shims.py, typed from
    torch's own C signatures), on tensors wrapped over torch's memory.
Integer results and results that are elements of the input (sorts, maxima,
indices) must be equal; floating results agree within the dtype's
rounding. Where torch leaves a choice open (the index among equal values),
the inputs have no ties.

Torch is not a build or test dependency of this project, so this is not a
ctest: ci/gpu-test.sh's 'oracle' phase runs it on the GPU machine (which has
torch) on both devices, and it runs anywhere torch is importable. Exit 1
when a case disagrees, 2 on bad usage, 77 without torch.
"""
import argparse
import ctypes
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pylib"))
from aoti_shims import Shims, outs  # noqa: E402

P64 = ctypes.POINTER(ctypes.c_int64)


def ints(*values):
    return (ctypes.c_int64 * max(len(values), 1))(*values)


def handle_list(S, tensors):
    """const AtenTensorHandle**: pointers to handles, None for an absent one."""
    hs = [S.wrap(t) if t is not None else None for t in tensors]
    arr = (ctypes.POINTER(ctypes.c_void_p) * max(len(hs), 1))(
        *[ctypes.pointer(h) if h is not None else None for h in hs])
    return arr, [h for h in hs if h is not None]


class Oracle:
    def __init__(self, S, torch, dev):
        self.S, self.torch, self.dev = S, torch, dev
        self.passed = self.failed = 0
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
        self.FakeTensorMode, self.ShapeEnv = FakeTensorMode, ShapeEnv

    def concrete_strides(self, fake, real):
        """fake's strides, its symbolic sizes replaced by real's sizes."""
        torch = self.torch
        subs = {}
        for f, r in zip(fake.shape, real.shape):
            if isinstance(f, torch.SymInt):
                subs[f.node.expr] = r
        return [int(s.node.expr.subs(subs)) if isinstance(s, torch.SymInt) else int(s) for s in fake.stride()]

    def layouts(self, t, channels_last=False):
        """t's values in several layouts: (name, tensor)."""
        torch = self.torch
        yield "contiguous", t
        if t.dim() >= 2:
            yield "transposed", t.transpose(-1, -2).contiguous().transpose(-1, -2)
        if t.dim() >= 1 and t.numel() > 0:
            big = torch.zeros(*t.shape[:-1], 2 * t.shape[-1] + 1, dtype=t.dtype, device=t.device)
            v = big[..., 1::2][..., :t.shape[-1]]
            v.copy_(t)
            yield "strided+offset", v
        if channels_last and t.dim() == 4:
            yield "channels_last", t.contiguous(memory_format=torch.channels_last)

    def check(self, name, eager, shim, inputs, exact=False, rtol=None, compare=None, scale=False):
        """Runs eager(*inputs), eager under FakeTensorMode and shim(S, handles)
        and compares every output."""
        torch, S = self.torch, self.S
        try:
            with torch.no_grad():
                ref = eager(*inputs)
            ref = list(ref) if isinstance(ref, (tuple, list)) else [ref]
            # A ShapeEnv lets the ops with data-dependent sizes (nonzero,
            # masked_select) run fake: their sizes and strides come back as
            # symbols, evaluated below with the sizes eager gave.
            with self.FakeTensorMode(allow_non_fake_inputs=False, shape_env=self.ShapeEnv()) as mode:
                fake_in = [mode.from_tensor(x, static_shapes=True) if isinstance(x, torch.Tensor) else x
                           for x in inputs]
                fake = eager(*fake_in)
            fake = list(fake) if isinstance(fake, (tuple, list)) else [fake]
            handles = [S.wrap(x) if isinstance(x, torch.Tensor) else x for x in inputs]
            got_h = shim(S, *handles)
            problems = []
            for i, (h, r, f) in enumerate(zip(got_h, ref, fake)):
                sizes, strides, _ = S.layout(h)
                got = S.to_torch(h, self.dev)
                if list(r.shape) != sizes:
                    problems.append(f"out{i} sizes {sizes}, torch {list(r.shape)}")
                    continue
                if got.dtype != r.dtype:
                    problems.append(f"out{i} dtype {got.dtype}, torch {r.dtype}")
                    continue
                want = [s for s, n in zip(self.concrete_strides(f, r), r.shape) if n > 1]
                have = [s for s, n in zip(strides, sizes) if n > 1]
                if r.numel() > 1 and want != have:
                    problems.append(f"out{i} strides {strides}, torch's fake tensor {self.concrete_strides(f, r)}")
                if compare and i in compare:
                    why = compare[i](got, r, inputs)
                    if why:
                        problems.append(f"out{i} {why}")
                    continue
                if r.is_floating_point() and not exact:
                    tol = rtol or {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(r.dtype, 1e-5)
                    # A running reduction's rounding is relative to the
                    # largest partial result, not to each element (scale).
                    atol = tol * float(r.double().abs().nan_to_num(0, 0, 0).max()) if scale else tol
                    if not torch.allclose(got.double(), r.double(), rtol=tol, atol=atol, equal_nan=True):
                        d = (got.double() - r.double()).abs().nan_to_num(0).max()
                        problems.append(f"out{i} values differ by up to {float(d):.3g}")
                elif not torch.equal(got.nan_to_num(0) if got.is_floating_point() else got,
                                     r.nan_to_num(0) if r.is_floating_point() else r) or (
                        r.is_floating_point() and not torch.equal(got.isnan(), r.isnan())):
                    problems.append(f"out{i} values differ")
            S.free(*[h for h in handles if isinstance(h, ctypes.c_void_p)], *got_h)
        except Exception as e:
            problems = [f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"]
        if problems:
            self.failed += 1
            print(f"FAIL {name}: " + "; ".join(problems), flush=True)
        else:
            self.passed += 1


def cases(o):
    """(name prefix, function running its checks)."""
    torch, dev = o.torch, o.dev
    g = torch.Generator(device="cpu").manual_seed(0)

    def randn(*s, dtype=torch.float32):
        return torch.randn(*s, generator=g).to(dev, dtype)

    def randint(lo, hi, *s, dtype=torch.int64):
        return torch.randint(lo, hi, s, generator=g).to(dev, dtype)

    def distinct(*s, dtype=torch.float32):
        """Values without ties: a permutation, scaled."""
        n = 1
        for x in s:
            n *= x
        return (torch.randperm(n, generator=g).reshape(s).to(torch.float64) / 4 - n / 8).to(dev, dtype)

    fdtypes = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
    F = f"aoti_torch_{dev}_"

    def two(S, fn, *args):
        o2 = outs(2)
        S.call(F + fn, *args, ctypes.byref(o2[0]), ctypes.byref(o2[1]))
        return o2

    def one(S, fn, *args):
        o1 = outs(1)
        S.call(F + fn, *args, ctypes.byref(o1[0]))
        return o1

    def sort_family():
        for dt in fdtypes + (torch.int64, torch.int32, torch.uint8):
            # Rows without ties (the index among equal values is torch's choice).
            x0 = distinct(6, 70, dtype=dt) if dt.is_floating_point else torch.stack(
                [torch.randperm(250, generator=g)[:70] for _ in range(6)]).to(dev, dt)
            for lname, x in o.layouts(x0):
                for desc in (0, 1):
                    o.check(f"sort_stable {dt} {lname} desc={desc}",
                            lambda t: torch.sort(t, dim=1, descending=bool(desc), stable=True),
                            lambda S, h: two(S, "sort_stable", h, ctypes.byref(ctypes.c_int32(1)), 1, desc), [x])
                for dim in (0, 1):
                    o.check(f"sort {dt} {lname} dim={dim}", lambda t: torch.sort(t, dim=dim, stable=True),
                            lambda S, h: two(S, "sort", h, dim, 0), [x])
                if dt != torch.uint8 or True:
                    for k, largest in ((1, 1), (5, 1), (7, 0)):
                        o.check(f"topk {dt} {lname} k={k} largest={largest}",
                                lambda t: torch.topk(t, k, dim=1, largest=bool(largest)),
                                lambda S, h: two(S, "topk", h, k, 1, largest, 1), [x])
                    o.check(f"kthvalue {dt} {lname}", lambda t: torch.kthvalue(t, 4, dim=1, keepdim=True),
                            lambda S, h: two(S, "kthvalue", h, 4, 1, 1), [x])
            if dt.is_floating_point:
                xn = x0.clone()
                xn[1, 3] = float("nan")
                xn[4, 9] = float("nan")
                o.check(f"sort {dt} NaN", lambda t: torch.sort(t, dim=1, stable=True),
                        lambda S, h: two(S, "sort", h, 1, 0), [xn])
                o.check(f"sort {dt} NaN desc", lambda t: torch.sort(t, dim=1, descending=True, stable=True),
                        lambda S, h: two(S, "sort", h, 1, 1), [xn])
                o.check(f"median {dt} NaN", lambda t: torch.median(t), lambda S, h: one(S, "median", h), [xn])
                o.check(f"nanmedian {dt} NaN", lambda t: torch.nanmedian(t), lambda S, h: one(S, "nanmedian", h),
                        [xn])
            o.check(f"median {dt}", lambda t: torch.median(t), lambda S, h: one(S, "median", h), [x0])
        labels = randint(0, 4, 9, 33)

        def mode_index_points_at_mode(got, ref, inputs):
            return "" if torch.equal(inputs[0].gather(1, got.unsqueeze(1)).squeeze(1),
                                     torch.mode(inputs[0], 1).values) else "index does not point at the mode"
        for lname, x in o.layouts(labels):
            o.check(f"mode int64 {lname}", lambda t: torch.mode(t, 1), lambda S, h: two(S, "mode", h, 1, 0), [x],
                    compare={1: mode_index_points_at_mode})

    def scan_family():
        for dt in fdtypes + (torch.int64, torch.int32, torch.bool):
            x0 = randn(5, 40, dtype=dt) if dt.is_floating_point else randint(0, 2 if dt == torch.bool else 9, 5, 40,
                                                                                dtype=dt)
            for lname, x in o.layouts(x0):
                for op in ("cumsum", "cumprod"):
                    if op == "cumprod" and dt.is_floating_point:
                        x = (x * 0.05 + 1).to(dt)
                    o.check(f"{op} {dt} {lname}", lambda t: getattr(torch, op)(t, 1),
                            lambda S, h: one(S, op, h, 1, None), [x],
                            rtol=None if dt in (torch.float16, torch.bfloat16) else 1e-4, scale=True)
                for op in ("cummax", "cummin"):
                    o.check(f"{op} {dt} {lname}", lambda t: getattr(torch, op)(t, 1),
                            lambda S, h: two(S, op, h, 1), [x])
                if dt.is_floating_point:
                    o.check(f"logcumsumexp {dt} {lname}", lambda t: torch.logcumsumexp(t, 1),
                            lambda S, h: one(S, "logcumsumexp", h, 1), [x],
                            rtol=None if dt in (torch.float16, torch.bfloat16) else 2e-5 if dt == torch.float32 else 1e-7,
                            scale=True)

    def index_family():
        for dt in (torch.float32, torch.float16, torch.int64, torch.bool):
            x0 = randn(8, 9, 10).to(dt) if dt != torch.bool else randint(0, 2, 8, 9, 10, dtype=torch.bool)
            for lname, x in o.layouts(x0):
                o.check(f"nonzero {dt} {lname}", lambda t: torch.nonzero(t), lambda S, h: one(S, "nonzero", h), [x])
                m = randint(0, 2, 8, 9, 10, dtype=torch.bool)
                o.check(f"masked_select {dt} {lname}", lambda t, mm: torch.masked_select(t, mm),
                        lambda S, h, hm: one(S, "masked_select", h, hm), [x, m])
                i0, i2 = randint(-8, 8, 5), randint(0, 10, 5)

                def index_shim(S, h, *idx_h, pattern):
                    arr, keep = handle_list(S, pattern)
                    r = one(S, "index_Tensor", h, arr, len(pattern))
                    S.free(*keep)
                    return r
                o.check(f"index [i, :, j] {dt} {lname}", lambda t, a, b: t[a, :, b],
                        lambda S, h, ha, hb: index_shim(S, h, pattern=[i0, None, i2]), [x, i0, i2])
                o.check(f"index [:, i] {dt} {lname}", lambda t, a: t[:, a.clamp(0, 8)],
                        lambda S, h, ha: index_shim(S, h, pattern=[None, i0.clamp(0, 8)]), [x, i0])
                bm = randint(0, 2, 8, dtype=torch.bool)
                o.check(f"index [mask] {dt} {lname}", lambda t, mm: t[mm],
                        lambda S, h, hm: index_shim(S, h, pattern=[bm]), [x, bm])
                if dt != torch.bool:
                    vals = randn(5, 9, 10).to(dt)
                    for acc in (0, 1) if dt.is_floating_point or dt == torch.int64 else (0,):
                        # Duplicate indices only where they accumulate: which
                        # write wins otherwise is torch's CUDA kernel's choice.
                        iu = torch.tensor([1, 3, 3, 0, 7] if acc else [1, 3, 6, 0, 7], device=dev)

                        def put_shim(S, h, hv, hiu, acc=acc, iu=iu):
                            arr, keep = handle_list(S, [iu])
                            r = one(S, "index_put", h, arr, 1, hv, acc)
                            S.free(*keep)
                            return r
                        o.check(f"index_put acc={acc} {dt} {lname}",
                                lambda t, v, i, acc=acc: t.index_put((i,), v, accumulate=bool(acc)),
                                put_shim, [x, vals, iu], rtol=1e-2 if dt == torch.float16 else None)
        reps = randint(0, 4, 30)
        o.check("repeat_interleave", lambda r: torch.repeat_interleave(r),
                lambda S, h: one(S, "repeat_interleave_Tensor", h, None), [reps])

    def scatter_family():
        for dt in (torch.float32, torch.float64, torch.int64):
            self0 = randn(6, 7).to(dt) if dt.is_floating_point else randint(-5, 5, 6, 7)
            src = randn(4, 7).to(dt) if dt.is_floating_point else randint(-5, 5, 4, 7)
            idx = randint(0, 6, 4, 7)
            for lname, x in o.layouts(self0):
                def sc_out(S, h, hi, hs, fn, *extra):
                    out = torch.empty_like(x, memory_format=torch.contiguous_format)
                    ho = S.wrap(out)
                    S.call(F + fn, ho, h, 0, hi, hs, *extra)
                    S.keep = out
                    return [ho]
                for red in ("sum", "prod", "mean", "amax", "amin"):
                    if red == "mean" and not dt.is_floating_point:
                        continue
                    for inc in (0, 1):
                        o.check(f"scatter_reduce {red} inc={inc} {dt} {lname}",
                                lambda t, i, s: t.scatter_reduce(0, i, s, red, include_self=bool(inc)),
                                lambda S, h, hi, hs: sc_out(S, h, hi, hs, "scatter_reduce_two_out", red.encode(),
                                                            inc), [x, idx, src], rtol=1e-4)
        for dt in (torch.float32, torch.int64):
            seq = torch.sort(randn(5, 30), -1).values.to(dt)
            q = randn(5, 8).to(dt)
            for right in (0, 1):
                o.check(f"searchsorted {dt} right={right}", lambda s, v: torch.searchsorted(s, v, right=bool(right)),
                        lambda S, hs, hv: one(S, "searchsorted_Tensor", hs, hv, 0, right, None, None), [seq, q])
                o.check(f"bucketize {dt} right={right}",
                        lambda v, b: torch.bucketize(v, b, right=bool(right), out_int32=True),
                        lambda S, hv, hb: one(S, "bucketize_Tensor", hv, hb, 1, right), [q, seq[0].contiguous()])
        for dt in (torch.float32, torch.float64):
            x = randn(1000).to(dt)
            o.check(f"histc {dt}", lambda t: torch.histc(t, 13, -2, 2),
                    lambda S, h: one(S, "histc", h, 13, -2.0, 2.0), [x])
            o.check(f"histc {dt} data range", lambda t: torch.histc(t, 7),
                    lambda S, h: one(S, "histc", h, 7, 0.0, 0.0), [x], rtol=1e-5)

    def embedding_family():
        w = randn(50, 6)
        idx = randint(0, 50, 40)
        off = torch.tensor([0, 3, 3, 10, 25, 39], device=dev)
        for mode in (0, 1, 2):
            def bag(S, hw, hi, ho, mode=mode):
                o4 = outs(4)
                S.call(F + "_embedding_bag", hw, hi, ho, 0, mode, 0, None, 0, -1, *[ctypes.byref(h) for h in o4])
                return o4[:1]
            o.check(f"_embedding_bag mode={mode}",
                    lambda a, b, c, mode=mode: torch.ops.aten._embedding_bag(a, b, c, False, mode)[0],
                    bag, [w, idx, off])

    def pooling_family():
        for dt in (torch.float32, torch.float16, torch.bfloat16):
            x0 = distinct(2, 5, 13, 11, dtype=torch.float32).to(dt) if dt == torch.float32 else randn(2, 5, 13, 11,
                                                                                                      dtype=dt)
            for lname, x in o.layouts(x0, channels_last=True):
                for (k, s, p, d, ceil) in ((3, 2, 1, 1, 0), (2, 2, 0, 1, 1), (3, 1, 1, 2, 0)):
                    o.check(f"max_pool2d_with_indices k{k}s{s}p{p}d{d}c{ceil} {dt} {lname}",
                            lambda t: torch.ops.aten.max_pool2d_with_indices(t, [k, k], [s, s], [p, p], [d, d],
                                                                             bool(ceil)),
                            lambda S, h: two(S, "max_pool2d_with_indices", h, ints(k, k), 2, ints(s, s), 2,
                                             ints(p, p), 2, ints(d, d), 2, ceil), [x])
                    if d == 1:
                        for cip in (0, 1):
                            o.check(f"avg_pool2d k{k}s{s}p{p}c{ceil} cip={cip} {dt} {lname}",
                                    lambda t: torch.ops.aten.avg_pool2d(t, [k, k], [s, s], [p, p], bool(ceil),
                                                                        bool(cip)),
                                    lambda S, h: one(S, "avg_pool2d", h, ints(k, k), 2, ints(s, s), 2, ints(p, p), 2,
                                                     ceil, cip, None), [x], rtol=1e-2 if dt != torch.float32 else 1e-5)
                o.check(f"adaptive_max_pool2d {dt} {lname}",
                        lambda t: torch.ops.aten.adaptive_max_pool2d(t, [5, 4]),
                        lambda S, h: two(S, "adaptive_max_pool2d", h, ints(5, 4), 2), [x])
                o.check(f"_adaptive_avg_pool2d {dt} {lname}", lambda t: torch.ops.aten._adaptive_avg_pool2d(t, [5, 4]),
                        lambda S, h: one(S, "_adaptive_avg_pool2d", h, ints(5, 4), 2), [x],
                        rtol=1e-2 if dt != torch.float32 else 1e-5)

    return [("sort", sort_family), ("scan", scan_family), ("index", index_family), ("scatter", scatter_family),
            ("embedding", embedding_family), ("pooling", pooling_family)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--filter", help="regex on the family name")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP: torch is not importable")
        return 77
    o = Oracle(Shims(a.lib), torch, a.device)
    rx = re.compile(a.filter) if a.filter else None
    for family, run in cases(o):
        if rx and not rx.search(family):
            continue
        before = o.failed
        run()
        print(f"{family}: {o.failed - before} failed", flush=True)
    print(f"torch oracle on {a.device}: {o.passed} passed, {o.failed} failed")
    return 1 if o.failed else 0


if __name__ == "__main__":
    sys.exit(main())
