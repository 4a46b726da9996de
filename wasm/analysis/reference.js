// Independent float64 references for `softscope check`: the definitions
// written out in plain JavaScript from their papers, not from the C code, so
// a kernel that drifts from its definition is caught.

/** softmax(x / t) in float64 (masked entries -Infinity give exactly 0):
 *  exp((x_i - max x) / t), the difference taken first, so any t > 0 down to
 *  5e-324 is exact (x / t alone overflows: 1 / 1e-39 is past float32). */
export function softmax(x, t = 1) {
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  const e = Array.from(x, (v) => Math.exp((v - m) / t));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

/** log softmax(x) = x - logsumexp(x). */
export function logSoftmax(x) {
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  let s = 0;
  for (const v of x) s += Math.exp(v - m);
  const lse = m + Math.log(s);
  return Array.from(x, (v) => v - lse);
}

/** sparsemax(x) = [x - tau]_+ with sum 1 (Martins & Astudillo 2016, Algorithm 1: sort). */
export function sparsemax(x) {
  const z = Array.from(x).filter((v) => v !== -Infinity).sort((a, b) => b - a);
  let cum = 0, k = 0, tau = 0;
  for (let j = 0; j < z.length; j++) {
    cum += z[j];
    if (1 + (j + 1) * z[j] > cum) { k = j + 1; tau = (cum - 1) / k; }
  }
  return Array.from(x, (v) => Math.max(0, v - tau));
}

/** 1.5-entmax(x) = [x/2 - tau]_+^2 with sum 1 (Peters, Niculae & Martins 2019, Algorithm 2: sort). */
export function entmax15(x) {
  const z = Array.from(x).filter((v) => v !== -Infinity).map((v) => v / 2).sort((a, b) => b - a);
  let tau = -Infinity, s1 = 0, s2 = 0;
  for (let k = 1; k <= z.length; k++) {
    s1 += z[k - 1];
    s2 += z[k - 1] * z[k - 1];
    const mean = s1 / k, ss = k * (s2 / k - mean * mean);
    const delta = (1 - ss) / k;
    if (delta < 0) break;
    const t = mean - Math.sqrt(delta);
    if (t <= z[k - 1]) tau = t;
  }
  return Array.from(x, (v) => Math.max(0, v / 2 - tau) ** 2);
}

/** ReLU attention (Guo et al. 2024, after Wortsman et al. 2023): relu(x_i) / L,
 *  L the number of entries that are not -Infinity (the keys a causal query sees). */
export function reluAttention(x) {
  const len = Array.from(x).filter((v) => v !== -Infinity).length;
  return Array.from(x, (v) => (v > 0 ? v / len : 0));
}

/** Shannon entropy in nats. */
export function entropy(p) {
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log(v);
  return h;
}

/** KL(p || q) in nats (Infinity where q drops mass p has). */
export function klDivergence(p, q) {
  let d = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) d += q[i] > 0 ? p[i] * Math.log(p[i] / q[i]) : Infinity;
  return d;
}

/** References by kernel name: (x, params) -> expected output. */
export const NORMALIZER_REFERENCES = {
  softmax: (x) => softmax(x),
  online_softmax: (x) => softmax(x),
  two_pass_softmax: (x) => softmax(x),
  log_softmax: (x) => logSoftmax(x),
  softmax_temperature: (x, p) => softmax(Array.from(x, (v) => v / p.temperature)),
  sparsemax: (x) => sparsemax(x),
  entmax15: (x) => entmax15(x),
  relu_attention: (x) => reluAttention(x),
};

export const MEASURE_REFERENCES = {
  entropy: (p) => entropy(p),
  kl_divergence: (p, q) => klDivergence(p, q),
};

/** Losses: (x, target) -> { loss, grad }. Cross-entropy = logsumexp(x) - x_t, its gradient softmax(x) - e_t. */
export const LOSS_REFERENCES = {
  cross_entropy: (x, t) => {
    const ls = logSoftmax(x), p = softmax(x);
    return { loss: -ls[t], grad: p.map((v, i) => v - (i === t ? 1 : 0)) };
  },
};

/** Literal golden vectors, worked out by hand from the definitions. */
export const GOLDEN = [
  // softmax([0, ln 2, ln 3]) = [1, 2, 3] / 6
  { kernel: 'softmax', x: [0, Math.log(2), Math.log(3)], y: [1 / 6, 2 / 6, 3 / 6] },
  // sparsemax([1, 0.5, -1]): support {0, 1}, tau = (1.5 - 1) / 2 = 0.25
  { kernel: 'sparsemax', x: [1, 0.5, -1], y: [0.75, 0.25, 0] },
  // entmax15([2, 0]): z = [1, 0]; (1 - tau)^2 + (-tau)^2 = 1 on both gives tau = 0; so [1, 0]
  { kernel: 'entmax15', x: [2, 0], y: [1, 0] },
  // log_softmax([0, 0]) = [-ln 2, -ln 2]
  { kernel: 'log_softmax', x: [0, 0], y: [-Math.LN2, -Math.LN2] },
  // a masked entry gets exactly 0
  { kernel: 'softmax', x: [1, -Infinity, 1], y: [0.5, 0, 0.5] },
  // relu_attention([2, -1, 0.5, -Inf]): L = 3 unmasked entries, so [2/3, 0, 1/6, 0]
  { kernel: 'relu_attention', x: [2, -1, 0.5, -Infinity], y: [2 / 3, 0, 0.5 / 3, 0] },
];
