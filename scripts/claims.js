#!/usr/bin/env node
// The papers' claims of issue 27 measured on the tiny model: each claim is
// one or more runs of the Experiments view (its state as a link, so a
// reader can open the same run in the playground or `softscope train
// --state`), repeated over seeds, reduced to a few measures; the result is
// docs/claims.json: per claim its paper, setup links, each measure's mean ±
// sd over the seeds (and the per-seed values), its tests and its verdict.
//
// The verdict rule, fixed before the runs and applied by code (verdict()):
// each claim states its tests -- a paired difference of two measures (or a
// measure against a fixed value) and the direction the paper claims. Over
// the seeds, the difference's mean and its two-sided 95 % interval (mean ±
// t(0.975, n - 1) sd / sqrt(n)): a test "holds" when the interval lies on
// the claimed side of 0, is "against" when it lies on the other side (0
// included), and is "unclear" when it straddles 0. A claim is "reproduced" when every test
// holds, "not reproduced" when none does, "partly" otherwise. One seed has
// no interval: its tests read "one seed" and the claim's verdict says so.
// Language-model claims (scripts/claims-language.js) run the language model
// of analysis/language.js; the others the Experiments view.
//
// usage: node scripts/claims.js [--seeds 10 | --seeds A..B] [--out docs/claims.json] [--only id,id] [--impl simd]
// One seed of every claim takes a few minutes on one core (the script
// prints each run's time).
import { writeFileSync, readFileSync } from 'node:fs';
import { LANGUAGE_CLAIMS } from './claims-language.js';
import { createSoftscope } from '../wasm/api/index.js';
import { experiments } from '../wasm/views/experiments/index.js';
import { experimentOptions } from '../wasm/views/experiments/model.js';
import { startExperiment } from '../wasm/analysis/experiments.js';
import { parse, stateEntries } from '../wasm/state/schema.js';
import REGISTRY from '../wasm/dist/registry.js';

const at = (run, n) => run.lengths.find((x) => x.n === n) ?? null;
// { 'name.key@n': value } of each named run's test at each (key, n); n 'train' / 'last': the training / longest test length
function lengthMeasures(d, names, specs) {
  const out = {};
  for (const name of names) {
    const r = d.runs.find((x) => x.name === name);
    for (const [key, which] of specs) {
      const n = which === 'train' ? d.trainN[1] : which === 'last' ? d.testN[d.testN.length - 1] : which;
      const x = at(r, n);
      out[`${name}.${key}@${n}`] = !x ? null : key === 'support/n' ? x.support / n : x[key];
    }
  }
  return out;
}
const runOf = (d, name) => d.runs.find((r) => r.name === name);
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

// Run `from`'s trained weights through run `to`'s model (the same shapes: a normalizer without trained parameters)
// at test lengths ns, on the test examples every run is tested on: { 'from+to.accuracy@n': accuracy }.
function swapped(exp, from, to, ns, examples) {
  const a = exp.runs.find((r) => r.name === from).model, b = exp.runs.find((r) => r.name === to).model;
  if (a.paramCount !== b.paramCount) throw new Error(`claims: ${to} cannot take ${from}'s weights (other parameters)`);
  const own = b.params();
  try {
    b.setParams(a.params());
    return Object.fromEntries(ns.map((n) => [`${from}+${to}.accuracy@${n}`, b.evaluate({ n, examples }).accuracy]));
  } finally {
    b.setParams(own);
  }
}

