// Normalizers through the JS API: softmax against a float64 reference on both
// builds, SIMD vs scalar agreement, and every registered normalizer (read
// from the registry, not a hard-coded list) on random and masked inputs.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, refSoftmax, maxRelErr, fitParams } from './support/reference.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// Lengths around the 4- and 16-wide SIMD blocks, and a few large ones.
const SIZES = [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 1000, 4097, 65539];

describe('softmax', () => {
  // Same bound as the C suite (tests/c/test_softmax.c): every output >= 1e-30
  // within 2e-6 relative of softmax computed in float64 from the same floats.
  it.each(['simd', 'scalar'])('%s: within 2e-6 relative of float64, n = 1 .. 65539', (which) => {
    const ss = which === 'simd' ? simd : scalar;
    for (const n of SIZES) {
      for (const range of [1, 20, 100]) {
        const x = randomLogits(n, 7 * n + range, range);
        const y = ss.normalize('softmax', x);
        expect(y).toBeInstanceOf(Float32Array);
        expect(y.length).toBe(n);
        const { err, at } = maxRelErr(y, refSoftmax(x));
        expect(err, `n=${n} range=${range} at ${at}`).toBeLessThanOrEqual(2e-6);
      }
    }
  });

  // Each is within 2e-6 of float64, so they are within 4e-6 of each other.
  it('simd and scalar agree within 4e-6 relative (outputs >= 1e-30)', () => {
    for (const n of SIZES) {
      const x = randomLogits(n, 1000 + n, 40);
      const a = simd.normalize('softmax', x), b = scalar.normalize('softmax', x);
      expect(maxRelErr(a, Float64Array.from(b)).err, `n=${n}`).toBeLessThanOrEqual(4e-6);
    }
  });

  it('a -Inf logit is masked: exactly 0, the rest is the softmax of the others', () => {
    const x = new Float32Array([1, -Infinity, 2, -Infinity, 0.5]);
    for (const ss of [simd, scalar]) {
      const y = ss.normalize('softmax', x);
      expect(y[1]).toBe(0);
      expect(y[3]).toBe(0);
      const ref = refSoftmax(new Float32Array([1, 2, 0.5]));
      expect(maxRelErr([y[0], y[2], y[4]], ref).err).toBeLessThanOrEqual(2e-6);
    }
  });

  it('is shift invariant and survives huge logits (no overflow)', () => {
    const x = new Float32Array([1e30, 1e30, -1e30]);
    const y = simd.normalize('softmax', x);
    expect(Array.from(y)).toEqual([0.5, 0.5, 0]);
  });

  it('accepts a Float64Array (converted to float32) with the same result', () => {
    const x = randomLogits(37, 5);
    expect(simd.normalize('softmax', Float64Array.from(x))).toEqual(simd.normalize('softmax', x));
  });

  it('returns a fresh array each call (not a view on the wasm heap)', () => {
    const x = randomLogits(8, 1);
    const a = simd.normalize('softmax', x), b = simd.normalize('softmax', x);
    expect(a).not.toBe(b);
    expect(a.buffer).not.toBe(simd.exports.memory.buffer);
    simd.normalize('softmax', randomLogits(8, 2));
    expect(a).toEqual(b);
  });
});

describe('softmax_temperature', () => {
  it('equals softmax(x / T) in float64 within 4e-6 relative, both builds', () => {
    const k = simd.kernels('normalizer').find((e) => e.name === 'softmax_temperature');
    expect(k, 'softmax_temperature is registered').toBeDefined();
    for (const T of [0.25, 0.5, 1, 2, 10]) {
      const x = randomLogits(129, 11, 10);
      for (const ss of [simd, scalar]) {
        const y = ss.normalize('softmax_temperature', x, { temperature: T });
        expect(maxRelErr(y, refSoftmax(x, T)).err, `T=${T} ${ss.impl}`).toBeLessThanOrEqual(4e-6);
      }
    }
  });

  it('uses the registry default when the parameter is omitted (T = 1 is softmax)', () => {
    const x = randomLogits(50, 3);
    const def = simd.kernel('softmax_temperature').params.find((p) => p.name === 'temperature').default;
    expect(def).toBe(1);
    expect(maxRelErr(simd.normalize('softmax_temperature', x), refSoftmax(x)).err).toBeLessThanOrEqual(2e-6);
  });
});

