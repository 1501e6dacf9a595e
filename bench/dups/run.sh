#!/usr/bin/env bash
# aoti-audit dups --all --cxx against Bazel's duplicate-symbol check, the
# shell pipeline
#
#   nm -A -g -P --defined-only ARCHIVES | awk '{print $2}' | sort | uniq -d
#
# (every defined global name that two or more members define), on two sets of
# real archives:
#   multiarch  every *.a in /usr/lib/$(gcc -print-multiarch)  (C: glibc, X11, ...)
#   llvm14     every *.a in $(llvm-config-14 --libdir)         (C++: LLVM, clang)
# Both commands run in one hyperfine invocation per set, and compare.py checks
# that both find the same names, explaining every difference by a rule.
#
# An input is every *.a that is an archive or an ELF object (libmcheck.a is an
# object); GNU ld scripts named *.a (libm.a) are left out of both lists: nm
# cannot read them either.
#
# Usage: bench/dups/run.sh [BUILD_DIR]   (default: build-dups; RUNS=10)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build-dups}" && pwd)
audit=$build/bin/aoti-audit
runs=${RUNS:-10}
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT

is_input() { # an archive or an ELF file
  case "$(head -c 8 "$1" | od -An -c | tr -d ' \n')" in
    '!<arch>\n'*|177ELF*) return 0 ;;
    *) return 1 ;;
  esac
}

status=0
for set in multiarch llvm14; do
  case $set in
    multiarch) dir=/usr/lib/$(gcc -print-multiarch) ;;
    llvm14) dir=$(llvm-config-14 --libdir) ;;
  esac
  list=$work/$set.list
  : > "$list"
  for f in "$dir"/*.a; do
    if is_input "$f"; then echo "$f" >> "$list"; else echo "skipped (not an archive or object): $f"; fi
  done
  size=$(xargs du -cmL < "$list" | tail -1 | cut -f1)
  echo "== $set: $(wc -l < "$list") files, $size MiB, in $dir"

  pipeline="nm -A -g -P --defined-only \$(cat $list) 2>/dev/null | awk '{print \$2}' | sort | uniq -d > $work/$set.nm"
  # Exit status 1 means "error-severity duplicates found", the expected answer.
  dups="$audit dups --all --cxx --format json @$list > $work/$set.json || [ \$? -eq 1 ]"
  hyperfine --warmup 1 --runs "$runs" --export-json "$work/$set.hyperfine.json" \
    -n "nm | sort | uniq -d" "$pipeline" -n "aoti-audit dups --all --cxx" "$dups"
  python3 - "$work/$set.hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
p, d = r["nm | sort | uniq -d"], r["aoti-audit dups --all --cxx"]
f = lambda x: "%.3f s ± %.3f (user %.3f, sys %.3f)" % (x["mean"], x["stddev"], x["user"], x["system"])
print("pipeline: " + f(p)); print("dups:     " + f(d))
print("wall-clock ratio %.1fx, CPU-time ratio %.1fx" %
      (p["mean"] / d["mean"], (p["user"] + p["system"]) / (d["user"] + d["system"])))
PY
  nm -A -g -P --defined-only $(cat "$list") 2>/dev/null > "$work/$set.nm-raw"
  python3 "$here/compare.py" "$work/$set.nm" "$work/$set.nm-raw" "$work/$set.json" || status=1
done
exit $status
