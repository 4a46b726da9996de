// Memory: scratch buffers are reused (10^5 calls neither leak nor grow the
// heap), views survive memory growth, and the zero-copy path runs without a
// copy or an allocation per call.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, randomProbs, refSoftmax, maxRelErr } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

describe('no leak', () => {
  it('10^5 mixed calls keep liveAllocations, heap size and malloc count unchanged after warm-up', () => {
    const x = randomLogits(257, 1), p = randomProbs(257, 2), g = randomLogits(257, 3, 2);
    const round = () => {
      const y = ss.normalize('softmax', x);
      ss.normalizeBackward('softmax', x, y, g);
      ss.measure('entropy', p);
      try { ss.normalize('softmax', new Float32Array([1, NaN])); } catch { /* errors must not leak either */ }
    };
    round(); // warm-up: the scratch blocks reach their size
    const before = ss.heapStats();
    for (let i = 0; i < 25000; i++) round(); // 4 calls each: 10^5 calls
    const after = ss.heapStats();
    expect(after.liveAllocations).toBe(before.liveAllocations);
    expect(after.liveBytes).toBe(before.liveBytes);
    expect(after.totalAllocations).toBe(before.totalAllocations);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(ss.exports.memory.buffer.byteLength).toBe(before.heapBytes);
  });

  it('a growing n grows the scratch geometrically (few mallocs), old blocks freed', () => {
    const s0 = ss.heapStats();
    for (let n = 1; n <= 5000; n += 7) ss.normalize('softmax', randomLogits(n, n));
    const s1 = ss.heapStats();
    expect(s1.liveAllocations).toBe(s0.liveAllocations);
    // doubling: at most ~log2(5000 * 4 / 64) ~ 9 reallocations per slot (in + out)
    expect(s1.totalAllocations - s0.totalAllocations).toBeLessThanOrEqual(2 * 10);
  });
});

describe('scratch given back after a large call', () => {
  // Blocks past 8 MiB (SCRATCH_KEEP_BYTES) are freed at the end of the call
  // that grew them: the wasm memory cannot shrink, but the allocator reuses
  // the space, and reset() returns the memory itself.
  it('a 2^23-float call leaves only small scratch; the next large block reuses the space (no growth)', async () => {
    const fresh = await createSoftscope();
    fresh.normalize('softmax', randomLogits(100, 1));
    const small = fresh.heapStats();
    // 32 MiB in + 32 MiB out: a kernel that is not in_place (softmax runs
    // over its staged copy: one buffer)
    const n = 2 ** 23;
    fresh.normalize('two_pass_softmax', randomLogits(n, 2));
    const after = fresh.heapStats();
    expect(after.heapBytes).toBeGreaterThanOrEqual(2 * n * 4);
    expect(after.scratchBytes).toBeLessThanOrEqual(small.scratchBytes + 8 * 2 ** 20);
    expect(after.liveBytes).toBe(after.scratchBytes);
    // the freed 64 MiB serve a 24 MiB buffer and a 2 x 8 MiB call without growing
    const b = fresh.alloc(6 * 2 ** 20);
    fresh.normalize('two_pass_softmax', randomLogits(2 ** 21, 3));
    expect(fresh.heapStats().heapBytes).toBe(after.heapBytes);
    b.free();
    // small calls keep their scratch: no malloc per call
    fresh.normalize('softmax', randomLogits(100, 4));
    const t = fresh.heapStats().totalAllocations;
    for (let i = 0; i < 100; i++) fresh.normalize('softmax', randomLogits(100, 4));
    expect(fresh.heapStats().totalAllocations).toBe(t);
    fresh.reset();
    expect(fresh.heapStats().heapBytes).toBe(16 * 2 ** 20);
  });

  it('a stream of chunks and a trajectory give their large scratch back too', async () => {
    const fresh = await createSoftscope();
    const st = fresh.softmaxState().update(randomLogits(2 ** 22, 5));
    expect(fresh.heapStats().scratchBytes).toBeLessThanOrEqual(8 * 2 ** 20 + 4096);
    st.apply(randomLogits(2 ** 22, 5));
    expect(fresh.heapStats().scratchBytes).toBeLessThanOrEqual(8 * 2 ** 20 + 4096);
    fresh.trajectory({ optimizer: fresh.kernels('optimizer')[0].name, steps: 400000 }); // 24 bytes a step: 9.6 MB
    expect(fresh.heapStats().scratchBytes).toBeLessThanOrEqual(8 * 2 ** 20 + 4096);
  });
});

