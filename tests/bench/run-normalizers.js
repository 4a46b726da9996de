#!/usr/bin/env node
// Benchmarks of the sparse, entmax and adaptive normalizers (`make bench`,
// after run.js): every normalizer of the registry against softmax, and the
// method comparisons of the issue, all in one run, side by side:
//   - sparsemax and entmax15: selection (the registry kernels) vs full sort
//     (the pseudo-kernels "sparsemax@sort", "entmax15@sort" of bench.c);
//   - entmax_bisect vs entmax_halley: time and iteration counts at the same
//     tolerance (bench.c prints "iterations" records);
// at n = 1024, 65536, 2^20, in the native build (scalar and SIMD through
// SIMDe), the wasm scalar build and the wasm SIMD128 build. Prints the tables
// and the targets, writes $B/bench/normalizers.json.
//
// Env / args: B, BENCH_QUICK=1 or --quick, --kernels a,b, --sizes n,...
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runBenchBinary } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const B = path.resolve(root, process.env.B || 'build');
const SIZES = [1024, 65536, 1 << 20];
const METHOD_PAIRS = [
  // [fast, slow, what, target ratio at the largest n (or null)]
  ['sparsemax', 'sparsemax@sort', 'sparsemax: selection vs sort', 3],
  ['entmax15', 'entmax15@sort', 'entmax15: selection vs sort', null],
  ['entmax_halley', 'entmax_bisect', 'alpha-entmax: Halley-bisection vs bisection', null],
];

function parseArgs(argv) {
  const o = { quick: process.env.BENCH_QUICK === '1', kernels: 'all', sizes: SIZES };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--kernels') o.kernels = argv[++i];
    else if (a === '--sizes') o.sizes = argv[++i].split(',').map(Number);
    else {
      console.error(`run-normalizers.js: unknown argument "${a}"`);
      process.exit(2);
    }
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const failures = [];
const log = (s) => process.stderr.write(s + '\n');
// "all" = every registered normalizer, plus the sort pseudo-kernels.
const common = ['--kernels', opts.kernels === 'all' ? 'all,sparsemax@sort,entmax15@sort' : opts.kernels,
  '--sizes', opts.sizes.join(','), '--no-naive', '--iterations'];
if (opts.quick) common.push('--quick');
const node = process.execPath, runWasi = path.join(root, 'tests/support/run-wasi.js');
const run = (label, file, cmd, args) => runBenchBinary({ root, label, file, cmd, args: [...args, '--label', label, ...common], failures, log });

const builds = {
  native: run('native', path.join(B, 'native/bench'), path.join(B, 'native/bench'), []),
  'wasm-scalar': run('wasm-scalar', path.join(B, 'wasm/bench-scalar.wasm'), node,
    ['--no-warnings', runWasi, path.join(B, 'wasm/bench-scalar.wasm')]),
  'wasm-simd': run('wasm-simd', path.join(B, 'wasm/bench-simd.wasm'), node,
    ['--no-warnings', runWasi, path.join(B, 'wasm/bench-simd.wasm'), '--impls', 'simd']),
};
const COLS = [['native-scalar', 'native', 'scalar'], ['native-simd', 'native', 'simd'],
  ['wasm-scalar', 'wasm-scalar', 'scalar'], ['wasm-simd', 'wasm-simd', 'simd']];

const time = (build, kernel, impl, n) =>
  builds[build]?.times.find((r) => r.kernel === kernel && r.impl === impl && r.n === n)?.ns_per_elem ?? null;
const iters = (build, kernel, impl, n) =>
  builds[build]?.other.iterations?.find((r) => r.kernel === kernel && r.impl === impl && r.n === n) ?? null;
const fmt = (v) => (v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const fmtX = (v) => (v == null ? '—' : `${v.toFixed(v >= 10 ? 1 : 2)}x`);
const ratio = (a, b) => (a != null && b != null && b > 0 ? a / b : null);
const sizeName = (n) => (Math.log2(n) >= 14 && Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n));
function pad(rows) {
  const w = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c < 2 ? String(v).padEnd(w[c]) : String(v).padStart(w[c]))).join('  ')).join('\n');
}

