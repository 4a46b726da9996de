// The figures' scales (wasm/figures/scale.js) against their definitions:
// linear maps the domain onto the range and back, nice() widens to round
// numbers that hold the domain, ticks are round and inside; log is linear in
// log_b x with ticks at whole powers; band spaces equal bands with an inner
// padding.
import { describe, it, expect } from 'vitest';
import { scaleLinear, scaleLog, scaleBand } from '../../wasm/figures/scale.js';

describe('figure scales', () => {
  it('linear: maps, inverts, clamps; nice holds the domain on round ends; ticks are round and inside', () => {
    const s = scaleLinear().domain([0.13, 0.87]).range([300, 100]);
    expect(s(0.13)).toBe(300);
    expect(s(0.87)).toBe(100);
    expect(s(0.5)).toBeCloseTo(200, 10);
    expect(s.invert(200)).toBeCloseTo(0.5, 12);
    const n = s.nice(5);
    const [a, b] = n.domain();
    expect(a).toBeLessThanOrEqual(0.13);
    expect(b).toBeGreaterThanOrEqual(0.87);
    expect(a * 10).toBeCloseTo(Math.round(a * 10), 9);
    for (const t of n.ticks(5)) {
      expect(t).toBeGreaterThanOrEqual(a);
      expect(t).toBeLessThanOrEqual(b);
      expect(t * 10).toBeCloseTo(Math.round(t * 10), 9);
    }
    expect(s.clamp(true)(2)).toBe(100);
    expect(s(2)).toBeLessThan(100); // the original is not changed
  });

  it('log: linear in log10 x, ticks at whole powers, invert', () => {
    const s = scaleLog().base(10).domain([1e-3, 10]).range([0, 400]);
    expect(s(1e-3)).toBeCloseTo(0, 10);
    expect(s(1e-1)).toBeCloseTo(200, 10);
    expect(s.invert(300)).toBeCloseTo(1, 10);
    expect(s.ticks()).toEqual([1e-3, 1e-2, 1e-1, 1, 10].map((v, i) => (i < 3 ? 10 ** (i - 3) : v)));
    const b2 = scaleLog().base(2).domain([2, 1024]).range([0, 9]);
    expect(b2(32)).toBeCloseTo(4, 10);
  });

  it('band: n equal bands with inner padding p span the range', () => {
    const s = scaleBand().domain([0, 1, 2, 3]).range([0, 390]).paddingInner(0.25);
    const step = 390 / (4 - 0.25);
    expect(s.bandwidth()).toBeCloseTo(step * 0.75, 10);
    expect(s(0)).toBe(0);
    expect(s(3) + s.bandwidth()).toBeCloseTo(390, 10);
    expect(s(9)).toBe(undefined);
  });
});
