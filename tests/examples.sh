#!/usr/bin/env bash
# The examples run as the README shows them. Each check is a property of the
# output (a softmax sums to one, JSON parses), not a recorded transcript.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
pass=0 fail=0
check() { # check NAME CMD... (the command must exit 0)
  local name=$1; shift
  if out=$("$@" 2>&1); then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; echo "$out" | sed 's/^/    /' | tail -20; fi
}
# The C program: its first line is a softmax; the values must sum to 1.
c_example() {
  local line; line=$("$B/native/example" | head -1) || return 1
  echo "$line" | awk -F': ' '{ n = split($2, v, " "); s = 0; for (i = 1; i <= n; i++) s += v[i]; exit (s > 0.99999 && s < 1.00001) ? 0 : 1 }'
}
check "examples/softmax.c (sums to one)" c_example
for f in examples/*.js; do
  [ -e "$f" ] || continue
  check "$f" node --no-warnings "$f"
done
for f in examples/*.sh; do
  [ -e "$f" ] || continue
  check "$f" bash "$f"
done
echo "suite examples: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
