// The optimizers panel's logic, kept out of the component so it can be
// tested without a browser: the heat map of a test function (banded, so the
// bands read as contour lines), the runs (one trajectory runner per chosen
// optimizer, all from the same start, with the same noise), and the
// conversion between canvas pixels and function coordinates.
import { heatRgb, heatValue } from '../../../wasm/optim-svg.js';
import { nearestMinimum } from '../../../wasm/optim-calls.js';

export const PLOT = 480; // canvas size in CSS pixels
export const BANDS = 18; // heat-map bands (contour look)

/** The registry's test function named fn, or the first. */
export function functionInfo(ss, name) {
  return ss.functions.find((f) => f.name === name) ?? ss.functions[0];
}

/** The known optimizers among names (unknown ones dropped, at most max). */
export function validList(ss, names, max = 8) {
  const known = new Set(ss.kernels('optimizer').map((k) => k.name));
  return names.filter((n) => known.has(n)).slice(0, max);
}

/** Pixel <-> function coordinates over fn's view on a size x size plot. */
export function viewMap(fn, size = PLOT) {
  const [x0, x1, y0, y1] = fn.view;
  return {
    toPx: (x, y) => [((x - x0) / (x1 - x0)) * size, size - ((y - y0) / (y1 - y0)) * size],
    toXY: (px, py) => [x0 + (px / size) * (x1 - x0), y0 + ((size - py) / size) * (y1 - y0)],
  };
}

/** RGBA pixels (cells x cells, row 0 at the top) of fn's banded heat map. */
export function heatPixels(ss, fn, cells = 160) {
  const grid = ss.functionGrid(fn.name, { nx: cells, ny: cells });
  const hv = Array.from(grid, (f) => heatValue(fn, f));
  let lo = Infinity, hi = -Infinity;
  for (const v of hv) if (Number.isFinite(v)) lo = Math.min(lo, v), hi = Math.max(hi, v);
  const px = new Uint8ClampedArray(cells * cells * 4);
  for (let j = 0; j < cells; j++)
    for (let i = 0; i < cells; i++) {
      const t = Math.floor(((hv[j * cells + i] - lo) / (hi - lo || 1)) * BANDS) / BANDS;
      const [r, g, b] = heatRgb(Math.min(1, t));
      const o = ((cells - 1 - j) * cells + i) * 4; // grid row j is y_j: flip so y grows upwards
      px[o] = r, px[o + 1] = g, px[o + 2] = b, px[o + 3] = 255;
    }
  return { cells, px, lo, hi };
}

/** The params of optimizer `name`: the panel's overrides over the registry defaults. */
export function optimizerParams(kernel, overrides = {}) {
  const out = {};
  for (const p of kernel.params) out[p.name] = Number.isFinite(overrides[p.name]) ? overrides[p.name] : p.default;
  return out;
}

/** One run per chosen optimizer: { name, runner, path: [[x, y, f], ...] }. */
export function makeRuns(ss, o, fn) {
  const start = o.start ?? fn.start;
  return validList(ss, o.list).map((name) => {
    const runner = ss.trajectoryRunner({
      optimizer: name, fn: fn.name, start, steps: o.steps, total: o.steps, noise: o.noise, clip: o.clip,
      seed: o.seed, schedule: o.schedule, warmup: o.warmup, params: optimizerParams(ss.kernel(name, 'optimizer'), o.params[name]),
    });
    return { name, runner, path: [runner.start] };
  });
}

/** Advance every run by up to k steps (not past `steps`); true while any can go on. */
export function advanceRuns(runs, k, steps) {
  let more = false;
  for (const r of runs) {
    const left = steps - (r.path.length - 1);
    if (left <= 0 || r.runner.diverged) continue;
    for (const p of r.runner.advance(Math.min(k, left))) r.path.push(p);
    if (!r.runner.diverged && r.path.length - 1 < steps) more = true;
  }
  return more;
}

/** The nearest known minimum's distance from the run's last point. */
export function runSummary(fn, run) {
  const [x, y, f] = run.path[run.path.length - 1];
  return { step: run.path.length - 1, x, y, f, distance: nearestMinimum(fn, x, y).distance, diverged: !!run.runner.diverged };
}
