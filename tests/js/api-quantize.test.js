// Quantizers through the JS API and the CLI, registry-driven: every
// quantizer's output lies on its code grid and is bit-identical between the
// scalar and the SIMD wasm builds; uniform's round trip stays within half a
// step of a scale recomputed here; FP8 values are exact codes; the CLI's
// metrics equal the error measures recomputed here; errors name their
// argument. Per-kernel semantics are tested in C (tests/c/test_quant.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from 'softscope';

const CLI = fileURLToPath(new URL('../../wasm/cli.js', import.meta.url));
const run = (args) => new Promise((resolve, reject) => {
  const p = spawn(process.execPath, ['--no-warnings', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  p.stdout.on('data', (d) => { out += d; });
  p.stderr.on('data', (d) => { err += d; });
  p.on('error', reject);
  p.on('close', (code) => resolve({ code, out, err }));
});

// splitmix-style deterministic values in [-3, 3)
function values(n, seed) {
  const x = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    x[i] = (s / 2 ** 32) * 6 - 3;
  }
  return x;
}

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

describe('quantizers (registry-driven)', () => {
  it('the registry lists uniform and the FP8 casts as quantizers', () => {
    const names = simd.kernels('quantizer').map((k) => k.name);
    for (const n of ['uniform', 'fp8_e4m3', 'fp8_e5m2']) expect(names).toContain(n);
  });

  it('every quantizer gives the same bits in the scalar and the SIMD build', () => {
    const x = values(1027, 3).map(Math.abs); // in every quantizer's domain (pow2, log_quant: >= 0)
    for (const k of simd.kernels('quantizer')) {
      const a = simd.quantize(k.name, x), b = scalar.quantize(k.name, x);
      expect(Buffer.from(a.output.buffer).equals(Buffer.from(b.output.buffer)), k.name).toBe(true);
      expect(Array.from(a.codes), k.name).toEqual(Array.from(b.codes));
    }
  });

  it('uniform: |y - x| <= s/2 and codes in range, per tensor and per group', () => {
    const x = values(64, 9);
    for (const bits of [2, 4, 8]) for (const symmetric of [0, 1]) for (const group of [0, 16]) {
      const { output: y, codes } = simd.quantize('uniform', x, { bits, symmetric, group });
      const g = group || x.length;
      for (let g0 = 0; g0 < x.length; g0 += g) {
        const seg = Array.from(x.subarray(g0, g0 + g));
        const lo = Math.min(0, ...seg), hi = Math.max(0, ...seg);
        const s = symmetric ? Math.max(-lo, hi) / (2 ** (bits - 1) - 1) : (hi - lo) / (2 ** bits - 1);
        const [cmin, cmax] = symmetric ? [-(2 ** (bits - 1) - 1), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
        for (let i = g0; i < g0 + g; i++) {
          expect(Math.abs(y[i] - x[i])).toBeLessThanOrEqual(0.5 * s * (1 + 1e-6) + 1e-7);
          expect(codes[i]).toBeGreaterThanOrEqual(cmin);
          expect(codes[i]).toBeLessThanOrEqual(cmax);
        }
      }
    }
  });

  it('fp8: a cast value casts to itself (values are exact codes)', () => {
    const x = values(500, 4).map((v) => v * 40);
    for (const name of ['fp8_e4m3', 'fp8_e5m2']) {
      const a = simd.quantize(name, x), b = simd.quantize(name, a.output);
      expect(Array.from(b.output), name).toEqual(Array.from(a.output));
      expect(Array.from(b.codes), name).toEqual(Array.from(a.codes));
      expect(a.codes.every((c) => c >= 0 && c < 256)).toBe(true);
    }
  });

  it('packed codes unpack to the same codes (4-bit grouped, 2-bit ternary, 1-bit signs)', () => {
    const x = values(256, 21);
    const u4 = simd.quantize('uniform', x, { bits: 4, symmetric: 0, group: 32 }).codes;
    const b4 = simd.pack(u4, 4);
    expect(b4.length).toBe(128);
    expect(b4[0]).toBe((u4[0] & 15) | ((u4[1] & 15) << 4));
    expect(Array.from(simd.unpack(b4, 256, 4))).toEqual(Array.from(u4));
    const t = simd.quantize('uniform', x, { bits: 2, symmetric: 1 }).codes; // ternary -1, 0, 1
    expect(new Set(t)).toEqual(new Set([-1, 0, 1]));
    expect(Array.from(simd.unpack(simd.pack(t, 2, { signed: true }), 256, 2, { signed: true }))).toEqual(Array.from(t));
    const sg = simd.quantize('sign_mean', x).codes;
    expect(simd.pack(sg, 2, { signed: true }).length).toBe(64);
    expect(() => simd.pack(u4, 2)).toThrow(/codes\[\d+\] = \d+ does not fit 2 unsigned bits/);
    expect(() => simd.pack(Array.from(u4), 4)).toThrow(/Int32Array/);
    expect(() => simd.unpack(b4, 300, 4)).toThrow(/need 150 bytes/);
  });

  it('errors name their argument', () => {
    expect(() => simd.quantize('uniform', new Float32Array([1, 2, 3]), { group: 2 })).toThrow(/params\.group = 2 must divide n = 3/);
    expect(() => simd.quantize('uniform', new Float32Array([1, NaN]))).toThrow(/NaN/);
    expect(() => simd.quantize('uniform', [1, 2])).toThrow(/\bx\b/); // not a typed array
    expect(() => simd.quantize('uniform', new Float32Array([1, 2]), { bits: 9 })).toThrow(/bits/);
    expect(() => simd.quantize('fp8_e4m3', new Float32Array([1, 2]), { scale: 0 })).toThrow(/scale/);
    expect(() => simd.quantize('softmax', new Float32Array([1, 2]))).toThrow(/normalizer/);
  });
});

describe('softscope quantize (CLI)', () => {
  it('--json prints output, codes and metrics that match the values', async () => {
    const p = [0.6, 0.25, 0.1, 0.05];
    const r = await run(['quantize', 'uniform', '--input', JSON.stringify(p), '--param', 'bits=4', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['kernel', 'impl', 'output', 'codes', 'metrics']);
    const y = j.output;
    const se = y.reduce((a, v, i) => a + (v - p[i]) ** 2, 0);
    expect(j.metrics.mse).toBeCloseTo(se / 4, 9);
    expect(j.metrics.max_error).toBeCloseTo(Math.max(...y.map((v, i) => Math.abs(v - p[i]))), 7);
    expect(j.metrics.sqnr_db).toBeCloseTo(10 * Math.log10(p.reduce((a, v) => a + v * v, 0) / se), 6);
    expect(j.metrics.argmax_kept).toBe(true);
    expect(j.codes).toEqual(y.map((v) => Math.round(v / (0.6 / 7))));
  });

  it('bad input exits 2 with a message', async () => {
    const r = await run(['quantize', 'uniform', '--input', '[1,2,3]', '--param', 'group=2', '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/group = 2 must divide n = 3/);
  });
});
