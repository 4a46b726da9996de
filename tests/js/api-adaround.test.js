// AdaRound through the JS API (ss.adaround, the direct call with its
// statistics, and ss.quantize('adaround'), the registry form), against
// float64 references written here: every code is floor(W/s) + z or one more;
// W~ = (code - z) s; both reconstruction errors equal |(W - W~) X|_F^2
// recomputed in float64 from the returned W~ and the nearest codes; the
// learned rounding is at or below nearest rounding on seeded layers; flips
// count the codes that differ from nearest; the regularizer leaves every h
// hard; the scalar and SIMD builds give the same bits; drawn inputs are the
// registry form's, bit for bit (C draws them: ss.adaroundInputs); bad arguments throw
// naming the argument. The optimization itself is tested in C
// (tests/c/test_adaround.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { rng, refArInputs as arInputs, refLayerError as reconError } from './support/reference.js';

let ss, scalar;
beforeAll(async () => {
  ss = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// A layer of Student-t-like weights (a normal over a random scale), float32.
function layer(rows, cols, seed) {
  const r = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  return Float32Array.from({ length: rows * cols }, () => normal() * (0.5 + r()));
}

const dequant = (codes, r) => Float32Array.from(codes, (c) => (c - r.zero) * r.scale);

describe('ss.adaround', () => {
  it('codes are floor(W/s) + z or one more; W~ is (code - z) s; both errors equal a float64 recomputation', () => {
    for (const [rows, cols, batch, bits, symmetric] of [[8, 16, 64, 4, true], [5, 12, 40, 3, false], [16, 32, 32, 2, true]]) {
      const w = layer(rows, cols, rows * cols + bits);
      const x = Float32Array.from(layer(cols, batch, 7 * bits), (v) => 0.5 * v + 0.3);
      const r = ss.adaround(w, { rows, cols, x, bits, symmetric, iters: 400 });
      expect([r.rows, r.cols, r.batch]).toEqual([rows, cols, batch]);
      const qlo = symmetric ? -(2 ** (bits - 1) - 1) : 0, qhi = symmetric ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      if (symmetric) expect(r.zero).toBe(0);
      else expect(Number.isInteger(r.zero)).toBe(true);
      for (let i = 0; i < w.length; i++) {
        const u = w[i] / r.scale, f = Math.floor(u);
        const c = r.codes[i] - r.zero;
        // at a grid point (u within rounding of an integer) float32's floor may be one below float64's
        const ok = c === f || c === f + 1 || (Math.abs(u - Math.round(u)) < 1e-5 && Math.abs(c - u) <= 1 + 1e-5);
        expect(ok, `w[${i}] = ${w[i]}: code ${r.codes[i]}, w/s ${u}`).toBe(true);
        expect(r.codes[i]).toBeGreaterThanOrEqual(qlo);
        expect(r.codes[i]).toBeLessThanOrEqual(qhi);
        expect(r.output[i]).toBe(Math.fround((r.codes[i] - r.zero) * r.scale));
        // nearest: |code - z - u| <= 1/2
        expect(Math.abs(r.nearest[i] - r.zero - u)).toBeLessThanOrEqual(0.5 + 1e-5);
      }
      const err = reconError(w, r.output, x, rows, cols, batch);
      const errNearest = reconError(w, dequant(r.nearest, r), x, rows, cols, batch);
      expect(Math.abs(r.err - err)).toBeLessThanOrEqual(1e-9 * err);
      expect(Math.abs(r.errNearest - errNearest)).toBeLessThanOrEqual(1e-9 * errNearest);
      expect(r.flipped).toBe(Array.from(r.codes).filter((c, i) => c !== r.nearest[i]).length);
    }
  });

  it('is at or below nearest rounding on 12 seeded layers (correlated inputs), with every h hard', () => {
    const gains = [];
    for (let seed = 1; seed <= 12; seed++) {
      const w = layer(8, 16, 100 + seed);
      const r = ss.adaround(w, { cols: 16, seed });
      expect(r.err, `seed ${seed}`).toBeLessThanOrEqual(r.errNearest);
      expect(r.soft).toBe(0);
      gains.push(1 - r.err / r.errNearest);
    }
    // measured: 24-45 % lower, 34 % on average
    const mean = gains.reduce((a, b) => a + b, 0) / gains.length;
    expect(mean).toBeGreaterThan(0.2);
    expect(Math.min(...gains)).toBeGreaterThan(0.1);
  });

  it('the scalar and SIMD builds give the same bits', () => {
    const w = layer(6, 20, 3);
    const a = ss.adaround(w, { cols: 20, batch: 24, seed: 4, iters: 300 });
    const b = scalar.adaround(w, { cols: 20, batch: 24, seed: 4, iters: 300 });
    expect(Array.from(b.codes)).toEqual(Array.from(a.codes));
    expect(Array.from(b.output)).toEqual(Array.from(a.output));
    expect([b.err, b.errNearest, b.flipped, b.soft]).toEqual([a.err, a.errNearest, a.flipped, a.soft]);
  });

  it('draws its inputs as the registry form does: the same codes as ss.quantize at corr = 0', () => {
    const w = layer(8, 16, 11);
    for (const seed of [0, 5]) {
      const reg = ss.quantize('adaround', w, { corr: 0, seed, iters: 300 });
      const direct = ss.adaround(w, { cols: 16, corr: 0, seed, iters: 300 });
      expect(Array.from(direct.codes)).toEqual(Array.from(reg.codes));
      expect(Array.from(direct.output)).toEqual(Array.from(reg.output));
    }
    // corr != 0: the inputs C draws (ss.adaroundInputs), given back as x
    const given = ss.adaround(w, { cols: 16, x: ss.adaroundInputs(16, 64, { seed: 9, corr: 0.7 }), iters: 300 });
    const drawn = ss.adaround(w, { cols: 16, batch: 64, seed: 9, corr: 0.7, iters: 300 });
    expect(Array.from(drawn.codes)).toEqual(Array.from(given.codes));
    expect(drawn.err).toBe(given.err);
  });

  it('adaroundInputs are the registry form\'s very inputs: the same codes and W~ as ss.quantize at corr != 0', () => {
    const w = layer(8, 16, 13);
    for (const [seed, corr] of [[0, 0.5], [9, 0.7], [3, -0.9], [4, 1]]) {
      const x = ss.adaroundInputs(16, 64, { seed, corr });
      const reg = ss.quantize('adaround', w, { cols: 16, batch: 64, corr, seed, iters: 300 });
      const direct = ss.adaround(w, { cols: 16, x, iters: 300 });
      expect(Array.from(direct.codes), `seed ${seed} corr ${corr}`).toEqual(Array.from(reg.codes));
      expect(Array.from(direct.output), `seed ${seed} corr ${corr}`).toEqual(Array.from(reg.output));
    }
  });

  it('adaroundInputs: the AR(1) chain over the normals of (seed, stream 1); at corr = 0 those normals themselves', () => {
    const z = ss.normal(16 * 64, { seed: 9, stream: 1 });
    expect(Array.from(ss.adaroundInputs(16, 64, { seed: 9, corr: 0 }))).toEqual(Array.from(z));
    // C chains the unrounded (double) normals; the float32 ones here differ by at most half an ulp each
    const x = ss.adaroundInputs(16, 64, { seed: 9, corr: 0.7 }), ref = arInputs(z, 16, 64, 0.7);
    for (let i = 0; i < x.length; i++) expect(Math.abs(x[i] - ref[i]), `x[${i}]`).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref[i])));
    // the defaults are the registry kernel's seed and corr; the same bits in every build
    const def = Object.fromEntries(ss.kernel('adaround', 'quantizer').params.map((p) => [p.name, p.default]));
    expect(Array.from(ss.adaroundInputs(16, 8))).toEqual(Array.from(ss.adaroundInputs(16, 8, { seed: def.seed, corr: def.corr })));
    expect(Array.from(scalar.adaroundInputs(16, 8, { seed: 2, corr: 0.3 }))).toEqual(Array.from(ss.adaroundInputs(16, 8, { seed: 2, corr: 0.3 })));
    const arg = (f) => { try { f(); } catch (e) { return e.argument; } return null; };
    expect(arg(() => ss.adaroundInputs(0, 8))).toBe('cols');
    expect(arg(() => ss.adaroundInputs(8, 1.5))).toBe('batch');
    expect(arg(() => ss.adaroundInputs(8, 8, { corr: 1.5 }))).toBe('options.corr');
    expect(arg(() => ss.adaroundInputs(8, 8, { sed: 1 }))).toBe('options.sed');
  });

  it('the registry form: a layer of n values read as rows of cols, every code floor or floor + 1 of its grid', () => {
    const w = layer(1, 100, 21); // 100 = 6 rows of 16 and a last row of 4
    const r = ss.quantize('adaround', w, { bits: 3, cols: 16, iters: 200 });
    const u = ss.quantize('uniform', w, { bits: 3 }); // the same grid, nearest
    const s = Math.max(...w.map(Math.abs)) / 3;
    for (let i = 0; i < w.length; i++) {
      expect(Math.abs(r.codes[i] - w[i] / s)).toBeLessThan(1 + 1e-5);
      expect(Math.abs(r.codes[i] - u.codes[i])).toBeLessThanOrEqual(1);
    }
  });

  it('bad arguments throw an Error naming the argument', () => {
    const w = layer(4, 8, 1);
    const arg = (f) => { try { f(); } catch (e) { return e.argument; } return null; };
    expect(arg(() => ss.adaround(Array.from(w), { cols: 8 }))).toBe('w');
    expect(arg(() => ss.adaround(w, { cols: 5 }))).toBe('w');
    expect(arg(() => ss.adaround(w, { cols: 8, rows: 3 }))).toBe('w');
    expect(arg(() => ss.adaround(w, { cols: 8, bits: 9 }))).toBe('options.bits');
    expect(arg(() => ss.adaround(w, { cols: 8, lr: 0 }))).toBe('options.lr');
    expect(arg(() => ss.adaround(w, { cols: 8, lambda: -1 }))).toBe('options.lambda');
    expect(arg(() => ss.adaround(w, { cols: 8, iters: 0 }))).toBe('options.iters');
    expect(arg(() => ss.adaround(w, { cols: 8, corr: 2 }))).toBe('options.corr');
    expect(arg(() => ss.adaround(w, { cols: 8, symmetric: 'yes' }))).toBe('options.symmetric');
    expect(arg(() => ss.adaround(w, { cols: 8, x: new Float32Array(20) }))).toBe('options.x');
    expect(arg(() => ss.adaround(w, { cols: 8, x: new Float32Array(16), seed: 1 }))).toBe('options.seed');
    expect(arg(() => ss.adaround(w, { cols: 8, x: Float32Array.from({ length: 16 }, (_, i) => (i === 3 ? NaN : 1)) }))).toBe('options.x');
    expect(arg(() => ss.adaround(Float32Array.from(w, (v, i) => (i === 2 ? Infinity : v)), { cols: 8 }))).toBe('w');
    expect(arg(() => ss.adaround(w, 3))).toBe('options');
    // the registry form keeps its state on the stack: a limit of its own, below maxN, said as such
    const big = () => ss.quantize('adaround', new Float32Array(10000).fill(1), { iters: 1 });
    expect(arg(big)).toBe('x');
    expect(() => big()).toThrow(/x has length 10000, more than "adaround" takes in its registry form \(n <= 8192, /);
    expect(ss.kernel('adaround', 'quantizer').max_n).toBe(8192);
    expect(ss.kernel('uniform', 'quantizer').max_n).toBe(ss.maxN);
    expect(ss.heapStats().liveAllocations).toBeLessThan(64);
  });
});
