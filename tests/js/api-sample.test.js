// Samplers through the JS API and the CLI, registry-driven so every sampler
// is covered: shapes and supports of the outputs, determinism (same seed ->
// same bits, also between the scalar and the SIMD wasm builds; another seed
// -> other draws), temperature draws fit softmax(x / T) (chi-square, fixed
// seed, alpha = 1e-3), the raw Philox streams, and errors that name their
// argument. Per-kernel semantics are tested in C (tests/c/test_sample_*.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { chiSquare } from '../../wasm/analysis/stats.js';
import { randomLogits, randomPositive, refSoftmax } from './support/reference.js';
import { runCli } from './support/run-cli.js';


const run = runCli;

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// An input in the kernel's domain.
function inputFor(k, n, seed) {
  if (k.input === 'logits') return randomLogits(n, seed, 8);
  return randomPositive(n, seed, 0.2, 2); // probs (weights), values (concentrations, deltas)
}

function fitParams(k, extra, n) {
  const p = { ...extra };
  for (const q of k.params) if (q.n_bound === 'le' && q.default > n && p[q.name] === undefined) p[q.name] = n;
  return p;
}

describe('every registry sampler', () => {
  it('is listed with its draw kind, seed and draws parameters', () => {
    const ks = simd.kernels('sampler');
    expect(ks.length).toBeGreaterThanOrEqual(2);
    for (const k of ks) {
      expect(['index', 'relaxed', 'vector']).toContain(k.draws);
      const names = k.params.map((p) => p.name);
      expect(names).toContain('seed');
      expect(names).toContain('draws');
      expect(k.impls).toContain('scalar');
    }
  });

  it('returns outputs of the right shape and support, and is deterministic', () => {
    for (const k of simd.kernels('sampler')) {
      const n = 23, x = inputFor(k, n, 3), params = fitParams(k, { seed: 5, draws: 40 }, n);
      const r = simd.sample(k.name, x, params);
      expect(r.probs.length, k.name).toBe(n);
      expect(r.draws).toBe(40);
      for (const v of r.probs) expect(Number.isFinite(v), k.name).toBe(true);
      if (k.draws !== 'vector') {
        let s = 0;
        for (const v of r.probs) { expect(v).toBeGreaterThanOrEqual(0); s += v; }
        expect(Math.abs(s - 1), `${k.name}: probs sum`).toBeLessThan(1e-5);
        expect(r.indices.length).toBe(40);
        for (const i of r.indices) {
          expect(i, k.name).toBeLessThan(n);
          expect(r.probs[i], `${k.name}: drew a zero-probability entry`).toBeGreaterThan(0);
        }
      } else {
        expect(r.indices).toBeNull();
      }
      if (k.draws === 'index') expect(r.samples).toBeNull();
      else {
        expect(r.samples.length).toBe(40 * n);
        for (const v of r.samples) expect(Number.isFinite(v), k.name).toBe(true);
      }
      const again = simd.sample(k.name, x, params);
      expect(Buffer.from(again.probs.buffer).equals(Buffer.from(r.probs.buffer)), k.name).toBe(true);
      const other = simd.sample(k.name, x, { ...params, seed: 6 });
      const drawsOf = (q) => Array.from(q.indices ?? q.samples).join();
      expect(drawsOf(other), `${k.name}: another seed gives other draws`).not.toBe(drawsOf(r));
      expect(drawsOf(again)).toBe(drawsOf(r));
    }
  });

  it('gives bit-identical probs, draws and samples in the scalar and the SIMD wasm builds', () => {
    for (const k of simd.kernels('sampler')) {
      for (const n of [7, 1000, 4099]) {
        const x = inputFor(k, n, n), params = fitParams(k, { seed: 11, draws: n > 1000 ? 3 : 50 }, n);
        const a = simd.sample(k.name, x, params), b = scalar.sample(k.name, x, params);
        const same = (u, v) => (u === null ? v === null : Buffer.from(u.buffer).equals(Buffer.from(v.buffer)));
        expect(same(a.probs, b.probs), `${k.name} n=${n}: probs`).toBe(true);
        expect(same(a.indices, b.indices), `${k.name} n=${n}: indices`).toBe(true);
        expect(same(a.samples, b.samples), `${k.name} n=${n}: samples`).toBe(true);
      }
    }
  });

  it('draws = 0 gives only the distribution', () => {
    const r = simd.sample('temperature', randomLogits(10, 1), { draws: 0 });
    expect(r.indices.length).toBe(0);
    expect(r.probs.length).toBe(10);
  });
});

