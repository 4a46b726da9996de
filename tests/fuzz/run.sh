#!/usr/bin/env bash
# Runs every libFuzzer target (built by `make fuzz-build`) for SECONDS each
# over its committed corpus tests/fuzz/corpus/<target>/ (read-only: new
# inputs go to build/fuzz/work/<target>/), and prints per target the
# executions and the time, then "suite fuzz: P passed, F failed, S skipped".
# A target passes when it ends without a crash, a sanitizer report or a
# violated property (libFuzzer's exit status 0). Crashing inputs are left in
# build/fuzz/crashes/<target>/.
#   tests/fuzz/run.sh SECONDS [target...]
# FUZZ_SEED=s fixes libFuzzer's seed and FUZZ_FRESH=1 starts from the
# committed corpus alone (a temporary work directory): `make test` runs
# both, so a run is reproducible; `make fuzz` keeps build/fuzz/work/.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
secs=${1:-5}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
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
  "$bin" "${seed[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=65536 \
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
  else
    fail=$((fail + 1))
    echo "FAIL fuzz/$t: exit $rc after ${execs:-?} executions (log $log, inputs in $crashes)"
    grep -E 'ERROR|runtime error|fuzz property|SUMMARY' "$log" | head -5 | sed 's/^/    /'
  fi
done
echo "suite fuzz: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
