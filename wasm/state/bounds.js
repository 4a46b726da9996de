// The bounds a view's schema declares, held in one place: every state that
// state/schema.js hands out (defaults, a parsed link or widget attributes, a
// widget's .state assignment, a state a control changed) passes through
// conform() before the schema's finish, so no fallback can leave a key
// outside its field's declaration: a number in its range (integer, power of
// two), a bool, a choice among its options, a list of known names without
// repeats and with min..max of them, a vector of the declared length with
// values in range, a point, params as finite numbers. A value outside falls
// back to the field's default; a default outside too (a registry without the
// kernels a view wants) to the first options that fit.
//
// And the most a link may hold (LINK_LIMITS): a longer one, or one with more
// keys, is refused whole with one notice, so no link costs more than a few
// hundred keys of work (the longest link a state writes is far shorter:
// tests/js/state-bounds.test.js).

export const LINK_LIMITS = { keys: 256, chars: 16384 };

const resolve = (v, ctx) => (typeof v === 'function' ? v(ctx) : v);

/** The range of a number field as text, e.g. [0.001, 100]. */
export function rangeOf(f) {
  return `${f.minOpen ? '(' : '['}${f.min}, ${f.max}${f.maxOpen ? ')' : ']'}`;
}

/** Whether v is a number inside a number field's range (integer, power of 2). */
export function inRange(f, v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if (f.min !== undefined && (f.minOpen ? !(v > f.min) : !(v >= f.min))) return false;
  if (f.max !== undefined && (f.maxOpen ? !(v < f.max) : !(v <= f.max))) return false;
  if (f.integer && !Number.isInteger(v)) return false;
  if (f.pow2 && !Number.isInteger(Math.log2(v))) return false;
  return true;
}

const isList = (v) => Array.isArray(v);
/** Characters a text field never holds: C0 controls but tab and newline, DEL, C1 controls, the Unicode line separators
 *  and bidirectional overrides. */
export const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Why a value breaks its field's bounds (null: it keeps them). The field's
// own default may be null (an optional key: a start point, a shown row).
const CHECK = {
  number: (f, v) => (inRange(f, v) ? null : `not a number in ${rangeOf(f)}`),
  bool: (f, v) => (typeof v === 'boolean' ? null : 'not true or false'),
  choice: (f, v, ctx) => (resolve(f.options, ctx).includes(v) ? null : 'not one of the options'),
  names(f, v, ctx) {
    if (!isList(v)) return 'not a list of names';
    const opts = resolve(f.options, ctx);
    if (!v.every((n) => opts.includes(n))) return 'an unknown name';
    if (new Set(v).size !== v.length) return 'a name twice';
    if (f.min !== undefined && v.length < f.min) return `fewer than ${f.min}`;
    if (f.max !== undefined && v.length > f.max) return `more than ${f.max}`;
    return null;
  },
  numbers(f, v) {
    const [lo, hi] = f.length ?? [1, Infinity];
    if (!isList(v)) return 'not a list of numbers';
    if (v.length < lo || v.length > hi) return `${v.length} values; ${lo} to ${hi} expected`;
    return v.every((x) => inRange(f, x) || (f.negInf && x === -Infinity)) ? null : `a value not in ${rangeOf(f)}`;
  },
  point: (f, v) => (isList(v) && v.length === 2 && v.every((x) => inRange(f, x)) ? null : `not two numbers x,y in ${rangeOf(f)}`),
  text: (f, v) => (typeof v !== 'string' ? 'not a text' : v.length > f.maxLength ? `longer than ${f.maxLength} characters`
    : CONTROL_RE.test(v) ? 'holds a control character' : null),
  params: (f, v) => (isObject(v) && Object.values(v).every((x) => typeof x === 'number' && Number.isFinite(x)) ? null : 'not an object of numbers'),
};

/** Why a value breaks the bounds of field f (null: it keeps them). */
export function outOfBounds(f, v, ctx) {
  if (v === null && resolve(f.default, ctx) === null) return null;
  const check = CHECK[f.type];
  return check ? check(f, v, ctx) : `a field of unknown type ${f.type}`;
}

// A field's value when both the given one and the default break its bounds
// (the default reads a registry that lacks what the view wants).
function lastResort(f, ctx) {
  const opts = f.type === 'names' || f.type === 'choice' ? resolve(f.options, ctx) : [];
  if (f.type === 'names') return opts.slice(0, Math.max(f.min ?? 0, 0));
  if (f.type === 'choice' && opts.length) return opts[0];
  if (f.type === 'params') return {};
  return undefined;
}

/**
 * The state with every field inside its bounds (a new object): a value
 * outside keeps the field's default instead. Returns { state, changed:
 * [{ key, reason }] } (the keys that fell back). params: entries that are not
 * finite numbers are dropped.
 */
export function conform(schema, state, ctx) {
  const s = { ...state };
  const changed = [];
  for (const f of schema.fields) {
    let v = s[f.key];
    if (f.type === 'params' && isObject(v)) v = Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'number' && Number.isFinite(x)));
    const reason = outOfBounds(f, v, ctx);
    if (!reason) { s[f.key] = v; continue; }
    changed.push({ key: f.key, reason });
    let d = f.type === 'params' ? {} : resolve(f.default, ctx);
    if (outOfBounds(f, d, ctx)) d = lastResort(f, ctx) ?? d;
    s[f.key] = isList(d) ? [...d] : isObject(d) ? { ...d } : d;
  }
  return { state: s, changed };
}
