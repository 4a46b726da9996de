// Rows in the CLI (issue 26): normalize, measure and sample take --rows R
// or a nested array input; --json is nested per row and equals the API's
// per-row calls (sample: row r with seed + r); a failing row is named; a bad
// shape exits 2 with one line. The kernels are read from the registry.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runCli as run } from './support/run-cli.js';

let ss, norm, measure, sampler;
beforeAll(async () => {
  ss = await createSoftscope();
  norm = ss.kernels('normalizer').find((k) => k.output === 'probs' && k.params.length === 0);
  measure = ss.kernels('measure').find((k) => k.input === 'probs' && k.params.length === 0);
  sampler = ss.kernels('sampler').find((k) => k.draws === 'index');
});

const X = [[2, 1, 0.1, -1], [0, 0, -Infinity, 3], [5, -2, 1, 1]];
const flat = X.flat();
const json = (rows) => JSON.stringify(rows.map((r) => r.map((v) => (Number.isFinite(v) ? v : String(v)))));
const f32 = (a) => Array.from(Float32Array.from(a));

describe.concurrent('rows in the CLI', () => {
  it('normalize: a nested input and --rows give the per-row outputs, nested in --json', async () => {
    for (const args of [['--input', json(X)], ['--input', flat.join(' '), '--rows', '3']]) {
      const r = await run(['normalize', norm.name, ...args, '--json']);
      expect(r.code, r.err).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.output.length).toBe(3);
      expect(j.metrics.length).toBe(3);
      X.forEach((row, i) => {
        expect(f32(j.output[i])).toEqual(Array.from(ss.normalize(norm.name, Float32Array.from(row))));
        expect(Math.abs(j.metrics[i].sum - 1)).toBeLessThan(1e-6);
      });
      expect(j.output[1][2]).toBe(0); // the mask of row 1
    }
  });

  it('normalize without --json prints a block per row', async () => {
    const r = await run(['normalize', norm.name, '--input', json(X)]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/rows = 3, n = 4/);
    expect(r.out.match(/^row \d$/gm)).toEqual(['row 0', 'row 1', 'row 2']);
  });

  it('measure --rows: one value per row', async () => {
    const p = [[0.5, 0.5, 0, 0], [0.25, 0.25, 0.25, 0.25]];
    const r = await run(['measure', measure.name, '--input', p.flat().join(','), '--rows', '2', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.metrics).toEqual({ n: 4, rows: 2 });
    p.forEach((row, i) => expect(j.output[i]).toBe(ss.measure(measure.name, Float32Array.from(row))));
  });

  it('sample with rows: row r draws with seed + r', async () => {
    const r = await run(['sample', sampler.name, '--input', json(X), '--param', 'seed=11', '--param', 'draws=5', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.output.length).toBe(3);
    X.forEach((row, i) => {
      const one = ss.sample(sampler.name, Float32Array.from(row), { seed: 11 + i, draws: 5 });
      expect(j.output[i]).toEqual(Array.from(one.indices));
      expect(f32(j.probs[i])).toEqual(Array.from(one.probs));
    });
  });

  it('an error names its row (exit 2, one line)', async () => {
    const bad = X.map((r) => r.slice());
    bad[2][1] = NaN;
    const r = await run(['normalize', norm.name, '--input', json(bad)]);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/row 2: --input contains NaN \(at index 1\)/);
    const m = await run(['sample', sampler.name, '--input', json([[1, 2], [-Infinity, -Infinity]])]);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/row 1: --input is all -Inf/);
  });

  it.each([
    ['--rows not dividing the length', ['--input', '[1,2,3,4,5]', '--rows', '2'], /--rows 2: --input has 5 numbers, not a multiple of 2/],
    ['--rows 0', ['--input', '[1,2]', '--rows', '0'], /--rows 0: must be an integer >= 1/],
    ['--rows not a number', ['--input', '[1,2]', '--rows', 'two'], /--rows two: must be an integer >= 1/],
    ['rows of unequal length', ['--input', '[[1,2],[3]]'], /--input: row 1 has 1 numbers, row 0 has 2; the rows must have equal lengths/],
    ['--rows against the nested rows', ['--input', '[[1,2],[3,4]]', '--rows', '4'], /--rows 4: --input holds 2 rows/],
    ['a row that is not an array', ['--input', '[[1,2],3]'], /--input: row 1 is not an array/],
  ])('%s exits 2 with one line', async (label, args, re) => {
    for (const cmd of [['normalize', norm.name], ['sample', sampler.name]]) {
      const r = await run([...cmd, ...args]);
      expect(r.code, label).toBe(2);
      expect(r.err.trimEnd().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(re);
    }
  });
});
