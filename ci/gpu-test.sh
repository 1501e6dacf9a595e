#!/usr/bin/env bash
# GPU test and benchmark driver, run on the H200 machine (torch 2.11 there).
#
#   ci/gpu-test.sh PHASE... 
#
# Phases (in the order given):
#   stage         (on the CPU machine) build and copy what the GPU run needs
#                 into $CARRY: binaries, libraries, objects, the models
#   env           what the machine has (driver, glibc, torch, libraries)
#   export        export every model of tests/gpu/models.py into $MODELS
#   pack          tar $MODELS (without the extracted packages) into $OUT
#   unpack        unpack $CARRY/models.tar.gz* into $MODELS
#   run           every model through aoti-run, against eager results
#                 (tests/gpu/run_models.py)
#   shims         the shims engineer's shims_cuda_test
#   ops           the op families' cases on CUDA (shims_ops_family_test)
#   ops-models    small modules calling each op family, exported and run
#                 against eager (tests/gpu/ops_families.py)
#   oracle        the op families and the convolutions against torch on both
#                 devices: values and fake-tensor strides
#                 (tests/shims/torch_oracle.py, tests/shims/conv_vs_torch.py)
#   fallbacks-bench  the op families' CUDA fallbacks against eager's kernels
#                 (bench/gpu/fallbacks_vs_eager.py)
#   multi-model   a package of two models exported LibTorch-free, each run
#                 by name (aoti-run --model) against eager (tests/gpu/multi_model.py)
#   matrix        the link agreement matrix (tests/gpu/matrix.py)
#   bench         torch's runners and aoti-run: latency and cold start
#                 (bench/gpu/torch_bench.py, bench/gpu/aoti_bench.py)
#   preflight     stop at once if a carried binary cannot start here
#   ops-bench     the CUDA conv/attention fallbacks vs eager's kernels
#   soak          compute-sanitizer memcheck over every model, and 1,000
#                 load/run/unload cycles with device and host memory
#                 measured (tests/gpu/soak.py; SOAK_ARGS passes options)
#   zoo-export    export the model zoo's packages (tests/gpu/zoo) in parallel
#                 into $ZOO_DIR; ZOO_SET / ZOO_FILTER select (see below)
#   zoo-run       the zoo's packages through aoti-run against eager: the table
#                 in $OUT/zoo.md and $OUT/zoo.json (tests/gpu/zoo/run.py)
#   zoo           zoo-export then zoo-run
#   zoo-cpu-ops   the zoo's CPU packages' convolution, attention and linear
#                 calls, shims vs torch's ATen ops (bench/shims/cpu_ops_vs_torch.py)
#   zoo-concurrent  each exported zoo package on 2 host threads at once, one
#                 Model each (tests/backend/concurrent_runs.cpp): every run
#                 against eager (float32) and bit for bit against the others
#
# The GPU machine has no LLVM, CLI11, libzip or GoogleTest and a newer glibc,
# so everything is built on the CPU machine and carried in $CARRY (default
# .carry, git-ignored): bin/ (aoti-run and its mis-linked variants,
# aoti-audit, shims_cuda_test), lib/ (libzip, libaoti_shims.so, the duplicate
# shim), obj/ (what the LibTorch matrix row is linked from, on the GPU
# machine), models/ (the exported models, tarred).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$ROOT/out}
CARRY=${CARRY:-$ROOT/.carry}
MODELS=${MODELS:-/tmp/aoti-models}
PY=${PY:-python3}
mkdir -p "$OUT" "$MODELS"
export PYTHONUNBUFFERED=1
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/targets/x86_64-linux/lib}
export LD_LIBRARY_PATH="$CARRY/lib:$CUDA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The shims' convolution fallback links oneDNN (carried in deps/, see stage)
# and cuDNN 9, which torch's wheel brings on the GPU machine.
CUDNN_LIB=${CUDNN_LIB:-$($PY -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)}
export LD_LIBRARY_PATH="$CARRY/deps${CUDNN_LIB:+:$CUDNN_LIB}:$LD_LIBRARY_PATH"
status=0