/** The claims: id, ref (the issue's reference), papers (kernels whose registry entry names the paper), what the issue says, runs (name -> link), inference (optional, name -> (run, options) -> measures of the trained models, kept in the run's data as `inference`), measures (runs' data -> { measure: number | null }). */
export const CLAIMS = [
  {
    id: 'dispersion',
    ref: '000#8', papers: ['adaptive_temperature'],
    claim: 'softmax attention disperses as n grows past the training length; adaptive temperature slows that',
    runs: { main: 'task=max_retrieval&normalizers=softmax,adaptive_temperature&quantizers=' },
    // the paper's own setting: adaptive temperature applied at inference only, to the softmax-trained weights
    inference: { main: (exp, o) => swapped(exp, 'softmax', 'adaptive_temperature', [256, 4096], o.examples) },
    measures: ({ main: d }) => ({
      ...lengthMeasures(d, ['softmax', 'adaptive_temperature'],
        [['accuracy', 'train'], ['accuracy', 256], ['accuracy', 'last'], ['entropy', 'train'], ['entropy', 'last'], ['maxWeight', 'last']]),
      ...d.inference,
    }),
    tests: [
      { what: 'softmax disperses: accuracy at n 16 above that at n 4096', a: 'softmax.accuracy@16', b: 'softmax.accuracy@4096', side: '>' },
      ...[256, 4096].flatMap((n) => [
        { what: `adaptive temperature trained in: accuracy at n ${n} above softmax's`, a: `adaptive_temperature.accuracy@${n}`, b: `softmax.accuracy@${n}`, side: '>' },
        { what: `adaptive temperature at inference only (softmax's weights): accuracy at n ${n} above softmax's`, a: `softmax+adaptive_temperature.accuracy@${n}`, b: `softmax.accuracy@${n}`, side: '>' },
      ]),
    ],
  },
  {
    id: 'ssmax',
    ref: '000#28', papers: ['ssmax'],
    claim: 'SSMax keeps attention on the key at long contexts',
    runs: { main: 'task=kv_retrieval&normalizers=softmax,ssmax&quantizers=' },
    measures: ({ main: d }) => ({
      ...lengthMeasures(d, ['softmax', 'ssmax'], [['accuracy', 'train'], ['accuracy', 1024], ['accuracy', 'last'], ['maxWeight', 'last']]),
      'ssmax.s': runOf(d, 'ssmax').normParams.s,
    }),
    tests: [
      { what: 'SSMax answers better at n 4096', a: 'ssmax.accuracy@4096', b: 'softmax.accuracy@4096', side: '>' },
      { what: 'SSMax puts more weight on the key at n 4096', a: 'ssmax.maxWeight@4096', b: 'softmax.maxWeight@4096', side: '>' },
    ],
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
        out[`${name}.kurtosis`] = headMean(r, 'kurtosis');
      }
      return { ...out, ...lengthMeasures(d, ['softmax', 'softpick'], [['accuracy', 'train']]) };
    },
    tests: [
      { what: 'softmax forms sink heads (share of heads above 0.3 on BOS)', a: 'softmax.sinkHeads', value: 0, side: '>' },
      { what: 'softpick puts less weight on BOS than softmax', a: 'softmax.keyZeroWeight', b: 'softpick.keyZeroWeight', side: '>' },
      { what: 'softpick\'s head outputs have a lower kurtosis', a: 'softmax.kurtosis', b: 'softpick.kurtosis', side: '>' },
    ],
  },
  {
    id: 'sparse',
    ref: '000#24, 000#33', papers: ['sparsemax', 'entmax15'],
    claim: 'sparse normalizers give exact zeros and sharper retrieval',
    runs: { main: 'task=kv_retrieval&normalizers=softmax,sparsemax,entmax15&testMax=1024&quantizers=' },
    measures: ({ main: d }) => {
      const names = ['softmax', 'sparsemax', 'entmax15'];
      const out = lengthMeasures(d, names, [['support/n', 'train'], ['support/n', 'last'], ['maxWeight', 'last'], ['accuracy', 'last']]);
      for (const name of names) out[`${name}.zeroShare@map`] = zeroShare(runOf(d, name));
      return out;
    },
    tests: [
      { what: 'sparsemax keeps fewer keys than softmax at n 1024', a: 'softmax.support/n@1024', b: 'sparsemax.support/n@1024', side: '>' },
      { what: 'entmax15 keeps fewer keys than softmax at n 1024', a: 'softmax.support/n@1024', b: 'entmax15.support/n@1024', side: '>' },
      { what: 'sparsemax puts more weight on the key at n 1024', a: 'sparsemax.maxWeight@1024', b: 'softmax.maxWeight@1024', side: '>' },
      { what: 'entmax15 puts more weight on the key at n 1024', a: 'entmax15.maxWeight@1024', b: 'softmax.maxWeight@1024', side: '>' },
    ],
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
    tests: [2, 3, 4].map((b) => ({ what: `AdaRound above rounding to nearest at ${b} bits`, a: `adaround.accuracy@${b}bits`, b: `uniform.accuracy@${b}bits`, side: '>' })),
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
        out[`${o}.accuracy@${d.trainN[1]}`] = at(r, d.trainN[1])?.accuracy ?? null;
        out[`${o}.finalLoss`] = r.curve.loss[r.curve.loss.length - 1] ?? null;
      }
      return out;
    },
    tests: [
      { what: 'Adam reaches 95 % in fewer steps than SGD', a: 'sgd.reached', b: 'adam.reached', side: '>' },
      { what: 'Lion reaches 95 % in fewer steps than SGD', a: 'sgd.reached', b: 'lion.reached', side: '>' },
    ],
  },
  ...LANGUAGE_CLAIMS,
];

