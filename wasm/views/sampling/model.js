// The Sampling view's numbers. decode() runs the pipeline on the state's
// logits (typed arrays); the draws come from the view's stepper (start,
// over draws.js: the playground runs a batch per frame, compute() all of
// them); figureData() turns these into what the figure shows: per token for
// a small vocabulary, per group of ranks for a large one (with the most
// probable tokens), the draws' agreement (TV distance, chi-square), the
// Gumbel-Softmax samples on the triangle and the estimators against τ.
import { samplingLogits, lmWords, LM, PROMPT } from './logits.js';
import { runPipeline, rankOrder, rankBins } from './decode.js';
import { drawStepper, drawStats } from './draws.js';
import { relaxedSamples, estimatorGrid } from './gumbel.js';
import { N_MAX } from '../../analysis/presets.js';
import { finish } from '../stepper.js';
import { schema } from './schema.js';
import { runKey } from '../../state/run-key.js';

/** Up to here a vocabulary is drawn as bars in token order (and edited); beyond, by rank. */
export const BARS_MAX = N_MAX;
export const TOP_TOKENS = 8;

/** { x, tokens, order (large n) }: the state's logits (a Float32Array) and, for a large vocabulary, the token ids by rank. */
export function logitsOf(s) {
  const x = samplingLogits(s);
  // Token labels: the LM preset's likeliest tokens are words of the built-in
  // vocabulary ({ id: word }); the others stay ids ("#i").
  const lm = s.preset === LM;
  return { x, tokens: lm ? lmWords(s.vocab, s.seed) : null, prompt: lm ? PROMPT : null, order: x.length > BARS_MAX ? rankOrder(x) : null };
}

/** { x, tokens, order, pipe } for a state: the logits (logitsOf, reused when only the stages changed) and the pipeline's distributions. */
export function decode(ss, s, lg = logitsOf(s)) {
  return { ...lg, pipe: runPipeline(ss, lg.x, s) };
}

/** What the figure draws, from decode()'s result and the draws so far (counts, indices, done of total). */
export function figureData(dec, draws, gumbel, estimators) {
  const { x, order, pipe, tokens, prompt } = dec;
  const n = x.length;
  const small = n <= BARS_MAX;
  const ok = !pipe.error;
  const stats = ok ? drawStats(pipe.final, draws.counts, draws.indices, draws.done, draws.total) : null;
  const out = {
    n,
    small,
    tokens,
    prompt,
    temperature: pipe.T,
    stages: pipe.stages,
    error: pipe.error ?? null,
    kept: ok ? pipe.kept : null,
    keptMass: ok ? pipe.keptMass : null,
    draws: stats ?? { done: 0, total: draws.total },
    gumbel,
    estimators,
  };
  if (!ok) return out;
  if (small) {
    out.x = Array.from(x);
    out.base = Array.from(pipe.base);
    out.final = Array.from(pipe.final);
    out.freq = draws.done ? Array.from(draws.counts, (c) => c / draws.done) : null;
  } else {
    out.bins = rankBins(order, pipe.base, pipe.final, draws.counts, draws.done);
    out.top = Array.from(order.subarray(0, TOP_TOKENS), (i, r) => ({
      rank: r + 1, id: i, logit: x[i], base: pipe.base[i], final: pipe.final[i], freq: draws.done ? draws.counts[i] / draws.done : NaN,
    }));
  }
  return out;
}

// The draws depend on every key but the display fields: a change of those
// (the Gumbel-Softmax controls) leaves the running draws alone; their panel
// is computed again when its own keys changed.
const gumbelKey = (s) => JSON.stringify([s.tri, s.tau, s.seed, s.m, s.relaxed, s.hard]);
const estimatorsKey = (s) => JSON.stringify([s.tri, s.target, s.seed]);

// The last logits (a large vocabulary's rank order takes a sort): the View's
// editor and a stepper restarted for a stage change reuse them.
let lastLogits = null;
/** logitsOf(s), reused while the state's logits stay the same. */
export function cachedLogits(s) {
  const key = JSON.stringify([s.preset, s.n, s.vocab, s.seed, s.logits]);
  if (lastLogits?.key !== key) lastLogits = { key, lg: logitsOf(s) };
  return lastLogits.lg;
}

/**
 * The view as a stepper (wasm/views/stepper.js): the pipeline once, then
 * the N draws a batch per step (drawStepper's pacing); data() is
 * figureData with the draws so far. A new state that keeps the draws (only
 * the Gumbel-Softmax controls changed) is taken in place: its samples and
 * estimators are recomputed when they change.
 */
export function start(ss, s) {
  const dec = decode(ss, s, cachedLogits(s));
  const total = s.draws;
  const st = dec.pipe.error ? null : drawStepper(ss, dec.pipe.final, { seed: s.seed, total });
  let cur = s, gumbel = null, estimators = null;
  return {
    step(budgetMs = Infinity) {
      if (!st) return false;
      st.step(budgetMs);
      return st.done() < total;
    },
    data() {
      if (gumbel?.key !== gumbelKey(cur)) gumbel = { key: gumbelKey(cur), v: relaxedSamples(ss, cur) };
      if (estimators?.key !== estimatorsKey(cur)) estimators = { key: estimatorsKey(cur), v: estimatorGrid(ss, cur) };
      const draws = st ? { counts: st.counts, indices: st.indices, done: st.done(), total } : { done: 0, total };
      return figureData(dec, draws, gumbel.v, estimators.v);
    },
    update(t) {
      if (runKey(schema, t) !== runKey(schema, cur)) return false;
      cur = t;
      return true;
    },
  };
}

/** Every number the figure shows for a state, with all N draws made. */
export const compute = (ss, s) => finish(start(ss, s));

/** The numbers as a long table (CSV): series, x, y. */
export function table(d) {
  const rows = [];
  if (d.small && d.final) {
    d.final.forEach((v, i) => {
      rows.push(['logit', i, d.x[i]], ['p_temperature', i, d.base[i]], ['p_sampled', i, v]);
      if (d.freq) rows.push(['frequency', i, d.freq[i]]);
    });
  } else if (d.bins) {
    // x: the geometric middle rank of a group of ranks; y: the mean per token in it
    for (const b of d.bins) {
      const r = Math.sqrt(b.r0 * b.r1);
      rows.push(['p_temperature_by_rank', r, b.base], ['p_sampled_by_rank', r, b.final], ['kept_fraction_by_rank', r, b.kept]);
      if (Number.isFinite(b.emp)) rows.push(['frequency_by_rank', r, b.emp]);
    }
  }
  for (const [k, v] of [['tv', d.draws.tv], ['chi2', d.draws.chi2], ['chi2_p', d.draws.pValue]]) if (Number.isFinite(v)) rows.push([k, d.draws.done, v]);
  const g = d.gumbel;
  if (g?.samples) g.samples.forEach((v, j) => v.forEach((c, i) => rows.push([`sample_${i}`, j, c])));
  for (const l of d.estimators?.lines ?? []) {
    d.estimators.taus.forEach((t, j) => rows.push([`bias_${l.name}`, t, l.bias[j]], [`variance_${l.name}`, t, l.variance[j]]));
  }
  return { columns: ['series', 'x', 'y'], rows };
}
