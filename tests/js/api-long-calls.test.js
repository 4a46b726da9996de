// Issue 25: the long synchronous calls (estimatorStats: 2^24 samples of n =
// 256 take minutes; vqTrain: its seeding and each iteration are
// O(nvec * k * dim)) take limits (wasm/api/budget.js): options.signal, an
// AbortSignal read through its intrinsic getter when the call starts, and
// options.maxWork, a work budget in the call's unit checked before any work.
// A call within its limits returns exactly what it returns without them.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

const theta = Float32Array.of(1, 0.5, -0.25, 0), target = Float32Array.of(1, 0, 0, 0);
const x = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i * 0.7) * 2);
const aborted = () => { const c = new AbortController(); c.abort(); return c.signal; };

function expectAbort(f, where) {
  let err;
  try { f(); } catch (e) { err = e; }
  expect(err?.name).toBe('AbortError');
  expect(err.argument).toBe('options.signal');
  expect(err.message).toBe(`${where}: options.signal is aborted; the call did not start`);
}

describe('issue 25: estimatorStats and vqTrain take options.signal and options.maxWork', () => {
  it('an aborted signal stops the call before it starts: an AbortError naming options.signal', () => {
    expectAbort(() => ss.estimatorStats('reinmax', theta, target, { samples: 2 ** 24, signal: aborted() }), 'softscope.estimatorStats');
    expectAbort(() => ss.vqTrain(x, { k: 8, iters: 5, signal: aborted() }), 'softscope.vqTrain');
    // a call refused leaves the instance usable
    expect(ss.normalize('softmax', Float32Array.of(0, 0))).toEqual(Float32Array.of(0.5, 0.5));
  });

  it('over options.maxWork: SS_ERR_TOO_LARGE naming options.maxWork, before any work (2^24 samples refused at once)', () => {
    const t0 = performance.now();
    expect(() => ss.estimatorStats('st', theta, target, { samples: 2 ** 24, maxWork: 2 ** 26 - 1 }))
      .toThrow(expect.objectContaining({ code: 'SS_ERR_TOO_LARGE', argument: 'options.maxWork',
        message: 'softscope.estimatorStats: the call is 67108864 units of work (samples * n), over options.maxWork = 67108863' }));
    expect(() => ss.vqTrain(x, { k: 8, dim: 2, iters: 3, maxWork: 32 * 8 * 2 * 4 - 1 }))
      .toThrow(expect.objectContaining({ code: 'SS_ERR_TOO_LARGE', argument: 'options.maxWork' }));
    expect(performance.now() - t0).toBeLessThan(5000); // not run: 2^24 samples take over 10 s
  });

  it('within its limits a call returns the same bits as without them', () => {
    const live = new AbortController().signal;
    for (const est of ss.enums.estimator) {
      const plain = ss.estimatorStats(est, theta, target, { samples: 500, seed: 9, tau: 0.5 });
      expect(ss.estimatorStats(est, theta, target, { samples: 500, seed: 9, tau: 0.5, signal: live, maxWork: 500 * 4 })).toEqual(plain);
    }
    const plain = ss.vqTrain(x, { k: 8, dim: 2, iters: 3, seed: 4 });
    expect(ss.vqTrain(x, { k: 8, dim: 2, iters: 3, seed: 4, signal: live, maxWork: 32 * 8 * 2 * 4 })).toEqual(plain);
  });

  it('bad limits are Errors naming them; a look-alike signal is refused, and its getter never runs', () => {
    let reads = 0;
    const fake = { get aborted() { reads++; return false; } };
    for (const signal of [fake, 'abort', 1, Object.create(AbortSignal.prototype)])
      expect(() => ss.estimatorStats('st', theta, target, { signal })).toThrow(expect.objectContaining({ argument: 'options.signal', code: 'SS_ERR_TYPE' }));
    expect(reads).toBe(0);
    for (const maxWork of [0, -1, NaN, '5'])
      expect(() => ss.vqTrain(x, { k: 2, maxWork })).toThrow(expect.objectContaining({ argument: 'options.maxWork' }));
  });
});
