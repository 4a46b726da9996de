// A view's data declared once, as state/schema.js declares its state: the
// shape of what compute(ss, state) returns, written in a few constructors
// below (views/<view>/data-shape.js). From that one declaration come
//   check(shape, json, ctx)  a results file's data (user input) checked
//                            before anything draws it: an Error naming the
//                            path (data.runs[2].curve.loss[5]) and what is
//                            wrong, else the data unchanged
//   outline(shape)           the CLI help's description of --json's data
//   declaration(shape, name) its TypeScript interfaces (scripts/gen-shapes.js
//                            writes them into the view's index.d.ts)
// Every list and text declares its largest size (what a run writes, with
// room to spare), so a hostile file is refused at the first item past it,
// never looped over or drawn unbounded. Numbers are finite (JSON has no NaN;
// 1e999 reads as Infinity); `nullable` ones may be null, the model's word for
// "not a number". Strings stay text (the figures draw them as text nodes).
//
// Constructors (o: options; every one takes `doc`, a few words for the types):
//   number({ min, max, integer })    integer(o): number with integer: true
//   bool()
//   string({ max, options?, what? }) at most max characters; options: [...] or
//                                    (ctx) => [...] (the registry's names), what:
//                                    how a refusal names them ('a normalizer of this build')
//   list(item, { max, min?, length? })
//   object({ key: shape }, { name?, rules? })  exactly these keys; name: its
//                                    interface's name; rules: [(o) => '' | problem]
//                                    for what ties keys together (equal lengths)
//   record(value, { max, key? })     any keys (a string shape, default a name), one value shape
//   nullable(shape)                  also null
//   optional(shape)                  the key may be absent
//   json({ ts? })                    any JSON value, not checked: a part of a view's data declared by its
//                                    TypeScript type only (ts, default unknown). A shape that holds one is
//                                    not bounded(): a view draws a results file only when its shape is.

const withDoc = (s, o) => (o?.doc ? { ...s, doc: o.doc } : s);

export const number = (o = {}) => ({ type: 'number', ...o });
export const integer = (o = {}) => number({ ...o, integer: true });
export const bool = (o = {}) => withDoc({ type: 'bool' }, o);
export function string(o) {
  if (!(o?.max >= 0)) throw new Error('string: a largest length (max) is required');
  return { type: 'string', ...o };
}
export function list(item, o) {
  const max = o?.length ?? o?.max;
  if (!(max >= 0)) throw new Error('list: a largest length (max or length) is required');
  return { type: 'list', item, ...o, min: o.length ?? o.min ?? 0, max };
}
export const object = (keys, o = {}) => ({ type: 'object', keys, rules: [], ...o });
export function record(value, o) {
  if (!(o?.max >= 0)) throw new Error('record: a largest number of keys (max) is required');
  return { type: 'record', value, key: string({ max: 64 }), ...o };
}
export const nullable = (s) => ({ ...s, nullable: true });
export const optional = (s) => ({ ...s, optional: true });
export const json = (o = {}) => ({ type: 'json', ts: 'unknown', ...o });

/** True when every part of the shape is declared (no json()): what a results file can be checked against. */
export function bounded(s) {
  switch (s.type) {
    case 'json': return false;
    case 'list': return bounded(s.item);
    case 'record': return bounded(s.value);
    case 'object': return Object.values(s.keys).every(bounded);
    default: return true;
  }
}

/** A rule of object(): the lists under these keys have one length. */
export const sameLength = (...keys) => (o) => (keys.every((k) => o[k].length === o[keys[0]].length) ? '' : `${keys.join(', ')} differ in length`);

const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const short = (x) => JSON.stringify(String(x).slice(0, 40));
const range = (s) => `[${s.min ?? '-∞'}, ${s.max ?? '∞'}]`;
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function fail(path, reason, sep = ' ') {
  const e = new Error(`${path}${sep}${reason}`);
  e.path = path;
  throw e;
}

function options(s, ctx) {
  if (typeof s.options !== 'function') return s.options;
  if (!ctx) throw new Error('check: this shape names the registry\'s kernels; pass the softscope instance (ctx)');
  return s.options(ctx);
}

// What is wrong with text x of string shape s ('' when nothing).
function textProblem(s, x, ctx) {
  if (x.length > s.max) return `is longer than ${s.max} characters`;
  const opts = options(s, ctx);
  return opts && !opts.includes(x) ? `is not ${s.what ?? `one of ${opts.join(', ')}`}` : '';
}

