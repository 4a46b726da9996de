// In-process timing with the same method as bench.c: warm up (lets V8 tier
// up), calibrate a repetition count by doubling, then several trials; report
// the median (and min/max) of ns per call divided by n.
const nowNs = () => Number(process.hrtime.bigint());

export function settings(quick) {
  return quick
    ? { trialMs: 5, warmupMs: 10, trials: 3, trialsLarge: 1 }
    : { trialMs: 25, warmupMs: 20, trials: 7, trialsLarge: 5 };
}

export function timeCall(fn, n, st) {
  const t0 = nowNs();
  let calls = 0;
  do { fn(); calls++; } while (calls < 3 || nowNs() - t0 < st.warmupMs * 1e6);
  const trialNs = st.trialMs * 1e6;
  let one;
  for (let r = 1; ; r *= 2) {
    const a = nowNs();
    for (let i = 0; i < r; i++) fn();
    const el = nowNs() - a;
    one = el / r;
    if (el >= 0.1 * trialNs || r >= 1 << 24) break;
  }
  const reps = Math.max(1, Math.floor(trialNs / Math.max(one, 1)));
  const trials = one > trialNs ? st.trialsLarge : st.trials;
  const per = [];
  for (let t = 0; t < trials; t++) {
    const a = nowNs();
    for (let i = 0; i < reps; i++) fn();
    per.push((nowNs() - a) / reps / n);
  }
  per.sort((p, q) => p - q);
  const mid = per.length >> 1;
  const median = per.length % 2 ? per[mid] : 0.5 * (per[mid - 1] + per[mid]);
  return { ns_per_elem: median, min: per[0], max: per[per.length - 1], reps, trials };
}
