#!/usr/bin/env node
// The papers' claims of issue 27 measured on the tiny model: each claim is
// one or more runs of the Experiments view (its state as a link, so a
// reader can open the same run in the playground or `softscope train
// --state`), repeated over seeds, reduced to a few measures; the result is
// docs/claims.json: per claim its paper, setup links, and each measure's
// mean ± sd over the seeds (and the per-seed values). The README's claims
// table is written from it by hand ("reproduced", "partly", "not
// reproduced" is a reading, not a computation).
//
// usage: node scripts/claims.js [--seeds 5] [--out docs/claims.json] [--only id,id] [--impl simd]
// One seed of every claim takes a few minutes on one core (the script
// prints each run's time).
import { writeFileSync } from 'node:fs';
import { createSoftscope } from '../wasm/api/index.js';
import { experiments } from '../wasm/views/experiments/index.js';
import { parse, stateEntries } from '../wasm/state/schema.js';
import REGISTRY from '../wasm/dist/registry.js';

const at = (run, n) => run.lengths.find((x) => x.n === n) ?? null;
const runOf = (d, name) => d.runs.find((r) => r.name === name);
const last = (d) => d.testN[d.testN.length - 1];
const quantAt = (run, quantizer, bits) => run.quant.find((q) => q.quantizer === quantizer && q.bits === bits)?.accuracy ?? null;
// the mean over heads and layers of a head measure
const headMean = (run, key) => (run.heads.length ? run.heads.reduce((a, h) => a + (h[key] ?? 0), 0) / run.heads.length : null);
// the share of attention weights that are exactly zero in the map's query rows (last row of each head, last layer)
function zeroShare(run) {
  const m = run.map;
  if (!m) return null;
  let zeros = 0, all = 0;
  const l = m.layers - 1;
  for (let h = 0; h < m.heads; h++) {
    const row = ((l * m.heads + h) * m.n + m.n - 1) * m.n;
    for (let j = 0; j < m.n; j++) { all += 1; if (m.maps[row + j] === 0) zeros += 1; }
  }
  return zeros / all;
}

/** The claims: id, ref (the issue's reference), papers (kernels whose registry entry names the paper), what the issue says, runs (name -> link), measures (runs' data -> { measure: number | null }). */
export const CLAIMS = [
  {
    id: 'dispersion',
    ref: '000#8', papers: ['adaptive_temperature'],
    claim: 'softmax attention disperses as n grows past the training length; adaptive temperature slows that',
    runs: { main: 'task=max_retrieval&normalizers=softmax,adaptive_temperature&quantizers=' },
    measures: ({ main: d }) => {
      const out = {};
      for (const name of ['softmax', 'adaptive_temperature']) {
        const r = runOf(d, name);
        out[`${name}.accuracy@${d.trainN[1]}`] = at(r, d.trainN[1])?.accuracy;
        out[`${name}.accuracy@${last(d)}`] = at(r, last(d))?.accuracy;
        out[`${name}.entropy@${d.trainN[1]}`] = at(r, d.trainN[1])?.entropy;
        out[`${name}.entropy@${last(d)}`] = at(r, last(d))?.entropy;
        out[`${name}.maxWeight@${last(d)}`] = at(r, last(d))?.maxWeight;
      }
      return out;
    },
  },
  {
    id: 'ssmax',
    ref: '000#28', papers: ['ssmax'],
    claim: 'SSMax keeps attention on the key at long contexts',
    runs: { main: 'task=kv_retrieval&normalizers=softmax,ssmax&quantizers=' },
    measures: ({ main: d }) => {
      const out = {};
      for (const name of ['softmax', 'ssmax']) {
        const r = runOf(d, name);
        out[`${name}.accuracy@${d.trainN[1]}`] = at(r, d.trainN[1])?.accuracy;
        out[`${name}.accuracy@1024`] = at(r, 1024)?.accuracy;
        out[`${name}.accuracy@${last(d)}`] = at(r, last(d))?.accuracy;
        out[`${name}.maxWeight@${last(d)}`] = at(r, last(d))?.maxWeight;
      }
      out['ssmax.s'] = runOf(d, 'ssmax').normParams.s;
      return out;
    },
  },
  {
    id: 'sinks',
    ref: '000#82', papers: ['softpick'],
    claim: 'softpick removes attention sinks',
    runs: { main: 'task=kv_or_none&normalizers=softmax,softpick&testMax=256&quantizers=' },
    measures: ({ main: d }) => {
      const out = {};
      for (const name of ['softmax', 'softpick']) {
        const r = runOf(d, name);
        out[`${name}.keyZeroWeight`] = headMean(r, 'sinkRate');
        out[`${name}.sinkHeads`] = r.heads.length ? r.heads.filter((h) => h.sink).length / r.heads.length : null;
        out[`${name}.accuracy@${d.trainN[1]}`] = at(r, d.trainN[1])?.accuracy;
      }
      return out;
    },
  },
  {
    id: 'sparse',
    ref: '000#24, 000#33', papers: ['sparsemax', 'entmax15'],
    claim: 'sparse normalizers give exact zeros and sharper retrieval',
    runs: { main: 'task=kv_retrieval&normalizers=softmax,sparsemax,entmax15&testMax=1024&quantizers=' },
    measures: ({ main: d }) => {
      const out = {};
      for (const name of ['softmax', 'sparsemax', 'entmax15']) {
        const r = runOf(d, name);
        out[`${name}.support/n@${d.trainN[1]}`] = at(r, d.trainN[1]) ? at(r, d.trainN[1]).support / d.trainN[1] : null;
        out[`${name}.support/n@${last(d)}`] = at(r, last(d)) ? at(r, last(d)).support / last(d) : null;
        out[`${name}.zeroShare@map`] = zeroShare(r);
        out[`${name}.maxWeight@${last(d)}`] = at(r, last(d))?.maxWeight;
        out[`${name}.accuracy@${last(d)}`] = at(r, last(d))?.accuracy;
      }
      return out;
    },
  },
  {
    id: 'adaround',
    ref: '003#79', papers: ['adaround'],
    claim: 'AdaRound loses less accuracy than rounding to nearest',
    runs: { main: 'task=max_retrieval&normalizers=softmax&testMax=16&quantizers=uniform,adaround' },
    measures: ({ main: d }) => {
      const r = runOf(d, 'softmax'), out = { 'float.accuracy': r.floatAccuracy };
      for (const b of [2, 3, 4]) {
        out[`uniform.accuracy@${b}bits`] = quantAt(r, 'uniform', b);
        out[`adaround.accuracy@${b}bits`] = quantAt(r, 'adaround', b);
      }
      return out;
    },
  },
  {
    id: 'optimizers',
    ref: null, papers: ['adam', 'sgd', 'lion'],
    claim: 'optimizers differ in how fast and how stably they train',
    runs: Object.fromEntries(['adam', 'sgd', 'lion'].map((o) => [o, `task=max_retrieval&normalizers=softmax&optimizer=${o}&testMax=16&quantizers=`])),
    measures: (ds) => {
      const out = {};
      for (const [o, d] of Object.entries(ds)) {
        const r = d.runs[0];
        out[`${o}.reached`] = r.reached; // null: not within the steps
        out[`${o}.diverged`] = r.diverged;
        out[`${o}.accuracy@${d.trainN[1]}`] = at(r, d.trainN[1])?.accuracy;
        out[`${o}.finalLoss`] = r.curve.loss[r.curve.loss.length - 1] ?? null;
      }
      return out;
    },
  },
];

