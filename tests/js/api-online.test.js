// The online-softmax state and the fused softmax + top-k, through the JS API.
// References: softmax in float64 computed here, and a stable sort of it.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, refSoftmax, maxRelErr } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// Descending by probability, ties by the lower index.
function refTopk(x, k) {
  const y = refSoftmax(x);
  const order = [...y.keys()].sort((a, b) => (x[b] - x[a]) || (a - b));
  return { probs: order.slice(0, k).map((i) => y[i]), indices: order.slice(0, k) };
}

describe('softmaxTopk', () => {
  it('the k largest probabilities and their indices, both builds', () => {
    for (const ss of [simd, scalar]) {
      for (const [n, k] of [[1, 1], [5, 1], [5, 5], [17, 3], [100, 10], [4099, 64]]) {
        const x = randomLogits(n, n * 13 + k, 16);
        const got = ss.softmaxTopk(x, k);
        expect(got.probs).toBeInstanceOf(Float32Array);
        expect(got.indices).toBeInstanceOf(Uint32Array);
        expect(got.probs.length).toBe(k);
        const want = refTopk(x, k);
        expect(Array.from(got.indices), `${ss.impl} n=${n} k=${k}`).toEqual(want.indices);
        expect(maxRelErr(got.probs, want.probs).err, `${ss.impl} n=${n} k=${k}`).toBeLessThanOrEqual(2e-6);
      }
    }
  });

  it('ties go to the lower index; masked entries rank last', () => {
    const x = new Float32Array([1, 3, -Infinity, 3, 0, 3]);
    const { indices, probs } = simd.softmaxTopk(x, 4);
    expect(Array.from(indices)).toEqual([1, 3, 5, 0]);
    expect(probs[0]).toBe(probs[1]);
    const all = simd.softmaxTopk(x, 6);
    expect(all.indices[5]).toBe(2);
    expect(all.probs[5]).toBe(0);
  });

  it('k must be an integer in [1, n]; bad data names x', () => {
    const x = new Float32Array([1, 2, 3]);
    expect(() => simd.softmaxTopk(x, 0)).toThrow(/k = 0 must be in \[1, 3\]/);
    expect(() => simd.softmaxTopk(x, 4)).toThrow(/k = 4 must be in \[1, 3\]/);
    expect(() => simd.softmaxTopk(x, 1.5)).toThrow(/k must be an integer/);
    expect(() => simd.softmaxTopk([1, 2], 1)).toThrow(/x must be a Float32Array \(got Array\)/);
    expect(() => simd.softmaxTopk(new Float32Array([1, NaN]), 1)).toThrow(/x contains NaN \(at index 1\)/);
    expect(() => simd.softmaxTopk(new Float32Array([-Infinity]), 1)).toThrow(/x is all -Inf/);
  });
});

describe('softmaxState', () => {
  it('chunks folded into a state, then applied, give the softmax of the whole (2e-6 relative)', () => {
    for (const ss of [simd, scalar]) {
      const x = randomLogits(1000, 3, 30);
      const cuts = [0, 1, 7, 64, 333, 999, 1000];
      const st = ss.softmaxState();
      expect(st.max).toBe(-Infinity);
      expect(st.sum).toBe(0);
      for (let c = 0; c + 1 < cuts.length; c++) st.update(x.subarray(cuts[c], cuts[c + 1]));
      expect(st.max).toBe(Math.max(...x));
      const ref = refSoftmax(x);
      let s = 0;
      for (const v of x) s += Math.exp(v - st.max);
      expect(Math.abs(st.sum - s) / s).toBeLessThanOrEqual(2e-6);
      const y = new Float32Array(1000);
      for (let c = 0; c + 1 < cuts.length; c++) y.set(st.apply(x.subarray(cuts[c], cuts[c + 1])), cuts[c]);
      expect(maxRelErr(y, ref).err, ss.impl).toBeLessThanOrEqual(2e-6);
    }
  });

  it('merging two partial states equals one state over everything', () => {
    const x = randomLogits(500, 9, 20);
    const a = simd.softmaxState().update(x.subarray(0, 200));
    const b = simd.softmaxState().update(x.subarray(200));
    const whole = simd.softmaxState().update(x);
    expect(a.merge(b)).toBe(a);
    expect(a.max).toBe(whole.max);
    expect(Math.abs(a.sum - whole.sum) / whole.sum).toBeLessThanOrEqual(1e-6);
  });

  it('states hold no wasm memory: many states, no live allocation', () => {
    const before = simd.heapStats();
    const x = randomLogits(64, 1);
    for (let i = 0; i < 1000; i++) simd.softmaxState().update(x).apply(x);
    const after = simd.heapStats();
    expect(after.liveAllocations).toBe(before.liveAllocations);
    expect(after.totalAllocations).toBe(before.totalAllocations);
  });

  it('an all -Inf chunk is fine in update; apply needs a finite logit seen', () => {
    const st = simd.softmaxState().update(new Float32Array([-Infinity, -Infinity]));
    expect(st.max).toBe(-Infinity);
    expect(() => st.apply(new Float32Array([1]))).toThrow(/has seen only -Inf/);
    st.update(new Float32Array([0.5]));
    expect(Array.from(st.apply(new Float32Array([0.5, -Infinity])))).toEqual([1, 0]);
  });

  it('errors name x: NaN with its index, a logit above the state max, wrong types', () => {
    const st = simd.softmaxState().update(new Float32Array([1, 2]));
    expect(() => st.update(new Float32Array([0, NaN]))).toThrow(/x contains NaN \(at index 1\)/);
    expect(() => st.update(new Float32Array([Infinity]))).toThrow(/x contains \+Inf \(at index 0\)/);
    expect(() => st.apply(new Float32Array([1, 5]))).toThrow(/x\[1\] = 5 is above the state's max 2/);
    expect(() => st.update([1])).toThrow(/x must be a Float32Array/);
    expect(() => st.merge({ max: 1, sum: 1 })).toThrow(/other must be a state/);
    expect(() => st.merge(scalar.softmaxState())).toThrow(/other must be a state from the same instance/);
    // The failed calls left the state as it was.
    expect(st.max).toBe(2);
  });

  it('max and sum are read-only; reset empties the state', () => {
    const st = simd.softmaxState().update(new Float32Array([3]));
    expect(() => { st.max = 10; }).toThrow(TypeError);
    expect(st.reset().max).toBe(-Infinity);
  });
});
