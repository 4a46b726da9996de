#!/usr/bin/env node
// Benchmarks of the decoding samplers (`make bench`, after the softmax and
// normalizer suites): top_k, top_p, min_p and gumbel_max over 32k, 128k and
// 256k LM-like logits (N(0, 2^2), seeded), one draw per call (the decoding
// step of an LLM), side by side in one process:
//   wasm-simd / wasm-scalar   ss.sample(kernel, x, { draws: 1, ... }) through
//                             the JS package (both wasm builds loaded at once)
//   js-sort                   the sort-based plain-JS sampler a user writes
//                             (plain-js-samplers.js)
// Times are microseconds per call (median of the trials, timing.js).
// Prints the table and the target (top_p at 256k >= 10x faster than js-sort),
// writes $B/bench/samplers.json.
//
// Env / args: B, DIST (where the wasm builds are), BENCH_QUICK=1 or --quick,
// --sizes n,...
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createSoftscope } from '../../wasm/api/index.js';
import { samplerJs, lmLogits } from './plain-js-samplers.js';
import { settings, timeCall } from './timing.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const B = path.resolve(root, process.env.B || 'build');
const DIST = path.resolve(root, process.env.DIST || 'wasm/dist');
const SIZES = [32768, 131072, 262144];
const KERNELS = [
  ['top_k', { k: 50 }],
  ['top_p', { p: 0.9 }],
  ['min_p', { min_p: 0.1 }],
  ['gumbel_max', {}],
];
const TARGET = { kernel: 'top_p', n: 262144, ratio: 10 };

const quick = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const si = process.argv.indexOf('--sizes');
const sizes = si > 0 ? process.argv[si + 1].split(',').map(Number) : SIZES;
const st = settings(quick);

const builds = {
  'wasm-simd': await createSoftscope({ wasm: readFileSync(path.join(DIST, 'softscope-simd.wasm')) }),
  'wasm-scalar': await createSoftscope({ wasm: readFileSync(path.join(DIST, 'softscope-scalar.wasm')) }),
};
const have = new Set(builds['wasm-simd'].kernels('sampler').map((k) => k.name));

const rows = [];
const us = (r, n) => (r ? r.ns_per_elem * n / 1000 : null);
for (const [kernel, params] of KERNELS) {
  if (!have.has(kernel)) { console.error(`run-samplers: "${kernel}" is not in this build; skipped`); continue; }
  for (const n of sizes) {
    const x = lmLogits(n, 7);
    const row = { kernel, n, params, us_per_call: {} };
    let seed = 0;
    for (const [label, ss] of Object.entries(builds)) {
      const buf = ss.alloc(n); // zero-copy input, as an application would keep it
      buf.array.set(x);
      row.us_per_call[label] = us(timeCall(() => ss.sample(kernel, buf, { ...params, seed: seed++, draws: 1 }), n, st), n);
      buf.free();
    }
    row.us_per_call['js-sort'] = us(timeCall(() => samplerJs[kernel](x, params), n, st), n);
    const c = row.us_per_call;
    row.speedup_vs_js = c['js-sort'] / c['wasm-simd'];
    row.simd_vs_scalar = c['wasm-scalar'] / c['wasm-simd'];
    rows.push(row);
    process.stderr.write(`  ${kernel} n=${n}: simd ${c['wasm-simd'].toFixed(1)} us, js ${c['js-sort'].toFixed(1)} us\n`);
  }
}

const fmt = (v) => (v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const head = ['kernel', 'n', 'wasm-simd us', 'wasm-scalar us', 'js-sort us', 'simd/scalar', 'vs js-sort'];
const table = [head, ...rows.map((r) => [r.kernel, String(r.n), fmt(r.us_per_call['wasm-simd']), fmt(r.us_per_call['wasm-scalar']),
  fmt(r.us_per_call['js-sort']), `${r.simd_vs_scalar.toFixed(2)}x`, `${r.speedup_vs_js.toFixed(1)}x`])];
const w = head.map((_, c) => Math.max(...table.map((r) => r[c].length)));
let text = `samplers: microseconds per call (one draw), LM-like logits N(0, 4), ${quick ? 'QUICK run' : 'full run'}\n\n`;
text += table.map((r) => r.map((v, c) => (c < 1 ? v.padEnd(w[c]) : v.padStart(w[c]))).join('  ')).join('\n') + '\n';
const t = rows.find((r) => r.kernel === TARGET.kernel && r.n === TARGET.n);
const target = { target: `${TARGET.kernel} over ${TARGET.n} logits >= ${TARGET.ratio}x faster than the sort-based plain JS`,
  measured: t?.speedup_vs_js ?? null, met: (t?.speedup_vs_js ?? 0) >= TARGET.ratio };
text += `\ntargets\n  ${target.met ? 'MET    ' : 'NOT MET'} ${target.target}: ${target.measured == null ? '—' : target.measured.toFixed(1) + 'x'}\n`;
process.stdout.write(text);

const outDir = path.join(B, 'bench');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, 'samplers.json');
writeFileSync(outFile, JSON.stringify({ settings: { quick, sizes, input: 'N(0, 2^2) seeded, lmLogits(n, 7)' }, rows, targets: [target] }, null, 2) + '\n');
console.log(`\nwrote ${path.relative(root, outFile)}`);
