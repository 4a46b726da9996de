// The generic state serializer (wasm/state/schema.js) with the views'
// schemas: a state round-trips through its link, defaults write no key,
// numbers keep at most 6 significant digits, every malformed or
// out-of-range value falls back to its default with a notice naming it,
// kernel parameters are checked against the registry, earlier links still
// open, a state a control changed settles to what its link reads back, and
// the address bar is replaced while editing and pushed on a change of view.
// @vitest-environment happy-dom
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, defaults, toHash, entries, hashEntries, stateEntries, num6, settle } from '../../wasm/state/schema.js';
import { VIEWS } from '../../wasm/views/index.js';
import { makePreset } from '../../wasm/analysis/presets.js';
import { readHash, createHistory } from '../../web/src/state/location.js';
import { WASM } from './support/wasm-paths.js';
import { assign } from '../../web/src/embed/assign.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
const V = (id) => VIEWS.find((v) => v.id === id);
const roundTrip = (v, s) => parse(v.schema, hashEntries(toHash(v.schema, s, ss)), ss, { ignore: ['view'] });

describe('every view schema', () => {
  it('defaults write only view=<id>, and parse back to the defaults with no notice', () => {
    for (const v of VIEWS) {
      const d = defaults(v.schema, ss);
      expect(toHash(v.schema, d, ss), v.id).toBe(`view=${v.id}`);
      const r = parse(v.schema, [], ss);
      expect(r.notices, v.id).toEqual([]);
      expect(r.state, v.id).toEqual(d);
    }
  });

  it('a list of names none of which is known keeps the default (the figure has its series), with a notice', () => {
    for (const v of VIEWS) {
      const d = defaults(v.schema, ss);
      for (const f of v.schema.fields.filter((x) => x.type === 'names')) {
        const { state, notices } = parse(v.schema, [[f.key, 'sofmax,nope']], ss);
        expect(state[f.key], `${v.id}.${f.key}`).toEqual(d[f.key]);
        expect(notices, `${v.id}.${f.key}`).toEqual([{ key: f.key, value: 'sofmax,nope', reason: 'unknown: sofmax, nope' }]);
      }
    }
    // the issue's two links: the view computes its default kernels' numbers
    const norm = V('normalizers'), attn = V('attention');
    const n = norm.compute(ss, parse(norm.schema, hashEntries('kernels=sofmax'), ss).state);
    expect(n.series.map((s) => s.name)).toEqual(defaults(norm.schema, ss).kernels);
    const a = attn.compute(ss, parse(attn.schema, hashEntries('normalizers=nope'), ss).state);
    expect(a.panels.map((p) => p.id)).toEqual(defaults(attn.schema, ss).normalizers);
  });

  it('each field has a default inside its own range', () => {
    for (const v of VIEWS) {
      const d = defaults(v.schema, ss);
      for (const f of v.schema.fields) {
        if (f.type !== 'number') continue;
        const x = d[f.key];
        expect(x >= f.min && x <= f.max, `${v.id}.${f.key} = ${x}`).toBe(true);
      }
    }
  });
});

