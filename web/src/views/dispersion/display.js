// What the dispersion charts draw while a sweep is still running: the new
// values where they are computed, and the previous run's values (same
// normalizer, same n) elsewhere, drawn faded. So a margin drag moves the
// curves from small n to large n instead of blanking them every frame.

export const METRICS = ['keyProb', 'maxProb', 'entropy', 'support', 'sum'];

/**
 * progress: { result, done } from startSweep (cells are n-major: cell
 * j * S + s is series s at result.n[j]). prev: the previous display or null.
 * Returns { n, series: [{ name, output, params, fresh, keyProb, ... }] }
 * where `fresh` is how many leading points are from this run.
 */
export function mergeDisplay(prev, { result, done }) {
  const S = result.series.length;
  const prevIndex = prev ? new Map(prev.n.map((n, j) => [n, j])) : null;
  const series = result.series.map((s, si) => {
    const old = prev?.series.find((p) => p.name === s.name);
    const out = { name: s.name, output: s.output, params: s.params, errors: s.errors, fresh: 0 };
    for (const f of METRICS) out[f] = new Array(result.n.length);
    result.n.forEach((n, j) => {
      const computed = j * S + si < done;
      if (computed) out.fresh = j + 1;
      const pj = old ? prevIndex.get(n) : undefined;
      for (const f of METRICS) out[f][j] = computed ? s[f][j] : pj === undefined ? NaN : old[f][pj];
    });
    return out;
  });
  return { n: result.n, series };
}

/** [lo, hi] over the finite values of some metrics of every series. */
export function extentOf(display, metrics) {
  let lo = Infinity, hi = -Infinity;
  for (const s of display.series) for (const m of metrics) for (const v of s[m]) {
    if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
  }
  return lo <= hi ? [lo, hi] : null;
}

/** The grid index nearest to n on a log axis. */
export function nearestIndex(ns, n) {
  let best = 0;
  for (let j = 1; j < ns.length; j++) if (Math.abs(Math.log(ns[j] / n)) < Math.abs(Math.log(ns[best] / n))) best = j;
  return best;
}
