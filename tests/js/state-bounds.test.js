// The views' schemas hold their own bounds (wasm/state/schema.js): whatever
// a link, a widget's attributes or .state, or a control gives, every key of
// the state that comes out lies inside its field's declaration: a number in
// its range (integer, power of two), a choice among its options, a list of
// known names without repeats and with min..max of them, a vector of the
// declared length with values in range. Checked here against the field
// declarations (not against the serializer's own checks), for every view and
// every key, over generated links and assignments (fast-check, fixed seed).
// @vitest-environment happy-dom
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { createSoftscope } from 'softscope';
import { parse, defaults, settle, toHash, hashEntries, LINK_LIMITS } from '../../wasm/state/schema.js';
import { VIEWS } from '../../wasm/views/index.js';
import { assign } from '../../web/src/embed/assign.js';
import { readHash } from '../../web/src/state/location.js';
import { WASM } from './support/wasm-paths.js';
import { FC } from './support/arbitraries.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
const V = (id) => VIEWS.find((v) => v.id === id);

// The instance as a registry without the kernels the views want by default
// (a build of the library with fewer kernels): every names field's default
// reads the registry, and comes out empty here.
function without(names) {
  return new Proxy(ss, { get(t, p) {
    if (p === 'kernels') return (...a) => t.kernels(...a).filter((k) => !names.includes(k.name));
    const x = Reflect.get(t, p, t);
    return typeof x === 'function' ? x.bind(t) : x;
  } });
}
// Every kernel some view's schema names as a default (WANTED lists, the sampling stages, the attention pairs).
const WANTED = ['softmax', 'sparsemax', 'entmax15', 'ssmax', 'adaptive_temperature', 'entmax_bisect', 'softpick', 'sgd', 'momentum', 'adam',
  'lion', 'temperature', 'top_p', 'performer', 'trig', 'hrf', 'uniform', 'gumbel_softmax'];
const REGISTRIES = { full: () => ss, 'without the wanted kernels': () => without(WANTED) };

const resolve = (x, ctx = ss) => (typeof x === 'function' ? x(ctx) : x);

/** What in a state lies outside its field declarations: ['view.key: why', ...] (ctx: the instance, its registry). */
function outside(v, state, ctx = ss) {
  const out = [];
  const bad = (f, why) => out.push(`${v.id}.${f.key} = ${JSON.stringify(state[f.key])}: ${why}`);
  const inRange = (f, x) => typeof x === 'number' && Number.isFinite(x) &&
    (f.min === undefined || (f.minOpen ? x > f.min : x >= f.min)) && (f.max === undefined || (f.maxOpen ? x < f.max : x <= f.max));
  for (const f of v.schema.fields) {
    const x = state[f.key];
    const nullable = resolve(f.default, ctx) === null;
    if (x === null && nullable) continue;
    switch (f.type) {
      case 'number':
        if (!inRange(f, x)) bad(f, `outside [${f.min}, ${f.max}]`);
        else if (f.integer && !Number.isInteger(x)) bad(f, 'not an integer');
        else if (f.pow2 && 2 ** Math.round(Math.log2(x)) !== x) bad(f, 'not a power of 2');
        break;
      case 'bool':
        if (typeof x !== 'boolean') bad(f, 'not a boolean');
        break;
      case 'choice':
        if (!resolve(f.options, ctx).includes(x)) bad(f, 'not an option');
        break;
      case 'names': {
        const opts = resolve(f.options, ctx);
        if (!Array.isArray(x)) { bad(f, 'not a list'); break; }
        if (!x.every((n) => opts.includes(n))) bad(f, 'an unknown name');
        if (new Set(x).size !== x.length) bad(f, 'a name twice');
        if (f.min !== undefined && x.length < f.min) bad(f, `fewer than ${f.min}`);
        if (f.max !== undefined && x.length > f.max) bad(f, `more than ${f.max}`);
        break;
      }
      case 'numbers': {
        const [lo, hi] = f.length ?? [1, Infinity];
        if (!Array.isArray(x)) { bad(f, 'not a list'); break; }
        if (x.length < lo || x.length > hi) bad(f, `${x.length} values, not ${lo} to ${hi}`);
        if (!x.every((y) => inRange(f, y) || (f.negInf && y === -Infinity))) bad(f, 'a value out of range');
        break;
      }
      case 'point':
        if (!Array.isArray(x) || x.length !== 2 || !x.every((y) => inRange(f, y))) bad(f, 'not two numbers in range');
        break;
      case 'text':
        if (typeof x !== 'string' || x.length > f.maxLength || /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(x)) bad(f, 'not a text of at most maxLength characters without controls');
        break;
      case 'params':
        if (!x || typeof x !== 'object' || Array.isArray(x)) { bad(f, 'not an object'); break; }
        for (const [k, y] of Object.entries(x)) if (typeof y !== 'number' || !Number.isFinite(y)) bad(f, `${k} is not a finite number`);
        break;
      default:
        bad(f, `unknown field type ${f.type}`);
    }
  }
  return out;
}

