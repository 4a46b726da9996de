// The Dispersion view's numbers: the sweep of analysis/dispersion.js (the
// same code as `softscope sweep dispersion`) over the chosen normalizers. A
// normalizer whose parameters are out of range is left out with its message;
// the others still run. The View runs the sweep a slice per frame (steps);
// compute runs it to the end.
import { dispersionSweep } from '../../analysis/dispersion.js';

/** The parameters a kernel gets from the shared ones. */
function paramsOf(k, shared) {
  return Object.fromEntries(k.params.map((p) => [p.name, Number.isFinite(shared[p.name]) ? shared[p.name] : p.default]));
}

/** { options (for dispersionSweep / dispersionSteps, null when nothing can run), invalid: [{ name, error }] }. */
export function sweepOptions(ss, s) {
  const invalid = [], list = [];
  for (const k of ss.kernels('normalizer').filter((x) => s.kernels.includes(x.name))) {
    const params = paramsOf(k, s.params);
    const bad = ss.checkParams(k.name, params);
    if (bad) invalid.push({ name: k.name, error: bad.message.replace(/^[^:]*: /, '') });
    else list.push({ name: k.name, params });
  }
  const options = list.length ? {
    normalizers: list, nMin: 2, nMax: s.nmax, margin: s.margin,
    distractor: { kind: s.distractor, scale: s.scale }, seed: s.seed, pointsPerOctave: s.ppo,
  } : null;
  return { options, invalid };
}

/** { n, series: [{ name, output, params, keyProb, maxProb, entropy, support, sum, errors, fresh }], invalid, nMax, probLog }. */
export function compute(ss, s) {
  const { options, invalid } = sweepOptions(ss, s);
  const base = { invalid, nMax: s.nmax, probLog: s.plog, margin: s.margin };
  if (!options) return { ...base, n: [], series: [] };
  const r = dispersionSweep(ss, options);
  return { ...base, n: r.n, series: r.series.map((x) => ({ ...x, fresh: r.n.length })) };
}

export function table(d) {
  const rows = [];
  for (const s of d.series) d.n.forEach((n, j) => rows.push([s.name, n, s.keyProb[j], s.maxProb[j], s.entropy[j], s.support[j], s.sum[j]]));
  return { columns: ['kernel', 'n', 'key_prob', 'max_prob', 'entropy', 'support', 'sum'], rows };
}