describe('temperature sampler', () => {
  it('probs match float64 softmax(x / T) and draws fit them (chi-square, alpha 1e-3)', () => {
    const x = randomLogits(50, 9, 6);
    for (const T of [0.4, 1, 3]) {
      const r = simd.sample('temperature', x, { temperature: T, seed: 2, draws: 50000 });
      const ref = refSoftmax(x, T);
      ref.forEach((p, i) => expect(Math.abs(r.probs[i] - p)).toBeLessThanOrEqual(2e-6 * p + 1e-30));
      const c = chiSquare(r.indices, ref);
      expect(c.impossible).toBe(0);
      expect(c.pValue, `T=${T}: chi2 ${c.chi2} on ${c.dof} dof`).toBeGreaterThan(1e-3);
    }
  });

  it('a wrong distribution fails the same test (the test has power)', () => {
    const x = randomLogits(50, 9, 6);
    const r = simd.sample('temperature', x, { temperature: 1, seed: 2, draws: 50000 });
    const c = chiSquare(r.indices, refSoftmax(x, 1.05));
    expect(c.pValue).toBeLessThan(1e-3);
  });
});

describe('Philox streams and categorical draws', () => {
  it('uniforms lie in (0, 1), are reproducible across builds and shift with first', () => {
    const u = simd.uniform(4096, { seed: 3, stream: 1 });
    for (const v of u) { expect(v).toBeGreaterThan(0); expect(v).toBeLessThan(1); }
    expect(Array.from(scalar.uniform(4096, { seed: 3, stream: 1 }))).toEqual(Array.from(u));
    expect(Array.from(simd.uniform(10, { seed: 3, stream: 1, first: 7 }))).toEqual(Array.from(u.subarray(7, 17)));
    expect(Array.from(simd.uniform(10, { seed: 3n, stream: 2 }))).not.toEqual(Array.from(u.subarray(0, 10)));
    const g = simd.gumbel(4096, { seed: 3, stream: 1 });
    g.forEach((v, i) => expect(Math.abs(v + Math.log(-Math.log(u[i])))).toBeLessThan(2e-6 * (1 + Math.abs(v))));
    const z = simd.normal(20000, { seed: 1 });
    let m = 0, q = 0;
    for (const v of z) m += v / z.length;
    for (const v of z) q += (v - m) ** 2 / (z.length - 1);
    expect(Math.abs(m)).toBeLessThan(5 / Math.sqrt(z.length));
    expect(Math.abs(q - 1)).toBeLessThan(5 * Math.sqrt(2 / z.length));
  });

  it('categorical never draws a zero weight and fits the weights', () => {
    const w = randomPositive(30, 4, 0, 1).map((v, i) => (i % 4 === 0 ? 0 : v));
    const d = simd.categorical(w, { seed: 8, draws: 30000 });
    let s = 0;
    for (const v of w) s += v;
    const c = chiSquare(d, Array.from(w, (v) => v / s));
    expect(c.impossible).toBe(0);
    expect(c.pValue).toBeGreaterThan(1e-3);
    expect(Array.from(scalar.categorical(w, { seed: 8, draws: 300 }))).toEqual(Array.from(d.subarray(0, 300)));
  });
});

