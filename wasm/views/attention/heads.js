// The Attention view's head comparison (the softpick paper's): the dormant-
// head example (analysis/attention-examples.js: two heads, head 0 with
// nothing to attend to) through scaled dot-product attention with each
// chosen normalizer, and each head's measures (ss.attentionHeadMeasures):
// the kurtosis and max/median |o| of its output, its mean weight on key 0,
// whether that makes it a sink, and the share of its outputs that are
// exactly 0. Softmax must put a dormant head's mass somewhere (key 0: a
// sink); softpick can give it none.
import { attentionExample } from '../../analysis/attention-examples.js';
import { attentionNormalizers } from './schema.js';
import { reason } from './compare.js';
import { kernelParams } from '../../analysis/params.js';

/**
 * { label, n, heads, dormant (head indices), sinkEps, rows: [{ id, kurtosis,
 * maxMedian, keyZero, sink, zeros (per head), sinkRate } | { id, error }] }
 * or null when no normalizer is chosen. The example's n and seed are the
 * view's; the scale is the view's (× 1/√d_head).
 */
export function headComparison(ss, s) {
  const kernels = attentionNormalizers(ss).filter((k) => s.sinks.includes(k.name));
  if (!kernels.length) return null;
  const ex = attentionExample('dormant', s.n, s.seed);
  const exact = ss.kernels('attention').find((k) => k.role === 'exact_attention');
  const dh = ex.d / ex.heads, dvh = dh;
  const params = { heads: ex.heads, scale: s.scale / Math.sqrt(dh), causal: s.causal ? 1 : 0 };
  const rows = kernels.map((k) => {
    try {
      const r = ss.attend(exact.name, ex, params, { normalizer: k.name, normalizerParams: kernelParams(k, s.params), attention: true });
      const hm = ss.attentionHeadMeasures(r.output, r.attention, { ...r, sinkEps: s.sink_eps });
      const zeros = Array.from({ length: ex.heads }, (_, h) => {
        let z = 0;
        for (let i = 0; i < r.n; i++) for (let c = 0; c < dvh; c++) z += r.output[i * r.dv + h * dvh + c] === 0;
        return z / (r.n * dvh);
      });
      return { id: k.name, kurtosis: Array.from(hm.kurtosis), maxMedian: Array.from(hm.maxMedianRatio), keyZero: Array.from(hm.keyZeroWeight),
        sink: hm.sink, zeros, sinkRate: hm.sinkRate };
    } catch (e) {
      return { id: k.name, error: reason(e) };
    }
  });
  return { label: ex.label, n: ex.n, heads: ex.heads, dormant: ex.dormant, sinkEps: s.sink_eps, scale: s.scale, rows };
}
