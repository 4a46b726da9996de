// The Dispersion view's numbers: the sweep of analysis/dispersion.js (the
// same code as `softscope sweep dispersion`) over the chosen normalizers. A
// normalizer whose parameters are out of range is left out with its message;
// the others still run. The sweep is a stepper (start): the playground runs
// it a slice per frame, compute runs it to the end.
import { dispersionSteps } from '../../analysis/dispersion.js';
import { kernelParams } from '../../analysis/params.js';
import { finish, now } from '../stepper.js';

/** { options (for dispersionSweep / dispersionSteps, null when nothing can run), invalid: [{ name, error }] }. */
export function sweepOptions(ss, s) {
  const invalid = [], list = [];
  for (const k of ss.kernels('normalizer').filter((x) => s.kernels.includes(x.name))) {
    const params = kernelParams(k, s.params);
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

/**
 * The sweep as a stepper (wasm/views/stepper.js): each step computes (n,
 * normalizer) cells, small n first, for about budgetMs (at least one cell);
 * data() is compute's shape with NaN where nothing is computed yet and, per
 * series, `fresh`: how many leading n are computed. A new state that leaves
 * the sweep's options alone (the probability axis, nmax's display) is taken
 * in place. Bad options throw here (dispersionSteps checks them up front);
 * stop() frees the paused sweep's heap buffers.
 */
export function start(ss, s) {
  const { options, invalid } = sweepOptions(ss, s);
  const key = JSON.stringify(options);
  let base = { invalid, nMax: s.nmax, probLog: s.plog, margin: s.margin };
  const it = options ? dispersionSteps(ss, options) : null;
  let result = null, done = 0, over = !it;
  const S = options?.normalizers.length ?? 0;
  return {
    step(budgetMs = Infinity) {
      const t0 = now();
      while (!over) {
        const r = it.next();
        if (r.done) { result = r.value; over = true; break; }
        done++;
        result = r.value.result;
        if (now() - t0 >= budgetMs) break;
      }
      return !over;
    },
    data() {
      if (!result) return { ...base, n: [], series: [] };
      const fresh = (si) => (over ? result.n.length : Math.max(0, Math.floor((done - si - 1) / S) + 1));
      return { ...base, n: result.n, series: result.series.map((x, si) => ({ ...x, fresh: fresh(si) })) };
    },
    /** { done, total } cells (total once the first cell is computed). */
    progress: () => ({ done, total: result ? result.n.length * S : null }),
    update(t) {
      const next = sweepOptions(ss, t);
      if (JSON.stringify(next.options) !== key) return false;
      base = { invalid: next.invalid, nMax: t.nmax, probLog: t.plog, margin: t.margin };
      return true;
    },
    stop() { it?.return(); },
  };
}

/** { n, series: [{ name, output, params, keyProb, maxProb, entropy, support, sum, errors, fresh }], invalid, nMax, probLog }. */
export const compute = (ss, s) => finish(start(ss, s));

export function table(d) {
  const rows = [];
  for (const s of d.series) d.n.forEach((n, j) => rows.push([s.name, n, s.keyProb[j], s.maxProb[j], s.entropy[j], s.support[j], s.sum[j]]));
  return { columns: ['kernel', 'n', 'key_prob', 'max_prob', 'entropy', 'support', 'sum'], rows };
}
