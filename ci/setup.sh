#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12, if it is missing.
# Safe to run again: it only calls apt-get when a package is absent.
set -euo pipefail

packages=(
  cmake ninja-build g++ gcc binutils make pkg-config python3
  llvm-19-dev clang-19 lld-19          # libObject (static), clang + lld for tests
  libclang-rt-19-dev                   # ci/fuzz.sh: libFuzzer and clang's sanitizer runtimes
  libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libtomlplusplus-dev                  # .aoti-audit.toml
  libzip-dev zlib1g-dev libzstd-dev    # .pt2 reading; LLVM's own dependencies
  hyperfine                            # bench/ only
  groff-base                           # tests/cli: the man page renders
  python3-jsonschema                   # tests/sarif: SARIF schema validation
  libdnnl-dev                          # shims: CPU convolution fallback (oneDNN 2.6)
  libopenblas-dev                      # shims: CPU GEMM fallbacks (cblas)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit is not a Debian package here; the build uses it when found
# (nvcc on PATH or in /usr/local/cuda) and builds the CPU parts without it.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "ci/setup.sh: note: add /usr/local/cuda/bin to PATH to build the CUDA parts"
fi

# The SARIF test validates against the schema with Python's jsonschema. The
# python3 on PATH may not be Debian's (pyenv), so make sure it can import it.
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "ci/setup.sh: installing jsonschema for $(command -v python3)"
  python3 -m pip install --quiet jsonschema || echo "ci/setup.sh: warning: could not install jsonschema; the SARIF test will be skipped"
fi
