// The attention panel's logic without the component: the matrices of every
// chosen normalizer (sdpa) and linear form for the chosen example, their
// row measures, the optional post-softmax quantization of each row, the
// distance of each to exact softmax attention, and the heat-map pixels.
import { attentionExample } from '../../../wasm/attention-examples.js';
import { paramsFor } from './params.js';

/** The example of the state (sentence has its own fixed length). */
export function exampleOf(a) {
  return attentionExample(a.example, a.n, a.seed);
}

/** Quantize each row of A (n x m) with scheme, then renormalize rows with a positive sum (post-softmax quantization). */
export function quantizeRows(ss, A, n, m, scheme, bits) {
  const out = new Float32Array(A.length);
  const k = ss.kernel(scheme, 'quantizer');
  const params = k.params.some((p) => p.name === 'bits') ? { bits } : {};
  for (let i = 0; i < n; i++) {
    const row = A.subarray(i * m, (i + 1) * m);
    let y;
    try {
      y = ss.quantize(scheme, row.map((v) => Math.max(0, v)), params).output;
    } catch {
      y = row; // e.g. a row of weights outside the quantizer's domain
    }
    let s = 0;
    for (const v of y) s += v;
    for (let j = 0; j < m; j++) out[i * m + j] = s > 0 ? y[j] / s : y[j];
  }
  return out;
}

/** Mean total-variation distance between the rows of two n x m matrices. */
export function meanTv(A, B, n, m) {
  let tot = 0;
  for (let i = 0; i < n; i++) {
    let tv = 0;
    for (let j = 0; j < m; j++) tv += Math.abs(A[i * m + j] - B[i * m + j]);
    tot += tv / 2;
  }
  return tot / n;
}

/** Every panel of the state: [{ id, label, kind: 'normalizer' | 'linear', A, out, rows, error, tv, outErr }]. */
export function computePanels(ss, a, sharedParams, ex = exampleOf(a)) {
  const n = ex.n, m = ex.n;
  const scale = a.scale / Math.sqrt(ex.d);
  const exact = ss.attend('sdpa', ex, { scale, causal: a.causal }, { normalizer: 'softmax', attention: true });
  const relErr = (out) => {
    let e = 0, s = 0;
    for (let t = 0; t < out.length; t++) e += (out[t] - exact.output[t]) ** 2, s += exact.output[t] ** 2;
    return Math.sqrt(e / (s || 1));
  };
  const finish = (p, r) => {
    let A = r.attention;
    if (a.quant !== 'none' && p.kind === 'normalizer') A = quantizeRows(ss, A, n, m, a.quant, a.bits);
    const meas = ss.attentionMeasures(A, 1, n, m);
    return { ...p, A, out: r.output, rows: meas.rows, tv: meanTv(A, exact.attention, n, m), outErr: relErr(r.output) };
  };
  const panels = [];
  for (const name of a.norms) {
    const k = ss.kernels('normalizer').find((x) => x.name === name);
    if (!k || k.output === 'log_probs') continue;
    const p = { id: name, label: name, kind: 'normalizer', weights: k.output === 'weights' };
    try {
      // softmax is the reference computed above: reuse it
      const r = name === 'softmax' ? exact
        : ss.attend('sdpa', ex, { scale, causal: a.causal }, { normalizer: name, normalizerParams: paramsFor(k, sharedParams), attention: true });
      panels.push(finish(p, r));
    } catch (e) {
      panels.push({ ...p, error: e.message });
    }
  }
  for (const name of a.linear) {
    const k = ss.kernels('attention').find((x) => x.name === name);
    if (!k) continue;
    const params = { causal: a.causal, ...(k.params.some((x) => x.name === 'scale') ? { scale } : {}) };
    const p = { id: name, label: name, kind: 'linear', weights: name === 'galerkin' };
    try {
      panels.push(finish(p, ss.attend(name, ex, params, { attention: true })));
    } catch (e) {
      panels.push({ ...p, error: e.message });
    }
  }
  return { n, m, ex, panels, exact };
}

// Colours by sqrt(|v| / max) in LUT steps: [positive ramp, negative ramp], RGBA packed little-endian.
const STEPS = 1024;
const LUT = [0, 1].map((neg) => Uint32Array.from({ length: STEPS + 1 }, (_, i) => {
  const s = Math.sqrt(i / STEPS);
  const [r, g, b] = neg ? [250 - 40 * s, 235 - 180 * s, 235 - 180 * s] : [235 - 205 * s, 242 - 150 * s, 250 - 80 * s];
  return (255 << 24 | Math.round(b) << 16 | Math.round(g) << 8 | Math.round(r)) >>> 0;
}));
const WHITE = 0xffffffff;

/** RGBA pixels of an n x m matrix: white at exactly 0 (so sparsity shows),
 *  blue for positive weights (sqrt scale up to the max), red for negative. */
export function heatPixels(A, n, m) {
  let hi = 0;
  for (let t = 0; t < n * m; t++) hi = Math.max(hi, Math.abs(A[t]));
  const px = new Uint8ClampedArray(n * m * 4), words = new Uint32Array(px.buffer);
  const k = STEPS / (hi || 1);
  for (let t = 0; t < n * m; t++) {
    const v = A[t];
    words[t] = v === 0 ? WHITE : v > 0 ? LUT[0][Math.min(STEPS, Math.ceil(v * k))] : LUT[1][Math.min(STEPS, Math.ceil(-v * k))];
  }
  return px;
}
