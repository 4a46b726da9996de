// The softmax a JavaScript user writes over Float32Arrays -- the "plain JS"
// column of the benchmark -- plus the input generator and float64 reference
// that mirror tests/bench/bench_ref.c, so JS sees the very same logits.

// max, then Math.exp and sum, then divide: three passes (softmax rows).
export function softmaxJs(x, y) {
  const n = x.length;
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > m) m = x[i];
  let s = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.exp(x[i] - m);
    y[i] = e;
    s += e;
  }
  for (let i = 0; i < n; i++) y[i] = y[i] / s;
}

// log_softmax: x_i - (m + log sum exp(x - m)).
export function logSoftmaxJs(x, y) {
  const n = x.length;
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > m) m = x[i];
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(x[i] - m);
  const lse = m + Math.log(s);
  for (let i = 0; i < n; i++) y[i] = x[i] - lse;
}

// Which plain-JS loop stands for each kernel row: a user writes "a softmax",
// so the probability kernels (three-pass, online, two-pass) share softmaxJs.
export const jsVariants = {
  softmax: softmaxJs,
  online_softmax: softmaxJs,
  two_pass_softmax: softmaxJs,
  log_softmax: logSoftmaxJs,
};

// splitmix64 -> 53-bit uniform u in [0, 1) -> fround(lo + (hi - lo) * u),
// exactly as bench_fill_uniform in bench_ref.c.
export function fillUniform(n, seed, lo, hi) {
  const M = (1n << 64n) - 1n;
  const x = new Float32Array(n);
  let s = BigInt(seed);
  for (let i = 0; i < n; i++) {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    z ^= z >> 31n;
    const u = Number(z >> 11n) * 2 ** -53;
    let v = Math.fround(lo + (hi - lo) * u);
    if (v >= hi) v = lo;
    x[i] = v;
  }
  return x;
}

// Float64 softmax / log-softmax with a compensated sum (as bench_ref.c).
export function refSoftmax64(x, log) {
  const n = x.length;
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] > m) m = x[i];
  const out = new Float64Array(n);
  let s = 0, c = 0;
  for (let i = 0; i < n; i++) {
    const e = Math.exp(x[i] - m);
    out[i] = e;
    const t = s + e;
    c += Math.abs(s) >= Math.abs(e) ? s - t + e : e - t + s;
    s = t;
  }
  s += c;
  if (log) {
    const lse = m + Math.log(s);
    for (let i = 0; i < n; i++) out[i] = x[i] - lse;
  } else {
    for (let i = 0; i < n; i++) out[i] /= s;
  }
  return out;
}

// Same metric as bench_max_rel_err: relative error of p over ref >= floor;
// for log-probabilities the absolute error of log p over exp(ref) >= floor.
export function maxRelErr(y, ref, log, floor = 1e-30) {
  let worst = 0, at = 0;
  const logFloor = Math.log(floor);
  for (let i = 0; i < y.length; i++) {
    let e;
    if (log) {
      if (ref[i] < logFloor) continue;
      e = Math.abs(y[i] - ref[i]);
    } else {
      if (ref[i] < floor) continue;
      e = Math.abs(y[i] - ref[i]) / ref[i];
    }
    if (!(e <= worst)) { worst = Number.isNaN(e) ? Infinity : e; at = i; }
  }
  return { maxRelErr: worst, at };
}