describe('every registered normalizer', () => {
  // Parameters at their defaults; the property checked depends on the output
  // kind the registry declares.
  const outputCheck = (k, y, label) => {
    if (k.output === 'log_probs') {
      let s = 0;
      for (const v of y) { expect(v, label).toBeLessThanOrEqual(0); s += Math.exp(v); }
      expect(Math.abs(s - 1), `${label}: sum exp(y)`).toBeLessThanOrEqual(1e-5);
    } else if (k.output === 'weights') {
      // Weights need not sum to 1 and may be negative (sa_softmax's and the
      // boltzmann terms x * softmax(b x) are < 0 for x < 0): finite is the rule.
      for (const v of y) expect(Number.isFinite(v), label).toBe(true);
    } else {
      let s = 0;
      for (const v of y) { expect(v, label).toBeGreaterThanOrEqual(0); expect(v, label).toBeLessThanOrEqual(1); s += v; }
      expect(Math.abs(s - 1), `${label}: sum`).toBeLessThanOrEqual(1e-5);
    }
  };

  it('there are normalizers to test', () => {
    expect(simd.kernels('normalizer').length).toBeGreaterThan(0);
  });

  it('finite output of the right length on random logits, on both builds', () => {
    for (const k of simd.kernels('normalizer')) {
      for (const n of [1, 3, 16, 33, 1000]) {
        const x = randomLogits(n, n + 17, 12);
        for (const ss of [simd, scalar]) {
          const y = ss.normalize(k.name, x, fitParams(k, n));
          const label = `${k.name} ${ss.impl} n=${n}`;
          expect(y.length, label).toBe(n);
          for (const v of y) expect(Number.isFinite(v), label).toBe(true);
          outputCheck(k, y, label);
        }
      }
    }
  });

  it('a -Inf logit gets probability exactly 0 (log-probability -Inf)', () => {
    for (const k of simd.kernels('normalizer')) {
      const x = new Float32Array([0.3, -Infinity, 1.5, -2, -Infinity]);
      for (const ss of [simd, scalar]) {
        const y = ss.normalize(k.name, x, fitParams(k, x.length));
        const masked = k.output === 'log_probs' ? -Infinity : 0;
        expect(y[1], `${k.name} ${ss.impl}`).toBe(masked);
        expect(y[4], `${k.name} ${ss.impl}`).toBe(masked);
      }
    }
  });

  // The C suite bounds each kernel against float64; here the two builds are
  // compared: probabilities within 1e-5 relative (>= 1e-30), log-probabilities
  // within 1e-5 absolute (they are O(1) and can cross 0).
  it('simd and scalar agree (probs 1e-5 relative, log-probs 1e-5 absolute)', () => {
    for (const k of simd.kernels('normalizer')) {
      for (const n of [5, 64, 1001]) {
        const x = randomLogits(n, 3 * n, 16);
        const a = simd.normalize(k.name, x, fitParams(k, n)), b = scalar.normalize(k.name, x, fitParams(k, n));
        // Sparse outputs (exact zeros): an entry just above the threshold,
        // y = u^(1/(alpha-1)) with u small, has a large relative sensitivity
        // to tau; there the bound is 1e-5 relative + 1e-6 absolute.
        if (b.some((v) => v === 0) && k.output !== 'log_probs') {
          for (let i = 0; i < n; i++)
            expect(Math.abs(a[i] - b[i]), `${k.name} n=${n} i=${i}`).toBeLessThanOrEqual(1e-5 * Math.abs(b[i]) + 1e-6);
        } else if (k.output === 'log_probs') {
          for (let i = 0; i < n; i++) expect(Math.abs(a[i] - b[i]), `${k.name} n=${n} i=${i}`).toBeLessThanOrEqual(1e-5);
        } else {
          expect(maxRelErr(a, Float64Array.from(b)).err, `${k.name} n=${n}`).toBeLessThanOrEqual(1e-5);
        }
      }
    }
  });
});
