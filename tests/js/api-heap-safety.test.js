// The heap under hostile sizes and traps (issue 17): a byte count that
// cannot fit the wasm memory is an Error naming the argument before anything
// is allocated; no failed call leaves JS's bookkeeping and the C allocator
// apart; a trap inside wasm re-creates the instance. After each, heapStats()
// is sane, a legal call is right and live buffers are untouched.
import { describe, it, expect, beforeEach } from 'vitest';
import { createSoftscope, SoftscopeTrapError } from 'softscope';
import { randomLogits, randomProbs, refSoftmax, maxRelErr } from './support/reference.js';
import { chiSquare } from '../../wasm/analysis/stats.js';
import { thrown } from './support/thrown.js';

const MAX_BLOCK = 2 ** 31 - 1;

let ss;
beforeEach(async () => { ss = await createSoftscope(); });

// A live buffer with known contents, and a check that it is untouched.
function sentinel(n = 64) {
  const b = ss.alloc(n), want = randomLogits(n, 99);
  b.set(want);
  return { b, intact: () => expect(Array.from(b.array)).toEqual(Array.from(want)) };
}

// heapStats() adds up: the live blocks are the scratch blocks plus the
// caller's buffers, all far below the wasm memory.
function expectSane(extraBytes = 0) {
  const s = ss.heapStats();
  expect(s.liveBytes).toBe(s.scratchBytes + extraBytes);
  expect(s.liveBytes).toBeLessThan(s.heapBytes);
  expect(s.heapBytes).toBeLessThanOrEqual(2 ** 31);
}

// Draws from w agree with w / sum w (Pearson's chi-square, p > 1e-4).
function expectDrawsFit(w, draws) {
  let s = 0;
  for (const v of w) s += v;
  const { pValue } = chiSquare(draws, Float64Array.from(w, (v) => v / s));
  expect(pValue).toBeGreaterThan(1e-4);
}

describe('the sequence of issue 17', () => {
  it('categorical draws = 2^30 is an Error naming options.draws; then heapStats is sane, draws = 2^20 are right, a live buffer is untouched', () => {
    const w = new Float32Array([1, 2, 3, 4]);
    const { b, intact } = sentinel();
    const before = ss.heapStats();
    const e = thrown(() => ss.categorical(w, { draws: 2 ** 30 }));
    expect(e.name).toBe('SoftscopeError');
    expect(e.code).toBe('SS_ERR_TOO_LARGE');
    expect(e.argument).toBe('options.draws');
    expect(e.message).toMatch(/^softscope\.categorical: options\.draws = 1073741824 needs 4294967296 bytes/);
    // nothing was allocated for it
    expect(ss.heapStats().totalAllocations).toBe(before.totalAllocations);
    expectSane(b.length * 4);
    const d = ss.categorical(w, { draws: 2 ** 20, seed: 3 });
    expect(d.length).toBe(2 ** 20);
    expect(d.every((i) => i < 4)).toBe(true);
    expectDrawsFit(w, d);
    intact();
    expectSane(b.length * 4);
  });

  it('draws that fit one block but not the memory: malloc fails cleanly, the slot is not left pointing at freed memory', () => {
    const w = new Float32Array([1, 1]);
    const { b, intact } = sentinel();
    ss.categorical(w, { draws: 1000 }); // a 'draws' slot exists
    const e = thrown(() => ss.categorical(w, { draws: Math.floor(MAX_BLOCK / 4) }));
    expect(e.code).toBe('SS_ERR_TOO_LARGE');
    expectSane(b.length * 4);
    const d = ss.categorical(w, { draws: 5000, seed: 1 });
    expectDrawsFit(w, d);
    intact();
  });
});

