// A normalizer's output read as a distribution, by one rule everywhere (the
// CLI's metrics, every view, the dispersion sweep):
//   probs      as it is;
//   log_probs  exp(y);
//   weights    |w| / sum |w| (weights need not sum to 1 and may be negative,
//              e.g. softpick, sa_softmax; all zero stays all zero).
// The metrics are computed by the registry's measure kernels on that
// distribution; the sum is of the output itself.

/** The distribution of output y of kind `kind` (a new Float32Array unless kind is probs). */
export function toDistribution(kind, y) {
  if (kind === 'log_probs') return Float32Array.from(y, Math.exp);
  if (kind === 'weights') {
    let s = 0;
    for (const v of y) s += Math.abs(v);
    return Float32Array.from(y, (v) => (s > 0 ? Math.abs(v) / s : 0));
  }
  return y instanceof Float32Array ? y : Float32Array.from(y);
}

/** The index of the largest value (the first of ties). */
export function argmax(y) {
  let a = 0;
  for (let i = 1; i < y.length; i++) if (y[i] > y[a]) a = i;
  return a;
}

/**
 * { entropy (nats), max, argmax, support, sum, negative } of output y: entropy,
 * support and max by the measure kernels on the distribution (for weights,
 * max and argmax are those of the raw weights, what a chart shows); sum of y
 * itself (of exp(y) for log-probabilities); negative counts y_i < 0.
 */
export function outputMetrics(ss, kind, y) {
  const p = toDistribution(kind, y);
  const raw = kind === 'weights' ? Float32Array.from(y) : p;
  let negative = 0;
  for (const v of y) if (v < 0) negative++;
  const am = argmax(raw);
  const allZero = kind === 'weights' && !p.some((v) => v > 0);
  return {
    entropy: allZero ? NaN : ss.measure('entropy', p),
    max: kind === 'weights' ? raw[am] : ss.measure('max_prob', p),
    argmax: am,
    support: ss.measure('support', p),
    sum: ss.measure('sum', raw),
    negative: kind === 'weights' ? negative : 0,
  };
}
