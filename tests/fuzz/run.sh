#!/usr/bin/env bash
# Runs every libFuzzer target (built by `make fuzz-build`) for SECONDS each
# over its committed corpus tests/fuzz/corpus/<target>/ (read-only: new
# inputs go to build/fuzz/work/<target>/), and prints per target the
# executions and the time, then "suite fuzz: P passed, F failed, S skipped".
# A target passes when it ends without a crash, a sanitizer report or a
# violated property (libFuzzer's exit status 0). Crashing inputs are left in
# build/fuzz/crashes/<target>/.
#   tests/fuzz/run.sh [SECONDS] [target...]
# A timed run scales each input's energy by its speed
# (-entropic_scale_per_exec_time: slow inputs are mutated less often, so a
# few large ones cannot take the run). FUZZ_RUNS=N runs N inputs per target
# instead of SECONDS (then at most 300 s each), without that scaling:
# with FUZZ_SEED=s (libFuzzer's seed) and FUZZ_FRESH=1 (the committed corpus
# alone, in a temporary work directory) the run is the same whatever the
# machine's load (and, where address randomization can be turned off, the
# same inputs every time). `make test` runs that way; `make fuzz` is timed
# and keeps build/fuzz/work/.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
secs=5
if [[ ${1:-} =~ ^[0-9]+$ ]]; then secs=$1; shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
# A run of N inputs repeats exactly only without libFuzzer's reload of its
# work directory every second (-reload=0) and without address randomization
# (its comparison and call features are keyed by code address; where the
# system lets setarch turn it off).
norand=()
[ -n "${FUZZ_RUNS:-}" ] && setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
pass=0 fail=0 skip=0
for t in "${targets[@]}"; do
  bin="$B/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "skip $t: $bin not built"
    skip=$((skip + 1))
    continue
  fi
  work="$B/fuzz/work/$t" crashes="$B/fuzz/crashes/$t" corpus="tests/fuzz/corpus/$t"
  [ "${FUZZ_FRESH:-0}" = 1 ] && work=$(mktemp -d)
  mkdir -p "$work" "$crashes" "$corpus"
  seed=()
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  log="$B/fuzz/$t.log"
  start=$(date +%s.%N)
  limit=(-max_total_time="$secs" -entropic_scale_per_exec_time=1)
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS" -max_total_time=300 -reload=0)
  "${norand[@]}" "$bin" "${seed[@]}" "${limit[@]}" -timeout=20 -rss_limit_mb=2560 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$corpus" >"$log" 2>&1
  rc=$?
  [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$work"
  end=$(date +%s.%N)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1))
    echo "ok   fuzz/$t"
    echo "    $t: ${execs:-0} executions in ${took} s over $(ls "$corpus" | wc -l) corpus inputs"
    [ -n "${FUZZ_RUNS:-}" ] && [ "${execs:-0}" -lt "$FUZZ_RUNS" ] && echo "    $t: stopped by the 300 s limit before $FUZZ_RUNS runs"
  else
    fail=$((fail + 1))
    echo "FAIL fuzz/$t: exit $rc after ${execs:-?} executions (log $log, inputs in $crashes)"
    grep -E 'ERROR|runtime error|fuzz property|SUMMARY' "$log" | head -5 | sed 's/^/    /'
  fi
done
echo "suite fuzz: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
