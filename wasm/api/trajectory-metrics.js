// The measures of an optimizer's path on a 2-D test function: how far it
// ends from the function's known minima, its best and final f. The API's
// ss.trajectory returns them; the CLI, the Optimizers view and its figure
// read them through analysis/trajectories.js.

/** The nearest known minimum (or equilibrium) of fn to (x, y). */
export function nearestMinimum(fn, x, y) {
  let best = null, d = Infinity;
  for (const m of fn.minima) {
    const dm = Math.hypot(x - m[0], y - m[1]);
    if (dm < d) d = dm, best = m;
  }
  return { minimum: best, distance: d };
}

/** Measures of a path [[x, y, f], ...] (the start first) on fn. */
export function trajectoryMetrics(fn, output, requested) {
  let best = Infinity;
  for (const p of output) best = Math.min(best, p[2]);
  return summaryMetrics(fn, { steps: output.length - 1, last: output[output.length - 1], best }, requested);
}

/** The same measures from a summary of the path, for a run streamed rather
 *  than kept: { steps taken, last point [x, y, f], best f over every point }. */
export function summaryMetrics(fn, { steps, last, best }, requested) {
  const { minimum, distance } = nearestMinimum(fn, last[0], last[1]);
  return {
    steps,
    diverged: steps < requested,
    final_f: last[2],
    best_f: best,
    f_gap: last[2] - fn.fmin,
    distance,
    nearest_minimum: minimum,
  };
}
