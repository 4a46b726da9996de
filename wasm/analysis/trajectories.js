// Optimizer races on the 2-D test functions, apart from drawing: how far a
// path is from the function's known minima, the measures of a finished run,
// what the heat map shows, and the runs of a race (one trajectory runner per
// optimizer, same start, same noise) advanced frame by frame. Shared by the
// CLI (`softscope optimize`), the Optimizers view and the figures.

// What a finished path measures (the API's ss.trajectory returns it too).
import { nearestMinimum, trajectoryMetrics } from '../api/trajectory-metrics.js';
export { nearestMinimum, trajectoryMetrics };

/** The value the loss plot shows: f − f* (games: f, whose equilibrium has f = 0). */
export function lossValue(fn, f) {
  return fn.game ? f : f - fn.fmin;
}

// An error's message without the call it came from ("softscope.x: ").
const reason = (e) => String(e?.message ?? e).replace(/^softscope\.[^:]*: /, '');

/**
 * One run per optimizer of a race, all from the same start with the same
 * noise: [{ name, params, runner, path: [[x, y, f], ...], error? }].
 * race: { fn (a test function's name), start, optimizers: [{ name, params }],
 * steps, noise, clip, seed, schedule, warmup }. An optimizer whose
 * hyperparameters the kernel rejects gets `error` (the kernel's message)
 * and no runner; the other runs go on.
 */
export function makeRuns(ss, race) {
  const info = ss.functions.find((f) => f.name === race.fn);
  const start = race.start ?? info.start;
  const at = [start[0], start[1], ss.evalFunction(info.name, start[0], start[1]).f];
  return race.optimizers.map(({ name, params }) => {
    try {
      const runner = ss.trajectoryRunner({
        optimizer: name, fn: info.name, start, steps: race.steps, total: race.steps, noise: race.noise, clip: race.clip,
        seed: race.seed, schedule: race.schedule, warmup: race.warmup, params,
      });
      return { name, params, runner, path: [runner.start] };
    } catch (e) {
      return { name, params, runner: null, path: [at], error: reason(e) };
    }
  });
}

/** Whether a run can take another step (not stopped, diverged or at the last step). */
export function running(run, steps) {
  return !!run.runner && !run.error && !run.runner.diverged && run.path.length - 1 < steps;
}

/** Advance every run by up to k steps (not past `steps`); true while any can go on. A run whose step fails stops with its error. */
export function advanceRuns(runs, k, steps) {
  let more = false;
  for (const r of runs) {
    if (!running(r, steps)) continue;
    try {
      for (const p of r.runner.advance(Math.min(k, steps - (r.path.length - 1)))) r.path.push(p);
    } catch (e) {
      r.error = reason(e);
    }
    if (running(r, steps)) more = true;
  }
  return more;
}

/** Where a run stands: { step, x, y, f, distance (to the nearest minimum), diverged }. */
export function runSummary(fn, run) {
  const [x, y, f] = run.path[run.path.length - 1];
  return { step: run.path.length - 1, x, y, f, distance: nearestMinimum(fn, x, y).distance, diverged: !!run.runner?.diverged };
}

/**
 * The range the loss plot shows for paths of a race: f − f* on a log axis
 * from the smallest value (at least 1e-12) to the largest, but at most 1000
 * times the largest start value, so a diverged run (|w| up to 1e12, f up to
 * 1e36 and beyond) does not squash the others; games: f on a linear axis,
 * within 100 times the start's |f| (at least ±1). { log, domain: [lo, hi] }.
 */
export function lossRange(fn, paths) {
  let lo = Infinity, hi = -Infinity, s = 0;
  for (const p of paths) {
    if (!p.length) continue;
    s = Math.max(s, Math.abs(lossValue(fn, p[0][2])));
    for (const q of p) {
      const v = lossValue(fn, q[2]);
      if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    }
  }
  if (fn.game) {
    const cap = 100 * Math.max(1, s);
    lo = Math.max(-cap, Math.min(lo, 0));
    hi = Math.min(cap, Math.max(hi, 0));
    if (!(hi > lo)) { lo = -1; hi = 1; }
    return { log: false, domain: [lo, hi] };
  }
  const floor = 1e-12, cap = 1e3 * Math.max(s, floor);
  lo = Math.max(floor, lo);
  hi = Math.min(cap, hi);
  if (!(hi > lo)) hi = lo * 10;
  return { log: true, domain: [lo, hi] };
}
