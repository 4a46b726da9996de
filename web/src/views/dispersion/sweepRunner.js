// Runs a dispersion sweep without freezing the page: the cells of
// dispersionSteps (small n first) are computed in slices of about `budgetMs`
// per animation frame, and after each slice onProgress gets the partial
// result. cancel() stops a stale run (a slider moved on) and frees its wasm
// buffers. The kernels are the same as in the CLI; only the pacing is here.
import { dispersionSteps } from '../../../../wasm/analysis/dispersion.js';

const defaultFrame = (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 0));
const defaultCancel = (id) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id));

/**
 * Starts the sweep; returns { cancel }. Callbacks:
 *   onProgress({ result, done, total, doneN, computeMs, frames })  after each slice
 *   onDone(same)     once, after the last cell
 *   onError(error)   bad options (thrown by dispersionSteps) or a failure
 * doneN is how many n of result.n are complete for every series.
 */
export function startSweep(ss, options, { onProgress, onDone, onError, budgetMs = 10, frame = defaultFrame, cancelFrame = defaultCancel, now = () => performance.now() } = {}) {
  let it;
  try {
    it = dispersionSteps(ss, options);
  } catch (e) {
    onError?.(e);
    return { cancel() {} };
  }
  const perN = options.normalizers.length;
  let id = null, stopped = false, done = 0, total = null, result = null, computeMs = 0, frames = 0;
  const report = () => ({ result, done, total, doneN: Math.floor(done / perN), computeMs, frames });
  const step = () => {
    id = null;
    if (stopped) return;
    const t0 = now();
    let r;
    try {
      do {
        r = it.next();
        if (r.done) break;
        done++;
        result = r.value.result;
        total ??= result.n.length * perN;
      } while (now() - t0 < budgetMs);
    } catch (e) {
      stopped = true;
      onError?.(e);
      return;
    }
    computeMs += now() - t0;
    frames++;
    if (r.done) {
      stopped = true;
      result = r.value;
      total = done;
      onProgress?.(report());
      onDone?.(report());
      return;
    }
    onProgress?.(report());
    id = frame(step);
  };
  id = frame(step);
  return {
    cancel() {
      if (stopped) return;
      stopped = true;
      if (id !== null) cancelFrame(id);
      it.return(); // frees the heap buffers of the paused generator
    },
  };
}