// t(0.975, df) for df = 1 .. 30, then the normal's 1.96 (two-sided 95 %).
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12,
  2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
export const RULE = 'per test, the paired difference over the seeds: mean and two-sided 95 % t interval; holds when the interval lies on the claimed side of 0, against when it lies on the other side (0 included), unclear when it straddles 0 (one seed: no interval); a claim is reproduced when every test holds, not reproduced when none does, partly otherwise';

/** A test's result over per-seed measures (per: [{ measure: value }]): { ...test, diff: { mean, lo, hi, n, values }, result }. */
export function testResult(t, per) {
  return judge(t, per.map((m) => {
    const a = m[t.a], b = t.b === undefined ? t.value : m[t.b];
    return Number.isFinite(a) && Number.isFinite(b) ? a - b : null;
  }));
}

/** The rule on a test's per-seed differences (null: no value that seed). */
export function judge(t, values) {
  const v = values.filter((x) => x !== null), n = v.length;
  if (!n) return { ...t, diff: { mean: null, lo: null, hi: null, n, values }, result: 'no value' };
  const mean = v.reduce((x, y) => x + y, 0) / n;
  if (n === 1) return { ...t, diff: { mean, lo: null, hi: null, n, values }, result: 'one seed' };
  const sd = Math.sqrt(v.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1));
  const half = (T975[n - 2] ?? 1.96) * sd / Math.sqrt(n);
  const [lo, hi] = [mean - half, mean + half];
  const sign = t.side === '>' ? 1 : -1;
  const [near, far] = sign > 0 ? [lo, hi] : [-hi, -lo]; // the interval as seen from the claimed side
  // holds: the whole interval on the claimed side of 0; against: on the other side, 0 included (an effect of exactly 0
  // with no spread, e.g. no sink head in any seed, is no effect)
  const result = near > 0 ? 'holds' : far <= 0 ? 'against' : 'unclear';
  return { ...t, diff: { mean, lo, hi, n, values }, result };
}

/** The claim's verdict from its tests' results (RULE). */
export function verdict(tests) {
  if (!tests.length) return 'no test';
  if (tests.some((t) => t.result === 'one seed')) return `one seed: ${tests.every((t) => t.diff.mean !== null && (t.side === '>' ? t.diff.mean > 0 : t.diff.mean < 0)) ? 'in the claimed direction' : 'not in the claimed direction'}`;
  const holds = tests.filter((t) => t.result === 'holds').length;
  return holds === tests.length ? 'reproduced' : holds === 0 ? 'not reproduced' : 'partly';
}

const meanSd = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  if (!v.length) return { mean: null, sd: null, n: 0 };
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)) : 0;
  return { mean: m, sd, n: v.length };
};

