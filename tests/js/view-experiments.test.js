// The Experiments view without a browser: its link state round-trips (the
// optimizer's hyperparameters as adam.lr=..., the normalizers' as
// ssmax.s=...), defaults stay out of links, finish keeps heads dividing d;
// a short seeded run trains (curves ascending by step, accuracies in [0, 1])
// and tests at the design's lengths with real bounds (0 <= entropy <= log n,
// max weight in (0, 1], support <= n, map rows summing to 1), reaches a
// stated accuracy on max retrieval and reruns bit-identically; a diverging
// run is marked with its step while the other normalizer's run goes on;
// the stepper trains round robin, takes only `sel` in place, and stop()
// frees every model; the default experiment stays under 64 MB of wasm
// memory.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { defaults, toHash } from '../../wasm/state/schema.js';
import { experiments as view } from '../../wasm/views/experiments/index.js';
import { start, table, experimentOptions } from '../../wasm/views/experiments/model.js';
import { TRAIN_DEFAULTS } from '../../wasm/views/experiments/schema.js';
import { startExperiment, headMeasures, testLengths, curveEvery, REACHED, SLICE, CURVE_POINTS, SINK_EPS, HEAD_EXAMPLES } from '../../wasm/analysis/experiments.js';
import { csv } from '../../wasm/views/data.js';
import { viewState } from './support/view-harness.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

const { schema } = view;
const { read, state } = viewState(view, () => ss);

// A short run (about 2 s in the SIMD build): two normalizers, 300 steps, tests up to n = 256.
const SHORT = 'normalizers=softmax,ssmax&steps=300&testMax=256&examples=128&quantizers=';
// Measured over seeds 0..3 in the three builds: 0.945 .. 0.977 at n = 16 (chance 0.125).
const SHORT_ACCURACY = 0.9;

describe('experiments state', () => {
  it('round-trips every key, hyperparameters of the optimizer and of the normalizers included; defaults write only the view', () => {
    const s = {
      ...defaults(schema, ss), task: 'kv_or_none', normalizers: ['softpick', 'ssmax'], trainNorm: false, values: 12, keys: 32, d: 64,
      heads: 4, layers: 2, mlp: true, positions: 'sinusoidal', optimizer: 'lion', schedule: 'wsd', warmup: 20, steps: 500, batch: 16,
      trainMax: 24, testMax: 1024, examples: 64, quantizers: ['uniform', 'log_quant'], sel: 'ssmax', mapN: 12, seed: 7,
      params: { 'lion.lr': 0.0002, 'lion.beta2': 0.98 }, normParams: { 'ssmax.s': 0.5 },
    };
    const hash = toHash(schema, s, ss);
    expect(hash).toContain('lion.lr=0.0002');
    expect(hash).toContain('ssmax.s=0.5');
    const back = read(hash);
    expect(back.notices).toEqual([]);
    expect(back.state).toEqual(s);
    expect(toHash(schema, defaults(schema, ss), ss)).toBe('view=experiments');
  });

  it('the defaults: max retrieval, softmax / adaptive temperature / SSMax, adam at the view\'s lr 3e-3, d 32, 1000 steps, tests to 4096', () => {
    const s = defaults(schema, ss);
    expect([s.task, s.normalizers, s.optimizer, s.d, s.heads, s.steps, s.trainMax, s.testMax]).toEqual(
      ['max_retrieval', ['softmax', 'adaptive_temperature', 'ssmax'], 'adam', 32, 2, 1000, 16, 4096]);
    const o = experimentOptions(ss, s);
    expect(o.optimizerParams.lr).toBe(TRAIN_DEFAULTS.adam.lr);
    expect(o.optimizerParams.beta2).toBe(ss.kernel('adam', 'optimizer').params.find((p) => p.name === 'beta2').default);
    expect(o.trainN).toEqual([4, 16]);
    expect(o.testN).toEqual([16, 32, 64, 128, 256, 512, 1024, 2048, 4096]);
    expect(experimentOptions(ss, state('adam.lr=0.01')).optimizerParams.lr).toBe(0.01);
    expect(experimentOptions(ss, state('ssmax.s=0.7')).normalizers.find((n) => n.name === 'ssmax').params.s).toBe(0.7);
  });

  it('finish: heads divide d (3 heads of d = 16 -> 2), warm-up fits in the run, sel is a trained normalizer', () => {
    expect(state('d=16&heads=3').heads).toBe(2);
    expect(state('steps=50&warmup=80').warmup).toBe(50);
    expect(state('normalizers=softmax&sel=ssmax').sel).toBe(null);
    expect(state('sel=ssmax').sel).toBe('ssmax');
  });

  it('bad values fall back with a notice naming the key', () => {
    const r = read('normalizers=log_softmax&d=48&testMax=100&steps=5');
    expect(r.notices.map((n) => n.key)).toEqual(['normalizers', 'd', 'steps', 'testMax']);
    expect(r.state).toEqual(defaults(schema, ss));
  });

  it('test lengths: trainMax, then powers of two above it up to testMax', () => {
    expect(testLengths(16, 4096)).toEqual([16, 32, 64, 128, 256, 512, 1024, 2048, 4096]);
    expect(testLengths(24, 128)).toEqual([24, 32, 64, 128]);
    expect(testLengths(64, 16)).toEqual([64]);
    expect(curveEvery(1000)).toBe(3);
    expect(curveEvery(400)).toBe(1);
    expect(Math.ceil(20000 / curveEvery(20000))).toBeLessThanOrEqual(CURVE_POINTS);
  });
});