describe('the normalizers schema', () => {
  const v = () => V('normalizers');
  it('round-trips a state with every field set, -Infinity logits and shared parameters', () => {
    const s = { ...defaults(v().schema, ss), kernels: ['softmax', 'entmax_bisect', 'asentmax'], temperature: 0.25, preset: 'custom',
      logits: [1.5, -Infinity, 0.125, 2], params: { alpha: 1.25 } };
    const r = roundTrip(v(), v().schema.finish(s));
    expect(r.notices).toEqual([]);
    expect(r.state).toEqual(v().schema.finish(s));
    expect(toHash(v().schema, s, ss)).toContain('logits=1.5,-Infinity,0.125,2');
  });

  it('a preset writes its n and seed, not its logits; the logits follow the preset', () => {
    const s = v().schema.finish({ ...defaults(v().schema, ss), preset: 'long_tail', n: 20, seed: 7 });
    const hash = toHash(v().schema, s, ss);
    expect(hash).toBe('view=normalizers&preset=long_tail&n=20&seed=7');
    expect(roundTrip(v(), s).state.logits).toEqual(makePreset('long_tail', 20, 7));
  });

  it('numbers go into links with at most 6 significant digits', () => {
    expect(num6(0.1 + 0.2)).toBe('0.3');
    expect(num6(Math.PI)).toBe('3.14159');
    expect(num6(123456789)).toBe('123456789');
    expect(num6(1 / 3e9)).toBe('3.33333e-10');
    const s = { ...defaults(v().schema, ss), temperature: Math.E };
    expect(toHash(v().schema, s, ss)).toBe('view=normalizers&temperature=2.71828');
  });

  it('bad values fall back to their defaults one by one, each with a notice naming it', () => {
    const link = 'kernels=softmax,sofmax&temperature=-3&preset=zipf&n=2.5&logits=1,NaN&alpha=9&bogus=1';
    const { state, notices } = parse(v().schema, hashEntries(link), ss);
    const d = defaults(v().schema, ss);
    expect(state.kernels).toEqual(['softmax']); // the known names are kept
    expect(state.temperature).toBe(d.temperature);
    expect(state.preset).toBe(d.preset);
    expect(state.n).toBe(d.n);
    expect(state.logits).toEqual(d.logits);
    expect(notices.map((n) => n.key).sort()).toEqual(['alpha', 'bogus', 'kernels', 'logits', 'n', 'preset', 'temperature']);
    expect(notices.find((n) => n.key === 'temperature').reason).toMatch(/outside \[0\.01, 100\]/);
    expect(notices.find((n) => n.key === 'kernels').reason).toMatch(/unknown: sofmax/);
  });

  it('a kernel parameter outside its registry range falls back, with the range in the notice', () => {
    const { state, notices } = parse(v().schema, hashEntries('kernels=entmax_bisect&alpha=0.5'), ss);
    expect(state.params).toEqual({});
    const p = ss.kernel('entmax_bisect').params.find((x) => x.name === 'alpha');
    expect(notices).toEqual([{ key: 'alpha', value: '0.5', reason: expect.stringContaining(String(p.max)) }]);
    expect(parse(v().schema, hashEntries('kernels=entmax_bisect&alpha=1.75'), ss).state.params).toEqual({ alpha: 1.75 });
  });

  it('never throws on garbage', () => {
    for (const h of ['', '#', '#%%%', '#a=%ZZ', '#&&&', '#view', '#=1', '#kernels=']) expect(() => parse(v().schema, hashEntries(h), ss)).not.toThrow();
  });
});

describe('the dispersion schema', () => {
  it('n max takes only powers of two in [16, 2^20]', () => {
    const v = V('dispersion');
    for (const bad of ['1000', '8', String(2 ** 21)]) expect(parse(v.schema, [['nmax', bad]], ss).notices).toHaveLength(1);
    expect(parse(v.schema, [['nmax', '1024']], ss).state.nmax).toBe(1024);
  });

  it('round-trips every field', () => {
    const v = V('dispersion');
    const s = { ...defaults(v.schema, ss), kernels: ['softmax', 'log_softmax'], margin: 4.25, distractor: 'uniform', scale: 1.5, nmax: 2 ** 20,
      seed: 12, ppo: 4, plog: true, params: {} };
    const r = roundTrip(v, s);
    expect(r.notices).toEqual([]);
    expect(r.state).toEqual(s);
  });
});

describe("settle: a state changed by a control is its link's state", () => {
  it("numbers a slider gives (any double) become the link's, so the link regenerates the figure drawn", () => {
    const cases = [
      ['optimizers', { 'params': { 'sgd.lr': 0.001312199899019203 }, noise: 0.123456789 }],
      ['normalizers', { kernels: ['softmax', 'entmax_bisect'], temperature: 0.7000000000000001, logits: [1.23456789, -Infinity, 0.5], preset: 'custom', params: { alpha: 1.3333333333 } }],
      ['attention', { scale: 1 / 3, row: 2 }],
      ['dispersion', { margin: Math.PI }],
    ];
    for (const [id, patch] of cases) {
      const v = V(id);
      const s = settle(v.schema, { ...defaults(v.schema, ss), ...patch }, ss);
      expect(roundTrip(v, s).state, id).toEqual(s);
      expect(roundTrip(v, { ...defaults(v.schema, ss), ...patch }).state, id).not.toEqual({ ...defaults(v.schema, ss), ...patch });
    }
    const o = settle(V('optimizers').schema, { ...defaults(V('optimizers').schema, ss), params: { 'sgd.lr': 0.001312199899019203 } }, ss);
    expect(o.params['sgd.lr']).toBe(0.0013122);
    // finish still restores what derives from the rest
    const n = settle(V('normalizers').schema, { ...defaults(V('normalizers').schema, ss), n: 7 }, ss);
    expect(n.logits).toHaveLength(7);
  });
});