/** One claim over the seeds: { id, ref, papers, claim, runs (links), seeds, measures: { name: { mean, sd, n, values } }, seconds }. */
export function runClaim(ss, c, allSeeds, log = () => {}) {
  const per = [];
  const seeds = c.seeds ?? allSeeds; // a claim too costly for many seeds names its own
  const t0 = performance.now();
  for (const seed of seeds) {
    if (c.compute) { // a language-model claim: its own runs
      per.push(c.measures(c.compute(ss, seed, log)));
      continue;
    }
    const ds = {};
    for (const [name, link] of Object.entries(c.runs)) {
      const { state, notices } = parse(experiments.schema, stateEntries(`${link}&seed=${seed}`), ss);
      if (notices.length) throw new Error(`${c.id}.${name}: ${notices[0].key}: ${notices[0].reason}`);
      const t = performance.now(), cpu = process.cpuUsage();
      // the view's run (experiments.compute), its trained models kept until the claim's inference measures are taken
      const o = experimentOptions(ss, state), exp = startExperiment(ss, o);
      try {
        while (exp.step(Infinity));
        ds[name] = exp.data();
        if (c.inference?.[name]) ds[name].inference = c.inference[name](exp, o);
      } finally {
        exp.stop();
      }
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
  const papers = c.papers.map((k) => (typeof k === 'string' && !k.includes(' ') ? ss.kernel(k).paper : k));
  const tests = (c.tests ?? []).map((t) => testResult(t, per));
  return { id: c.id, ref: c.ref, papers, claim: c.claim, runs: c.runs, seeds, fixedSeeds: !!c.seeds, measures, tests, verdict: verdict(tests), rule: RULE,
    seconds: (performance.now() - t0) / 1000 };
}

async function main(argv) {
  const opt = { seeds: '10', out: 'docs/claims.json', impl: 'auto' };
  if (argv[0] === '--verdicts') { // the rule applied again to a file's stored per-seed differences (no runs)
    const file = argv[1] ?? opt.out, doc = JSON.parse(readFileSync(file, 'utf8'));
    for (const c of doc.claims) {
      c.tests = c.tests.map(({ diff, result: _r, ...t }) => judge(t, diff.values));
      c.verdict = verdict(c.tests);
      c.rule = RULE;
    }
    doc.rule = RULE;
    writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
    for (const c of doc.claims) console.error(`${c.id}: ${c.verdict}`);
    return 0;
  }
  for (let i = 0; i < argv.length; i += 2) opt[argv[i].replace(/^--/, '')] = argv[i + 1];
  const range = /^(\d+)\.\.(\d+)$/.exec(opt.seeds ?? '');
  const [first, last] = range ? [Number(range[1]), Number(range[2])] : [0, Number(opt.seeds) - 1];
  if (!Number.isInteger(first) || !Number.isInteger(last) || first > last || last - first >= 100 || last > 2 ** 31) {
    console.error('claims: --seeds must be a count N in [1, 100] (seeds 0 .. N-1) or a range A..B of at most 100 seeds'); return 2;
  }
  const only = opt.only ? opt.only.split(',') : null;
  const unknown = only?.find((id) => !CLAIMS.some((c) => c.id === id));
  if (unknown) { console.error(`claims: unknown claim ${unknown} (${CLAIMS.map((c) => c.id).join(', ')})`); return 2; }
  const ss = await createSoftscope({ impl: opt.impl });
  const seeds = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const results = [];
  for (const c of CLAIMS.filter((x) => !only || only.includes(x.id))) {
    const r = runClaim(ss, c, seeds, (line) => console.error(line));
    results.push(r);
    for (const [k, m] of Object.entries(r.measures)) console.error(`  ${k}: ${m.mean === null ? '–' : `${m.mean.toPrecision(4)} ± ${m.sd.toPrecision(2)}`} (${m.n})`);
    for (const t of r.tests) console.error(`  test ${t.what}: ${t.result} (${t.diff.mean === null ? '–' : t.diff.mean.toPrecision(3)}${t.diff.lo === null ? '' : ` [${t.diff.lo.toPrecision(3)}, ${t.diff.hi.toPrecision(3)}]`})`);
    console.error(`  verdict: ${r.verdict}`);
  }
  // a run of some claims (--only) keeps the others of the file
  let kept = [];
  if (only) try { kept = JSON.parse(readFileSync(opt.out, 'utf8')).claims.filter((c) => !only.includes(c.id)); } catch { kept = []; }
  const order = (c) => CLAIMS.findIndex((x) => x.id === c.id);
  const out = { softscope: REGISTRY.version, build: ss.build, date: new Date().toISOString().slice(0, 10), rule: RULE,
    claims: [...kept, ...results].sort((a, b) => order(a) - order(b)) };
  writeFileSync(opt.out, `${JSON.stringify(out, null, 1)}\n`);
  console.error(`wrote ${opt.out}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