phase_stage() {
  local B=${BUILD:-$ROOT/build-backend} AUDIT=${AUDIT:-$ROOT/build/bin/aoti-audit}
  ninja -C "$B" -j2 aoti-run backend_link_matrix shims_cuda_test ops_bench \
    backend_concurrent_runs shims_ops_family_test || { status=1; return; }
  rm -rf "$CARRY"/bin "$CARRY"/lib "$CARRY"/obj "$CARRY"/deps
  mkdir -p "$CARRY"/bin "$CARRY"/lib "$CARRY"/obj "$CARRY"/models "$CARRY"/deps
  for b in aoti-run aoti-run-no-whole-archive aoti-run-no-export-dynamic aoti-run-static-cudart \
           aoti-run-dup-ahead aoti-run-dup-behind-exe shims_cuda_test ops_bench \
           backend_concurrent_runs shims_ops_family_test; do
    strip -g -o "$CARRY/bin/$b" "$B/bin/$b"
  done
  strip -o "$CARRY/bin/aoti-audit" "$AUDIT"
  strip -g -o "$CARRY/lib/libaoti_shims.so.0" "$B/lib/libaoti_shims.so.0"
  cp -L "$B/lib/libbackend_dup_shim.so" "$CARRY/lib/"
  cp -L "$(ldconfig -p | awk '/libzip.so.4 /{print $NF; exit}')" "$CARRY/lib/libzip.so.4"
  # The LibTorch row is linked on the GPU machine, which has no LLVM: carry
  # aoti-run's objects pre-linked with everything static they use.
  local T="$B"/tools/aoti-run/CMakeFiles/aoti_run_main.dir
  g++ -r -nostdlib -o "$CARRY/obj/aoti-run-partial.o" "$T/aoti-run.cpp.o" "$T/Timer.cpp.o" \
      "$B/lib/libaoti_backend.a" "$B/lib/libaoti_audit.a" \
      $(llvm-config-19 --link-static --libfiles object textapi demangle) || { status=1; return; }
  strip -g "$CARRY/obj/aoti-run-partial.o"
  # The binaries share LLVM's code: one solid archive travels in a fraction
  # of their size (unpacked by the unpack phase).
  # libaoti_shims needs oneDNN (the CPU convolution fallback), which needs
  # the OpenCL ICD loader, and OpenBLAS (the CPU GEMMs and attention), which
  # needs libgfortran, and SLEEF (for SIMD CPU models); the GPU machine has
  # none of them (78 MB raw, ~16 MB in the tarball). libgomp is left to the
  # machine's own.
  for l in libdnnl.so.2 libOpenCL.so.1 libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 \
           libsleef.so.3; do
    cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l {print $NF; exit}')" "$CARRY/deps/$l" || { status=1; return; }
  done
  tar -C "$CARRY" -cJf "$CARRY/bin.tar.xz" bin obj deps && rm -rf "$CARRY/bin" "$CARRY/obj" "$CARRY/deps"
  [ -n "${MODELS_TAR:-}" ] && cp $MODELS_TAR "$CARRY/models/"
  du -sh "$CARRY"; ls -la "$CARRY"/*
}

phase_env() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ldd --version | head -1
  uname -r
  $PY -c 'import torch, triton, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__, "numpy", numpy.__version__)'
  TORCH_LIB=$($PY -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  echo "torch lib: $TORCH_LIB"; ls "$TORCH_LIB" | head -40
  for l in libcrypto.so.3 libbz2.so.1.0 libz.so.1 libcuda.so.1 libcudart.so.13 libgcc_s.so.1; do
    printf '%s: %s\n' "$l" "$(ldconfig -p | grep -m1 "$l" | sed 's/.*=> //')"
  done
  find / -xdev -name 'libcudart.so*' 2>/dev/null | head
  for t in readelf nm objdump cmake nvcc gcc; do printf '%s: %s\n' "$t" "$(command -v $t)"; done
  if [ -x "$CARRY/bin/aoti-run" ]; then ldd "$CARRY/bin/aoti-run"; fi
}

phase_export() {
  local jobs=()
  for m in $($PY -c "import sys; sys.path.insert(0,'$ROOT/tests/gpu'); import models; print(' '.join(models.ALL))"); do
    case $m in mlp_nogemm) jobs+=("$m nogemm") ;; *) jobs+=("$m free") ;; esac
  done
  # EXPORT_FREE_ONLY=1: only the LibTorch-free builds (run, matrix, soak).
  if [ -z "${EXPORT_FREE_ONLY:-}" ]; then
    for m in $($PY -c "import sys; sys.path.insert(0,'$ROOT/tests/gpu'); import models; print(' '.join(models.BENCH))"); do
      jobs+=("$m linked")
    done
    # torch's default options, LibTorch-linked: a second build for torch's runners.
    jobs+=("mlp linked_default" "convbn linked_default")
  fi
  mkdir -p "$MODELS/logs"
  printf '%s\n' "${jobs[@]}" | xargs -P 11 -L 1 sh -c \
    'timeout 330 '"$PY"' '"$ROOT"'/tests/gpu/export_models.py "$0" "$1" '"$MODELS"' > '"$MODELS"'/logs/"$0.$1".log 2>&1; echo "export $0 $1: rc $?"'
  tail -n 40 "$MODELS"/logs/*.log > "$OUT/export.log"
  grep -h exported "$MODELS"/logs/*.log
}

phase_pack() {
  (cd "$MODELS" && tar --exclude='*/pkg' -czf - .) | split -b 15M -d - "$OUT/models.tar.gz."
  ls -la "$OUT"/models.tar.gz.*
}

