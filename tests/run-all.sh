#!/usr/bin/env bash
# Runs every suite (built by `make test` beforehand), prints each suite's
# counts, and ends with the closing line "N passed, N failed".
# The C suites, the fuzzers and the build checks run in two lanes (the
# machine's two cores); the JS and browser suites after them, alone.
# Suites: C natively (ASan+UBSan), C as wasm scalar, C as wasm SIMD, C as
# wasm relaxed SIMD (Node 20 validates relaxed ops only behind a flag), the
# libFuzzer targets over their committed corpus for a fixed number of
# inputs each (FUZZ_TEST_RUNS, default 10000; seed fixed: the same run
# whatever the machine's load, a few seconds a target), checks on the built wasm,
# Vitest (JS API, CLI, UI), the examples, and the real-browser test (Chromium).
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
NODE="node --no-warnings"
total_pass=0 total_fail=0 total_skip=0
summary=()

# run_suite LABEL CMD... : the command must print "suite X: P passed, F failed, S skipped"
run_suite() {
  local label=$1; shift
  local log="$B/logs/$label.log"
  mkdir -p "$B/logs"
  echo "=== $label: $*"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$log" | grep -E '^(FAIL|suite |    [^ ])' || true
  tally "$label" "${PIPESTATUS[0]}" $((SECONDS - t0))
}

# tally LABEL RC SECONDS: adds the suite's counts from its log to the totals.
tally() {
  local label=$1 rc=$2 secs=$3 log="$B/logs/$1.log"
  local line; line=$(grep -E '^suite [^:]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  local p=0 f=0 s=0
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}; s=${BASH_REMATCH[4]:-0}
  fi
  # A crash, or a runner that exits non-zero without reporting a failure, counts as one failure.
  if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; echo "    $label exited with status $rc (see $log)"; tail -20 "$log"; fi
  if [[ -z $line ]]; then echo "    $label printed no summary line (see $log)"; [[ $f -eq 0 ]] && f=1; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
  summary+=("$(printf '%-14s %5d passed %4d failed %4d skipped %5d s' "$label" "$p" "$f" "$s" "$secs")")
}

# The machine has two cores and the C suites each use one: a second lane
# runs beside the first. Its suites write only their logs (LABEL.log, .rc,
# .secs); end_lane prints and counts them once the lane is done.
quiet_suite() {
  local label=$1; shift
  local t0=$SECONDS
  "$@" >"$B/logs/$label.log" 2>&1
  echo $? >"$B/logs/$label.rc"; echo $((SECONDS - t0)) >"$B/logs/$label.secs"
}
end_lane() {
  wait "$1"; shift
  for label in "$@"; do
    echo "=== $label (second lane)"
    grep -E '^(FAIL|suite |    [^ ])' "$B/logs/$label.log" || true
    tally "$label" "$(cat "$B/logs/$label.rc" 2>/dev/null || echo 1)" "$(cat "$B/logs/$label.secs" 2>/dev/null || echo 0)"
  done
}

mkdir -p "$B/logs"
(
  quiet_suite c-native "$B/native/tests" native-asan
  quiet_suite fuzz env FUZZ_SEED=1 FUZZ_FRESH=1 FUZZ_RUNS="${FUZZ_TEST_RUNS:-10000}" bash tests/fuzz/run.sh
  quiet_suite build-checks bash tests/build-checks.sh
) &
lane=$!
run_suite c-wasm-scalar $NODE tests/support/run-wasi.js "$B/wasm/tests-scalar.wasm" wasm-scalar
run_suite c-wasm-simd $NODE tests/support/run-wasi.js "$B/wasm/tests-simd.wasm" wasm-simd
run_suite c-wasm-relaxed $NODE --experimental-wasm-relaxed-simd tests/support/run-wasi.js "$B/wasm/tests-relaxed.wasm" wasm-relaxed
end_lane "$lane" c-native fuzz build-checks
run_suite js $NODE tests/vitest-suite.js js tests/js/vitest.config.js
run_suite examples bash tests/examples.sh
run_suite browser $NODE tests/vitest-suite.js browser tests/browser/vitest.config.js

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
printf '%-14s %5d s (the suites; builds and installs before them not counted)\n' total "$SECONDS"
echo "$total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
