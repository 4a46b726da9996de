// The dispersion sweep (analysis/dispersion.js, softscope/analysis): its numbers against closed forms
// for constant distractors (softmax: p_key = e^m / (e^m + n - 1); sparsemax
// and entmax-1.5: a support of 1 beyond their margins), bounds every
// normalizer's output obeys, deterministic inputs, no allocation per call,
// and bad options rejected with the option named.
import { describe, it, expect } from 'vitest';
import { createSoftscope } from 'softscope';
import {
  dispersionSweep, dispersionSteps, dispersionGrid, dispersionInput, DISPERSION_N_MAX, DISPERSION_DEFAULTS,
} from 'softscope/analysis';
import { refEntropy } from './support/reference.js';
import { thrown } from './support/thrown.js';

// Top-level await: which kernels the build has decides what is skipped.
const ss = await createSoftscope();
const scalar = await createSoftscope({ impl: 'scalar' });
const has = (name) => ss.kernels('normalizer').some((k) => k.name === name);
const WEIGHTS = ss.kernels('normalizer').filter((k) => k.output === 'weights');
const TOPK = ss.kernels('normalizer').find((x) => x.params.some((p) => p.name === 'k' && p.type === 'int' && (p.max ?? 9) >= 8));

const CONST = { kind: 'constant' };
const pow2 = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => 2 ** (a + i));

