// Property test (fast-check, fixed seed), in every build: hostile objects —
// typed-array subclasses and own properties that misreport the length,
// Proxies, resizable / growable / detached buffers, views of the wasm memory,
// and params getters with side effects (freeing the input or the output,
// allocating into the freed block, detaching, growing the memory, resetting
// the instance, calling softscope again) — never reach the heap. After each
// case: the call gave softmax(x) (float64 reference) or threw an Error
// naming an argument, when the case allows one; a live buffer is untouched;
// an online-softmax state made before the case resets and is right; a known
// softmax is right; and no block leaked. The named regression tests are in
// api-hostile.test.js.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { randomLogits, refSoftmax, refLogSumExp, maxRelErr } from './support/reference.js';
import { BUILDS, loadBuilds } from './support/builds.js';

const TOL = 2e-6;
const RUNS = 100;
const canGrowShared = typeof SharedArrayBuffer === 'function' && typeof SharedArrayBuffer.prototype.grow === 'function';

// How x reaches the call (normalize, loss), and which of them must be refused.
const WRAPS = ['plain', 'offset-view', 'subclass-short', 'subclass-long', 'own-length', 'float64', 'shared', 'heap-view', 'heap-buffer',
  'proxy', 'proxy-lying', 'resizable', 'resizable-fixed', 'detached', ...(canGrowShared ? ['growable'] : [])];
const REFUSED = new Set(['proxy', 'proxy-lying', 'resizable', 'resizable-fixed', 'detached', 'growable']);
// Wraps whose array is the caller's memory (a detach from a getter reaches it).
const SHARES_MEMORY = new Set(['plain', 'offset-view', 'subclass-short', 'subclass-long', 'own-length']);
// What the params getter does.
const EFFECTS = ['none', 'free-x', 'free-y', 'alloc', 'detach', 'resize', 'grow-memory', 'reset', 'reentrant', 'state'];

let instances;
beforeAll(async () => { instances = await loadBuilds(); });

const caseArb = fc.record({
  call: fc.constantFrom('normalize', 'normalizeInto', 'loss'),
  wrap: fc.constantFrom(...WRAPS),
  effect: fc.constantFrom(...EFFECTS),
  n: fc.integer({ min: 1, max: 300 }),
  seed: fc.integer({ min: 0, max: 2 ** 30 }),
  effectTwice: fc.boolean(),
});

// x as the case wraps it; `heap` lists the HeapBuffers it made, `buffer` the
// caller's ArrayBuffer a getter may detach or resize.
function wrap(ss, kind, data, own) {
  const n = data.length;
  switch (kind) {
    case 'plain': return { x: Float32Array.from(data) };
    case 'offset-view': {
      const buf = new ArrayBuffer((n + 3) * 4);
      const x = new Float32Array(buf, 8, n);
      x.set(data);
      return { x, buffer: buf };
    }
    case 'subclass-short': case 'subclass-long': {
      const lie = kind === 'subclass-short' ? 1 : n * 1000;
      class Liar extends Float32Array { get length() { return lie; } }
      return { x: new Liar(data) };
    }
    case 'own-length': {
      const x = Float32Array.from(data);
      Object.defineProperty(x, 'length', { value: 1 });
      return { x };
    }
    case 'float64': return { x: Float64Array.from(data) };
    case 'shared': {
      const x = new Float32Array(new SharedArrayBuffer(n * 4));
      x.set(data);
      return { x };
    }
    case 'heap-view': case 'heap-buffer': {
      const b = own(ss.alloc(n)).set(data);
      return { x: kind === 'heap-buffer' ? b : b.array, heapX: kind === 'heap-buffer' ? b : null };
    }
    case 'proxy': return { x: new Proxy(Float32Array.from(data), {}) };
    case 'proxy-lying': {
      let reads = 0;
      return {
        x: new Proxy(Float32Array.from(data), {
          get(t, key) {
            if (key === 'length') return reads++ === 0 ? 1 : n * 1000;
            const v = Reflect.get(t, key);
            return typeof v === 'function' ? v.bind(t) : v;
          },
        }),
      };
    }
    case 'resizable': case 'resizable-fixed': {
      const ab = new ArrayBuffer(n * 4, { maxByteLength: 4 * n * 1000 });
      const x = kind === 'resizable' ? new Float32Array(ab) : new Float32Array(ab, 0, n);
      x.set(data);
      return { x, buffer: ab };
    }
    case 'growable': {
      const sab = new SharedArrayBuffer(n * 4, { maxByteLength: 4 * n * 1000 });
      const x = new Float32Array(sab);
      x.set(data);
      return { x, buffer: sab };
    }
    case 'detached': {
      const x = Float32Array.from(data);
      structuredClone(x.buffer, { transfer: [x.buffer] });
      return { x };
    }
    default: throw new Error(kind);
  }
}

