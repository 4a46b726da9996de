// Limits a caller can put on the long calls (estimatorStats, vqTrain): the C
// call is synchronous, so what can be bounded is whether it starts.
//   options.signal   an AbortSignal: aborted when the call starts, it throws
//                    an Error named 'AbortError' naming options.signal (so a
//                    loop of calls stops at the next one)
//   options.maxWork  a work budget in the call's own unit (estimatorStats:
//                    samples * n; vqTrain: nvec * k * dim * (iters + 1)):
//                    a call over it throws SS_ERR_TOO_LARGE naming
//                    options.maxWork before any work
// To stop a call that is running, run it in a Worker and terminate() it
// (docs/guide/js-api.md, "Long calls").
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';

// The intrinsic getter: reading it runs no user code (a subclass or a proxy
// cannot answer for it), and it throws on anything that is not an AbortSignal.
// Found on the prototype chain (an environment's own AbortSignal, such as a
// test DOM's, may define it on a parent class); none: no signal is accepted.
const ABORTED = (() => {
  for (let p = typeof AbortSignal === 'function' ? AbortSignal.prototype : null; p; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, 'aborted');
    if (d?.get) return d.get;
  }
  return null;
})();

function isSignal(v) {
  if (!ABORTED || v === null || typeof v !== 'object') return false;
  try { ABORTED.call(v); return true; } catch { return false; }
}

/** Reads options.signal and options.maxWork (o from args.options) into plain
 *  values, checked: { signal: AbortSignal | null, maxWork: number }. */
export function limits(o, where) {
  const signal = o.signal ?? null;
  if (signal !== null && !isSignal(signal))
    throw new SoftscopeTypeError(`${where}: options.signal must be an AbortSignal (got ${describe(signal)})`, { argument: 'options.signal' });
  const maxWork = o.maxWork ?? Infinity;
  if (typeof maxWork !== 'number' || !(maxWork > 0))
    throw new SoftscopeError(`${where}: options.maxWork = ${describe(maxWork)} must be a number > 0 (Infinity: no budget)`,
      STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.maxWork' });
  return { signal, maxWork };
}

/** Throws when the call may not start: its signal is aborted (an Error named
 *  'AbortError'), or `work` (in the call's unit, said by `unit`) is over the
 *  budget (SS_ERR_TOO_LARGE). */
export function mayStart({ signal, maxWork }, work, unit, where) {
  if (signal && ABORTED.call(signal)) {
    const e = new Error(`${where}: options.signal is aborted; the call did not start`);
    e.name = 'AbortError';
    e.code = 'ABORT_ERR';
    e.argument = 'options.signal';
    throw e;
  }
  if (work > maxWork)
    throw new SoftscopeError(`${where}: the call is ${work} units of work (${unit}), over options.maxWork = ${maxWork}`,
      STATUS.SS_ERR_TOO_LARGE, { argument: 'options.maxWork' });
}
