"""Every selected zoo package through aoti-run, against eager PyTorch: the zoo table.

    python3 run.py ZOO_DIR AOTI_RUN OUT_DIR [--set S[,S...]] [--filter REGEX]
                   [--no-eager-retime]

The selection (zoo.py's sets, default $ZOO_SET or "default", and a regex on
"model.options.dtype.device", default $ZOO_FILTER) decides the rows, so the
table is complete: a package that export.py could not build is a row marked
export-failed with its stage and reason (failed.json), one killed by the
phase's timeout export-timeout, one never started (the phase's time budget
ran out) not-exported.

First eager.py re-times eager on the quiet machine (export.py's own figure
was measured while other exports compiled; it is used, marked *, only where
the re-timing failed or --no-eager-retime is given). Then each package runs
through `aoti-run MODEL.pt2 -i in_*.npy -e expect_*.npy --rtol R --atol A
--iters N --warmup K --format json` with the package's tolerances and
iteration counts (info.json); CPU packages with --device cpu and
OMP_NUM_THREADS/OPENBLAS_NUM_THREADS set to the thread count they were
exported with. A row: model, options, dtype, device, status (ok, mismatch,
error with the first line of aoti-run's error, export-failed, ...), max abs
error, that error over the output scale the tolerance was scaled by, for
bfloat16 packages the RMS errors of aoti-run and of eager against a float64
reference (export.py's ref_<i>.npy; a package within REF_MULTIPLIER times
eager's own error is as right as eager, though beyond the elementwise
tolerance, and is ok), aoti-run
p50, eager p50 and their ratio. A CUDA package that ran right runs again
with --cuda-graph where AOTI_RUN has it (not with --no-cuda-graph or
ZOO_CUDA_GRAPH=0): the replays' p50 and their pipelined time per run are two
more columns, and a replay whose outputs differ fails the row (graph-...).

It also gathers the aoti_torch_* symbols the packages import (export.py read
them from each model .so) and those of them that AOTI_RUN does not export:
the fallbacks the shims still lack, with how many packages need each.

Writes OUT_DIR/zoo.json (with "machine": the GPU's and the CPU's names) and
OUT_DIR/zoo.md (the table for docs/aoti-run.md),
prints the table, and exits 1 if any row is not ok (2 on bad arguments).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import elfsyms  # noqa: E402
import zoo  # noqa: E402

RUN_TIMEOUT_S = 120  # one package; the slowest CPU one needs ~35 runs of < 1 s
EAGER_TIMEOUT_S = 420  # eager.py for the whole selection


def machine():
    """The GPU and CPU this call ran on: the device tool lends an H100 or an
    H200, and a table merged from several calls must say which gave a row.
    None for what cannot be read."""
    gpu = cpu = None
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        names = [ln.strip() for ln in p.stdout.splitlines() if ln.strip()]
        gpu = names[0] if p.returncode == 0 and names else None
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), None)
    except OSError:
        pass
    return {"gpu": gpu, "cpu": cpu}


def first_error_line(message):
    """The first line of an error; for missing symbols, the symbols themselves."""
    lines = [ln for ln in (message or "").splitlines() if ln.strip()]
    if not lines:
        return "no message"
    head = lines[0].strip()
    # "<the model's path> cannot be loaded: ..." - the row names the package already.
    cut = head.find(" cannot be loaded: ")
    if cut > 0:
        head = head[cut + 1:]
    if head.endswith(":"):
        listed = [ln.strip() for ln in lines[1:] if ln.startswith("  ")]
        if listed:
            more = f" (+{len(listed) - 3} more)" if len(listed) > 3 else ""
            return head + " " + ", ".join(listed[:3]) + more
    return head


def npy_files(d, kind):
    out, i = [], 0
    while os.path.exists(os.path.join(d, f"{kind}_{i}.npy")):
        out.append(os.path.join(d, f"{kind}_{i}.npy"))
        i += 1
    return out


def reference_check(d, info, out_dir):
    """A low-precision package against its float64 reference (zoo.REF_MULTIPLIER):
    {"aoti_rmse": [...], "eager_rmse": [...], "bound": [...], "ok": bool}, or None
    where export.py wrote no reference or aoti-run wrote no outputs."""
    ref = info.get("reference")
    refs = npy_files(d, "ref")
    if not ref or not refs:
        return None
    import numpy as np
    aoti_rmse, bound = [], []
    for i, (r, e) in enumerate(zip(refs, ref["eager_rmse"])):
        out = os.path.join(out_dir, f"output_{i}.npy")
        if not os.path.exists(out):
            return None
        a, b = np.load(out).astype(np.float64), np.load(r).astype(np.float64)
        if a.shape != b.shape:
            return None
        aoti_rmse.append(float(np.sqrt(np.mean((a - b) ** 2))) if a.size else 0.0)
        bound.append(ref["multiplier"] * e + ref["slack"] * info["scale"])
    return {"precision": ref["precision"], "aoti_rmse": aoti_rmse, "eager_rmse": ref["eager_rmse"],
            "bound": bound, "ok": all(x <= y for x, y in zip(aoti_rmse, bound))}


def run_package(aoti_run, d, info, extra=()):
    """aoti-run on one package: (status, detail, doc, stderr's tail). A package
    with a float64 reference (bfloat16) writes its outputs, and doc gets
    "reference": reference_check's verdict. Elementwise agreement with eager
    or accuracy as good as eager's against the reference makes it ok."""
    cmd = [aoti_run, os.path.join(d, "model.pt2")] + list(extra)
    out_dir = os.path.join(d, "aoti_out")
    if info.get("reference"):
        shutil.rmtree(out_dir, ignore_errors=True)
        cmd += ["-o", out_dir]
    for f in npy_files(d, "in"):
        cmd += ["-i", f]
    for f in npy_files(d, "expect"):
        cmd += ["-e", f]
    cmd += ["--rtol", repr(info["rtol"]), "--atol", repr(info["atol"]),
            "--iters", str(info["iters"]), "--warmup", str(info["warmup"]), "--format", "json"]
    env = dict(os.environ)
    if info["device"] == "cpu":
        cmd += ["--device", "cpu"]
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(info["threads"])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return "error", f"aoti-run did not finish in {RUN_TIMEOUT_S} s", None, ""
    doc = None
    if p.stdout.strip().startswith("{"):
        try:
            doc = json.loads(p.stdout)
        except json.JSONDecodeError:
            doc = None
    if doc is None:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        what = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        return "error", f"{what}, no JSON: {tail}", None, p.stderr[-3000:]
    status = doc.get("status", "error")
    if status == "error":
        return "error", first_error_line((doc.get("error") or {}).get("message")), doc, p.stderr[-3000:]
    ref = reference_check(d, info, out_dir)
    if ref is not None:
        doc["reference"] = ref
    if status == "mismatch" or p.returncode != 0:
        bad = [o for o in doc.get("outputs", []) if not (o.get("check") or {}).get("match", True)]
        if status == "mismatch" and ref is not None and ref["ok"]:
            return "ok", "", doc, ""
        return "mismatch", f"{len(bad)} output(s) beyond tolerance", doc, p.stderr[-3000:]
    return "ok", "", doc, ""


def export_state(zoo_dir, tag):
    """For a package without info.json: (status, detail) from what the export left."""
    failed = os.path.join(zoo_dir, tag, "failed.json")
    if os.path.exists(failed):
        f = json.load(open(failed))
        return "export-failed", f"{f.get('stage')}: {f.get('reason')}"
    log = os.path.join(zoo_dir, "logs", tag + ".log")
    if os.path.exists(log):
        text = open(log, errors="replace").read()
        m = re.search(r"zoo-export: (timed out after \d+ s|skipped: .*)", text)
        if m and m.group(1).startswith("timed out"):
            return "export-timeout", m.group(1)
        if m:
            return "not-exported", m.group(1)
        tail = [ln for ln in text.splitlines() if ln.strip()][-1:] or ["empty log"]
        return "export-failed", "no failed.json; log ends: " + tail[0][:300]
    return "not-exported", "no export in ZOO_DIR (run the zoo-export phase with this set)"


def retime_eager(zoo_dir, tags):
    path = os.path.join(zoo_dir, "eager.json")
    if os.path.exists(path):
        os.remove(path)
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, os.path.join(HERE, "eager.py"), zoo_dir, path] + tags,
                           capture_output=True, text=True, timeout=EAGER_TIMEOUT_S)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            print(f"eager.py exit {p.returncode}: {p.stderr[-2000:]}")
    except subprocess.TimeoutExpired:
        # eager.json is written after each model: what was timed is kept.
        print(f"eager.py did not finish in {EAGER_TIMEOUT_S} s")
    print(f"eager re-timing: {time.time() - t0:.0f} s")
    return json.load(open(path)) if os.path.exists(path) else {}


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-"