describe('experiments model: a short seeded run', () => {
  let d;
  beforeAll(() => { d = view.compute(ss, state(SHORT)); });

  it('the data shape of the design, every number finite or null', () => {
    expect(Object.keys(d).sort()).toEqual(['bits', 'chance', 'classes', 'every', 'phase', 'progress', 'runs', 'sel', 'steps', 'task', 'testN', 'trainN'].sort());
    expect([d.task, d.classes, d.chance, d.phase, d.progress, d.sel, d.steps]).toEqual(['max_retrieval', 8, 1 / 8, 'done', 1, 0, 300]);
    expect(d.trainN).toEqual([4, 16]);
    expect(d.testN).toEqual([16, 32, 64, 128, 256]);
    expect(d.bits).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(d.runs.map((r) => r.name)).toEqual(['softmax', 'ssmax']);
    expect(JSON.stringify(d)).not.toMatch(/NaN|Infinity/);
  });

  it('curves: one point per step here (300 <= 400), ascending, loss > 0, accuracy in [0, 1]; reached is the first window at >= 95 %', () => {
    for (const r of d.runs) {
      expect(r.step).toBe(300);
      expect(r.diverged).toBe(null);
      expect(r.curve.step).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      for (const l of r.curve.loss) expect(l).toBeGreaterThan(0);
      for (const a of r.curve.accuracy) { expect(a).toBeGreaterThanOrEqual(0); expect(a).toBeLessThanOrEqual(1); }
      const first = r.curve.accuracy.findIndex((a) => a >= REACHED);
      expect(r.reached).toBe(first < 0 ? null : r.curve.step[first]);
    }
  });

  it('tests at each length: 0 <= entropy <= log n, max weight in (0, 1], 1 <= support <= n, per head and as head means', () => {
    for (const r of d.runs) {
      expect(r.lengths.map((x) => x.n)).toEqual(d.testN);
      for (const x of r.lengths) {
        expect(x.accuracy).toBeGreaterThanOrEqual(0);
        expect(x.accuracy).toBeLessThanOrEqual(1);
        expect(x.loss).toBeGreaterThan(0);
        expect(x.entropyHeads).toHaveLength(2);
        for (const e of [x.entropy, ...x.entropyHeads]) { expect(e).toBeGreaterThanOrEqual(0); expect(e).toBeLessThanOrEqual(Math.log(x.n) * (1 + 1e-6)); }
        for (const m of [x.maxWeight, ...x.maxWeightHeads]) { expect(m).toBeGreaterThan(0); expect(m).toBeLessThanOrEqual(1 + 1e-6); }
        for (const s of [x.support, ...x.supportHeads]) { expect(s).toBeGreaterThanOrEqual(1); expect(s).toBeLessThanOrEqual(x.n); }
        expect(x.entropy).toBeCloseTo(x.entropyHeads.reduce((a, b) => a + b) / 2, 12);
      }
      expect(r.floatAccuracy).toBe(r.lengths[0].accuracy);
    }
  });

  it(`learns: accuracy at the training length >= ${SHORT_ACCURACY} (chance 0.125) for each normalizer`, () => {
    for (const r of d.runs) expect(r.lengths[0].accuracy, r.name).toBeGreaterThanOrEqual(SHORT_ACCURACY);
  });

  it('the attention map: layers x heads x n x n at mapN, each row a distribution; head measures per layer and head', () => {
    for (const r of d.runs) {
      const m = r.map;
      expect([m.n, m.layers, m.heads, m.maps.length]).toEqual([16, 1, 2, 16 * 16 * 2]);
      for (let row = 0; row < 2 * 16; row++) {
        const w = m.maps.slice(row * 16, row * 16 + 16);
        for (const v of w) expect(v).toBeGreaterThanOrEqual(0);
        expect(w.reduce((a, b) => a + b)).toBeCloseTo(1, 5);
      }
      expect(r.heads.map((h) => [h.layer, h.head])).toEqual([[0, 0], [0, 1]]);
      for (const h of r.heads) {
        expect(h.sinkRate).toBeGreaterThanOrEqual(0);
        expect(h.sinkRate).toBeLessThanOrEqual(1);
        expect(h.sink).toBe(h.sinkRate > SINK_EPS);
        expect(h.kurtosis).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('SSMax\'s s is trained (it moved from its start), softmax has no parameter', () => {
    const s0 = ss.kernel('ssmax', 'normalizer').params.find((p) => p.name === 's').default;
    expect(d.runs[0].normParams).toEqual({});
    expect(d.runs[1].normParams.s).not.toBe(s0);
    expect(d.runs[1].normParamsByLayer).toEqual([{ s: d.runs[1].normParams.s }]);
  });

  it('reruns bit-identically', () => {
    expect(view.compute(ss, state(SHORT))).toEqual(d);
  });

  it('table: a row per curve point and test length (kind column), the CSV parses back', () => {
    const t = table(d);
    expect(t.rows.filter((r) => r[0] === 'curve')).toHaveLength(600);
    expect(t.rows.filter((r) => r[0] === 'test')).toHaveLength(10);
    const lines = csv(view, d).trim().split('\n');
    expect(lines[0]).toBe(t.columns.join(','));
    const test = lines.slice(1).map((l) => l.split(',')).filter((c) => c[0] === 'test');
    expect(test.map((c) => Number(c[3]))).toEqual([...d.testN, ...d.testN]);
    test.forEach((c, i) => expect(Math.abs(Number(c[7]) - d.runs[i < 5 ? 0 : 1].lengths[i % 5].accuracy)).toBeLessThan(1e-6));
  });
});

describe('experiments: divergence, the stepper, memory', () => {
  it('a run whose loss becomes NaN/Inf is marked diverged at its step, its curve stops there, and the other normalizer\'s run goes on', () => {
    // momentum at lr 0.8: softpick's loss overflows (step 72); softmax's stays finite for the 100 steps (which one
    // diverges is not the property: one run stops, the other goes on)
    const d = view.compute(ss, state('normalizers=softpick,softmax&optimizer=momentum&momentum.lr=0.8&d=16&heads=1&batch=8&steps=100&testMax=16&examples=16&quantizers=&schedule=constant'));
    const [a, b] = d.runs;
    expect(a.diverged).toBeGreaterThan(1);
    expect(a.diverged).toBeLessThanOrEqual(100);
    expect(a.step).toBe(a.diverged - 1);
    expect(a.curve.step[a.curve.step.length - 1]).toBe(a.step);
    expect([a.lengths, a.map, a.heads]).toEqual([[], null, []]);
    expect(b.diverged).toBe(null);
    expect(b.step).toBe(100);
    expect(b.lengths.map((x) => x.n)).toEqual([16]);
    expect(d.phase).toBe('done');
    expect(view.describe(d)).toMatch(new RegExp(`softpick diverged at step ${a.diverged}`));
  });

  it('round robin: each normalizer trains SLICE steps in turn; progress grows to 1 through train, test, done; stop() frees every model', () => {
    const before = ss.heapStats().liveAllocations;
    const st = start(ss, state('normalizers=softmax,sparsemax,ssmax&steps=40&testMax=32&examples=16&quantizers=&d=16'));
    st.step(0);
    expect(st.data().runs.map((r) => r.step)).toEqual([SLICE, 0, 0]);
    st.step(0);
    expect(st.data().runs.map((r) => r.step)).toEqual([SLICE, SLICE, 0]);
    const phases = [];
    let p = 0;
    while (st.step(0)) {
      const d = st.data();
      expect(d.progress).toBeGreaterThanOrEqual(p);
      p = d.progress;
      if (phases[phases.length - 1] !== d.phase) phases.push(d.phase);
    }
    expect(phases).toEqual(['train', 'test']);
    expect(st.data().phase).toBe('done');
    expect(st.data().progress).toBe(1);
    expect(st.step(Infinity)).toBe(false);
    st.stop();
    expect(ss.heapStats().liveAllocations).toBe(before);
  });

  it('update: a new sel is taken in place (the data shows it), any other key (mapN, steps, a hyperparameter) starts over', () => {
    const s = state('normalizers=softmax,ssmax&steps=10&testMax=16&examples=16&quantizers=&d=16');
    const st = start(ss, s);
    try {
      st.step(0);
      expect(st.update({ ...s, sel: 'ssmax' })).toBe(true);
      expect(st.data().sel).toBe(1);
      for (const change of [{ mapN: 8 }, { steps: 20 }, { params: { 'adam.lr': 0.01 } }, { normalizers: ['softmax'] }])
        expect(st.update({ ...s, sel: 'ssmax', ...change }), JSON.stringify(change)).toBe(false);
    } finally {
      st.stop();
    }
  });

  it('head measures: per head the mean query-row weight on key 0 over the test examples at trainMax (kv_or_none: its BOS item), the kurtosis and max/median of its outputs', () => {
    const o = experimentOptions(ss, state('task=kv_or_none&normalizers=softmax&steps=100&testMax=16&examples=16&quantizers=&d=16&layers=2'));
    const run = startExperiment(ss, o);
    try {
      while (run.step(Infinity));
      const [r] = run.runs;
      expect(r.heads).toHaveLength(4);
      expect(HEAD_EXAMPLES).toBeGreaterThanOrEqual(16);
      // the reference: the query row (n - 1) of each example's map, example i from the test set of seed + 1 + i
      const maps = Array.from({ length: 16 }, (_, e) => r.model.attentionMap({ n: 16, seed: o.seed + 1 + e }).maps);
      for (const h of r.heads) {
        const w0 = maps.map((m) => m[((h.layer * 2 + h.head) * 16 + 15) * 16]);
        expect(h.sinkRate).toBeCloseTo(w0.reduce((a, b) => a + b) / 16, 6);
        // of the head's outputs (not constant): Pearson kurtosis >= 1, max |o| >= median |o|
        expect(h.kurtosis).toBeGreaterThanOrEqual(1);
        expect(h.maxMedian).toBeGreaterThanOrEqual(1);
      }
      expect(headMeasures(ss, r.model, { n: 16, examples: 16, seed: o.seed })).toEqual(r.heads);
    } finally {
      run.stop();
    }
  });

  it('quantize: one entry per (quantizer, bits) where the quantizer applies (analysis/ptq.js), accuracy in [0, 1], 8-bit uniform within 2 % of float; the float weights are back after', () => {
    const o = { ...experimentOptions(ss, state('normalizers=softmax,ssmax&steps=200&testMax=16&examples=128&d=16')),
      quantizers: ['uniform', 'adaround', 'fp8_e4m3'], bits: [3, 8] };
    const run = startExperiment(ss, o);
    try {
      const phases = new Set();
      while (run.step(0)) phases.add(run.data().phase);
      expect([...phases]).toEqual(['train', 'test', 'quantize']);
      const d = run.data();
      expect(d.bits).toEqual([3, 8]);
      for (const [i, r] of d.runs.entries()) {
        expect(r.quant.map((q) => `${q.quantizer}@${q.bits}`)).toEqual(['uniform@3', 'uniform@8', 'adaround@3', 'adaround@8', 'fp8_e4m3@8']);
        for (const q of r.quant) { expect(q.accuracy).toBeGreaterThanOrEqual(0); expect(q.accuracy).toBeLessThanOrEqual(1); }
        expect(Math.abs(r.quant[1].accuracy - r.floatAccuracy)).toBeLessThanOrEqual(0.02);
        // the model answers as before quantisation
        expect(run.runs[i].model.evaluate({ n: 16, examples: 128 }).accuracy).toBe(r.floatAccuracy);
      }
      expect(table(d).rows.filter((x) => x[0] === 'quant')).toHaveLength(10);
    } finally {
      run.stop();
    }
  });

  it('an option the model rejects throws naming it, and leaks nothing (the models made before it are freed)', () => {
    const before = ss.heapStats().liveAllocations;
    const o = experimentOptions(ss, state('normalizers=softmax,ssmax'));
    expect(() => startExperiment(ss, { ...o, heads: 3 })).toThrow(/options\.heads = 3 must divide d \(d = 32\)/);
    const second = [o.normalizers[0], { name: 'ssmax', params: { nope: 1 } }];
    expect(() => startExperiment(ss, { ...o, normalizers: second })).toThrow(/nope/);
    expect(ss.heapStats().liveAllocations).toBe(before);
  });

  it('the default experiment\'s models and its largest test (n = 4096, 256 examples) fit in 64 MB of wasm memory', async () => {
    const fresh = await createSoftscope({ wasm: WASM });
    // the number of steps does not change the memory: the models and their workspaces are made up front
    const o = { ...experimentOptions(fresh, defaults(schema, fresh)), steps: 10, testN: [4096] };
    const run = startExperiment(fresh, o);
    try {
      while (run.runs[0].lengths.length === 0) run.step(0);
      expect(run.runs[0].lengths[0].n).toBe(4096);
      expect(fresh.heapStats().heapBytes).toBeLessThanOrEqual(64 * 2 ** 20);
    } finally {
      run.stop();
    }
  });
});
