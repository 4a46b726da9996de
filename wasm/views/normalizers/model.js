// The Normalizers view's numbers: each chosen normalizer's output on x / T
// (or on x with its own temperature parameter), and the output's metrics.
import { outputMetrics } from '../../analysis/distribution.js';
import { kernelParams } from '../../analysis/params.js';

/** { x, temperature, series: [{ name, kind, params, y, metrics } | { name, kind, error }] }. */
export function compute(ss, s) {
  const x = Float32Array.from(s.logits);
  const T = s.temperature;
  const xt = Float32Array.from(x, (v) => v / T);
  const chosen = ss.kernels('normalizer').filter((k) => s.kernels.includes(k.name));
  const series = chosen.map((k) => {
    const params = kernelParams(k, s.params, { fixed: { temperature: T, seed: s.seed } });
    const kind = k.output;
    const base = { name: k.name, kind, params, summary: k.summary, formula: k.formula, paper: k.paper, scaled: !('temperature' in params) };
    try {
      const y = ss.normalize(k.name, base.scaled ? xt : x, params);
      return { ...base, y: Array.from(y), metrics: outputMetrics(ss, kind, y) };
    } catch (e) {
      return { ...base, error: e.message.replace(/^[^:]*: /, ''), argument: e.argument };
    }
  });
  return { x: Array.from(x), temperature: T, series };
}

/** The numbers as a table (CSV): one row per (kernel, index). */
export function table(d) {
  const rows = [];
  for (const s of d.series) {
    if (s.error) continue;
    s.y.forEach((v, i) => rows.push([s.name, i, d.x[i], v]));
  }
  return { columns: ['kernel', 'i', 'x', 'y'], rows };
}
