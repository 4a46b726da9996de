// A finite value beyond float32's range (+-1e39 in a Float64Array or a JS
// array) would become +-Inf, and -Inf is a masked logit: every entry point
// that takes float input says so with an Error naming the argument and the
// index, instead of reading it as a mask (issue 17). The CLI's --input and
// --input2 are covered for every kernel by the bad-input matrix.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, randomProbs, randomPositive, fitParams } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

// Every float input of the API: { label, args (valid Float32Arrays by name), call(args) }.
function entryPoints() {
  const x = randomLogits(8, 1), p = randomProbs(8, 2), v = randomPositive(8, 3);
  const first = (family, pred = () => true) => ss.kernels(family).find(pred);
  const norm = first('normalizer', (k) => k.has_backward && !k.params.length);
  const pnorm = first('normalizer', (k) => k.has_param_backward);
  const pair = first('measure', (k) => k.input === 'probs_pair');
  const one = first('measure', (k) => k.input === 'probs' && k.has_backward);
  const relaxed = first('sampler', (k) => k.has_backward && k.input === 'logits');
  const exact = first('attention', (k) => k.role === 'exact_attention');
  const opt = first('optimizer');
  const thr = first('normalizer', (k) => { try { ss.threshold(k.name, x); return true; } catch { return false; } });
  const draws = { ...fitParams(relaxed, 8), draws: 2 };
  return [
    { label: 'normalize', args: { x }, call: (a) => ss.normalize(norm.name, a.x) },
    { label: 'normalizeBackward', args: { x, y: p, g: x }, call: (a) => ss.normalizeBackward(norm.name, a.x, a.y, a.g) },
    { label: 'normalizeParamBackward', args: { x, y: p, g: x }, call: (a) => ss.normalizeParamBackward(pnorm.name, a.x, a.y, a.g) },
    { label: 'measure (two inputs)', args: { p, q: p }, call: (a) => ss.measure(pair.name, a.p, a.q) },
    { label: 'measureBackward', args: { p }, call: (a) => ss.measureBackward(one.name, a.p) },
    { label: 'loss', args: { x }, call: (a) => ss.loss(first('loss').name, a.x, { target: 1 }) },
    { label: 'sample', args: { x }, call: (a) => ss.sample(relaxed.name, a.x, draws) },
    { label: 'sampleBackward', args: { x, g: randomLogits(16, 4) }, call: (a) => ss.sampleBackward(relaxed.name, a.x, a.g, draws) },
    { label: 'quantize', args: { x }, call: (a) => ss.quantize(first('quantizer').name, a.x) },
    { label: 'categorical', args: { w: v }, call: (a) => ss.categorical(a.w) },
    { label: 'estimatorStats', args: { theta: x.subarray(0, 3), target: p.subarray(0, 3) },
      call: (a) => ss.estimatorStats(ss.enums.estimator[0], a.theta, a.target, { samples: 10 }) },
    { label: 'vqTrain', args: { x }, call: (a) => ss.vqTrain(a.x, { k: 2 }) },
    { label: 'vqAssign', args: { x, codebook: new Float32Array([-1, 1]) }, call: (a) => ss.vqAssign(a.x, a.codebook) },
    { label: 'vqBackward', args: { x, codebook: new Float32Array([-1, 1]), g: x },
      call: (a) => ss.vqBackward(a.x, a.codebook, new Int32Array(8), a.g) },
    { label: 'optimize', args: { g: x }, call: (a) => ss.optimize(opt.name, new Float32Array(8), a.g, {}, ss.optimizerState(opt.name, 8)) },
    { label: 'samPerturb', args: { w: x, g: x }, call: (a) => ss.samPerturb(a.w, a.g) },
    { label: 'attend', args: { q: x, k: x, v: x }, call: (a) => ss.attend(exact.name, { q: a.q, k: a.k, v: a.v, n: 4, m: 4 }) },
    { label: 'attentionMeasures', args: { attention: p }, call: (a) => ss.attentionMeasures(a.attention, 1, 2, 4) },
    { label: 'threshold', args: { x }, call: (a) => ss.threshold(thr.name, a.x) },
    { label: 'entmaxSolve', args: { x }, call: (a) => ss.entmaxSolve(a.x) },
    { label: 'maskedSoftmax', args: { x }, call: (a) => ss.maskedSoftmax(a.x, new Uint8Array(8).fill(1)) },
    { label: 'vqSoftmax', args: { z: x }, call: (a) => ss.vqSoftmax(a.z, new Uint32Array([0, 1, 2])) },
    { label: 'boltzmann', args: { x }, call: (a) => ss.boltzmann(a.x) },
    { label: 'softmaxTopk', args: { x }, call: (a) => ss.softmaxTopk(a.x, 2) },
    { label: 'softmaxState().update', args: { x }, call: (a) => ss.softmaxState().update(a.x) },
    { label: 'softmaxState().apply', args: { x }, call: (a) => ss.softmaxState().update(x).apply(a.x) },
  ];
}

describe('float32 overflow is an error naming the argument and the index, at every entry point', () => {
  it('the entry points run with their valid arguments', () => {
    for (const e of entryPoints()) expect(() => e.call(e.args), e.label).not.toThrow();
  });

  it.each([-1e39, 1e39, -Number.MAX_VALUE])('%s in a Float64Array, in each float argument', (big) => {
    for (const e of entryPoints()) {
      for (const name of Object.keys(e.args)) {
        const a = { ...e.args, [name]: Float64Array.from(e.args[name]) };
        a[name][1] = big;
        let err = null;
        try { e.call(a); } catch (x) { err = x; }
        const label = `${e.label} ${name}`;
        expect(err, label).not.toBeNull();
        expect(err.code, `${label}: ${err.message}`).toBe('SS_ERR_NONFINITE');
        expect(err.argument, label).toBe(name);
        expect(err.index, label).toBe(1);
        expect(err.message, label).toMatch(new RegExp(`${name}\\[1\\] = ${big < 0 ? '-' : ''}[\\d.e+]+ overflows float32`));
      }
    }
  });

  it('in a JS array: a trajectory start and HeapBuffer.set', () => {
    const opt = ss.kernels('optimizer')[0].name;
    for (const start of [[0, -1e39], [1e39, 0]]) {
      const e = (() => { try { ss.trajectory({ optimizer: opt, start }); } catch (x) { return x; } return null; })();
      expect(e?.argument).toBe('options.start');
      expect(e.message).toMatch(/overflows float32/);
    }
    const b = ss.alloc(3);
    for (const values of [[1, -1e39, 2], Float64Array.from([1, 1e39, 2])]) {
      const e = (() => { try { b.set(values); } catch (x) { return x; } return null; })();
      expect(e?.argument).toBe('values');
      expect(e.index).toBe(1);
      expect(e.message).toMatch(/values\[1\] = -?1e\+39 overflows float32/);
    }
    // -Infinity itself stays a masked logit
    b.set([1, -Infinity, 2]);
    expect(ss.normalize(ss.kernels('normalizer')[0].name, b)[1]).toBe(0);
    b.free();
  });
});
