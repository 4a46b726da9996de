// Live draws for the sampling panel: N categorical draws from a distribution,
// taken in batches per animation frame so that the histogram visibly
// converges. Batches grow geometrically (×1.2 per frame) and stop early when
// a frame's budget is used. Draw d is uniform number `first + d` of
// (seed, stream), so the concatenated batches are exactly one call with
// draws = N: the sequence does not depend on the pacing.
const defaultFrame = (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 0));
const defaultCancel = (id) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id));
export const DRAW_STREAM = 1;

/**
 * Starts the draws; returns { cancel }. onProgress({ done, total, counts,
 * indices, frames, computeMs }) after every frame (counts and indices are
 * the same arrays each time, filled further), onDone(same) at the end,
 * onError(error) if a call fails.
 */
export function startDraws(ss, probs, { seed = 0, stream = DRAW_STREAM, total, onProgress, onDone, onError,
  budgetMs = 6, chunk = 8192, frame = defaultFrame, cancelFrame = defaultCancel, now = () => performance.now() } = {}) {
  const counts = new Float64Array(probs.length);
  const indices = new Uint32Array(total);
  let done = 0, frames = 0, computeMs = 0, id = null, stopped = false;
  const report = () => ({ done, total, counts, indices, frames, computeMs });
  const step = () => {
    id = null;
    if (stopped) return;
    const t0 = now();
    const target = Math.min(total, Math.max(done + 32, Math.ceil(done * 1.2)));
    try {
      while (done < target) {
        const b = Math.min(target - done, chunk);
        const got = ss.categorical(probs, { seed, stream, first: done, draws: b });
        for (let j = 0; j < b; j++) { counts[got[j]] += 1; indices[done + j] = got[j]; }
        done += b;
        if (now() - t0 > budgetMs) break;
      }
    } catch (e) {
      stopped = true;
      onError?.(e);
      return;
    }
    computeMs += now() - t0;
    frames++;
    onProgress?.(report());
    if (done >= total) {
      stopped = true;
      onDone?.(report());
      return;
    }
    id = frame(step);
  };
  id = frame(step);
  return {
    cancel() {
      if (stopped) return;
      stopped = true;
      if (id !== null) cancelFrame(id);
    },
  };
}
