// A view's data declared once (views/shape.js, views/<view>/data-shape.js):
// check() refuses a value outside its range, a missing or unknown key, a list
// longer than declared, a wrong type, with an Error naming the path, and
// returns valid data unchanged; a real run of every view passes its shape
// (the two that write results files, experiments and language, also before
// their first step), and only theirs are bounded (every part declared: what
// a widget reads a results file against); the types in each view's
// index.d.ts are the ones generated from its shape (scripts/gen-shapes.js),
// and the CLI's help outlines every key.
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createSoftscope } from 'softscope';
import { number, integer, bool, string, list, object, record, nullable, optional, json, sameLength, check, bounded, outline, declaration } from '../../wasm/views/shape.js';
import { view, VIEW_IDS, parse, stateEntries, plain } from '../../wasm/views/index.js';
import { shaped, fillShape, dataName } from '../../scripts/gen-shapes.js';
import { command as train } from '../../wasm/cli/train.js';
import { WASM } from './support/wasm-paths.js';

// A shape of every kind, and a value of it.
const point = object({ x: number({ min: 0, max: 1 }), label: nullable(string({ max: 8 })) }, { name: 'Point' });
const SHAPE = object({
  kind: string({ max: 16, options: ['a', 'b'] }),
  name: string({ max: 16, options: (ctx) => ctx.names, what: 'a known name' }),
  count: integer({ min: 0, max: 10 }),
  on: bool(),
  note: optional(string({ max: 4 })),
  points: list(point, { max: 3 }),
  pair: list(integer(), { length: 2 }),
  params: record(nullable(number()), { max: 2 }),
  xs: list(number(), { max: 4 }),
  ys: list(number(), { max: 4 }),
}, { rules: [sameLength('xs', 'ys')] });
const CTX = { names: ['one', 'two'] };
const good = () => ({ kind: 'a', name: 'one', count: 3, on: true, points: [{ x: 0.5, label: null }, { x: 1, label: '<b>' }], pair: [1, 2],
  params: { s: 1, t: null }, xs: [1, 2], ys: [3, 4] });
const problem = (edit) => {
  const d = good();
  edit(d);
  try {
    check(SHAPE, d, CTX);
  } catch (e) {
    return e.message;
  }
  return null;
};

describe('check: a value against its declared shape', () => {
  it('valid data is returned as it is (the same object, nothing coerced); an optional key may be absent or present', () => {
    const d = good();
    expect(check(SHAPE, d, CTX)).toBe(d);
    expect(d).toEqual(good());
    expect(problem((x) => { x.note = 'abcd'; })).toBe(null);
    expect(problem((x) => { x.points = []; })).toBe(null);
  });

  it('a number outside its range, not an integer, not finite (1e999), a string or null where a number must be', () => {
    expect(problem((x) => { x.points[1].x = 1.5; })).toBe('data.points[1].x is 1.5, outside [0, 1]');
    expect(problem((x) => { x.count = 2.5; })).toBe('data.count is not an integer');
    expect(problem((x) => { x.count = JSON.parse('1e999'); })).toBe('data.count is not a number');
    expect(problem((x) => { x.xs[1] = '2'; })).toBe('data.xs[1] is not a number');
    expect(problem((x) => { x.count = null; })).toBe('data.count is null');
    expect(problem((x) => { x.on = 1; })).toBe('data.on is not true or false');
  });

  it('a missing key, a key the shape does not have, a record past its keys', () => {
    expect(problem((x) => { delete x.pair; })).toBe('data.pair is missing');
    expect(problem((x) => { x.points[0].y = 2; })).toBe('data.points[0].y is not a key of this data');
    expect(problem((x) => { x.params.u = 3; })).toBe('data.params holds 3 keys; a run writes at most 2');
    expect(problem((x) => { x.params = [1]; })).toBe('data.params is not an object');
  });

  it('a list longer than declared is refused before any item is read; a list of the wrong length; lists a rule ties', () => {
    const d = { ...good(), points: new Array(1e6).fill('not a point') };
    const t0 = performance.now();
    expect(() => check(SHAPE, d, CTX)).toThrow('data.points holds 1000000 items; a run writes at most 3');
    expect(performance.now() - t0).toBeLessThan(100);
    expect(problem((x) => { x.pair = [1]; })).toBe('data.pair holds 1 items; at least 2 expected');
    expect(problem((x) => { x.pair = [1, 2, 3]; })).toMatch(/^data\.pair holds 3 items/);
    expect(problem((x) => { x.ys.pop(); })).toBe('data: xs, ys differ in length');
    expect(problem((x) => { x.xs = {}; })).toBe('data.xs is not a list');
  });

  it('a text longer than declared, not one of its options, a name the context does not know; markup is text and stays as written', () => {
    expect(problem((x) => { x.points[0].label = 'x'.repeat(1e6); })).toBe('data.points[0].label is longer than 8 characters');
    expect(problem((x) => { x.kind = 'c'; })).toBe('data.kind "c" is not one of a, b');
    expect(problem((x) => { x.name = '<img src=x>'; })).toBe('data.name "<img src=x>" is not a known name');
    expect(problem((x) => { x.name = 7; })).toBe('data.name is not text');
    expect(check(SHAPE, good(), CTX).points[1].label).toBe('<b>');
    expect(() => check(SHAPE, good())).toThrow(/pass the softscope instance/);
  });

  it('the Error carries the path; not an object at the top', () => {
    let err;
    try { check(SHAPE, { ...good(), points: [{ x: -1, label: null }] }, CTX); } catch (e) { err = e; }
    expect(err.path).toBe('data.points[0].x');
    expect(() => check(SHAPE, [], CTX)).toThrow('data is not an object');
    expect(() => check(SHAPE, null, CTX)).toThrow('data is null');
  });

  it('a list, text or record without its largest size cannot be declared (every one is bounded)', () => {
    expect(() => list(number(), {})).toThrow(/max/);
    expect(() => string({})).toThrow(/max/);
    expect(() => record(number(), {})).toThrow(/max/);
  });

  it('json(): a part declared by its type only is not checked, and a shape that holds one is not bounded', () => {
    const loose = object({ n: integer(), rest: json({ ts: 'Record<string, unknown>' }) });
    expect(check(loose, { n: 1, rest: { anything: [NaN, 'x'] } })).toEqual({ n: 1, rest: { anything: [NaN, 'x'] } });
    expect(() => check(loose, { n: 'x', rest: null })).toThrow('data.n is not a number');
    expect(bounded(loose)).toBe(false);
    expect(bounded(SHAPE)).toBe(true);
    expect(declaration(loose, 'Loose')).toContain('  rest: Record<string, unknown>;');
  });
});