// Text a link may hold for a field: good values, edge values and garbage.
const JUNK = ['', ' ', 'x', 'NaN', 'Infinity', '-Infinity', '1e400', '-1e400', '0x10', '1,2', ',', 'true', '-0', '1e-320'];
function textOf(f, ctx) {
  const junk = fc.constantFrom(...JUNK);
  switch (f.type) {
    case 'number': {
      const lo = f.min ?? -1e6, hi = f.max ?? 1e6;
      const near = fc.double({ min: lo - (hi - lo), max: hi + (hi - lo), noNaN: true }).map(String);
      const edge = fc.constantFrom(lo, hi, lo - 1, hi + 1, (lo + hi) / 2, Math.round((lo + hi) / 2)).map(String);
      return fc.oneof(near, edge, junk);
    }
    case 'bool': return fc.oneof(fc.constantFrom('1', '0', 'true', 'false', 'yes'), junk);
    case 'choice': return fc.oneof(fc.constantFrom(...resolve(f.options, ctx), 'x'), junk);
    case 'names': {
      const name = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...resolve(f.options, ctx), 'softmax') },
        { weight: 1, arbitrary: fc.constantFrom('x', 'sofmax', '', ' ', 'SOFTMAX') });
      return fc.oneof(fc.array(name, { maxLength: 20 }).map((a) => a.join(',')), junk);
    }
    case 'numbers': {
      const [lo, hi] = f.length ?? [1, 8];
      const val = fc.oneof(fc.double({ min: (f.min ?? -10) * 2, max: (f.max ?? 10) * 2, noNaN: true }).map(String), fc.constantFrom('-Infinity', 'x', ''));
      return fc.oneof(fc.array(val, { minLength: Math.max(0, lo - 1), maxLength: Math.min(hi + 1, 80) }).map((a) => a.join(',')), junk);
    }
    case 'point': return fc.oneof(fc.array(fc.double({ min: -2e6, max: 2e6, noNaN: true }).map(String), { maxLength: 3 }).map((a) => a.join(',')), junk);
    case 'text': return fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('a\u001bb', 'x'.repeat(f.maxLength + 1), 'ROMEO:\n'), junk);
    default: return junk;
  }
}

// Every parameter key a link of view v may hold (shared, kernel.param, and a stage's own name).
function paramKeysOf(v) {
  const all = (f) => resolve(f.options ?? [], ss);
  const every = Object.fromEntries(v.schema.fields.filter((f) => f.type === 'names').map((f) => [f.key, all(f)]));
  const s = { ...defaults(v.schema, ss), ...every, quant: 'uniform' };
  return [...new Set(v.schema.fields.filter((f) => f.type === 'params')
    .flatMap((f) => f.kernels(s, ss).flatMap((k) => k.params.flatMap((p) => [p.name, `${k.name}.${p.name}`, k.name]))))];
}

// Entries of a link for view v: some of its keys with generated text, some of its kernels' parameters.
function linkOf(v, ctx) {
  const own = v.schema.fields.filter((f) => f.type !== 'params').map((f) => fc.option(textOf(f, ctx).map((t) => [f.key, t]), { nil: null, freq: 2 }));
  const keys = paramKeysOf(v);
  const param = fc.tuple(fc.constantFrom(...keys, 'nope'), fc.oneof(fc.double({ min: -100, max: 100, noNaN: true }).map(String), fc.constantFrom(...JUNK)));
  return fc.tuple(fc.tuple(...own), fc.array(param, { maxLength: 4 })).map(([a, b]) => [...a, ...b].filter(Boolean));
}

