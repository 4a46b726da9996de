// The sampling view's logits. The small presets are the editor's (n <= 64,
// drawn as bars, wasm/analysis/presets.js); the "LM next-token" preset
// imitates a language model's next-token logits over a vocabulary of
// thousands: Zipf-like in the rank, x = 5 − a·ln(rank) + N(0, σ²) noise, with
// the ranks scattered over the token ids (a vocabulary is not sorted by
// probability). Deterministic in (preset, size, seed), so a link reproduces
// the picture.
import { makePreset, PRESETS, PRESET_NAMES } from '../../analysis/presets.js';
import { rng, normal } from '../../analysis/random.js';
import { wordAt, PROMPT } from '../../analysis/sampling-vocabulary.js';

export { PROMPT };

export const LM = 'lm_next_token';
export const LM_ZIPF = { a: 1.1, sigma: 0.25 };
/** Vocabulary sizes offered in the playground (any size in LM_VOCAB is valid in a link); 50257 is GPT-2's. */
export const LM_SIZES = [1024, 4096, 8192, 32000, 50257];
export const LM_VOCAB = { min: 256, max: 65536, default: 32000 };

export const SAMPLING_PRESETS = {
  [LM]: { label: 'LM next-token (long tail)', help: `x = 5 − ${LM_ZIPF.a}·ln(rank) + N(0, ${LM_ZIPF.sigma}²), ranks shuffled over the token ids` },
  ...Object.fromEntries(PRESET_NAMES.map((p) => [p, { label: PRESETS[p].label, help: PRESETS[p].help }])),
};
export const SAMPLING_PRESET_NAMES = Object.keys(SAMPLING_PRESETS);

/** The LM preset's logits (a Float32Array of n) and the intended rank of each token id. */
export function lmTokens(n, seed = 1) {
  const next = rng((seed ^ 0x5bd1e995) >>> 0);
  const x = new Float32Array(n), rank = new Int32Array(n);
  for (let r = 0; r < n; r++) { x[r] = 5 - LM_ZIPF.a * Math.log(r + 1) + LM_ZIPF.sigma * normal(next); rank[r] = r; }
  for (let i = n - 1; i > 0; i--) { // Fisher–Yates: token ids in random order
    const j = Math.floor(next() * (i + 1));
    const t = x[i]; x[i] = x[j]; x[j] = t;
    const q = rank[i]; rank[i] = rank[j]; rank[j] = q;
  }
  return { x, rank };
}

/** The LM preset's logits: a Float32Array of n. */
export function lmLogits(n, seed = 1) {
  return lmTokens(n, seed).x;
}

/** The words of the LM preset's likeliest tokens: { id: word } (the built-in vocabulary; the rest stay ids). */
export function lmWords(n, seed = 1) {
  const { rank } = lmTokens(n, seed);
  const out = {};
  for (let id = 0; id < n; id++) {
    const w = wordAt(rank[id]);
    if (w !== null) out[id] = w;
  }
  return out;
}

/** The logits a sampling state shows, as a Float32Array. */
export function samplingLogits(s) {
  if (s.preset === 'custom' && s.logits) return Float32Array.from(s.logits);
  if (s.preset === LM) return lmLogits(s.vocab, s.seed);
  return Float32Array.from(makePreset(s.preset, s.n, s.seed));
}
