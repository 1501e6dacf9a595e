"""Where a zoo export spends its time: a stack sampler for export.py.

Python imports `sitecustomize` at start-up from the first folder of
PYTHONPATH that has one; `ci/gpu-test.sh` puts this folder there when
ZOO_SAMPLE_STACKS names an output folder. Only a process running
tests/gpu/zoo/export.py samples (inductor's compile workers import this
file too and do nothing).

A daemon thread wakes every ZOO_SAMPLE_INTERVAL seconds (1), takes the main
thread's stack from sys._current_frames(), and counts it by its innermost
frames (file:function:line, 24 of them). Every 15 s, and at exit, it rewrites
OUT/TAG.PID.stacks.txt with the counts, most frequent first, and the share
of samples each innermost function had; an export cut by `timeout` keeps the
last file written. It also appends one line per sample to a timeline file,
so a slow stretch of the export's log can be matched to what ran then.
"""
import os
import sys


def _start(out_dir):
    import atexit
    import collections
    import threading
    import time
    import traceback

    # MODEL OPTIONS DTYPE DEVICE (the fifth argument is the output folder).
    words = [a for a in sys.argv[1:] if not a.startswith("--")][:4]
    tag = ".".join(w.replace(os.sep, "_") for w in words) or "export"
    base = os.path.join(out_dir, f"{tag}.{os.getpid()}")
    interval = float(os.environ.get("ZOO_SAMPLE_INTERVAL", "1"))
    main_id = threading.main_thread().ident
    stacks = collections.Counter()
    leaves = collections.Counter()
    lock = threading.Lock()
    start = time.time()
    timeline = open(base + ".timeline.txt", "w", buffering=1)

    def frames_of(frame):
        out = []
        for fs in traceback.extract_stack(frame)[-24:]:
            out.append(f"{os.path.basename(fs.filename)}:{fs.name}:{fs.lineno}")
        return out

    def write():
        with lock:
            total = sum(stacks.values()) or 1
            lines = [f"{total} samples, {interval} s apart, {time.time() - start:.0f} s"]
            lines.append("")
            lines.append("innermost function, share of samples:")
            for leaf, n in leaves.most_common(40):
                lines.append(f"  {100.0 * n / total:5.1f}%  {leaf}")
            lines.append("")
            for stack, n in stacks.most_common(30):
                lines.append(f"{n} samples ({100.0 * n / total:.1f}%):")
                lines.extend("    " + f for f in stack)
                lines.append("")
            # Under the lock too: the sampler and atexit may both write.
            tmp = base + ".stacks.txt.tmp"
            with open(tmp, "w") as f:
                f.write("\n".join(lines) + "\n")
            os.replace(tmp, base + ".stacks.txt")

    def loop():
        last_write = time.time()
        while True:
            time.sleep(interval)
            frame = sys._current_frames().get(main_id)
            if frame is None:
                continue
            fr = tuple(frames_of(frame))
            del frame
            with lock:
                stacks[fr] += 1
                leaves[fr[-1] if fr else "?"] += 1
            timeline.write(f"{time.time() - start:8.1f} {fr[-1] if fr else '?'}"
                           f" | {' < '.join(reversed(fr[-6:-1]))}\n")
            if time.time() - last_write > 15:
                write()
                last_write = time.time()

    threading.Thread(target=loop, name="zoo-stack-sampler", daemon=True).start()
    atexit.register(write)


_out = os.environ.get("ZOO_SAMPLE_STACKS")
_script = sys.argv[0] if sys.argv else ""
if _out and os.path.basename(os.path.dirname(os.path.abspath(_script))) == "zoo" \
        and os.path.basename(_script) == "export.py":
    try:
        os.makedirs(_out, exist_ok=True)
        _start(_out)
    except OSError as e:  # a diagnostic: never the reason an export fails
        print(f"zoo stack sampler: off: {e}", file=sys.stderr)
