// One generic (de)serializer for every view's state, driven by the view's
// schema (as TensorFlow Playground's State.PROPS): a view's state is one flat
// object, and its schema lists each key with its type, range and default.
// The same code reads a playground link (#view=normalizers&kernels=...), a
// widget's attributes (<softscope-widget kernels="..." temperature="0.5">)
// and the CLI's --state, and writes links that hold only the keys of one
// view that differ from their defaults.
//
// Field types (each field: { key, type, default, label?, help?, when?, ... }):
//   number   { min, max, minOpen?, maxOpen?, integer?, log?, pow2? }  6 significant digits in links
//   bool     '1' / '0' (also true / false)
//   choice   { options: [...] | (ctx) => [...] }  one name
//   names    { options: (ctx) => [...], min?, max?, optionHelp? }  a comma-separated list of names
//            (optionHelp: { name: text } for names that are not kernels, the chooser's tooltips)
//   numbers  { min, max, length: [lo, hi], negInf? }  a comma-separated vector ("-Infinity" allowed with negInf)
//   point    { min, max }  "x,y" or absent (null)
//   text     { maxLength }  a string as typed (a prompt): at most maxLength characters, no control character but tab and newline
//   params   { scope: 'shared' | 'kernel', kernels: (state, ctx) => registry entries, exclude? }
//            kernel parameters by registry name: shared: `alpha=1.5` for every chosen
//            kernel that has alpha; kernel: `adam.lr=0.02` for one kernel.
//            paramKey?: (kernel, param) => key | null names the keys instead (null: not
//            a key), e.g. one parameter per kernel keyed by the kernel's name (`top_p=0.9`).
// `default` may be a function of the context (ctx: the softscope instance,
// for defaults that depend on the registry). `when(state)` false: the key is
// not written (e.g. logits unless the preset is custom). `implies` sets other
// keys when this one is read (logits given => preset custom). A schema's
// `finish(state, ctx)` restores invariants after a parse (derived values).
// `display: true`: the field does not change the run's work, only what is
// drawn of it (the run shown, a layer, the pace) or a part the running
// stepper redoes in place from that work (a generation of the trained
// models, a panel computed on the spot); runKey() leaves it out, and that
// one key decides everywhere whether a new state is the same run (taken in
// place) or a new one (the work starts over): the playground's runner, the
// worker, the steppers' update(). Links, attributes and --state hold display
// fields like any other.
//
// parse() never throws: a value that is malformed, out of range or unknown
// keeps its default and is reported in `notices` ({ key, value, reason }),
// which the UI shows. A link with more than LINK_LIMITS keys or characters is
// refused whole, with one notice. Every state handed out (defaults, parse,
// settle) passes state/bounds.js's conform() before the schema's finish, so
// each key lies inside its field's declaration whatever fell back.

import { conform, inRange, rangeOf, LINK_LIMITS, CONTROL_RE } from './bounds.js';

export { rangeOf, LINK_LIMITS };
export { runKey } from './run-key.js';

const NAME_RE = /^[a-z][a-z0-9_]*$/;

/** A number as a link writes it: at most 6 significant digits (integers whole). */
export function num6(v) {
  if (v === -Infinity) return '-Infinity';
  if (v === Infinity) return 'Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(6)));
}

const resolve = (v, ctx) => (typeof v === 'function' ? v(ctx) : v);
const clone = (v) => (Array.isArray(v) ? v.map(clone) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)])) : v);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function parseNumber(s) {
  const t = String(s).trim();
  return t === '' ? NaN : Number(t);
}

