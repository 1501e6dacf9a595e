#!/usr/bin/env bash
# The asan preset (ASan + UBSan, Debug, LLVM's header assertions on) in
# build-asan, then every test under it (the backend's Fault tests include an
# out-of-bounds write only ASan can see). ci/test.sh runs it after the main
# suite; see docs/robustness.md. Extra arguments go to ctest (e.g. -R audit.).
set -uo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cmake --preset asan >/dev/null || exit 2
cmake --build --preset asan -j "${JOBS:-$(nproc)}" || exit 2
ctest --preset asan -j "${JOBS:-$(nproc)}" "$@"
