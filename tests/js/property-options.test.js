// Option objects of the wrong type, generated (fast-check, fixed seed): for
// every call that takes options, an option of the wrong type, an unknown
// option, or options that are not an object at all always give an Error
// naming the argument (options.<key> / options), a SoftscopeError or
// SoftscopeTypeError with a status code, never a TypeError from inside and
// never a result. The same for the params of every registry kernel.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { createSoftscope } from 'softscope';
import { randomLogits } from './support/reference.js';
import { validInput, validParams, apiCall } from './support/family-calls.js';
import { FC, notANumber } from './support/arbitraries.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

// What a wrong value of each kind of option is.
const typed = fc.constantFrom(new Float32Array(2), new Uint8Array(1), new Int32Array(1));
const notObject = fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.bigInt(), fc.array(fc.integer(), { maxLength: 3 }), typed,
  fc.constantFrom(new Map(), new Date(0), /x/, () => 1, Symbol('s')));
const WRONG = {
  number: notANumber,
  u64: notANumber.filter((v) => typeof v !== 'bigint'),
  flag: fc.oneof(notANumber.filter((v) => typeof v !== 'boolean'), fc.double().filter((v) => v !== 0 && v !== 1)),
  name: fc.oneof(notANumber.filter((v) => typeof v !== 'string'), fc.string().map((s) => `no such ${s}`)),
  object: notObject,
  // [x0, x1, y0, y1] (a plain array) and [x, y] (an array or a typed array)
  view: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.object({ maxDepth: 0 }), typed),
  point: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.object({ maxDepth: 0 })),
  mask: fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.array(fc.integer({ min: 0, max: 1 }), { maxLength: 4 }),
    fc.constant(new Float32Array(4))),
};

// Every call that takes options: its call with options o, the options it
// needs to run (base), and the kind of each option.
function calls() {
  const x = randomLogits(8, 1), g = randomLogits(8, 2), cb = new Float32Array([-1, 1]);
  const codes = Int32Array.from(x, (v) => (v < 0 ? 0 : 1));
  const exact = ss.kernels('attention').find((k) => k.role === 'exact_attention');
  const attn = { q: x, k: x, v: g, n: 4, m: 4 };
  const thresholdKernel = ss.kernels('normalizer').find((k) => { try { ss.threshold(k.name, x); return true; } catch { return false; } });
  const run = { fn: 'name', start: 'point', steps: 'number', params: 'object', noise: 'number', clip: 'number', seed: 'number',
    schedule: 'name', total: 'number', warmup: 'number', decay: 'number', minFactor: 'number', optimizer: 'name' };
  const stream = { seed: 'u64', stream: 'u64', first: 'u64' };
  return [
    { name: 'uniform', call: (o) => ss.uniform(4, o), keys: stream },
    { name: 'normal', call: (o) => ss.normal(4, o), keys: stream },
    { name: 'gumbel', call: (o) => ss.gumbel(4, o), keys: stream },
    { name: 'categorical', call: (o) => ss.categorical(new Float32Array([1, 2, 3]), o), keys: { draws: 'number', ...stream } },
    { name: 'estimatorStats', call: (o) => ss.estimatorStats(ss.enums.estimator[0], x.subarray(0, 3), new Float32Array(3), o),
      keys: { tau: 'number', samples: 'number', seed: 'u64' } },
    { name: 'vqTrain', call: (o) => ss.vqTrain(x, o), base: { k: 2 }, keys: { k: 'number', dim: 'number', iters: 'number', seed: 'number' } },
    { name: 'vqAssign', call: (o) => ss.vqAssign(x, cb, o), keys: { dim: 'number' } },
    { name: 'vqBackward', call: (o) => ss.vqBackward(x, cb, codes, g, o), keys: { dim: 'number', beta: 'number' } },
    { name: 'pack', call: (o) => ss.pack(new Int32Array([1, 2]), 4, o), keys: { signed: 'flag' } },
    { name: 'unpack', call: (o) => ss.unpack(new Uint8Array([0x21]), 2, 4, o), keys: { signed: 'flag' } },
    { name: 'attend', call: (o) => ss.attend(exact.name, attn, {}, o),
      keys: { normalizer: 'name', normalizerParams: 'object', keyMask: 'mask', attention: 'flag' } },
    { name: 'functionGrid', call: (o) => ss.functionGrid(ss.functions[0].name, o), base: { nx: 4, ny: 4 }, keys: { nx: 'number', ny: 'number', view: 'view' } },
    { name: 'trajectory', call: (o) => ss.trajectory(o), base: { optimizer: ss.kernels('optimizer')[0].name, steps: 3 }, keys: run },
    { name: 'trajectoryRunner', call: (o) => ss.trajectoryRunner(o), base: { optimizer: ss.kernels('optimizer')[0].name }, keys: run },
    { name: 'threshold', call: (o) => ss.threshold(thresholdKernel.name, x, o), keys: { method: 'name' } },
    { name: 'adaround', call: (o) => ss.adaround(x, o), base: { cols: 4, batch: 2, iters: 2 },
      keys: { rows: 'number', cols: 'number', batch: 'number', seed: 'number', corr: 'number', bits: 'number', symmetric: 'flag', iters: 'number', lambda: 'number', lr: 'number' } },
    { name: 'entmaxSolve', call: (o) => ss.entmaxSolve(x, o), keys: { solver: 'name', alpha: 'number', tol: 'number', maxIter: 'number' } },
  ];
}