// Field readers: raw string -> { value } or { reason }.
const READ = {
  number(f, s) {
    const v = parseNumber(s);
    if (!Number.isFinite(v)) return { reason: 'not a number' };
    if (!inRange(f, v)) return { reason: `outside ${rangeOf(f)}${f.integer ? ' or not an integer' : ''}${f.pow2 ? ' or not a power of 2' : ''}` };
    return { value: v + 0 };
  },
  bool(f, s) {
    const t = String(s).trim().toLowerCase();
    if (t === '1' || t === 'true' || t === '') return { value: true };
    if (t === '0' || t === 'false') return { value: false };
    return { reason: 'not 1/0 or true/false' };
  },
  choice(f, s, ctx) {
    const opts = resolve(f.options, ctx);
    const t = String(s).trim();
    return opts.includes(t) ? { value: t } : { reason: `not one of ${opts.join(', ')}` };
  },
  // Unknown names are dropped and the known ones kept; a list left with
  // nothing it can use (every name unknown, or too few) keeps the default.
  names(f, s, ctx) {
    const opts = resolve(f.options, ctx);
    const list = String(s).split(',').map((t) => t.trim()).filter(Boolean);
    const bad = list.filter((t) => !opts.includes(t));
    let value = [...new Set(list.filter((t) => opts.includes(t)))];
    const reasons = bad.length ? [`unknown: ${bad.join(', ')}`] : [];
    if (f.max !== undefined && value.length > f.max) {
      reasons.push(`more than ${f.max}`);
      value = value.slice(0, f.max);
    }
    if (bad.length && value.length === 0) return { reason: reasons.join('; ') };
    if (f.min !== undefined && value.length < f.min) return { reason: [...reasons, `fewer than ${f.min}`].join('; ') };
    return reasons.length ? { reason: reasons.join('; '), value } : { value };
  },
  numbers(f, s) {
    const parts = String(s).split(',');
    const [lo, hi] = f.length ?? [1, Infinity];
    if (parts.length < lo || parts.length > hi) return { reason: `${parts.length} values; ${lo} to ${hi} expected` };
    const xs = parts.map(parseNumber);
    const i = xs.findIndex((v) => !(f.negInf && v === -Infinity) && !inRange(f, v));
    if (i >= 0) return { reason: `item ${i} (${parts[i].trim()}) is not a number in ${rangeOf(f)}${f.negInf ? ' or -Infinity' : ''}` };
    return { value: xs.map((v) => v + 0) };
  },
  text(f, s) {
    const t = String(s);
    if (t.length > f.maxLength) return { reason: `longer than ${f.maxLength} characters` };
    if (CONTROL_RE.test(t)) return { reason: 'holds a control character' };
    return { value: t };
  },
  point(f, s) {
    const xs = String(s).split(',').map(parseNumber);
    if (xs.length !== 2 || !xs.every((v) => inRange(f, v))) return { reason: `not two numbers x,y in ${rangeOf(f)}` };
    return { value: xs };
  },
};

// Field writers: value -> string.
const WRITE = {
  number: (f, v) => num6(v),
  bool: (f, v) => (v ? '1' : '0'),
  choice: (f, v) => v,
  names: (f, v) => v.join(','),
  numbers: (f, v) => v.map(num6).join(','),
  point: (f, v) => v.map(num6).join(','),
  text: (f, v) => v,
};

/** The default state of a schema (a fresh object). */
export function defaults(schema, ctx) {
  const s = {};
  for (const f of schema.fields) s[f.key] = f.type === 'params' ? {} : clone(resolve(f.default, ctx));
  return finished(schema, s, ctx);
}

// The state inside its bounds (state/bounds.js), then the schema's finish.
function finished(schema, state, ctx, given) {
  const s = conform(schema, state, ctx).state;
  return schema.finish ? schema.finish(s, ctx, given) : s;
}

