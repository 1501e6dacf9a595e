#!/usr/bin/env bash
# Configures and builds into ${BUILD_DIR:-build}. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
# AOTI_OPENBLAS=ON: CI must build (and so test) the CPU GEMM fallbacks.
cmake -S . -B "$build" -G Ninja -DAOTI_OPENBLAS=ON "$@"
cmake --build "$build" -j "${JOBS:-$(nproc)}"
