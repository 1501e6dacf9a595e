"""Re-time eager PyTorch for exported zoo packages, one model at a time.

    python3 eager.py ZOO_DIR OUT.json TAG...

export.py times eager while the other exports of the phase compile in
parallel, which slows eager down and would flatter aoti-run; this times it
again on a quiet machine, before run.py runs aoti-run. Options do not change
the eager model, so each (model, dtype, device) is timed once, with the
package's saved inputs, iteration counts and CPU thread count (info.json).
It also reruns the model once and records the largest difference from the
saved expected outputs: the builders are seeded, so it is 0 on the CPU and
at most run-to-run noise on the GPU; a larger value means the weights the
package was exported with are not the ones timed here.

Writes OUT.json: {"model.dtype.device": {p50, p90, mean, min, iters, warmup,
threads, max_abs_vs_saved} or {"error": ...}}.
"""
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo  # noqa: E402


def main():
    if len(sys.argv) < 3:
        print("usage: eager.py ZOO_DIR OUT.json TAG...", file=sys.stderr)
        sys.exit(2)
    zoo_dir, out_path, tags = sys.argv[1], sys.argv[2], sys.argv[3:]
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results = {}
    for tag in tags:
        info_path = os.path.join(zoo_dir, tag, "info.json")
        if not os.path.exists(info_path):
            continue
        info = json.load(open(info_path))
        key = f"{info['model']}.{info['dtype']}.{info['device']}"
        if key in results:
            continue
        try:
            if info["threads"]:
                torch.set_num_threads(info["threads"])
            m, _ = zoo.build(info["model"], info["dtype"], info["device"])
            d = os.path.join(zoo_dir, tag)
            ins = tuple(torch.from_numpy(np.load(os.path.join(d, f"in_{i}.npy"))).to(
                device=info["device"], dtype=getattr(torch, s[0])) for i, s in enumerate(info["inputs"]))
            with torch.no_grad():
                outs = m(*ins)
                diff = 0.0
                for i, t in enumerate(outs):
                    want = torch.from_numpy(np.load(os.path.join(d, f"expect_{i}.npy")))
                    diff = max(diff, float((t.detach().cpu().double() - want.double()).abs().max()))
                r = zoo.time_eager(lambda: m(*ins), info["device"], info["iters"], info["warmup"])
            r["threads"] = info["threads"]
            r["max_abs_vs_saved"] = diff
            results[key] = r
            print(f"eager {key}: p50 {r['p50']:.4f} ms (vs saved outputs: {diff:.3g})", flush=True)
            del m
            if info["device"] == "cuda":
                torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001 - recorded; run.py falls back to export's figure
            traceback.print_exc()
            results[key] = {"error": f"{type(e).__name__}: {str(e).strip()[:300]}"}
        with open(out_path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