phase_unpack() {
  [ -f "$CARRY/bin.tar.xz" ] && tar -C "$CARRY" -xJf "$CARRY/bin.tar.xz"
  cat "$CARRY"/models/models.tar.gz.* | tar -xzf - -C "$MODELS"
  for d in "$MODELS"/*/; do
    [ -f "$d/model.pt2" ] && mkdir -p "$d/pkg" && (cd "$d/pkg" && $PY -m zipfile -e ../model.pt2 .)
  done
  ls "$MODELS"
}

phase_run() { $PY "$ROOT/tests/gpu/run_models.py" "$MODELS" "$CARRY/bin/aoti-run" "$OUT" || status=1; }
phase_shims() {
  local t
  t=$(ls "$CARRY"/bin/shims_cuda_test 2>/dev/null) || { echo "shims_cuda_test: not carried"; return; }
  "$t" > "$OUT/shims_cuda_test.log" 2>&1 || status=1
  tail -5 "$OUT/shims_cuda_test.log"
}
# ops: the op families' test cases on the GPU (tests/shims/ops/*_test.cpp),
# with AOTI_TEST_REQUIRE_CUDA=1 so that a missing GPU fails instead of
# dropping the CUDA cases.
phase_ops() {
  local t
  t=$(ls "$CARRY"/bin/shims_ops_family_test 2>/dev/null) || { echo "shims_ops_family_test: not carried"; status=1; return; }
  AOTI_TEST_REQUIRE_CUDA=1 "$t" --gtest_brief=1 > "$OUT/shims_ops_family_test.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/shims_ops_family_test.log" | head -40
  tail -3 "$OUT/shims_ops_family_test.log"
}
# ops-models: small real modules calling each fallback family
# (tests/gpu/ops_families.py), exported LibTorch-free for CUDA and the CPU,
# run by aoti-run against eager: the table in $OUT/ops_models/ops.md.
OPS_DIR=${OPS_DIR:-/tmp/aoti-ops}
phase_ops-models() {
  $PY "$ROOT/tests/gpu/ops_families.py" export "$OPS_DIR" --jobs "${OPS_JOBS:-12}" ${OPS_DEVICE:+--device "$OPS_DEVICE"} \
    ${OPS_FILTER:+--filter "$OPS_FILTER"} || status=1
  $PY "$ROOT/tests/gpu/ops_families.py" run "$OPS_DIR" "$CARRY/bin/aoti-run" \
    ${OPS_FILTER:+--filter "$OPS_FILTER"} || status=1
  mkdir -p "$OUT/ops_models"
  cp "$OPS_DIR"/ops.md "$OPS_DIR"/ops.json "$OUT/ops_models/" 2>/dev/null
  (cd "$OPS_DIR" && tar -czf "$OUT/ops_models/logs.tar.gz" --ignore-failed-read *.log */info.json) 2>/dev/null
}
# oracle: the op families against torch itself on both devices: values, and
# the sizes and strides of torch's fake tensors (tests/shims/torch_oracle.py).
phase_oracle() {
  for dev in ${ORACLE_DEVICES:-cuda cpu}; do
    $PY "$ROOT/tests/shims/torch_oracle.py" "$CARRY/lib/libaoti_shims.so.0" --device "$dev" \
      > "$OUT/torch_oracle_$dev.txt" 2>&1 || status=1
    grep -E "^FAIL" "$OUT/torch_oracle_$dev.txt" | head -30
    tail -1 "$OUT/torch_oracle_$dev.txt"
  done
  # The convolutions, CPU and CUDA in one run. Torch is there, so its exit
  # status 77 (no torch) is a failure here, not a skip.
  $PY "$ROOT/tests/shims/conv_vs_torch.py" "$CARRY/lib/libaoti_shims.so.0" \
    > "$OUT/conv_vs_torch.txt" 2>&1 || status=1
  grep -E "^FAIL|^SKIP" "$OUT/conv_vs_torch.txt" | head -30
  tail -1 "$OUT/conv_vs_torch.txt"
}
# fallbacks-bench: each fallback op family's CUDA entry points against eager's
# kernels on the same tensors, in one process (bench/gpu/fallbacks_vs_eager.py).
phase_fallbacks-bench() {
  $PY "$ROOT/bench/gpu/fallbacks_vs_eager.py" "$CARRY/lib/libaoti_shims.so.0" --iters "${BENCH_ITERS:-50}" \
    --json "$OUT/fallbacks_vs_eager.json" > "$OUT/fallbacks_vs_eager.md" 2> "$OUT/fallbacks_vs_eager.log" || status=1
  cat "$OUT/fallbacks_vs_eager.md"
}
phase_multi-model() {
  $PY "$ROOT/tests/gpu/multi_model.py" /tmp/aoti-multi-model "$CARRY/bin/aoti-run" --device cuda \
    > "$OUT/multi_model.txt" 2>&1 || status=1
  grep -v -i warn "$OUT/multi_model.txt" | tail -6
}
phase_matrix() { $PY "$ROOT/tests/gpu/matrix.py" "$MODELS" "$CARRY" "$OUT" || status=1; }
phase_soak() {
  $PY "$ROOT/tests/gpu/soak.py" "$MODELS" "$CARRY/bin/aoti-run" "$OUT" ${SOAK_ARGS:-} || status=1
}
phase_bench() {
  $PY "$ROOT/bench/gpu/torch_bench.py" "$MODELS" "$OUT/torch_bench.json" --iters 300 --warmup 30 --cold-repeats 3
  $PY "$ROOT/bench/gpu/aoti_bench.py" "$MODELS" "$CARRY/bin/aoti-run" "$OUT/torch_bench.json" "$OUT/aoti_bench.json" || status=1
}