// fn must throw an Error naming `argument`, with a status code.
function expectNamed(fn, argument, label) {
  let e = null, result;
  try {
    result = fn();
  } catch (err) {
    e = err;
  }
  expect(e, `${label}: returned ${String(result)?.slice(0, 40)}`).not.toBeNull();
  expect(e.name, `${label}: ${e.message}`).toMatch(/^Softscope(Type)?Error$/);
  expect(e.code, label).toMatch(/^SS_ERR_/);
  expect(e.argument, `${label}: ${e.message}`).toBe(argument);
  expect(e.message, label).toContain(argument);
}

describe('options of the wrong type (generated)', () => {
  it('every call works with its base options (the cases below break one thing)', () => {
    for (const c of calls()) expect(() => c.call({ ...c.base }), c.name).not.toThrow();
  });

  it('an option of the wrong type: an Error naming options.<key>', () => {
    const cs = calls();
    const gen = fc.constantFrom(...cs).chain((c) => fc.constantFrom(...Object.keys(c.keys))
      .chain((key) => WRONG[c.keys[key]].map((v) => ({ c, key, v }))));
    fc.assert(fc.property(gen, ({ c, key, v }) => {
      expectNamed(() => c.call({ ...c.base, [key]: v }), `options.${key}`, `${c.name} options.${key}`);
    }), { ...FC, numRuns: 600 });
  });

  it('an unknown option: an Error naming it', () => {
    const cs = calls();
    const gen = fc.record({ c: fc.constantFrom(...cs), key: fc.string({ minLength: 1, maxLength: 12 }), v: fc.anything() })
      .filter(({ c, key }) => !(key in c.keys) && key !== '__proto__');
    fc.assert(fc.property(gen, ({ c, key, v }) => {
      expectNamed(() => c.call({ ...c.base, [key]: v }), `options.${key}`, `${c.name} options.${key}`);
    }), FC);
  });

  it('options that are not an object: an Error naming options (null and undefined mean none)', () => {
    const cs = calls().filter((c) => !c.base);
    fc.assert(fc.property(fc.constantFrom(...cs), notObject, (c, v) => {
      expectNamed(() => c.call(v), 'options', c.name);
    }), FC);
    for (const c of cs) {
      expect(() => c.call(null), c.name).not.toThrow();
      expect(() => c.call(undefined), c.name).not.toThrow();
    }
  });

  it('pack / unpack with options = null are the defaults (issue 17: was a raw TypeError)', () => {
    const codes = new Int32Array([1, 2, 3]);
    expect(Array.from(ss.unpack(ss.pack(codes, 4, null), 3, 4, null))).toEqual([1, 2, 3]);
  });

  it('createSoftscope: wrong options name themselves', async () => {
    for (const [o, arg] of [[5, 'options'], ['simd', 'options'], [{ impl: 3 }, 'options.impl'], [{ imp: 'simd' }, 'options.imp'], [{ wasm: 7 }, 'options.wasm']]) {
      const e = await createSoftscope(o).then(() => null, (err) => err);
      expect(e?.argument, JSON.stringify(o)).toBe(arg);
      expect(e.message).toContain(arg);
    }
  });
});

describe('params of the wrong type, for every registry kernel (generated)', () => {
  it('a parameter that is not a number (nor a listed choice, nor a boolean for a flag): an Error naming params.<name>', () => {
    const ks = ss.kernels().filter((k) => k.params.length);
    const gen = fc.constantFrom(...ks).chain((k) => fc.record({
      k: fc.constant(k), p: fc.constantFrom(...k.params),
      v: notANumber.filter((v) => typeof v !== 'boolean'),
    })).filter(({ p, v }) => !(p.choices && p.choices.includes(v)));
    fc.assert(fc.property(gen, ({ k, p, v }) => {
      const n = 32, input = validInput(k, n);
      expectNamed(() => apiCall(ss, k, input, { ...validParams(k, n), [p.name]: v }), `params.${p.name}`, `${k.name} params.${p.name}`);
    }), FC);
  });

  it('params that are not an object: an Error naming params', () => {
    const ks = ss.kernels();
    fc.assert(fc.property(fc.constantFrom(...ks), notObject, (k, v) => {
      expectNamed(() => apiCall(ss, k, validInput(k, 32), v), 'params', k.name);
    }), FC);
  });
});
