// Entropy, max and support of a normalizer's output, computed by the
// registry's measure kernels (entropy, max_prob, support, sum). A JS fallback
// is used only for a measure the loaded registry does not have, and is marked
// as such in the UI. Weights outputs (not summing to 1, maybe negative) are
// measured as the distribution |w| / sum |w|, as in the dispersion sweep;
// their raw sum is reported too.

const MEASURES = { entropy: 'entropy', max: 'max_prob', support: 'support', sum: 'sum' };

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
  sum(p) {
    let s = 0;
    for (const v of p) s += v;
    return s;
  },
};

/** Which measure kernels the registry has, once per module. */
export function availableMeasures(ss) {
  const names = new Set(ss.kernels('measure').map((k) => k.name));
  return Object.fromEntries(Object.entries(MEASURES).map(([key, name]) => [key, names.has(name)]));
}

/**
 * Probabilities for an output kind: log-probabilities are exponentiated,
 * weights become |w| / sum |w| (left as they are when all are 0).
 */
export function toProbs(kind, y) {
  if (kind === 'weights') {
    let s = 0;
    for (const v of y) s += Math.abs(v);
    return s > 0 ? Float32Array.from(y, (v) => Math.abs(v) / s) : Float32Array.from(y, Math.abs);
  }
  if (kind !== 'log_probs') return y;
  const p = new Float32Array(y.length);
  for (let i = 0; i < y.length; i++) p[i] = Math.exp(y[i]);
  return p;
}

/**
 * { entropy, max, argmax, support, sum, negative } for output y of kind
 * `kind`; the measured entries are { value, source: 'kernel' | 'js', error? }.
 * sum is of the raw output (weights) or of the probabilities; max and argmax
 * are of the raw weights for weights outputs; negative counts w_i < 0.
 */
export function computeMetrics(ss, have, kind, y) {
  const p = toProbs(kind, y);
  const raw = kind === 'weights' ? y : p;
  const out = {};
  for (const [key, name] of Object.entries(MEASURES)) {
    const v = key === 'sum' || (key === 'max' && kind === 'weights') ? raw : p;
    if (key === 'max' && kind === 'weights') {
      // max_prob reads probabilities; the largest raw weight is what is drawn.
      out[key] = { value: fallback.max(v), source: 'js-raw' };
    } else if (have[key]) {
      try {
        out[key] = { value: ss.measure(name, v), source: 'kernel' };
      } catch (e) {
        out[key] = { value: NaN, source: 'kernel', error: e.message };
      }
    } else {
      out[key] = { value: fallback[key](v), source: 'js' };
    }
  }
  let am = 0;
  for (let i = 1; i < raw.length; i++) if (raw[i] > raw[am]) am = i;
  out.argmax = am;
  let neg = 0;
  for (const w of y) if (w < 0) neg++;
  out.negative = kind === 'weights' ? neg : 0;
  return out;
}
