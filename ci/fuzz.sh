#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang-19 into
# ${BUILD_DIR:-build-fuzz} and runs each for ${FUZZ_SECONDS:-60} s, seeded
# from real binaries compiled here. ci/test.sh runs it after the suite, 30 s
# a target; see docs/robustness.md. FUZZ_NO_BUILD=1 runs what is built. A crash leaves crash-* in ${FUZZ_WORK}/<target>/ and
# fails the script: minimize it (-minimize_crash=1), keep it in
# tests/fuzz/regressions/ (tests/malformed replays it) and fix the reader.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
work=${FUZZ_WORK:-$root/$build/fuzz-work}
cc=${CC_FUZZ:-clang-19}
cxx=${CXX_FUZZ:-clang++-19}

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DAOTI_FUZZ=ON \
  -DAOTI_BUILD_SHIMS=OFF -DAOTI_BUILD_BACKEND=OFF -DAOTI_BUILD_TESTS=OFF \
  -DAOTI_BUILD_BENCH=OFF -DAOTI_CUDA=OFF >/dev/null || exit 2
ninja -C "$build" -j "${JOBS:-2}" fuzz_Binary fuzz_Archive || exit 2
fi

# Seeds: the kinds of file the readers meet, built with the real toolchain.
seeds=$work/seeds
rm -rf "$seeds"; mkdir -p "$seeds/binary" "$seeds/archive" "$work/scratch"
(
  cd "$seeds"
  printf 'int v = 1; int f(int x) { return x + v; }\nint old(void) { return 0; }\n__asm__(".symver old, old@V0");\n' > lib.c
  printf 'V0 { global: old; }; V1 { global: f; v; local: *; } V0;\n' > lib.map
  printf 'extern int aoti_torch_get_device(void *, int *);\nint g(void *t) { int d; return aoti_torch_get_device(t, &d); }\n' > plugin.c
  cc -shared -fPIC -Wl,--version-script=lib.map -Wl,-soname,libs.so -o binary/lib.so lib.c
  cc -shared -fPIC -Wl,--hash-style=both -o binary/plugin.so plugin.c -L binary -l:lib.so
  cc -c -fPIC -o binary/lib.o lib.c
  cc -c -fPIC -o binary/plugin.o plugin.c
  printf 'int main(void) { return 0; }\n' > main.c
  cc -o binary/exe main.c -rdynamic
  for t in i386-linux-gnu aarch64-linux-gnu powerpc64-linux-gnu x86_64-apple-macos11 arm64-apple-macos11; do
    case $t in *apple*) "$cc" --target=$t -c -o "binary/plugin-$t.o" plugin.c 2>/dev/null ;;
      *) "$cc" --target=$t -nostdlib -fuse-ld=lld -shared -fPIC -o "binary/plugin-$t.so" plugin.c 2>/dev/null ;;
    esac
  done
  ar rcs archive/lib.a binary/lib.o binary/plugin.o
  ar rcsT archive/thin.a binary/lib.o
  llvm-ar-19 --format=bsd rcs archive/bsd.a binary/lib.o binary/plugin.o 2>/dev/null
) || exit 2

status=0
for target in Binary Archive; do
  seed=$seeds/$(echo "$target" | tr A-Z a-z)
  corpus=$work/$target/corpus
  mkdir -p "$corpus"
  log=$work/$target/fuzz.log
  echo "== fuzz_$target for $seconds s (log: $log)"
  # The scratch directory as cwd: a thin archive's member paths resolve there.
  (cd "$work/scratch" && ASAN_OPTIONS=detect_leaks=0 "$root/$build/bin/fuzz_$target" \
     -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$work/$target/" -print_final_stats=1 "$corpus" "$seed") >"$log" 2>&1
  rc=$?
  grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::average_exec_per_sec" "$log" | tail -3
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz_$target: FAILED (exit $rc); artifacts:"; ls "$work/$target"/crash-* "$work/$target"/timeout-* "$work/$target"/oom-* 2>/dev/null
    grep -m3 -E "ERROR|runtime error|SUMMARY" "$log"
  fi
done
exit $status
