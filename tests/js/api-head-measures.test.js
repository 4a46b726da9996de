// The head measures of attention through the JS API (ss.attentionHeadMeasures,
// the softpick paper's comparison), against float64 references written here:
// each head's Pearson kurtosis and max/median |o| of its output columns, the
// mean weight on key 0 and the sink flag; on the dormant-head example softmax
// sinks on key 0 while softpick gives exactly zero weight and output; bad
// arguments throw naming the argument.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { attentionExample } from '../../wasm/analysis/attention-examples.js';
import { refKurtosis } from './support/reference.js';

let ss, scalar;
beforeAll(async () => {
  ss = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// The values of head h: columns [h dvh, (h + 1) dvh) of out (n x dv).
function headValues(out, n, dv, heads, h) {
  const dvh = dv / heads, vals = [];
  for (let i = 0; i < n; i++) for (let c = 0; c < dvh; c++) vals.push(out[i * dv + h * dvh + c]);
  return vals;
}
function refMaxMedian(x) {
  const a = x.map(Math.abs).sort((p, q) => p - q), n = a.length;
  const med = n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
  return med === 0 ? 0 : a[n - 1] / med;
}

describe('attentionHeadMeasures', () => {
  it('equals float64 references per head, on both builds', () => {
    const ex = attentionExample('random', 24, 3);
    for (const heads of [1, 2, 4]) {
      const r = ss.attend('sdpa', ex, { heads }, { attention: true });
      for (const s of [ss, scalar]) {
        const hm = s.attentionHeadMeasures(r.output, r.attention, r);
        expect(hm.kurtosis.length).toBe(heads);
        let sinks = 0;
        for (let h = 0; h < heads; h++) {
          const vals = headValues(r.output, r.n, r.dv, heads, h);
          const k = refKurtosis(vals);
          expect(Math.abs(hm.kurtosis[h] - k)).toBeLessThanOrEqual(1e-12 * k);
          expect(hm.maxMedianRatio[h]).toBeCloseTo(refMaxMedian(vals), 12);
          let a0 = 0;
          for (let i = 0; i < r.n; i++) a0 += r.attention[(h * r.n + i) * r.m];
          expect(Math.abs(hm.keyZeroWeight[h] - a0 / r.n)).toBeLessThanOrEqual(1e-12);
          expect(hm.sink[h]).toBe(a0 / r.n > 0.3);
          sinks += a0 / r.n > 0.3;
        }
        expect(hm.sinkRate).toBe(sinks / heads);
      }
    }
    // a normal sample's kurtosis is about 3 (standard error sqrt(24 / N))
    const z = ss.normal(4096, { seed: 2 });
    const k = ss.attentionHeadMeasures(z, null, { n: 4096 }).kurtosis[0];
    expect(Math.abs(k - 3)).toBeLessThan(4 * Math.sqrt(24 / 4096));
    expect(k).toBeCloseTo(ss.measure('kurtosis', z), 12);
  });

  it('sink_eps sets the flag; without a matrix the key-0 weight is 0; a constant head has kurtosis 0', () => {
    const ex = attentionExample('random', 16, 5);
    const r = ss.attend('sdpa', ex, { heads: 2 }, { attention: true });
    const lo = ss.attentionHeadMeasures(r.output, r.attention, { ...r, sinkEps: 0 });
    expect(lo.sink).toEqual([true, true]);
    const hi = ss.attentionHeadMeasures(r.output, r.attention, { ...r, sinkEps: 1 });
    expect(hi.sinkRate).toBe(0);
    const none = ss.attentionHeadMeasures(r.output, null, { heads: 2, n: 16 });
    expect(Array.from(none.keyZeroWeight)).toEqual([0, 0]);
    const flat = new Float32Array(16 * 4).fill(1.5);
    const c = ss.attentionHeadMeasures(flat, null, { n: 16 });
    expect([c.kurtosis[0], c.maxMedianRatio[0]]).toEqual([0, 1]);
  });

  it('the dormant head: softmax sinks on key 0, softpick gives exactly zero weight and output', () => {
    const ex = attentionExample('dormant', 32, 2025);
    const dh = ex.d / ex.heads;
    const soft = ss.attend('sdpa', ex, { heads: ex.heads }, { normalizer: 'softmax', attention: true });
    const pick = ss.attend('sdpa', ex, { heads: ex.heads }, { normalizer: 'softpick', attention: true });
    const a = ss.attentionHeadMeasures(soft.output, soft.attention, soft);
    const b = ss.attentionHeadMeasures(pick.output, pick.attention, pick);
    expect(a.keyZeroWeight[0]).toBeGreaterThan(0.9);
    expect(a.sink).toEqual([true, false]);
    expect(b.keyZeroWeight[0]).toBe(0);
    expect(b.sink).toEqual([false, false]);
    expect([a.sinkRate, b.sinkRate]).toEqual([0.5, 0]);
    for (let t = 0; t < ex.n * ex.n; t++) expect(pick.attention[t]).toBe(0); // head 0's matrix
    for (let i = 0; i < ex.n; i++) for (let c = 0; c < dh; c++) expect(pick.output[i * ex.d + c]).toBe(0);
    expect(b.kurtosis[0]).toBe(0); // all zero: undefined, reported as 0
  });

  it('bad arguments throw naming the argument', () => {
    const out = new Float32Array(24);
    const arg = (f) => { try { f(); } catch (e) { return e.argument; } return null; };
    expect(arg(() => ss.attentionHeadMeasures(Array.from(out), null, { n: 4 }))).toBe('out');
    expect(arg(() => ss.attentionHeadMeasures(out, null, {}))).toBe('options.n');
    expect(arg(() => ss.attentionHeadMeasures(out, null, { n: 5 }))).toBe('out');
    expect(arg(() => ss.attentionHeadMeasures(out, null, { n: 4, dv: 0 }))).toBe('options.dv');
    expect(arg(() => ss.attentionHeadMeasures(out, null, { n: 4, dv: 5 }))).toBe('out');
    expect(arg(() => ss.attentionHeadMeasures(out, null, { n: 4, heads: 4 }))).toBe('options.heads');
    expect(arg(() => ss.attentionHeadMeasures(out, new Float32Array(7), { n: 4, heads: 2 }))).toBe('attn');
    expect(arg(() => ss.attentionHeadMeasures(out, null, { n: 4, sinkEps: 2 }))).toBe('options.sinkEps');
    expect(arg(() => ss.attentionHeadMeasures(Float32Array.from(out, (v, i) => (i ? 1 : NaN)), null, { n: 4 }))).toBe('out');
  });
});
