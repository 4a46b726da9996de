// The decoding pipeline as LLM decoders run it (the Sampling view's, and a
// language model's generation: analysis/language.js): the registry's decoding
// stages (role decode_stage) in the order of k.stage — temperature, top-k,
// top-p, min-p, typical in this build. Every stage is its registry sampler
// called with draws = 0 (only its distribution). Stages are chained through
// their outputs: the probabilities p of one stage become the next stage's
// logits as log p (−∞ for a dropped token) with temperature 1, so a stage
// sees exactly the renormalized distribution the previous one left. The
// temperature stage (the one whose own parameter is `temperature`) gives the
// base distribution softmax(x / T) (T = 1 when it is off); the first filter
// that runs gets the raw logits and T itself, as a decoder calling it alone
// would.

export const countNonzero = (p) => {
  let c = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) c++;
  return c;
};

/** The largest value an n-bounded parameter may take at length n (Infinity when unbounded). */
export function nBound(p, n) {
  return p.n_bound === 'le' ? n : p.n_bound === 'lt' ? n - 1 : Infinity;
}

// log p with a loop: Float32Array.from(p, Math.log) is ~30× slower in V8 (15 ms at n = 32000)
function logOf(p) {
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = Math.log(p[i]);
  return out;
}
/** An error's message without the "softscope.sample(...): " prefix. */
export const message = (e) => String(e?.message ?? e).replace(/^[^:]*: /, '');

/** The value a stage runs with: the state's, else the registry default; an n-bounded integer is clamped to n. */
function stageValue(k, p, values, n) {
  let v = Number.isFinite(values[k.name]) ? values[k.name] : p.default;
  if (p.type === 'int') v = Math.max(Math.ceil(p.min ?? 1), Math.min(Math.round(v), nBound(p, n)));
  return v;
}

/** The registry's decoding stages, in the order decoders apply them. */
export const decodeStages = (ss) => ss.kernels('sampler').filter((k) => k.role === 'decode_stage').sort((a, b) => a.stage - b.stage);
/** A stage's own parameter (its registry entry). */
export const stageParam = (k) => k.params.find((p) => p.name === k.stage_param) ?? null;

/**
 * Runs the stages that are on over logits x. Returns { base (softmax(x / T),
 * Float32Array), final (the renormalized distribution to draw from), kept,
 * keptMass (the kept set's mass under base), T, stages: [{ name, param,
 * value (as run), default, on, kept, error, probs (with keep: the stage's
 * distribution) }], error (when not even the base could be computed) }.
 */
export function runPipeline(ss, x, { on, stages: values }, { keep = false } = {}) {
  const n = x.length;
  const ks = decodeStages(ss);
  const isOn = new Set(on);
  const temp = ks.find((k) => k.stage_param === 'temperature');
  const T = temp && isOn.has(temp.name) ? stageValue(temp, stageParam(temp), values, n) : 1;
  const rows = ks.map((k) => {
    const p = stageParam(k);
    return { name: k.name, param: p?.name ?? null, value: p ? stageValue(k, p, values, n) : null, default: p?.default ?? null, on: isOn.has(k.name) };
  });
  if (!temp) return { error: 'the registry has no temperature stage', stages: rows, n, T };
  let base;
  try {
    base = ss.sample(temp.name, x, { temperature: T, draws: 0 }).probs;
  } catch (e) {
    return { error: message(e), stages: rows, n, T };
  }
  let cur = base, first = true;
  ks.forEach((k, j) => {
    const row = rows[j];
    if (!row.on) return;
    if (k === temp) { row.kept = countNonzero(base); if (keep) row.probs = base; return; }
    const names = new Set(k.params.map((q) => q.name));
    const params = {};
    if (names.has('draws')) params.draws = 0;
    if (row.param) params[row.param] = row.value;
    let input = logOf(cur);
    if (first && names.has('temperature')) { input = x; params.temperature = T; }
    try {
      cur = ss.sample(k.name, input, params).probs;
      first = false;
      row.kept = countNonzero(cur);
      if (keep) row.probs = cur;
    } catch (e) {
      row.error = message(e);
    }
  });
  let keptMass = 0;
  for (let i = 0; i < n; i++) if (cur[i] > 0) keptMass += base[i];
  return { base, final: cur, kept: countNonzero(cur), keptMass, T, stages: rows, n };
}

