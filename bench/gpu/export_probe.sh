#!/usr/bin/env bash
# Why a zoo export's autotuning is slow: one package exported under several
# inductor settings side by side, on the GPU machine.
#
#   bench/gpu/export_probe.sh MODEL OPTIONS DTYPE DEVICE LIMIT_S NAME:VAR=VAL[,VAR=VAL]...
#
# Each variant NAME runs tests/gpu/zoo/export.py with its variables set, an
# inductor cache of its own (seeded, like ci/gpu-test.sh's zoo-export, from
# the package's autotuning records in .carry/zoo-autotune/ and
# tests/gpu/zoo/autotune/, unless a variable sets PROBE_NO_RECORD=1),
# inductor's per-candidate autotuning log (TORCH_LOGS=autotuning: load and
# benchmark seconds of each Triton candidate) and the stack sampler of
# tests/gpu/zoo/sampler/. All variants start together and share the GPU and
# its 16 cores, so compare them with each other, not with a lone export.
# After LIMIT_S each is cut. Into $OUT/probe/NAME/: the log, the sampled
# stacks, and record.tar.gz (the inductor autotuning record it wrote, which
# a later export can resume from). Printed: per variant, the autotunings
# done and the median and total of inductor's "benchmarking takes" seconds.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/out}
CARRY=${CARRY:-$ROOT/.carry}
PY=${PY:-python3}
[ $# -ge 6 ] || { sed -n 4,6p "$0" >&2; exit 2; }
model=$1 options=$2 dtype=$3 device=$4 limit=$5
shift 5
tag="$model.$options.$dtype.$device"
work=${PROBE_DIR:-/tmp/aoti-probe}

probe_one() {  # NAME VARS
  local name=$1 vars=$2 dir="$work/$1" out="$OUT/probe/$1" kv
  mkdir -p "$dir/cache/cache" "$out"
  local -a env=(TORCHINDUCTOR_CACHE_DIR="$dir/cache" TORCHINDUCTOR_PRECOMPILATION_TIMEOUT_SECONDS="$limit"
                TORCH_LOGS=autotuning ZOO_SAMPLE_STACKS="$out"
                PYTHONPATH="$ROOT/tests/gpu/zoo/sampler${PYTHONPATH:+:$PYTHONPATH}")
  IFS=, read -ra kvs <<< "$vars"
  for kv in "${kvs[@]}"; do env+=("$kv"); done
  if [[ ",$vars," != *",PROBE_NO_RECORD=1,"* ]]; then
    for rec in "$CARRY/zoo-autotune/$tag.tar.gz" "$ROOT/tests/gpu/zoo/autotune/$tag.tar.gz"; do
      [ -f "$rec" ] && tar -C "$dir/cache" --skip-old-files -xzf "$rec"
    done
  fi
  local t0=$(date +%s)
  env "${env[@]}" timeout -k 10 "$limit" "$PY" "$ROOT/tests/gpu/zoo/export.py" \
    "$model" "$options" "$dtype" "$device" "$dir/pkg" > "$out/export.log" 2>&1
  echo "$name: rc $? after $(( $(date +%s) - t0 )) s ($vars)" > "$out/rc.txt"
  [ -n "$(ls -A "$dir/cache/cache")" ] && tar -C "$dir/cache" -czf "$out/record.tar.gz" cache
}

for v in "$@"; do
  probe_one "${v%%:*}" "${v#*:}" &
done
wait

for v in "$@"; do
  name=${v%%:*}
  cat "$OUT/probe/$name/rc.txt"
  "$PY" - "$OUT/probe/$name/export.log" <<'EOF'
import re, statistics, sys
log = open(sys.argv[1], errors="replace").read()
took = [float(s) for s in re.findall(r"AUTOTUNE benchmarking takes ([0-9.]+) seconds", log)]
load = [float(s) for s in re.findall(r": load ([0-9.]+), create tensor", log)]
bench = [float(s) for s in re.findall(r", bench ([0-9.]+)", log)]
def line(what, xs):
    if xs:
        print(f"  {what}: {len(xs)}, median {statistics.median(xs):.3f} s, total {sum(xs):.1f} s")
    else:
        print(f"  {what}: none")
line("autotunings", took)
line("candidate loads", load)
line("candidate benchmarks", bench)
print(f"  OutOfResources: {log.count('OutOfResources')}")
EOF
done
