#!/usr/bin/env python3
"""Small real modules that call each fallback op family, LibTorch-free, against eager.

    python3 ops_families.py export OUT_DIR [--jobs N] [--filter REGEX] [--device cuda|cpu|both]
    python3 ops_families.py run OUT_DIR AOTI_RUN [--filter REGEX]
    python3 ops_families.py list

Each module (MODULES below) is what a real model does around one family: an
MoE router's top-k and expert histogram, a k-nearest-neighbour head, a
DLRM-style embedding bag, a graph convolution's scatter aggregation, a
randn_like sampler, a nucleus-sampling head, masking, pooling with indices,
bucketing, the scans. `export` builds each in float32 on each device with
random weights (seeded), exports it with torch.export and compiles it with
torch's default inductor options and aot_inductor.link_libtorch=False, in
parallel processes, and writes OUT_DIR/NAME.DEVICE/: model.pt2, in_<i>.npy,
expect_<i>.npy (eager's outputs), info.json (the aoti_torch_* symbols the
model .so imports, read with ../gpu/zoo/elfsyms.py, and how to judge it).
`run` runs every package through aoti-run: deterministic modules against
eager's outputs (`-e`, with the module's tolerances; integer outputs such as
indices exactly), random ones (judge "random") by reproducibility under one
seed (`--seed`: the same twice, another seed gives other values) and by the
mean and standard deviation of each output against eager's sample of the
same distribution (within 6 standard errors). It writes OUT_DIR/ops.md and
ops.json and exits 1 if any package fails.

Torch and numpy are needed for export only; run needs numpy.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "zoo"))
import elfsyms  # noqa: E402


# --------------------------------------------------------------------------
# The modules. Each builder returns (module, inputs) on the CPU in float32;
# export moves them to the device. judge: "close" (rtol/atol on floating
# outputs, integer outputs exact), "random" (see the docstring).

def _moe_router():
    import torch
    import torch.nn as nn

    class Router(nn.Module):
        """Mixtral's router: top-2 of 8 experts per token, renormalised, and how
        many tokens each expert gets (histc over the chosen experts)."""

        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(256, 8, bias=False)

        def forward(self, x):
            probs = torch.softmax(self.gate(x), dim=-1)
            w, idx = torch.topk(probs, 2, dim=-1)
            w = w / w.sum(dim=-1, keepdim=True)
            counts = torch.histc(idx.float(), bins=8, min=0, max=7)
            return w, idx, counts

    return Router(), (torch.randn(512, 256),)


def _knn_head():
    import torch
    import torch.nn as nn

    class Knn(nn.Module):
        """k-nearest neighbours of each query in a key bank: squared distances by
        matmul, the 5 smallest with topk(largest=False), and each query's
        distances sorted."""

        def __init__(self):
            super().__init__()
            self.bank = nn.Parameter(torch.randn(1000, 64))

        def forward(self, q):
            d = (q * q).sum(-1, keepdim=True) - 2 * q @ self.bank.t() + (self.bank * self.bank).sum(-1)
            dist, idx = torch.topk(d, 5, dim=-1, largest=False)
            ordered, order = torch.sort(d[:4], dim=-1, stable=True)
            return dist, idx, ordered, order

    return Knn(), (torch.randn(64, 64),)


def _dlrm():
    import torch
    import torch.nn as nn

    class Dlrm(nn.Module):
        """DLRM's sparse side: three embedding bags (sum, mean, max) over
        variable-length bags given by offsets, then a dense interaction."""

        def __init__(self):
            super().__init__()
            self.sum = nn.EmbeddingBag(5000, 32, mode="sum")
            self.mean = nn.EmbeddingBag(5000, 32, mode="mean")
            self.max = nn.EmbeddingBag(5000, 32, mode="max")
            self.top = nn.Linear(96 + 16, 1)

        def forward(self, dense, ids, offsets):
            e = torch.cat([self.sum(ids, offsets), self.mean(ids, offsets), self.max(ids, offsets)], dim=1)
            return torch.sigmoid(self.top(torch.cat([e, dense], dim=1)))

    g = torch.Generator().manual_seed(1)
    lengths = torch.randint(1, 20, (128,), generator=g)
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    ids = torch.randint(0, 5000, (int(lengths.sum()),), generator=g)
    return Dlrm(), (torch.randn(128, 16), ids, offsets)


def _gcn():
    import torch
    import torch.nn as nn

    class Gcn(nn.Module):
        """A graph convolution layer: messages along edges, aggregated per node
        with scatter_reduce (mean and amax, include_self=False) and index_add."""

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(32, 32)

        def forward(self, x, src, dst):
            m = self.lin(x)[src]
            idx = dst.unsqueeze(1).expand(-1, m.shape[1])
            mean = torch.zeros_like(x).scatter_reduce(0, idx, m, reduce="mean", include_self=False)
            amax = torch.zeros_like(x).scatter_reduce(0, idx, m, reduce="amax", include_self=False)
            total = torch.zeros_like(x).index_add(0, dst, m)
            return mean, amax, total

    g = torch.Generator().manual_seed(2)
    edges = torch.randint(0, 300, (2, 2000), generator=g)
    return Gcn(), (torch.randn(300, 32), edges[0].contiguous(), edges[1].contiguous())


def _sampler():
    import torch
    import torch.nn as nn

    class Sampler(nn.Module):
        """A diffusion/VAE-style sampler: x + sigma * randn_like(x), a uniform
        draw, and dropout in training mode (a mask and a 1/(1-p) scale)."""

        def forward(self, mu, log_sigma):
            z = mu + torch.exp(log_sigma) * torch.randn_like(mu)
            u = torch.rand_like(mu)
            d = torch.nn.functional.dropout(torch.ones_like(mu), p=0.25, training=True)
            return z, u, d

    return Sampler(), (torch.zeros(256, 256), torch.zeros(256, 256))


def _sampling_head():
    import torch
    import torch.nn as nn

    class TopP(nn.Module):
        """A nucleus-sampling head's deterministic part: logits sorted
        (descending, stable), their softmax's running sum, and the top-p mask
        scattered back to vocabulary order."""

        def __init__(self):
            super().__init__()
            self.head = nn.Linear(128, 2000)

        def forward(self, h):
            logits = self.head(h)
            sorted_logits, order = torch.sort(logits, dim=-1, descending=True, stable=True)
            cum = torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1)
            keep_sorted = cum <= 0.9
            keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
            return sorted_logits, order, keep

    return TopP(), (torch.randn(8, 128),)


def _masking():
    import torch
    import torch.nn as nn

    class Mask(nn.Module):
        """Data-dependent sizes: nonzero, masked_select, boolean-mask indexing
        and repeat_interleave with a tensor of repeats."""

        def forward(self, x, repeats):
            mask = x > 0.5
            nz = torch.nonzero(mask)
            sel = torch.masked_select(x, mask)
            rows = x[x.sum(-1) > 0]
            rep = torch.repeat_interleave(repeats)
            return nz, sel, rows, rep

    g = torch.Generator().manual_seed(3)
    return Mask(), (torch.randn(64, 48, generator=g), torch.randint(0, 4, (40,), generator=g))


def _pooling():
    import torch
    import torch.nn as nn

    class Pool(nn.Module):
        """Max pooling with indices and its unpooling (SegNet's decoder), and
        adaptive max pooling to a size that does not divide the input."""

        def forward(self, x):
            y, idx = torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
            up = torch.nn.functional.max_unpool2d(y, idx, 3, stride=2, padding=1, output_size=x.shape[-2:])
            a, aidx = torch.nn.functional.adaptive_max_pool2d(x, (5, 7), return_indices=True)
            return y, idx, up, a, aidx

    return Pool(), (torch.randn(2, 8, 31, 29),)


def _bucketing():
    import torch
    import torch.nn as nn

    class Buckets(nn.Module):
        """Feature bucketing: bucketize against boundaries, searchsorted in
        per-row sorted sequences (right side), and a histogram."""

        def __init__(self):
            super().__init__()
            self.register_buffer("edges", torch.linspace(-2, 2, 17))

        def forward(self, x, seq):
            b = torch.bucketize(x, self.edges)
            s = torch.searchsorted(seq, x[:, :5].contiguous(), right=True)
            h = torch.histc(x, bins=20, min=-3, max=3)
            return b, s, h

    g = torch.Generator().manual_seed(4)
    seq = torch.sort(torch.randn(100, 50, generator=g), dim=-1).values
    return Buckets(), (torch.randn(100, 30, generator=g), seq)


def _scans():
    import torch
    import torch.nn as nn

    class Scans(nn.Module):
        """The scans: running max and min with their indices, a running
        product and a running log-sum-exp (a CTC/HMM forward pass's)."""

        def forward(self, x):
            mx, mi = torch.cummax(x, dim=1)
            mn, ni = torch.cummin(x, dim=0)
            p = torch.cumprod(1 + 0.01 * x, dim=1)
            lse = torch.logcumsumexp(x, dim=1)
            return mx, mi, mn, ni, p, lse

    return Scans(), (torch.randn(16, 400),)


def _selection():
    import torch
    import torch.nn as nn

    class Select(nn.Module):
        """Order statistics: kthvalue, the median and NaN-ignoring median of
        the whole tensor, and mode of small integers. (median along a
        dimension, median.dim, is not in torch's C-shim list: a package
        calling it needs the proxy executor.)"""

        def forward(self, x, labels):
            k, ki = torch.kthvalue(x, 3, dim=1)
            whole = torch.median(x)
            nan = torch.nanmedian(torch.where(x > 1.5, float("nan"), x))
            mo, moi = torch.mode(labels, dim=1)
            # Which index of the mode's occurrences torch returns is its
            # sort's business (it varies with the row's length): check that
            # the index points at the mode instead of the index itself.
            at = labels.gather(1, moi.unsqueeze(1)).squeeze(1)
            return k, ki, whole, nan, mo, at

    g = torch.Generator().manual_seed(5)
    return Select(), (torch.randn(33, 65, generator=g), torch.randint(0, 5, (20, 31), generator=g))


def _index_put():
    import torch
    import torch.nn as nn

    class Put(nn.Module):
        """Writes into tensors by index: accumulate duplicate indices
        (index_put with accumulate) and scatter of a source and a value."""

        def forward(self, x, idx, vals):
            acc = x.index_put((idx,), vals, accumulate=True)
            sc = x.scatter(1, idx[:64].view(64, 1).expand(64, x.shape[1]) % x.shape[1], 1.5)
            return acc, sc

    g = torch.Generator().manual_seed(6)
    return Put(), (torch.randn(100, 16, generator=g), torch.randint(0, 100, (300,), generator=g),
                   torch.randn(300, 16, generator=g))


class Module:
    def __init__(self, name, build, judge, what, rtol=1e-4, atol=1e-5):
        self.name, self.build, self.judge, self.what = name, build, judge, what
        self.rtol, self.atol = rtol, atol


MODULES = [
    Module("moe_router", _moe_router, "close", "topk, histc"),
    Module("knn_head", _knn_head, "close", "topk (smallest), sort (stable)"),
    Module("dlrm", _dlrm, "close", "_embedding_bag sum/mean/max with offsets"),
    Module("gcn", _gcn, "close", "scatter_reduce mean/amax, index_add", rtol=1e-4, atol=1e-4),
    Module("sampler", _sampler, "random", "randn_like, rand_like, dropout (inductor's RNG seeds)"),
    Module("sampling_head", _sampling_head, "close", "sort descending, cumsum, scatter"),
    Module("masking", _masking, "close", "nonzero, masked_select, bool-mask index, repeat_interleave"),
    Module("pooling", _pooling, "close", "max_pool2d_with_indices, max_unpool2d, adaptive_max_pool2d"),
    Module("bucketing", _bucketing, "close", "bucketize, searchsorted, histc"),
    Module("scans", _scans, "close", "cummax, cummin, cumprod, logcumsumexp", rtol=1e-4, atol=1e-4),
    Module("selection", _selection, "close", "kthvalue, median, nanmedian, mode"),
    Module("index_put", _index_put, "close", "index_put accumulate, scatter value", rtol=1e-4, atol=1e-4),
]
BY_NAME = {m.name: m for m in MODULES}
DEVICES = ("cuda", "cpu")


def save(path, t):
    import numpy as np
    # np.array, not np.ascontiguousarray, which makes a 0-d array 1-d.
    np.save(path, np.array(t.detach().cpu().numpy(), order="C"))


def export_one(name, device, out_dir):
    """Exports one (module, device) into out_dir/name.device/; info.json says how it went."""
    d = os.path.join(out_dir, f"{name}.{device}")
    os.makedirs(d, exist_ok=True)
    info = {"name": name, "device": device, "judge": BY_NAME[name].judge, "what": BY_NAME[name].what,
            "rtol": BY_NAME[name].rtol, "atol": BY_NAME[name].atol}
    stage = "import"
    t0 = time.time()
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.manual_seed(0)
        stage = "build"
        m, inputs = BY_NAME[name].build()
        m = m.to(device).eval()
        inputs = tuple(t.to(device) for t in inputs)
        stage = "eager"
        with torch.no_grad():
            outs = m(*inputs)
        if isinstance(outs, torch.Tensor):
            outs = (outs,)
        for i, t in enumerate(inputs):
            save(os.path.join(d, f"in_{i}.npy"), t)
        for i, t in enumerate(outs):
            save(os.path.join(d, f"expect_{i}.npy"), t)
        info["outputs"] = [[str(t.dtype).split(".")[-1], list(t.shape)] for t in outs]
        stage = "export"
        ep = torch.export.export(m, inputs)
        info["graph_ops"] = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
        stage = "compile"
        pt2 = os.path.join(d, "model.pt2")
        torch._inductor.aoti_compile_and_package(
            ep, package_path=pt2, inductor_configs={"aot_inductor.link_libtorch": False})
        import zipfile
        with zipfile.ZipFile(pt2) as z:
            so = [n for n in z.namelist() if n.endswith(".so")][0]
            syms = elfsyms.dynamic_symbols(z.read(so))
        info["imports"] = sorted(n for n, defined in syms if not defined and n.startswith("aoti_torch_"))
        info["fallbacks"] = [n for n in info["imports"] if re.match(r"aoti_torch_(cpu|cuda)_", n)
                             and not re.match(r"aoti_torch_cuda_(guard|caching)", n)]
        info["status"] = "exported"
    except Exception as e:  # the row says why; the other modules go on
        import traceback
        info["status"] = "export-failed"
        info["stage"] = stage
        info["reason"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        info["traceback"] = traceback.format_exc()[-4000:]
    info["export_s"] = round(time.time() - t0, 1)
    with open(os.path.join(d, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info["status"] == "exported"


def selected(filter_re, devices):
    rx = re.compile(filter_re) if filter_re else None
    return [(m.name, dev) for m in MODULES for dev in devices
            if rx is None or rx.search(f"{m.name}.{dev}")]


def cmd_export(a):
    os.makedirs(a.out_dir, exist_ok=True)
    devices = DEVICES if a.device == "both" else (a.device,)
    jobs = selected(a.filter, devices)
    procs, t0 = [], time.time()
    env = dict(os.environ, OMP_NUM_THREADS="4")
    pending = list(jobs)
    while pending or procs:
        while pending and len(procs) < a.jobs:
            name, dev = pending.pop(0)
            log = open(os.path.join(a.out_dir, f"{name}.{dev}.log"), "w")
            procs.append((name, dev, subprocess.Popen(
                [sys.executable, __file__, "export-one", name, dev, a.out_dir],
                stdout=log, stderr=subprocess.STDOUT, env=env)))
        for p in list(procs):
            if p[2].poll() is not None:
                procs.remove(p)
                print(f"export {p[0]}.{p[1]}: rc {p[2].returncode}, {time.time() - t0:.0f} s", flush=True)
        time.sleep(0.5)
    return 0


def load(path):
    import numpy as np
    return np.load(path)


def moments_agree(a, b):
    """Mean and standard deviation of two samples of one distribution, within
    6 standard errors of the mean (sigma/sqrt(n)) and of the deviation
    (sigma/sqrt(2n))."""
    import numpy as np
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    n = min(a.size, b.size)
    sigma = max(b.std(), 1e-12)
    ok_mean = abs(a.mean() - b.mean()) <= 6 * sigma * math.sqrt(2.0 / n)
    ok_std = abs(a.std() - b.std()) <= 6 * sigma * math.sqrt(1.0 / n)
    return ok_mean and ok_std, f"mean {a.mean():.4f} vs {b.mean():.4f}, std {a.std():.4f} vs {b.std():.4f}"


def aoti_run(aoti, d, info, extra):
    ins = sorted((f for f in os.listdir(d) if re.match(r"in_\d+\.npy$", f)), key=lambda f: int(f[3:-4]))
    cmd = [aoti, os.path.join(d, "model.pt2"), "--format", "json", "--device", info["device"]]
    if ins:
        cmd += ["-i"] + [os.path.join(d, f) for f in ins]
    p = subprocess.run(cmd + extra, capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = None
    return p.returncode, report, p.stderr


def why(rc, report, stderr):
    """The first line that says why aoti-run failed: its JSON error, a
    mismatching output, or stderr."""
    if report:
        err = report.get("error")
        if isinstance(err, dict):
            err = err.get("message")
        if err:
            lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
            # "cannot be loaded: 1 symbol ... is not defined ...:" then the names
            return " ".join(lines[:2])[:300]
        for o in report.get("outputs", []):
            chk = o.get("check") or {}
            if chk and not chk.get("match", True):
                return (f"{o['name']}: {chk.get('mismatched')} of {chk.get('compared')} off, "
                        f"max abs error {chk.get('max_abs_error')}")
    lines = [ln for ln in (stderr or "").splitlines() if ln.strip()]
    return (lines[0] if lines else f"exit {rc}")[:300]


def run_close(aoti, d, info):
    exp = sorted((f for f in os.listdir(d) if re.match(r"expect_\d+\.npy$", f)), key=lambda f: int(f[7:-4]))
    rc, rep, err = aoti_run(aoti, d, info, ["-e"] + [os.path.join(d, f) for f in exp]
                            + ["--rtol", str(info["rtol"]), "--atol", str(info["atol"])])
    if rc == 0:
        return "ok", ""
    return ("mismatch" if rc == 1 else "error"), why(rc, rep, err)


def run_random(aoti, d, info):
    import numpy as np
    outs = {}
    for tag, seed in (("a", 1), ("b", 1), ("c", 2)):
        o = os.path.join(d, f"out_{tag}")
        os.makedirs(o, exist_ok=True)
        rc, rep, err = aoti_run(aoti, d, info, ["--seed", str(seed), "-o", o])
        if rc != 0:
            return "error", why(rc, rep, err)
        outs[tag] = [load(os.path.join(o, f"output_{i}.npy")) for i in range(len(info["outputs"]))]
    notes = []
    for i, (a, b, c) in enumerate(zip(outs["a"], outs["b"], outs["c"])):
        if not np.array_equal(a, b):
            return "mismatch", f"output {i}: two runs with seed 1 differ"
        if np.array_equal(a, c):
            return "mismatch", f"output {i}: seeds 1 and 2 give the same values"
        ok, what = moments_agree(a, load(os.path.join(d, f"expect_{i}.npy")))
        notes.append(f"out{i}: {what}")
        if not ok:
            return "mismatch", f"output {i}: moments off eager's: {what}"
    return "ok", "; ".join(notes)


def cmd_run(a):
    rows = []
    for name, dev in selected(a.filter, DEVICES):
        d = os.path.join(a.out_dir, f"{name}.{dev}")
        path = os.path.join(d, "info.json")
        if not os.path.exists(path):
            continue
        info = json.load(open(path))
        row = {"name": name, "device": dev, "what": info["what"], "fallbacks": info.get("fallbacks", [])}
        if info["status"] != "exported":
            row.update(status="export-failed", note=f"{info.get('stage')}: {info.get('reason')}")
        else:
            t0 = time.time()
            status, note = (run_random if info["judge"] == "random" else run_close)(a.aoti_run, d, info)
            row.update(status=status, note=note, run_s=round(time.time() - t0, 1))
        rows.append(row)
        print(f"{name}.{dev}: {row['status']} {row.get('note', '')[:200]}", flush=True)
    lines = ["| module | device | exercises | status | fallbacks the package calls | note |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        calls = ", ".join(f"`{re.sub(r'^aoti_torch_(cpu|cuda)_', '', s)}`" for s in r["fallbacks"]) or "none"
        lines.append(f"| {r['name']} | {r['device']} | {r['what']} | {r['status']} | {calls} | "
                     f"{r.get('note', '')[:160]} |")
    with open(os.path.join(a.out_dir, "ops.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out_dir, "ops.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n".join(lines))
    bad = [r for r in rows if r["status"] != "ok"]
    print(f"{len(rows) - len(bad)}/{len(rows)} ok")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("out_dir")
    e.add_argument("--jobs", type=int, default=8)
    e.add_argument("--filter")
    e.add_argument("--device", choices=("cuda", "cpu", "both"), default="both")
    one = sub.add_parser("export-one")
    one.add_argument("name", choices=sorted(BY_NAME))
    one.add_argument("device", choices=DEVICES)
    one.add_argument("out_dir")
    r = sub.add_parser("run")
    r.add_argument("out_dir")
    r.add_argument("aoti_run")
    r.add_argument("--filter")
    sub.add_parser("list")
    a = ap.parse_args()
    if a.cmd == "list":
        for m in MODULES:
            print(f"{m.name:15} {m.judge:7} {m.what}")
        return 0
    if a.cmd == "export":
        return cmd_export(a)
    if a.cmd == "export-one":
        return 0 if export_one(a.name, a.device, a.out_dir) else 1
    return cmd_run(a)


if __name__ == "__main__":
    sys.exit(main())
