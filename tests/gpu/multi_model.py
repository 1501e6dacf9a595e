"""A package of several models, exported LibTorch-free and run by aoti-run.

    python multi_model.py OUT_DIR AOTI_RUN [--device cuda|cpu]

Exports an encoder and a head (torch's defaults, aot_inductor.link_libtorch=False)
into one .pt2 with torch's package_aoti(path, {"encoder": ..., "head": ...}), then
runs each by name against eager (aoti-run --model), lists them (--list-models)
and checks that an unnamed run is refused naming both. Exit 0 when all hold.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import torch
from torch._inductor.package import package_aoti


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(64, 128)
        self.l2 = torch.nn.Linear(128, 128)

    def forward(self, x):
        return self.l2(torch.nn.functional.gelu(self.l1(x)))


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(128)
        self.out = torch.nn.Linear(128, 10)

    def forward(self, h):
        return self.out(self.norm(h)).softmax(-1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("aoti_run")
    ap.add_argument("--device", default="cuda")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    dev = a.device
    enc, head = Encoder().to(dev).eval(), Head().to(dev).eval()
    x = torch.randn(8, 64, device=dev)
    with torch.no_grad():
        h = enc(x)
        y = head(h)
    cfg = {"aot_inductor.link_libtorch": False, "aot_inductor.package": True}
    files = {}
    for name, m, inp in (("encoder", enc, x), ("head", head, h)):
        ep = torch.export.export(m, (inp,))
        files[name] = torch._inductor.aot_compile(ep.module(), (inp,), options=cfg)
    pkg = os.path.join(a.out, "two_models.pt2")
    package_aoti(pkg, files)
    for n, t in (("x", x), ("h", h), ("y", y)):
        np.save(os.path.join(a.out, n + ".npy"), t.cpu().numpy())

    ok = True

    def run(*args):
        r = subprocess.run([a.aoti_run, pkg, *args], capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    for name, i, e in (("encoder", "x", "h"), ("head", "h", "y")):
        rc, out, err = run("--model", name, "-i", os.path.join(a.out, i + ".npy"),
                           "-e", os.path.join(a.out, e + ".npy"), "--iters", "20", "--format", "json")
        rep = json.loads(out) if out.strip().startswith("{") else {}
        good = rc == 0 and rep.get("package_model") == name and rep.get("status") == "ok"
        ok &= good
        print("%s: %s rc %d p50 %s ms %s" % (name, "ok" if good else "FAIL", rc,
              rep.get("latency_ms", {}).get("p50"), err.strip()[-300:]))
    rc, out, err = run("--list-models")
    good = rc == 0 and [l.split()[0] for l in out.splitlines()] == ["encoder", "head"]
    ok &= good
    print("list-models: %s %r" % ("ok" if good else "FAIL", out))
    rc, out, err = run("-i", os.path.join(a.out, "x.npy"))
    good = rc == 2 and "encoder, head" in err
    ok &= good
    print("unnamed: %s rc %d %s" % ("ok" if good else "FAIL", rc, err.strip()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
