// Side-by-side timing, shared by `make bench` (tests/bench/timing.js, with
// Node's CPU or wall clock) and the Performance view (performance.now(), in
// a Web Worker or headless): every candidate doing the same work is timed in
// interleaved rounds -- round r times candidate 1, 2, ..., k for about
// roundMs each, in an order rotated by r -- and the median over rounds is
// reported, so slow drift (other processes, thermal, a busy tab) hits every
// candidate alike. A candidate's fn may return a promise: it is awaited.

async function batch(fn, reps, isAsync) {
  if (isAsync) for (let i = 0; i < reps; i++) await fn();
  else for (let i = 0; i < reps; i++) fn();
}

/** The median of a list of numbers. */
export const median = (a) => {
  const s = [...a].sort((p, q) => p - q), m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
};

/** The number of steps race() reports through onStep: one per candidate's calibration, one per timed round. */
export const raceSteps = (candidates, rounds) => candidates * (1 + rounds);

/**
 * cands: [{ id, fn }] (fn does the work for `units` elements once);
 * st: { rounds, roundMs, warmupMs, minCalls }; now(): nanoseconds;
 * onStep(): after each calibration and each timed round (progress).
 * Returns Map id -> { ns_per_elem (median), min, max, rounds: [...], reps }.
 */
export async function race(cands, units, st, now, onStep = () => {}) {
  const state = [];
  for (const c of cands) {
    const first = c.fn();
    const isAsync = !!first && typeof first.then === 'function';
    if (isAsync) await first;
    // warm up (V8 tiers wasm up from Liftoff to TurboFan), then calibrate
    const t0 = now();
    let calls = 1;
    while (calls < st.minCalls || now() - t0 < st.warmupMs * 1e6) {
      await batch(c.fn, 1, isAsync);
      calls++;
    }
    let reps = 1, el;
    for (;;) {
      const a = now();
      await batch(c.fn, reps, isAsync);
      el = now() - a;
      if (el >= 0.25 * st.roundMs * 1e6 || reps >= 1 << 22) break;
      reps *= 2;
    }
    reps = Math.max(1, Math.round((reps * st.roundMs * 1e6) / Math.max(el, 1)));
    state.push({ c, isAsync, reps, per: [] });
    await onStep();
  }
  for (let r = 0; r < st.rounds; r++)
    for (let j = 0; j < state.length; j++) {
      const s = state[(j + r) % state.length];
      const a = now();
      await batch(s.c.fn, s.reps, s.isAsync);
      s.per.push((now() - a) / s.reps / units);
      await onStep();
    }
  const out = new Map();
  for (const s of state)
    out.set(s.c.id, { ns_per_elem: median(s.per), min: Math.min(...s.per), max: Math.max(...s.per), rounds: s.per, reps: s.reps });
  return out;
}
