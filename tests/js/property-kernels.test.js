// Property tests (fast-check, fixed seed) over every registered kernel:
//  1. the JS API agrees with the C kernels: the same status, and bit for bit
//     the same outputs as the generic C entry point called through the raw
//     wasm exports (parameters over their whole documented range);
//  2. the scalar and the SIMD build agree: the same status, seeded draws
//     identical, values within the bound of their output kind;
//  3. the invariants the registry's output kind promises, over generated
//     inputs (sums to one, exact zeros for masked entries, drawn indices have
//     positive probability, losses >= 0 with gradients summing to 0, ...).
// Kernels are never named: each property runs over a family's registry list.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { createSoftscope } from 'softscope';
import { rawCall } from './support/raw-c.js';
import { apiCall, apiOutputs } from './support/family-calls.js';
import { FC, inputOf, paramsOf } from './support/arbitraries.js';

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// Families with a generic C entry point and a vector input (attention has its
// own property below).
const FAMILIES = ['normalizer', 'measure', 'loss', 'sampler', 'quantizer', 'optimizer'];

// { k, input, params } for a kernel of the family.
const caseOf = (family, range) => fc.constantFrom(...simd.kernels(family))
  .chain((k) => inputOf(k).chain((input) => paramsOf(k, input.x.length, range).map((params) => ({ k, input, params }))));

function call(ss, k, input, params) {
  try {
    return { out: apiOutputs(k, apiCall(ss, k, input, params)) };
  } catch (e) {
    return { error: e };
  }
}

const sameBits = (a, b) => (a === null || typeof a === 'number' ? Object.is(a, b)
  : a.length === b.length && a.every((v, i) => Object.is(v, b[i])));

describe('1. the JS API agrees with the C kernels', () => {
  it.each(FAMILIES)('%s: same status; on SS_OK the same outputs bit for bit (whole parameter ranges)', (family) => {
    fc.assert(fc.property(caseOf(family, 'full'), ({ k, input, params }) => {
      const c = rawCall(simd, k, 'simd', input.x, params, input.x2);
      const js = call(simd, k, input, params);
      if (c.status !== 0) {
        expect(js.error?.status, `${k.name}: C status ${c.status}`).toBe(c.status);
        return;
      }
      expect(js.error, k.name).toBeUndefined();
      for (const [name, v] of Object.entries(c.out)) expect(sameBits(v, js.out[name]), `${k.name} ${name}`).toBe(true);
    }), FC);
  });
});

// |a - b| <= rel |b| + abs, per output kind (the C suite holds each build to
// float64; two builds within this of each other).
const BOUND = {
  probs: [1e-5, 1e-6], log_probs: [1e-5, 1e-5], weights: [1e-5, 1e-6], draws: [1e-5, 1e-6],
  values_and_codes: [1e-6, 1e-6], params: [1e-5, 1e-6], scalar: [1e-5, 1e-9], scalar_and_grad: [1e-5, 1e-6],
};

function expectClose(a, b, [rel, abs], label) {
  if (typeof a === 'number') {
    if (!Number.isFinite(b)) expect(a, label).toBe(b);
    else expect(Math.abs(a - b), label).toBeLessThanOrEqual(rel * Math.abs(b) + abs);
    return;
  }
  expect(a.length, label).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(b[i])) expect(a[i], `${label}[${i}]`).toBe(b[i]);
    else expect(Math.abs(a[i] - b[i]), `${label}[${i}]`).toBeLessThanOrEqual(rel * Math.abs(b[i]) + abs);
  }
}

describe('2. the scalar and the SIMD build agree', () => {
  it.each(FAMILIES)('%s: same status, identical draws and codes, values within the bound of the output kind', (family) => {
    fc.assert(fc.property(caseOf(family, 'ui'), ({ k, input, params }) => {
      const a = call(simd, k, input, params), b = call(scalar, k, input, params);
      expect(a.error?.status, `${k.name}: simd ${a.error?.message}, scalar ${b.error?.message}`).toBe(b.error?.status);
      if (a.error) return;
      for (const [name, v] of Object.entries(b.out)) {
        if (v === null) continue;
        if (v instanceof Uint32Array || v instanceof Int32Array) expect(Array.from(a.out[name]), `${k.name} ${name}`).toEqual(Array.from(v));
        else expectClose(a.out[name], v, BOUND[k.output], `${k.name} ${name}`);
      }
    }), FC);
  });
});

const sum = (a) => a.reduce((s, v) => s + v, 0);

