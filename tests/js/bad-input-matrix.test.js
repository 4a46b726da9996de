// The bad-input matrix of issue 17, generated from the registry: every
// kernel x every parameter x { below min, above max, NaN, +Inf, -Inf, above
// the input length (length-bound parameters), wrong type } and every kernel
// x inputs { empty, -Inf only, a value overflowing float32 } (and the same
// for a second input: a measure's q, an optimizer's g). One rule is broken
// at a time, everything else valid. For each case:
//   C    the generic entry point, called through the raw wasm exports, returns
//        a non-OK status, the same in the scalar and the SIMD build;
//   JS   the API throws an Error naming the argument, with that status;
//   CLI  exits 2 with one line on stderr naming the flag (in-process;
//        a few real processes prove the exit code).
// "Wrong type" and "overflowing" have no C form (C sees doubles and floats).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runInProcess } from '../../wasm/cli/main.js';
import { rawCall } from './support/raw-c.js';
import { validInput, validParams, apiCall, cliArgs, cliReadsInput } from './support/family-calls.js';
import { runCli } from './support/run-cli.js';
import { nextDouble } from './support/reference.js';

const N = 32; // input length of every case (vq's default codebook of 16 fits)

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// Just outside a bound: the bound itself when it is open, else the next
// integer (int and bool parameters) or the next double past it.
function outside(p, bound, dir) {
  if (dir < 0 ? p.min_open : p.max_open) return bound;
  if (p.type !== 'float' && bound + dir !== bound) return bound + dir;
  return nextDouble(bound, dir);
}

// JS values of the wrong type for a parameter (the CLI gets the first as text).
const WRONG_TYPES = [['a string', 'abc'], ['an array', [1]], ['an object', {}], ['null', null], ['a bigint', 1n], ['a typed array', new Float32Array(1)]];

// The cases of one kernel: { rule, input, params, arg, flag, c (has a C form), cli (has a CLI form) }.
function casesOf(k) {
  const input = validInput(k, N), params = validParams(k, N), out = [];
  const inputArg = k.family === 'measure' ? 'p' : k.family === 'optimizer' ? 'w' : k.family === 'attention' ? 'q' : 'x';
  for (const p of k.params) {
    const with_ = (v) => ({ ...params, [p.name]: v });
    const add = (rule, v, extra = {}) => out.push({ rule: `params.${p.name} ${rule}`, input, params: with_(v), arg: `params.${p.name}`,
      flag: `--param ${p.name}`, c: true, cli: true, ...extra });
    if (p.min !== null) add('below min', outside(p, p.min, -1));
    if (p.max !== null) add('above max', outside(p, p.max, 1));
    add('NaN', NaN);
    add('+Inf', Infinity);
    add('-Inf', -Infinity);
    // optimize runs on a 2-D test function: its n is 2, not N
    if (p.n_bound) add('above the input length', p.n_bound === 'le' ? N + 1 : N, { cli: k.family !== 'optimizer' });
    WRONG_TYPES.forEach(([what, v], i) => add(`of the wrong type (${what})`, v, { c: false, cli: i === 0 }));
  }
  const vec = (fill) => {
    const a = new Float32Array(N);
    a.fill(fill);
    return a;
  };
  const over = (v) => {
    const a = Float64Array.from(v);
    a[3] = -1e39;
    return a;
  };
  if (k.family === 'attention') {
    const x = input.x;
    out.push({ rule: 'q empty', input: { x: { ...x, q: new Float32Array(0), n: 0 } }, params, arg: 'n', flag: '--input', c: true, cli: true });
    out.push({ rule: 'q -Inf only', input: { x: { ...x, q: vec(-Infinity).subarray(0, x.q.length) } }, params, arg: 'q', flag: '--input', c: true, cli: true });
    out.push({ rule: 'q overflowing float32', input: { x: { ...x, q: over(x.q) } }, params, arg: 'q', flag: '--input', c: false, cli: true });
    return out;
  }
  const readsInput = cliReadsInput(k);
  out.push({ rule: `${inputArg} empty`, input: { x: new Float32Array(0), x2: input.x2 && new Float32Array(0) }, params, arg: inputArg,
    flag: '--input', c: true, cli: readsInput });
  out.push({ rule: `${inputArg} -Inf only`, input: { ...input, x: vec(-Infinity) }, params, arg: inputArg, flag: '--input', c: true, cli: readsInput });
  out.push({ rule: `${inputArg} overflowing float32`, input: { ...input, x: over(input.x) }, params, arg: inputArg, flag: '--input', c: false, cli: readsInput });
  if (input.x2) {
    const arg2 = k.family === 'optimizer' ? 'g' : 'q', cli2 = k.input === 'probs_pair';
    out.push({ rule: `${arg2} -Inf only`, input: { ...input, x2: vec(-Infinity) }, params, arg: arg2, flag: '--input2', c: true, cli: cli2 });
    out.push({ rule: `${arg2} overflowing float32`, input: { ...input, x2: over(input.x2) }, params, arg: arg2, flag: '--input2', c: false, cli: cli2 });
  }
  return out;
}

function jsError(ss, k, cs) {
  try {
    apiCall(ss, k, cs.input, cs.params);
  } catch (e) {
    return e;
  }
  return null;
}

