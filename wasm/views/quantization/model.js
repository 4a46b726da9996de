// The Quantization view's numbers: the values (seeded), the scheme's output
// on them with the error measures the CLI reports (analysis/quant-metrics.js),
// the histogram of the values and the levels the output lands on, and the
// effect on a softmax output: for probability values the probabilities are
// quantized and renormalized; for weights the view's logits are quantized
// before the softmax. A scheme's error (a parameter C rejects for this input)
// is kept where it happens: the histogram still shows the values. With
// AdaRound, a layer of the first values is rounded both ways (layerRounding).
import { rng, normal } from '../../analysis/random.js';
import { quantMetrics } from '../../analysis/quant-metrics.js';
import { argmax } from '../../analysis/distribution.js';
import { SOURCES, schemeKernel, learnsLayer } from './schema.js';

export const BINS = 64;
export const EFFECT_MAX = 64; // entries drawn for the softmax effect: the largest before
const message = (e) => String(e?.message ?? e).replace(/^[^:]*: /, '');

/** The values of a source: a Float32Array (probability sources sum to 1). */
export function sourceValues(ss, { source, n, seed, logits }) {
  if (source === 'softmax') return ss.normalize('softmax', Float32Array.from(logits));
  const next = rng(seed);
  const x = new Float32Array(n);
  if (source === 'attention') {
    for (let i = 0; i < n; i++) x[i] = 2.5 * normal(next);
    return ss.normalize('softmax', x);
  }
  for (let i = 0; i < n; i++) {
    // t with 4 dof = z / sqrt(chi2_4 / 4): outliers as real weights have.
    let c = 0;
    for (let j = 0; j < 4; j++) c += normal(next) ** 2;
    x[i] = normal(next) / Math.sqrt(c / 4);
  }
  return x;
}

/** Histogram of x over `bins` equal bins spanning [lo, hi] (of log10 x, for x > 0, when log). */
export function histogram(x, bins, log = false) {
  const v = log ? Array.from(x, (a) => (a > 0 ? Math.log10(a) : NaN)).filter(Number.isFinite) : Array.from(x);
  let lo = Infinity, hi = -Infinity;
  for (const a of v) { if (a < lo) lo = a; if (a > hi) hi = a; }
  if (!(hi > lo)) hi = (Number.isFinite(lo) ? lo : (lo = 0)) + 1;
  const counts = new Array(bins).fill(0);
  for (const a of v) counts[Math.min(bins - 1, Math.floor(((a - lo) / (hi - lo)) * bins))]++;
  return { lo, hi, counts, zeros: x.length - v.length, log };
}

/** The distinct values of the dequantized output, ascending, with how many values landed on each. */
export function levels(y) {
  const m = new Map();
  for (const v of y) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
}

/** The scheme's parameters: the registry defaults, the state's values, and the view's seed for a seed parameter. */
export function schemeParams(k, values, seed) {
  const out = {};
  for (const p of k.params) out[p.name] = p.name === 'seed' ? seed : Number.isFinite(values[p.name]) ? values[p.name] : p.default;
  return out;
}

/**
 * The effect on a softmax output: { where: 'post' | 'pre', before, after,
 * kl (KL(before ‖ after) by the measure kernel: Infinity when after drops an
 * entry before has), argmaxKept, zeros
 * (entries of before > 0 that after rounds to 0) } or { where, error }.
 */
export function softmaxEffect(ss, scheme, params, x, isProbs, logits) {
  const where = isProbs ? 'post' : 'pre';
  try {
    let before, after;
    if (isProbs) {
      const q = ss.quantize(scheme, x, params).output;
      let s = 0;
      for (const v of q) s += Math.max(0, v);
      before = x;
      after = Float32Array.from(q, (v) => (s > 0 ? Math.max(0, v) / s : 0));
    } else {
      const z = Float32Array.from(logits);
      before = ss.normalize('softmax', z);
      after = ss.normalize('softmax', ss.quantize(scheme, z, params).output);
    }
    let zeros = 0;
    for (let i = 0; i < before.length; i++) if (before[i] > 0 && !(after[i] > 0)) zeros++;
    const kl = ss.measure('kl_divergence', before, after);
    return { where, before, after, kl, argmaxKept: argmax(before) === argmax(after), zeros };
  } catch (e) {
    return { where, error: message(e) };
  }
}