# --- The model zoo (tests/gpu/zoo): real architectures with random weights,
# exported LibTorch-free on this machine, run by aoti-run against eager.
#   ZOO_SET      default (CUDA, torch's default options, float32+bfloat16),
#                executorch (CUDA, ExecuTorch's options), cpu (CPU, float32),
#                cpu-simd (CPU, float32, vectorized kernels), all, or a comma
#                list; zoo-export and zoo-run take the same
#   ZOO_FILTER   a regex on "model.options.dtype.device" within the set
#   ZOO_DIR      where the packages stay between calls (/tmp/aoti-zoo): one
#                with info.json is kept, one whose export failed (failed.json)
#                is not retried, unless ZOO_FORCE=1; a timed-out one is retried,
#                and resumes from its inductor cache ($ZOO_DIR/inductor/TAG:
#                the Triton kernels compiled, the autotuning done)
#   ZOO_JOBS     exports at once (16); ZOO_COMPILE_THREADS inductor's compile
#                workers in each (2: 16 exports x 2 on 16 cores)
#   ZOO_TIMEOUT_S  one export's limit (420); ZOO_BUDGET_S the phase's wall
#                budget (480): an export not started by then is skipped, one
#                running is cut at the budget's end, so a call to zoo-export
#                fits the 10-minute command limit; call again to go on
# Logs of the exports that did not produce a package: $OUT/zoo-export-logs.tar.gz.
#   ZOO_SAMPLE_STACKS=DIR  each export's main-thread stacks, sampled each
#                second, counted into DIR (tests/gpu/zoo/sampler/sitecustomize.py)
#                and returned as $OUT/stacks.tar.gz (the device tool returns
#                only so many files: keep DIR out of $OUT)
#   ZOO_INDUCTOR_EXTRA='{"compile_threads": 1}'  inductor options added to each
#                export's (tests/gpu/zoo/export.py): this one builds Triton
#                candidates in threads of the export, which took an H100's
#                autotunings from ~40 s to ~1 s each (2026-12-06)
#
# Each export has an inductor cache of its own. Inductor records every
# autotuning's timings in one JSON file (cache/<hash of GPU and versions>),
# written back whole after each benchmark, which takes 20-50 s on a GEMM's ~20
# Triton candidates: two exports sharing the file overwrite each other's
# results. A timed-out export's record also leaves the machine, in
# $OUT/zoo-autotune/TAG.tar.gz, and an export finds it again in
# $CARRY/zoo-autotune/ (TAG.tar.gz, or a TAG/ folder; merged with the
# committed one, zoo_seed_record): put a call's
# zoo-autotune/ into .carry/ and the next call's export skips every
# autotuning already done (inductor benchmarks nothing when all of a GEMM's
# candidates are recorded). Records that outlive a session are committed in
# tests/gpu/zoo/autotune/ (see its README); each holds one GPU's timings.
ZOO_DIR=${ZOO_DIR:-/tmp/aoti-zoo}

