"""aoti-run against torch's own AOTInductor runtime, and eager, on the same models.

    python3 torch_runtime.py AOTI_RUN OUT_DIR [--models a,b,...] [--iters N] [--jobs J]
                             [--phase all|export|time]

Each model is built seeded in float32 on cuda (the zoo's builders,
tests/gpu/zoo/zoo.py, for zoo names; this file's EXTRA for the others),
exported once with torch.export and compiled twice with the same inductor
options but aot_inductor.link_libtorch: False, the package aoti-run runs, and
True, the package torch's AOTIModelPackageLoader runs. The compiles run in J
processes at once; the timing then runs one model at a time on the quiet
machine (--phase export and time split the two, so that other work can
share the machine with the compiles but not with the timing):

  aoti-run      its own --iters/--warmup (an event before and after each run
                on its stream, the host waiting for the second), and again with
                --cuda-graph (replays of one captured run);
  torch runtime torch._inductor.aoti_load_package(linked).loader.run(inputs),
                the C++ loader with the least Python around it, timed the same
                way from this process (events around each call);
  eager         the module, timed the same way.

aoti-run's outputs are checked against eager's (-e, the zoo's tolerances).
Writes OUT_DIR/torch_runtime.json and .md, with the GPU's name, and prints the
table: p50 per run in ms and the ratios aoti-run / torch runtime and
aoti-run / eager (goal <= 1.0x torch's runtime; --cuda-graph <= 0.8x).
"""
import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu", "zoo"))
sys.path.insert(0, os.path.join(ROOT, "examples", "generate"))

DEFAULT_MODELS = "resnet18,vgg11_bn,gru,bert,llama,llama_decode"


def _vgg11_bn():
    import torch
    import torchvision
    return torchvision.models.vgg11_bn(), (torch.randn(8, 3, 224, 224),)


class _Gru:
    """A 2-layer GRU over 64 steps, batch 8: the recurrent row of the issue."""

    @staticmethod
    def build():
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = torch.nn.GRU(256, 512, num_layers=2, batch_first=True)

            def forward(self, x):
                return self.rnn(x)[0]
        return M(), (torch.randn(8, 64, 256),)


def _llama_decode():
    """One decode step of examples/generate's StaticLlama (the zoo's Llama widths)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    import export_llama
    hf = LlamaForCausalLM(LlamaConfig(**export_llama.CONFIG)).eval()
    return export_llama.StaticLlama(hf, 256), (torch.full((1, 1), 7), torch.tensor([5]))


EXTRA = {"vgg11_bn": _vgg11_bn, "gru": _Gru.build, "llama_decode": _llama_decode}


def build(name):
    import torch
    if name in EXTRA:
        torch.manual_seed(0)
        m, inputs = EXTRA[name]()
        m = m.to("cuda").eval()
        return m, tuple(t.to("cuda") for t in inputs)
    import zoo
    return zoo.build(name, "float32", "cuda")


def export_one(name, out):
    """Both packages of one model, its inputs and eager's outputs (a process of its own)."""
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    try:
        m, inputs = build(name)
        with torch.no_grad():
            ref = m(*inputs)
            ep = torch.export.export(m, inputs, strict=False)
        refs = ref if isinstance(ref, (tuple, list)) else (ref,)
        for i, t in enumerate(inputs):
            np.save(os.path.join(d, f"in_{i}.npy"), t.cpu().numpy())
        for i, t in enumerate(refs):
            np.save(os.path.join(d, f"expect_{i}.npy"), t.float().cpu().numpy())
        for tag, linked in (("free", False), ("linked", True)):
            torch._inductor.aoti_compile_and_package(
                ep, package_path=os.path.join(d, f"{tag}.pt2"),
                inductor_configs={"aot_inductor.link_libtorch": linked})
        return name, None
    except Exception:
        return name, traceback.format_exc()[-1500:]


