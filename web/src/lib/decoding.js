// The decoding pipeline of the sampling panel, in the order LLM decoders
// apply it: temperature → top-k → top-p → min-p (→ typical). Every stage is a
// registry sampler called with draws = 0 (only its distribution). Stages are
// chained through their outputs: the probabilities p of one stage become the
// next stage's logits as log p (−∞ for a dropped token) with temperature 1,
// so a stage sees exactly the renormalized distribution left by the previous
// one. The first filter gets the raw logits and the temperature itself.
export const STAGE_INFO = {
  temperature: { kernel: 'temperature', param: 'temperature', label: 'temperature T', help: 'divides the logits by T before the softmax' },
  top_k: { kernel: 'top_k', param: 'k', label: 'top-k', help: 'keeps the k most probable tokens' },
  top_p: { kernel: 'top_p', param: 'p', label: 'top-p (nucleus)', help: 'keeps the fewest most probable tokens whose mass reaches p' },
  min_p: { kernel: 'min_p', param: 'min_p', label: 'min-p', help: 'keeps the tokens with p_i ≥ min_p · p_max' },
  typical: { kernel: 'typical', param: null, label: 'typical', help: 'keeps the tokens whose surprisal is closest to the entropy, up to that mass' },
};
export const STAGE_IDS = Object.keys(STAGE_INFO);
const COMMON = new Set(['seed', 'draws', 'temperature']);

/** The registry entry of a stage's own parameter (by name, else its first non-common one). */
export function stageParam(id, kernelInfo) {
  if (!kernelInfo) return null;
  const want = STAGE_INFO[id].param;
  return kernelInfo.params.find((p) => p.name === want) ?? kernelInfo.params.find((p) => !COMMON.has(p.name)) ?? null;
}

/** The largest value an n-bounded parameter may take at length n (Infinity when unbounded). */
export function nBound(p, n) {
  return p.n_bound === 'le' ? n : p.n_bound === 'lt' ? n - 1 : Infinity;
}

export function countNonzero(p) {
  let c = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) c++;
  return c;
}

const logOf = (p) => Float32Array.from(p, Math.log);
const message = (e) => String(e?.message ?? e).replace(/^[^:]*: /, '');

/**
 * Runs the stages that are on. kernels: Map name → registry entry (a missing
 * kernel is reported, not called). Returns { base (the temperature softmax),
 * final (the renormalized distribution to draw from), kept, keptMass (mass
 * of the kept set under base), stages: [{ id, on, missing, error, kept,
 * value (as passed) }], error (when not even the softmax could be computed) }.
 */
export function runPipeline(ss, x, s, kernels) {
  const n = x.length;
  const on = new Set(s.on);
  const T = on.has('temperature') ? s.values.temperature : 1;
  const stages = [];
  let base;
  try {
    base = ss.sample('temperature', x, { temperature: T, draws: 0 }).probs;
  } catch (e) {
    return { error: message(e), stages: [], n };
  }
  stages.push({ id: 'temperature', on: on.has('temperature'), kept: countNonzero(base), value: T });
  let cur = base, first = true;
  for (const id of STAGE_IDS.slice(1)) {
    const info = kernels.get(STAGE_INFO[id].kernel);
    if (!on.has(id)) { stages.push({ id, on: false, missing: !info }); continue; }
    if (!info) { stages.push({ id, on: true, missing: true }); continue; }
    const names = new Set(info.params.map((p) => p.name));
    const pi = stageParam(id, info);
    const params = {};
    if (names.has('draws')) params.draws = 0;
    let value = s.values[id];
    // k (an n-bounded integer) cannot exceed n: clamp rather than fail.
    if (pi && pi.type === 'int') value = Math.max(Math.ceil(pi.min), Math.min(Math.round(value), nBound(pi, n)));
    if (pi) params[pi.name] = value;
    let input = logOf(cur);
    if (first && names.has('temperature')) { input = x; params.temperature = T; }
    try {
      cur = ss.sample(info.name, input, params).probs;
      first = false;
      stages.push({ id, on: true, kept: countNonzero(cur), value });
    } catch (e) {
      stages.push({ id, on: true, error: message(e), value });
    }
  }
  let keptMass = 0;
  for (let i = 0; i < n; i++) if (cur[i] > 0) keptMass += base[i];
  return { base, final: cur, kept: countNonzero(cur), keptMass, stages, n };
}

/** Token ids by decreasing base probability (ties: smaller id first). */
export function rankOrder(base) {
  const idx = new Uint32Array(base.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  return idx.sort((a, b) => base[b] - base[a] || a - b);
}

/**
 * The rank plot, aggregated into at most ~`bins` groups of consecutive ranks
 * (geometric edges: the first ranks alone, the tail in wide groups): per group
 * the mean base and final probability per token, the mean empirical
 * frequency, the fraction kept, and the rank range [r0, r1] (1-based).
 */
export function rankBins(order, base, final, counts, done, bins = 160) {
  const n = order.length;
  const out = [];
  let start = 0;
  for (let j = 1; start < n; j++) {
    const end = Math.min(n, Math.max(start + 1, Math.round(n ** (j / bins))));
    let b = 0, f = 0, e = 0, k = 0;
    for (let r = start; r < end; r++) {
      const i = order[r];
      b += base[i];
      f += final[i];
      if (final[i] > 0) k++;
      if (counts) e += counts[i];
    }
    const m = end - start;
    out.push({ r0: start + 1, r1: end, base: b / m, final: f / m, kept: k / m, emp: done > 0 ? e / done / m : NaN });
    start = end;
  }
  return out;
}

/** Total-variation distance between draw counts (out of done) and p. */
export function tvDistance(counts, done, p) {
  if (!done) return NaN;
  let s = 0;
  for (let i = 0; i < p.length; i++) s += Math.abs(counts[i] / done - p[i]);
  return s / 2;
}
