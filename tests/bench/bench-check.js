#!/usr/bin/env node
// `make bench-check`: a quick run of the benchmark's key rows, compared with
// the committed baseline (tests/bench/baseline.json) by RATIOS only --
// relaxed build vs SIMD128 vs scalar vs each peer (PyTorch for the training
// step) and plain JS, measured
// side by side in the same run -- never by absolute times, which depend on
// the machine and its load. Fails (exit 1) when a ratio falls more than
// MARGIN below its baseline. Not part of `make test`.
//
// Usage: node tests/bench/bench-check.js [--update | --add] [--margin 0.3] [--families a,b]
//   --update: write the fresh ratios (the lower of two quick runs) as the new baseline.
//   --add: the same two runs, but only the ratios the baseline lacks (a new
//          table or column) are added; the baseline's ratios stay as they are.
//
// Rows are keyed by size, or by shape for the tables of shapes (rows:
// 4096x64 ...; sampler_rows: 32x131072). The run also prints the issue's
// targets as this quick run measures them (information: only the baseline
// decides).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BASELINE = path.join(here, 'baseline.json');
// A quick run on a shared 2-core machine moves ratios by up to ~15%; a real
// regression (losing relaxed_madd, a copy in a hot path) costs more than 30%.
const MARGIN = 0.3;
// Against a peer the margin is wider: onnxruntime's time (its own thread
// pool, native or wasm) moved its ratios by up to 3x between quick runs
// with nothing changed on our side, and a regression of ours also shows in
// the ratios to our other builds and plain JS, which keep MARGIN.
const PEERS = new Set(['tfjs', 'tfjs xnn', 'tfjs+dataSync', 'ort-web', 'ort-node', 'transformers', 'transformers k50', 'torch']);
const PEER_MARGIN = 0.6;
// The quick sizes, but medians of 5 rounds of 30 ms (after 40 ms of warm-up,
// as a full run) rather than 3 of 15:
// with 3, one slowed round on either side (onnxruntime's thread, a
// collection) moved peer ratios by 2-3x.
const ROUNDS = { rounds: 5, roundMs: 30, warmupMs: 40 };
const SUBSET = {
  families: ['normalizer', 'rows', 'sampler', 'sampler_rows', 'quantizer', 'optimizer', 'training', 'matmul'],
  kernels: ['softmax', 'log_softmax', 'two_pass_softmax', 'softmax_temperature', 'sparsemax', 'entmax15',
    'top_p', 'top_k', 'min_p', 'uniform', 'fp8_e4m3', 'adam', 'lion', 'step',
    // matmul: the products timed directly (dx is derived, the peak loop is no kernel)
    'forward', 'dw', 'backward'],
};

const args = process.argv.slice(2);
const update = args.includes('--update'), add = args.includes('--add');
// --families a,b: only those families of the subset (e.g. --add after adding a family)
const fi = args.indexOf('--families');
if (fi >= 0) SUBSET.families = SUBSET.families.filter((f) => args[fi + 1].split(',').includes(f));
const mi = args.indexOf('--margin');
const margin = mi >= 0 ? Number(args[mi + 1]) : MARGIN;

const { runBench } = await import('./bench.js');
const { formatTargets } = await import('../../scripts/bench/targets.js');

// ratio key "family kernel n: a/b" = time(b) / time(a): how many times a is faster
const ratios = {};
const PAIRS = [['relaxed', 'simd'], ['simd', 'scalar'], ['relaxed', 'js'], ['relaxed', 'tfjs'], ['relaxed', 'ort-web'],
  ['relaxed', 'ort-node'], ['relaxed', 'transformers'], ['relaxed', 'transformers k50'], ['relaxed', 'relaxed sort'],
  // the API's end to end (issue 26: { out }, { rows })
  ['api', 'tfjs+dataSync'], ['api out', 'tfjs+dataSync'], ['api', 'transformers'],
  // issue 27: the training step vs PyTorch eager (a child process, the same clock)
  ['relaxed', 'torch'], ['simd', 'torch'],
  // issue 35: the matmul vs XNNPACK's product (tf.matMul without transposes)
  ['relaxed', 'tfjs xnn'], ['simd', 'tfjs xnn']];
// --update keeps each ratio's lower value over two quick runs: a round that a
// collection or a neighbour's burst slowed down on one side must not set a
// floor that later runs cannot reach.
let result;
for (let run = 0; run < (update || add ? 2 : 1); run++) {
  result = await runBench({ quick: true, clock: 'cpu', peers: true, out: path.join(process.env.B || 'build', 'bench-check'), settings: ROUNDS, ...SUBSET });
  for (const fam of Object.values(result.families))
    for (const r of fam.rows)
      for (const [a, b] of PAIRS) {
        const ta = r.results[a]?.ns_per_elem, tb = r.results[b]?.ns_per_elem;
        const k = `${fam.family} ${r.kernel} ${r.shape ?? r.n}: ${a} vs ${b}`;
        if (ta && tb) ratios[k] = Math.min(ratios[k] ?? Infinity, +(tb / ta).toFixed(4));
      }
}

if (update) {
  writeFileSync(BASELINE, JSON.stringify({ note: 'ratios of quick `make bench-check` runs, the lower of two (time of b / time of a); tests/bench/bench-check.js --update', machine: result.machine, margin, ratios }, null, 1) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), BASELINE)} (${Object.keys(ratios).length} ratios)`);
  process.exit(0);
}

const base = JSON.parse(readFileSync(BASELINE, 'utf8'));
if (add) {
  const fresh = Object.fromEntries(Object.entries(ratios).filter(([k]) => !(k in base.ratios)));
  const m = result.machine;
  base.added = [...(base.added ?? []), { date: m.date, git: m.git, loadavg: m.loadavg, ratios: Object.keys(fresh).length }];
  base.ratios = { ...base.ratios, ...fresh };
  writeFileSync(BASELINE, JSON.stringify(base, null, 1) + '\n');
  console.log(`added ${Object.keys(fresh).length} ratios to ${path.relative(process.cwd(), BASELINE)} (the lower of two quick runs; the others kept)`);
  process.exit(0);
}
let fails = 0, compared = 0;
for (const [k, b] of Object.entries(base.ratios)) {
  const v = ratios[k];
  if (v == null) {
    console.log(`missing  ${k} (baseline ${b}x): not measured in this run`);
    continue;
  }
  compared++;
  const m = PEERS.has(k.split(' vs ').pop()) ? Math.max(margin, PEER_MARGIN) : margin;
  const ok = v >= b * (1 - m);
  if (!ok) fails++;
  console.log(`${ok ? 'ok      ' : 'DROPPED '} ${k}: ${v.toFixed(2)}x (baseline ${b.toFixed(2)}x, floor ${(b * (1 - m)).toFixed(2)}x)`);
}
const unbased = Object.keys(ratios).filter((k) => !(k in base.ratios));
for (const k of unbased) console.log(`new      ${k}: ${ratios[k].toFixed(2)}x (not in the baseline: bench-check.js --add)`);
console.log(`\n${formatTargets(result.targets)}(the issue's targets in this quick run: information, not checked)`);
console.log(`\nbench-check: ${compared} ratios compared with ${path.relative(process.cwd(), BASELINE)}, margin ${margin * 100}% (vs peers ${Math.max(margin, PEER_MARGIN) * 100}%): ${fails} dropped`);
process.exitCode = fails ? 1 : 0;
