#!/usr/bin/env bash
# The asan preset (ASan + UBSan, Debug) in build-asan, then the audit-side
# tests under it: audit., loader., cli., config., malformed., backend. (whose
# Fault tests include the out-of-bounds write only ASan can see). Not part of ci/test.sh
# (a sanitized build and run take far longer than CI allows); see
# docs/robustness.md. Extra arguments go to ctest (e.g. -R audit.).
set -uo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cmake --preset asan >/dev/null || exit 2
cmake --build --preset asan -j "${JOBS:-2}" || exit 2
if [ $# -eq 0 ]; then set -- -R '^(audit|loader|cli|config|malformed|backend)\.'; fi
ctest --preset asan -j "${JOBS:-2}" "$@"
