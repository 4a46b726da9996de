// A results file's data for the Experiments widget (results="file.json"),
// checked before anything draws it (web/src/views/experiments/results.js):
// data of the design's shape passes; each field the figure reads, broken
// (a name that is not a registry kernel, markup as a name, a number that is
// a string or past float range, lists of unequal lengths, a map of the wrong
// size, an index past the runs), gives a problem naming that field.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { resultsProblem } from '../../web/src/views/experiments/results.js';
import { view, parse, stateEntries, plain } from '../../wasm/views/index.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

// One run of the design's data shape (the numbers made up: only their types matter here).
const run = (name) => ({
  name,
  normParams: name === 'ssmax' ? { s: 0.42 } : {},
  step: 20,
  diverged: null,
  curve: { step: [10, 20], loss: [2.1, 1.7], accuracy: [0.1, 0.25] },
  reached: null,
  lengths: [16, 32].map((n) => ({ n, accuracy: 0.3, loss: 1.9, entropy: 2.5, maxWeight: 0.2, support: n,
    entropyHeads: [2.4, 2.6], maxWeightHeads: [0.2, 0.2], supportHeads: [n, n] })),
  map: { n: 4, layers: 1, heads: 2, maps: [[Array.from({ length: 16 }, () => 0.25), Array.from({ length: 16 }, () => 0.25)]] },
  heads: [{ layer: 0, head: 0, sinkRate: 0.1, kurtosis: 3, maxMedian: 1.5 }, { layer: 0, head: 1, sinkRate: null, kurtosis: 2, maxMedian: 1 }],
  quant: [{ quantizer: 'uniform', bits: 4, accuracy: 0.28 }],
  floatAccuracy: 0.3,
});
const good = () => ({
  task: 'max_retrieval', classes: 8, chance: 0.125, trainN: [4, 16], testN: [16, 32], steps: 20, bits: [2, 3, 4, 5, 6, 7, 8],
  phase: 'done', progress: 1, sel: 0, runs: [run('softmax'), run('ssmax')],
});
const broken = (edit) => { const d = good(); edit(d); return resultsProblem(d, ss); };