def time_callable(fn, iters, warmup):
    """p50 of event-timed calls, the host waiting for each."""
    import torch
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def aoti_run(aoti, d, iters, warmup, graph):
    ins = sorted(f for f in os.listdir(d) if f.startswith("in_"))
    exp = sorted(f for f in os.listdir(d) if f.startswith("expect_"))
    cmd = [aoti, os.path.join(d, "free.pt2")] + sum((["-i", os.path.join(d, f)] for f in ins), [])
    if not graph:
        cmd += ["-e"] + [os.path.join(d, f) for f in exp] + ["--rtol", "1e-3", "--atol", "1e-3"]
    cmd += ["--iters", str(iters), "--warmup", str(warmup), "--format", "json"]
    if graph:
        cmd.append("--cuda-graph")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        return {"error": (p.stderr or p.stdout)[-400:]}
    r = {"status": rep.get("status"), "p50": rep.get("latency_ms", {}).get("p50")}
    if graph:
        g = rep.get("cuda_graph", {})
        r["captured"] = g.get("captured")
        r["pipelined"] = g.get("pipelined_ms_per_run")
        if not g.get("captured"):
            r["p50"] = None  # timed plainly: not a graph figure
            r["reason"] = g.get("reason")
    if p.returncode != 0:
        r["error"] = p.stderr[-400:]
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("aoti_run")
    ap.add_argument("out")
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--phase", choices=("all", "export", "time"), default="all")
    a = ap.parse_args()
    names = a.models.split(",")
    os.makedirs(a.out, exist_ok=True)
    failed = {}
    failed_path = os.path.join(a.out, "export_failed.json")
    if a.phase == "time":
        failed = json.load(open(failed_path)) if os.path.exists(failed_path) else {}
    else:
        failed = run_exports(names, a)
        json.dump(failed, open(failed_path, "w"))
    if a.phase == "export":
        return 1 if failed else 0
    return time_all(names, failed, a)


def run_exports(names, a):
    failed = {}
    with cf.ProcessPoolExecutor(a.jobs, mp_context=__import__("multiprocessing").get_context("spawn")) as ex:
        for name, err in ex.map(export_one, names, [a.out] * len(names)):
            if err:
                failed[name] = err
                print(f"{name}: export failed\n{err}", file=sys.stderr)
    return failed


def time_all(names, failed, a):
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = {}
    for name in names:
        if name in failed:
            rows[name] = {"error": "export failed: " + failed[name].strip().splitlines()[-1]}
            continue
        d = os.path.join(a.out, name)
        row = {"aoti_run": aoti_run(a.aoti_run, d, a.iters, a.warmup, False),
               "aoti_run_graph": aoti_run(a.aoti_run, d, a.iters, a.warmup, True)}
        ins = [torch.from_numpy(np.load(os.path.join(d, f))).cuda()
               for f in sorted(f for f in os.listdir(d) if f.startswith("in_"))]
        try:
            loader = torch._inductor.aoti_load_package(os.path.join(d, "linked.pt2")).loader
            row["torch_runtime"] = time_callable(lambda: loader.run(ins), a.iters, a.warmup)
        except Exception as e:  # noqa: BLE001 (a row, not a crash)
            row["torch_runtime_error"] = str(e)[-400:]
        try:
            m, _ = build(name)
            with torch.no_grad():
                row["eager"] = time_callable(lambda: m(*ins), a.iters, a.warmup)
        except Exception as e:  # noqa: BLE001
            row["eager_error"] = str(e)[-400:]
        rows[name] = row
        print(name, json.dumps(row), flush=True)

    def ratio(x, y):
        return round(x / y, 2) if isinstance(x, (int, float)) and isinstance(y, (int, float)) and y else None

    lines = ["| model | aoti-run p50 ms | --cuda-graph p50 ms | torch runtime p50 ms | eager p50 ms | "
             "aoti-run / torch runtime | graph / torch runtime | aoti-run / eager | status |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in rows.items():
        ar, gr = r.get("aoti_run", {}), r.get("aoti_run_graph", {})
        tr, ea = r.get("torch_runtime"), r.get("eager")
        f = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "-"  # noqa: E731
        status = r.get("error") or ar.get("error", "").strip().splitlines()[-1:] or ar.get("status")
        lines.append(f"| {name} | {f(ar.get('p50'))} | {f(gr.get('p50'))} | {f(tr)} | {f(ea)} | "
                     f"{ratio(ar.get('p50'), tr)} | {ratio(gr.get('p50'), tr)} | {ratio(ar.get('p50'), ea)} | "
                     f"{status} |")
    table = "\n".join(lines)
    print(table)
    gpu = torch.cuda.get_device_name(0)
    with open(os.path.join(a.out, "torch_runtime.json"), "w") as fh:
        json.dump({"schema_version": 1, "gpu": gpu, "torch": torch.__version__, "iters": a.iters,
                   "warmup": a.warmup, "models": rows}, fh, indent=1)
    with open(os.path.join(a.out, "torch_runtime.md"), "w") as fh:
        fh.write(f"On {gpu}, torch {torch.__version__}, {a.iters} runs after {a.warmup}.\n\n{table}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
