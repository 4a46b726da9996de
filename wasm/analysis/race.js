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

// The clock's reading across one batch of reps calls.
async function timed(now, fn, reps, isAsync) {
  const a = now();
  await batch(fn, reps, isAsync);
  return now() - a;
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
    // calibrate: double reps until a batch takes a quarter of a round, twice
    // in a row -- a pause (GC, a tier-up, another tab) inside one batch must
    // not pass for the kernel's time, or reps comes out far too small
    const target = 0.25 * st.roundMs * 1e6;
    let reps = 1, el;
    for (;;) {
      el = await timed(now, c.fn, reps, isAsync);
      if (el >= target) {
        const again = await timed(now, c.fn, reps, isAsync);
        if (again >= target) { el = Math.min(el, again); break; }
      }
      if (reps >= 1 << 22) break;
      reps *= 2;
    }
    reps = Math.max(1, Math.round((reps * st.roundMs * 1e6) / Math.max(el, 1)));
    state.push({ c, isAsync, reps, per: [] });
    await onStep();
  }
  for (let r = 0; r < st.rounds; r++)
    for (let j = 0; j < state.length; j++) {
      const s = state[(j + r) % state.length];
      // a coarse clock (a browser without cross-origin isolation ticks every
      // 0.1 ms) can read 0 for a short batch: a round is never reported as free
      let reps = s.reps, el = await timed(now, s.c.fn, reps, s.isAsync);
      while (el <= 0 && reps < s.reps * 1024) el = await timed(now, s.c.fn, (reps *= 2), s.isAsync);
      s.per.push(el / reps / units);
      await onStep();
    }
  const out = new Map();
  for (const s of state)
    out.set(s.c.id, { ns_per_elem: median(s.per), min: Math.min(...s.per), max: Math.max(...s.per), rounds: s.per, reps: s.reps });
  return out;
}