describe('memory growth', () => {
  it('results stay right after the wasm memory grows (views re-created)', async () => {
    const fresh = await createSoftscope();
    const small = fresh.alloc(16);
    small.set(randomLogits(16, 9));
    const h0 = fresh.heapStats().heapBytes;
    // 4 M floats in + out = 32 MB > the 16 MB initial memory.
    const n = 1 << 22;
    const x = randomLogits(n, 4, 30);
    const y = fresh.normalize('softmax', x);
    expect(fresh.heapStats().heapBytes).toBeGreaterThan(h0);
    // Every entry against float64 (max and sum over all of x, computed here).
    let m = -Infinity, sum = 0, worst = 0;
    for (let i = 0; i < n; i++) if (x[i] > m) m = x[i];
    for (let i = 0; i < n; i++) sum += Math.exp(x[i] - m);
    for (let i = 0; i < n; i++) {
      const r = Math.exp(x[i] - m) / sum;
      worst = Math.max(worst, Math.abs(y[i] - r) / r);
    }
    expect(worst).toBeLessThanOrEqual(2e-6);
    // A buffer allocated before the growth is still readable and usable.
    const out = fresh.alloc(16);
    fresh.normalizeInto('softmax', small, out);
    expect(maxRelErr(out.array, refSoftmax(small.array)).err).toBeLessThanOrEqual(2e-6);
    expect(out.array.buffer).toBe(fresh.exports.memory.buffer);
  });
});

describe('zero-copy', () => {
  it('alloc gives heap-resident buffers; normalizeInto equals normalize bit for bit', () => {
    for (const k of ss.kernels('normalizer')) {
      const n = 1000;
      const xb = ss.alloc(n), yb = ss.alloc(n);
      const x = randomLogits(n, 77);
      xb.array.set(x);
      expect(xb.array.buffer).toBe(ss.exports.memory.buffer);
      expect(xb.ptr % 4).toBe(0);
      expect(ss.normalizeInto(k.name, xb, yb)).toBe(yb);
      expect(Array.from(yb.array)).toEqual(Array.from(ss.normalize(k.name, x)));
      xb.free();
      yb.free();
    }
  });

  it('normalizeInto allocates nothing per call', () => {
    const xb = ss.alloc(512), yb = ss.alloc(512);
    xb.set(randomLogits(512, 5));
    ss.normalizeInto('softmax', xb, yb);
    const before = ss.heapStats();
    for (let i = 0; i < 10000; i++) ss.normalizeInto('softmax', xb, yb);
    const after = ss.heapStats();
    expect(after.totalAllocations).toBe(before.totalAllocations);
    expect(after.liveAllocations).toBe(before.liveAllocations);
    xb.free();
    yb.free();
  });

  it('heap buffers count as live allocations until freed; free is idempotent', () => {
    const s0 = ss.heapStats().liveAllocations;
    const b = ss.alloc(10);
    expect(ss.heapStats().liveAllocations).toBe(s0 + 1);
    b.free();
    b.free();
    expect(ss.heapStats().liveAllocations).toBe(s0);
    expect(() => b.array).toThrow(/freed/);
  });

  it('heap buffers are accepted as inputs by normalize and measure (no copy in)', () => {
    const pb = ss.alloc(4);
    pb.set([0.25, 0.25, 0.25, 0.25]);
    expect(Math.abs(ss.measure('entropy', pb) - Math.log(4))).toBeLessThanOrEqual(1e-6);
    pb.free();
  });

  it('rejects copies, other instances, freed buffers, aliasing and length mismatch', async () => {
    const other = await createSoftscope();
    const a = ss.alloc(4), b = ss.alloc(4), c = ss.alloc(5), o = other.alloc(4);
    a.set([1, 2, 3, 4]);
    expect(() => ss.normalizeInto('softmax', new Float32Array(4), b)).toThrow(/x must be a buffer from this instance's alloc/);
    expect(() => ss.normalizeInto('softmax', a, o)).toThrow(/y must be a buffer from this instance's alloc/);
    expect(() => ss.normalizeInto('softmax', a, c)).toThrow(/y has length 5 but x has length 4/);
    expect(() => ss.normalizeInto('softmax', a, a)).toThrow(/y must be a different buffer from x/);
    c.free();
    b.free();
    expect(() => ss.normalizeInto('softmax', a, b)).toThrow(/y is a freed buffer/);
    a.array[2] = NaN;
    const d = ss.alloc(4);
    expect(() => ss.normalizeInto('softmax', a, d)).toThrow(/x contains NaN \(at index 2\)/);
    expect(() => ss.alloc(0)).toThrow(/alloc: n = number 0 must be an integer in \[1, /);
    expect(() => ss.alloc(2.5)).toThrow(/must be an integer/);
    a.free();
    d.free();
  });
});