def table_lines(rows, with_run=False):
    """The zoo table's header and rows as markdown lines; with_run adds a
    last column, each row's "run" (which measurement it comes from)."""
    def status_cell(r):
        if r["status"] == "ok":
            return "ok"
        detail = r["detail"].replace("|", "\\|").replace("`", "'")
        return f"{r['status']}: `{detail[:200]}`" if detail else r["status"]

    def ref_cell(r):
        ref = r.get("reference")
        if not ref:
            return "-"
        cell = " ".join(f"{a:.2g} / {e:.2g}" for a, e in zip(ref["aoti_rmse"], ref["eager_rmse"]))
        return cell + ("" if ref["ok"] else " (beyond)")

    graph_cols = any("graph" in r for r in rows)
    head = ("| model | options | dtype | device | status | max abs err | err / scale | rmse vs fp64: aoti / eager "
            "| aoti-run p50 ms | eager p50 ms | ratio |")
    if graph_cols:
        head += " cuda-graph p50 ms | pipelined ms/run |"
    if with_run:
        head += " run |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for r in rows:
        star = "" if r.get("eager_source") != "during export" else "*"
        line = (f"| {r['model']} | {r['options']} | {r['dtype']} | {r['device']} | {status_cell(r)} "
                f"| {fmt(r.get('max_abs_err'), '.2g')} | {fmt(r.get('err_over_scale'), '.2g')} "
                f"| {ref_cell(r)} | {fmt(r.get('aoti_p50_ms'), '.4f')} | {fmt(r.get('eager_p50_ms'), '.4f')}{star} "
                f"| {fmt(r.get('ratio'), '.2f')} |")
        if graph_cols:
            g = r.get("graph") or {}
            p50 = fmt(r.get("graph_p50_ms"), ".4f") if g.get("captured") else (
                "not captured" if g.get("reason") else "-")
            line += f" {p50} | {fmt(r.get('graph_pipelined_ms'), '.4f')} |"
        if with_run:
            line += f" {r.get('run', '-')} |"
        lines.append(line)
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zoo_dir")
    ap.add_argument("aoti_run")
    ap.add_argument("out_dir")
    ap.add_argument("--set", default=os.environ.get("ZOO_SET") or "default")
    ap.add_argument("--filter", default=os.environ.get("ZOO_FILTER") or None)
    ap.add_argument("--no-eager-retime", action="store_true")
    ap.add_argument("--no-cuda-graph", action="store_true",
                    default=os.environ.get("ZOO_CUDA_GRAPH") == "0")
    a = ap.parse_args()
    try:
        selected = zoo.packages(a.set, a.filter)
    except (ValueError, re.error) as e:
        print(f"run.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    if not os.access(a.aoti_run, os.X_OK):
        print(f"run.py: error: {a.aoti_run} is not an executable", file=sys.stderr)
        sys.exit(2)
    os.makedirs(a.out_dir, exist_ok=True)
    # Table order: by model as the catalogue lists them, then options, dtype, device.
    order = {e.name: i for i, e in enumerate(zoo.MODELS)}
    selected.sort(key=lambda p: (order[p[0]], p[3] != "cuda", p[1], p[2] != zoo.F32))
    tags = [zoo.tag(*p) for p in selected]
    exported = [t for t in tags if os.path.exists(os.path.join(a.zoo_dir, t, "info.json"))]
    eager = {} if a.no_eager_retime else retime_eager(a.zoo_dir, exported)

    try:
        host_syms = set(elfsyms.defined(open(a.aoti_run, "rb").read(), "aoti_torch_"))
    except (OSError, elfsyms.ElfError) as e:
        print(f"run.py: cannot read {a.aoti_run}'s symbols: {e}")
        host_syms = None

    # A second run of each CUDA package that ran right, with --cuda-graph
    # (replays of one captured run), where this aoti-run has the option.
    graph = False
    if not a.no_cuda_graph:
        try:
            h = subprocess.run([a.aoti_run, "--help"], capture_output=True, text=True, timeout=30)
            graph = "--cuda-graph" in h.stdout + h.stderr
        except (OSError, subprocess.TimeoutExpired):
            pass

    rows = []
    for (model, options, dtype, device), tag in zip(selected, tags):
        row = {"model": model, "options": options, "dtype": dtype, "device": device, "tag": tag}
        d = os.path.join(a.zoo_dir, tag)
        if tag not in exported:
            row["status"], row["detail"] = export_state(a.zoo_dir, tag)
            rows.append(row)
            print(f"{tag}: {row['status']}: {row['detail']}", flush=True)
            continue
        info = json.load(open(os.path.join(d, "info.json")))
        row.update({k: info.get(k) for k in ("rtol", "atol", "scale", "iters", "warmup", "threads",
                                                 "torch_export_s", "compile_s", "package_bytes",
                                                 "aten_ops", "calls")})
        row["imports"] = info.get("symbols", {}).get("undefined_aoti", [])
        e = eager.get(f"{model}.{dtype}.{device}", {})
        if "p50" in e:
            row["eager_p50_ms"], row["eager_source"] = e["p50"], "quiet"
            row["eager_max_abs_vs_saved"] = e.get("max_abs_vs_saved")
        else:
            row["eager_p50_ms"], row["eager_source"] = info["eager_ms"]["p50"], "during export"
            if "error" in e:
                row["eager_retime_error"] = e["error"]
        row["status"], row["detail"], doc, stderr = run_package(a.aoti_run, d, info)
        if stderr:
            row["stderr"] = stderr
        if doc:
            checks = [o.get("check") or {} for o in doc.get("outputs", [])]
            errs = [c["max_abs_error"] for c in checks if isinstance(c.get("max_abs_error"), (int, float))]
            if errs:
                row["max_abs_err"] = max(errs)
                row["err_over_scale"] = max(errs) / info["scale"]
            lat = doc.get("latency_ms") or {}
            if "p50" in lat:
                row["aoti_p50_ms"] = lat["p50"]
                row["ratio"] = lat["p50"] / row["eager_p50_ms"] if row["eager_p50_ms"] else None
            row["notes"] = doc.get("notes", [])
            if "reference" in doc:
                row["reference"] = doc["reference"]
        if graph and device == "cuda" and row["status"] == "ok":
            g_status, g_detail, g_doc, g_err = run_package(a.aoti_run, d, info, ["--cuda-graph"])
            cg = (g_doc or {}).get("cuda_graph") or {}
            row["graph"] = {"status": g_status, "detail": g_detail, **cg,
                            "p50_ms": ((g_doc or {}).get("latency_ms") or {}).get("p50")}
            if g_status != "ok":
                # Replaying a captured run must give the same outputs as running it.
                row["status"], row["detail"] = f"graph-{g_status}", f"with --cuda-graph: {g_detail}"
                row["stderr"] = g_err
            elif cg.get("captured") and row["graph"]["p50_ms"] is not None:
                row["graph_p50_ms"] = row["graph"]["p50_ms"]
                row["graph_pipelined_ms"] = cg.get("pipelined_ms_per_run")
        rows.append(row)
        print(f"{tag}: {row['status']} {row['detail']} err {fmt(row.get('max_abs_err'), '.3g')} "
              f"p50 {fmt(row.get('aoti_p50_ms'), '.4f')} ms, eager {fmt(row['eager_p50_ms'], '.4f')} ms",
              flush=True)

    # The shims' coverage: what the packages import, and what the runner lacks.
    needed = {}
    for r in rows:
        for s in r.get("imports", []):
            needed.setdefault(s, []).append(r["tag"])
    missing = {s: t for s, t in needed.items() if host_syms is not None and s not in host_syms}

    ok = sum(r["status"] == "ok" for r in rows)
    summary = {"packages": len(rows), "ok": ok,
               "by_status": {s: sum(r["status"] == s for r in rows) for s in sorted({r["status"] for r in rows})},
               # Speed counts only where the package is right.
               "ratio_le_1": sum(1 for r in rows if r["status"] == "ok" and r.get("ratio") is not None
                                 and r["ratio"] <= 1.0),
               "with_ratio": sum(1 for r in rows if r["status"] == "ok" and r.get("ratio") is not None)}
    host = machine()
    doc = {"schema_version": 1, "set": a.set, "filter": a.filter, "machine": host,
           "summary": summary, "rows": rows,
           "imports": {s: len(t) for s, t in sorted(needed.items())},
           "missing_in_aoti_run": {s: sorted(t) for s, t in sorted(missing.items())}
           if host_syms is not None else None}
    with open(os.path.join(a.out_dir, "zoo.json"), "w") as f:
        json.dump(doc, f, indent=1)

    lines = table_lines(rows)
    lines.append("")
    lines.append(f"{ok}/{len(rows)} packages ok; aoti-run p50 <= eager p50 on "
                 f"{summary['ratio_le_1']}/{summary['with_ratio']} of the ok packages. "
                 "err / scale: max abs error over max |eager output|, the scale of atol. "
                 "rmse vs fp64 (bfloat16): RMS error of aoti-run's and of eager's outputs against a float64 "
                 "run of the same weights and inputs; a package beyond eager's elementwise tolerance is ok "
                 f"when its error is at most {zoo.REF_MULTIPLIER:g}x eager's + {zoo.REF_SLACK:g} of the scale "
                 "(torch's own accuracy check for low precision). "
                 "Eager p50 re-timed on the quiet machine after the export; "
                 "* timed during the parallel export instead (not re-timed). "
                 f"GPU: {host['gpu'] or 'unknown'}; CPU: {host['cpu'] or 'unknown'}.")
    if missing:
        lines.append("")
        lines.append("aoti_torch_* imports that aoti-run does not export (packages needing each): " +
                     ", ".join(f"`{s}` ({len(t)})" for s, t in sorted(missing.items(), key=lambda x: -len(x[1]))))
    md = "\n".join(lines) + "\n"
    with open(os.path.join(a.out_dir, "zoo.md"), "w") as f:
        f.write(md)
    print(md)
    sys.exit(0 if ok == len(rows) else 1)


if __name__ == "__main__":
    main()