describe('sampler errors name their argument', () => {
  const bad = (f, re, arg) => {
    let e;
    try { f(); } catch (err) { e = err; }
    expect(e, String(re)).toBeInstanceOf(Error);
    expect(e.message).toMatch(re);
    if (arg) expect(e.argument).toBe(arg);
  };
  it('rejects bad inputs and parameters', () => {
    const x = Float32Array.from([1, 2, 3]);
    bad(() => simd.sample('temperature', [1, 2, 3]), /x must be a Float32Array/, 'x');
    bad(() => simd.sample('temperature', new Float32Array(0)), /x is empty/, 'x');
    bad(() => simd.sample('temperature', Float32Array.from([1, NaN])), /NaN/, 'x');
    bad(() => simd.sample('temperature', Float32Array.from([-Infinity, -Infinity])), /-Inf|masked/i, 'x');
    bad(() => simd.sample('temperature', x, { temperature: 0 }), /params\.temperature/, 'params.temperature');
    bad(() => simd.sample('temperature', x, { draws: -1 }), /params\.draws/, 'params.draws');
    bad(() => simd.sample('temperature', x, { draws: 1.5 }), /params\.draws/, 'params.draws');
    bad(() => simd.sample('temperature', x, { seed: -1 }), /params\.seed/, 'params.seed');
    bad(() => simd.sample('temperature', x, { tau: 1 }), /unknown parameter params\.tau/, 'params.tau');
    bad(() => simd.sample('softmax', x), /normalizer, not a sampler/, 'kernel');
    bad(() => simd.sample('categorical', Float32Array.from([0.5, -0.5])), /x|domain/i);
    bad(() => simd.sampleBackward('temperature', x, x), /no backward/);
    bad(() => simd.uniform(0), /n = 0/, 'n');
    bad(() => simd.uniform(5, { seed: -3 }), /options\.seed/, 'options.seed');
    bad(() => simd.categorical(Float32Array.from([0.5, -1]), { draws: 2 }), /w\[1\]/, 'w');
    bad(() => simd.categorical(Float32Array.from([0, 0])), /sums to 0/, 'w');
  });
});

describe('softscope sample (CLI)', () => {
  it('prints kernel, impl, output (draws), probs and metrics as JSON', async () => {
    const { code, out } = await run(['sample', 'temperature', '--input', '[3, 2, 1, 0, -Infinity]',
      '--param', 'temperature=0.5', '--param', 'seed=4', '--param', 'draws=2000', '--json']);
    expect(code).toBe(0);
    const j = JSON.parse(out);
    expect(j.kernel).toBe('temperature');
    expect(j.output.length).toBe(2000);
    expect(j.probs.length).toBe(5);
    expect(j.probs[4]).toBe(0);
    expect(j.output.every((i) => Number.isInteger(i) && i >= 0 && i < 4)).toBe(true);
    const ref = refSoftmax(Float32Array.from([3, 2, 1, 0, -Infinity]), 0.5);
    ref.forEach((p, i) => expect(Math.abs(j.probs[i] - p)).toBeLessThan(1e-6));
    expect(j.metrics.support).toBe(4);
    expect(j.metrics.p_value).toBeGreaterThan(1e-3);
    expect(j.metrics.kept_mass).toBeCloseTo(1, 6);
    const again = JSON.parse((await run(['sample', 'temperature', '--input', '[3, 2, 1, 0, -Infinity]',
      '--param', 'temperature=0.5', '--param', 'seed=4', '--param', 'draws=2000', '--json', '--impl', 'scalar'])).out);
    expect(again.output).toEqual(j.output);
  });

  it('exits 2 with a message naming the flag on bad input', async () => {
    const r = await run(['sample', 'temperature', '--input', '[1, 2]', '--param', 'temperature=-1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--param temperature/);
    const r2 = await run(['sample', 'nosuch', '--input', '[1]']);
    expect(r2.code).toBe(2);
    const r3 = await run(['sample', 'categorical', '--input', '[0, 0]']);
    expect(r3.code).toBe(2);
  });
});