describe('resultsProblem', () => {
  it('data of the design\'s shape passes; partial data too (nothing tested yet: no lengths, map null, no quant)', () => {
    expect(resultsProblem(good(), ss)).toBe(null);
    expect(broken((d) => { d.phase = 'train'; d.progress = 0.2; for (const r of d.runs) Object.assign(r, { lengths: [], map: null, heads: [], quant: [], floatAccuracy: null }); })).toBe(null);
    // a run that diverged has its step; JSON's nulls stand where a number could not be computed
    expect(broken((d) => { d.runs[0].diverged = 12; d.runs[0].curve.loss[1] = null; })).toBe(null);
  });

  it('the view\'s own data passes: a short run as `softscope train --json` writes it, and a stepper\'s data before its first step', () => {
    const v = view('experiments');
    const { state, notices } = parse(v.schema, stateEntries('normalizers=softmax,ssmax&d=16&heads=2&steps=20&batch=8&testMax=32&examples=16&quantizers=uniform&mapN=8'), ss);
    expect(notices).toEqual([]);
    const data = JSON.parse(JSON.stringify(plain(v.compute(ss, state))));
    expect(data.runs.map((r) => r.lengths.length)).toEqual([2, 2]); // (tested: the check saw every part)
    expect(data.runs.every((r) => r.map && r.heads.length === 2)).toBe(true);
    expect(resultsProblem(data, ss)).toBe(null);
    const stepper = v.start(ss, state);
    try {
      expect(resultsProblem(JSON.parse(JSON.stringify(plain(stepper.data()))), ss)).toBe(null);
    } finally {
      stepper.stop();
    }
  });

  it('not an object, a run list empty or past 4 runs, an index past the runs, an unknown phase', () => {
    expect(resultsProblem(null, ss)).toBe('no data object');
    expect(resultsProblem([], ss)).toBe('no data object');
    expect(broken((d) => { d.runs = []; })).toMatch(/^data\.runs is not a list of 1 to 4 runs/);
    expect(broken((d) => { d.runs = Array.from({ length: 5 }, () => run('softmax')); })).toMatch(/^data\.runs /);
    expect(broken((d) => { d.sel = 2; })).toBe('data.sel is not the index of a run');
    expect(broken((d) => { d.sel = '0'; })).toBe('data.sel is not the index of a run');
    expect(broken((d) => { d.phase = 'dancing'; })).toMatch(/^data\.phase "dancing" is not one of/);
    expect(broken((d) => { d.trainN = [4]; })).toBe('data.trainN is not [min, max]');
    expect(broken((d) => { delete d.testN; })).toBe('data.testN is not a list of numbers');
    expect(broken((d) => { d.task = 7; })).toBe('data.task is not a name');
  });

  it('a run named for no normalizer of this build, markup as a name, an unknown quantizer', () => {
    expect(broken((d) => { d.runs[1].name = 'sofmax'; })).toBe('runs[1].name "sofmax" is not a normalizer of this build');
    expect(broken((d) => { d.runs[0].name = '<img src=x onerror=alert(1)>'; })).toMatch(/^runs\[0\]\.name "<img src=x onerror=alert\(1\)>" is not a normalizer/);
    expect(broken((d) => { d.runs[0].quant[0].quantizer = '<b>'; })).toBe('runs[0].quant[0].quantizer "<b>" is not a quantizer of this build');
  });

  it('numbers that are strings, past float range (1e999 reads as Infinity) or missing; curves of unequal lengths', () => {
    expect(broken((d) => { d.runs[0].curve.loss = ['1', '2']; })).toBe('runs[0].curve.loss is not a list of numbers');
    expect(broken((d) => { d.runs[0].curve.loss = JSON.parse('[1e999, 1]'); })).toBe('runs[0].curve.loss is not a list of numbers');
    expect(broken((d) => { d.runs[0].curve.accuracy.pop(); })).toBe('runs[0].curve: step, loss and accuracy differ in length');
    expect(broken((d) => { d.runs[1].lengths[1].entropy = 'high'; })).toBe('runs[1].lengths[1].entropy is not a number');
    expect(broken((d) => { delete d.runs[1].lengths[0].n; })).toBe('runs[1].lengths[0].n is not a number');
    expect(broken((d) => { d.runs[0].lengths[0].supportHeads = [1, 'x']; })).toBe('runs[0].lengths[0].supportHeads is not a list of numbers');
    expect(broken((d) => { d.runs[0].heads[1].kurtosis = {}; })).toBe('runs[0].heads[1].kurtosis is not a number');
    expect(broken((d) => { d.runs[0].step = null; })).toBe('runs[0].step is not a number');
    expect(broken((d) => { d.runs[0].normParams = { s: 'big' }; })).toBe('runs[0].normParams is not an object of numbers');
    expect(broken((d) => { d.chance = '1/8'; })).toBe('data.chance is not a number');
  });

  it('an attention map of the wrong size, or larger than the view draws', () => {
    expect(broken((d) => { d.runs[0].map.maps[0][1].pop(); })).toBe('runs[0].map.maps does not hold layers × heads × n × n weights');
    expect(broken((d) => { d.runs[0].map.heads = 3; })).toBe('runs[0].map.maps does not hold layers × heads × n × n weights');
    expect(broken((d) => { d.runs[0].map.n = 4096; })).toBe('runs[0].map is larger than the view draws');
    expect(broken((d) => { d.runs[0].map.maps[0][0][3] = 'x'; })).toBe('runs[0].map.maps is not a list of numbers');
    expect(broken((d) => { d.runs[0].map = {}; })).toBe('runs[0].map has no n, layers and heads');
  });
});
