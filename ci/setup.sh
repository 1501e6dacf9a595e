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
  ocl-icd-opencl-dev opencl-c-headers  # Debian's oneDNN is built for OpenCL GPUs: its
                                       # dnnl-config.cmake requires find_package(OpenCL)
  libopenblas-dev                      # shims: CPU GEMM fallbacks (cblas)
  libsleef-dev                         # shims: the vector math SIMD CPU models import
  librandom123-dev                     # shims: Philox4x32-10 for the random ops (header-only)
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

# --- cudnn-frontend: the CUDA attention fallback on cuDNN's fused SDPA --------
# NVIDIA's header-only C++ API to cuDNN's graph (MIT). PyPI's wheel carries its
# include/; it is unpacked into deps/cudnn-frontend/ (git-ignored), where
# shims/CMakeLists.txt looks for it. The headers are the same in every wheel,
# so the platform is pinned to the one that exists. Without it the build
# still works (CUDA attention then runs the shims' own kernel only).
cudnn_frontend_version=1.32.0
cudnn_frontend_dir="$(cd "$(dirname "$0")/.." && pwd)/deps/cudnn-frontend"
if [ "$(cat "$cudnn_frontend_dir/VERSION" 2>/dev/null)" != "$cudnn_frontend_version" ]; then
  echo "ci/setup.sh: fetching cudnn-frontend $cudnn_frontend_version into $cudnn_frontend_dir"
  wheel_dir=$(mktemp -d)
  if python3 -m pip download --quiet --no-deps --only-binary=:all: \
       --python-version 3.11 --implementation cp --platform manylinux_2_28_x86_64 \
       -d "$wheel_dir" "nvidia-cudnn-frontend==$cudnn_frontend_version" &&
     rm -rf "$cudnn_frontend_dir" &&
     python3 - "$wheel_dir" "$cudnn_frontend_dir" <<'PY'
import glob, os, sys, zipfile
wheel_dir, target = sys.argv[1], sys.argv[2]
(wheel,) = glob.glob(os.path.join(wheel_dir, "*.whl"))
with zipfile.ZipFile(wheel) as z:
    members = [m for m in z.namelist() if m.startswith("include/") and not m.endswith("/")]
    if not any(m == "include/cudnn_frontend.h" for m in members):
        sys.exit(f"{wheel}: no include/cudnn_frontend.h")
    z.extractall(target, members)
PY
  then
    echo "$cudnn_frontend_version" > "$cudnn_frontend_dir/VERSION"
  else
    echo "ci/setup.sh: warning: could not fetch cudnn-frontend; CUDA attention will use the shims' own kernel only"
  fi
  rm -rf "$wheel_dir"
fi
