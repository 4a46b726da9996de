#!/usr/bin/env node
// Benchmarks of attention (`make bench`, after the optimizer suite): one call
// of scaled dot-product softmax attention (one head, Q, K, V of n x 64) at
// n = 128, 512, 2048, and Performer (256 random features, linear in n) at
// the same sizes, side by side in one process:
//   wasm-simd / wasm-scalar "kernel": the bare ss_attend export on Q, K, V
//     already in wasm memory,
//   wasm-simd "API": softscope.attend(), which copies Q, K, V in and the
//     output out,
//   native scalar / SIMD (SIMDe) through the C harness ($B/native/bench),
//   plain JavaScript a user would write (plain-js-attention.js; sdpa only).
// Times are milliseconds per call (median of the trials, timing.js).
// Writes $B/bench/attention.json.
//
// Env / args: B, DIST, BENCH_QUICK=1 or --quick, --sizes n,...
import { suiteSettings, wasmBuilds, nativeTimes, alignTable, writeSuite } from './harness.js';
import { timeCall } from './timing.js';
import { sdpaJs } from './plain-js-attention.js';

const S = suiteSettings([128, 512, 2048]);
const { quick, sizes, st } = S;
const builds = await wasmBuilds(S.DIST);
const D = 64;
const CASES = [{ name: 'sdpa', js: sdpaJs }, { name: 'performer', js: null }];

function inputs(n) {
  let s = 12345;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return { q: Float32Array.from({ length: n * D }, u), k: Float32Array.from({ length: n * D }, u), v: Float32Array.from({ length: n * D }, u), n };
}

// The bare ss_attend call on wasm-resident Q, K, V (ss.attend's own io
// layout, built once).
function kernelCall(ss, name, x) {
  const k = ss.kernel(name, 'attention'), n = x.n;
  ss.attend(name, x, {}); // fills the scratch blocks and the io struct
  const np = ss._packParams(k, {}, 'bench');
  const fn = ss._need('ss_attend', 'bench'), kp = ss._ptr.get(k), impl = ss._implFor(k), io = ss._scratch.get('attn-io', 60);
  return () => {
    const s = fn(kp, impl, io, ss._paramsPtr, np);
    if (s !== 0) throw new Error(`ss_attend(${name}, n = ${n}): status ${s}`);
  };
}

const native = nativeTimes(S, CASES.map((c) => c.name));
const ms = (nsPerElem, n) => (nsPerElem == null ? null : (nsPerElem * n) / 1e6);
const rows = [];
for (const c of CASES) {
  for (const n of sizes) {
    const x = inputs(n);
    const row = { case: c.name, n, d: D, ms_per_call: {} };
    for (const [label, ss] of Object.entries(builds)) row.ms_per_call[`${label} kernel`] = ms(timeCall(kernelCall(ss, c.name, x), n, st).ns_per_elem, n);
    row.ms_per_call['wasm-simd API'] = ms(timeCall(() => builds['wasm-simd'].attend(c.name, x, {}), n, st).ns_per_elem, n);
    for (const impl of ['simd', 'scalar']) row.ms_per_call[`native-${impl}`] = ms(native.get(`${c.name} ${impl} ${n}`), n);
    row.ms_per_call.js = c.js ? ms(timeCall(() => c.js(x.q, x.k, x.v, n, D), n, st).ns_per_elem, n) : null;
    const t = row.ms_per_call;
    row.simd_vs_scalar = t['wasm-scalar kernel'] / t['wasm-simd kernel'];
    row.simd_vs_js = t.js == null ? null : t.js / t['wasm-simd kernel'];
    rows.push(row);
    process.stderr.write(`  ${c.name} n=${n}: simd ${t['wasm-simd kernel'].toFixed(3)} ms, scalar ${t['wasm-scalar kernel'].toFixed(3)} ms\n`);
  }
}

const f = (v) => (v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const head = ['kernel', 'n', 'simd kernel', 'scalar kernel', 'simd API', 'native simd', 'native scalar', 'plain JS', 'simd/scalar', 'wasm/native simd', 'JS/simd'];
const table = [head, ...rows.map((r) => {
  const t = r.ms_per_call;
  return [r.case, String(r.n), f(t['wasm-simd kernel']), f(t['wasm-scalar kernel']), f(t['wasm-simd API']), f(t['native-simd']), f(t['native-scalar']), f(t.js),
    `${r.simd_vs_scalar.toFixed(2)}x`, t['native-simd'] ? `${(t['wasm-simd kernel'] / t['native-simd']).toFixed(2)}x` : '—', r.simd_vs_js == null ? '—' : `${r.simd_vs_js.toFixed(1)}x`];
})];
let text = `attention: ms per call (one head, d = ${D}, Q, K, V of n x ${D}; sdpa with softmax, performer with 256 features), ${quick ? 'QUICK run' : 'full run'}\n\n`;
text += alignTable(table);
process.stdout.write(text);
writeSuite(S, 'attention.json', { settings: { quick, sizes, d: D }, rows });
