// The experiments of issue 27: one tiny attention model per normalizer
// (createModel, api/model.js: the model, its training step, its tests are
// C), trained side by side on the same task, seed and batches, then tested
// at lengths past the training length, its attention mapped and measured
// head by head, and its weights quantized. The Experiments view's stepper,
// `softscope train` and scripts/claims.js run this one module.
//
// The run is a stepper (views/stepper.js's protocol): step(budgetMs) does
// units of work until the budget is spent, in this order:
//   train     every normalizer SLICE steps in turn (round robin) until each
//             has run `steps` or diverged (loss NaN/Inf: it stops, marked
//             with its step; the others go on)
//   test      one (run, n) per unit: accuracy, loss and the last layer's
//             query-row entropy, max weight and support per head
//             (model.evaluate), then each run's attention map of one test
//             example at mapN and its head measures
//   quantize  (when quantizers are given) one (run, quantizer, bits) per unit
//   done
// data() is plain JSON (no NaN: null), in the shape of the view's design
// (/wasm/views/experiments/model.js documents it).
import { createModel } from '../api/model.js';
import { quantizedAccuracy, ptqBits, PTQ_SAMPLES } from './ptq.js';
import { ADAROUND } from './adaround.js';

/** Training-batch accuracy that counts as "reached" (the 95 %). */
export const REACHED = 0.95;
/** Steps a normalizer trains before the next one takes its turn. */
export const SLICE = 10;
/** The curves keep at most about this many points (windows of steps). */
export const CURVE_POINTS = 400;
/** The shortest training example (trainN = [TRAIN_MIN, trainMax]). */
export const TRAIN_MIN = 4;
/** A head is a sink when its mean weight on key 0 exceeds this (Gu et al. 2025). */
export const SINK_EPS = 0.3;
/** AdaRound's cost in items per parameter, sample and 1024 / d² (progress weights; see unitCost). */
const ADAROUND_ITEMS = 0.27;
/** Bit widths of the quantisation panel. */
export const BITS = [2, 3, 4, 5, 6, 7, 8];

/** The test lengths: trainMax, then the powers of two above it up to testMax. */
export function testLengths(trainMax, testMax) {
  const out = [trainMax];
  let p = 1;
  while (p <= trainMax) p *= 2;
  for (; p <= testMax; p *= 2) out.push(p);
  return out;
}

/** Steps per curve point: max(1, ceil(steps / CURVE_POINTS)). */
export const curveEvery = (steps) => Math.max(1, Math.ceil(steps / CURVE_POINTS));

/** The number, or null where it is not finite (JSON has no NaN). */
const fin = (v) => (Number.isFinite(v) ? v : null);
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

// The model options of one run (ModelOptions of api/index.d.ts).
function modelOptions(ss, o, norm) {
  const k = ss.kernel(norm.name, 'normalizer');
  const maxN = Math.max(o.trainN[1], ...o.testN, o.mapN);
  return {
    task: o.task, values: o.values, keys: o.keys, d: o.d, heads: o.heads, layers: o.layers, mlp: o.mlp, positions: o.positions,
    // learned positions have rows up to the longest test (past trainMax they stay at their init: they cannot extrapolate)
    maxN: o.positions === 'learned' ? maxN : o.trainN[1],
    normalizer: norm.name, normalizerParams: norm.params ?? {},
    trainNormParams: !!o.trainNorm && k.has_param_backward && k.params.some((p) => p.type === 'float'),
    optimizer: o.optimizer, optimizerParams: o.optimizerParams ?? {}, schedule: o.schedule, steps: o.steps, warmup: o.warmup ?? 0,
    batch: o.batch, trainN: o.trainN, seed: o.seed,
  };
}

