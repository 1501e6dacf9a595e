"""Export one zoo package LibTorch-free and write what run.py checks it against.

    python3 export.py MODEL OPTIONS DTYPE DEVICE OUTDIR [--no-compile]

MODEL is a zoo.py model, OPTIONS default|executorch|simd (executorch only
for cuda, simd only for cpu), DTYPE float32|bfloat16, DEVICE cuda|cpu. Writes OUTDIR/TAG/ (TAG =
model.options.dtype.device):
  model.pt2        the package (aot_inductor.link_libtorch=False always)
  in_<i>.npy       the inputs; expect_<i>.npy eager's outputs (bfloat16 stored
                   as float32, exact; aoti-run converts floating inputs)
  ref_<i>.npy      bfloat16 only: the outputs of a float64 run of the same
                   weights and inputs, the reference run.py judges accuracy by
  info.json        input/output specs, tolerances (zoo.RTOL/ATOL, atol scaled
                   by the outputs' largest magnitude; outputs that are constant
                   or vanish are refused: no check against them could fail), eager latency measured here,
                   torch.export and compile seconds, the inductor options and
                   decompositions (zoo.decompositions), the
                   CPU thread count, and the model .so's undefined aoti_torch_*
                   symbols (read from .dynsym by elfsyms.py), the ATen ops of the
                   exported graph with their counts, and the shapes of its
                   convolution, attention and GEMM calls
or, when a stage fails, failed.json {stage, reason (first line), traceback}
and exit 1. Bad arguments exit 2. --no-compile stops after torch.export (a
dry run of the builders and of export on a machine without a GPU; eager is
timed over 3 runs only).

ZOO_INDUCTOR_EXTRA, a JSON object, adds inductor options to the package's
(info.json's inductor_configs shows them, and extra_inductor_configs names
them): for options that change how the export runs, not what it builds, such
as {"compile_threads": 1}, which compiles Triton candidates in threads of
this process (as many as TORCHINDUCTOR_COMPILE_THREADS says) instead of in
worker processes.

The eager latency here is measured while the other exports of the phase run
in parallel, so it is marked "contended"; eager.py re-times eager on a quiet
machine before run.py compares.
"""
import json
import os
import shutil
import sys
import time
import traceback
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import elfsyms  # noqa: E402
import zoo  # noqa: E402

USAGE = "usage: export.py MODEL OPTIONS DTYPE DEVICE OUTDIR [--no-compile]"


