// Checks of JS arguments that are not kernel parameters (those are checked by
// C, see Softscope._packParams): option objects, typed arrays, counts,
// 64-bit counter words and named choices. Each throws an Error that names the
// argument (`options.tau`, `codes`, ...).
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';

const U64_MAX = (1n << 64n) - 1n;

/** A finite number that float32 reads as +-Inf (|v| > 3.4e38): an error to
 *  report with its index, never a silent -Inf (a masked logit). */
export function overflowsFloat32(v) {
  return Number.isFinite(v) && !Number.isFinite(Math.fround(v));
}

// A copy of a caller's object: each key read once (a getter runs once, a
// Proxy is asked once), so what a call checks is what it uses, and no
// caller's code runs once the call starts writing the wasm heap. (Plain
// assignment keeps the copy a fast object; a '__proto__' key is defined.)
class Copy {}
function snapshot(o, keys) {
  const copy = new Copy();
  for (const key of keys) {
    const v = o[key];
    if (v === undefined) continue;
    if (key === '__proto__') Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[key] = v;
  }
  return copy;
}

const isPlainObject = (o) => o !== null && typeof o === 'object' && Object.prototype.toString.call(o) === '[object Object]';

/** An options object ({} for undefined / null); anything else (a string,
 *  an array, a typed array, a Map, ...) is a TypeError naming options. With
 *  `known`, a key not in it is an Error naming it (a typo such as
 *  { draw: 100 } is never silently ignored). Returns a copy (see snapshot). */
export function options(o, where, known, name = 'options') {
  if (o === undefined || o === null) return {};
  if (!isPlainObject(o))
    throw new SoftscopeTypeError(`${where}: ${name} must be an object (got ${describe(o)})`, { argument: name });
  if (o instanceof Copy) return o;
  const keys = Object.keys(o);
  const bad = known && keys.find((key) => !known.includes(key));
  if (bad !== undefined)
    throw new SoftscopeError(`${where}: unknown option ${name}.${bad}; known: ${known.join(', ')}`, STATUS.SS_ERR_PARAM_COUNT, { argument: `${name}.${bad}` });
  return snapshot(o, known ?? keys);
}

/** A kernel's params object ({} for undefined / null) as a copy of its own
 *  keys (see snapshot); anything else is a TypeError naming `arg`. The
 *  names and values are checked by Softscope._packParams. */
export function paramsOf(params, where, arg = 'params') {
  if (params === undefined || params === null) return new Copy();
  if (!isPlainObject(params))
    throw new SoftscopeTypeError(`${where}: ${arg} must be an object like { name: value } (got ${describe(params)})`, { argument: arg });
  if (params instanceof Copy) return params;
  return snapshot(params, Object.keys(params));
}

/** options[key] (or def) as a boolean: true / false (or 1 / 0). */
export function flag(o, key, def, where) {
  const v = o[key] ?? def;
  return !!integer({ [key]: typeof v === 'boolean' ? +v : v }, key, 0, 0, 1, where);
}

/** options[key] (or def) as a number that passes ok(v); `rule` says what ok means. */
export function number(o, key, def, ok, rule, where, name = 'options') {
  const v = o[key] ?? def;
  if (typeof v !== 'number')
    throw new SoftscopeTypeError(`${where}: ${name}.${key} = ${describe(v)} must be a number: ${rule}`, { argument: `${name}.${key}` });
  if (!ok(v))
    throw new SoftscopeError(`${where}: ${name}.${key} = ${describe(v)} ${rule}`, STATUS.SS_ERR_PARAM_RANGE, { argument: `${name}.${key}` });
  return v;
}

/** options[key] (or def) as an integer in [min, max]; name: what the options are called in messages. */
export function integer(o, key, def, min, max, where, name = 'options') {
  return number(o, key, def, (v) => Number.isInteger(v) && v >= min && v <= max, `must be an integer in [${min}, ${max}]`, where, name);
}

/** options[key] (or def), one of the names in `names`: its index. */
export function choice(o, key, names, def, where) {
  const v = o[key] ?? def;
  const i = names.indexOf(v);
  if (i < 0)
    throw new SoftscopeError(`${where}: options.${key} = ${describe(v)} must be one of ${names.join(', ')}`,
      STATUS.SS_ERR_PARAM_RANGE, { argument: `options.${key}` });
  return i;
}

/** A 64-bit counter word (seed, stream, first): an integer number <= 2^53 or a bigint. */
export function u64(o, key, where) {
  const v = o[key] ?? 0;
  if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 53) return BigInt(v);
  throw new SoftscopeError(`${where}: options.${key} = ${describe(v)} must be an integer in [0, 2^53] (or a bigint < 2^64)`,
    STATUS.SS_ERR_PARAM_RANGE, { argument: `options.${key}` });
}

/** A count argument (n, draws): an integer in [min, max]; 0 below a min of 1 is SS_ERR_EMPTY. */
export function count(v, name, max, where, min = 1) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new SoftscopeError(`${where}: ${name} = ${typeof v === 'number' ? v : describe(v)} must be an integer in [${min}, ${max}]`,
      v === 0 && min > 0 ? STATUS.SS_ERR_EMPTY : STATUS.SS_ERR_PARAM_RANGE, { argument: name });
  return v;
}