// The normalizer's parameters as the model holds them: the given ones, the
// trained (float) ones read from each layer's norm_params tensor.
function normParamsOf(ss, run) {
  const k = ss.kernel(run.name, 'normalizer');
  const given = Object.fromEntries(k.params.map((p) => [p.name, run.params?.[p.name] ?? p.default]));
  const byLayer = [];
  if (run.model.config.trainNormParams) {
    const arena = run.model.params();
    const floats = k.params.filter((p) => p.type === 'float');
    for (const t of run.model.tensors().filter((x) => x.kind === 'normalizer'))
      byLayer[t.layer] = Object.fromEntries(floats.map((p, j) => [p.name, fin(arena[t.offset + j])]));
  }
  return { normParams: { ...given, ...(byLayer[0] ?? {}) }, normParamsByLayer: byLayer.length ? byLayer : null };
}

/**
 * The experiment as a stepper: { step(budgetMs), data(), stop(), runs }.
 * options (all required; the view's model.js fills them from its state):
 * { task, values, keys, normalizers: [{ name, params }], trainNorm, d, heads,
 *   layers, mlp, positions, optimizer, optimizerParams, schedule, warmup,
 *   steps, batch, trainN: [lo, hi], testN: [n...], examples, mapN,
 *   quantizers: [name...], bits: [b...], seed }.
 * Models are made here (an Error naming the option when one is out of
 * range) and freed by stop().
 */
