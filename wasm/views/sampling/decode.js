// The Sampling view's decoding: the pipeline itself is analysis/decoding.js
// (shared with a language model's generation); the rank plot and the
// distance of the draws are the view's.
export { runPipeline, nBound, countNonzero, message } from '../../analysis/decoding.js';

/** Token ids by decreasing logit (ties: smaller id first): the rank order of every stage's distribution. */
export function rankOrder(x) {
  const idx = new Uint32Array(x.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  return idx.sort((a, b) => x[b] - x[a] || a - b);
}

/**
 * The rank plot, aggregated into at most ~`bins` groups of consecutive ranks
 * (geometric edges: the first ranks alone, the tail in wide groups): per group
 * the mean base and final probability per token, the mean empirical
 * frequency, the fraction kept, and the rank range [r0, r1] (1-based).
 */
export function rankBins(order, base, final, counts, done, bins = 160) {
  const n = order.length;
  const out = [];
  let start = 0;
  for (let j = 1; start < n; j++) {
    const end = Math.min(n, Math.max(start + 1, Math.round(n ** (j / bins))));
    let b = 0, f = 0, e = 0, k = 0;
    for (let r = start; r < end; r++) {
      const i = order[r];
      b += base[i];
      f += final[i];
      if (final[i] > 0) k++;
      if (counts) e += counts[i];
    }
    const m = end - start;
    out.push({ r0: start + 1, r1: end, base: b / m, final: f / m, kept: k / m, emp: done > 0 ? e / done / m : NaN });
    start = end;
  }
  return out;
}

/** Total-variation distance between draw counts (out of done) and p. */
export function tvDistance(counts, done, p) {
  if (!done) return NaN;
  let s = 0;
  for (let i = 0; i < p.length; i++) s += Math.abs(counts[i] / done - p[i]);
  return s / 2;
}
