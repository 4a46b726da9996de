// One sentence per view that says what its figure shows now, for screen
// readers (the playground and the widget announce it politely when the
// numbers change) and for the figure's accessible description.
import { fmt, pct, count } from '../figures/format.js';

const list = (xs) => xs.filter(Boolean).join('; ');

export const DESCRIBE = {
  normalizers: (d) => list(d.series.map((s) => (s.error ? `${s.name}: ${s.error}`
    : `${s.name}: entropy ${fmt(s.metrics.entropy, 3)} nats, max ${fmt(s.metrics.max, 3)}, support ${s.metrics.support} of ${s.y.length}`))),
  dispersion: (d) => {
    if (!d.n.length) return 'no normalizer to sweep';
    const j = d.n.length - 1;
    return `at n = ${count(d.n[j])}: ${list(d.series.map((s) => `${s.name} key ${fmt(s.keyProb[j], 3)}, entropy ${fmt(s.entropy[j], 3)}, support ${count(s.support[j])}`))}`;
  },
  sampling: (d) => (d.error ? d.error
    : `${count(d.kept)} of ${count(d.n)} tokens kept, ${pct(d.keptMass)} of the mass; ${count(d.draws.done)} draws, TV distance ${fmt(d.draws.tv, 3)}`),
  quantization: (d) => (d.error ? `${d.scheme}: ${d.error}`
    : `${d.scheme}: MSE ${fmt(d.metrics.mse, 3)}, SQNR ${fmt(d.metrics.sqnr_db, 3)} dB, ${d.metrics.levels} levels used${d.effect && !d.effect.error ? `; softmax KL ${fmt(d.effect.kl, 3)}, argmax ${d.effect.argmaxKept ? 'kept' : 'changed'}` : ''}`),
  optimizers: (d) => `step ${d.step} of ${d.steps} on ${d.fn.name}: ${list(d.runs.map((r) => (r.error ? `${r.name} stopped: ${r.error}`
    : `${r.name} f ${fmt(r.f, 3)}${r.diverged ? ' (diverged)' : `, ${fmt(r.distance, 3)} from the nearest minimum`}`)))}`,
  attention: (d) => list(d.panels.map((p) => (p.error ? `${p.label}: ${p.error}`
    : `${p.label}: entropy ${fmt(p.mean.entropy, 3)}, ${pct(p.mean.zeros)} exact zeros, TV to softmax ${fmt(p.tv, 3)}`))),
  performance: (d) => (!d.ran ? `not run yet: ${d.kernels.map((k) => k.name).join(', ')} at n = ${count(d.n)}`
    : `at n = ${count(d.n)}, ns per element: ${list(d.kernels.map((k) => `${k.name} ${k.rows.map((r) => (r.error ? `${r.label} not run` : `${r.label} ${fmt(r.ns, 3)}`)).join(', ')}`))}`),
};

/** The sentence for a view's data ('' when the view has none). */
export function describe(id, data) {
  try {
    return data && DESCRIBE[id] ? DESCRIBE[id](data) : '';
  } catch {
    return '';
  }
}
