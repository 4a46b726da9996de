// The quantizers as a user would write them in plain JavaScript -- the
// "plain JS" column of the quantizer benchmark (run-quantizers.js). Each
// returns the dequantized values (and, for int4, the packed bytes).

const roundEven = (v) => {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : r;
};

export function int8Js(x) {
  let m = 0;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i]));
  const s = m / 127 || 1, y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = Math.max(-127, Math.min(127, roundEven(x[i] / s))) * s;
  return y;
}

export function int4GroupPackedJs(x, group = 32) {
  const y = new Float32Array(x.length), bytes = new Uint8Array(x.length >> 1);
  for (let g0 = 0; g0 < x.length; g0 += group) {
    let lo = 0, hi = 0;
    for (let i = g0; i < g0 + group; i++) { lo = Math.min(lo, x[i]); hi = Math.max(hi, x[i]); }
    const s = (hi - lo) / 15 || 1, z = roundEven(-lo / s);
    for (let i = g0; i < g0 + group; i++) {
      const q = Math.max(0, Math.min(15, roundEven(x[i] / s) + z));
      y[i] = (q - z) * s;
      bytes[i >> 1] |= q << ((i & 1) * 4);
    }
  }
  return { y, bytes };
}

export function pow2Js(x, bits = 4) {
  let s = 0;
  for (let i = 0; i < x.length; i++) s = Math.max(s, x[i]);
  const qmax = (1 << bits) - 1, y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const r = x[i] / s;
    if (!(r >= 2 ** -qmax)) { y[i] = 0; continue; }
    const q = Math.min(qmax - 1, Math.max(0, Math.round(-Math.log2(r))));
    y[i] = s * 2 ** -q;
  }
  return y;
}

export function fp8E4M3Js(x) {
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const a = Math.abs(x[i]);
    const e = Math.max(-6, a > 0 ? Math.floor(Math.log2(a)) : -6);
    const step = 2 ** (e - 3);
    const q = Math.min(448, roundEven(a / step) * step);
    y[i] = x[i] < 0 ? -q : q;
  }
  return y;
}

/** Seeded N(0, 1) weights (Box-Muller) and a softmax of N(0, 3^2) logits. */
export function weights(n, seed) {
  const x = new Float32Array(n);
  let s = seed >>> 0;
  const u = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  for (let i = 0; i < n; i++) x[i] = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  return x;
}

export function softmaxLike(n, seed) {
  const x = weights(n, seed);
  let m = -Infinity, t = 0;
  for (const v of x) m = Math.max(m, 3 * v);
  for (let i = 0; i < n; i++) t += (x[i] = Math.exp(3 * x[i] - m));
  for (let i = 0; i < n; i++) x[i] /= t;
  return x;
}