function walk(s, x, path, ctx) {
  if (s.type === 'json') return;
  if (x === null) {
    if (s.nullable) return;
    fail(path, 'is null');
  }
  switch (s.type) {
    case 'number':
      if (typeof x !== 'number' || !Number.isFinite(x)) fail(path, 'is not a number');
      if (s.integer && !Number.isInteger(x)) fail(path, 'is not an integer');
      if ((s.min !== undefined && x < s.min) || (s.max !== undefined && x > s.max)) fail(path, `is ${x}, outside ${range(s)}`);
      return;
    case 'bool':
      if (typeof x !== 'boolean') fail(path, 'is not true or false');
      return;
    case 'string': {
      if (typeof x !== 'string') fail(path, 'is not text');
      const p = textProblem(s, x, ctx);
      if (p) fail(path, p.includes('longer') ? p : `${short(x)} ${p}`);
      return;
    }
    case 'list':
      if (!Array.isArray(x)) fail(path, 'is not a list');
      if (x.length > s.max) fail(path, `holds ${x.length} items; a run writes at most ${s.max}`);
      if (x.length < s.min) fail(path, `holds ${x.length} items; at least ${s.min} expected`);
      for (let i = 0; i < x.length; i++) walk(s.item, x[i], `${path}[${i}]`, ctx);
      return;
    case 'object': {
      if (!isObj(x)) fail(path, 'is not an object');
      for (const k in x) if (own(x, k) && !own(s.keys, k)) fail(`${path}.${String(k).slice(0, 40)}`, 'is not a key of this data');
      for (const [k, v] of Object.entries(s.keys)) {
        if (x[k] === undefined) {
          if (v.optional) continue;
          fail(`${path}.${k}`, 'is missing');
        }
        walk(v, x[k], `${path}.${k}`, ctx);
      }
      for (const rule of s.rules) {
        const p = rule(x);
        if (p) fail(path, p, ': ');
      }
      return;
    }
    case 'record': {
      if (!isObj(x)) fail(path, 'is not an object');
      const keys = Object.keys(x);
      if (keys.length > s.max) fail(path, `holds ${keys.length} keys; a run writes at most ${s.max}`);
      for (const k of keys) {
        const p = textProblem(s.key, k, ctx);
        if (p) fail(`${path} key ${short(k)}`, p);
        walk(s.value, x[k], `${path}.${k}`, ctx);
      }
      return;
    }
    default:
      throw new Error(`shape: unknown type ${s.type}`);
  }
}

/**
 * The data when it has the shape (unchanged: nothing is copied or coerced),
 * else an Error whose message names the path and the problem
 * ("data.runs[0].curve.loss[3] is not a number"); e.path holds the path.
 * ctx: the softscope instance, for names the registry decides.
 */
export function check(shape, json, ctx, path = 'data') {
  walk(shape, json, path, ctx);
  return json;
}

// ---- the shape as text: the CLI's help ----

function scalarWord(s) {
  if (s.type === 'string') return Array.isArray(s.options) ? s.options.join('|') : 'text';
  return s.type === 'number' ? (s.integer ? 'integer' : 'number') : s.type === 'bool' ? 'true|false' : '';
}

function brief(s) {
  const nul = s.nullable ? ' or null' : '';
  switch (s.type) {
    case 'list': return `[${s.min === s.max ? s.max : s.min ? `${s.min}..${s.max}` : `≤${s.max}`} × ${brief(s.item)}]${nul}`;
    case 'object': return `{${Object.entries(s.keys).map(([k, v]) => `${k}${v.optional ? '?' : ''}${v.type === 'object' || v.type === 'list' || v.type === 'record' || Array.isArray(v.options) ? `: ${brief(v)}` : ''}`).join(', ')}}${nul}`;
    case 'record': return `{name: ${brief(s.value)}}${nul}`;
    case 'json': return `…${nul}`;
    default: return scalarWord(s) + nul;
  }
}

/** The shape as one outline (keys, lists with their largest lengths, choices), wrapped to `width` columns after `indent`. */
export function outline(shape, { width = 110, indent = '' } = {}) {
  const words = brief(shape).split(' ');
  const lines = [];
  let cur = indent;
  for (const w of words) {
    if (cur.length + w.length + 1 > width && cur.trim()) { lines.push(cur); cur = indent; }
    cur += (cur.trim() ? ' ' : '') + w;
  }
  if (cur.trim()) lines.push(cur);
  return lines.join('\n');
}

// ---- the shape as TypeScript: the view's index.d.ts ----

function tsType(s, out, indent) {
  let t;
  switch (s.type) {
    case 'number': t = 'number'; break;
    case 'bool': t = 'boolean'; break;
    case 'string': t = Array.isArray(s.options) ? s.options.map((o) => `'${o}'`).join(' | ') : 'string'; break;
    case 'list': { const it = tsType(s.item, out, indent); t = /[|]/.test(it) ? `Array<${it}>` : `${it}[]`; break; }
    case 'record': t = `Record<string, ${tsType(s.value, out, indent)}>`; break;
    case 'object': t = s.name ? (emit(s, out), s.name) : body(s, out, indent); break;
    case 'json': t = s.ts; break;
    default: throw new Error(`shape: unknown type ${s.type}`);
  }
  return s.nullable ? `${t} | null` : t;
}

function body(s, out, indent) {
  const lines = Object.entries(s.keys).map(([k, v]) => {
    const doc = v.doc ? `${indent}  /** ${v.doc} */\n` : '';
    return `${doc}${indent}  ${k}${v.optional ? '?' : ''}: ${tsType(v, out, `${indent}  `)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function emit(s, out) {
  if (out.has(s.name)) return;
  out.set(s.name, null); // (taken before its keys: a name nested in itself is written once)
  out.set(s.name, `${s.doc ? `/** ${s.doc} */\n` : ''}export interface ${s.name} ${body(s, out, '')}`);
}

/** The shape's TypeScript interfaces: the top one named `name`, then each named object() inside it. */
export function declaration(shape, name) {
  const out = new Map();
  emit({ ...shape, name }, out);
  return [...out.values()].join('\n\n');
}
