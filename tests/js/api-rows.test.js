// Rows and caller-owned outputs in the JS API (issue 26): ss.normalize /
// normalizeInto / measure / sample with { rows } agree bit for bit with one
// call per row (a sampler's row r with params.seed + r) for every kernel of
// the three families in the registry, in every build; { out } writes exactly
// the caller's array (a subarray of a larger one, guards around it) and
// allocates no output; a failing row is an Error naming it (message and
// .row); batch sampling is bit-identical across the three builds.
import { describe, it, expect, beforeAll } from 'vitest';
import { STATUS } from 'softscope';
import { randomLogits } from './support/reference.js';
import { validInput, validParams } from './support/family-calls.js';
import { thrown } from './support/thrown.js';
import { BUILDS, loadBuilds } from './support/builds.js';

const ROWS = 5, N = 37, DRAWS = 3, SEED = 77;
const GUARD = -7777.25;

const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const same = (u, v) => (u == null ? v == null : v != null && bytes(u).equals(bytes(v)));

// rows × N of k's input kind, row r from seed 100 + r; a quarter of the
// logits rows masked at a few entries (masks per row).
function rowsInput(k, rows = ROWS, n = N) {
  const x = new Float32Array(rows * n), x2 = k.input === 'probs_pair' ? new Float32Array(rows * n) : null;
  for (let r = 0; r < rows; r++) {
    const one = validInput(k, n, 100 + r);
    x.set(one.x, r * n);
    if (x2) x2.set(one.x2, r * n);
    if (k.input === 'logits' && r % 2 === 1) for (let i = r; i < n; i += 7) x[r * n + i] = -Infinity;
  }
  return { x, x2 };
}

const row = (a, r, n = N) => a.subarray(r * n, (r + 1) * n);

let instances;
beforeAll(async () => { instances = await loadBuilds(); });

