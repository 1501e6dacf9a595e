"""The zoo table from several measurements: the newest row of each package.

    python3 table.py [--catalogue SETS] OUT.md RESULT.json[=LABEL]...

Each RESULT.json is a zoo.json that run.py wrote (one call on the GPU
machine, often a part of the zoo: a session's device time does not fit the
whole of it at once). Later files win: a package measured in two of them
keeps the later row. LABEL (default: the file's folder and name) fills the
table's last column, "run", so every figure says which measurement it comes
from, followed by the processor that ran it where the file names it
(run.py's "machine": the GPU for a CUDA package, the CPU for a CPU one); a
row that already carries a "run" (a file that merged calls itself) keeps it
after the label. Rows are in the catalogue's order (zoo.py's
MODELS, then options, dtype, device). Writes OUT.md (the table, a summary
line, the runs) and prints it; exits 2 on bad arguments.

--catalogue SETS (zoo.py's set names, comma-separated) makes the table the
whole of those sets: a package that no file measured gets a "not run" row,
so what is missing shows in the table and in its count, not only in prose.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402
import zoo  # noqa: E402


def main(argv):
    args = argv[1:]
    catalogue = None
    if args[:1] == ["--catalogue"]:
        if len(args) < 2:
            print(__doc__.strip(), file=sys.stderr)
            return 2
        catalogue, args = args[1], args[2:]
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out, inputs = args[0], args[1:]
    rows = {}
    for arg in inputs:
        path, _, label = arg.partition("=")
        label = label or os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"table.py: {path}: {e}", file=sys.stderr)
            return 2
        host = doc.get("machine") or {}
        for r in doc.get("rows", []):
            r = dict(r)
            # The processor that ran the row: its GPU, or for a CPU package its CPU.
            proc = host.get("gpu") if r.get("device") == "cuda" else host.get("cpu")
            here = f"{label}, {proc}" if proc else label
            r["run"] = f"{here} ({r['run']})" if r.get("run") else here
            rows[r["tag"]] = r
    if catalogue is not None:
        try:
            selected = zoo.packages(catalogue)
        except ValueError as e:
            print(f"table.py: --catalogue: {e}", file=sys.stderr)
            return 2
        for model, options, dtype, device in selected:
            t = zoo.tag(model, options, dtype, device)
            rows.setdefault(t, {"model": model, "options": options, "dtype": dtype,
                                "device": device, "tag": t, "status": "not run",
                                "detail": "", "run": "-"})
    order = {m.name: i for i, m in enumerate(zoo.MODELS)}
    merged = sorted(rows.values(), key=lambda r: (order.get(r["model"], len(order)), r["options"],
                                                  r["dtype"] != zoo.F32, r["device"] != "cuda"))
    lines = run.table_lines(merged, with_run=True)
    ok = [r for r in merged if r["status"] == "ok"]
    faster = [r for r in ok if r.get("ratio") is not None and r["ratio"] <= 1.0]
    graph = [r for r in ok if r.get("graph_p50_ms") is not None]
    graph_faster = [r for r in graph if r["graph_p50_ms"] <= r["eager_p50_ms"]]
    others = sorted({r["status"] for r in merged} - {"ok"})
    counts = ", ".join(f"{s} {sum(r['status'] == s for r in merged)}" for s in others)
    not_ok = f" ({counts})" if counts else ""
    lines += ["", f"{len(ok)}/{len(merged)} packages ok{not_ok}; aoti-run p50 <= eager p50 on "
              f"{len(faster)}/{len(ok)}; with --cuda-graph on {len(graph_faster)}/{len(graph)} "
              "of the CUDA packages that ran."]
    md = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
