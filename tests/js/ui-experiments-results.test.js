// A results file's data for the Experiments widget (results="file.json"),
// checked against the view's declared data shape (views/experiments/
// data-shape.js) before anything draws it: the view's own data passes, also
// partial (nothing tested yet) and a run that diverged; each field the
// figure reads, broken (a name that is not a registry kernel, markup as a
// name, a number that is a string or past float range, lists of unequal
// lengths or longer than a run writes, a map of the wrong size, an index past
// the runs), gives an Error naming that field's path.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { check } from '../../wasm/views/shape.js';
import { view, parse, stateEntries, plain } from '../../wasm/views/index.js';
import { WASM } from './support/wasm-paths.js';

const RUN = 'normalizers=softmax,ssmax&d=16&heads=2&steps=20&batch=8&testMax=32&examples=16&quantizers=uniform&mapN=8';
let ss, v, shape, data;
beforeAll(async () => {
  ss = await createSoftscope({ wasm: WASM });
  v = view('experiments');
  shape = await v.dataShape();
  const { state } = parse(v.schema, stateEntries(RUN), ss);
  data = JSON.parse(JSON.stringify(plain(v.compute(ss, state))));
});

// the problem check finds in the data (null: none), after an edit of a copy
const problemOf = (d) => {
  try {
    check(shape, d, ss);
    return null;
  } catch (e) {
    return e.message;
  }
};
const broken = (edit) => { const d = structuredClone(data); edit(d); return problemOf(d); };

describe('the Experiments data shape on results files', () => {
  it('the view\'s own data passes (every part: tests, maps, heads, quantisation); partial data and a diverged run too', () => {
    expect(data.runs.map((r) => r.lengths.length)).toEqual([2, 2]);
    expect(data.runs.every((r) => r.map && r.heads.length === 2 && r.quant.length)).toBe(true);
    expect(problemOf(data)).toBe(null);
    expect(broken((d) => { d.phase = 'train'; d.progress = 0.2; for (const r of d.runs) Object.assign(r, { lengths: [], map: null, heads: [], quant: [], floatAccuracy: null }); })).toBe(null);
    // a run that diverged has its step; JSON's nulls stand where a number could not be computed
    expect(broken((d) => { d.runs[0].diverged = 12; d.runs[0].curve.loss[1] = null; })).toBe(null);
  });

  it('not an object, a run list empty or past 4 runs, an index past the runs, an unknown phase, a missing key', () => {
    expect(problemOf(null)).toBe('data is null');
    expect(problemOf([])).toBe('data is not an object');
    expect(broken((d) => { d.runs = []; })).toBe('data.runs holds 0 items; at least 1 expected');
    expect(broken((d) => { d.runs = Array.from({ length: 5 }, () => d.runs[0]); })).toBe('data.runs holds 5 items; a run writes at most 4');
    expect(broken((d) => { d.sel = 2; })).toBe('data: sel 2 is not the index of a run');
    expect(broken((d) => { d.sel = '0'; })).toBe('data.sel is not a number');
    expect(broken((d) => { d.phase = 'dancing'; })).toBe('data.phase "dancing" is not one of train, test, quantize, done');
    expect(broken((d) => { d.trainN = [4]; })).toBe('data.trainN holds 1 items; at least 2 expected');
    expect(broken((d) => { delete d.testN; })).toBe('data.testN is missing');
    expect(broken((d) => { d.task = 7; })).toBe('data.task is not text');
    expect(broken((d) => { d.runs[1].extra = {}; })).toBe('data.runs[1].extra is not a key of this data');
  });

  it('a run named for no normalizer of this build, markup as a name, an unknown quantizer', () => {
    expect(broken((d) => { d.runs[1].name = 'sofmax'; })).toBe('data.runs[1].name "sofmax" is not a normalizer of this build');
    expect(broken((d) => { d.runs[0].name = '<img src=x onerror=alert(1)>'; })).toMatch(/^data\.runs\[0\]\.name "<img src=x onerror=alert\(1\)>" is not a normalizer/);
    expect(broken((d) => { d.runs[0].quant[0].quantizer = '<b>'; })).toBe('data.runs[0].quant[0].quantizer "<b>" is not a quantizer of this build');
  });

  it('numbers that are strings, past float range (1e999 reads as Infinity), out of range or missing; curves of unequal lengths', () => {
    expect(broken((d) => { d.runs[0].curve.loss = ['1', '2']; })).toBe('data.runs[0].curve.loss[0] is not a number');
    expect(broken((d) => { d.runs[0].curve.loss = JSON.parse('[1e999, 1]'); })).toBe('data.runs[0].curve.loss[0] is not a number');
    expect(broken((d) => { d.runs[0].curve.accuracy.pop(); })).toBe('data.runs[0].curve: step, loss, accuracy differ in length');
    expect(broken((d) => { d.runs[0].curve.accuracy[0] = 1.5; })).toBe('data.runs[0].curve.accuracy[0] is 1.5, outside [0, 1]');
    expect(broken((d) => { d.runs[1].lengths[1].entropy = 'high'; })).toBe('data.runs[1].lengths[1].entropy is not a number');
    expect(broken((d) => { delete d.runs[1].lengths[0].n; })).toBe('data.runs[1].lengths[0].n is missing');
    expect(broken((d) => { d.runs[0].lengths[0].supportHeads = [1, 'x']; })).toBe('data.runs[0].lengths[0].supportHeads[1] is not a number');
    expect(broken((d) => { d.runs[0].heads[1].kurtosis = {}; })).toBe('data.runs[0].heads[1].kurtosis is not a number');
    expect(broken((d) => { d.runs[0].step = null; })).toBe('data.runs[0].step is null');
    expect(broken((d) => { d.runs[0].normParams = { s: 'big' }; })).toBe('data.runs[0].normParams.s is not a number');
    expect(broken((d) => { d.chance = '1/8'; })).toBe('data.chance is not a number');
  });

  it('an attention map of the wrong size, or larger than the view draws; lists longer than a run writes, at once', () => {
    expect(broken((d) => { d.runs[0].map.maps.pop(); })).toBe('data.runs[0].map: maps holds 127 weights, not layers × heads × n × n');
    expect(broken((d) => { d.runs[0].map.heads = 3; })).toMatch(/^data\.runs\[0\]\.map: maps holds \d+ weights, not layers × heads × n × n$/);
    expect(broken((d) => { d.runs[0].map.n = 4096; })).toBe('data.runs[0].map.n is 4096, outside [1, 64]');
    expect(broken((d) => { d.runs[0].map.maps[3] = 'x'; })).toBe('data.runs[0].map.maps[3] is not a number');
    expect(broken((d) => { d.runs[0].map = {}; })).toBe('data.runs[0].map.n is missing');
    const long = structuredClone(data), wide = structuredClone(data);
    long.runs[0].curve.step = new Array(1e6).fill(1);
    wide.runs[0].normParams = Object.fromEntries(Array.from({ length: 1e5 }, (_, i) => [`k${i}`, 1]));
    const t0 = performance.now();
    expect(problemOf(long)).toBe('data.runs[0].curve.step holds 1000000 items; a run writes at most 1000');
    expect(problemOf(wide)).toBe('data.runs[0].normParams holds 100000 keys; a run writes at most 16');
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
