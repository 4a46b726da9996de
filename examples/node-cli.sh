#!/usr/bin/env bash
# The softscope CLI: a softmax as JSON, piped into a measure, and a bad input.
#   bash examples/node-cli.sh
set -euo pipefail
cd "$(dirname "$0")/.."
softscope() { node --no-warnings wasm/cli/main.js "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

softscope normalize softmax --input '[2, 1, 0.1]' --json | tee "$tmp/y.json"
echo
# The --json result feeds straight back in: its "output" is the input.
softscope measure entropy --input - < "$tmp/y.json"
echo '[1, 2, 3]' | softscope normalize log_softmax --input - --impl scalar

# Bad input exits 2 with the reason on stderr.
set +e
softscope normalize softmax --input '[1, "NaN", 3]' 2>"$tmp/err"
status=$?
set -e
echo "NaN input: exit $status, $(cat "$tmp/err")"
[ "$status" -eq 2 ]
