// The Optimizers view's numbers: the heat map of the test function, and a
// race (one trajectory runner of the wasm engine per optimizer, same start,
// same noise) as the view's stepper (start): the playground advances it a
// few steps per animation frame, compute() runs it to the last step.
import { lossValue, lossRange, makeRuns, advanceRuns, runSummary, running, trajectoryMetrics }
  from '../../analysis/trajectories.js';
import { RACE_DEFAULTS, schema } from './schema.js';
import { runKey } from '../../state/run-key.js';
import { kernelParams } from '../../analysis/params.js';
import { finish } from '../stepper.js';

export const HEAT_CELLS = 160;

/** The test function of the state (its registry entry). */
export function functionOf(ss, s) {
  return ss.functions.find((f) => f.name === s.fn) ?? ss.functions[0];
}

/** Hyperparameters of one optimizer in the state: adam.lr=... over the race defaults over the registry's. */
export function paramsOf(ss, s, name) {
  return kernelParams(ss.kernel(name, 'optimizer'), s.params, { scoped: true, defaults: RACE_DEFAULTS[name] });
}

// The heat map of a function: f on a grid (row j is y_j, bottom row first),
// once per function and instance. The figure draws log(1 + f − f*) of it
// (heatShown in figures/optimizers.js): a transform for display, done where it is drawn, so the
// numbers here are the kernel's, the same in every engine.
const HEAT = new WeakMap();
export function heatOf(ss, fn, cells = HEAT_CELLS) {
  if (!HEAT.has(ss)) HEAT.set(ss, new Map());
  const cache = HEAT.get(ss), key = `${fn.name}:${cells}`;
  if (!cache.has(key)) {
    const grid = ss.functionGrid(fn.name, { nx: cells, ny: cells });
    const values = Array.from(grid);
    let lo = Infinity, hi = -Infinity;
    for (const v of values) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    cache.set(key, { nx: cells, ny: cells, view: fn.view, values, lo, hi, fmin: fn.fmin, label: fn.game ? 'f' : 'f − f*', log1p: !fn.game });
  }
  return cache.get(key);
}

/** A race for the state, at step 0: { fn, start, steps, runs, heat }. */
export function startRace(ss, s) {
  const fn = functionOf(ss, s);
  const start = s.start ?? fn.start;
  const runs = makeRuns(ss, {
    fn: fn.name, start, steps: s.steps, noise: s.noise, clip: s.clip, seed: s.seed, schedule: s.schedule, warmup: s.warmup,
    optimizers: s.kernels.map((name) => ({ name, params: paramsOf(ss, s, name) })),
  });
  return { fn, start, steps: s.steps, schedule: s.schedule, noise: s.noise, clip: s.clip, runs, heat: heatOf(ss, fn) };
}

/** Advance every run of the race by up to k steps; true while any can go on. */
export function advanceRace(race, k) {
  return advanceRuns(race.runs, k, race.steps);
}

/** Whether every run has stopped (last step, diverged or an error). */
export function raceOver(race) {
  return race.runs.every((r) => !running(r, race.steps));
}

/**
 * The race's numbers as they stand: { fn, start, steps, step, heat,
 * loss: { log, domain, label }, runs: [{ name, params, path, step, x, y, f,
 * distance, diverged, divergedAt, offAxisAt, error, metrics }] }.
 */
export function raceData(race) {
  const { fn } = race;
  const loss = { ...lossRange(fn, race.runs.map((r) => r.path)), label: fn.game ? 'f (0 at the equilibrium)' : 'f − f*' };
  const [lo, hi] = loss.domain;
  const off = (v) => !Number.isFinite(v) || v > hi + 1e-9 * Math.abs(hi) || (!loss.log && v < lo - 1e-9 * Math.abs(lo));
  const runs = race.runs.map((r) => {
    const sum = runSummary(fn, r);
    let offAxisAt = null;
    for (let i = 0; i < r.path.length; i++) if (off(lossValue(fn, r.path[i][2]))) { offAxisAt = i; break; }
    return {
      name: r.name, params: r.params, path: r.path, ...sum,
      divergedAt: sum.diverged ? sum.step : null, offAxisAt, error: r.error ?? null,
      metrics: trajectoryMetrics(fn, r.path, race.steps),
    };
  });
  const info = { name: fn.name, formula: fn.formula, summary: fn.summary, view: fn.view, minima: fn.minima, fmin: fn.fmin, game: !!fn.game };
  return {
    fn: info, start: race.start, steps: race.steps, schedule: race.schedule, noise: race.noise, clip: race.clip,
    step: runs.reduce((m, r) => Math.max(m, r.step), 0), heat: race.heat, loss, runs,
  };
}

// What the race's numbers depend on: every key but the display fields (the
// pace, the optimizer whose hyperparameters are shown); a change starts a new
// race (the hyperparameters too: a race whose lr changed at step 150 is not
// the race of its link, which `softscope figure` would compute from step 0).

/**
 * The race as a stepper (wasm/views/stepper.js). Its pace is counted, not
 * timed: a step is `speed` steps of every optimizer (step(Infinity): to the
 * last step), advance(k) k steps (the playground's Step button). A new state
 * is taken in place only when the speed or the shown optimizer changed;
 * any other change starts over, so the race always is its state's.
 */
export function start(ss, s) {
  const race = startRace(ss, s);
  let cur = s;
  return {
    step: (budgetMs = Infinity) => advanceRace(race, budgetMs === Infinity ? race.steps : cur.speed),
    advance: (k) => advanceRace(race, k),
    over: () => raceOver(race),
    data: () => raceData(race),
    update(t) {
      if (runKey(schema, t) !== runKey(schema, cur)) return false;
      cur = t;
      return true;
    },
  };
}

/** Headless: the race run to its last step. */
export const compute = (ss, s) => finish(start(ss, s));

/** The paths as a table (CSV): one row per (optimizer, step). */
export function table(d) {
  const rows = [];
  for (const r of d.runs) r.path.forEach(([x, y, f], i) => rows.push([r.name, i, x, y, f]));
  return { columns: ['optimizer', 'step', 'x', 'y', 'f'], rows };
}
