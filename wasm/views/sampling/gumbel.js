// The Gumbel-Softmax half of the sampling view: M relaxed samples on three
// classes (softmax((x + g) / τ), points of the triangle), their mean and,
// for one-hot samples (the hard, straight-through variant), how many landed
// on each vertex; and the bias and variance of the gradient estimators the
// library has (ss.enums.estimator) against τ.
import { message } from './decode.js';

// rounded to 12 digits: Math.pow is not correctly rounded, and V8 versions (Node, Chromium) disagree in the last bit
export const TAU_GRID = Array.from({ length: 17 }, (_, j) => Number((10 ** (-1 + j / 8)).toPrecision(12)));
export const ESTIMATOR_SAMPLES = 1000;

/** The kernel the triangle shows: the relaxed sampler, or its hard variant (`<name>_hard` in the registry, or a `hard` parameter). */
export function relaxedKernel(ss, name, hard) {
  const k = ss.kernels('sampler').find((x) => x.name === name);
  if (!k) return { missing: true };
  const hardK = ss.kernels('sampler').find((x) => x.name === `${name}_hard`);
  const hasHard = k.params.some((p) => p.name === 'hard');
  const hardOf = hardK ? { kernel: hardK, extra: {} } : hasHard ? { kernel: k, extra: { hard: 1 } } : null;
  if (hard && hardOf) return { ...hardOf, hardAvailable: true, hard: true };
  return { kernel: k, extra: {}, hardAvailable: !!hardOf, hard: false };
}

const isOneHot = (s, d) => {
  let ones = 0;
  for (let i = 0; i < 3; i++) { const v = s[3 * d + i]; if (v === 1) ones++; else if (v !== 0) return false; }
  return ones === 1;
};

/**
 * { kernel, hard, hardAvailable, x, tau, m, softmax, samples: [[s0, s1, s2], ...], mean, counts (one-hot samples only) }
 * or the same with error / missing instead of samples.
 */
export function relaxedSamples(ss, { tri, tau, seed, m, relaxed, hard }) {
  const x = Float32Array.from(tri);
  const r = relaxedKernel(ss, relaxed, hard);
  const head = { kernel: r.kernel?.name ?? relaxed, hard: !!r.hard, hardAvailable: !!r.hardAvailable, x: [...tri], tau, m };
  let softmax;
  try {
    softmax = Array.from(ss.normalize('softmax', x));
  } catch (e) {
    return { ...head, error: message(e) };
  }
  if (r.missing) return { ...head, softmax, missing: true };
  try {
    const names = new Set(r.kernel.params.map((p) => p.name));
    const want = { tau, seed, draws: m, ...r.extra };
    const params = Object.fromEntries(Object.entries(want).filter(([k]) => names.has(k)));
    const s = ss.sample(r.kernel.name, x, params).samples;
    const samples = [], mean = [0, 0, 0];
    let oneHot = true;
    for (let d = 0; d < m; d++) {
      samples.push([s[3 * d], s[3 * d + 1], s[3 * d + 2]]);
      for (let i = 0; i < 3; i++) mean[i] += s[3 * d + i] / m;
      if (!isOneHot(s, d)) oneHot = false;
    }
    const counts = oneHot ? [0, 1, 2].map((i) => samples.filter((v) => v[i] === 1).length) : null;
    return { ...head, softmax, samples, mean, counts };
  } catch (e) {
    return { ...head, softmax, error: message(e) };
  }
}

/**
 * The estimators' bias and variance over TAU_GRID: { names, taus, samples,
 * lines: [{ name, bias[], variance[], error }] }, or { missing } when the
 * build does not export the estimator statistics.
 */
export function estimatorGrid(ss, { tri, target, seed }, samples = ESTIMATOR_SAMPLES) {
  const th = Float32Array.from(tri), tg = Float32Array.from(target);
  const names = [...(ss.enums?.estimator ?? [])];
  const lines = [];
  for (const name of names) {
    const bias = [], variance = [];
    let error = null;
    for (const tau of TAU_GRID) {
      try {
        const r = ss.estimatorStats(name, th, tg, { tau, seed, samples });
        bias.push(r.bias);
        variance.push(r.variance);
      } catch (e) {
        if (/does not export/.test(e.message)) return { names, taus: TAU_GRID, samples, target: [...target], missing: true, lines: [] };
        error = message(e);
        bias.push(NaN);
        variance.push(NaN);
      }
    }
    lines.push({ name, bias, variance, error });
  }
  return { names, taus: TAU_GRID, samples, target: [...target], lines };
}
