#!/usr/bin/env node
// Benchmarks of the optimizers (`make bench`, after the quantizer suite):
// one update step of Adam, AdamW, AdaBelief, Lion and SAGE over 2^16, 2^20
// and 2^22 parameters, side by side in one process:
//   wasm-simd / wasm-scalar "kernel": the bare ss_optimize export on w, g
//     and state already in wasm memory (what a training loop living in wasm
//     pays; includes ss_optimize's finiteness check of w and g),
//   wasm-simd "API": softscope.optimize(), which copies w, g and the state
//     in and out of wasm memory on every call,
//   native scalar / SIMD (SIMDe) through the C harness ($B/native/bench),
//   plain JavaScript a user would write (plain-js-optimizers.js).
// Times are ns per parameter (median of the trials, timing.js). Target:
// wasm SIMD Adam >= 2.5x wasm scalar at 2^20 (kernel columns).
// Writes $B/bench/optimizers.json.
//
// Env / args: B, DIST, BENCH_QUICK=1 or --quick, --sizes n,...
import { suiteSettings, wasmBuilds, nativeTimes, cell as fmt, alignTable, writeSuite } from './harness.js';
import { timeCall } from './timing.js';
import { adamJs, adabeliefJs, lionJs, sageJs } from './plain-js-optimizers.js';

const S = suiteSettings([1 << 16, 1 << 20, 1 << 22]);
const { quick, sizes, st } = S;
const builds = await wasmBuilds(S.DIST);

const CASES = [
  { name: 'adam', js: (w, g, s, t) => adamJs(w, g, s, t) },
  { name: 'adamw', js: (w, g, s, t) => adamJs(w, g, s, t, true) },
  { name: 'adabelief', js: adabeliefJs },
  { name: 'lion', js: lionJs },
  { name: 'sage', js: sageJs },
];

// Weights |x| / 50 and gradients x, x ~ N(0, 1) from a fixed LCG + Box-Muller.
function inputs(n, seed) {
  const g = new Float32Array(n), w = new Float32Array(n);
  let s = seed >>> 0;
  const u = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  for (let i = 0; i < n; i++) {
    g[i] = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    w[i] = Math.abs(g[i]) / 50;
  }
  return { w, g };
}

// The bare ss_optimize call on wasm-resident w, g and state.
function kernelCall(ss, name, n, x) {
  const k = ss.kernel(name, 'optimizer');
  const np = ss._packParams(k, {}, 'bench', n);
  const w = ss.alloc(n), g = ss.alloc(n);
  w.array.set(x.w), g.array.set(x.g);
  const slots = ss._heap.malloc(Math.max(4, k.state_slots * n * 4)), sc = ss._heap.malloc(32);
  ss._heap.refresh();
  ss._heap.u8.fill(0, slots, slots + k.state_slots * n * 4);
  ss._heap.f64.fill(0, sc >>> 3, (sc >>> 3) + 4);
  const fn = ss._need('ss_optimize', 'bench'), kp = ss._ptr.get(k), impl = ss._implFor(k);
  return {
    run: () => {
      const s = fn(kp, impl, w.ptr, g.ptr, n, ss._paramsPtr, np, slots, sc);
      if (s !== 0) throw new Error(`ss_optimize(${name}): status ${s}`);
    },
    free: () => { w.free(); g.free(); ss._heap.free(slots); ss._heap.free(sc); },
  };
}


const native = nativeTimes(S, CASES.map((c) => c.name));
const rows = [];
for (const c of CASES) {
  for (const n of sizes) {
    const x = inputs(n, 7);
    const row = { case: c.name, n, ns_per_param: {} };
    for (const [label, ss] of Object.entries(builds)) {
      const kc = kernelCall(ss, c.name, n, x);
      row.ns_per_param[`${label} kernel`] = timeCall(kc.run, n, st).ns_per_elem;
      kc.free();
    }
    {
      const ss = builds['wasm-simd'], w = Float32Array.from(x.w), state = ss.optimizerState(c.name, n);
      row.ns_per_param['wasm-simd API'] = timeCall(() => ss.optimize(c.name, w, x.g, {}, state), n, st).ns_per_elem;
    }
    for (const impl of ['simd', 'scalar']) row.ns_per_param[`native-${impl}`] = native.get(`${c.name} ${impl} ${n}`) ?? null;
    {
      const w = Float32Array.from(x.w), s = { m: new Float32Array(n), v: new Float32Array(n) };
      let t = 0;
      row.ns_per_param.js = timeCall(() => c.js(w, x.g, s, ++t), n, st).ns_per_elem;
    }
    const t = row.ns_per_param;
    row.simd_vs_scalar = t['wasm-scalar kernel'] / t['wasm-simd kernel'];
    row.simd_vs_js = t.js / t['wasm-simd kernel'];
    rows.push(row);
    process.stderr.write(`  ${c.name} n=${n}: simd ${t['wasm-simd kernel'].toFixed(2)} ns, scalar ${t['wasm-scalar kernel'].toFixed(2)} ns, js ${t.js.toFixed(2)} ns\n`);
  }
}

const head = ['optimizer', 'n', 'simd kernel', 'scalar kernel', 'simd API', 'native simd', 'native scalar', 'plain JS', 'simd/scalar', 'wasm/native simd', 'JS/simd'];
const table = [head, ...rows.map((r) => {
  const t = r.ns_per_param;
  return [r.case, `2^${Math.log2(r.n)}`, fmt(t['wasm-simd kernel']), fmt(t['wasm-scalar kernel']), fmt(t['wasm-simd API']),
    fmt(t['native-simd']), fmt(t['native-scalar']), fmt(t.js), `${r.simd_vs_scalar.toFixed(2)}x`,
    t['native-simd'] ? `${(t['wasm-simd kernel'] / t['native-simd']).toFixed(2)}x` : '—', `${r.simd_vs_js.toFixed(1)}x`];
})];
let text = `optimizers: ns per parameter for one update step, ${quick ? 'QUICK run' : 'full run'}\n\n`;
text += alignTable(table);
const a20 = rows.find((r) => r.case === 'adam' && r.n === (1 << 20)) ?? rows.find((r) => r.case === 'adam');
const target = { target: 'wasm SIMD Adam >= 2.5x wasm scalar at 2^20', measured: a20?.simd_vs_scalar ?? null, met: (a20?.simd_vs_scalar ?? 0) >= 2.5 };
text += `\ntargets\n  ${target.met ? 'MET    ' : 'NOT MET'} ${target.target}: ${target.measured == null ? '—' : target.measured.toFixed(2) + 'x'}\n`;
text += '  (kernel columns: ss_optimize on wasm-resident buffers; API: softscope.optimize with its copies.\n   Native SIMD is SIMDe on x86 SSE: the portable intrinsics, not hand-written AVX.)\n';
process.stdout.write(text);

writeSuite(S, 'optimizers.json', { settings: { quick, sizes }, rows, targets: [target] });