// A value of any type for a key of .state (a widget's assignment).
const anyValue = fc.oneof(fc.string({ maxLength: 12 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.double()), { maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.double(), { maxKeys: 3 }),
  fc.constantFrom(Object.create(null), Symbol('s'), 10n, () => 1, new Date(0), [['softmax']], { toString: () => 'softmax' }, [], ['x'], ''));

for (const [registry, ctxOf] of Object.entries(REGISTRIES)) {
  describe(`every view, every key, registry ${registry}: the state lies inside its schema`, () => {
    it('the defaults', () => {
      for (const v of VIEWS) expect(outside(v, defaults(v.schema, ctxOf()), ctxOf()), v.id).toEqual([]);
    });

    for (const v of VIEWS) {
      const keys = v.schema.fields.map((f) => f.key);
      const patches = () => fc.array(fc.tuple(fc.constantFrom(...keys, ...paramKeysOf(v), 'nope'), anyValue), { minLength: 1, maxLength: 4 });

      it(`${v.id}: any link`, () => {
        const ctx = ctxOf();
        fc.assert(fc.property(linkOf(v, ctx), (link) => {
          const { state, notices } = parse(v.schema, link, ctx);
          expect(outside(v, state, ctx), JSON.stringify(link)).toEqual([]);
          for (const n of notices) expect(link.some(([k]) => k === n.key), n.key).toBe(true);
        }), { ...FC, numRuns: 200 });
      });

      it(`${v.id}: any .state assignment keeps the bounds and reports, never throws`, () => {
        const ctx = ctxOf();
        fc.assert(fc.property(patches(), (kv) => {
          const { state, notices } = assign(v.schema, defaults(v.schema, ctx), Object.fromEntries(kv), ctx);
          expect(outside(v, state, ctx)).toEqual([]);
          for (const n of notices) expect([typeof n.key, typeof n.value, typeof n.reason]).toEqual(['string', 'string', 'string']);
        }), FC);
      });

      it(`${v.id}: any state a control sets settles inside the schema`, () => {
        const ctx = ctxOf();
        fc.assert(fc.property(patches(), (kv) => {
          const state = settle(v.schema, { ...defaults(v.schema, ctx), ...Object.fromEntries(kv) }, ctx);
          expect(outside(v, state, ctx)).toEqual([]);
        }), FC);
      });
    }
  });
}

describe('issue 25: the bounds hold after every fallback (wasm/state/bounds.js)', () => {
  it('regress_unknown_names_keep_the_minimum: key=x, key= and an emptied list keep min..max names, for every view and list key, on both registries', () => {
    for (const [registry, ctxOf] of Object.entries(REGISTRIES)) {
      const ctx = ctxOf();
      for (const v of VIEWS) {
        for (const f of v.schema.fields.filter((x) => x.type === 'names')) {
          const tag = `${registry}: ${v.id}.${f.key}`;
          const opts = resolve(f.options, ctx);
          const states = [
            parse(v.schema, [[f.key, 'x']], ctx).state,
            parse(v.schema, [[f.key, '']], ctx).state,
            parse(v.schema, [[f.key, [...opts, ...opts].join(',')]], ctx).state,
            settle(v.schema, { ...defaults(v.schema, ctx), [f.key]: [] }, ctx),
            settle(v.schema, { ...defaults(v.schema, ctx), [f.key]: [...opts, 'x'] }, ctx),
          ];
          for (const s of states) {
            expect(outside(v, s, ctx), tag).toEqual([]);
            expect(s[f.key].length, tag).toBeGreaterThanOrEqual(Math.min(f.min ?? 0, opts.length));
          }
        }
      }
    }
  });

  it('regress_optimizers_unknown_kernel_races: #view=optimizers&kernels=x races the default optimizers, also on a registry without them', async () => {
    const { compute } = await import('../../wasm/views/optimizers/model.js');
    for (const ctx of [ss, without(WANTED)]) {
      const s = parse(V('optimizers').schema, [['kernels', 'x'], ['steps', '10']], ctx).state;
      expect(s.kernels.length).toBeGreaterThanOrEqual(1);
      // what the view reads first: the optimizer whose hyperparameters it shows
      expect(ctx.kernel(s.sel ?? s.kernels[0], 'optimizer').name).toBe(s.kernels[0]);
      const d = compute(ctx, s);
      expect(d.runs.map((r) => r.name)).toEqual(s.kernels);
      for (const r of d.runs) expect(r.path.length).toBeGreaterThan(1);
    }
  });
});

describe('issue 25: the work a link costs is bounded (LINK_LIMITS)', () => {
  // the probe's link: 1 MB, 60,000 keys
  const huge = Array.from({ length: 60000 }, (_, i) => `k${i}=${'v'.repeat(10)}`).join('&');

  it('regress_huge_link_one_notice: a hash of 60,000 keys (1 MB), 257 keys, or one value past 16,384 characters is not read: the defaults and one notice, for every view', () => {
    expect(huge.length).toBeGreaterThan(1e6);
    const refused = (v, hash) => {
      const { state, notices } = parse(v.schema, hashEntries(hash), ss);
      expect(notices, v.id).toHaveLength(1);
      expect(notices[0].key).toBe('link');
      expect(notices[0].reason).toMatch(/at most \d+ keys and \d+ characters: not read/);
      expect(state, v.id).toEqual(defaults(v.schema, ss));
    };
    for (const v of VIEWS) refused(v, huge);
    // as the playground reads it: the view taken out first
    const { view: id, entries: rest } = readHash(`#view=optimizers&${huge}`, VIEWS.map((v) => v.id));
    expect(id).toBe('optimizers');
    expect(parse(V(id).schema, rest, ss).notices).toHaveLength(1);
    const many = Array.from({ length: LINK_LIMITS.keys + 1 }, (_, i) => `k${i}=1`).join('&');
    const long = `logits=${'1,'.repeat(LINK_LIMITS.chars / 2)}1`;
    for (const v of VIEWS) {
      refused(v, many);
      refused(v, long);
      // at the limit it is read (one notice per key it cannot use)
      const edge = Array.from({ length: LINK_LIMITS.keys }, (_, i) => [`k${i}`, '1']);
      expect(parse(v.schema, edge, ss).notices).toHaveLength(LINK_LIMITS.keys);
    }
  });

  it('hashEntries decodes at most 2 × LINK_LIMITS.keys pairs of a huge hash (the rest is not read), each cut past the length limit', () => {
    const e = hashEntries(`#${huge}`);
    expect(e).toHaveLength(2 * LINK_LIMITS.keys);
    expect(e[0]).toEqual(['k0', 'vvvvvvvvvv']);
    const one = hashEntries(`a=${'%41'.repeat(1e5)}`);
    expect(one).toHaveLength(1);
    expect(one[0][1].length).toBeGreaterThan(LINK_LIMITS.chars);
    expect(one[0][1].length).toBeLessThan(2 * LINK_LIMITS.chars);
  });

  it('within the limits hashEntries reads a hash as URLSearchParams does', () => {
    const piece = fc.string({ unit: fc.constantFrom('a', 'b', '1', '.', ',', '=', '%', '%2C', '%20', '+', '?', '#', 'é', '%E2%88%9E', '%ZZ', ''), maxLength: 12 });
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
      const t = parts.join('&');
      expect(hashEntries(t)).toEqual([...new URLSearchParams(t.replace(/^#/, ''))]);
    }), { ...FC, numRuns: 500 });
  });

  it('regress_huge_assignment_one_notice: a .state of 60,000 keys is not applied, with one notice', () => {
    const v = V('normalizers');
    const cur = parse(v.schema, hashEntries('temperature=2'), ss).state;
    const { state, notices } = assign(v.schema, cur, Object.fromEntries(hashEntries(huge)), ss);
    expect(notices).toHaveLength(1);
    expect(notices[0].key).toBe('state');
    expect(state).toBe(cur);
  });

  it('the longest link each view writes (every list full, every vector at its longest, every parameter set) is read whole, under half the limits', () => {
    for (const v of VIEWS) {
      const s = { ...defaults(v.schema, ss) };
      for (const f of v.schema.fields) {
        if (f.type === 'names') s[f.key] = resolve(f.options).slice(0, f.max ?? Infinity);
        if (f.type === 'numbers') s[f.key] = Array.from({ length: f.length[1] }, (_, i) => (i % 2 ? -1 : 1) * Math.min(f.max, 7.12345 - i / 1000));
        if (f.type === 'point') s[f.key] = [f.min / 3, f.max / 7];
      }
      if (v.id === 'normalizers' || v.id === 'sampling') s.preset = 'custom';
      if (v.id === 'attention') { s.quant = 'uniform'; s.row = 3; }
      if (v.id === 'optimizers') s.sel = s.kernels[1];
      // every parameter key the state takes, at a value of 6 digits where its range allows
      const base = hashEntries(toHash(v.schema, s, ss)).filter(([k]) => k !== 'view');
      const params = [];
      for (const k of paramKeysOf(v)) {
        const x = ['-0.123457', '0.123457', '1.23457', '123457', '3', '1', '0'].find((t) => !parse(v.schema, [...base, [k, t]], ss).notices.length);
        if (x !== undefined) params.push([k, x]);
      }
      const full = parse(v.schema, [...base, ...params], ss);
      expect(full.notices, v.id).toEqual([]);
      const hash = toHash(v.schema, full.state, ss);
      const n = hashEntries(hash).length;
      expect(n, v.id).toBeLessThan(LINK_LIMITS.keys / 2);
      expect(hash.length, v.id).toBeLessThan(LINK_LIMITS.chars / 2);
      expect(parse(v.schema, hashEntries(hash), ss, { ignore: ['view'] }).notices.filter((x) => x.key === 'link'), v.id).toEqual([]);
      console.log(`${v.id}: ${n} keys, ${hash.length} characters`);
    }
  });
});