// What C says: the status of the generic entry point in both builds.
function cStatus(k, cs) {
  const f32 = (v) => (v instanceof Float64Array ? Float32Array.from(v) : v);
  const x = k.family === 'attention' ? { ...cs.input.x, q: f32(cs.input.x.q) } : f32(cs.input.x);
  const x2 = cs.input.x2 ? f32(cs.input.x2) : null;
  const a = rawCall(simd, k, 'simd', x, cs.params, x2).status;
  const b = rawCall(simd, k, 'scalar', x, cs.params, x2).status;
  return { simd: a, scalar: b };
}

describe('bad-input matrix (from the registry)', () => {
  // Each case breaks one rule of a valid call: the valid call must succeed.
  it('the unbroken call of every kernel succeeds in C (both builds), JS and the CLI', async () => {
    const softscope = () => simd;
    for (const k of simd.kernels()) {
      const input = validInput(k, N), params = validParams(k, N);
      for (const impl of ['simd', 'scalar']) expect(rawCall(simd, k, impl, input.x, params, input.x2).status, `${k.name} ${impl}`).toBe(0);
      expect(() => apiCall(simd, k, input, params), k.name).not.toThrow();
      const r = await runInProcess(cliArgs(k, input, params), { softscope });
      expect(r.code, `${k.name}: ${r.stderr}`).toBe(0);
    }
  });

  it('C: every broken rule is a non-OK status, the same in both builds', () => {
    const bad = [];
    for (const k of simd.kernels()) {
      for (const cs of casesOf(k)) {
        if (!cs.c) continue;
        const s = cStatus(k, cs);
        if (s.simd === 0 || s.simd !== s.scalar) bad.push(`${k.name}: ${cs.rule}: simd ${s.simd}, scalar ${s.scalar}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('JS: an Error naming the argument, with the status C gives for the same rule', () => {
    const bad = [];
    for (const k of simd.kernels()) {
      for (const cs of casesOf(k)) {
        for (const ss of [simd, scalar]) {
          const e = jsError(ss, k, cs);
          const where = `${k.name} (${ss.impl}): ${cs.rule}`;
          if (!e) { bad.push(`${where}: returned a result`); continue; }
          if (!/^Softscope(Type)?Error$/.test(e.name)) { bad.push(`${where}: ${e.name}: ${e.message}`); continue; }
          if (e.argument !== cs.arg) bad.push(`${where}: argument ${e.argument}, expected ${cs.arg} (${e.message})`);
          else if (!e.message.includes(cs.arg)) bad.push(`${where}: the message does not name ${cs.arg}: ${e.message}`);
          if (cs.c && ss === simd) {
            const c = cStatus(k, cs).simd;
            if (e.status !== c) bad.push(`${where}: JS status ${e.code}, C status ${c} (${e.message})`);
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('CLI (in-process): exit 2, nothing on stdout, one line on stderr naming the flag', async () => {
    const bad = [];
    const softscope = (impl) => (impl === 'scalar' ? scalar : simd);
    for (const k of simd.kernels()) {
      for (const cs of casesOf(k)) {
        if (!cs.cli) continue;
        const params = Object.fromEntries(Object.entries(cs.params).map(([a, v]) => [a, Array.isArray(v) || v === null || typeof v === 'object' ? 'abc' : v]));
        const r = await runInProcess(cliArgs(k, cs.input, params), { softscope });
        const lines = r.stderr.split('\n').filter(Boolean);
        const where = `${k.name}: ${cs.rule}`;
        if (r.code !== 2 || r.stdout !== '' || lines.length !== 1) bad.push(`${where}: exit ${r.code}, ${lines.length} lines: ${r.stderr.trim()}`);
        else if (!lines[0].includes(cs.flag)) bad.push(`${where}: does not name ${cs.flag}: ${lines[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('as real processes: a handful of the CLI cases exit 2 with one line', async () => {
    const picks = [];
    for (const family of simd.enums.family) {
      const k = simd.kernels(family).find((e) => e.params.length > 0);
      if (!k) continue;
      const cs = casesOf(k).find((c) => c.cli && c.rule.endsWith('NaN'));
      if (cs) picks.push({ k, cs });
    }
    const k0 = simd.kernels('normalizer')[0];
    picks.push({ k: k0, cs: casesOf(k0).find((c) => c.rule.endsWith('overflowing float32')) });
    const runs = await Promise.all(picks.map(({ k, cs }) => runCli(cliArgs(k, cs.input, cs.params))));
    runs.forEach((r, i) => {
      const { k, cs } = picks[i];
      expect(r.code, `${k.name}: ${cs.rule}: ${r.err}`).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(cs.flag);
    });
  });

  it('the matrix is as large as the registry says', () => {
    let params = 0, cases = 0, c = 0, cli = 0;
    for (const k of simd.kernels()) {
      params += k.params.length;
      for (const cs of casesOf(k)) {
        cases++;
        c += cs.c ? 1 : 0;
        cli += cs.cli ? 1 : 0;
      }
    }
    // per parameter: below min / above max where bounded, NaN, +-Inf, 6 wrong types;
    // per kernel: empty, -Inf only, overflowing
    expect(cases).toBeGreaterThanOrEqual(9 * params + 3 * simd.kernels().length);
    // eslint-disable-next-line no-console
    console.log(`bad-input matrix: ${simd.kernels().length} kernels, ${params} parameters: ${cases} cases ` +
      `(${c} with a C form, run in both builds; all ${cases} through the JS API in both builds; ${cli} through the CLI)`);
  });
});
