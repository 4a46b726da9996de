// Logits for the sampling panel. The small presets are the editor's (n <= 64,
// drawn as bars); the "LM next-token" preset imitates a language model's
// next-token logits over a vocabulary of thousands: Zipf-like in the rank,
// x = 5 − a·ln(rank) + N(0, σ²) noise, with the ranks scattered over the
// token ids (a vocabulary is not sorted by probability). Deterministic in
// (preset, n, seed), so a URL reproduces the picture.
import { makePreset, PRESETS, PRESET_NAMES } from '../presets.js';
import { rng, normal } from './random.js';
import { SAMPLING_LM } from '../state/url.js';

export const LM_ZIPF = { a: 1.1, sigma: 0.25 };
export const LM_SIZES = [1024, 4096, 8192, 32000, 50257];

export const SAMPLING_PRESETS = {
  [SAMPLING_LM]: { label: 'LM next-token (long tail)', help: `x = 5 − ${LM_ZIPF.a}·ln(rank) + N(0, ${LM_ZIPF.sigma}²), ranks shuffled over the token ids` },
  ...Object.fromEntries(PRESET_NAMES.map((p) => [p, { label: PRESETS[p].label, help: PRESETS[p].help }])),
};
export const SAMPLING_PRESET_NAMES = Object.keys(SAMPLING_PRESETS);

/** The LM preset's logits: a Float32Array of n. */
export function lmLogits(n, seed = 1) {
  const next = rng((seed ^ 0x5bd1e995) >>> 0);
  const x = new Float32Array(n);
  for (let r = 0; r < n; r++) x[r] = 5 - LM_ZIPF.a * Math.log(r + 1) + LM_ZIPF.sigma * normal(next);
  for (let i = n - 1; i > 0; i--) { // Fisher–Yates: token ids in random order
    const j = Math.floor(next() * (i + 1));
    const t = x[i]; x[i] = x[j]; x[j] = t;
  }
  return x;
}

/** The logits a sampling state shows, as a Float32Array. */
export function samplingLogits(s) {
  if (s.preset === 'custom' && s.logits) return Float32Array.from(s.logits);
  if (s.preset === SAMPLING_LM) return lmLogits(s.n, s.seed);
  return Float32Array.from(makePreset(s.preset, s.n, s.seed));
}