describe('every size that feeds an allocation is checked before it', () => {
  const cases = [
    ['softmaxTopk: k on an empty x', () => ss.softmaxTopk(new Float32Array(0), 2 ** 40), 'x'],
    ['softmaxTopk: k < 1', () => ss.softmaxTopk(new Float32Array(3), 0), 'k'],
    ['unpack: n past maxN', () => ss.unpack(new Uint8Array(16), 2 ** 40, 8), 'n'],
    ['attend: heads x n x m matrices past 2 GiB', () => {
      const n = 4096, q = new Float32Array(n * 4096);
      return ss.attend('sdpa', { q, k: q, v: new Float32Array(n), n, m: n }, { heads: 4096 }, { attention: true });
    }, ['params.heads', 'n']],
    ['attentionMeasures: heads^2 distances past 2 GiB', () => ss.attentionMeasures(new Float32Array(2 ** 20), 2 ** 20, 1, 1), 'heads'],
    ['uniform: n past maxN', () => ss.uniform(2 ** 32), 'n'],
    ['alloc: n past maxN', () => ss.alloc(2 ** 40), 'n'],
  ];
  it.each(cases)('%s: an Error naming the argument, nothing large allocated, heap sane', (_, call, arg) => {
    const { b, intact } = sentinel();
    const before = ss.heapStats();
    const e = thrown(call);
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toMatch(/^SS_ERR_/);
    if (Array.isArray(arg)) expect(arg).toContain(e.argument);
    else expect(e.argument).toBe(arg);
    // at most the small fixed scratch blocks a call reserves before its sizes are known
    expect(ss.heapStats().liveBytes - before.liveBytes).toBeLessThanOrEqual(1024);
    intact();
    expectSane(b.length * 4);
  });

  it('the heap refuses a block past 2^31 - 1 bytes itself (no 32-bit wrap), whatever asks', () => {
    const e = thrown(() => ss._heap.malloc(2 ** 32));
    expect(e.code).toBe('SS_ERR_TOO_LARGE');
    expect(thrown(() => ss._heap.malloc(-1)).code).toBe('SS_ERR_TOO_LARGE');
    expect(thrown(() => ss._heap.malloc(1.5)).code).toBe('SS_ERR_TOO_LARGE');
    expectSane();
  });
});

describe('a trap inside wasm', () => {
  // A pointer past the end of the memory handed to a kernel inside a public
  // call makes it read out of bounds and trap, as a kernel bug would. (A
  // HeapBuffer's pointer is private and read-only, issue 25: the pointer is
  // handed to C directly, in a call named as the public one.)
  const trap = () => {
    const y = ss.alloc(4096);
    const k = ss.kernel(ss.kernels('normalizer')[0].name);
    ss._call(function normalizeInto() {
      return ss.exports.ss_normalize(ss._ptr.get(k), ss._implFor(k), 0xfffff000, 4096, ss._paramsPtr, 0, y.ptr);
    }, []);
  };

  it('throws a SoftscopeTrapError (not bad input) and re-creates the instance', () => {
    const e = thrown(trap);
    expect(e).toBeInstanceOf(SoftscopeTrapError);
    expect(e.code).toBe('SS_TRAP');
    expect(e.cause).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(e.message).toMatch(/trapped in normalizeInto .*re-created/);
    expect(ss.heapStats().heapBytes).toBe(16 * 2 ** 20);
    expectSane();
  });

  it('buffers from before are freed with the old instance; new calls and buffers are right', () => {
    const { b } = sentinel();
    const total = ss.heapStats().totalAllocations;
    thrown(trap);
    expect(b.freed).toBe(true);
    expect(thrown(() => b.array).message).toMatch(/this buffer was freed \(reset\)/);
    const y = ss.alloc(64);
    expect(thrown(() => ss.normalizeInto('softmax', b, y)).argument).toBe('x');
    b.free(); // a no-op on a closed heap, never a free() into the new one
    expectSane(64 * 4);
    // totalAllocations counts on across the re-creation
    expect(ss.heapStats().totalAllocations).toBeGreaterThan(total);
    const x = randomLogits(300, 5);
    expect(maxRelErr(ss.normalize('softmax', x), refSoftmax(x)).err).toBeLessThanOrEqual(2e-6);
    const p = randomProbs(50, 6);
    expect(Math.abs(ss.measure('sum', p) - p.reduce((a, v) => a + v, 0))).toBeLessThanOrEqual(1e-6);
  });

  it('reset() does the same on demand: the wasm memory starts again at 16 MiB', () => {
    ss.normalize('two_pass_softmax', randomLogits(2 ** 22, 1)); // x and y: grows the memory past 32 MiB
    expect(ss.heapStats().heapBytes).toBeGreaterThan(32 * 2 ** 20);
    const b = ss.alloc(8);
    expect(ss.reset()).toBe(ss);
    expect(ss.heapStats().heapBytes).toBe(16 * 2 ** 20);
    expect(b.freed).toBe(true);
    expectSane();
    const x = randomLogits(100, 2);
    expect(maxRelErr(ss.normalize('softmax', x), refSoftmax(x)).err).toBeLessThanOrEqual(2e-6);
  });
});
