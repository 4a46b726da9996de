// Entropy, max and support of a normalizer's output, computed by the
// registry's measure kernels (entropy, max_prob, support). A JS fallback is
// used only for a measure the loaded registry does not have, and is marked as
// such in the UI.

const MEASURES = { entropy: 'entropy', max: 'max_prob', support: 'support' };

const fallback = {
  entropy(p) {
    let h = 0;
    for (const v of p) if (v > 0) h -= v * Math.log(v);
    return h;
  },
  max(p) {
    let m = -Infinity;
    for (const v of p) if (v > m) m = v;
    return m;
  },
  support(p) {
    let c = 0;
    for (const v of p) if (v !== 0) c++;
    return c;
  },
};

/** Which measure kernels the registry has, once per module. */
export function availableMeasures(ss) {
  const names = new Set(ss.kernels('measure').map((k) => k.name));
  return Object.fromEntries(Object.entries(MEASURES).map(([key, name]) => [key, names.has(name)]));
}

/** Probabilities for an output kind: log-probabilities are exponentiated. */
export function toProbs(kind, y) {
  if (kind !== 'log_probs') return y;
  const p = new Float32Array(y.length);
  for (let i = 0; i < y.length; i++) p[i] = Math.exp(y[i]);
  return p;
}

/**
 * { entropy, max, argmax, support } for output y of kind `kind`; each entry
 * is { value, source: 'kernel' | 'js', error? }.
 */
export function computeMetrics(ss, have, kind, y) {
  const p = toProbs(kind, y);
  const out = {};
  for (const [key, name] of Object.entries(MEASURES)) {
    if (have[key]) {
      try {
        out[key] = { value: ss.measure(name, p), source: 'kernel' };
      } catch (e) {
        out[key] = { value: NaN, source: 'kernel', error: e.message };
      }
    } else {
      out[key] = { value: fallback[key](p), source: 'js' };
    }
  }
  let am = 0;
  for (let i = 1; i < p.length; i++) if (p[i] > p[am]) am = i;
  out.argmax = am;
  return out;
}
