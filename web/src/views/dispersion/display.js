// What the dispersion charts draw while a sweep is still running: the new
// values where they are computed, and the previous run's values (same
// normalizer, same n) elsewhere, drawn faded. So a margin drag moves the
// curves from small n to large n instead of blanking them every frame.

export const METRICS = ['keyProb', 'maxProb', 'entropy', 'support', 'sum'];

/**
 * data: the view stepper's data() (compute's shape; series s is computed at
 * its first s.fresh n). prev: the previous display or null. Returns { n,
 * series: [{ name, output, params, errors, fresh, keyProb, ... }] }: this
 * run's values where computed, the previous run's (same normalizer, same n)
 * elsewhere.
 */
export function mergeDisplay(prev, data) {
  const prevIndex = prev ? new Map(prev.n.map((n, j) => [n, j])) : null;
  const series = data.series.map((s) => {
    const old = prev?.series.find((p) => p.name === s.name);
    const out = { name: s.name, output: s.output, params: s.params, errors: s.errors, fresh: s.fresh };
    for (const f of METRICS) out[f] = new Array(data.n.length);
    data.n.forEach((n, j) => {
      const computed = j < s.fresh;
      const pj = old ? prevIndex.get(n) : undefined;
      for (const f of METRICS) out[f][j] = computed ? s[f][j] : pj === undefined ? NaN : old[f][pj];
    });
    return out;
  });
  return { n: data.n, series };
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
