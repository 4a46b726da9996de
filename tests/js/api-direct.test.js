// The direct calls beyond the registry's x -> y form (wasm/direct-calls.js):
// each is held to its definition, computed here independently.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, refSoftmax } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

describe('threshold (sparsemax / entmax15 by method)', () => {
  it('golden sparsemax [-2, 0, 0.5] -> [0, 0.25, 0.75], tau -0.25, support 2, both methods', () => {
    for (const method of ['select', 'sort']) {
      const r = simd.threshold('sparsemax', Float32Array.from([-2, 0, 0.5]), { method });
      expect(Array.from(r.y)).toEqual([0, 0.25, 0.75]);
      expect(r.tau).toBe(-0.25);
      expect(r.support).toBe(2);
    }
  });

  it('select and sort agree bitwise and y = [x - tau]_+ (sparsemax), [x/2 - tau]_+^2 (entmax15)', () => {
    const x = randomLogits(4099, 3, 6);
    for (const ss of [simd, scalar]) {
      for (const kernel of ['sparsemax', 'entmax15']) {
        const a = ss.threshold(kernel, x, { method: 'select' }), b = ss.threshold(kernel, x, { method: 'sort' });
        expect(Array.from(a.y)).toEqual(Array.from(b.y));
        expect(a.tau).toBe(b.tau);
        let nz = 0;
        for (let i = 0; i < x.length; i++) {
          const u = kernel === 'sparsemax' ? x[i] - a.tau : x[i] / 2 - a.tau;
          const want = u > 0 ? (kernel === 'sparsemax' ? u : u * u) : 0;
          expect(Math.abs(a.y[i] - want)).toBeLessThanOrEqual(1e-6);
          if (a.y[i] > 0) nz++;
        }
        expect(a.support).toBe(nz);
      }
    }
  });

  it('rejects an unknown kernel or method, naming it', () => {
    const x = Float32Array.from([1, 2]);
    expect(() => simd.threshold('softmax', x)).toThrow(expect.objectContaining({ argument: 'kernel' }));
    expect(() => simd.threshold('sparsemax', x, { method: 'heap' })).toThrow(expect.objectContaining({ argument: 'options.method' }));
    expect(() => simd.threshold('sparsemax', [1, 2])).toThrow(expect.objectContaining({ argument: 'x' }));
  });
});

describe('entmaxSolve', () => {
  // Iteration counts are deterministic, so this is a property, not a timing:
  // over the grid Halley needs >= 3x fewer passes in total (AdaSplash reports
  // 7x), and never more than half as many as bisection on any one row.
  it('Halley-bisection needs several times fewer passes than bisection at the same tolerance, same answer', () => {
    let totalB = 0, totalH = 0;
    for (const alpha of [1.25, 1.5, 2, 3]) {
      for (const n of [64, 1024, 65536]) {
        const x = randomLogits(n, 17 + n, 8);
        const b = simd.entmaxSolve(x, { alpha, solver: 'bisect', tol: 1e-6 });
        const h = simd.entmaxSolve(x, { alpha, solver: 'halley', tol: 1e-6 });
        expect(h.iterations * 1.5, `alpha ${alpha} n ${n}: ${h.iterations} vs ${b.iterations}`).toBeLessThanOrEqual(b.iterations);
        totalB += b.iterations;
        totalH += h.iterations;
        let s = 0;
        for (let i = 0; i < n; i++) {
          expect(Math.abs(b.y[i] - h.y[i])).toBeLessThanOrEqual(2e-5);
          s += h.y[i];
        }
        expect(Math.abs(s - 1)).toBeLessThanOrEqual(1e-5);
      }
    }
    expect(totalH * 3, `${totalH} vs ${totalB} passes`).toBeLessThanOrEqual(totalB);
  });

  it('rejects bad options, naming them', () => {
    const x = Float32Array.from([1, 2, 3]);
    expect(() => simd.entmaxSolve(x, { alpha: 1 })).toThrow(expect.objectContaining({ argument: 'options.alpha' }));
    expect(() => simd.entmaxSolve(x, { tol: -1 })).toThrow(expect.objectContaining({ argument: 'options.tol' }));
    expect(() => simd.entmaxSolve(x, { maxIter: 0 })).toThrow(expect.objectContaining({ argument: 'options.maxIter' }));
    expect(() => simd.entmaxSolve(x, { solver: 'newton' })).toThrow(expect.objectContaining({ argument: 'options.solver' }));
  });
});

describe('maskedSoftmax, vqSoftmax, boltzmann', () => {
  it('maskedSoftmax equals softmax with -Infinity at the masked entries; those are exactly 0', () => {
    const x = randomLogits(37, 5, 6), keep = Uint8Array.from(x, (_, i) => (i % 3 ? 1 : 0));
    const ref = refSoftmax(Float32Array.from(x, (v, i) => (keep[i] ? v : -Infinity)));
    for (const ss of [simd, scalar]) {
      const y = ss.maskedSoftmax(x, keep);
      y.forEach((v, i) => (keep[i] ? expect(Math.abs(v - ref[i]) / ref[i]).toBeLessThanOrEqual(2e-6) : expect(v).toBe(0)));
    }
    expect(() => simd.maskedSoftmax(x, Array.from(keep))).toThrow(expect.objectContaining({ argument: 'keep' }));
    expect(() => simd.maskedSoftmax(x, new Uint8Array(3))).toThrow(expect.objectContaining({ argument: 'keep' }));
    expect(() => simd.maskedSoftmax(x, new Uint8Array(37))).toThrow(expect.objectContaining({ code: 'SS_ERR_ALL_MASKED' }));
  });

  it('vqSoftmax equals the full softmax of the tied logits z[codes[v]]', () => {
    const z = randomLogits(16, 8, 5);
    const codes = Uint32Array.from({ length: 1000 }, (_, v) => (v * 2654435761) % 13); // codes 13..15 unused
    const ref = refSoftmax(Float32Array.from(codes, (c) => z[c]));
    for (const ss of [simd, scalar]) {
      const y = ss.vqSoftmax(z, codes);
      expect(y.length).toBe(1000);
      y.forEach((v, i) => expect(Math.abs(v - ref[i]) / ref[i]).toBeLessThanOrEqual(2e-6));
    }
    expect(() => simd.vqSoftmax(z, Uint32Array.from([0, 16]))).toThrow(expect.objectContaining({ argument: 'codes', index: 1 }));
    expect(() => simd.vqSoftmax(z, [0, 1])).toThrow(expect.objectContaining({ argument: 'codes' }));
  });

  it('boltzmann: b = 0 is the mean, large b the max, negative b the min', () => {
    const x = Float32Array.from([0.5, -1, 2, 1.5]);
    expect(Math.abs(simd.boltzmann(x, 0) - 0.75)).toBeLessThanOrEqual(1e-7);
    expect(Math.abs(simd.boltzmann(x, 200) - 2)).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(simd.boltzmann(x, -200) + 1)).toBeLessThanOrEqual(1e-6);
    expect(() => simd.boltzmann(x, Infinity)).toThrow(expect.objectContaining({ argument: 'b' }));
  });
});
