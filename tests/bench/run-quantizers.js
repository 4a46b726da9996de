#!/usr/bin/env node
// Benchmarks of the quantizers (`make bench`, after the sampler suite):
// quantize + dequantize over 2^20 and 2^22 values, side by side in one
// process:
//   int8      uniform, 8 bits symmetric, per tensor (N(0, 1) weights)
//   int4 g32  uniform, 4 bits with zero point, groups of 32, packed two per byte
//             (the API and JS columns include the packing, the kernel column not)
//   pow2      4-bit power-of-two quantizer (softmax of N(0, 9) logits)
//   fp8 e4m3  the E4M3 cast
// for wasm-simd / wasm-scalar through the JS package (ss.quantize: the
// result is copied out of wasm memory into fresh typed arrays) and through
// the bare export on buffers already in wasm memory ("kernel": what a
// zero-copy caller pays), native scalar / SIMD (SIMDe) through the C
// bench harness ($B/native/bench, ss_quantize on |x| / 50 in [0, 1): the
// same work per value, other values), and the plain JavaScript a user would write
// (plain-js-quantizers.js). Times are ns per value (median of the trials,
// timing.js). Target: wasm SIMD int8 >= 4x wasm scalar (kernel columns).
// Writes $B/bench/quantizers.json.
//
// Env / args: B, DIST, BENCH_QUICK=1 or --quick, --sizes n,...
import { suiteSettings, wasmBuilds, nativeTimes, cell as fmt, alignTable, writeSuite } from './harness.js';
import { timeCall } from './timing.js';
import { int8Js, int4GroupPackedJs, pow2Js, fp8E4M3Js, weights, softmaxLike } from './plain-js-quantizers.js';

const S = suiteSettings([1 << 20, 1 << 22]);
const { quick, sizes, st } = S;
const builds = await wasmBuilds(S.DIST);

// The bare ss_quantize call on wasm-resident input and outputs.
function kernelCall(ss, name, params, buf, n) {
  const k = ss.kernel(name, 'quantizer');
  const np = ss._packParams(k, params, 'bench', n);
  const py = ss._scratch.get('bench-y', n * 4), pc = ss._scratch.get('bench-c', n * 4);
  const fn = ss._need('ss_quantize', 'bench'), kp = ss._ptr.get(k), impl = ss._implFor(k);
  return () => {
    const s = fn(kp, impl, buf.ptr, n, ss._paramsPtr, np, pc, py);
    if (s !== 0) throw new Error(`ss_quantize: status ${s}`);
  };
}

// Native: one run of the C harness for every case and size; "<kernel>@p=v+p=v" names.
const nativeName = ([k, p]) => (Object.keys(p).length ? `${k}@${Object.entries(p).map(([a, b]) => `${a}=${b}`).join('+')}` : k);

const CASES = [
  { name: 'int8', input: weights, kernel: ['uniform', { bits: 8, symmetric: 1 }], run: (ss, b) => ss.quantize('uniform', b, { bits: 8, symmetric: 1 }), js: int8Js },
  { name: 'int4 g32 packed', input: weights, kernel: ['uniform', { bits: 4, symmetric: 0, group: 32 }],
    run: (ss, b) => ss.pack(ss.quantize('uniform', b, { bits: 4, symmetric: 0, group: 32 }).codes, 4), js: (x) => int4GroupPackedJs(x, 32) },
  { name: 'pow2 4-bit', input: softmaxLike, kernel: ['pow2', { bits: 4 }], run: (ss, b) => ss.quantize('pow2', b, { bits: 4 }), js: (x) => pow2Js(x, 4) },
  { name: 'fp8 e4m3', input: weights, kernel: ['fp8_e4m3', {}], run: (ss, b) => ss.quantize('fp8_e4m3', b), js: fp8E4M3Js },
];

const native = nativeTimes(S, CASES.map((c) => nativeName(c.kernel)));
const rows = [];
for (const c of CASES) {
  for (const n of sizes) {
    const x = c.input(n, 11);
    const row = { case: c.name, n, ns_per_value: {} };
    for (const [label, ss] of Object.entries(builds)) {
      const buf = ss.alloc(n);
      buf.array.set(x);
      row.ns_per_value[label] = timeCall(() => c.run(ss, buf), n, st).ns_per_elem;
      row.ns_per_value[`${label} kernel`] = timeCall(kernelCall(ss, ...c.kernel, buf, n), n, st).ns_per_elem;
      buf.free();
    }
    for (const impl of ['simd', 'scalar']) row.ns_per_value[`native-${impl}`] = native.get(`${nativeName(c.kernel)} ${impl} ${n}`) ?? null;
    row.ns_per_value.js = timeCall(() => c.js(x), n, st).ns_per_elem;
    const t = row.ns_per_value;
    row.simd_vs_scalar = t['wasm-scalar kernel'] / t['wasm-simd kernel'];
    row.simd_vs_js = t.js / t['wasm-simd'];
    rows.push(row);
    process.stderr.write(`  ${c.name} n=${n}: simd ${t['wasm-simd kernel'].toFixed(2)} ns, scalar ${t['wasm-scalar kernel'].toFixed(2)} ns, js ${t.js.toFixed(2)} ns\n`);
  }
}

const head = ['case', 'n', 'simd kernel', 'scalar kernel', 'simd API', 'scalar API', 'native simd', 'native scalar', 'plain JS', 'simd/scalar (kernel)', 'wasm/native simd', 'API vs JS'];
const table = [head, ...rows.map((r) => [r.case, `2^${Math.log2(r.n)}`, fmt(r.ns_per_value['wasm-simd kernel']),
  fmt(r.ns_per_value['wasm-scalar kernel']), fmt(r.ns_per_value['wasm-simd']), fmt(r.ns_per_value['wasm-scalar']),
  fmt(r.ns_per_value['native-simd']), fmt(r.ns_per_value['native-scalar']),
  fmt(r.ns_per_value.js), `${r.simd_vs_scalar.toFixed(2)}x`,
  r.ns_per_value['native-simd'] ? `${(r.ns_per_value['wasm-simd kernel'] / r.ns_per_value['native-simd']).toFixed(2)}x` : '—',
  `${r.simd_vs_js.toFixed(1)}x`])];
let text = `quantizers: ns per value (quantize + dequantize), ${quick ? 'QUICK run' : 'full run'}\n\n`;
text += alignTable(table);
const t8 = rows.find((r) => r.case === 'int8' && r.n === (1 << 20)) ?? rows.find((r) => r.case === 'int8');
const target = { target: 'wasm SIMD int8 >= 4x wasm scalar', measured: t8?.simd_vs_scalar ?? null, met: (t8?.simd_vs_scalar ?? 0) >= 4 };
text += `\ntargets\n  ${target.met ? 'MET    ' : 'NOT MET'} ${target.target}: ${target.measured == null ? '—' : target.measured.toFixed(2) + 'x'}\n`;
text += '  (wasm/native simd: wasm SIMD kernel time over native SIMD time; below 1 = wasm is faster. Native SIMD is\n   SIMDe on x86 SSE, so it measures the portable intrinsics, not hand-written AVX.)\n';
process.stdout.write(text);

writeSuite(S, 'quantizers.json', { settings: { quick, sizes }, rows, targets: [target] });
