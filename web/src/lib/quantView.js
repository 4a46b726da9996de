// What the quantization panel computes, apart from drawing: the values to
// quantize (weights, or a long softmax row like an attention row, or the
// playground's own softmax), the histogram of them, the levels a scheme
// uses, and the effect on a softmax output. Pure functions of their
// arguments (seeded), so a URL redraws the same picture.
import { rng, normal } from './random.js';
import { quantMetrics } from '../../../wasm/quant-metrics.js';

export const QUANT_SOURCES = {
  weights: 'weights (Student t, 4 dof)',
  attention: 'attention row: softmax of N(0, 2.5²)',
  softmax: "softmax of the Normalizers tab",
};
export const QUANT_N = { min: 16, max: 8192, default: 1024 };

/** Values for a source (a Float32Array; probability vectors sum to 1). */
export function quantSource(ss, source, n, seed, logits) {
  const next = rng(seed);
  if (source === 'softmax') return ss.normalize('softmax', Float32Array.from(logits));
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

/** Histogram of x over `bins` equal bins spanning [lo, hi] (log10 of x > 0 when log). */
export function histogram(x, bins, log = false) {
  const v = log ? Array.from(x, (a) => (a > 0 ? Math.log10(a) : NaN)).filter(Number.isFinite) : Array.from(x);
  let lo = Math.min(...v), hi = Math.max(...v);
  if (!(hi > lo)) hi = lo + 1;
  const counts = new Array(bins).fill(0);
  for (const a of v) counts[Math.min(bins - 1, Math.floor(((a - lo) / (hi - lo)) * bins))]++;
  return { lo, hi, counts, zeros: x.length - v.length };
}

/** The distinct values of the dequantized output, ascending, with how many values landed on each. */
export function levels(y) {
  const m = new Map();
  for (const v of y) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
}

/** Quantize x with the scheme, and measure it (quantMetrics: the CLI's measures). */
export function quantizeWithMetrics(ss, scheme, x, params) {
  const { output, codes } = ss.quantize(scheme, x, params);
  return { output, codes, metrics: quantMetrics(x, output) };
}

/**
 * The effect on a softmax output. For a probability source the
 * probabilities themselves are quantized (post-softmax quantization, as in
 * attention); otherwise the logits are quantized before the softmax.
 * Returns { before, after, kl, argmaxKept, where: 'post' | 'pre' }.
 */
export function softmaxEffect(ss, scheme, params, x, isProbs, logits) {
  if (isProbs) {
    const q = ss.quantize(scheme, x, params).output;
    let s = 0;
    for (const v of q) s += Math.max(0, v);
    const after = Float32Array.from(q, (v) => (s > 0 ? Math.max(0, v) / s : 0));
    const m = quantMetrics(x, q);
    return { before: x, after, kl: m.kl, argmaxKept: m.argmax_kept, where: 'post' };
  }
  const z = Float32Array.from(logits);
  const before = ss.normalize('softmax', z);
  const after = ss.normalize('softmax', ss.quantize(scheme, z, params).output);
  let kl = 0, a = 0, b = 0;
  for (let i = 0; i < z.length; i++) {
    if (before[i] > 0) kl += before[i] * Math.log(before[i] / after[i]);
    if (before[i] > before[a]) a = i;
    if (after[i] > after[b]) b = i;
  }
  return { before, after, kl, argmaxKept: a === b, where: 'pre' };
}

/** Parameters of `kernel` that apply to an input of length n (a group must divide n; a VQ codebook fit in n / dim). */
export function fitParams(kernel, params, n) {
  const out = {};
  for (const p of kernel.params) {
    let v = params[p.name];
    if (!Number.isFinite(v)) continue;
    v = Math.min(p.max ?? v, Math.max(p.min ?? v, v));
    out[p.name] = v;
  }
  if (out.group > 0 && n % out.group !== 0) out.group = 0;
  if (kernel.name === 'vq') {
    if (n % (out.dim ?? 1) !== 0) out.dim = 1;
    const nvec = n / (out.dim ?? 1);
    if ((out.codebook ?? 16) > nvec) out.codebook = nvec;
  }
  return out;
}
