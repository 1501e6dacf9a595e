"""The zoo table from several measurements: the newest row of each package.

    python3 table.py OUT.md RESULT.json[=LABEL]...

Each RESULT.json is a zoo.json that run.py wrote (one call on the GPU
machine, often a part of the zoo: a session's device time does not fit the
whole of it at once). Later files win: a package measured in two of them
keeps the later row. LABEL (default: the file's folder and name) fills the
table's last column, "run", so every figure says which measurement it comes
from; a row that already carries a "run" (a file that merged calls itself)
keeps it after the label. Rows are in the catalogue's order (zoo.py's
MODELS, then options, dtype, device). Writes OUT.md (the table, a summary
line, the runs) and prints it; exits 2 on bad arguments.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402
import zoo  # noqa: E402


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out, inputs = argv[1], argv[2:]
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
        for r in doc.get("rows", []):
            r = dict(r)
            r["run"] = f"{label} ({r['run']})" if r.get("run") else label
            rows[r["tag"]] = r
    order = {m.name: i for i, m in enumerate(zoo.MODELS)}
    merged = sorted(rows.values(), key=lambda r: (order.get(r["model"], len(order)), r["options"],
                                                  r["dtype"] != zoo.F32, r["device"] != "cuda"))
    lines = run.table_lines(merged, with_run=True)
    ok = [r for r in merged if r["status"] == "ok"]
    faster = [r for r in ok if r.get("ratio") is not None and r["ratio"] <= 1.0]
    graph = [r for r in ok if r.get("graph_p50_ms") is not None]
    graph_faster = [r for r in graph if r["graph_p50_ms"] <= r["eager_p50_ms"]]
    lines += ["", f"{len(ok)}/{len(merged)} packages ok; aoti-run p50 <= eager p50 on "
              f"{len(faster)}/{len(ok)}; with --cuda-graph on {len(graph_faster)}/{len(graph)} "
              "of the CUDA packages that ran."]
    md = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