describe('grid and inputs', () => {
  it('the grid: powers of two at 1 point per octave, nMax always last, strictly increasing', () => {
    expect(dispersionGrid(2, 2 ** 20, 1)).toEqual(pow2(1, 20));
    expect(dispersionGrid(2, 100, 1)).toEqual([2, 4, 8, 16, 32, 64, 100]);
    const g = dispersionGrid(2, 2 ** 20, 4);
    for (let i = 1; i < g.length; i++) expect(g[i]).toBeGreaterThan(g[i - 1]);
    // every power of two is on it; between two of them at most 3 more points
    for (const p of pow2(1, 20)) expect(g).toContain(p);
    expect(g.length).toBeLessThanOrEqual(4 * 19 + 1);
    expect(g.slice(0, 6)).toEqual([2, 3, 4, 5, 6, 7]); // 2*2^(j/4) rounded, repeats dropped
  });

  it('constant distractors: the key is the margin, every other entry 0', () => {
    const x = dispersionInput({ margin: 2.5, distractor: CONST }, 9);
    expect(Array.from(x)).toEqual([2.5, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('vectors are nested in n and the same for the same seed; another seed draws others', () => {
    for (const kind of ['gaussian', 'uniform']) {
      const o = { margin: 1, distractor: { kind, scale: 2 }, seed: 7 };
      const a = dispersionInput(o, 1000), b = dispersionInput(o, 64);
      expect(a[0]).toBe(1);
      expect(Array.from(b.subarray(1))).toEqual(Array.from(a.subarray(1, 64)));
      // A stream generated in another order of lengths is the same stream.
      dispersionInput({ ...o, seed: 8 }, 5);
      expect(Array.from(dispersionInput(o, 1000))).toEqual(Array.from(a));
      const c = dispersionInput({ ...o, seed: 8 }, 1000);
      expect(Array.from(c)).not.toEqual(Array.from(a));
    }
  });

  it('gaussian distractors have mean 0 and std = scale; uniform ones fill [-scale, scale) with variance scale^2/3', () => {
    const n = 2 ** 16, scale = 1.5;
    const stats = (x) => {
      let s = 0, s2 = 0, lo = Infinity, hi = -Infinity;
      for (let i = 1; i < x.length; i++) { s += x[i]; s2 += x[i] * x[i]; lo = Math.min(lo, x[i]); hi = Math.max(hi, x[i]); }
      const m = s / (x.length - 1);
      return { mean: m, var: s2 / (x.length - 1) - m * m, lo, hi };
    };
    // 2^16 draws: the standard error of the mean is scale/256 ~ 0.006; of the variance ~0.5%.
    const g = stats(dispersionInput({ distractor: { kind: 'gaussian', scale }, seed: 3 }, n));
    expect(Math.abs(g.mean)).toBeLessThan(0.03);
    expect(Math.abs(Math.sqrt(g.var) / scale - 1)).toBeLessThan(0.02);
    const u = stats(dispersionInput({ distractor: { kind: 'uniform', scale }, seed: 3 }, n));
    expect(u.lo).toBeGreaterThanOrEqual(-scale);
    expect(u.hi).toBeLessThan(scale);
    expect(Math.abs(u.mean)).toBeLessThan(0.03);
    expect(Math.abs(u.var / (scale * scale / 3) - 1)).toBeLessThan(0.03);
  });

  it("keyPosition 'random' moves the key, keeps the same distractors", () => {
    const o = { margin: 9, distractor: { kind: 'gaussian', scale: 1 }, seed: 5 };
    const positions = new Set();
    for (const n of [16, 64, 256, 1024]) {
      const first = dispersionInput(o, n), rand = dispersionInput({ ...o, keyPosition: 'random' }, n);
      const at = rand.indexOf(9);
      positions.add(at / n);
      expect(Array.from(rand).filter((v) => v === 9)).toHaveLength(1);
      expect(Array.from(rand).sort()).toEqual(Array.from(first).sort());
    }
    expect(positions.size).toBeGreaterThan(1); // not always the same relative place
  });
});

describe('closed forms, constant distractors', () => {
  it('softmax: key probability e^m / (e^m + n - 1), entropy of that distribution, support n, to 2^20', () => {
    // float32 outputs: measured relative error of p_key 3.5e-7 (SIMD), 6.3e-8
    // (scalar); the bound is 2e-6. Entropy: measured 6.6e-7 relative, bound 1e-5.
    for (const inst of [ss, scalar]) {
      for (const m of [-1, 0, 2, 5]) {
        const r = dispersionSweep(inst, { normalizers: ['softmax'], nMax: DISPERSION_N_MAX, margin: m, distractor: CONST });
        expect(r.n).toEqual(pow2(1, 20));
        const s = r.series[0];
        r.n.forEach((n, j) => {
          const em = Math.exp(m), p = em / (em + n - 1), q = 1 / (em + n - 1);
          const H = -p * Math.log(p) - (n - 1) * q * Math.log(q);
          expect(Math.abs(s.keyProb[j] / p - 1), `m=${m} n=${n}`).toBeLessThanOrEqual(2e-6);
          expect(Math.abs(s.maxProb[j] / Math.max(p, q) - 1)).toBeLessThanOrEqual(2e-6);
          expect(Math.abs(s.entropy[j] / H - 1), `H m=${m} n=${n}`).toBeLessThanOrEqual(1e-5);
          expect(s.support[j]).toBe(n);
          expect(Math.abs(s.sum[j] - 1)).toBeLessThanOrEqual(1e-5);
        });
      }
    }
  });

  it('softmax_temperature: p_key = e^(m/T) / (e^(m/T) + n - 1)', () => {
    const T = 0.25, m = 1;
    const r = dispersionSweep(ss, { normalizers: [{ name: 'softmax_temperature', params: { temperature: T } }], nMax: 2 ** 16, margin: m, distractor: CONST });
    expect(r.series[0].params).toEqual({ temperature: T });
    r.n.forEach((n, j) => {
      const e = Math.exp(m / T);
      expect(Math.abs(r.series[0].keyProb[j] / (e / (e + n - 1)) - 1)).toBeLessThanOrEqual(2e-6);
    });
  });

  // sparsemax(m, 0, ..., 0): tau = m - 1 keeps only the key iff m >= 1 (the
  // second entry would need 1 + 2 * 0 > m); below, tau = (m - 1) / n keeps all.
  it.skipIf(!has('sparsemax'))('sparsemax: support 1 (key probability 1, entropy 0) for margin >= 1; all n in support below, p_key = m + (1 - m) / n', () => {
    for (const m of [1, 1.5, 4]) {
      const s = dispersionSweep(ss, { normalizers: ['sparsemax'], nMax: 2 ** 16, margin: m, distractor: CONST }).series[0];
      expect(s.errors).toEqual([]);
      for (const [j] of s.support.entries()) {
        expect(s.support[j]).toBe(1);
        expect(s.keyProb[j]).toBe(1);
        expect(s.entropy[j]).toBe(0);
      }
    }
    const m = 0.5;
    const r = dispersionSweep(ss, { normalizers: ['sparsemax'], nMax: 2 ** 12, margin: m, distractor: CONST });
    r.n.forEach((n, j) => {
      expect(r.series[0].support[j]).toBe(n);
      expect(Math.abs(r.series[0].keyProb[j] - (m + (1 - m) / n))).toBeLessThanOrEqual(1e-6);
    });
  });

  // 1.5-entmax: p_i = [x_i / 2 - tau]_+^2; the key alone needs tau = m/2 - 1 >= 0 (the
  // distractors' 0/2 - tau <= 0), i.e. m >= 2; below 2 every distractor gets mass.
  it.skipIf(!has('entmax15'))('entmax15: support 1 for margin >= 2, all n below', () => {
    for (const m of [2, 2.5, 6]) {
      const s = dispersionSweep(ss, { normalizers: ['entmax15'], nMax: 2 ** 16, margin: m, distractor: CONST }).series[0];
      expect(s.support.every((v) => v === 1), `m=${m}`).toBe(true);
      expect(s.keyProb.every((v) => Math.abs(v - 1) <= 1e-6)).toBe(true);
    }
    const r = dispersionSweep(ss, { normalizers: ['entmax15'], nMax: 2 ** 10, margin: 1.5, distractor: CONST });
    expect(r.series[0].support).toEqual(r.n);
  });
});

describe('every normalizer in the registry (default params)', () => {
  it('series as long as the grid; max >= key; support in [0, n]; entropy in [0, ln support]; probabilities sum to 1', () => {
    for (const k of ss.kernels('normalizer')) {
      for (const distractor of [CONST, { kind: 'gaussian', scale: 1 }]) {
        const r = dispersionSweep(ss, { normalizers: [k.name], nMax: 2 ** 12, margin: 2, distractor, pointsPerOctave: 2 });
        const s = r.series[0];
        expect(s.name).toBe(k.name);
        expect(s.output).toBe(k.output ?? 'probs');
        for (const f of ['keyProb', 'maxProb', 'entropy', 'support', 'sum']) expect(s[f]).toHaveLength(r.n.length);
        r.n.forEach((n, j) => {
          if (s.errors.some((e) => e.n === n)) {
            expect(Number.isNaN(s.keyProb[j])).toBe(true);
            return;
          }
          const where = `${k.name} n=${n} ${distractor.kind}`;
          expect(s.maxProb[j], where).toBeGreaterThanOrEqual(s.keyProb[j]);
          expect(s.support[j], where).toBeLessThanOrEqual(n);
          expect(s.support[j], where).toBeGreaterThanOrEqual(s.output === 'weights' ? 0 : 1);
          if (s.support[j] > 0) {
            expect(s.entropy[j], where).toBeGreaterThanOrEqual(0);
            expect(s.entropy[j], where).toBeLessThanOrEqual(Math.log(s.support[j]) + 1e-5);
          }
          if (s.output !== 'weights') expect(Math.abs(s.sum[j] - 1), where).toBeLessThanOrEqual(1e-5);
        });
      }
    }
  });

  it.skipIf(WEIGHTS.length === 0)('weights outputs: key and max are the raw weights; entropy and support are those of |y| / sum |y|', () => {
    for (const k of WEIGHTS) {
      const o = { normalizers: [k.name], nMax: 2 ** 10, margin: 1.5, distractor: { kind: 'gaussian', scale: 1 }, seed: 4 };
      const r = dispersionSweep(ss, o);
      r.n.forEach((n, j) => {
        const y = ss.normalize(k.name, dispersionInput(o, n));
        let abs = 0, sum = 0, max = -Infinity, nz = 0;
        for (const v of y) { abs += Math.abs(v); sum += v; max = Math.max(max, v); if (v !== 0) nz++; }
        const s = r.series[0];
        expect(s.keyProb[j]).toBe(y[0]);
        expect(s.maxProb[j]).toBe(max);
        expect(Math.abs(s.sum[j] - sum)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(sum)));
        expect(s.support[j]).toBe(nz);
        if (abs > 0) expect(Math.abs(s.entropy[j] - refEntropy(Array.from(y, (v) => Math.abs(v) / abs)))).toBeLessThanOrEqual(1e-5);
        else expect(Number.isNaN(s.entropy[j])).toBe(true);
      });
    }
  });

  it('log_softmax is measured as exp(y): the same curves as softmax', () => {
    const o = { nMax: 2 ** 14, margin: 1, distractor: { kind: 'uniform', scale: 2 } };
    const [a, b] = dispersionSweep(ss, { ...o, normalizers: ['softmax', 'log_softmax'] }).series;
    expect(b.output).toBe('log_probs');
    a.keyProb.forEach((v, j) => {
      expect(Math.abs(b.keyProb[j] / v - 1)).toBeLessThanOrEqual(1e-5);
      expect(Math.abs(b.entropy[j] - a.entropy[j])).toBeLessThanOrEqual(1e-4);
      expect(b.support[j]).toBe(a.support[j]);
    });
  });
});

describe('inputs are the same for every normalizer and for a seed', () => {
  it('softmax, online_softmax and softmax_temperature(T = 1) give the same curves on gaussian distractors', () => {
    const r = dispersionSweep(ss, {
      normalizers: ['softmax', 'online_softmax', { name: 'softmax_temperature', params: { temperature: 1 } }],
      nMax: 2 ** 16, margin: 3, distractor: { kind: 'gaussian', scale: 1 }, seed: 11,
    });
    const [a, ...others] = r.series;
    for (const s of others) {
      a.keyProb.forEach((v, j) => {
        expect(Math.abs(s.keyProb[j] / v - 1), `${s.name} n=${r.n[j]}`).toBeLessThanOrEqual(2e-6);
        expect(Math.abs(s.entropy[j] - a.entropy[j])).toBeLessThanOrEqual(1e-5 * Math.max(1, a.entropy[j]));
      });
    }
  });

  it('the same seed gives identical results; another seed other ones; constant distractors ignore the seed', () => {
    const o = { normalizers: ['softmax'], nMax: 2 ** 12, margin: 2, distractor: { kind: 'gaussian', scale: 1 }, seed: 21 };
    const a = dispersionSweep(ss, o), b = dispersionSweep(ss, o);
    expect(b).toEqual(a);
    expect(dispersionSweep(ss, { ...o, seed: 22 }).series[0].keyProb).not.toEqual(a.series[0].keyProb);
    const c = { ...o, distractor: CONST };
    expect(dispersionSweep(ss, { ...c, seed: 1 }).series).toEqual(dispersionSweep(ss, { ...c, seed: 2 }).series);
  });

  it('echoes the options with defaults filled in', () => {
    const r = dispersionSweep(ss, { normalizers: ['softmax_temperature'], nMax: 64 });
    expect(r.inputs).toEqual({
      normalizers: [{ name: 'softmax_temperature', params: { temperature: 1 } }],
      nMin: 2, nMax: 64, margin: DISPERSION_DEFAULTS.margin, distractor: { ...DISPERSION_DEFAULTS.distractor },
      seed: DISPERSION_DEFAULTS.seed, pointsPerOctave: 1, keyPosition: 'first',
    });
  });
});

describe('incremental form and memory', () => {
  it('dispersionSteps yields every (n, normalizer) cell, small n first, and returns the result', () => {
    const o = { normalizers: ['softmax', 'log_softmax'], nMax: 256, nMin: 4, distractor: CONST };
    const it = dispersionSteps(ss, o);
    const cells = [];
    let r;
    while (!(r = it.next()).done) cells.push(r.value);
    expect(cells.map((c) => [c.n, c.name])).toEqual(pow2(2, 8).flatMap((n) => [[n, 'softmax'], [n, 'log_softmax']]));
    expect(r.value).toEqual(dispersionSweep(ss, o));
    expect(cells[3].keyProb).toBe(r.value.series[1].keyProb[1]);
    // onPoint sees the same cells
    const seen = [];
    dispersionSweep(ss, { ...o, onPoint: (c) => seen.push([c.index, c.series]) });
    expect(seen).toEqual(cells.map((c) => [c.index, c.series]));
  });

  it('options are checked when dispersionSteps is called, not at the first next()', () => {
    expect(() => dispersionSteps(ss, { normalizers: ['softmax'], nMax: 0 })).toThrow(/options\.nMax/);
  });

  it('two mallocs per n (x and y), whatever the number of normalizers; nothing left after a sweep or a stopped one', () => {
    const o = { nMax: 2 ** 16, distractor: { kind: 'gaussian', scale: 1 } };
    const grid = dispersionGrid(2, o.nMax, 1).length;
    for (const normalizers of [['softmax'], ['softmax', 'log_softmax', 'online_softmax', 'softmax_temperature']]) {
      dispersionSweep(ss, { ...o, normalizers }); // warm-up (scratch for the parameter probe)
      const s0 = ss.heapStats();
      dispersionSweep(ss, { ...o, normalizers });
      const s1 = ss.heapStats();
      expect(s1.totalAllocations - s0.totalAllocations).toBe(2 * grid);
      expect(s1.liveAllocations).toBe(s0.liveAllocations);
      expect(s1.liveBytes).toBe(s0.liveBytes);
    }
    const s0 = ss.heapStats();
    const it = dispersionSteps(ss, { ...o, normalizers: ['softmax'] });
    for (let i = 0; i < 10; i++) it.next();
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations + 2); // this n's x and y
    it.return();
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations);
  });
});

describe('a normalizer that rejects some n', () => {
  it.skipIf(!TOPK)('gets NaN and an error entry there, values elsewhere (an int parameter k > n)', () => {
    const k = TOPK;
    const r = dispersionSweep(ss, { normalizers: [{ name: k.name, params: { k: 8 } }], nMax: 64, distractor: CONST });
    const s = r.series[0];
    r.n.forEach((n, j) => {
      if (n < 8) {
        expect(Number.isNaN(s.keyProb[j])).toBe(true);
        expect(s.errors.map((e) => e.n)).toContain(n);
      } else {
        expect(s.keyProb[j]).toBeGreaterThan(0);
      }
    });
  });
});

describe('bad options throw, naming the option', () => {
  const ok = { normalizers: ['softmax'], nMax: 64 };
  it.each([
    [{ ...ok, nMax: undefined }, 'options.nMax', /options\.nMax is required/],
    [{ ...ok, nMax: 2 ** 20 + 1 }, 'options.nMax', /options\.nMax = 1048577 must be an integer in \[2, 1048576\]/],
    [{ ...ok, nMax: 1 }, 'options.nMax', /must be an integer/],
    [{ ...ok, nMax: 2.5 }, 'options.nMax', /must be an integer/],
    [{ ...ok, nMax: '64' }, 'options.nMax', /options\.nMax = "64" must be an integer/],
    [{ ...ok, nMin: 1 }, 'options.nMin', /options\.nMin = 1 must be an integer in \[2, 64\]/],
    [{ ...ok, nMin: 128 }, 'options.nMin', /\[2, 64\]/],
    [{ ...ok, margin: NaN }, 'options.margin', /options\.margin = NaN must be a finite number/],
    [{ ...ok, margin: 1e39 }, 'options.margin', /finite/],
    [{ ...ok, margin: '3' }, 'options.margin', /finite/],
    [{ ...ok, distractor: { kind: 'cauchy' } }, 'options.distractor.kind', /"cauchy" is not a distractor kind; known: constant, gaussian, uniform/],
    [{ ...ok, distractor: 'cauchy' }, 'options.distractor.kind', /not a distractor kind/],
    [{ ...ok, distractor: 42 }, 'options.distractor', /must be \{ kind, scale \}/],
    [{ ...ok, distractor: { scale: -1 } }, 'options.distractor.scale', /options\.distractor\.scale = -1 must be a finite number >= 0/],
    [{ ...ok, distractor: { scale: Infinity } }, 'options.distractor.scale', />= 0/],
    [{ ...ok, seed: -1 }, 'options.seed', /options\.seed = -1 must be an integer in \[0, 4294967295\]/],
    [{ ...ok, seed: 1.5 }, 'options.seed', /integer/],
    [{ ...ok, pointsPerOctave: 0 }, 'options.pointsPerOctave', /\[1, 16\]/],
    [{ ...ok, pointsPerOctave: 17 }, 'options.pointsPerOctave', /\[1, 16\]/],
    [{ ...ok, keyPosition: 'middle' }, 'options.keyPosition', /must be one of first, random/],
    [{ ...ok, normalizers: [] }, 'options.normalizers', /non-empty array/],
    [{ ...ok, normalizers: 'softmax' }, 'options.normalizers', /non-empty array/],
    [{ ...ok, normalizers: [42] }, 'options.normalizers[0]', /options\.normalizers\[0\] must be a normalizer name/],
    [{ ...ok, normalizers: ['softmax', 'sofmax'] }, 'options.normalizers[1]', /options\.normalizers\[1\]: unknown kernel "sofmax"; known: .*softmax/],
    [{ ...ok, normalizers: ['entropy'] }, 'options.normalizers[0]', /"entropy" is a measure, not a normalizer/],
    [{ ...ok, normalizers: [{ name: 'softmax_temperature', params: { temperature: -1 } }] }, 'options.normalizers[0].params.temperature',
      /options\.normalizers\[0\] \("softmax_temperature"\): params\.temperature = -1 is out of range \(0, /],
    [{ ...ok, normalizers: [{ name: 'softmax', params: { alpha: 1 } }] }, 'options.normalizers[0].params.alpha', /unknown parameter params\.alpha/],
    [{ ...ok, normalizers: [{ name: 'softmax', params: 7 }] }, 'options.normalizers[0].params', /params must be an object/],
    [{ ...ok, onPoint: 'yes' }, 'options.onPoint', /onPoint must be a function/],
  ])('%j', (options, argument, re) => {
    const e = thrown(() => dispersionSweep(ss, options));
    expect(e.message).toMatch(/^dispersionSweep: /);
    expect(e.message).toMatch(re);
    expect(e.argument).toBe(argument);
    expect(typeof e.code).toBe('string');
  });

  it('status codes: unknown kernel, family, length, range', () => {
    expect(thrown(() => dispersionSweep(ss, { ...ok, normalizers: ['sofmax'] })).code).toBe('SS_ERR_UNKNOWN_KERNEL');
    expect(thrown(() => dispersionSweep(ss, { ...ok, normalizers: ['entropy'] })).code).toBe('SS_ERR_FAMILY');
    expect(thrown(() => dispersionSweep(ss, { ...ok, nMax: 2 ** 21 })).code).toBe('SS_ERR_LENGTH');
    expect(thrown(() => dispersionSweep(ss, { ...ok, margin: NaN })).code).toBe('SS_ERR_PARAM_RANGE');
    expect(thrown(() => dispersionSweep(ss, { ...ok, normalizers: 'x' })).code).toBe('SS_ERR_TYPE');
  });

  it('a non-instance or a non-object options', () => {
    expect(thrown(() => dispersionSweep({}, ok)).argument).toBe('ss');
    expect(thrown(() => dispersionSweep(ss, null)).argument).toBe('options');
    expect(thrown(() => dispersionInput({ distractor: CONST }, 1)).argument).toBe('n');
  });
});