describe.each(BUILDS)('%s build: hostile objects never reach the heap', (impl) => {
  it(`${RUNS} generated cases (normalize, normalizeInto, loss): softmax(x) / cross-entropy or an Error naming an argument; a live buffer, a state and a known softmax right after each; nothing leaked`, () => {
    const ss = instances[impl];
    ss.reset();
    const known = randomLogits(100, 12345);
    const counts = { ok: 0, refused: 0 };
    fc.assert(fc.property(caseArb, (c) => {
      const mine = [];
      const own = (b) => { mine.push(b); return b; };
      try {
        check(c, own);
      } finally {
        for (const b of mine) b.free(); // also when a check failed: fast-check's shrinking runs on
      }
      const s = ss.heapStats();
      expect(s.liveBytes).toBe(s.scratchBytes);
    }), { seed: 25, numRuns: RUNS });
    // both outcomes were exercised
    expect(counts.ok).toBeGreaterThan(RUNS / 4);
    expect(counts.refused).toBeGreaterThan(RUNS / 10);

    function check(c, own) {
      const { call, wrap: kind, effect, n, seed, effectTwice } = c;
      const data = randomLogits(n, seed);
      // stale data in the scratch blocks, then a guard buffer and a state
      ss.normalize('softmax_temperature', randomLogits(n + 7, seed + 1), { temperature: 3 });
      const guardData = randomLogits(64, seed + 2);
      const guard = own(ss.alloc(64)).set(guardData);
      const state = ss.softmaxState();

      let x, heapX = null, heapY = null, buffer = null;
      if (call === 'normalizeInto') {
        heapX = x = own(ss.alloc(n)).set(data);
        heapY = own(ss.alloc(n));
      } else {
        ({ x, heapX = null, buffer = null } = wrap(ss, kind, data, own));
      }
      let reset = false, ran = 0;
      const doEffect = () => {
        switch (effect) {
          case 'free-x': heapX?.free(); break;
          case 'free-y': heapY?.free(); break;
          case 'alloc': own(ss.alloc(n)).set(randomLogits(n, seed + 3)); break;
          case 'detach': structuredClone(buffer ?? x.buffer, { transfer: [buffer ?? x.buffer] }); break;
          case 'resize': (buffer.resize ?? buffer.grow).call(buffer, buffer.byteLength === 4 * n ? 4 * n * 1000 : 4); break;
          case 'grow-memory': ss.alloc(2 ** 21).free(); break;
          case 'reset': ss.reset(); reset = true; break;
          case 'reentrant': ss.normalize('softmax_temperature', randomLogits(n + 1000, seed + 4), { temperature: 7 }); break;
          case 'state': ss.softmaxState().update(new Float32Array([60, 59])); break;
          default:
        }
      };
      // the getter of the call's one parameter: softmax_temperature's
      // temperature (1), or cross_entropy's target class (0)
      const value = () => {
        if (ran++ === 0 || effectTwice) {
          try { doEffect(); } catch { /* the effect itself may be impossible (a wasm memory cannot be transferred) */ }
        }
        return call === 'loss' ? 0 : 1;
      };
      const params = call === 'loss' ? { get target() { return value(); } } : { get temperature() { return value(); } };

      let y = null, err = null;
      try {
        if (call === 'normalizeInto') y = ss.normalizeInto('softmax_temperature', x, heapY, params).array;
        else if (call === 'loss') y = ss.loss('cross_entropy', x, params);
        else y = ss.normalize('softmax_temperature', x, params);
      } catch (e) {
        err = e;
      }

      // The call's outcome.
      const wrapped = call !== 'normalizeInto';
      const refused = wrapped && REFUSED.has(kind);
      const inputGone = (effect === 'free-x' && heapX) || (effect === 'free-y' && heapY) || (effect === 'reset' && (heapX || heapY)) ||
        (effect === 'detach' && wrapped && SHARES_MEMORY.has(kind));
      if (err) {
        expect(refused || inputGone, `${call} ${kind} ${effect}: ${err.stack}`).toBeTruthy();
        expect(err).toBeInstanceOf(Error);
        expect(err.code).toMatch(/^SS_ERR_/);
        expect(['x', 'y']).toContain(err.argument);
        counts.refused++;
      } else {
        expect(refused, `${call} ${kind} ${effect}: not refused`).toBe(false);
        if (call === 'loss') {
          // cross-entropy against class 0: logsumexp(x) - x_0, gradient softmax(x) - e_0
          expect(Math.abs(y.loss - (refLogSumExp(data) - data[0]))).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(refLogSumExp(data))));
          const p = refSoftmax(data);
          expect(y.grad.length).toBe(n);
          // softmax's relative bound on p_i, plus float32's rounding of p_0 - 1
          y.grad.forEach((v, i) => expect(Math.abs(v - (p[i] - (i === 0 ? 1 : 0)))).toBeLessThanOrEqual(TOL * p[i] + 2 ** -23));
        } else {
          expect(y.length).toBe(n);
          expect(maxRelErr(y, refSoftmax(data)).err).toBeLessThanOrEqual(TOL);
        }
        counts.ok++;
      }

      // The heap afterwards.
      if (!reset) expect(Array.from(guard.array)).toEqual(Array.from(guardData));
      else expect(guard.freed).toBe(true);
      state.reset();
      expect([state.max, state.sum]).toEqual([-Infinity, 0]);
      expect(maxRelErr(state.update(known).apply(known), refSoftmax(known)).err).toBeLessThanOrEqual(TOL);
      expect(maxRelErr(ss.normalize('softmax', known), refSoftmax(known)).err).toBeLessThanOrEqual(TOL);
    }
  });
});