describe("an object merged into a state (a widget's .state = {...}, web/src/embed/assign.js)", () => {
  const v = () => V('normalizers');
  const current = () => parse(v().schema, hashEntries('kernels=softmax,entmax_bisect&temperature=0.5&alpha=1.25'), ss).state;
  const link = (patch) => {
    const { state, notices } = assign(v().schema, current(), patch, ss);
    return [toHash(v().schema, state, ss), notices];
  };

  it("takes the state's keys and a link's, and null returns a key to its default", () => {
    expect(link({ temperature: 2, kernels: ['softmax', 'sparsemax'] })).toEqual(['view=normalizers&kernels=softmax,sparsemax&temperature=2', []]);
    expect(link({ params: { alpha: 1.75 } })[0]).toBe('view=normalizers&kernels=softmax,entmax_bisect&temperature=0.5&alpha=1.75');
    expect(link({ alpha: 1.5, logits: [1, -Infinity, 2] })[0]).toBe('view=normalizers&kernels=softmax,entmax_bisect&temperature=0.5&preset=custom&logits=1,-Infinity,2&alpha=1.5');
    expect(link({ temperature: null })[0]).toBe('view=normalizers&kernels=softmax,entmax_bisect&alpha=1.25');
    const o = V('optimizers');
    expect(toHash(o.schema, assign(o.schema, defaults(o.schema, ss), { 'adam.lr': 0.05, start: [1, 2] }, ss).state, ss)).toBe('view=optimizers&start=1,2&adam.lr=0.05');
  });

  it('an unknown key or a bad value keeps its current value, with a notice; the rest applies', () => {
    expect(link({ tempreature: 2 })).toEqual(['view=normalizers&kernels=softmax,entmax_bisect&temperature=0.5&alpha=1.25',
      [{ key: 'tempreature', value: '2', reason: 'not a setting of this view' }]]);
    // kernels applies; alpha, which no chosen kernel has now, goes silently (as in a link)
    expect(link({ temperature: 'abc', kernels: ['sparsemax'] })).toEqual(['view=normalizers&kernels=sparsemax&temperature=0.5',
      [{ key: 'temperature', value: 'abc', reason: 'not a number' }]]);
    expect(link({ kernels: ['sofmax'] })).toEqual(['view=normalizers&kernels=softmax,entmax_bisect&temperature=0.5&alpha=1.25',
      [{ key: 'kernels', value: 'sofmax', reason: 'unknown: sofmax' }]]);
    expect(link(5)[1]).toEqual([{ key: 'state', value: '5', reason: 'not an object of keys or a link' }]);
  });

  // issue 25: .state = { kernels: 'softmax' } threw a minified "t.join is not a function"
  it('regress_widget_state_wrong_type: a value of a type its key does not take is reported under that key, for every key of every view, never thrown', () => {
    const hostile = Object.create(null);
    const WRONG = {
      number: [true, [1], { a: 1 }, hostile, Symbol('s'), 10n],
      bool: [2, [], { a: 1 }, hostile, Symbol('s')],
      choice: [5, true, ['softmax'], { a: 1 }, hostile],
      names: [5, true, [1], [['softmax'], 2], { a: 1 }, hostile],
      numbers: [true, ['a'], { a: 1 }, hostile, Symbol('s')],
      point: [true, ['a', 'b'], { a: 1 }, hostile],
      params: ['alpha=1.5', 5, true, [1.5], () => 1],
      text: [5, true, ['a'], { a: 1 }, hostile],
    };
    let checked = 0;
    for (const view of VIEWS) {
      const d = defaults(view.schema, ss);
      for (const f of view.schema.fields) {
        for (const value of WRONG[f.type]) {
          const tag = `${view.id}.${f.key} = ${typeof value === 'symbol' ? 'symbol' : typeof value}`;
          const { state, notices } = assign(view.schema, d, { [f.key]: value }, ss);
          expect(notices.map((n) => n.key), tag).toEqual([f.key]);
          expect(typeof notices[0].value, tag).toBe('string');
          expect(notices[0].reason, tag).toMatch(/^an? (boolean|number|string|list|object|symbol|bigint|function), not /);
          expect(state, tag).toEqual(d);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
    // a link's text is a value of every key: the assignment takes softmax
    const o = V('optimizers');
    expect(assign(V('normalizers').schema, current(), { kernels: 'softmax' }, ss).state.kernels).toEqual(['softmax']);
    expect(assign(o.schema, defaults(o.schema, ss), { kernels: 'adam', 'adam.lr': '0.05', start: '1,2' }, ss).notices).toEqual([]);
  });
});

describe('text forms of a state', () => {
  it('stateEntries reads a hash, a query, or key=value pairs separated by spaces', () => {
    expect(stateEntries('#view=normalizers&temperature=2')).toEqual([['view', 'normalizers'], ['temperature', '2']]);
    expect(stateEntries('temperature=2 kernels=softmax,sparsemax')).toEqual([['temperature', '2'], ['kernels', 'softmax,sparsemax']]);
    expect(stateEntries('')).toEqual([]);
  });

  it('entries() keeps schema order and skips keys whose `when` is false', () => {
    const v = V('normalizers');
    const s = v.schema.finish({ ...defaults(v.schema, ss), preset: 'custom', logits: [1, 2], n: 30 });
    expect(entries(v.schema, s, ss).map(([k]) => k)).toEqual(['preset', 'logits']); // n only with a preset
  });
});

describe('the address bar (web/src/state/location.js)', () => {
  const IDS = VIEWS.map((v) => v.id);
  it('reads the view and its entries; an unknown view is reported', () => {
    expect(readHash('#view=dispersion&margin=2', IDS)).toEqual({ view: 'dispersion', entries: [['margin', '2']], unknownView: null });
    expect(readHash('#view=nope&x=1', IDS).unknownView).toBe('nope');
    expect(readHash('', IDS).view).toBe(null);
  });

  it('opens links of the earlier format (panel=, prefixed keys)', () => {
    const r = readHash('#panel=dispersion&normalizers=softmax&dispersion.normalizers=softmax,sparsemax&dispersion.margin=2&temperature=0.5', IDS);
    expect(r.view).toBe('dispersion');
    expect(r.entries).toEqual([['kernels', 'softmax,sparsemax'], ['margin', '2'], ['temperature', '0.5']]);
    const n = readHash('#panel=normalizers&normalizers=softmax,sparsemax&logits=1,2&dispersion.margin=2', IDS);
    expect(n.entries).toEqual([['kernels', 'softmax,sparsemax'], ['logits', '1,2']]);
  });

  afterEach(() => vi.useRealTimers());
  it('replace() is throttled and the last one lands; push() adds a history entry at once', () => {
    vi.useFakeTimers();
    const calls = [];
    const win = { location: { hash: '' }, history: {
      replaceState: (a, b, h) => { calls.push(['replace', h]); win.location.hash = h; },
      pushState: (a, b, h) => { calls.push(['push', h]); win.location.hash = h; },
    } };
    const hist = createHistory(200, win);
    hist.replace('view=normalizers&temperature=1.5');
    hist.replace('view=normalizers&temperature=2');
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(calls).toEqual([['replace', '#view=normalizers&temperature=2']]);
    hist.replace('view=normalizers&temperature=3');
    hist.push('view=dispersion');
    vi.advanceTimersByTime(500);
    expect(calls.slice(1)).toEqual([['push', '#view=dispersion']]); // the pending edit of the old view is dropped
  });

  it('regress: a link opened while a slider\'s address edit is pending keeps the address (cancel() drops the edit)', () => {
    vi.useFakeTimers();
    const calls = [];
    const win = { location: { hash: '' }, history: { replaceState: (a, b, h) => { calls.push(h); win.location.hash = h; } } };
    const hist = createHistory(200, win);
    hist.replace('view=sampling&temperature=0.3'); // a slider moved
    win.location.hash = '#view=sampling&m=250&tau=0.4'; // a link pasted within 200 ms
    hist.cancel(); // what the playground's hashchange handler does
    vi.advanceTimersByTime(500);
    expect(calls).toEqual([]);
    expect(win.location.hash).toBe('#view=sampling&m=250&tau=0.4');
    hist.replace('view=sampling&m=250&tau=0.4'); // the state read from the link lands as usual
    vi.advanceTimersByTime(500);
    expect(win.location.hash).toBe('#view=sampling&m=250&tau=0.4');
  });
});
