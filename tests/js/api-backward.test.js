// Backward passes against central finite differences computed here in JS:
// for L(x) = <g, f(x)>, the VJP must satisfy <dx, v> = dL/dv for any
// direction v. The difference quotient uses one Richardson step (error
// O(h^4), bounded by 1e-4 * (1 + |dL/dv|) here) and is evaluated on float32
// outputs: if each output y_i is off by at most 4 ulps, L is off by at most
// eps_L = sum |g_i y_i| 2^-21, and (4 D(h/2) - D(h)) / 3 by 3 eps_L / h.
// The sum of the two is the bound; a wrong formula (a missing term, a wrong
// sign) is off by O(1).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, randomPositive, randomUnit, directionalFD, dot, refSoftmax, fitParams } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

const TOL = 1e-4;
const H = 2e-2;
const roundingBound = (g, y) => {
  let e = 0;
  for (let i = 0; i < y.length; i++) e += Math.abs(g[i] * y[i]);
  return (3 * e * 2 ** -21) / H;
};

// Kernel-specific parameter settings to try besides the defaults.
const EXTRA_PARAMS = { softmax_temperature: [{ temperature: 0.5 }, { temperature: 3 }] };

// The zero pattern of y is the same at every point the difference quotient
// evaluates (x +- H v, x +- H/2 v).
function sameSupport(ss, name, x, v, params, y) {
  for (const t of [H, -H, H / 2, -H / 2]) {
    const yt = ss.normalize(name, Float32Array.from(x, (xi, i) => xi + t * v[i]), params);
    for (let i = 0; i < y.length; i++) if ((yt[i] === 0) !== (y[i] === 0)) return false;
  }
  return true;
}

describe('normalizeBackward', () => {
  it('softmax: dx = y * (g - <g, y>) exactly as the float64 formula', () => {
    const x = randomLogits(33, 1, 6), g = randomLogits(33, 2, 2);
    const y = refSoftmax(x), gy = dot(g, y);
    for (const ss of [simd, scalar]) {
      const dx = ss.normalizeBackward('softmax', x, ss.normalize('softmax', x), g);
      for (let i = 0; i < 33; i++) expect(Math.abs(dx[i] - y[i] * (g[i] - gy))).toBeLessThanOrEqual(1e-6);
    }
  });

  it('every normalizer with a backward pass matches finite differences, both builds', () => {
    const ks = simd.kernels('normalizer').filter((k) => k.has_backward);
    expect(ks.length).toBeGreaterThan(0);
    for (const k of ks) {
      for (const extra of [{}, ...(EXTRA_PARAMS[k.name] ?? [])]) {
        for (const n of [1, 2, 5, 17, 64]) {
          const params = fitParams(k, n, extra);
          const x = randomLogits(n, 100 + n, 4);
          const g = randomLogits(n, 200 + n, 2);
          for (const ss of [simd, scalar]) {
            const L = (z) => dot(g, ss.normalize(k.name, z, params));
            const y = ss.normalize(k.name, x, params);
            const dx = ss.normalizeBackward(k.name, x, y, g, params);
            expect(dx.length).toBe(n);
            // Sparse kernels are piecewise smooth: a direction whose steps
            // change the support (which entries are exactly 0) crosses a
            // kink, where a difference quotient means nothing. Such
            // directions are skipped; at least two per case must be usable.
            let checked = 0;
            for (let s = 0; s < 12 && checked < 3; s++) {
              const v = randomUnit(n, 300 + 10 * n + s);
              if (!sameSupport(ss, k.name, x, v, params, y)) continue;
              checked++;
              const fd = directionalFD(L, x, v, H);
              const an = dot(dx, v);
              expect(Math.abs(an - fd), `${k.name} ${JSON.stringify(params)} ${ss.impl} n=${n}: <dx,v>=${an} fd=${fd}`)
                .toBeLessThanOrEqual(TOL * (1 + Math.abs(fd)) + roundingBound(g, y));
            }
            expect(checked, `${k.name} ${ss.impl} n=${n}: directions that keep the support`).toBeGreaterThanOrEqual(2);
          }
        }
      }
    }
  });

  it('masked logits get zero gradient (softmax)', () => {
    const x = new Float32Array([1, -Infinity, 0.5]);
    const dx = simd.normalizeBackward('softmax', x, simd.normalize('softmax', x), new Float32Array([1, 5, -2]));
    expect(dx[1]).toBe(0);
  });
});

describe('measureBackward', () => {
  it('every one-input measure with a backward pass matches finite differences', () => {
    const ks = simd.kernels('measure').filter((k) => k.has_backward && k.input !== 'probs_pair');
    expect(ks.map((k) => k.name)).toContain('entropy');
    for (const k of ks) {
      // a spread of values (kurtosis) needs two of them
      for (const n of k.input === 'values' ? [2, 3, 16, 41] : [1, 3, 16, 41]) {
        // Logit inputs anywhere; probability inputs kept away from 0, where
        // e.g. the entropy's gradient -log p - 1 diverges.
        const p = k.input === 'logits' ? randomLogits(n, 7 * n, 6) : randomPositive(n, 7 * n, 0.1, 1);
        for (const ss of [simd, scalar]) {
          for (const g of [1, -2.5]) {
            const dp = ss.measureBackward(k.name, p, g);
            expect(dp.length).toBe(n);
            const v = randomUnit(n, 11 * n);
            const fd = g * directionalFD((z) => ss.measure(k.name, z), p, v, H);
            // The measure is a double computed from float32 terms: its
            // rounding is bounded like a sum of n outputs of size |value|.
            const val = ss.measure(k.name, p);
            const noise = roundingBound(new Float32Array(n).fill(g), new Float32Array(n).fill(1 + Math.abs(val)));
            expect(Math.abs(dot(dp, v) - fd), `${k.name} ${ss.impl} n=${n} g=${g}`).toBeLessThanOrEqual(TOL * (1 + Math.abs(fd)) + noise);
          }
        }
      }
    }
  });

  it('entropy gradient is -(log p + 1), and the logsumexp gradient is softmax', () => {
    const p = randomPositive(9, 3, 0.1, 1);
    const dp = simd.measureBackward('entropy', p);
    for (let i = 0; i < 9; i++) expect(Math.abs(dp[i] + Math.log(p[i]) + 1)).toBeLessThanOrEqual(1e-5);
    const x = randomLogits(9, 4);
    const dx = simd.measureBackward('logsumexp', x);
    const y = refSoftmax(x);
    for (let i = 0; i < 9; i++) expect(Math.abs(dx[i] - y[i])).toBeLessThanOrEqual(1e-6);
  });
});
