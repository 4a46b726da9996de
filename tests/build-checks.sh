#!/usr/bin/env bash
# Properties of the built wasm, read off the disassembly with wasm-objdump:
#  - the scalar build holds no SIMD instruction at all (it must run on engines
#    without SIMD128, and it is the "wasm scalar" of the benchmarks);
#  - in the SIMD and relaxed builds every *_simd function really uses v128
#    instructions (itself or through its callees) and every *_scalar
#    reference uses none (auto-vectorization is off, so the reference stays
#    the reference);
#  - the relaxed build really holds relaxed ops, where, and only in kernels
#    that state a relaxed error bound, never in pinned code
#    (tests/relaxed-ops.js);
#  - the floor plan of core/ and the JS layers (tests/floor-plan.js).
set -uo pipefail
cd "$(dirname "$0")/.."
DIST=${DIST:-wasm/dist}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# Per-function count of SIMD instructions, "all lane name": all counts every
# v128 instruction, lane only lane arithmetic ([if]32x4.add, ...), not the
# v128.const / load / store with which clang zeroes or copies a 16-byte
# struct in any function of a -msimd128 build. Counts include the functions
# a function calls (transitively): a *_simd entry point may be a thin
# wrapper over a shared SIMD helper that wasm-ld kept out of line.
simd_ops() {
  wasm-objdump -d "$1" | awk '
    / func\[[0-9]+\] </ { name = $3; gsub(/[<>:]/, "", name); seen[name] = 1; next }
    /v128\.|[if](8x16|16x8|32x4|64x2)\./ { own[name]++ }
    /[if](8x16|16x8|32x4|64x2)\./ { lane[name]++ }
    / call [0-9]+ </ { callee = $NF; gsub(/[<>]/, "", callee); edges[name] = edges[name] " " callee }
    function total(f, arr, depth,   n, parts, i, t) {
      if (depth > 8) return 0
      t = arr[f] + 0
      n = split(edges[f], parts, " ")
      for (i = 1; i <= n; i++) if (parts[i] != f) t += total(parts[i], arr, depth + 1)
      return t
    }
    END { for (k in seen) print total(k, own, 0), total(k, lane, 0), k }'
}

scalar_total=$(simd_ops "$DIST/softscope-scalar.wasm" | awk '{ s += $1 } END { print s + 0 }')
if [ "$scalar_total" -eq 0 ]; then ok "scalar build: no SIMD instruction"; else bad "scalar build has $scalar_total SIMD instructions"; fi

# Each build exports exactly the C API softscope.h declares (and malloc,
# free): scripts/exports.sh, the list the Makefile links with. Functions
# only (the emcc builds add their own non-function exports: memory, ...).
declared=$(bash scripts/exports.sh | sort)
for build in simd scalar relaxed; do
  exported=$(wasm-objdump -x -j Export "$DIST/softscope-$build.wasm" 2>/dev/null |
    sed -nE 's/^ - func\[[0-9]+\] .*-> "([^"]+)"$/\1/p' | grep -E '^(ss_|malloc$|free$)' | sort)
  missing=$(comm -23 <(echo "$declared") <(echo "$exported") | tr '\n' ' ')
  extra=$(comm -13 <(echo "$declared") <(echo "$exported") | tr '\n' ' ')
  if [ -z "$missing" ]; then ok "$build build exports all $(wc -l <<<"$declared") of scripts/exports.sh (softscope.h, malloc, free)"
  else bad "$build build lacks exports: $missing"; fi
  if [ -z "$extra" ]; then ok "$build build exports no ss_ function softscope.h does not declare"
  else bad "$build build exports undeclared: $extra"; fi
done

for build in simd relaxed; do
  listing=$(simd_ops "$DIST/softscope-$build.wasm")
  nsimd=0
  while read -r count lane name; do
    case $name in
      *_simd)
        nsimd=$((nsimd + 1))
        if [ "$count" -gt 0 ]; then ok "$build build: $name uses $count SIMD instructions"; else bad "$build build: $name has no SIMD instruction"; fi ;;
      *_scalar)
        if [ "$lane" -eq 0 ]; then ok "$build build: $name is scalar"; else bad "$build build: $name has $lane SIMD lane instructions (auto-vectorized reference)"; fi ;;
    esac
  done <<< "$listing"
  if [ "$nsimd" -gt 0 ]; then ok "$build build: $nsimd SIMD kernels found"; else bad "$build build: no *_simd function found (names section missing?)"; fi
done

# relaxed ops: their own ok / FAIL lines
while read -r status rest; do
  case $status in
    ok) ok "$rest" ;;
    FAIL) bad "$rest" ;;
  esac
done < <(node --no-warnings tests/relaxed-ops.js "$DIST/softscope-relaxed.wasm" "${B:-build}/obj/wasm-relaxed" 2>&1 || echo "FAIL tests/relaxed-ops.js exited with status $?")

# the floor plan (no circle, no arrow up, no family into another's headers,
# JS layers): tests/floor-plan.js, over the native objects
while read -r status rest; do
  case $status in
    ok) ok "$rest" ;;
    FAIL) bad "$rest" ;;
  esac
done < <(node --no-warnings tests/floor-plan.js "${B:-build}/obj/asan" 2>&1 || echo "FAIL tests/floor-plan.js exited with status $?")
echo "suite build-checks: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