# The packages ZOO_SET and ZOO_FILTER select: "model options dtype device" lines.
zoo_selection() {
  $PY "$ROOT/tests/gpu/zoo/zoo.py" --list --set "${ZOO_SET:-default}" ${ZOO_FILTER:+--filter "$ZOO_FILTER"}
}

# zoo_seed_record TAG ROOT: ROOT/cache/ (an inductor cache's autotuning
# records) gets every record of TAG there is, merged (record_merge.py): its
# own, a carried one ($CARRY/zoo-autotune/TAG.tar.gz or TAG/) and the
# committed one (tests/gpu/zoo/autotune/TAG.tar.gz). A merge, not the first
# found: a record carried from an older call must not hide the shapes a newer
# committed one holds. Where two measured one candidate, ROOT's own time stays.
zoo_seed_record() {
  local tag=$1 root=$2 tmp i=0 rec roots=()
  mkdir -p "$root/cache"
  tmp=$(mktemp -d)
  roots=("$root")
  [ -d "$CARRY/zoo-autotune/$tag/cache" ] && roots+=("$CARRY/zoo-autotune/$tag")
  for rec in "$CARRY/zoo-autotune/$tag.tar.gz" "$ROOT/tests/gpu/zoo/autotune/$tag.tar.gz"; do
    [ -f "$rec" ] || continue
    i=$(( i + 1 )); mkdir -p "$tmp/$i"
    tar -C "$tmp/$i" -xzf "$rec" && roots+=("$tmp/$i")
  done
  [ ${#roots[@]} -eq 1 ] || $PY "$ROOT/tests/gpu/zoo/record_merge.py" "$root" "${roots[@]}" > /dev/null
  rm -rf "$tmp"
}

zoo_export_one() {  # MODEL OPTIONS DTYPE DEVICE, in an xargs child
  local tag="$1.$2.$3.$4" log left limit rc t0
  log="$ZOO_DIR/logs/$tag.log"
  if [ -z "${ZOO_FORCE:-}" ] && [ -f "$ZOO_DIR/$tag/info.json" ]; then
    echo "zoo-export $tag: kept"; return
  fi
  if [ -z "${ZOO_FORCE:-}" ] && [ -f "$ZOO_DIR/$tag/failed.json" ]; then
    echo "zoo-export $tag: failed before, not retried (ZOO_FORCE=1 retries)"; return
  fi
  left=$(( ZOO_DEADLINE - $(date +%s) ))
  if [ "$left" -lt 30 ]; then
    echo "zoo-export: skipped: the phase's time budget ran out" > "$log"
    echo "zoo-export $tag: skipped, budget spent"; return
  fi
  limit=$(( left < ZOO_TIMEOUT_S ? left : ZOO_TIMEOUT_S ))
  cache="$ZOO_DIR/inductor/$tag"
  zoo_seed_record "$tag" "$cache"
  t0=$(date +%s)
  # Inductor gives the parallel compile of a layer's autotuning candidates
  # 300 s (precompilation_timeout_seconds) and then marks every unfinished
  # one failed: with many exports sharing the machine, all 18 GEMM candidates
  # of a MobileNetV3 or RegNetY layer missed it and the export "failed" with
  # NoValidChoicesError (2026-12-04). The export's own limit bounds it here.
  # ZOO_SAMPLE_STACKS=DIR: where the export's time goes (tests/gpu/zoo/sampler).
  local pypath=${PYTHONPATH:-}
  [ -n "${ZOO_SAMPLE_STACKS:-}" ] && pypath="$ROOT/tests/gpu/zoo/sampler${pypath:+:$pypath}"
  PYTHONPATH=$pypath TORCHINDUCTOR_CACHE_DIR=$cache TORCHINDUCTOR_PRECOMPILATION_TIMEOUT_SECONDS=$limit \
  TORCHINDUCTOR_COMPILE_THREADS=$ZOO_COMPILE_THREADS timeout -k 10 "$limit" \
    "$PY" "$ROOT/tests/gpu/zoo/export.py" "$1" "$2" "$3" "$4" "$ZOO_DIR" > "$log" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "zoo-export: timed out after $limit s" >> "$log"
    # A tarball: the record's folders nest deeper than the device tool
    # brings back from $OUT.
    if [ -n "$(ls -A "$cache/cache")" ]; then
      mkdir -p "$OUT/zoo-autotune" && tar -C "$cache" -czf "$OUT/zoo-autotune/$tag.tar.gz" cache
    fi
  fi
  echo "zoo-export $tag: rc $rc, $(( $(date +%s) - t0 )) s: $(tail -n 1 "$log" | cut -c1-200)"
}

zoo_pack_stacks() {
  [ -n "${ZOO_SAMPLE_STACKS:-}" ] && [ -d "$ZOO_SAMPLE_STACKS" ] &&
    tar -C "$ZOO_SAMPLE_STACKS" -czf "$OUT/stacks.tar.gz" .
}

phase_zoo-export() {
  local list t0 failed=()
  list=$(zoo_selection) || { status=1; return; }
  mkdir -p "$ZOO_DIR/logs"
  export ZOO_DIR PY ROOT ZOO_FORCE OUT CARRY
  export -f zoo_seed_record
  export ZOO_DEADLINE=$(( $(date +%s) + ${ZOO_BUDGET_S:-480} )) ZOO_TIMEOUT_S=${ZOO_TIMEOUT_S:-420} \
         ZOO_COMPILE_THREADS=${ZOO_COMPILE_THREADS:-2}
  export -f zoo_export_one
  t0=$(date +%s)
  echo "$(echo "$list" | grep -c .) packages, ${ZOO_JOBS:-16} at a time"
  echo "$list" | xargs -r -P "${ZOO_JOBS:-16}" -L 1 bash -c 'zoo_export_one "$@"' _
  echo "zoo-export: $(( $(date +%s) - t0 )) s wall"
  zoo_pack_stacks
  while read -r m o d v; do
    [ -z "$m" ] || [ -f "$ZOO_DIR/$m.$o.$d.$v/info.json" ] || failed+=("$m.$o.$d.$v.log")
  done <<< "$list"
  if [ ${#failed[@]} -gt 0 ]; then
    status=1
    echo "${#failed[@]} without a package (logs in $OUT/zoo-export-logs.tar.gz):"
    (cd "$ZOO_DIR/logs" && tar -czf "$OUT/zoo-export-logs.tar.gz" --ignore-failed-read "${failed[@]}" &&
      grep -H "^export-failed\|^zoo-export: " "${failed[@]}" | cut -c1-300)
  fi
}

phase_zoo-run() {
  local bin="$CARRY/bin/aoti-run"
  [ -x "$bin" ] || [ ! -f "$CARRY/bin.tar.xz" ] || tar -C "$CARRY" -xJf "$CARRY/bin.tar.xz"
  $PY "$ROOT/tests/gpu/zoo/run.py" "$ZOO_DIR" "$bin" "$OUT" --set "${ZOO_SET:-default}" \
    ${ZOO_FILTER:+--filter "$ZOO_FILTER"} || status=1
}

phase_zoo() { phase_zoo-export; phase_zoo-run; }

# zoo-cpu-ops: where a CPU package's time over eager goes. Each exported CPU
# package of the selection (ZOO_SET, ZOO_FILTER) has its convolution,
# attention and linear calls timed through the carried libaoti_shims and
# through torch's ATen ops, on the package's thread count, the two sides
# alternating CPU_OPS_ROUNDS times (3); outputs compared
# (bench/shims/cpu_ops_vs_torch.py); the shims' convolutions get a
# channels-last input, as the model passes it, torch's NCHW, as eager runs
# it. One table per package in $OUT/zoo_cpu_ops.md.
phase_zoo-cpu-ops() {
  local list m o d v info threads
  list=$(zoo_selection) || { status=1; return; }
  : > "$OUT/zoo_cpu_ops.md"
  while read -r m o d v; do
    info="$ZOO_DIR/$m.$o.$d.$v/info.json"
    [ "$v" = cpu ] && [ -f "$info" ] || continue
    threads=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["threads"] or 8)' "$info")
    { $PY "$ROOT/bench/shims/cpu_ops_vs_torch.py" "$CARRY/lib/libaoti_shims.so.0" "$info" \
        --threads "$threads" --iters 20 --rounds "${CPU_OPS_ROUNDS:-3}" \
        --conv-input channels-last 2>&1 || status=1; echo; } \
      | tee -a "$OUT/zoo_cpu_ops.md"
  done <<< "$list"
}
# zoo-concurrent: a server runs a model on several threads at once; every
# exported package of the selection runs on 2 threads together (2 Models,
# ZOO_CONCURRENT_RUNS runs each, 10), a CPU package with half its thread
# count per Model. float32 outputs are held to the package's rtol/atol
# against eager; every output to the bits of thread 0's first run.
phase_zoo-concurrent() {
  local list m o d v dir info args threads bin="$CARRY/bin/backend_concurrent_runs"
  [ -x "$bin" ] || tar -C "$CARRY" -xJf "$CARRY/bin.tar.xz"
  list=$(zoo_selection) || { status=1; return; }
  : > "$OUT/zoo_concurrent.txt"
  while read -r m o d v; do
    dir="$ZOO_DIR/$m.$o.$d.$v"; info="$dir/info.json"
    [ -f "$info" ] || continue
    args=$($PY - "$info" "$dir" <<'PYEOF'
import glob, json, os, sys
info, d = json.load(open(sys.argv[1])), sys.argv[2]
num = lambda p: int(p.rsplit("_", 1)[1].split(".")[0])
ins = sorted(glob.glob(os.path.join(d, "in_*.npy")), key=num)
exps = sorted(glob.glob(os.path.join(d, "expect_*.npy")), key=num)
a = ["--device", "cpu" if info["device"] == "cpu" else "cuda", "-i"] + ins
if info["dtype"] == "float32" and exps:
    a += ["-e"] + exps + ["--rtol", repr(info["rtol"]), "--atol", repr(info["atol"])]
print(" ".join(a))
PYEOF
) || { status=1; continue; }
    threads=$($PY -c 'import json, sys; print(max(1, (json.load(open(sys.argv[1]))["threads"] or 8) // 2))' "$info")
    # shellcheck disable=SC2086  # args: file names without spaces
    OMP_NUM_THREADS=$threads timeout 300 "$bin" "$dir/model.pt2" --threads 2 \
      --runs "${ZOO_CONCURRENT_RUNS:-10}" $args 2>&1 | tail -n 4 | tee -a "$OUT/zoo_concurrent.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done <<< "$list"
}

# preflight: the carried binaries start here (every library found), or stop the
# whole call at once instead of spending the machine's minutes on nothing.
phase_preflight() {
  [ -x "$CARRY/bin/aoti-run" ] || tar -C "$CARRY" -xJf "$CARRY/bin.tar.xz"
  local b missing
  for b in aoti-run shims_cuda_test ops_bench; do
    missing=$(ldd "$CARRY/bin/$b" 2>&1 | grep "not found")
    [ -z "$missing" ] || { echo "preflight: $b: $missing"; exit 3; }
  done
  "$CARRY/bin/aoti-run" --help > /dev/null || { echo "preflight: aoti-run does not start"; exit 3; }
  echo "preflight: ok"
}

# ops-bench: the CUDA conv and attention fallbacks against eager's kernels on
# the same calls (bench/gpu/ops_bench.cpp, ops_bench_torch.py).
phase_ops-bench() {
  [ -x "$CARRY/bin/ops_bench" ] || tar -C "$CARRY" -xJf "$CARRY/bin.tar.xz"
  "$CARRY/bin/ops_bench" --iters 50 > "$OUT/ops_ours.json" || status=1
  $PY "$ROOT/bench/gpu/ops_bench_torch.py" "$OUT/ops_ours.json" "$OUT/ops_bench.json" \
    | tee "$OUT/ops_bench.md" || status=1
  # The attention A/B: the same calls under the warp-per-row kernel that the
  # tiled one replaced (OPS_BENCH_AB=0 skips it).
  if [ "${OPS_BENCH_AB:-1}" != 0 ]; then
    AOTI_SHIMS_CUDA_ATTENTION=row "$CARRY/bin/ops_bench" --iters 50 > "$OUT/ops_ours_row.json" || status=1
    $PY "$ROOT/bench/gpu/ops_bench_torch.py" "$OUT/ops_ours_row.json" "$OUT/ops_bench_row.json" \
      | grep -E '^\| (call|---|.*sdpa)' | tee "$OUT/ops_bench_row.md" || status=1
  fi
}

# --- end of the model zoo

for p in "$@"; do
  echo "=== $p ($(date +%T))"
  "phase_$p"
done
echo "=== done ($(date +%T)), status $status"
exit $status
