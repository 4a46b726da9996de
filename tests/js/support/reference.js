// Independent float64 references and deterministic random inputs for the JS
// tests. Nothing here calls softscope: expected values never come from the
// code under test.

/** A small deterministic PRNG (mulberry32): uniform in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n logits uniform in [-range/2, range/2), as float32. */
export function randomLogits(n, seed, range = 20) {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * range);
}

/** n positive values in [lo, hi), as float32. */
export function randomPositive(n, seed, lo = 0.05, hi = 1) {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * r());
}

/** A probability vector (float32, sums to 1 up to rounding). */
export function randomProbs(n, seed) {
  const w = randomPositive(n, seed);
  let s = 0;
  for (const v of w) s += v;
  return w.map((v) => v / s);
}

/** softmax(x / T) in float64, from the float32 inputs. */
export function refSoftmax(x, T = 1) {
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  const e = Array.from(x, (v) => (v === -Infinity ? 0 : Math.exp((v - m) / T)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

export function refLogSumExp(x) {
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  let s = 0;
  for (const v of x) if (v !== -Infinity) s += Math.exp(v - m);
  return m + Math.log(s);
}

/** Shannon entropy in nats, 0 log 0 = 0. */
export function refEntropy(p) {
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log(v);
  return h;
}

/** max_i |y_i - ref_i| / |ref_i| over entries with |ref_i| >= floor. */
export function maxRelErr(y, ref, floor = 1e-30) {
  let e = 0, at = -1;
  for (let i = 0; i < y.length; i++) {
    if (Math.abs(ref[i]) < floor) continue;
    const r = Math.abs(y[i] - ref[i]) / Math.abs(ref[i]);
    if (r > e) { e = r; at = i; }
  }
  return { err: e, at };
}

export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Directional derivative of f (Float32Array -> number, computed in double)
 * along v at x, by central differences with one Richardson step:
 * (4 D(h/2) - D(h)) / 3 has error O(h^4) instead of O(h^2). The perturbed
 * points are rounded to float32 (what the kernel reads), so the step actually
 * taken is used, coordinate by coordinate, through the projection onto v.
 */
export function directionalFD(f, x, v, h = 2e-2) {
  const D = (step) => {
    const xp = Float32Array.from(x, (xi, i) => xi + step * v[i]);
    const xm = Float32Array.from(x, (xi, i) => xi - step * v[i]);
    // The float32 step actually taken, projected on v (v is a unit vector).
    let taken = 0;
    for (let i = 0; i < x.length; i++) taken += (xp[i] - xm[i]) * v[i];
    return (f(xp) - f(xm)) / taken;
  };
  return (4 * D(h / 2) - D(h)) / 3;
}

/** A random unit vector (float64). */
export function randomUnit(n, seed) {
  const r = rng(seed);
  const v = Array.from({ length: n }, () => r() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((a) => a / norm);
}

/**
 * Default params of a registry kernel, with the ones bounded by the input
 * length (n_bound: a count like top-k's k, or an index) brought within n, so
 * registry-wide tests can run every kernel on short vectors.
 */
export function fitParams(k, n, params = {}) {
  const out = { ...params };
  for (const p of k.params) {
    if (!p.n_bound) continue;
    const v = out[p.name] ?? p.default;
    const hi = p.n_bound === 'le' ? n : n - 1;
    if (v > hi) out[p.name] = Math.max(hi, p.min ?? 0);
  }
  return out;
}

/** Pearson kurtosis m4 / m2^2 of values, in float64 (0 for a constant vector, as the C library reports it). */
export function refKurtosis(x) {
  const a = Array.from(x), mu = a.reduce((s, v) => s + v, 0) / a.length;
  let m2 = 0, m4 = 0;
  for (const v of a) { m2 += (v - mu) ** 2; m4 += (v - mu) ** 4; }
  m2 /= a.length; m4 /= a.length;
  return m2 === 0 ? 0 : m4 / (m2 * m2);
}

/** AdaRound's calibration recipe from normals z (cols x batch): an AR(1) chain along the inputs in double, each input rounded to float. */
export function refArInputs(z, cols, batch, corr) {
  const x = new Float32Array(cols * batch), c = Math.sqrt(1 - corr * corr);
  for (let b = 0; b < batch; b++) {
    let prev = z[b];
    x[b] = prev;
    for (let k = 1; k < cols; k++) x[k * batch + b] = prev = corr * prev + c * z[k * batch + b];
  }
  return x;
}

/** |(W - Wq) X|_F^2 in float64 (W, Wq: rows x cols; X: cols x batch). */
export function refLayerError(w, wq, x, rows, cols, batch) {
  let e = 0;
  for (let i = 0; i < rows; i++)
    for (let b = 0; b < batch; b++) {
      let s = 0;
      for (let k = 0; k < cols; k++) s += (w[i * cols + k] - wq[i * cols + k]) * x[k * batch + b];
      e += s * s;
    }
  return e;
}

/** The next double after v towards +Infinity (dir = 1) or -Infinity (dir = -1). */
const F64 = new Float64Array(1), F64_BITS = new BigInt64Array(F64.buffer);
export function nextDouble(v, dir) {
  if (v === 0) return dir * Number.MIN_VALUE;
  F64[0] = v;
  F64_BITS[0] += (v > 0) === (dir > 0) ? 1n : -1n;
  return F64[0];
}
