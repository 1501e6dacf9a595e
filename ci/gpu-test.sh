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
#   matrix        the link agreement matrix (tests/gpu/matrix.py)
#   bench         torch's runners and aoti-run: latency and cold start
#                 (bench/gpu/torch_bench.py, bench/gpu/aoti_bench.py)
#   soak          compute-sanitizer memcheck over every model, and 1,000
#                 load/run/unload cycles with device and host memory
#                 measured (tests/gpu/soak.py; SOAK_ARGS passes options)
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
  ninja -C "$B" -j2 aoti-run backend_link_matrix shims_cuda_test || return 1
  rm -rf "$CARRY"/bin "$CARRY"/lib "$CARRY"/obj "$CARRY"/deps
  mkdir -p "$CARRY"/bin "$CARRY"/lib "$CARRY"/obj "$CARRY"/models "$CARRY"/deps
  for b in aoti-run aoti-run-no-whole-archive aoti-run-no-export-dynamic aoti-run-static-cudart \
           aoti-run-dup-ahead aoti-run-dup-behind-exe shims_cuda_test; do
    strip -g -o "$CARRY/bin/$b" "$B/bin/$b"
  done
  strip -o "$CARRY/bin/aoti-audit" "$AUDIT"
  strip -g -o "$CARRY/lib/libaoti_shims.so.0" "$B/lib/libaoti_shims.so.0"
  cp -L "$B/lib/libbackend_dup_shim.so" "$CARRY/lib/"
  cp -L "$(ldconfig -p | awk '/libzip.so.4 /{print $NF; exit}')" "$CARRY/lib/libzip.so.4"
  # The LibTorch row is linked on the GPU machine, which has no LLVM: carry
  # aoti-run's objects pre-linked with everything static they use.
  local T="$B"/backend/CMakeFiles/aoti_run_main.dir/tools
  g++ -r -nostdlib -o "$CARRY/obj/aoti-run-partial.o" "$T/aoti-run.cpp.o" "$T/Timer.cpp.o" \
      "$B/lib/libaoti_backend.a" "$B/lib/libaoti_audit.a" \
      $(llvm-config-19 --link-static --libfiles object textapi demangle) || return 1
  strip -g "$CARRY/obj/aoti-run-partial.o"
  # The binaries share LLVM's code: one solid archive travels in a fraction
  # of their size (unpacked by the unpack phase).
  # libaoti_shims needs oneDNN (the CPU convolution fallback), which needs
  # the OpenCL ICD loader; the GPU machine has neither (40 MB raw, 7 MB in
  # the tarball). libgomp is left to the machine's own.
  for l in libdnnl.so.2 libOpenCL.so.1; do
    cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l {print $NF; exit}')" "$CARRY/deps/$l" || return 1
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
phase_matrix() { $PY "$ROOT/tests/gpu/matrix.py" "$MODELS" "$CARRY" "$OUT" || status=1; }
phase_soak() {
  $PY "$ROOT/tests/gpu/soak.py" "$MODELS" "$CARRY/bin/aoti-run" "$OUT" ${SOAK_ARGS:-} || status=1
}
phase_bench() {
  $PY "$ROOT/bench/gpu/torch_bench.py" "$MODELS" "$OUT/torch_bench.json" --iters 300 --warmup 30 --cold-repeats 3
  $PY "$ROOT/bench/gpu/aoti_bench.py" "$MODELS" "$CARRY/bin/aoti-run" "$OUT/torch_bench.json" "$OUT/aoti_bench.json" || status=1
}

for p in "$@"; do
  echo "=== $p ($(date +%T))"
  "phase_$p"
done
echo "=== done ($(date +%T)), status $status"
exit $status