describe.each(BUILDS)('%s build', (impl) => {
  let ss;
  beforeAll(() => {
    ss = instances[impl];
  });

  it('normalize with { rows } equals one normalize per row, bit for bit, for every normalizer', () => {
    const ks = ss.kernels('normalizer');
    expect(ks.length).toBeGreaterThan(10);
    for (const k of ks) {
      const { x } = rowsInput(k);
      const params = validParams(k, N);
      const y = ss.normalize(k.name, x, params, { rows: ROWS });
      expect(y.length, k.name).toBe(ROWS * N);
      for (let r = 0; r < ROWS; r++) {
        const one = ss.normalize(k.name, row(x, r), params);
        expect(same(row(y, r), one), `${k.name} row ${r}`).toBe(true);
        if (k.output !== 'log_probs')
          for (let i = 0; i < N; i++) if (x[r * N + i] === -Infinity) expect(Object.is(y[r * N + i], 0), `${k.name} mask`).toBe(true);
      }
    }
  });

  it('normalizeInto with { rows } on heap buffers equals the per-row calls', () => {
    for (const k of ss.kernels('normalizer')) {
      const { x } = rowsInput(k);
      const params = validParams(k, N);
      const xb = ss.alloc(ROWS * N), yb = ss.alloc(ROWS * N);
      try {
        xb.set(x);
        expect(ss.normalizeInto(k.name, xb, yb, params, { rows: ROWS })).toBe(yb);
        const y = yb.array.slice();
        for (let r = 0; r < ROWS; r++) expect(same(row(y, r), ss.normalize(k.name, row(x, r), params)), `${k.name} row ${r}`).toBe(true);
      } finally {
        xb.free();
        yb.free();
      }
    }
  });

  it('measure with { rows } equals one measure per row for every measure; { out } is filled', () => {
    const ks = ss.kernels('measure');
    expect(ks.length).toBeGreaterThan(5);
    for (const k of ks) {
      const { x, x2 } = rowsInput(k);
      const params = validParams(k, N);
      const v = x2 ? ss.measure(k.name, x, x2, params, { rows: ROWS }) : ss.measure(k.name, x, params, { rows: ROWS });
      expect(v).toBeInstanceOf(Float64Array);
      expect(v.length).toBe(ROWS);
      const big = new Float64Array(ROWS + 2).fill(GUARD), out = big.subarray(1, ROWS + 1);
      expect(ss.measure(k.name, x, x2 ?? undefined, params, { rows: ROWS, out })).toBe(out);
      expect([big[0], big[ROWS + 1]]).toEqual([GUARD, GUARD]);
      for (let r = 0; r < ROWS; r++) {
        const one = ss.measure(k.name, row(x, r), x2 ? row(x2, r) : undefined, params);
        expect(Object.is(v[r], one), `${k.name} row ${r}: ${v[r]} vs ${one}`).toBe(true);
        expect(Object.is(out[r], one)).toBe(true);
      }
    }
  });

  it('sample with { rows }: row r is the single call with params.seed + r, for every sampler', () => {
    const ks = ss.kernels('sampler');
    expect(ks.length).toBeGreaterThan(5);
    for (const k of ks) {
      const { x } = rowsInput(k);
      const params = { ...validParams(k, N), seed: SEED, draws: DRAWS };
      const b = ss.sample(k.name, x, params, { rows: ROWS });
      expect([b.rows, b.n, b.draws]).toEqual([ROWS, N, DRAWS]);
      for (let r = 0; r < ROWS; r++) {
        const one = ss.sample(k.name, row(x, r), { ...params, seed: SEED + r });
        expect(same(row(b.probs, r), one.probs), `${k.name} probs row ${r}`).toBe(true);
        expect(same(b.indices && row(b.indices, r, DRAWS), one.indices), `${k.name} indices row ${r}`).toBe(true);
        expect(same(b.samples && row(b.samples, r, DRAWS * N), one.samples), `${k.name} samples row ${r}`).toBe(true);
      }
    }
  });

  it('{ out } writes exactly the caller\'s array: a subarray of a larger one, guards around it untouched; with and without rows', () => {
    for (const k of ss.kernels('normalizer')) {
      const { x } = rowsInput(k);
      const params = validParams(k, N);
      for (const rows of [undefined, ROWS]) {
        const big = new Float32Array(ROWS * N + 16).fill(GUARD), out = big.subarray(8, 8 + ROWS * N);
        const want = rows ? ss.normalize(k.name, x, params, { rows }) : ss.normalize(k.name, x, params);
        const got = ss.normalize(k.name, x, params, rows ? { rows, out } : { out });
        expect(got).toBe(out);
        expect(same(out, want), k.name).toBe(true);
        expect([...big.subarray(0, 8), ...big.subarray(8 + ROWS * N)].every((v) => v === GUARD), `${k.name} guards`).toBe(true);
      }
    }
  });

  it('{ out } may be x itself (x is copied in first); repeated calls allocate no heap block', () => {
    const k = ss.kernels('normalizer')[0];
    const { x } = rowsInput(k);
    const params = validParams(k, N);
    const want = ss.normalize(k.name, x, params, { rows: ROWS });
    const inPlace = x.slice();
    ss.normalize(k.name, inPlace, params, { rows: ROWS, out: inPlace });
    expect(same(inPlace, want)).toBe(true);
    const out = new Float32Array(ROWS * N);
    ss.normalize(k.name, x, params, { rows: ROWS, out });
    const before = ss.heapStats().totalAllocations;
    for (let i = 0; i < 50; i++) ss.normalize(k.name, x, params, { rows: ROWS, out });
    expect(ss.heapStats().totalAllocations).toBe(before);
  });

  it('in_place kernels (the registry\'s) run over their staged copy: normalize equals normalizeInto on two heap buffers bit for bit, the caller\'s x untouched, a heap-buffer x too', () => {
    const ks = ss.kernels('normalizer').filter((k) => k.in_place);
    expect(ks.map((k) => k.name)).toEqual(expect.arrayContaining(['softmax', 'log_softmax', 'softmax_temperature']));
    expect(ss.kernels('normalizer').filter((k) => k.in_place === false).length).toBeGreaterThan(10);
    for (const k of ks) {
      const { x } = rowsInput(k);
      const params = validParams(k, N);
      const keep = x.slice();
      const bx = ss.alloc(ROWS * N), by = ss.alloc(ROWS * N);
      bx.set(x);
      ss.normalizeInto(k.name, bx, by, params, { rows: ROWS });
      const want = by.array.slice();
      const out = new Float32Array(ROWS * N);
      expect(same(ss.normalize(k.name, x, params, { rows: ROWS }), want), k.name).toBe(true);
      expect(same(ss.normalize(k.name, x, params, { rows: ROWS, out }), want), `${k.name} out`).toBe(true);
      expect(same(ss.normalize(k.name, row(x, 1), params), row(want, 1)), `${k.name} one row`).toBe(true);
      expect(same(x, keep), `${k.name}: x untouched`).toBe(true);
      expect(same(ss.normalize(k.name, bx, params, { rows: ROWS }), want), `${k.name} heap x`).toBe(true);
      expect(same(bx.array, keep), `${k.name}: heap x untouched`).toBe(true);
      bx.free(), by.free();
    }
  });

  it('{ out } of the wrong length, type or memory is an Error naming options.out', () => {
    const k = ss.kernels('normalizer')[0];
    const x = randomLogits(8, 1, 4);
    for (const out of [new Float32Array(7), new Float32Array(9)]) {
      const e = thrown(() => ss.normalize(k.name, x, {}, { out }));
      expect(e.argument).toBe('options.out');
      expect(e.message).toMatch(/options\.out has length \d+; it must have exactly 8/);
    }
    expect(thrown(() => ss.normalize(k.name, x, {}, { out: new Float64Array(8) })).argument).toBe('options.out');
    expect(thrown(() => ss.normalize(k.name, x, {}, { out: [0, 0, 0, 0, 0, 0, 0, 0] })).argument).toBe('options.out');
    const buf = ss.alloc(8);
    try {
      expect(thrown(() => ss.normalize(k.name, x, {}, { out: buf.array })).argument).toBe('options.out');
    } finally {
      buf.free();
    }
    const m = ss.kernels('measure').find((q) => q.input === 'probs');
    const p = validInput(m, 8, 1).x;
    expect(thrown(() => ss.measure(m.name, p, {}, { out: new Float64Array(1) })).argument).toBe('options.out');
    expect(thrown(() => ss.measure(m.name, p, {}, { rows: 2, out: new Float64Array(3) })).argument).toBe('options.out');
  });

  it('a bad row count is an Error naming options.rows', () => {
    const k = ss.kernels('normalizer')[0];
    const x = randomLogits(12, 1, 4);
    for (const rows of [0, -1, 1.5, '2', NaN]) expect(thrown(() => ss.normalize(k.name, x, {}, { rows })).argument).toBe('options.rows');
    const e = thrown(() => ss.normalize(k.name, x, {}, { rows: 5 }));
    expect([e.argument, e.code]).toEqual(['options.rows', 'SS_ERR_LENGTH']);
    expect(e.message).toMatch(/x has length 12, not a multiple of options\.rows = 5/);
    expect(thrown(() => ss.normalize(k.name, x, {}, { row: 3 })).argument).toBe('options.row');
  });

  it('an error in row r names the row (message "row r:" and .row), with the index within the row', () => {
    for (const k of ss.kernels('normalizer')) {
      const { x } = rowsInput(k);
      x[3 * N + 5] = NaN;
      const e = thrown(() => ss.normalize(k.name, x, validParams(k, N), { rows: ROWS }));
      expect([e.row, e.code, e.index], k.name).toEqual([3, 'SS_ERR_NAN', 5]);
      expect(e.message).toMatch(/: row 3: x contains NaN \(at index 5\)/);
      // a row that is all -Inf
      const y = rowsInput(k).x;
      y.fill(-Infinity, 2 * N, 3 * N);
      const m = thrown(() => ss.normalize(k.name, y, validParams(k, N), { rows: ROWS }));
      expect([m.row, m.code], k.name).toEqual([2, 'SS_ERR_ALL_MASKED']);
      expect(m.message).toMatch(/row 2: /);
    }
    for (const k of ss.kernels('sampler')) {
      const { x } = rowsInput(k);
      x[4 * N] = NaN;
      const e = thrown(() => ss.sample(k.name, x, validParams(k, N), { rows: ROWS }));
      expect([e.row, e.code, e.index], k.name).toEqual([4, 'SS_ERR_NAN', 0]);
    }
    for (const k of ss.kernels('measure')) {
      const { x, x2 } = rowsInput(k);
      x[1 * N + 2] = NaN;
      const e = thrown(() => ss.measure(k.name, x, x2 ?? undefined, validParams(k, N), { rows: ROWS }));
      expect([e.row, e.code, e.index], k.name).toEqual([1, 'SS_ERR_NAN', 2]);
      expect(e.message).toMatch(/row 1: p contains NaN/);
    }
  });

  it('batch sampling: the last row\'s seed must stay within 2^53 (an Error naming params.seed)', () => {
    const k = ss.kernels('sampler')[0];
    const x = randomLogits(3 * 4, 2, 4);
    expect(ss.sample(k.name, x, { seed: 2 ** 53 - 2 }, { rows: 3 }).rows).toBe(3);
    const e = thrown(() => ss.sample(k.name, x, { seed: 2 ** 53 - 1 }, { rows: 3 }));
    expect([e.argument, e.code]).toEqual(['params.seed', 'SS_ERR_PARAM_RANGE']);
    expect(STATUS.SS_ERR_PARAM_RANGE).toBe(e.status);
  });
});

describe('across builds', () => {
  it('batch sampling is bit-identical in the scalar, SIMD and relaxed builds, for every sampler', () => {
    const ref = instances.scalar;
    for (const k of ref.kernels('sampler')) {
      const { x } = rowsInput(k, 8, 129);
      const params = { ...validParams(k, 129), seed: 5, draws: 4 };
      const want = ref.sample(k.name, x, params, { rows: 8 });
      for (const impl of ['simd', 'relaxed']) {
        const got = instances[impl].sample(k.name, x, params, { rows: 8 });
        for (const key of ['probs', 'indices', 'samples']) expect(same(got[key], want[key]), `${k.name} ${key} ${impl}`).toBe(true);
      }
    }
  });
});
