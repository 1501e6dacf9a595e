#!/bin/sh
# expect_exit.sh CODE PATTERN CMD ARG...
# Runs CMD; passes when it exits with CODE and its output (stdout and stderr)
# matches the extended regular expression PATTERN ('' matches anything). The
# output is matched as one line (newlines read as spaces), so ".*" spans lines.
want=$1 pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then
  echo "expect_exit: exit status $got, expected $want" >&2
  exit 1
fi
if [ -n "$pattern" ] && ! printf '%s\n' "$out" | tr '\n' ' ' | grep -Eq -- "$pattern"; then
  echo "expect_exit: output does not match: $pattern" >&2
  exit 1
fi
