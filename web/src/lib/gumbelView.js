// The Gumbel-Softmax half of the sampling panel: which kernels the build has,
// M samples on three classes, and the estimator bias/variance grid over τ.
import { ESTIMATORS } from '../../../wasm/sampler-calls.js';
import { PALETTE } from './colors.js';

export const TAU_GRID = Array.from({ length: 17 }, (_, j) => 10 ** (-1 + j / 8));
export const ESTIMATOR_SAMPLES = 1000;
export const ESTIMATOR_COLORS = Object.fromEntries(ESTIMATORS.map((e, i) => [e, PALETTE[i]]));

/** { soft, hard }: registry entries (hard: { info, extra } via gumbel_softmax_hard or a `hard` parameter), null when absent. */
export function gumbelKernels(kernels) {
  const soft = kernels.get('gumbel_softmax') ?? null;
  const hardK = kernels.get('gumbel_softmax_hard');
  const hasHardParam = soft?.params.some((p) => p.name === 'hard');
  return { soft, hard: hardK ? { info: hardK, extra: {} } : hasHardParam ? { info: soft, extra: { hard: 1 } } : null };
}

function call(ss, info, x, want) {
  const names = new Set(info.params.map((p) => p.name));
  const params = Object.fromEntries(Object.entries(want).filter(([k]) => names.has(k)));
  return ss.sample(info.name, Float32Array.from(x), params);
}

/** { samples (m*3), m, mean, counts (hard only) } or { missing } / { error }. */
export function gumbelSamples(ss, gk, x3, { tau, seed, m, hard }) {
  const use = hard && gk.hard ? gk.hard : gk.soft ? { info: gk.soft, extra: {} } : null;
  if (!use) return { missing: true };
  try {
    const r = call(ss, use.info, x3, { tau, seed, draws: m, ...use.extra });
    const samples = r.samples;
    const mean = new Float64Array(3);
    for (let d = 0; d < m; d++) for (let i = 0; i < 3; i++) mean[i] += samples[3 * d + i] / m;
    let counts = null;
    if (hard && gk.hard) {
      counts = [0, 0, 0];
      for (let d = 0; d < m; d++) {
        const row = samples.subarray(3 * d, 3 * d + 3);
        counts[row.indexOf(Math.max(row[0], row[1], row[2]))] += 1;
      }
    }
    return { samples, m, mean, counts };
  } catch (e) {
    return { error: String(e.message).replace(/^[^:]*: /, '') };
  }
}

/** { lines: [{ name, color, bias[], variance[], error }], samples } over TAU_GRID, or { missing } without the export. */
export function estimatorGrid(ss, theta, target, seed, samples = ESTIMATOR_SAMPLES) {
  const th = Float32Array.from(theta), tg = Float32Array.from(target);
  const lines = [];
  for (const name of ESTIMATORS) {
    const bias = [], variance = [];
    let error = null;
    for (const tau of TAU_GRID) {
      try {
        const r = ss.estimatorStats(name, th, tg, { tau, seed, samples });
        bias.push(r.bias);
        variance.push(r.variance);
      } catch (e) {
        if (/does not export/.test(e.message)) return { missing: true, samples };
        error = String(e.message).replace(/^[^:]*: /, '');
        bias.push(NaN);
        variance.push(NaN);
      }
    }
    lines.push({ name, color: ESTIMATOR_COLORS[name], bias, variance, error });
  }
  return { lines, samples };
}
