// Errors of the JS API. Every error softscope throws names the function, the
// kernel and the argument, and carries the C status it corresponds to
// (`.status`, a number from core/include/softscope.h, and `.code`, its name),
// so callers can branch on the code and people can read the message.
import REGISTRY from '../dist/registry.js';

/** The C statuses by name ({ SS_OK: 0, SS_ERR_NULL: 1, ... }), from the
 *  registry of the C library (generated at build time: scripts/gen-registry.js). */
export const STATUS = Object.freeze(Object.fromEntries(REGISTRY.statuses.map((s) => [s.code, s.value])));

const CODE_OF = Object.fromEntries(Object.entries(STATUS).map(([k, v]) => [v, k]));

/** The status name for a number, e.g. 4 -> 'SS_ERR_NAN'. */
export function statusCode(status) {
  return CODE_OF[status] ?? `SS_STATUS_${status}`;
}

/** An error from a softscope call: `.status` (C status) and `.code` (its name). */
export class SoftscopeError extends Error {
  constructor(message, status, extra) {
    super(message);
    this.name = 'SoftscopeError';
    this.status = status;
    this.code = statusCode(status);
    if (extra) Object.assign(this, extra);
  }
}

/** A wrong argument type (plain Array, Int32Array, string...). Not a C status:
    `.status` is null and `.code` is 'SS_ERR_TYPE'. */
export class SoftscopeTypeError extends TypeError {
  constructor(message, extra) {
    super(message);
    this.name = 'SoftscopeTypeError';
    this.status = null;
    this.code = 'SS_ERR_TYPE';
    if (extra) Object.assign(this, extra);
  }
}

/** The wasm module trapped (a RuntimeError: out-of-bounds access,
    unreachable, ...). That is a softscope bug, not bad input: `.status` is
    null, `.code` 'SS_TRAP', `.cause` the RuntimeError. The instance has been
    re-created by then (see Softscope.reset). */
export class SoftscopeTrapError extends Error {
  constructor(message, cause) {
    super(message, { cause });
    this.name = 'SoftscopeTrapError';
    this.status = null;
    this.code = 'SS_TRAP';
  }
}

/** A short description of what a value is, for "(got ...)" in messages. */
export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'Array';
  if (typeof v === 'object') return v.constructor?.name ?? 'object';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '...' : v)}`;
  return `${typeof v} ${String(v)}`;
}

/** A number as written in a message: -Infinity, NaN, 1e-7. */
export function fmt(v) {
  return Object.is(v, -0) ? '-0' : String(v);
}

/** A parameter's valid range in interval notation, e.g. (0, 1000]. */
export function rangeText(p) {
  const lo = p.min === null ? '-Infinity' : fmt(p.min);
  const hi = p.max === null ? 'Infinity' : fmt(p.max);
  return `${p.min_open || p.min === null ? '(' : '['}${lo}, ${hi}${p.max_open || p.max === null ? ')' : ']'}`;
}

function firstIndex(a, pred) {
  for (let i = 0; i < a.length; i++) if (pred(a[i])) return i;
  return -1;
}

// Where (if anywhere) an array breaks the rule behind a data status.
// Returns a phrase like "contains NaN (at index 3)" or null.
function findViolation(status, a) {
  switch (status) {
    case STATUS.SS_ERR_NAN: {
      const i = firstIndex(a, Number.isNaN);
      return i < 0 ? null : { i, text: `contains NaN (at index ${i})` };
    }
    case STATUS.SS_ERR_POS_INF: {
      const i = firstIndex(a, (v) => v === Infinity);
      return i < 0 ? null : { i, text: `contains +Inf (at index ${i}); only -Inf, a masked logit, is allowed` };
    }
    case STATUS.SS_ERR_ALL_MASKED:
      return a.length > 0 && firstIndex(a, (v) => v !== -Infinity) < 0
        ? { i: -1, text: 'is all -Inf (every entry masked): nothing to normalize' }
        : null;
    case STATUS.SS_ERR_NONFINITE: {
      const i = firstIndex(a, (v) => !Number.isFinite(v));
      return i < 0 ? null : { i, text: `contains ${a[i] > 0 ? '+Inf' : '-Inf'} (at index ${i}) where only finite values are allowed` };
    }
    case STATUS.SS_ERR_DOMAIN: {
      const i = firstIndex(a, (v) => v < 0);
      return i < 0 ? null : { i, text: `contains a negative value ${fmt(a[i])} (at index ${i}); it must be a non-negative vector` };
    }
    case STATUS.SS_ERR_EMPTY:
      return a.length === 0 ? { i: -1, text: 'is empty (length 0)' } : null;
    default:
      return null;
  }
}

/**
 * The Error for a non-OK C status of a data-carrying call.
 * `where` is the message prefix (e.g. 'softscope.normalize("softmax")'),
 * `args` the inputs in the order the C code checks them, as
 * [{ name, array, source? }] (`source` = the caller's Float64Array before the
 * float32 conversion, so an overflow to Inf can be explained), `statusStr` the
 * C library's own sentence for statuses no argument explains.
 */
export function statusError(where, status, args, statusStr) {
  for (const a of args) {
    if (!a || !a.array) continue;
    const v = findViolation(status, a.array);
    if (!v) continue;
    let text = `${where}: ${a.name} ${v.text}`;
    if (v.i >= 0 && a.source && Number.isFinite(a.source[v.i]) && !Number.isFinite(a.array[v.i]))
      text += ` (${a.name}[${v.i}] = ${a.source[v.i]} overflows float32)`;
    return new SoftscopeError(text, status, { argument: a.name, index: v.i >= 0 ? v.i : undefined });
  }
  // Nothing in the data explains it (e.g. a kernel-specific domain rule):
  // name the first argument and quote the library's sentence.
  const first = args.find((a) => a && a.array);
  const who = first ? `${first.name}: ` : '';
  return new SoftscopeError(`${where}: ${who}${statusStr} (${statusCode(status)})`, status,
    first ? { argument: first.name } : undefined);
}
