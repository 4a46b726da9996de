// Measures through the JS API against float64 references written here from
// each registry formula. The measures the CLI's metrics need (sum, entropy,
// max_prob, support) must be registered. Any measure without a reference
// here still has to run and give a finite number on both builds.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomProbs, randomLogits, refEntropy, refLogSumExp, refKurtosis } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

const sum = (a) => Array.from(a).reduce((s, v) => s + v, 0);
const powSum = (p, a) => Array.from(p).reduce((s, v) => s + (v > 0 ? v ** a : 0), 0);

// name -> (p, q, params) -> float64 value
const REF = {
  sum: (p) => sum(p),
  entropy: (p) => refEntropy(p),
  renyi_entropy: (p, _, { alpha }) => (alpha === 1 ? refEntropy(p) : Math.log(powSum(p, alpha)) / (1 - alpha)),
  tsallis_entropy: (p, _, { alpha }) => (alpha === 1 ? refEntropy(p) : (1 - powSum(p, alpha)) / (alpha - 1)),
  zero_fraction: (p) => Array.from(p).filter((v) => v === 0).length / p.length,
  support: (p) => Array.from(p).filter((v) => v !== 0).length,
  max_prob: (p) => Math.max(...p),
  effective_count: (p) => Math.exp(refEntropy(p)),
  kl_divergence: (p, q) => {
    let s = 0;
    for (let i = 0; i < p.length; i++) if (p[i] > 0) s += q[i] > 0 ? p[i] * Math.log(p[i] / q[i]) : Infinity;
    return s;
  },
  hellinger: (p, q) => Math.sqrt(0.5 * Array.from(p).reduce((s, v, i) => s + (Math.sqrt(v) - Math.sqrt(q[i])) ** 2, 0)),
  collapse: (p) => Array.from(p).filter((v) => v === 0 || v === 1).length / p.length,
  logsumexp: (x) => refLogSumExp(x),
  kurtosis: (x) => refKurtosis(x),
  max_median_ratio: (x) => {
    const a = Array.from(x, Math.abs).sort((p, q) => p - q), n = a.length;
    return a[n - 1] / (n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2);
  },
};
const PARAMS = { renyi_entropy: [{ alpha: 0.5 }, { alpha: 2 }, { alpha: 1 }], tsallis_entropy: [{ alpha: 0.5 }, { alpha: 3 }, { alpha: 1 }] };

// Inputs: probability vectors with exact zeros and an exact 1 somewhere, so
// the counting measures have something to count.
function inputs(k, n, seed) {
  if (k.input === 'logits') return [randomLogits(n, seed, 10), null];
  const p = randomProbs(n, seed);
  if (n > 4) { p[1] = 0; p[n - 1] = 0; }
  const q = randomProbs(n, seed + 1);
  return [p, k.input === 'probs_pair' ? q : null];
}

describe('measures', () => {
  it('the measures the CLI metrics use are registered', () => {
    const names = simd.kernels('measure').map((k) => k.name);
    for (const m of ['sum', 'entropy', 'max_prob', 'support']) expect(names).toContain(m);
  });

  // 1e-6 relative (+1e-12 absolute for values near 0): the kernels accumulate
  // in double; the remaining error is float32 log/pow (a few ulps per term).
  it('each measure with a reference matches it within 1e-6 relative, both builds', () => {
    const ks = simd.kernels('measure').filter((k) => REF[k.name]);
    expect(ks.length).toBeGreaterThanOrEqual(4);
    for (const k of ks) {
      for (const params of PARAMS[k.name] ?? [{}]) {
        const full = Object.fromEntries(k.params.map((p) => [p.name, params[p.name] ?? p.default]));
        // a spread of values (kurtosis) needs two of them
        for (const n of k.input === 'values' ? [4, 7, 64, 1000, 4099] : [1, 4, 7, 64, 1000, 4099]) {
          const [p, q] = inputs(k, n, 31 * n);
          const want = REF[k.name](p, q, full);
          for (const ss of [simd, scalar]) {
            const got = ss.measure(k.name, p, q, params);
            expect(Math.abs(got - want), `${k.name} ${JSON.stringify(params)} ${ss.impl} n=${n}: ${got} vs ${want}`)
              .toBeLessThanOrEqual(1e-6 * Math.abs(want) + 1e-12);
          }
        }
      }
    }
  });

  it('every registered measure runs on both builds and gives a finite number', () => {
    for (const k of simd.kernels('measure')) {
      const [p, q] = inputs(k, 33, 5);
      for (const ss of [simd, scalar]) {
        const v = ss.measure(k.name, p, q);
        expect(typeof v).toBe('number');
        expect(Number.isFinite(v), `${k.name} ${ss.impl}`).toBe(true);
      }
    }
  });

  it('KL(p || q) is +Infinity when some q_i = 0 < p_i (not an error)', () => {
    expect(simd.measure('kl_divergence', new Float32Array([0.5, 0.5]), new Float32Array([1, 0]))).toBe(Infinity);
    expect(simd.measure('kl_divergence', new Float32Array([1, 0]), new Float32Array([0.5, 0.5]))).toBeCloseTo(Math.log(2), 6);
  });

  it('one-input measures take params in the q position too', () => {
    const p = randomProbs(10, 1);
    expect(simd.measure('renyi_entropy', p, { alpha: 0.5 })).toBe(simd.measure('renyi_entropy', p, null, { alpha: 0.5 }));
  });

  it('uniform and one-hot: entropy log n and 0, effective count n and 1', () => {
    const u = new Float32Array(8).fill(1 / 8), h = new Float32Array(8);
    h[3] = 1;
    expect(Math.abs(simd.measure('entropy', u) - Math.log(8))).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(simd.measure('entropy', h))).toBe(0); // exactly zero (the sign of -0 aside)
    expect(Math.abs(simd.measure('effective_count', u) - 8)).toBeLessThanOrEqual(1e-5);
    expect(simd.measure('effective_count', h)).toBe(1);
  });
});
