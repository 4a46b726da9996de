// The Experiments view's numbers: the state as the options of
// analysis/experiments.js (the training run the CLI shares), run as the
// view's stepper. data(): plain numbers, JSON-safe (null for what is not a
// number), of the shape data-shape.js declares.
import { startExperiment, testLengths, BITS, TRAIN_MIN } from '../../analysis/experiments.js';
import { kernelParams } from '../../analysis/params.js';
import { fmt } from '../../figures/format.js';
import { TRAIN_DEFAULTS, schema } from './schema.js';
import { runKey } from '../../state/run-key.js';
import { finish } from '../stepper.js';

/** The analysis options of a state (analysis/experiments.js startExperiment). */
export function experimentOptions(ss, s) {
  return {
    task: s.task, values: s.values, keys: s.keys,
    normalizers: s.normalizers.map((name) => ({ name, params: kernelParams(ss.kernel(name, 'normalizer'), s.normParams, { scoped: true }) })),
    trainNorm: s.trainNorm, d: s.d, heads: s.heads, layers: s.layers, mlp: s.mlp, positions: s.positions,
    optimizer: s.optimizer,
    optimizerParams: kernelParams(ss.kernel(s.optimizer, 'optimizer'), s.params, { scoped: true, defaults: TRAIN_DEFAULTS[s.optimizer] }),
    schedule: s.schedule, warmup: s.warmup, steps: s.steps, batch: s.batch,
    trainN: [TRAIN_MIN, s.trainMax], testN: testLengths(s.trainMax, s.testMax), examples: s.examples, mapN: s.mapN,
    quantizers: s.quantizers, bits: BITS, seed: s.seed, sel: selIndex(s),
  };
}

const selIndex = (s) => Math.max(0, s.sel === null ? 0 : s.normalizers.indexOf(s.sel));

/**
 * The experiment as a stepper (views/stepper.js): step(budgetMs) trains
 * round robin, then tests, maps and quantizes (analysis/experiments.js);
 * update(state) takes a state of the same run key in place (a new `sel`, the
 * schema's display field; any other key changes the numbers: a new run); stop() frees the models.
 */
export function start(ss, s) {
  const run = startExperiment(ss, experimentOptions(ss, s));
  let cur = s;
  return {
    step: (budgetMs) => run.step(budgetMs),
    data: () => ({ ...run.data(), sel: selIndex(cur) }),
    update(t) {
      if (runKey(schema, t) !== runKey(schema, cur)) return false;
      cur = t;
      return true;
    },
    stop: () => run.stop(),
  };
}

/** Headless: the experiment run to its end. */
export const compute = (ss, s) => finish(start(ss, s));

const cell = (v) => (v === null || v === undefined ? '' : v);

/** CSV rows: the curves, the test at each length, the quantisation panel (kind: curve | test | quant). */
export function table(d) {
  const columns = ['kind', 'normalizer', 'step', 'n', 'quantizer', 'bits', 'loss', 'accuracy', 'entropy', 'maxWeight', 'support'];
  const rows = [];
  for (const r of d.runs) {
    r.curve.step.forEach((step, i) => rows.push(['curve', r.name, step, '', '', '', cell(r.curve.loss[i]), cell(r.curve.accuracy[i]), '', '', '']));
    for (const x of r.lengths) rows.push(['test', r.name, r.step, x.n, '', '', cell(x.loss), cell(x.accuracy), cell(x.entropy), cell(x.maxWeight), cell(x.support)]);
    for (const q of r.quant) rows.push(['quant', r.name, r.step, d.trainN[1], q.quantizer, q.bits, '', cell(q.accuracy), '', '', '']);
  }
  return { columns, rows };
}

/** One sentence: accuracy at the training length and at the longest test length, per normalizer. */
export function describe(d) {
  const last = d.testN[d.testN.length - 1];
  const pct = (v) => (v === null || v === undefined ? '–' : `${fmt(100 * v, 3)} %`);
  const parts = d.runs.map((r) => {
    if (r.error) return `${r.name} stopped: ${r.error}`;
    if (r.diverged !== null) return `${r.name} diverged at step ${r.diverged}`;
    const at = (n) => r.lengths.find((x) => x.n === n)?.accuracy;
    return `${r.name} ${pct(at(d.trainN[1]))} at n = ${d.trainN[1]}${last !== d.trainN[1] ? `, ${pct(at(last))} at n = ${last}` : ''}`;
  });
  return `${d.task}, ${d.steps} steps (${d.phase}): ${parts.join('; ')}`;
}