// The invariants of each output kind, on a successful call of kernel k.
const INVARIANTS = {
  probs(k, x, y) {
    for (let i = 0; i < y.length; i++) {
      expect(y[i]).toBeGreaterThanOrEqual(0);
      if (x[i] === -Infinity) expect(y[i]).toBe(0); // masked: exactly 0
    }
    expect(Math.abs(sum(y) - 1)).toBeLessThanOrEqual(1e-5);
  },
  log_probs(k, x, y) {
    for (let i = 0; i < y.length; i++) {
      expect(y[i]).toBeLessThanOrEqual(0);
      if (x[i] === -Infinity) expect(y[i]).toBe(-Infinity);
    }
    expect(Math.abs(sum(Array.from(y, Math.exp)) - 1)).toBeLessThanOrEqual(1e-5);
  },
  weights(k, x, y) {
    for (let i = 0; i < y.length; i++) {
      expect(Number.isFinite(y[i])).toBe(true);
      if (x[i] === -Infinity) expect(y[i]).toBe(0);
    }
  },
  // samplers: the distribution of the draws sums to one, masked entries are
  // never drawn, a drawn index has positive probability, relaxed draws are
  // points of the simplex.
  draws(k, x, r) {
    if (k.draws !== 'vector') INVARIANTS.probs(k, x, r.probs);
    for (const v of r.samples ?? []) expect(Number.isFinite(v)).toBe(true);
    for (const i of r.indices ?? []) {
      expect(i).toBeLessThan(x.length);
      expect(r.probs[i]).toBeGreaterThan(0);
    }
    if (k.draws === 'relaxed')
      for (let d = 0; d < r.draws; d++) {
        const row = r.samples.subarray(d * r.n, (d + 1) * r.n);
        row.forEach((v) => expect(v).toBeGreaterThanOrEqual(0));
        expect(Math.abs(sum(row) - 1)).toBeLessThanOrEqual(1e-5);
      }
  },
  values_and_codes(k, x, r) {
    expect(r.output.length).toBe(x.length);
    for (const v of r.output) expect(Number.isFinite(v)).toBe(true);
  },
  // measures of probability vectors are >= 0 (a divergence may be +Infinity)
  scalar(k, x, v) {
    expect(Number.isNaN(v)).toBe(false);
    if (k.input !== 'logits') expect(v).toBeGreaterThanOrEqual(-1e-7);
  },
  // losses (cross-entropy and Fenchel-Young losses): >= 0, finite, and the
  // gradient p - e_target sums to 0
  scalar_and_grad(k, x, r) {
    expect(Number.isFinite(r.loss)).toBe(true);
    expect(r.loss).toBeGreaterThanOrEqual(-1e-6);
    for (const v of r.grad) expect(Number.isFinite(v)).toBe(true);
    expect(Math.abs(sum(r.grad))).toBeLessThanOrEqual(1e-5 * Math.max(1, sum(Array.from(r.grad, Math.abs))));
  },
  params(k, x, w) {
    for (const v of w) expect(Number.isFinite(v)).toBe(true);
  },
};

describe('3. invariants of the output kinds, over generated inputs', () => {
  it.each(FAMILIES)('%s: what the registry output kind promises holds on every successful call, and calls are reproducible', (family) => {
    let ran = 0;
    fc.assert(fc.property(caseOf(family, 'ui'), ({ k, input, params }) => {
      let r;
      try {
        r = apiCall(simd, k, input, params);
      } catch (e) {
        // generated inputs may break a data rule (an all-masked row, a target
        // that is masked): that must be a status, never a type error or a trap
        expect(e.code, `${k.name}: ${e.message}`).toMatch(/^SS_ERR_/);
        return;
      }
      ran++;
      INVARIANTS[k.output](k, input.x, r);
      const again = apiCall(simd, k, input, params);
      const a = apiOutputs(k, r), b = apiOutputs(k, again);
      if (k.family !== 'optimizer') for (const name of Object.keys(a)) expect(sameBits(a[name], b[name]), `${k.name} ${name} twice`).toBe(true);
    }), FC);
    expect(ran).toBeGreaterThan(FC.numRuns / 2);
  });

  it('exact attention: each row of weights sums to 1 and each output is within the range of v', () => {
    const ks = simd.kernels('attention').filter((k) => k.role === 'exact_attention');
    const gen = fc.record({ k: fc.constantFrom(...ks), n: fc.integer({ min: 1, max: 6 }), extra: fc.integer({ min: 0, max: 4 }),
      d: fc.integer({ min: 1, max: 4 }), dv: fc.integer({ min: 1, max: 3 }), causal: fc.boolean(), seed: fc.integer({ min: 0, max: 1e6 }) })
      .chain((c) => fc.record({ c: fc.constant(c), vals: fc.array(fc.float({ min: -4, max: 4, noNaN: true }),
        { minLength: (c.n + 2 * (c.n + c.extra)) * 8, maxLength: (c.n + 2 * (c.n + c.extra)) * 8 }) }));
    fc.assert(fc.property(gen, ({ c, vals }) => {
      const m = c.n + c.extra, take = (len, at) => Float32Array.from(vals.slice(at, at + len));
      const q = take(c.n * c.d, 0), kk = take(m * c.d, c.n * c.d), v = take(m * c.dv, c.n * c.d + m * c.d);
      const r = simd.attend(c.k.name, { q, k: kk, v, n: c.n, m }, { causal: c.causal }, { attention: true });
      for (let i = 0; i < c.n; i++) {
        const row = r.attention.subarray(i * m, (i + 1) * m);
        expect(Math.abs(sum(row) - 1)).toBeLessThanOrEqual(1e-5);
        for (let j = 0; j < c.dv; j++) {
          const col = Array.from({ length: m }, (_, t) => v[t * c.dv + j]);
          expect(r.output[i * c.dv + j]).toBeGreaterThanOrEqual(Math.min(...col) - 1e-5);
          expect(r.output[i * c.dv + j]).toBeLessThanOrEqual(Math.max(...col) + 1e-5);
        }
      }
    }), FC);
  });
});