// Any value as text (never throws).
function asText(v) {
  if (typeof v === 'string') return v;
  try {
    return typeof v === 'bigint' ? `${v}` : typeof v === 'symbol' ? v.toString() : JSON.stringify(v) ?? String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** A value given for a key, as text for a notice (never throws; a long value is cut). */
export function textOf(v) {
  const t = asText(v);
  return t.length > 200 ? `${t.slice(0, 200)}… (${t.length} characters)` : t;
}

// The entries of a link as text, { list, keys, chars }; list is null past LINK_LIMITS (the rest only counted).
function bounded(entries) {
  let list = [], keys = 0, chars = 0;
  for (const [k, v] of entries) {
    keys += 1;
    if (!list) { chars += (typeof k === 'string' ? k.length : 0) + (typeof v === 'string' ? v.length : 0); continue; }
    const kv = [asText(k), asText(v)];
    chars += kv[0].length + kv[1].length;
    if (keys > LINK_LIMITS.keys || chars > LINK_LIMITS.chars) list = null;
    else list.push(kv);
  }
  return { list, keys, chars };
}

/** Parameter keys of a params field for the state: [{ key, kernel, param }]. */
function paramKeys(f, state, ctx, schema) {
  const out = [];
  // a kernel parameter never takes a key of the view's own fields
  const seen = new Set(schema ? schema.fields.map((x) => x.key) : []);
  for (const k of f.kernels(state, ctx)) {
    for (const p of k.params) {
      if (f.exclude?.includes(p.name)) continue;
      const key = f.paramKey ? f.paramKey(k, p) : f.scope === 'kernel' ? `${k.name}.${p.name}` : p.name;
      if (!key || seen.has(key)) continue;
      seen.add(key);
      out.push({ key, kernel: k, param: p });
    }
  }
  return out;
}

// A kernel parameter's value from text, checked against the registry range
// (the link's own check, so a bad value falls back with a notice; the kernel
// call checks again in C).
function readParam(p, s) {
  const t = String(s).trim();
  if (p.choices && p.choices.includes(t)) return { value: p.min + p.choices.indexOf(t) };
  if (p.type === 'bool' && /^(true|false)$/i.test(t)) return { value: /^true$/i.test(t) ? 1 : 0 };
  const v = parseNumber(t);
  const lo = p.min ?? -Infinity, hi = p.max ?? Infinity;
  const ok = Number.isFinite(v) && (p.min_open ? v > lo : v >= lo) && (p.max_open ? v < hi : v <= hi) &&
    (p.type !== 'int' || Number.isInteger(v)) && (p.type !== 'bool' || v === 0 || v === 1);
  if (!ok) return { reason: `not a value in ${p.min_open ? '(' : '['}${p.min ?? '-∞'}, ${p.max ?? '∞'}${p.max_open ? ')' : ']'}${p.type === 'int' ? ' (an integer)' : ''}` };
  return { value: v + 0 };
}

/**
 * State from key/value entries (URLSearchParams, Object.entries of widget
 * attributes, ...): { state, notices }. Keys not in the schema are reported
 * unless listed in `ignore` (e.g. 'view', or a widget's own attributes).
 */
export function parse(schema, entries, ctx, { ignore = [] } = {}) {
  const state = defaults(schema, ctx);
  const notices = [];
  const { list, keys, chars } = bounded(entries);
  if (!list) {
    const over = (n, max) => (n > max ? `over ${max}` : n); // (hashEntries reads no further)
    return { state, notices: [{ key: 'link', value: `${over(keys, LINK_LIMITS.keys)} keys, ${over(chars, LINK_LIMITS.chars)} characters`,
      reason: `a link holds at most ${LINK_LIMITS.keys} keys and ${LINK_LIMITS.chars} characters: not read` }] };
  }
  const raw = new Map(list);
  const used = new Set(ignore);
  const given = new Set();
  for (const f of schema.fields) {
    if (f.type === 'params' || !raw.has(f.key)) continue;
    used.add(f.key);
    const r = READ[f.type](f, raw.get(f.key), ctx);
    if (r.reason) notices.push({ key: f.key, value: raw.get(f.key), reason: r.reason });
    if (r.value !== undefined && (!r.reason || f.type === 'names')) {
      state[f.key] = r.value;
      given.add(f.key);
      for (const [k, v] of Object.entries(f.implies ?? {})) state[k] = v;
    }
  }
  for (const f of schema.fields) {
    if (f.type !== 'params') continue;
    for (const { key, param } of paramKeys(f, state, ctx, schema)) {
      if (!raw.has(key)) continue;
      used.add(key);
      const r = readParam(param, raw.get(key));
      if (r.reason) { notices.push({ key, value: raw.get(key), reason: r.reason }); continue; }
      state[f.key][key] = r.value;
    }
  }
  for (const [k, v] of raw) {
    if (used.has(k)) continue;
    notices.push({ key: k, value: v, reason: NAME_RE.test(k.split('.')[0]) ? 'not a setting of this view' : 'not a key' });
  }
  // a value read that breaks its field's bounds (none should) keeps its default too
  const c = conform(schema, state, ctx);
  for (const { key, reason } of c.changed) if (raw.has(key) && !notices.some((n) => n.key === key)) notices.push({ key, value: raw.get(key), reason });
  return { state: schema.finish ? schema.finish(c.state, ctx, given) : c.state, notices };
}

/** [key, value] pairs of the state that differ from the defaults (in schema order). */
export function entries(schema, state, ctx) {
  const d = defaults(schema, ctx);
  const out = [];
  for (const f of schema.fields) {
    if (f.type === 'params') {
      for (const { key } of paramKeys(f, state, ctx, schema)) {
        const v = state[f.key]?.[key];
        if (Number.isFinite(v)) out.push([key, num6(v)]);
      }
      continue;
    }
    const v = state[f.key];
    if (v === undefined || v === null || (f.when && !f.when(state))) continue;
    if (same(v, d[f.key]) && !f.always) continue;
    out.push([f.key, WRITE[f.type](f, v)]);
  }
  return out;
}

/** A link's hash (without '#'): view=<id> and the state's non-default keys. */
export function toHash(schema, state, ctx) {
  const q = [['view', schema.view], ...entries(schema, state, ctx)];
  return q.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%2C/g, ',')}`).join('&');
}

// A number as a link reads it back (num6 written, then read).
const linked = (v) => (typeof v === 'number' ? Number(num6(v)) : v);

/**
 * A state changed by a control, as its link reads it back: every number at
 * the link's 6 significant digits (a slider's 0.001312199899019203 is the
 * link's 0.0013122), then the schema's finish. The playground and the widget
 * keep this, so the figure drawn is the one its link, its widget attributes
 * and `softscope figure --state` give.
 */
export function settle(schema, state, ctx) {
  const s = { ...state };
  for (const f of schema.fields) {
    const v = s[f.key];
    if (f.type === 'number') s[f.key] = linked(v);
    else if ((f.type === 'numbers' || f.type === 'point') && Array.isArray(v)) s[f.key] = v.map(linked);
    else if (f.type === 'params' && v && typeof v === 'object') s[f.key] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, linked(x)]));
  }
  return finished(schema, s, ctx);
}

/**
 * [[key, value], ...] of a hash or query string ('#a=1&b=2', 'a=1&b=2'), as
 * URLSearchParams reads it, but at most 2 × LINK_LIMITS.keys pairs, each cut
 * to a length that still decodes past LINK_LIMITS.chars: the rest of a huge
 * link is never decoded (1 MB took URLSearchParams 0.5 s in Chromium), and
 * parse() refuses what comes back, also after a reader took out a key or
 * two (view).
 */
export function hashEntries(hash) {
  try {
    const pairs = String(hash ?? '').replace(/^#/, '').replace(/^\?/, '').split('&', 2 * LINK_LIMITS.keys);
    // ('&' first: a later pair's leading '?' is its own, as in one URLSearchParams)
    return pairs.flatMap((p) => [...new URLSearchParams(`&${p.slice(0, 3 * LINK_LIMITS.chars + 3)}`)]);
  } catch {
    return [];
  }
}

/** A state from text: a playground hash ('#view=x&a=1'), or key=value pairs separated by & , or spaces. */
export function stateEntries(text) {
  const t = String(text ?? '').trim().replace(/^#/, '');
  if (t.includes('&') || !/\s/.test(t)) return hashEntries(t);
  return t.split(/\s+/).map((kv) => {
    const i = kv.indexOf('=');
    return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
  });
}
