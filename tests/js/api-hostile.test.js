// Hostile JavaScript must not reach the heap (issue 25), in every build: one
// named test per defect the probe found. Each checks the answer against a
// float64 reference and that a live HeapBuffer next to the scratch blocks is
// untouched. The property test over generated hostile objects is
// api-hostile.property.test.js.
import { describe, it, expect, beforeAll } from 'vitest';
import { randomLogits, refSoftmax, maxRelErr } from './support/reference.js';
import { thrown } from './support/thrown.js';
import { BUILDS, loadBuilds } from './support/builds.js';

const TOL = 2e-6; // softmax's relative error bound, every build

let instances;
beforeAll(async () => { instances = await loadBuilds(); });

describe.each(BUILDS)('%s build', (impl) => {
  let ss;
  beforeAll(() => {
    ss = instances[impl];
  });

  // Fresh scratch blocks, the first call's in0 of 64 bytes, then a live
  // buffer with known contents right after them in the heap.
  function freshWithSentinel(n = 256) {
    ss.reset();
    ss.normalize('softmax', new Float32Array([0]));
    const b = ss.alloc(n), want = randomLogits(n, 99);
    b.set(want);
    return { b, intact: () => expect(Array.from(b.array)).toEqual(Array.from(want)) };
  }

  const expectSoftmax = (y, x, T = 1) => {
    expect(y.length).toBe(x.length);
    expect(maxRelErr(y, refSoftmax(x, T)).err).toBeLessThanOrEqual(TOL);
  };

  it('regress: a Float32Array subclass whose length under-reports its size neither overflows a scratch block into a live HeapBuffer nor drops values', () => {
    const { intact } = freshWithSentinel();
    class Short extends Float32Array {
      get length() { return 1; }
    }
    const data = randomLogits(4096, 1);
    const x = new Short(data);
    expectSoftmax(ss.normalize('softmax', x), data);
    intact();
    // an own `length` on a plain Float32Array is ignored the same way
    const y = Float32Array.from(data);
    Object.defineProperty(y, 'length', { value: 2 });
    expectSoftmax(ss.normalize('softmax', y), data);
    intact();
  });

  it('regress: a Proxy of a Float32Array whose length under-reports on the first read is an Error naming x, and the heap is untouched', () => {
    const { intact } = freshWithSentinel();
    const data = randomLogits(4096, 2);
    let reads = 0;
    const x = new Proxy(Float32Array.from(data), {
      get(t, key) {
        if (key === 'length') return reads++ === 0 ? 1 : t.length;
        const v = Reflect.get(t, key);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const e = thrown(() => ss.normalize('softmax', x));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.argument).toBe('x');
    expect(e.message).toMatch(/x must be a Float32Array/);
    intact();
    expectSoftmax(ss.normalize('softmax', data), data);
  });

  it('regress: a resizable ArrayBuffer view grown from a params getter is an Error naming x (never 4 MB into an 8-byte block)', () => {
    const { intact } = freshWithSentinel();
    const ab = new ArrayBuffer(8, { maxByteLength: 4 * 2 ** 20 });
    const x = new Float32Array(ab); // tracks the buffer's length
    x.set([1, 2]);
    let ran = 0;
    const params = { get temperature() { ran++; ab.resize(4 * 2 ** 20); return 1; } };
    const e = thrown(() => ss.normalize('softmax_temperature', x, params));
    expect(e.name).toBe('SoftscopeError');
    expect(e.code).toBe('SS_ERR_BUFFER');
    expect(e.argument).toBe('x');
    expect(e.message).toMatch(/x is a view of a resizable ArrayBuffer/);
    expect(ran).toBe(0); // refused before any caller's code runs
    intact();
    // a fixed-length view of a resizable buffer too: it can go out of bounds
    expect(thrown(() => ss.normalize('softmax', new Float32Array(new ArrayBuffer(16, { maxByteLength: 64 }), 0, 4))).argument).toBe('x');
    // a fixed-length copy is the way
    expectSoftmax(ss.normalize('softmax', x.slice()), x.slice());
  });

  it('regress: a resizable ArrayBuffer view shrunk from a params getter is an Error naming x (never a result on the previous call\'s data)', () => {
    freshWithSentinel();
    const prev = new Float32Array([5, 6, 7, 8]);
    ss.normalize('softmax_temperature', prev);
    const ab = new ArrayBuffer(16, { maxByteLength: 16 });
    const x = new Float32Array(ab);
    x.set([1, 2, 3, 4]);
    const params = { get temperature() { ab.resize(8); return 1; } };
    const e = thrown(() => ss.normalize('softmax_temperature', x, params));
    expect(e.argument).toBe('x');
    expect(e.code).toBe('SS_ERR_BUFFER');
  });

  it('regress: a params getter that frees y during normalizeInto is an Error naming y; the output never lands in the buffer that took its place', () => {
    ss.reset();
    const n = 64, data = randomLogits(n, 3), want = randomLogits(n, 4);
    const x = ss.alloc(n).set(data), y = ss.alloc(n);
    let z = null;
    const params = {
      get temperature() {
        y.free();
        z = ss.alloc(n).set(want); // malloc hands out y's block again
        return 1;
      },
    };
    const e = thrown(() => ss.normalizeInto('softmax_temperature', x, y, params));
    expect(e.name).toBe('SoftscopeError');
    expect(e.argument).toBe('y');
    expect(e.message).toMatch(/y is a freed buffer/);
    expect(Array.from(z.array)).toEqual(Array.from(want));
    // and freeing x from a getter is an Error naming x
    const y2 = ss.alloc(n);
    const e2 = thrown(() => ss.normalizeInto('softmax_temperature', x, y2, { get temperature() { x.free(); return 1; } }));
    expect(e2.argument).toBe('x');
    expect(Array.from(z.array)).toEqual(Array.from(want));
  });

  it("regress: HeapBuffer's ptr and length cannot be written at run time, and a call uses the buffer's own block", () => {
    ss.reset();
    const n = 64, data = randomLogits(n, 5), want = randomLogits(n, 6);
    const x = ss.alloc(n).set(data), y = ss.alloc(n), z = ss.alloc(n).set(want);
    const ptr = y.ptr;
    expect(() => { y.ptr = z.ptr; }).toThrow(TypeError);
    expect(() => { y.length = 2 ** 20; }).toThrow(TypeError);
    expect(() => Object.defineProperty(y, 'ptr', { value: z.ptr })).toThrow(TypeError);
    expect(() => Object.defineProperty(y, 'length', { value: 2 ** 20 })).toThrow(TypeError);
    expect([y.ptr, y.length]).toEqual([ptr, n]);
    ss.normalizeInto('softmax', x, y);
    expectSoftmax(y.array, data);
    expect(Array.from(z.array)).toEqual(Array.from(want));
  });

  it('regress: a detached array is an Error naming x (SS_ERR_BUFFER), not a raw TypeError or "empty"', () => {
    ss.reset();
    const x = new Float32Array([1, 2, 3]);
    structuredClone(x.buffer, { transfer: [x.buffer] });
    const e = thrown(() => ss.normalize('softmax', x));
    expect(e.name).toBe('SoftscopeError');
    expect(e.code).toBe('SS_ERR_BUFFER');
    expect(e.argument).toBe('x');
    expect(e.message).toMatch(/x is detached/);
    // detached from a params getter, after x was read
    const x2 = new Float32Array([1, 2, 3]);
    const e2 = thrown(() => ss.normalize('softmax_temperature', x2, { get temperature() { structuredClone(x2.buffer, { transfer: [x2.buffer] }); return 1; } }));
    expect([e2.name, e2.code, e2.argument]).toEqual(['SoftscopeError', 'SS_ERR_BUFFER', 'x']);
  });

  it('regress: buf.array detached by the memory growth of the call that reads it gives the right answer (and a stale one is an Error naming x)', () => {
    ss.reset();
    const n = 2 ** 21; // 8 MB, and 8 MB more to stage it: more than the 16 MiB memory holds
    // 1024 repeats of 2048 logits: softmax is the softmax of one repeat / 1024
    const P = 2048, one = Float32Array.from({ length: P }, (_, i) => ((i * 7919) % P) / 100 - 10);
    const b = ss.alloc(n);
    for (let r = 0; r < n / P; r++) b.set(one, r * P);
    const view = b.array;
    const heapBefore = ss.heapStats().heapBytes;
    const y = ss.normalize('softmax', view), ref = refSoftmax(one);
    let worst = 0;
    for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(y[i] - ref[i % P] / (n / P)) / (ref[i % P] / (n / P)));
    expect(worst).toBeLessThanOrEqual(TOL);
    expect(ss.heapStats().heapBytes).toBeGreaterThan(heapBefore); // it did grow
    // the view is detached now: an Error naming x
    const e = thrown(() => ss.normalize('softmax', view));
    expect([e.name, e.code, e.argument]).toEqual(['SoftscopeError', 'SS_ERR_BUFFER', 'x']);
    expect(e.message).toMatch(/read buf\.array again/);
    ss.reset();
  });

  it('regress: softmaxState().reset() after ss.reset() resets (max -Infinity, sum 0) and apply() is right', () => {
    ss.reset();
    const s1 = ss.softmaxState();
    ss.softmaxState().update(new Float32Array([60, 1]));
    ss.reset();
    ss.softmaxState().update(new Float32Array([60, 59])); // leaves max = 60 in the new instance's scratch
    s1.reset();
    expect(s1.max).toBe(-Infinity);
    expect(s1.sum).toBe(0);
    const x = new Float32Array([1, 2, 3, 4]);
    s1.update(x);
    expect(s1.max).toBe(4);
    expectSoftmax(s1.apply(x), x);
  });
});