/**
 * AdaRound against nearest rounding on a layer W: the first `rows` x cols of
 * the values (rows clipped to what they hold), calibration inputs drawn
 * under the scheme's seed (ss.adaround). { rows, cols, batch, corr, w, frac
 * (w/s - floor(w/s): where each weight lies between its two levels), flip
 * (+1: AdaRound rounds up where nearest rounds down, -1 the reverse, 0 the
 * same), err, errNearest (|W X - W~ X|^2 of each), gain (1 - err /
 * errNearest), flipped, soft, scale, zero } or { error }.
 */
export function layerRounding(ss, x, params, rowsWanted) {
  const { cols, batch, corr, seed } = params;
  const rows = Math.min(rowsWanted, Math.floor(x.length / cols));
  if (rows < 1) return { error: `cols = ${cols} is more than the ${x.length} values` };
  const w = x.subarray(0, rows * cols);
  let r;
  try {
    r = ss.adaround(w, { rows, cols, batch, corr, seed, bits: params.bits, symmetric: params.symmetric, iters: params.iters, lambda: params.lambda, lr: params.lr });
  } catch (e) {
    return { error: message(e) };
  }
  return {
    rows, cols, batch, corr, w: Array.from(w),
    frac: Array.from(w, (v) => v / r.scale - Math.floor(v / r.scale)),
    flip: Array.from(r.codes, (c, i) => Math.sign(c - r.nearest[i])),
    err: r.err, errNearest: r.errNearest, gain: r.errNearest > 0 ? 1 - r.err / r.errNearest : 0,
    flipped: r.flipped, soft: r.soft, scale: r.scale, zero: r.zero,
  };
}

/** Every number the figure shows for a state. */
export function compute(ss, s) {
  const k = schemeKernel(ss, s);
  const x = sourceValues(ss, s);
  const isProbs = s.source !== 'weights';
  const log = isProbs && s.log;
  const params = schemeParams(k, s.params, s.seed);
  const out = {
    scheme: k.name, summary: k.summary, formula: k.formula, params,
    // each parameter with its choice's name (rounding = nearest), for the figure's title
    paramsShown: k.params.map((p) => ({ name: p.name, value: params[p.name], choice: p.choices?.[params[p.name] - p.min] ?? null })),
    source: s.source, sourceLabel: SOURCES[s.source], n: x.length, log,
    hist: histogram(x, BINS, log),
    levels: null, metrics: null, error: null,
  };
  try {
    const y = ss.quantize(k.name, x, params).output;
    const m = quantMetrics(x, y);
    out.levels = levels(y);
    out.metrics = { mse: m.mse, max_error: m.max_error, sqnr_db: m.sqnr_db ?? Infinity, levels: out.levels.length };
  } catch (e) {
    out.error = message(e);
  }
  if (learnsLayer(s)) out.layer = layerRounding(ss, x, params, s.rows);
  const ef = softmaxEffect(ss, k.name, params, x, isProbs, s.logits);
  if (ef.error) out.effect = ef;
  else {
    // The largest entries of before, in index order (the ones that matter).
    const m = Math.min(EFFECT_MAX, ef.before.length);
    const idx = Array.from(ef.before.keys()).sort((a, b) => ef.before[b] - ef.before[a] || a - b).slice(0, m).sort((a, b) => a - b);
    out.effect = { where: ef.where, total: ef.before.length, index: idx, before: idx.map((i) => ef.before[i]), after: idx.map((i) => ef.after[i]),
      kl: ef.kl, argmaxKept: ef.argmaxKept, zeros: ef.zeros };
  }
  return out;
}

/** The numbers as a long table (CSV): series, x, y. */
export function table(d) {
  const rows = [];
  const w = (d.hist.hi - d.hist.lo) / d.hist.counts.length;
  d.hist.counts.forEach((c, i) => {
    const mid = d.hist.lo + (i + 0.5) * w;
    rows.push(['bin', d.log ? 10 ** mid : mid, c]);
  });
  for (const l of d.levels ?? []) rows.push(['level', l.value, l.count]);
  for (const [k, v] of Object.entries(d.metrics ?? {})) rows.push([k, '', v]);
  const L = d.layer;
  if (L && !L.error) {
    L.w.forEach((w, i) => rows.push(['layer_weight', i, w], ['layer_flip', i, L.flip[i]]));
    rows.push(['layer_error', '', L.err], ['layer_error_nearest', '', L.errNearest]);
  }
  const e = d.effect;
  if (!e.error) {
    e.index.forEach((i, j) => rows.push(['before', i, e.before[j]], ['after', i, e.after[j]]));
    rows.push(['kl', '', e.kl], ['argmax_kept', '', e.argmaxKept ? 1 : 0]);
  }
  return { columns: ['series', 'x', 'y'], rows };
}
