// Logit presets. Each is a deterministic function of (n, seed); values are
// rounded to 3 decimals so they survive the URL unchanged and are clamped to
// the editor's range.
import { rng, normal } from './random.js';

export const LOGIT_LIMIT = 8; // editor range is [-LOGIT_LIMIT, LOGIT_LIMIT]
export const N_MIN = 2;
export const N_MAX = 64;

export const round3 = (v) => Math.round(v * 1000) / 1000 + 0; // +0 turns -0 into 0
export const clampLogit = (v) => Math.min(LOGIT_LIMIT, Math.max(-LOGIT_LIMIT, v));
const finish = (xs) => xs.map((v) => round3(clampLogit(v)));

export const PRESETS = {
  random_normal: {
    label: 'Random normal',
    help: 'x_i ~ N(0, 1.5²)',
    make(n, next) {
      return Array.from({ length: n }, () => 1.5 * normal(next));
    },
  },
  planted_peak: {
    label: 'Planted peak',
    help: 'small noise, one logit raised by 4',
    make(n, next) {
      const xs = Array.from({ length: n }, () => 0.5 * normal(next));
      xs[Math.floor(next() * n)] += 4;
      return xs;
    },
  },
  two_modes: {
    label: 'Two modes',
    help: 'small noise, two logits raised by 3.5 and 3',
    make(n, next) {
      const xs = Array.from({ length: n }, () => 0.4 * normal(next));
      const a = Math.floor(next() * n);
      let b = Math.floor(next() * (n - 1));
      if (b >= a) b += 1; // a distinct second index
      xs[a] += 3.5;
      xs[b] += 3;
      return xs;
    },
  },
  long_tail: {
    label: 'Long tail',
    help: 'sorted Zipf-like logits: x_i = 3 − 1.5·ln(i+1) + noise',
    make(n, next) {
      return Array.from({ length: n }, (_, i) => 3 - 1.5 * Math.log(i + 1) + 0.1 * normal(next));
    },
  },
};

export const PRESET_NAMES = Object.keys(PRESETS);

/** Logits for a preset: an Array of n numbers, the same for the same arguments. */
export function makePreset(name, n, seed = 1) {
  const p = PRESETS[name];
  if (!p) throw new Error(`unknown preset "${name}"; known: ${PRESET_NAMES.join(', ')}`);
  if (!Number.isInteger(n) || n < N_MIN || n > N_MAX) throw new RangeError(`n must be an integer in [${N_MIN}, ${N_MAX}] (got ${n})`);
  // Mix the preset name into the seed so presets do not share their noise.
  let h = seed >>> 0;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return finish(p.make(n, rng(h)));
}
