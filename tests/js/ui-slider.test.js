// @vitest-environment happy-dom
// Slider mapping: position -> value -> position is the identity, log scale is
// linear in ln(value) (equal steps are equal ratios), ends are clamped.
import { describe, it, expect } from 'vitest';
import { valueToPosition, positionToValue } from '../../web/src/lib/sliderScale.js';
import { sharedParams, sliderRange } from '../../web/src/lib/params.js';
import { kernelParams } from '../../wasm/analysis/params.js';

const LOG = { min: 0.05, max: 20, log: true };
const LIN = { min: -3, max: 5, log: false };

describe('slider scale', () => {
  for (const [label, r] of [['log', LOG], ['linear', LIN]]) {
    it(`${label}: round-trips positions and values`, () => {
      for (let i = 0; i <= 1000; i++) {
        const t = i / 1000;
        const v = positionToValue(t, r);
        expect(v).toBeGreaterThanOrEqual(r.min);
        expect(v).toBeLessThanOrEqual(r.max);
        expect(Math.abs(valueToPosition(v, r) - t)).toBeLessThan(1e-12);
        // value -> position -> value, relative error at double rounding level
        expect(Math.abs(positionToValue(valueToPosition(v, r), r) - v)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(v)));
      }
      expect(positionToValue(0, r)).toBe(r.min);
      expect(positionToValue(1, r)).toBe(r.max);
      expect(positionToValue(-1, r)).toBe(r.min);
      expect(positionToValue(2, r)).toBe(r.max);
      expect(valueToPosition(r.max * 10, r)).toBe(1);
    });
  }

  it('log: the middle is the geometric mean, equal steps are equal ratios', () => {
    expect(positionToValue(0.5, LOG)).toBeCloseTo(Math.sqrt(0.05 * 20), 12);
    const a = positionToValue(0.2, LOG) / positionToValue(0.1, LOG);
    const b = positionToValue(0.9, LOG) / positionToValue(0.8, LOG);
    expect(a).toBeCloseTo(b, 12);
    expect(valueToPosition(1, { min: 0.1, max: 10, log: true })).toBeCloseTo(0.5, 14);
  });

  it('linear: the middle is the mean; integer params snap', () => {
    expect(positionToValue(0.5, LIN)).toBe(1);
    expect(positionToValue(0.33, { min: 1, max: 10, integer: true })).toBe(4);
  });
});

describe('parameters from the registry', () => {
  const temp = { name: 'temperature', type: 'float', min: 0, max: 1000, default: 1, ui_min: 0.05, ui_max: 20, log_scale: true };
  const k = { name: 'k', type: 'int', min: 1, max: 4096, default: 5, ui_min: 1, ui_max: 64, log_scale: false };
  const kernels = [
    { name: 'softmax', params: [] },
    { name: 'softmax_temperature', params: [temp] },
    { name: 'other', params: [k, temp] },
  ];

  it('one control per parameter name, listing the kernels that share it', () => {
    const s = sharedParams(kernels);
    expect(s.map((p) => p.name)).toEqual(['temperature', 'k']);
    expect(s[0].kernels).toEqual(['softmax_temperature', 'other']);
  });

  it('each kernel gets only its own params, defaults where unset (kernelParams, the one helper of the views)', () => {
    expect(kernelParams(kernels[0], { temperature: 0.5 })).toEqual({});
    expect(kernelParams(kernels[1], { temperature: 0.5 })).toEqual({ temperature: 0.5 });
    expect(kernelParams(kernels[2], { temperature: 0.5 })).toEqual({ k: 5, temperature: 0.5 });
    // kernel-scoped values, a view's own defaults, values the view fixes
    expect(kernelParams(kernels[2], { 'other.k': 9, k: 3 }, { scoped: true })).toEqual({ k: 9, temperature: 1 });
    expect(kernelParams(kernels[2], {}, { defaults: { k: 7, temperature: NaN } })).toEqual({ k: 7, temperature: 1 });
    expect(kernelParams(kernels[2], { temperature: 0.5 }, { fixed: { temperature: 2 } })).toEqual({ k: 5, temperature: 2 });
  });

  it('slider ranges come from ui_min/ui_max and log_scale', () => {
    expect(sliderRange(temp)).toEqual({ min: 0.05, max: 20, log: true, integer: false });
    expect(sliderRange(k)).toEqual({ min: 1, max: 64, log: false, integer: true });
  });
});
