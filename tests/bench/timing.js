// Side-by-side timing: every candidate doing the same work (softscope's
// builds, the peers, plain JavaScript, memcpy) is timed in interleaved
// rounds in this one process -- round r times candidate 1, 2, ..., k for
// about roundMs each, in an order rotated by r -- and reports the median
// over rounds, so slow drift (other processes, thermal) hits every
// candidate alike.
//
// Clock: `cpu` (default) is the process's CPU time (user + system, all
// threads): on a shared machine the time this process waits for a core is
// not counted, and the work of a peer's worker thread (onnxruntime-node) is.
// `wall` is hrtime. Every candidate runs single-threaded (tfjs-wasm without
// threads, onnxruntime with one intra-op thread).
//
// A candidate's fn may return a promise (onnxruntime's run): it is awaited.
// The rounds themselves are wasm/analysis/race.js, which the playground's
// Performance view runs too.
import { race as raceWith } from '../../wasm/analysis/race.js';

// In a page (`make bench-browser`) there is no process: the wall clock is
// performance.now() and there is no CPU clock.
const inNode = typeof process !== 'undefined' && !!process.hrtime;
const wallNs = inNode ? () => Number(process.hrtime.bigint()) : () => performance.now() * 1e6;
const cpuNs = inNode ? () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
} : null;
export const CLOCKS = { cpu: cpuNs, wall: wallNs };

export function settings(quick) {
  return quick
    ? { rounds: 3, roundMs: 15, warmupMs: 10, minCalls: 2 }
    : { rounds: 7, roundMs: 60, warmupMs: 40, minCalls: 3 };
}

/**
 * cands: [{ id, fn }] (fn does the work for `units` elements once).
 * Returns Map id -> { ns_per_elem (median), min, max, rounds: [...], reps }.
 */
export const race = (cands, units, st, clock = 'cpu') => {
  if (!CLOCKS[clock]) throw new Error(`bench: no ${clock} clock in this engine`);
  return raceWith(cands, units, st, CLOCKS[clock]);
};
