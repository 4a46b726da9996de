// Side-by-side timing: every candidate doing the same work (softscope's
// builds, the peers, plain JavaScript, memcpy) is timed in interleaved
// rounds in this one process -- round r times candidate 1, 2, ..., k for
// about roundMs each, in an order rotated by r -- and reports the median
// over rounds, so slow drift (other processes, thermal) hits every
// candidate alike.
//
// Clock: `cpu` (default) is the process's CPU time (user + system, all
// threads): on a shared machine the time this process waits for a core is
// not counted, and the work of a peer's worker thread (onnxruntime-node) is.
// `wall` is hrtime. Every candidate runs single-threaded (tfjs-wasm without
// threads, onnxruntime with one intra-op thread).
//
// A candidate's fn may return a promise (onnxruntime's run): it is awaited.
const wallNs = () => Number(process.hrtime.bigint());
const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
export const CLOCKS = { cpu: cpuNs, wall: wallNs };

export function settings(quick) {
  return quick
    ? { rounds: 3, roundMs: 15, warmupMs: 10, minCalls: 2 }
    : { rounds: 7, roundMs: 60, warmupMs: 40, minCalls: 3 };
}

async function batch(fn, reps, isAsync) {
  if (isAsync) for (let i = 0; i < reps; i++) await fn();
  else for (let i = 0; i < reps; i++) fn();
}

const median = (a) => {
  const s = [...a].sort((p, q) => p - q), m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
};

/**
 * cands: [{ id, fn }] (fn does the work for `units` elements once).
 * Returns Map id -> { ns_per_elem (median), min, max, rounds: [...], reps }.
 */
export async function race(cands, units, st, clock = 'cpu') {
  const now = CLOCKS[clock];
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
  }
  for (let r = 0; r < st.rounds; r++)
    for (let j = 0; j < state.length; j++) {
      const s = state[(j + r) % state.length];
      const a = now();
      await batch(s.c.fn, s.reps, s.isAsync);
      s.per.push((now() - a) / s.reps / units);
    }
  const out = new Map();
  for (const s of state)
    out.set(s.c.id, { ns_per_elem: median(s.per), min: Math.min(...s.per), max: Math.max(...s.per), rounds: s.per, reps: s.reps });
  return out;
}
