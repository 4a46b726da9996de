// Quantizers through the JS API and the CLI, registry-driven: every
// quantizer's output lies on its code grid and is bit-identical between the
// scalar and the SIMD wasm builds; uniform's round trip stays within half a
// step of a scale recomputed here; FP8 values are exact codes; the CLI's
// metrics equal the error measures recomputed here; errors name their
// argument. Per-kernel semantics are tested in C (tests/c/test_quant.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runCli } from './support/run-cli.js';

const run = runCli;

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
    for (const n of ['uniform', 'pow2', 'log_quant', 'fp8_e4m3', 'fp8_e5m2', 'vq', 'sign_mean']) expect(names).toContain(n);
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

describe('vector quantization and named choices', () => {
  it('vqTrain: the loss never rises, it is the MSE of the codes, and quantize("vq") reads that codebook', () => {
    const x = values(600, 21), dim = 3;
    for (const ss of [simd, scalar]) {
      const { codebook, codes, loss } = ss.vqTrain(x, { k: 10, dim, iters: 15, seed: 4 });
      expect(loss).toHaveLength(16);
      for (let t = 1; t < loss.length; t++) expect(loss[t]).toBeLessThanOrEqual(loss[t - 1] * (1 + 1e-6));
      let se = 0;
      for (let i = 0; i < codes.length; i++)
        for (let t = 0; t < dim; t++) se += (x[i * dim + t] - codebook[codes[i] * dim + t]) ** 2;
      expect(se / x.length).toBeCloseTo(loss[15], 9);
      const q = ss.quantize('vq', x, { codebook: 10, dim, iters: 15, seed: 4 });
      for (let i = 0; i < x.length; i++) {
        expect(q.codes[i]).toBe(codes[Math.floor(i / dim)]);
        expect(q.output[i]).toBe(codebook[codes[Math.floor(i / dim)] * dim + (i % dim)]);
      }
      // the nearest codeword of each vector is its code
      expect(Array.from(ss.vqAssign(x, codebook, { dim }).codes)).toEqual(Array.from(codes));
    }
  });

  it('vqBackward: dx = g + 2 beta (x - e) and dcodebook = sum 2 (e - x), recomputed here', () => {
    const x = values(40, 5), g = values(40, 6);
    const { codebook, codes } = simd.vqTrain(x, { k: 4, dim: 2, iters: 5 });
    const { dx, dcodebook } = simd.vqBackward(x, codebook, codes, g, { dim: 2, beta: 0.5 });
    const dc = new Float64Array(8);
    for (let i = 0; i < 20; i++) for (let t = 0; t < 2; t++) {
      const r = x[2 * i + t] - codebook[2 * codes[i] + t];
      expect(dx[2 * i + t]).toBeCloseTo(g[2 * i + t] + r, 5);
      dc[2 * codes[i] + t] -= 2 * r;
    }
    for (let j = 0; j < 8; j++) expect(dcodebook[j]).toBeCloseTo(dc[j], 4);
  });

  it('rounding takes its name: "stochastic" is rounding 1, "nearest" rounding 0', () => {
    const x = values(64, 2);
    const byName = simd.quantize('uniform', x, { bits: 3, rounding: 'stochastic', seed: 9 });
    const byNum = simd.quantize('uniform', x, { bits: 3, rounding: 1, seed: 9 });
    expect(Array.from(byName.codes)).toEqual(Array.from(byNum.codes));
    expect(Array.from(simd.quantize('uniform', x, { rounding: 'nearest' }).codes)).toEqual(Array.from(simd.quantize('uniform', x).codes));
    expect(simd.kernel('uniform', 'quantizer').params.find((p) => p.name === 'rounding').choices).toEqual(['nearest', 'stochastic']);
  });

  it('errors name their argument', () => {
    const x = values(12, 1);
    expect(() => simd.quantize('uniform', x, { rounding: 'up' })).toThrow(/params\.rounding = "up" is not one of "nearest", "stochastic"/);
    expect(() => simd.quantize('vq', x, { dim: 5 })).toThrow(/params\.dim = 5 must divide n = 12/);
    expect(() => simd.quantize('vq', x, { codebook: 7, dim: 2 })).toThrow(/params\.codebook = 7 is more than the 6 vectors/);
    expect(() => simd.vqTrain(x, { k: 13 })).toThrow(/options\.k = 13/);
    expect(() => simd.vqTrain(Array.from(x))).toThrow(/\bx\b/);
    expect(() => simd.vqTrain(x, { dim: 0 })).toThrow(/options\.dim/);
    const { codebook, codes } = simd.vqTrain(x, { k: 3 });
    expect(() => simd.vqBackward(x, codebook, Array.from(codes), x)).toThrow(/codes must be an Int32Array/);
    expect(() => simd.vqBackward(x, codebook, codes.subarray(1), x)).toThrow(/codes\.length = 11/);
    expect(() => simd.vqBackward(x, codebook, codes, x.subarray(1))).toThrow(/g\.length = 11/);
    expect(() => simd.vqBackward(x, codebook, codes, x, { beta: -1 })).toThrow(/options\.beta/);
    const bad = codes.slice(); bad[0] = 3;
    expect(() => simd.vqBackward(x, codebook, bad, x)).toThrow(/codes\[0\] = 3/);
  });
});

describe('softscope quantize (CLI)', () => {
  it('--json prints output, codes and metrics that match the values', async () => {
    const p = [0.6, 0.25, 0.1, 0.05];
    const r = await run(['quantize', 'uniform', '--input', JSON.stringify(p), '--param', 'bits=4', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['kernel', 'impl', 'build', 'output', 'codes', 'metrics']);
    const y = j.output;
    const se = y.reduce((a, v, i) => a + (v - p[i]) ** 2, 0);
    expect(j.metrics.mse).toBeCloseTo(se / 4, 9);
    expect(j.metrics.max_error).toBeCloseTo(Math.max(...y.map((v, i) => Math.abs(v - p[i]))), 7);
    expect(j.metrics.sqnr_db).toBeCloseTo(10 * Math.log10(p.reduce((a, v) => a + v * v, 0) / se), 6);
    expect(j.metrics.argmax_kept).toBe(true);
    expect(j.codes).toEqual(y.map((v) => Math.round(v / (0.6 / 7))));
  });

  it('--param rounding=stochastic is accepted by name', async () => {
    const r = await run(['quantize', 'uniform', '--input', '[0.3,-1.2,2.5,0.01]', '--param', 'bits=3', '--param', 'rounding=stochastic', '--param', 'seed=4', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const want = simd.quantize('uniform', new Float32Array([0.3, -1.2, 2.5, 0.01]), { bits: 3, rounding: 1, seed: 4 });
    expect(j.codes).toEqual(Array.from(want.codes));
  });

  it('bad input exits 2 with a message', async () => {
    const r = await run(['quantize', 'uniform', '--input', '[1,2,3]', '--param', 'group=2', '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/group = 2 must divide n = 3/);
  });
});