describe('the shape as text and as types', () => {
  it('outline: every key, a list\'s most items, an optional key, choices', () => {
    const o = outline(SHAPE, { width: 1000 });
    expect(o).toBe('{kind: a|b, name, count, on, note?, points: [≤3 × {x, label}], pair: [2 × integer], params: {name: number or null}, '
      + 'xs: [≤4 × number], ys: [≤4 × number]}');
    expect(outline(SHAPE, { width: 40, indent: '  ' }).split('\n').every((l) => l.length <= 40 && l.startsWith('  '))).toBe(true);
  });

  it('declaration: an interface per named object, null and optional keys as TypeScript writes them', () => {
    const ts = declaration(SHAPE, 'Thing');
    expect(ts).toContain('export interface Thing {');
    expect(ts).toContain('export interface Point {\n  x: number;\n  label: string | null;\n}');
    expect(ts).toContain("  kind: 'a' | 'b';");
    expect(ts).toContain('  note?: string;');
    expect(ts).toContain('  points: Point[];');
    expect(ts).toContain('  params: Record<string, number | null>;');
  });

  it('each view that declares its data has those types in its index.d.ts, as generated (node scripts/gen-shapes.js rewrites them)', async () => {
    const views = await shaped();
    expect(views.map(({ v }) => v.id).sort()).toEqual([...VIEW_IDS].sort());
    for (const { v, shape, file } of views) {
      const text = readFileSync(file, 'utf8');
      expect(fillShape(text, v, shape), `views/${v.id}/index.d.ts is stale: node scripts/gen-shapes.js`).toBe(text);
      expect(text).toContain(`export interface ${dataName(v)} {`);
    }
  });

  it('softscope train --help outlines every key of the Experiments data and of the Language data', async () => {
    const help = train.help(null);
    for (const id of ['experiments', 'language'])
      for (const k of Object.keys((await view(id).dataShape()).keys)) expect(help, `${id}: ${k}`).toMatch(new RegExp(`[{ ]${k}[?:,}]`));
  });
});

describe('a real run of each view passes its shape unchanged', () => {
  let ss;
  beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
  // a small state of each view (the performance view's data without timings: its un-run figure)
  const RUNS = {
    experiments: 'normalizers=softmax,ssmax&d=16&heads=2&steps=20&batch=8&testMax=32&examples=16&quantizers=uniform&mapN=8',
    language: 'normalizers=softmax,softpick&d=16&heads=2&layers=1&context=16&batch=4&steps=20&quantizers=uniform&length=12',
    normalizers: 'kernels=softmax,sparsemax,entmax15&logits=2,1,-Infinity',
    dispersion: 'nmax=1024',
    sampling: 'vocab=256&draws=200',
    quantization: 'scheme=adaround&n=256&rows=4&iters=20',
    optimizers: 'steps=50',
    attention: 'n=8',
    performance: '',
  };
  const RESULTS = ['experiments', 'language'];

  it('a state for every view; the views whose data a results file brings back are the ones whose shape is bounded', async () => {
    expect(Object.keys(RUNS).sort()).toEqual([...VIEW_IDS].sort());
    for (const id of VIEW_IDS) expect(bounded(await view(id).dataShape()), id).toBe(RESULTS.includes(id));
  });

  it.each(Object.keys(RUNS))('%s: the data of compute as JSON (and a stepper\'s before its first step)', async (id) => {
    const v = view(id), shape = await v.dataShape();
    const { state, notices } = parse(v.schema, stateEntries(RUNS[id]), ss);
    expect(notices).toEqual([]);
    const data = JSON.parse(JSON.stringify(plain(v.compute(ss, state))));
    const copy = structuredClone(data);
    expect(check(shape, data, ss)).toBe(data);
    expect(data).toEqual(copy);
    if (!RESULTS.includes(id)) return;
    const st = v.start(ss, state);
    try {
      expect(() => check(shape, JSON.parse(JSON.stringify(plain(st.data()))), ss)).not.toThrow();
    } finally {
      st.stop();
    }
  }, 60000);
});
