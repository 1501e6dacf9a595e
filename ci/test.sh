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
if [ "${AOTI_CI_QUICK:-0}" = 1 ]; then
  exit 0
fi
echo "== ci/fuzz.sh: each reader's fuzzer for ${FUZZ_SECONDS:=30} s"
FUZZ_SECONDS=$FUZZ_SECONDS bash ci/fuzz.sh
echo "== ci/sanitize.sh: the whole suite under ASan + UBSan"
bash ci/sanitize.sh
