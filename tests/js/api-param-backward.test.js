// Parameter gradients (e.g. d entmax / d alpha, which adaptively sparse
// transformers learn): for every normalizer with has_param_backward and each
// of its float parameters, sum_j g_j dy_j/dtheta must match a central
// difference of <g, y(theta)> in theta (with one Richardson step). The parameter is a double, so the
// step is exact; the error budget is the O(h^2) truncation plus the float32
// rounding of the outputs (|L| 2^-21 / h), as in api-backward.test.js.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, dot } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// Parameter points to differentiate at, inside each range, away from kinks.
const POINTS = { alpha: [1.25, 1.5, 1.8, 2.5] };

describe('normalizeParamBackward', () => {
  it('every kernel with a parameter gradient matches central differences in the parameter', () => {
    const ks = simd.kernels('normalizer').filter((k) => k.has_param_backward);
    let checked = 0, skipped = 0;
    for (const k of ks) {
      const floats = k.params.filter((p) => p.type === 'float');
      expect(floats.length, k.name).toBeGreaterThan(0);
      for (const p of floats) {
        const points = POINTS[p.name] ?? [p.default];
        for (const v0 of points) {
          for (const n of [3, 17, 64]) {
            const x = randomLogits(n, 31 + n, 3), g = randomLogits(n, 57 + n, 2);
            for (const ss of [simd, scalar]) {
              const base = Object.fromEntries(k.params.map((q) => [q.name, q.default]));
              const at = (v) => ({ ...base, [p.name]: v });
              const y = ss.normalize(k.name, x, at(v0));
              const grad = ss.normalizeParamBackward(k.name, x, y, g, at(v0));
              expect(Object.keys(grad).sort()).toEqual(k.params.map((q) => q.name).sort());
              const h = 1e-3 * Math.max(1, Math.abs(v0));
              const L = (v) => dot(g, ss.normalize(k.name, x, at(v)));
              // Piecewise smooth in the parameter too: skip points where the
              // support (the exact zeros) changes within the step.
              const zeros = (v) => Array.from(ss.normalize(k.name, x, at(v)), (t) => t === 0).join();
              if (zeros(v0 + h) !== zeros(v0) || zeros(v0 - h) !== zeros(v0)) { skipped++; continue; }
              checked++;
              // One Richardson step: near the edge of the support y = u^(1/(alpha-1))
              // is strongly curved in alpha (alpha > 2), O(h^2) is not enough.
              const D = (t) => (L(v0 + t) - L(v0 - t)) / (2 * t);
              const fd = (4 * D(h / 2) - D(h)) / 3;
              let absL = 0;
              for (let i = 0; i < n; i++) absL += Math.abs(g[i] * y[i]);
              const bound = 2e-3 * (1 + Math.abs(fd)) + (absL * 2 ** -21) / h;
              expect(Math.abs(grad[p.name] - fd), `${k.name} ${p.name}=${v0} ${ss.impl} n=${n}: ${grad[p.name]} vs fd ${fd}`)
                .toBeLessThanOrEqual(bound);
            }
          }
        }
      }
    }
    expect(checked, `checked ${checked}, skipped ${skipped} (support changes)`).toBeGreaterThan(10 * skipped);
  });

  it('kernels without one say so, naming the kernel', () => {
    const x = Float32Array.from([1, 2, 3]);
    expect(() => simd.normalizeParamBackward('softmax', x, simd.normalize('softmax', x), x))
      .toThrow(/"softmax" has no parameter gradient/);
  });
});
