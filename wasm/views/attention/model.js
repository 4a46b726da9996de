// The Attention view's numbers: the example through scaled dot-product
// attention (the registry's exact form) with each chosen normalizer, and
// through each chosen linear form; each matrix's row measures (from
// ss.attentionMeasures, whatever it reports), optionally after post-softmax
// quantization of each row, and its distance to softmax attention; the
// random-feature kernels' error maps (random-features.js) and the head
// comparison on the dormant-head example (heads.js).
import { attentionExample } from '../../analysis/attention-examples.js';
import { attentionNormalizers, linearForms, rowQuantizers, QUANT_DEFAULTS } from './schema.js';
import { reason, meanTv, applyWeights, relativeError } from './compare.js';
import { kernelParams } from '../../analysis/params.js';
import { rfErrors } from './random-features.js';
import { headComparison } from './heads.js';

export { meanTv, applyWeights, relativeError };

// The reference every map is compared with: attention as Vaswani et al.
// define it, with softmax.
export const REFERENCE = 'softmax';
// The row measures of ss.attentionMeasures, in its order.
export const ROW_MEASURES = ['entropy', 'zeros', 'max', 'sink'];

/** The example of the state. */
export function exampleOf(s) {
  return attentionExample(s.example, s.n, s.seed);
}

/** Each row of A (n x m) quantized by a quantizer, then renormalized to sum 1 (post-softmax quantization). */
export function quantizeRows(ss, A, n, m, scheme, params) {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    const row = Float32Array.from(A.subarray(i * m, (i + 1) * m), (v) => Math.max(0, v));
    let y;
    try {
      y = ss.quantize(scheme, row, params).output;
    } catch (e) {
      throw new Error(`post-softmax ${scheme}: ${reason(e)}`);
    }
    let s = 0;
    for (const v of y) s += v;
    for (let j = 0; j < m; j++) out[i * m + j] = s > 0 ? y[j] / s : y[j];
  }
  return out;
}

/**
 * { example: { name, label, tokens, n, d }, n, m, scale, causal, quant, row,
 *   panels: [{ id, kind: 'normalizer' | 'linear', A (n x m, row-major),
 *   signed, rows: { entropy, zeros, max, sink: per row }, mean: { ... },
 *   head: { per-head measures the API reports besides these }, tv (mean
 *   TV distance of the rows to softmax's), outErr (‖out − out_softmax‖ /
 *   ‖out_softmax‖; quantized: out = A V), quantized } | { id, kind, error }] }.
 */
export function compute(ss, s) {
  const ex = exampleOf(s);
  const n = ex.n, m = ex.n;
  const exact = ss.kernels('attention').find((k) => k.role === 'exact_attention');
  const scale = s.scale / Math.sqrt(ex.d);
  const inputs = { q: ex.q, k: ex.k, v: ex.v, n, m };
  const sdpa = (normalizer, normalizerParams) =>
    ss.attend(exact.name, inputs, { scale, causal: s.causal ? 1 : 0 }, { normalizer, normalizerParams, attention: true });
  const ref = sdpa(REFERENCE);
  const quantizer = s.quant !== 'none' ? rowQuantizers(ss).find((k) => k.name === s.quant) : null;
  const qParams = quantizer && kernelParams(quantizer, s.quant_params, { scoped: true, defaults: QUANT_DEFAULTS });

  const measure = (base, r, quantize) => {
    const A = quantize ? quantizeRows(ss, r.attention, n, m, quantizer.name, qParams) : r.attention;
    const { rows, headDistance, ...perHead } = ss.attentionMeasures(A, 1, n, m);
    const stride = rows.length / n;
    const byRow = {}, mean = {};
    ROW_MEASURES.forEach((name, c) => {
      byRow[name] = Array.from({ length: n }, (_, i) => rows[stride * i + c]);
      mean[name] = byRow[name].reduce((a, b) => a + b, 0) / n;
    });
    const head = {};
    for (const [name, v] of Object.entries(perHead)) if (v && v.length === 1) head[name] = Number(v[0]);
    let signed = false;
    for (const v of A) if (v < 0) { signed = true; break; }
    // quantized weights give their own output A V
    const out = quantize ? applyWeights(A, ex.v, n, m) : r.output;
    return { ...base, A: Array.from(A), signed, rows: byRow, mean, head, tv: meanTv(A, ref.attention, n, m), outErr: relativeError(out, ref.output), quantized: !!quantize };
  };

  const panels = [];
  for (const k of attentionNormalizers(ss).filter((x) => s.normalizers.includes(x.name))) {
    const base = { id: k.name, kind: 'normalizer', label: k.name, weights: k.output === 'weights' };
    try {
      panels.push(measure(base, k.name === REFERENCE ? ref : sdpa(k.name, kernelParams(k, s.params)), !!quantizer));
    } catch (e) {
      panels.push({ ...base, error: reason(e) });
    }
  }
  for (const k of linearForms(ss).filter((x) => s.linear.includes(x.name))) {
    const base = { id: k.name, kind: 'linear', label: k.name };
    try {
      const own = kernelParams(k, s.linear_params, { scoped: true });
      const params = { ...own, causal: s.causal ? 1 : 0 };
      if ('scale' in own) params.scale = scale;
      if ('heads' in own) params.heads = 1;
      panels.push(measure(base, ss.attend(k.name, inputs, params, { attention: true }), false));
    } catch (e) {
      panels.push({ ...base, error: reason(e) });
    }
  }
  return {
    example: { name: ex.name, label: ex.label, tokens: ex.tokens, n, d: ex.d }, n, m, scale: s.scale, causal: s.causal,
    quant: quantizer ? { name: quantizer.name, params: qParams } : null, row: s.row, panels,
    rf: rfErrors(ss, s, inputs, ref, scale), heads: headComparison(ss, s),
  };
}

/** The matrices as a table (CSV): one row per (map, query i, key j); the error maps as `<kernel> - softmax`. */
export function table(d) {
  const rows = [];
  const tok = d.example.tokens;
  const put = (id, M) => { for (let i = 0; i < d.n; i++) for (let j = 0; j < d.m; j++) rows.push([id, i, j, tok[i], tok[j], M[i * d.m + j]]); };
  for (const p of d.panels) if (!p.error) put(p.id, p.A);
  for (const e of d.rf?.maps ?? []) if (!e.error) put(`${e.id} - ${REFERENCE}`, e.E);
  return { columns: ['map', 'i', 'j', 'query', 'key', 'weight'], rows };
}