const meanSd = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  if (!v.length) return { mean: null, sd: null, n: 0 };
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)) : 0;
  return { mean: m, sd, n: v.length };
};

/** One claim over the seeds: { id, ref, papers, claim, runs (links), seeds, measures: { name: { mean, sd, n, values } }, seconds }. */
export function runClaim(ss, c, seeds, log = () => {}) {
  const per = [];
  const t0 = performance.now();
  for (const seed of seeds) {
    const ds = {};
    for (const [name, link] of Object.entries(c.runs)) {
      const { state, notices } = parse(experiments.schema, stateEntries(`${link}&seed=${seed}`), ss);
      if (notices.length) throw new Error(`${c.id}.${name}: ${notices[0].key}: ${notices[0].reason}`);
      const t = performance.now(), cpu = process.cpuUsage();
      ds[name] = experiments.compute(ss, state);
      const used = process.cpuUsage(cpu);
      log(`${c.id} ${name} seed ${seed}: ${((performance.now() - t) / 1000).toFixed(1)} s (${((used.user + used.system) / 1e6).toFixed(1)} s of CPU)`);
    }
    per.push(c.measures(ds));
  }
  const names = [...new Set(per.flatMap((m) => Object.keys(m)))];
  const measures = Object.fromEntries(names.map((k) => {
    const values = per.map((m) => (Number.isFinite(m[k]) ? m[k] : null));
    return [k, { ...meanSd(values), values }];
  }));
  const papers = c.papers.map((k) => ss.kernel(k).paper);
  return { id: c.id, ref: c.ref, papers, claim: c.claim, runs: c.runs, seeds, measures, seconds: (performance.now() - t0) / 1000 };
}

async function main(argv) {
  const opt = { seeds: '5', out: 'docs/claims.json', impl: 'auto' };
  for (let i = 0; i < argv.length; i += 2) opt[argv[i].replace(/^--/, '')] = argv[i + 1];
  const n = Number(opt.seeds);
  if (!Number.isInteger(n) || n < 1 || n > 100) { console.error('claims: --seeds must be an integer in [1, 100]'); return 2; }
  const only = opt.only ? opt.only.split(',') : null;
  const unknown = only?.find((id) => !CLAIMS.some((c) => c.id === id));
  if (unknown) { console.error(`claims: unknown claim ${unknown} (${CLAIMS.map((c) => c.id).join(', ')})`); return 2; }
  const ss = await createSoftscope({ impl: opt.impl });
  const seeds = Array.from({ length: n }, (_, i) => i);
  const results = [];
  for (const c of CLAIMS.filter((x) => !only || only.includes(x.id))) {
    const r = runClaim(ss, c, seeds, (line) => console.error(line));
    results.push(r);
    for (const [k, m] of Object.entries(r.measures)) console.error(`  ${k}: ${m.mean === null ? '–' : `${m.mean.toPrecision(4)} ± ${m.sd.toPrecision(2)}`} (${m.n})`);
  }
  const out = { softscope: REGISTRY.version, build: ss.build, date: new Date().toISOString().slice(0, 10), claims: results };
  writeFileSync(opt.out, `${JSON.stringify(out, null, 1)}\n`);
  console.error(`wrote ${opt.out}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