def fail_usage(msg):
    print(f"export.py: error: {msg}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def save(path, t):
    import numpy as np
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    np.save(path, np.ascontiguousarray(t.numpy()))


def spec(t):
    return [str(t.dtype).split(".")[-1], list(t.shape)]


def describe_arg(x):
    """A graph argument as JSON: a tensor as "dtype[shape]", literals as they are."""
    val = getattr(x, "meta", {}).get("val") if hasattr(x, "meta") else None
    if val is not None and hasattr(val, "shape"):
        return f"{str(val.dtype).split('.')[-1]}{list(val.shape)}"
    if isinstance(x, (list, tuple)):
        return [describe_arg(y) for y in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def model_so_symbols(pt2):
    """The undefined aoti_torch_* symbols of the package's model .so, read from the zip."""
    with zipfile.ZipFile(pt2) as z:
        sos = [n for n in z.namelist() if n.endswith(".so") and "/aotinductor/model/" in n]
        if len(sos) != 1:
            return {"error": f"expected one model .so in the package, found {len(sos)}"}
        data = z.read(sos[0])
    try:
        syms = elfsyms.dynamic_symbols(data)
    except elfsyms.ElfError as e:
        return {"error": str(e)}
    undef = sorted({n for n, d in syms if not d})
    return {"so": sos[0], "so_bytes": len(data),
            "undefined_aoti": [n for n in undef if n.startswith("aoti_torch_")],
            "undefined_other": len([n for n in undef if not n.startswith("aoti_torch_")])}


def rmse(a, b):
    return float(((a.double() - b.double()) ** 2).mean().sqrt())


def save_reference(m, inputs, outs, d):
    """For a low-precision package: ref_<i>.npy, the model run in float64 on
    the same bfloat16-rounded weights and inputs (zoo.REF_MULTIPLIER says what
    run.py does with it), and eager's own RMS error against it per output."""
    import copy
    import torch
    m64 = copy.deepcopy(m).double()
    ins64 = tuple(t.double() if t.is_floating_point() else t for t in inputs)
    try:
        with torch.no_grad():
            refs = m64(*ins64)
        precision = "float64"
    except RuntimeError as e:  # an op without a float64 kernel on this device
        m32 = copy.deepcopy(m).float()
        with torch.no_grad():
            refs = m32(*(t.float() if t.is_floating_point() else t for t in inputs))
        precision = f"float32 (float64 failed: {str(e).splitlines()[0][:120]})"
    del m64
    eager_rmse = []
    for i, (r, o) in enumerate(zip(refs, outs)):
        save(os.path.join(d, f"ref_{i}.npy"), r.float())
        eager_rmse.append(rmse(o, r) if o.is_floating_point() else 0.0)
    return {"precision": precision, "eager_rmse": eager_rmse,
            "multiplier": zoo.REF_MULTIPLIER, "slack": zoo.REF_SLACK}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    if len(args) != 5 or any(f != "--no-compile" for f in flags):
        fail_usage("expected MODEL OPTIONS DTYPE DEVICE OUTDIR")
    model, options, dtype, device, outdir = args
    compile_ = "--no-compile" not in flags
    if model not in zoo.BY_NAME:
        fail_usage(f"unknown model '{model}' (zoo.py lists them)")
    if options not in zoo.OPTIONS:
        fail_usage(f"unknown options '{options}' ({', '.join(zoo.OPTIONS)})")
    if device not in zoo.ITERS:
        fail_usage(f"unknown device '{device}' (cuda, cpu)")
    if options == "simd" and device != "cpu":
        fail_usage("simd options are CPU options (vectorized C++ kernels)")
    if options == "executorch" and device != "cuda":
        fail_usage("executorch options are CUDA options (Triton GEMMs and convolutions)")
    if dtype not in zoo.BY_NAME[model].dtypes:
        fail_usage(f"{model} is built in {', '.join(zoo.BY_NAME[model].dtypes)}, not '{dtype}'")

    try:
        extra = json.loads(os.environ.get("ZOO_INDUCTOR_EXTRA") or "{}")
        if not isinstance(extra, dict):
            raise ValueError("not a JSON object")
    except ValueError as e:
        fail_usage(f"ZOO_INDUCTOR_EXTRA: {e}")
    inductor_configs = {**zoo.inductor_configs(options), **extra}

    tag = zoo.tag(model, options, dtype, device)
    d = os.path.join(outdir, tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    stage = "import"
    t_start = time.time()
    try:
        import torch
        # The shims compute float32 GEMMs and convolutions without TF32; so must eager.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        threads = None
        if device == "cpu":
            # Baked into the package (inductor's parallel_num_threads()) and used by eager.
            threads = zoo.CPU_THREADS
            torch.set_num_threads(threads)
        # A dry run (--no-compile) only checks that eager runs: 3 timed runs.
        iters, warmup = zoo.ITERS[device] if compile_ else (3, 1)

        stage = "build"
        m, inputs = zoo.build(model, dtype, device)

        stage = "eager"
        with torch.no_grad():
            outs = m(*inputs)
            for i, t in enumerate(inputs):
                save(os.path.join(d, f"in_{i}.npy"), t)
            for i, t in enumerate(outs):
                save(os.path.join(d, f"expect_{i}.npy"), t)
            eager = zoo.time_eager(lambda: m(*inputs), device, iters, warmup)
        eager["contended"] = True
        reference = None
        if dtype != zoo.F32:
            stage = "reference"
            reference = save_reference(m, inputs, outs, d)
        floats = [t.detach().float() for t in outs if t.is_floating_point()]
        scale = max([float(t.abs().max()) for t in floats] or [1.0])
        # A check against (near) constant or vanishing outputs passes whatever
        # aoti-run computes: refuse to build such a test.
        for i, t in enumerate(floats):
            top, std = float(t.abs().max()), float(t.std()) if t.numel() > 1 else 1.0
            if not (top > 1e-6 and std > 1e-2 * top):
                raise ValueError(f"degenerate eager output {i}: std {std:.3g}, max |y| {top:.3g}; "
                                 "comparing against it would prove nothing (fix the model in zoo.py)")

        stage = "torch.export"
        t0 = time.time()
        with torch.no_grad():
            ep = torch.export.export(m, inputs)
            table = zoo.decompositions(options)
            if table:
                ep = ep.run_decompositions(table)
        export_s = time.time() - t0
        # The ATen ops the package will call or lower, to read next to its imports.
        aten_ops, calls = {}, {}
        for node in ep.graph.nodes:
            if node.op == "call_function":
                name = str(node.target)
                aten_ops[name] = aten_ops.get(name, 0) + 1
                if any(k in name for k in ("conv", "scaled_dot_product", "matmul", "linear", "mm")):
                    key = json.dumps([name, [describe_arg(x) for x in node.args],
                                      {k: describe_arg(v) for k, v in node.kwargs.items()}])
                    calls[key] = calls.get(key, 0) + 1

        info = {"model": model, "options": options, "dtype": dtype, "device": device, "tag": tag,
                "torch": torch.__version__, "inductor_configs": inductor_configs,
                "extra_inductor_configs": sorted(extra),
                "decompositions": sorted(str(op) for op in zoo.decompositions(options)),
                "inputs": [spec(t) for t in inputs], "outputs": [spec(t) for t in outs],
                "rtol": zoo.RTOL[dtype], "atol": zoo.ATOL[dtype] * scale, "scale": scale,
                "reference": reference,
                "iters": iters, "warmup": warmup, "threads": threads, "eager_ms": eager,
                "torch_export_s": round(export_s, 1), "what": zoo.BY_NAME[model].what,
                "aten_ops": dict(sorted(aten_ops.items())),
                # The shapes the convolution, attention and GEMM fallbacks see
                # (benchmarks at the zoo's shapes start here): [op, args, kwargs, count].
                "calls": [json.loads(k) + [n] for k, n in sorted(calls.items())]}
        if compile_:
            stage = "aoti_compile_and_package"
            t0 = time.time()
            with torch.no_grad():
                pkg = torch._inductor.aoti_compile_and_package(
                    ep, package_path=os.path.join(d, "model.pt2"),
                    inductor_configs=inductor_configs)
            info["compile_s"] = round(time.time() - t0, 1)
            info["package_bytes"] = os.path.getsize(pkg)
            stage = "symbols"
            info["symbols"] = model_so_symbols(pkg)
        info["total_s"] = round(time.time() - t_start, 1)
        with open(os.path.join(d, "info.json"), "w") as f:
            json.dump(info, f, indent=1)
    except Exception as e:  # noqa: BLE001 - every failure becomes a row of the table
        tb = traceback.format_exc()
        print(tb, file=sys.stderr)
        lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
        reason = f"{type(e).__name__}: {lines[0] if lines else ''}"
        with open(os.path.join(d, "failed.json"), "w") as f:
            json.dump({"tag": tag, "stage": stage, "reason": reason[:500], "traceback": tb[-4000:],
                       "seconds": round(time.time() - t_start, 1)}, f, indent=1)
        print(f"export-failed {tag} at {stage}: {reason[:300]}")
        sys.exit(1)
    syms = info.get("symbols", {}).get("undefined_aoti", [])
    print(f"exported {tag}: torch.export {info['torch_export_s']}s, compile {info.get('compile_s', '-')}s, "
          f"eager p50 {eager['p50']:.3f} ms (contended), {len(syms)} aoti_torch_* imports")


if __name__ == "__main__":
    main()
