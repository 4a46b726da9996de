// The plain-JavaScript normalizers: what a JavaScript user writes over
// Float32Arrays, the "plain JS" line of `make bench` (tests/bench/plain-js.js)
// and of the playground's Performance view. One copy, here.

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

// sparsemax (Martins & Astudillo 2016) as one writes it from the paper:
// sort, find the support size k(z) by the running sum, tau, clip.
export function sparsemaxJs(x, y) {
  const n = x.length, z = Float64Array.from(x).sort().reverse();
  let cum = 0, k = 0, ck = 0;
  for (let j = 0; j < n; j++) {
    cum += z[j];
    if (1 + (j + 1) * z[j] > cum) k = j + 1, ck = cum;
  }
  const tau = (ck - 1) / k;
  for (let i = 0; i < n; i++) y[i] = Math.max(x[i] - tau, 0);
}

// 1.5-entmax (Peters, Niculae & Martins 2019) by the exact sort-based
// algorithm of the paper on z = x / 2: tau_k = mean_k - sqrt((1 - ss_k) / k)
// over the k largest (ss_k = sum of squared deviations, updated stably), the
// support is the number of k with tau_k <= z_(k).
export function entmax15Js(x, y) {
  const n = x.length, z = Float64Array.from(x, (v) => v / 2).sort().reverse();
  const taus = new Float64Array(n);
  let mean = 0, ss = 0, support = 0;
  for (let k = 1; k <= n; k++) {
    const d = z[k - 1] - mean;
    mean += d / k;
    ss += d * (z[k - 1] - mean); // Welford
    taus[k - 1] = mean - Math.sqrt(Math.max((1 - ss) / k, 0));
    if (taus[k - 1] <= z[k - 1]) support = k;
  }
  const tau = taus[support - 1];
  for (let i = 0; i < n; i++) {
    const v = Math.max(x[i] / 2 - tau, 0);
    y[i] = v * v;
  }
}

// Which plain-JS loop stands for a normalizer row (a user writes "a
// softmax", so online and two-pass softmax share softmaxJs).
export const jsVariants = {
  softmax: softmaxJs,
  online_softmax: softmaxJs,
  two_pass_softmax: softmaxJs,
  log_softmax: logSoftmaxJs,
  sparsemax: sparsemaxJs,
  entmax15: entmax15Js,
};