export function startExperiment(ss, o) {
  const clock = () => performance.now();
  const runs = [];
  try {
    for (const norm of o.normalizers) {
      const model = createModel(ss, modelOptions(ss, o, norm));
      runs.push({ name: norm.name, params: norm.params ?? {}, model, step: 0, diverged: null, reached: null,
        curve: { step: [], loss: [], accuracy: [] }, win: { n: 0, loss: 0, accuracy: 0 },
        lengths: [], map: null, heads: [], quant: [], floatAccuracy: null, error: null });
    }
  } catch (e) {
    for (const r of runs) r.model.free();
    throw e;
  }
  const first = { ...runs[0].model.config, paramCount: runs[0].model.paramCount };
  const every = curveEvery(o.steps);
  const quantizers = o.quantizers ?? [];
  const bits = o.bits ?? BITS;
  // (quantizer, bits) pairs of the panel: the widths in `bits` at which each quantizer applies (analysis/ptq.js)
  const quantPlan = quantizers.flatMap((q) => ptqBits(ss, q).filter((b) => bits.includes(b)).map((b) => ({ quantizer: q, bits: b })));

  // Work in units of example-items (a training step: batch x mean n; a test: examples x n).
  const trainCost = o.batch * (o.trainN[0] + o.trainN[1]) / 2;
  const testCost = o.examples * o.testN.reduce((a, n) => a + n, 0) + o.mapN * o.mapN + o.examples * o.trainN[1];
  // a quantized test is one evaluation; AdaRound's optimisation (its registry default of 1000 iterations on
  // PTQ_SAMPLES rows per matrix) costs about ADAROUND_ITEMS x params x samples x 1024 / d^2 items (measured in Node
  // at d = 32 and 64: 440 and 1660 ms against 1.2 us per item of a forward at d = 32)
  const unitCost = (q) => o.examples * o.trainN[1] + (q.quantizer === ADAROUND ? ADAROUND_ITEMS * first.paramCount * PTQ_SAMPLES * 1024 / (o.d * o.d) : 0);
  const quantCost = quantPlan.reduce((a, q) => a + unitCost(q), 0);
  const total = runs.length * (o.steps * trainCost + testCost + quantCost);
  let done = 0;
  let phase = 'train';

  function flush(r) {
    const w = r.win;
    if (!w.n) return;
    const acc = w.accuracy / w.n;
    r.curve.step.push(r.step);
    r.curve.loss.push(w.loss / w.n);
    r.curve.accuracy.push(acc);
    if (r.reached === null && acc >= REACHED) r.reached = r.step;
    r.win = { n: 0, loss: 0, accuracy: 0 };
  }

  // k training steps of run r (or fewer: its last step, or a divergence).
  function train(r, k) {
    for (let i = 0; i < k && r.step < o.steps; i++) {
      const s = r.model.step(1);
      if (s.diverged) {
        flush(r);
        r.diverged = s.step;
        done += (o.steps - r.step) * trainCost + testCost + quantCost; // the work it will not do
        return;
      }
      r.step = s.step;
      r.win.n += 1;
      r.win.loss += s.loss;
      r.win.accuracy += s.accuracy;
      if (r.win.n === every || r.step === o.steps) flush(r);
      done += trainCost;
    }
  }

  function test(r, n) {
    const e = r.model.evaluate({ n, examples: o.examples });
    r.lengths.push({
      n, accuracy: fin(e.accuracy), loss: fin(e.loss),
      entropy: fin(mean(e.entropy)), maxWeight: fin(mean(e.maxWeight)), support: fin(mean(e.support)),
      entropyHeads: e.entropy.map(fin), maxWeightHeads: e.maxWeight.map(fin), supportHeads: e.support.map(fin),
    });
    if (n === o.trainN[1]) r.floatAccuracy = fin(e.accuracy);
    done += o.examples * n;
  }

  function mapAndHeads(r) {
    const m = r.model.attentionMap({ n: o.mapN });
    r.map = { n: m.n, layers: m.layers, heads: m.heads, maps: Array.from(m.maps, fin) };
    r.heads = headMeasures(ss, r.model, { n: o.trainN[1], examples: Math.min(o.examples, HEAD_EXAMPLES), seed: o.seed });
    done += o.mapN * o.mapN + o.examples * o.trainN[1];
  }

  // A unit of run r's work; an Error (a normalizer the model rejects at some n) stops that run only, with its message.
  function guarded(r, unit) {
    try {
      unit();
    } catch (e) {
      if (e?.name === 'SoftscopeTrapError' || !(typeof e?.code === 'string' && e.code.startsWith('SS_'))) throw e;
      r.error = e.message;
      done += (o.steps - r.step) * trainCost + testCost + quantCost;
    }
  }
  const live = (r) => r.diverged === null && r.error === null;

  // The model's accuracy at trainMax on its test set with its weights quantized (the float weights are restored).
  function quantize(r, q) {
    const e = quantizedAccuracy(ss, r.model, { quantizer: q.quantizer, bits: q.bits }, { n: o.trainN[1], examples: o.examples });
    r.quant.push({ quantizer: q.quantizer, bits: q.bits, accuracy: fin(e.accuracy) });
    done += unitCost(q);
  }

  function* work() {
    const training = (r) => live(r) && r.step < o.steps;
    while (runs.some(training)) {
      for (const r of runs) {
        if (!training(r)) continue;
        guarded(r, () => train(r, SLICE));
        yield;
      }
    }
    for (const r of runs) Object.assign(r, normParamsOf(ss, r));
    phase = 'test';
    for (const r of runs) {
      for (const n of o.testN) {
        if (!live(r)) break;
        guarded(r, () => test(r, n));
        yield;
      }
      if (r.floatAccuracy === null) r.floatAccuracy = r.lengths[0]?.accuracy ?? null;
    }
    for (const r of runs) {
      if (!live(r)) continue;
      guarded(r, () => mapAndHeads(r));
      yield;
    }
    if (quantPlan.length) phase = 'quantize';
    for (const r of runs) {
      for (const q of quantPlan) {
        if (!live(r)) break;
        guarded(r, () => quantize(r, q));
        yield;
      }
    }
    phase = 'done';
  }

  const gen = work();
  let over = false;
  let stopped = false;
  return {
    runs,
    step(budgetMs = Infinity) {
      if (over || stopped) return false;
      const t0 = clock();
      do {
        if (gen.next().done) { over = true; return false; }
      } while (clock() - t0 < budgetMs);
      return true;
    },
    data() {
      return {
        task: first.task, classes: first.classes, chance: 1 / first.classes,
        trainN: [...o.trainN], testN: [...o.testN], steps: o.steps, every, bits: [...bits],
        phase, progress: over ? 1 : Math.min(1, done / total),
        sel: o.sel ?? 0,
        runs: runs.map((r) => ({
          name: r.name, normParams: r.normParams ?? Object.fromEntries(ss.kernel(r.name, 'normalizer').params.map((p) => [p.name, r.params[p.name] ?? p.default])),
          normParamsByLayer: r.normParamsByLayer ?? null,
          step: r.step, diverged: r.diverged, reached: r.reached, error: r.error,
          curve: { step: [...r.curve.step], loss: r.curve.loss.map(fin), accuracy: r.curve.accuracy.map(fin) },
          lengths: r.lengths.map((x) => ({ ...x })), map: r.map, heads: r.heads.map((x) => ({ ...x })),
          quant: r.quant.map((x) => ({ ...x })), floatAccuracy: r.floatAccuracy,
        })),
      };
    },
    stop() {
      stopped = true;
      for (const r of runs) r.model.free();
    },
  };
}

