#!/usr/bin/env bash
# aoti-audit check --all against the shell pipeline people use today (ldd +
# nm -D) on the same question: does every undefined symbol of a plugin find a
# definition in the host's libraries?
#
# The host links about 30 large shared libraries (CUDA toolkit, libLLVM,
# libclang-cpp, with their dependencies); the plugin references a few hundred
# of their symbols plus the aoti_torch_* shims the host exports. Both tools
# run side by side under hyperfine; peak memory comes from GNU time.
#
# Usage: bench/check/run.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
audit=$build/bin/aoti-audit
cuda=${CUDA_HOME:-/usr/local/cuda}/lib64
llvm=$(llvm-config-19 --libdir)
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT
cd "$work"

libs=()
for l in cublas cublasLt cufft cufftw cusparse cusolver cusolverMg curand nccl cudart \
         nvrtc nvJitLink cupti nvblas cudnn cudnn_ops cudnn_cnn cudnn_adv cudnn_graph; do
  [ -e "$cuda/lib$l.so" ] && libs+=("-l$l")
done
cat > host.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int aoti_torch_get_sizes(void *t, long **s) { (void)t; *s = 0; return 0; }
int aoti_torch_dtype_float32(void) { return 6; }
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  puts(h ? "loaded" : dlerror());
  return !h;
}
C
gcc -O1 host.c -o host -rdynamic -Wl,--no-as-needed -L"$cuda" "${libs[@]}" \
    -L"$llvm" -lLLVM-19 "$(ls "$llvm"/libclang-cpp.so.19* | head -1)" -Wl,-rpath,"$cuda:$llvm" -ldl

# The plugin: 40 names from each of the big libraries, plus the shims.
: > refs.txt
for l in "$cuda"/libcublas.so "$cuda"/libcublasLt.so "$cuda"/libcufft.so "$cuda"/libcusparse.so \
         "$cuda"/libcusolver.so "$cuda"/libnccl.so "$cuda"/libcudart.so "$llvm"/libLLVM-19.so \
         "$llvm"/libclang-cpp.so.19*; do
  [ -e "$l" ] || continue
  nm -D --defined-only "$l" | awk '$2 ~ /^[TW]$/ {print $3}' | sed 's/@.*//' | sort -u | awk 'NR % 23 == 1 && ++n <= 60' >> refs.txt
done
printf 'aoti_torch_get_sizes\naoti_torch_dtype_float32\n' >> refs.txt
sort -u refs.txt -o refs.txt
awk '{printf "extern void r%d(void) __asm__(\"%s\");\n", NR, $1}' refs.txt > plugin.c
{ echo "void plugin_entry(void) {"; awk '{printf "  r%d();\n", NR}' refs.txt; echo "}"; } >> plugin.c
gcc -shared -fPIC -O1 plugin.c -o plugin.so -Wl,--allow-shlib-undefined

nlibs=$(ldd ./host | grep -c '=>')
nrefs=$(nm -D --undefined-only plugin.so | wc -l)
echo "host: $nlibs shared libraries in its closure, $(ldd ./host | awk '/=>/ {print $3}' | xargs du -cmL | tail -1 | cut -f1) MiB"
echo "plugin: $nrefs undefined dynamic symbols"
./host ./plugin.so

# The pipeline: every library in the host's closure, its defined dynamic
# symbols, against the plugin's undefined ones.
cat > pipeline.sh <<'SH'
#!/usr/bin/env bash
set -eo pipefail
{ echo "$1"; ldd "$1" | awk '/=>/ {print $3}'; } | xargs nm -D --defined-only 2>/dev/null \
  | awk 'NF == 3 {sub(/@.*/, "", $3); print $3}' | sort -u > defined.txt
nm -D --undefined-only "$2" | awk '$1 != "w" {sub(/@.*/, "", $2); print $2}' | sort -u \
  | comm -23 - defined.txt
SH
chmod +x pipeline.sh

echo "pipeline says missing: $(./pipeline.sh ./host ./plugin.so | wc -l)"
"$audit" check --all --host ./host ./plugin.so | tail -1

hyperfine --warmup 3 --runs 20 --export-json bench.json \
  -n pipeline "./pipeline.sh ./host ./plugin.so" \
  -n aoti-audit "$audit check --all --host ./host ./plugin.so"
python3 - <<'PY'
import json
r = {x["command"]: x for x in json.load(open("bench.json"))["results"]}
p, a = r["pipeline"]["mean"], r["aoti-audit"]["mean"]
print("mean: pipeline %.1f ms, aoti-audit %.1f ms: %.1fx faster" % (p * 1e3, a * 1e3, p / a))
PY
/usr/bin/time -v "$audit" check --all --host ./host ./plugin.so 2>&1 >/dev/null \
  | awk -F: '/Maximum resident/ {printf "aoti-audit peak memory: %.1f MiB\n", $2 / 1024}'
