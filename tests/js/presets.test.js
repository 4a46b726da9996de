// @vitest-environment happy-dom
// Presets: deterministic in (name, n, seed), of the requested length, inside
// the editor's range, and shaped as their names say.
import { describe, it, expect } from 'vitest';
import { makePreset, PRESET_NAMES, LOGIT_LIMIT, N_MIN, N_MAX } from '../../wasm/analysis/presets.js';

const argsort = (xs) => xs.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0]).map((p) => p[1]);

describe('presets', () => {
  it('has the four presets of the issue', () => {
    expect(PRESET_NAMES).toEqual(['random_normal', 'planted_peak', 'two_modes', 'long_tail']);
  });

  for (const name of PRESET_NAMES) {
    it(`${name}: deterministic, requested length, finite, in range`, () => {
      for (const n of [N_MIN, 3, 16, 33, N_MAX]) {
        const a = makePreset(name, n, 42);
        expect(a).toHaveLength(n);
        expect(makePreset(name, n, 42)).toEqual(a);
        for (const v of a) {
          expect(Number.isFinite(v)).toBe(true);
          expect(Math.abs(v)).toBeLessThanOrEqual(LOGIT_LIMIT);
          expect(Math.round(v * 1000) / 1000).toBe(v); // 3 decimals: exact in the URL
        }
      }
      // Another seed gives another vector.
      expect(makePreset(name, 16, 43)).not.toEqual(makePreset(name, 16, 42));
    });
  }

  it('presets do not share their noise', () => {
    expect(makePreset('random_normal', 16, 1)).not.toEqual(makePreset('planted_peak', 16, 1));
  });

  it('planted peak: one logit stands out; two modes: two do', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const p = makePreset('planted_peak', 32, seed);
      const [a, b] = argsort(p);
      expect(p[a] - p[b]).toBeGreaterThan(1); // 4 above N(0, 0.5²) noise
      const t = makePreset('two_modes', 32, seed);
      const [m1, m2, m3] = argsort(t);
      expect(m1).not.toBe(m2);
      expect(t[m2] - t[m3]).toBeGreaterThan(0.5);
    }
  });

  it('long tail decreases overall', () => {
    const t = makePreset('long_tail', 64, 5);
    expect(t[0]).toBeGreaterThan(t[7]);
    expect(t[7]).toBeGreaterThan(t[63]);
  });

  it('random normal looks standard-ish (mean near 0, sd near 1.5)', () => {
    const xs = makePreset('random_normal', 64, 11).concat(makePreset('random_normal', 64, 12));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
    expect(Math.abs(mean)).toBeLessThan(0.5);
    expect(sd).toBeGreaterThan(1);
    expect(sd).toBeLessThan(2);
  });

  it('rejects a bad name or length', () => {
    expect(() => makePreset('nope', 8)).toThrow(/unknown preset "nope"/);
    expect(() => makePreset('long_tail', 1)).toThrow(RangeError);
    expect(() => makePreset('long_tail', 65)).toThrow(RangeError);
    expect(() => makePreset('long_tail', 2.5)).toThrow(RangeError);
  });
});