/** Test examples whose query rows the head measures read (at most). */
export const HEAD_EXAMPLES = 64;

/**
 * Per layer and head, the registry's head measures (ss.attentionHeadMeasures)
 * over `examples` test examples of n items:
 *   sinkRate  the mean weight of the query row (the row the answer is read
 *             from) on key 0 (example i: the first of the test set of seed +
 *             1 + i); a head is a `sink` above SINK_EPS (Gu et al. 2025;
 *             kv_or_none's key 0 is its BOS item);
 *   kurtosis, maxMedian  of the head's attention outputs (its columns of the
 *             output projection's inputs, model.linearInputs, on the test set
 *             of seed + 1): the softpick paper's massive activations.
 */
export function headMeasures(ss, model, { n, examples, seed }) {
  const { layers, heads, d } = model.config;
  const rows = Array.from({ length: layers }, () => new Float32Array(heads * examples * n));
  for (let e = 0; e < examples; e++) {
    const m = model.attentionMap({ n, seed: seed + 1 + e });
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < heads; h++) {
        const at = ((l * heads + h) * n + n - 1) * n; // query row n - 1 of layer l, head h
        rows[l].set(m.maps.subarray(at, at + n), (h * examples + e) * n);
      }
  }
  const tensors = model.tensors();
  const out = [];
  for (let l = 0; l < layers; l++) {
    // attn: heads x examples x n (an example's query row per "query"); the weights' key-0 share
    const w = ss.attentionHeadMeasures(new Float32Array(examples * heads), rows[l], { heads, n: examples, m: n, dv: heads, sinkEps: SINK_EPS });
    // out: the attention outputs, batch x d (head h owns columns h d / heads ..)
    const { x, batch } = model.linearInputs({ tensor: tensors.findIndex((t) => t.name === 'wo' && t.layer === l), n, examples, seed: seed + 1 });
    const o = ss.attentionHeadMeasures(transpose(x, d, batch), null, { heads, n: batch, dv: d, sinkEps: SINK_EPS });
    for (let h = 0; h < heads; h++)
      out.push({ layer: l, head: h, sinkRate: fin(w.keyZeroWeight[h]), sink: w.sink[h], kurtosis: fin(o.kurtosis[h]), maxMedian: fin(o.maxMedianRatio[h]) });
  }
  return out;
}

// cols x batch (linearInputs' layout) as batch x cols.
function transpose(x, cols, batch) {
  const out = new Float32Array(cols * batch);
  for (let i = 0; i < cols; i++) for (let b = 0; b < batch; b++) out[b * cols + i] = x[i * batch + b];
  return out;
}

/** The experiment run to its end (the stepper's data); the models are freed. */
export function runExperiment(ss, options) {
  const s = startExperiment(ss, options);
  try {
    while (s.step(Infinity));
    return s.data();
  } finally {
    s.stop();
  }
}
