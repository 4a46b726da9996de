// Every parameter of every registered kernel at the extremes of its
// documented range (the closed bound itself, or the first double inside an
// open one; 1e-300 above a lower bound of 0), the others at their defaults,
// on inputs of n = 1, 4, 17, 67 (random, and for logits / values also
// scaled by 1e30 and all zero), through the JS API in both builds: no NaN or
// infinity returned with SS_OK (masked log-probabilities and infinite
// divergences aside), and the scalar and the SIMD build give the same status.
// One test per kernel parameter; known C defects are marked from
// support/known-c-defects.js.
import { describe, it, expect } from 'vitest';
import { createSoftscope } from 'softscope';
import { validInput, validParams, apiCall, apiOutputs } from './support/family-calls.js';
import { PENDING_C_FIXES, UNCLAIMED_C_DEFECTS } from './support/known-c-defects.js';
import { nextDouble } from './support/reference.js';

// Loaded before the tests are collected: they are generated from the registry.
const simd = await createSoftscope({ impl: 'simd' });
const scalar = await createSoftscope({ impl: 'scalar' });

// The extreme values of p inside its range.
function extremes(p) {
  const out = [];
  const inside = (bound, dir) => (p.type === 'float' ? nextDouble(bound, dir) : bound + dir);
  if (p.min !== null) out.push(p.min_open ? inside(p.min, 1) : p.min);
  if (p.max !== null) out.push(p.max_open ? inside(p.max, -1) : p.max);
  if (p.type === 'float' && p.min === 0) out.push(1e-300);
  // a sampler's draws at its maximum is a memory test (the bad-input matrix
  // has draws past it); here it stays small
  return p.name === 'draws' ? out.map((v) => Math.min(v, 64)) : out;
}

const scaled = (a, c) => (a ? Float32Array.from(a, (v) => v * c) : a);

function inputs(k, n) {
  const out = [1, 2, 3].map((s) => validInput(k, n, 3 * n + s));
  if (k.family === 'attention' || k.input !== 'logits' && k.input !== 'values') return out;
  const v = validInput(k, n, 7);
  for (const c of [1e30, 0]) {
    out.push({ x: scaled(v.x, c), x2: v.x2 });
    if (v.x2) out.push({ x: v.x, x2: scaled(v.x2, c) });
  }
  return out;
}

function run(ss, k, input, params) {
  try {
    return { out: apiOutputs(k, apiCall(ss, k, input, params)) };
  } catch (e) {
    return { error: e };
  }
}

// What a successful call may return: finite values; -Infinity for a masked
// log-probability; +Infinity for a measure (a divergence).
function nonFinite(k, out) {
  for (const [name, v] of Object.entries(out)) {
    if (v === null) continue;
    const vals = typeof v === 'number' ? [v] : v;
    for (let i = 0; i < vals.length; i++) {
      const a = vals[i];
      if (Number.isFinite(a) || (a === Infinity && k.family === 'measure')) continue;
      return `${name}[${i}] = ${a}`;
    }
  }
  return null;
}

describe('every parameter at the extremes of its documented range', () => {
  for (const k of simd.kernels()) {
    for (const p of k.params) {
      const key = `${k.name}.${p.name}`;
      const test = PENDING_C_FIXES[key] ? it.fails : UNCLAIMED_C_DEFECTS[key] ? it.skip : it;
      test(`${k.family} ${key}: finite results or an error status, the same in both builds`, () => {
        const bad = [];
        for (const v of extremes(p)) {
          for (const n of [1, 4, 17, 67]) {
            if (p.n_bound && v > n) continue;
            const params = { ...validParams(k, n), [p.name]: v };
            for (const input of inputs(k, n)) {
              const a = run(simd, k, input, params), b = run(scalar, k, input, params);
              const at = `${p.name} = ${v}, n = ${n}`;
              for (const [impl, r] of [['simd', a], ['scalar', b]]) {
                if (r.error && !/^SS_ERR_/.test(r.error.code)) bad.push(`${at}: ${impl} threw ${r.error.name}: ${r.error.message}`);
                const nf = r.out && nonFinite(k, r.out);
                if (nf) bad.push(`${at}: ${impl} returned ${nf} with SS_OK`);
              }
              if (a.error?.status !== b.error?.status)
                bad.push(`${at}: simd ${a.error?.code ?? 'SS_OK'}, scalar ${b.error?.code ?? 'SS_OK'}`);
            }
          }
        }
        expect(bad.slice(0, 5)).toEqual([]);
      });
    }
  }
});
