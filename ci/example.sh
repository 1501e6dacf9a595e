#!/usr/bin/env bash
# The main job on the bundled example: build the tools and a model-like
# plugin, then audit the same host linked three ways -- right, with the shim
# archive linked plainly, and without --export-dynamic -- and let the real
# loader confirm each verdict.
set -uo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh || exit 2
build=${BUILD_DIR:-build}
BUILD_DIR=$build bash ci/build.sh >/dev/null || { echo "build failed; run ci/build.sh to see why"; exit 2; }

audit=$build/bin/aoti-audit
ex=$build/example
status=0
for host in ok plain noexport; do
  echo
  echo "\$ aoti-audit check --host $ex/example_runner_$host --archive $build/lib/libaoti_shims.a $ex/model.so"
  "$audit" check --host "$ex/example_runner_$host" --archive "$build/lib/libaoti_shims.a" "$ex/model.so"
  rc=$?
  echo "(exit status $rc; the real loader says: $("$ex/example_runner_$host" "$ex/model.so"))"
  # The right host must pass, the two wrong ones must fail.
  if [ "$host" = ok ]; then [ $rc = 0 ] || status=1; else [ $rc = 1 ] || status=1; fi
done
exit $status
