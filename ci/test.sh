#!/usr/bin/env bash
# Everything from nothing: install what is missing, build, run every test;
# then the robustness jobs: the readers fuzzed for a bounded time
# (ci/fuzz.sh) and the whole suite again under ASan + UBSan (ci/sanitize.sh).
# AOTI_CI_QUICK=1 stops after the first suite (a local edit-test loop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bash ci/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "${JOBS:-$(nproc)}"
# What ci/gpu-test.sh stage carries to the GPU machine is built on demand
# (EXCLUDE_FROM_ALL): the link matrix's mis-linked aoti-run variants and the
# CUDA benchmarks. Link them here so that a change to what the shims need
# fails CI, not the next GPU session (it did once: SLEEF).
# (grep reads the whole list: with -q it would stop early, and pipefail would
# count ninja's SIGPIPE as the pipeline's failure.)
if ninja -C "${BUILD_DIR:-build}" -t targets all | grep '^backend_link_matrix:' > /dev/null; then
  echo "== the GPU machine's binaries: backend_link_matrix, ops_bench"
  cmake --build "${BUILD_DIR:-build}" -j "${JOBS:-$(nproc)}" --target backend_link_matrix ops_bench
fi
# CMake's default generator (Unix Makefiles), as the README's plain
# `cmake -S . -B build && cmake --build build` uses it: configure the whole
# project and build the shims, the CUDA targets where the toolkit is found
# (where the generators once differed: issue 17). Bounded to 15 minutes.
echo "== default generator: configure, then build the shims"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
default_build="${BUILD_DIR:-build}-default-generator"
timeout 900 env -u CMAKE_GENERATOR cmake -S . -B "$default_build" -DAOTI_BUILD_BENCH=OFF
timeout 900 cmake --build "$default_build" -j "${JOBS:-$(nproc)}" --target aoti_shims_static aoti_shims
if [ "${AOTI_CI_QUICK:-0}" = 1 ]; then
  exit 0
fi
echo "== ci/fuzz.sh: each reader's fuzzer for ${FUZZ_SECONDS:=30} s"
FUZZ_SECONDS=$FUZZ_SECONDS bash ci/fuzz.sh
echo "== ci/sanitize.sh: the whole suite under ASan + UBSan"
bash ci/sanitize.sh
