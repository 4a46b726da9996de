// N categorical draws from a distribution, taken in batches so that the
// playground's histogram visibly converges: the View runs one step per
// animation frame, compute() runs them all. Batches grow geometrically
// (×1.2 per step, at least 32 draws) and a step stops early when its time
// budget is used. Draw d is uniform number d of (seed, DRAW_STREAM), so the
// concatenated batches are exactly one call with draws = N: the sequence does
// not depend on the pacing.
import { chiSquare } from '../../analysis/stats.js';
import { tvDistance } from './decode.js';

export const DRAW_STREAM = 1;
const CHUNK = 8192;

/**
 * A stepper over `total` draws from probs: { step(budgetMs), done(), counts,
 * indices, total }. step() draws the next batch (within budgetMs, measured by
 * `now`) and returns the number drawn so far; it throws what the kernel throws.
 */
export function drawStepper(ss, probs, { seed = 0, stream = DRAW_STREAM, total, now = () => performance.now() }) {
  const counts = new Float64Array(probs.length);
  const indices = new Uint32Array(total);
  let done = 0;
  return {
    counts,
    indices,
    total,
    done: () => done,
    step(budgetMs = Infinity) {
      const t0 = now();
      const target = Math.min(total, Math.max(done + 32, Math.ceil(done * 1.2)));
      while (done < target) {
        const b = Math.min(target - done, CHUNK);
        const got = ss.categorical(probs, { seed, stream, first: done, draws: b });
        for (let j = 0; j < b; j++) { counts[got[j]] += 1; indices[done + j] = got[j]; }
        done += b;
        if (now() - t0 > budgetMs) break;
      }
      return done;
    },
  };
}

/** Every draw at once (headless): the stepper run to the end. */
export function drawAll(ss, probs, options) {
  const st = drawStepper(ss, probs, options);
  while (st.done() < st.total) st.step();
  return st;
}

/** The draws' agreement with probs: { done, total, tv, chi2, dof, pValue, impossible } (NaN before the first draw). */
export function drawStats(probs, counts, indices, done, total) {
  if (!done) return { done: 0, total, tv: NaN, chi2: NaN, dof: 0, pValue: NaN, impossible: 0 };
  return { done, total, tv: tvDistance(counts, done, probs), ...chiSquare(indices.subarray(0, done), probs) };
}
