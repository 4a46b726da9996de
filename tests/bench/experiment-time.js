// Time to 95 % (issue 27: "the default experiment reaches >= 95 %
// in-distribution accuracy on max retrieval in <= 20 s in Chromium"): the
// Experiments view's default state run by the view's own stepper
// (wasm/views/experiments: start(ss, state), the numbers its Train button
// draws), in slices of sliceMs as its Web Worker runs them, timed on the
// wall clock from start() (pressing Train) to
//   reached   each normalizer's first training window whose mean accuracy
//             is >= 0.95 (data().runs[i].reached: the view's REACHED),
//             seen at the end of the slice it happened in; the experiment's
//             time is the slowest normalizer's (they train round robin)
//   tested    each normalizer's test at trainMax (data().runs[i].lengths,
//             in-distribution: the test set's seed, not the training
//             batches), the first evaluation after training
// The run stops once every normalizer is tested at trainMax (the longer
// test lengths and the quantisation panel that follow are not timed), or
// at limitMs. Engine-neutral: `make bench-browser` runs it in the page
// (browser/page.js), and it runs in Node as well.
import { defaults, settle } from '../../wasm/state/schema.js';

/** The experiments view's schema and stepper (its model and schema modules:
    not index.js, whose figure imports preact by a bare name a page without
    a bundler cannot resolve), or { missing: why } where this tree has none. */
export async function experimentsView() {
  try {
    const [{ start }, { schema }] = await Promise.all([import('../../wasm/views/experiments/model.js'), import('../../wasm/views/experiments/schema.js')]);
    return { id: 'experiments', schema, start };
  } catch (e) {
    return { missing: `no experiments view in this tree (wasm/views/experiments: ${String(e?.message ?? e).split('\n')[0]})` };
  }
}

/**
 * ss: a softscope instance; v: the experiments view; over: keys that replace
 * the defaults (a test's short run); now(): ms; pause(): lets the engine
 * breathe between slices (the page's event loop). Returns
 * { state, sliceMs, runs: [{ name, reached, reachedMs, reachedStepsDone,
 *   testAccuracy, testedMs, diverged, error }], seconds (every run reached:
 *   the slowest one's time, else null), trainSeconds, testedSeconds,
 *   stopped: 'tested' | 'limit' | 'done' }.
 */
export async function timeToReached(ss, v, { over = {}, sliceMs = 50, limitMs = 120e3, now = () => performance.now(), pause = async () => {} } = {}) {
  const state = settle(v.schema, { ...defaults(v.schema, ss), ...over }, ss);
  const t0 = now();
  const stepper = v.start(ss, state);
  let d = stepper.data();
  const runs = d.runs.map((r) => ({ name: r.name, reached: null, reachedMs: null, reachedStepsDone: null, testAccuracy: null, testedMs: null, diverged: null, error: null }));
  let trainMs = null, stopped = 'done';
  try {
    for (let more = true; more;) {
      more = stepper.step(sliceMs);
      d = stepper.data();
      const t = now() - t0;
      d.runs.forEach((r, i) => {
        const o = runs[i];
        if (r.reached !== null && o.reached === null) Object.assign(o, { reached: r.reached, reachedMs: t, reachedStepsDone: r.step });
        const at = r.lengths.find((x) => x.n === d.trainN[1]);
        if (at && o.testedMs === null) Object.assign(o, { testAccuracy: at.accuracy, testedMs: t });
        o.diverged = r.diverged;
        o.error = r.error ?? null;
      });
      if (d.phase !== 'train' && trainMs === null) trainMs = t;
      const settled = (o) => o.testedMs !== null || o.diverged !== null || o.error !== null;
      if (runs.every(settled)) { stopped = 'tested'; break; }
      if (t > limitMs) { stopped = 'limit'; break; }
      await pause();
    }
  } finally {
    stepper.stop?.();
  }
  const s = (ms) => (ms === null ? null : ms / 1000);
  const all = (key) => (runs.every((o) => o[key] !== null) ? Math.max(...runs.map((o) => o[key])) : null);
  return { state, sliceMs, steps: d.steps, trainN: d.trainN, runs, seconds: s(all('reachedMs')), trainSeconds: s(trainMs), testedSeconds: s(all('testedMs')), stopped };
}