// ---- table 1: every kernel, ns per element, and its cost relative to softmax
const kernels = [];
for (const b of Object.values(builds))
  for (const r of b?.times ?? []) if (!kernels.includes(r.kernel)) kernels.push(r.kernel);
const rows = [];
const head = ['kernel', 'n', ...COLS.map((c) => c[0]), 'simd/scalar (wasm)', 'vs softmax (wasm-simd)'];
for (const k of kernels)
  for (const n of opts.sizes) {
    const cells = COLS.map(([, b, impl]) => time(b, k, impl, n));
    const ws = time('wasm-scalar', k, 'scalar', n), wv = time('wasm-simd', k, 'simd', n);
    const row = { kernel: k, n, ns_per_elem: Object.fromEntries(COLS.map(([c], i) => [c, cells[i]])),
      wasm_simd_speedup: ratio(ws, wv), vs_softmax: ratio(wv, time('wasm-simd', 'softmax', 'simd', n)) };
    rows.push(row);
    if (cells.some((v) => v != null))
      row.text = [k, sizeName(n), ...cells.map(fmt), fmtX(row.wasm_simd_speedup), fmtX(row.vs_softmax)];
  }

// ---- table 2: method comparisons
const methods = [];
for (const [fast, slow, what, target] of METHOD_PAIRS)
  for (const n of opts.sizes) {
    const m = { what, fast, slow, n, speedup: {}, iterations: null };
    for (const [c, b, impl] of COLS) m.speedup[c] = ratio(time(b, slow, impl, n), time(b, fast, impl, n));
    if (fast === 'entmax_halley') {
      const f = iters('wasm-simd', fast, 'simd', n) ?? iters('native', fast, 'scalar', n);
      const s = iters('wasm-simd', slow, 'simd', n) ?? iters('native', slow, 'scalar', n);
      if (f && s) m.iterations = { [fast]: f.iterations, [slow]: s.iterations, tol: f.tol, ratio: s.iterations / f.iterations };
    }
    if (target && n === Math.max(...opts.sizes)) m.target = { ratio: target, met: (m.speedup['wasm-simd'] ?? 0) >= target };
    methods.push(m);
  }

let text = `normalizers: ns per element (median), ${opts.quick ? 'QUICK run' : 'full run'}\n\n`;
text += pad([head, ...rows.filter((r) => r.text).map((r) => r.text)]) + '\n';
text += '\nmethod comparisons (slow / fast time, same build and impl)\n\n';
const mhead = ['comparison', 'n', ...COLS.map((c) => c[0]), 'iterations (fast / slow)'];
text += pad([mhead, ...methods.map((m) => [m.what, sizeName(m.n), ...COLS.map(([c]) => fmtX(m.speedup[c])),
  m.iterations ? `${m.iterations[m.fast]} / ${m.iterations[m.slow]} (${m.iterations.ratio.toFixed(1)}x fewer)` : '']) ]) + '\n';
const targets = methods.filter((m) => m.target).map((m) => ({
  target: `${m.what} >= ${m.target.ratio}x at n = ${sizeName(m.n)} (wasm-simd)`,
  measured: m.speedup['wasm-simd'], met: m.target.met }));
text += '\ntargets\n' + targets.map((t) => `  ${t.met ? 'MET    ' : 'NOT MET'} ${t.target}: ${fmtX(t.measured)}`).join('\n') + '\n';
process.stdout.write(text);

const outDir = path.join(B, 'bench');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, 'normalizers.json');
writeFileSync(outFile, JSON.stringify({ settings: opts, builds, rows: rows.map(({ text: _t, ...r }) => r), methods, targets, failures }, null, 2) + '\n');
console.log(`\nwrote ${path.relative(root, outFile)}`);
if (failures.length) {
  console.error(`\nbench: ${failures.length} failure(s):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
