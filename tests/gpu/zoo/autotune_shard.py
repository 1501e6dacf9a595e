"""Benchmark one shard of a zoo export's autotunings, for a record to resume from.

    python3 autotune_shard.py MODEL OPTIONS DTYPE DEVICE K N [--gpu-lock FILE]

With max_autotune, inductor benchmarks every GEMM and convolution shape of a
model one after another, in one process: DenseNet-121 with ExecuTorch's
options has about 70 such autotunings of 9-20 Triton candidates, 15-45 s
each on an H100, more than one 10-minute call. N processes of this script,
K = 0..N-1, run them side by side instead. Each builds the package's model
and exported program exactly as export.py does (same options, same
decompositions, TF32 off), and compiles it with inductor's autotuning record
lookup (PersistentCache.lookup) wrapped:

  - an autotuning whose key (op name and input sizes, strides and dtypes)
    hashes to K mod N is looked up and benchmarked as usual, and inductor
    writes its timings to the record in TORCHINDUCTOR_CACHE_DIR;
  - any other is answered from the record where it is there, and else with
    made-up timings that pick the first candidate. Nothing is benchmarked
    for it and nothing is written: the record holds measured timings only.

With --gpu-lock, the shards time their candidates on the GPU one at a time:
each candidate is launched once outside the lock (its first launch is where
a candidate compiled in a worker is loaded, or compiled again), then timed
holding an flock on FILE, so no shard's timings include another's kernels.

Once the scheduler has finalized its choices, every autotuning of the graph
has been looked up: the script stops there (Scheduler.codegen), before any
code is generated, and prints how many autotunings it benchmarked and how
many it left to other shards. Its package would be built on made-up timings,
so none is written. ci/gpu-test.sh's zoo-autotune phase merges the N records
(record_merge.py) into the one an export then resumes from, benchmarking
nothing that a shard measured.

Exit 0 when the shard's autotunings are done, 1 on a failure, 2 on bad
arguments.
"""
import hashlib
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo  # noqa: E402

USAGE = "usage: autotune_shard.py MODEL OPTIONS DTYPE DEVICE K N [--gpu-lock FILE]"


class AutotuningDone(Exception):
    """Raised at the scheduler's codegen: every autotuning has been looked up."""


def shard_of(op, inputs, n):
    """The shard an autotuning belongs to: stable across processes and runs
    (Python's hash() is salted per process)."""
    digest = hashlib.sha256(f"{op}\0{inputs}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % n


def install(k, n, counts, gpu_lock):
    from torch._inductor.autotune_process import GPUDeviceBenchmarkMixin
    from torch._inductor.codecache import PersistentCache
    from torch._inductor.scheduler import Scheduler

    lookup = PersistentCache.lookup

    def sharded_lookup(self, choices, op, inputs, benchmark, hint_override=None):
        key = (op, inputs, hint_override)
        recorded = lookup(self, choices, op, inputs, None, hint_override)
        if len(recorded) == len(choices):
            if benchmark is not None:
                counts["recorded"].add(key)
            return recorded
        if shard_of(op, inputs, n) == k:
            # Inductor's own pre-check (no benchmark function) gets the same
            # answer as unpatched, so this shard's candidates are precompiled.
            if benchmark is not None:
                counts["mine"].add(key)
            return lookup(self, choices, op, inputs, benchmark, hint_override)
        # Another shard's: a full answer also to the pre-check, so that
        # its candidates are not even compiled here.
        counts["others"].add(key)
        return {c: 1.0 + i for i, c in enumerate(choices)}

    def stop(self, *args, **kwargs):
        raise AutotuningDone()

    if gpu_lock:
        import fcntl
        import torch
        do_bench = GPUDeviceBenchmarkMixin.do_bench
        lock_file = open(gpu_lock, "a")

        def do_bench_alone(self, fn, *args, **kwargs):
            fn()
            torch.cuda.synchronize()
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                return do_bench(self, fn, *args, **kwargs)
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)

        GPUDeviceBenchmarkMixin.do_bench = do_bench_alone
    PersistentCache.lookup = sharded_lookup
    Scheduler.codegen = stop


def main():
    args = sys.argv[1:]
    gpu_lock = None
    if len(args) == 8 and args[6] == "--gpu-lock":
        gpu_lock, args = args[7], args[:6]
    if len(args) != 6:
        print(f"autotune_shard.py: error: expected 6 arguments\n{USAGE}", file=sys.stderr)
        return 2
    model, options, dtype, device, k, n = args
    try:
        k, n = int(k), int(n)
    except ValueError:
        k = n = -1
    if not 0 <= k < n:
        print(f"autotune_shard.py: error: K must be 0..N-1\n{USAGE}", file=sys.stderr)
        return 2
    if model not in zoo.BY_NAME or options not in zoo.OPTIONS or device != "cuda" \
            or dtype not in zoo.BY_NAME[model].dtypes:
        print(f"autotune_shard.py: error: not a CUDA zoo package: {model} {options} {dtype} {device}\n"
              f"{USAGE}", file=sys.stderr)
        return 2

    import tempfile
    import torch
    # As export.py: the record is keyed by the float32 matmul precision.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    counts = {"mine": set(), "recorded": set(), "others": set()}
    t0 = time.time()
    m, inputs = zoo.build(model, dtype, device)
    with torch.no_grad():
        ep = torch.export.export(m, inputs)
        table = zoo.decompositions(options)
        if table:
            ep = ep.run_decompositions(table)
    install(k, n, counts, gpu_lock)
    done = False
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        try:
            torch._inductor.aoti_compile_and_package(
                ep, package_path=os.path.join(tmp, "model.pt2"),
                inductor_configs=zoo.inductor_configs(options))
        except Exception as e:  # noqa: BLE001 - inductor wraps what the hook raises
            cause = e
            while cause is not None and not isinstance(cause, AutotuningDone):
                cause = cause.__cause__ or cause.__context__
            if cause is None:
                raise
            done = True
    tag = zoo.tag(model, options, dtype, device)
    print(f"autotune-shard {tag} {k}/{n}: {len(counts['mine'])} autotunings benchmarked here, "
          f"{len(counts['recorded'] - counts['mine'])} from the record, {len(counts['others'])} left to other shards, "
          f"{time.time() - t0:.0f} s" + ("" if done else " (the scheduler was never reached)"))
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())
