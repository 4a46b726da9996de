// The Attention view's error maps: each chosen random-feature kernel
// (performer's positive features, trigonometric, hybrid) on the view's
// example against exact softmax attention, E = A_kernel - A_softmax, with
// one colour scale for all (the largest |E|). Their parameters are shared by
// name (features, ...) over RF_DEFAULTS; the view sets heads, scale, causal
// and the seed. A kernel whose estimated normalizer of a row is not positive
// (trig, hrf at a large scale) keeps its place with the reason.
import { randomFeatureForms, RF_DEFAULTS } from './schema.js';
import { reason, relativeError } from './compare.js';
import { kernelParams } from '../../analysis/params.js';

/**
 * { maps: [{ id, params (the kernel's own, as run), E (n x m), relErr
 * (‖E‖ / ‖A_softmax‖), outErr (‖out − out_softmax‖ / ‖out_softmax‖), maxAbs }
 * | { id, params, error, domain (the estimated normalizer of a row was <= 0) }], hi (the shared scale: the largest |E|) } or
 * null when no kernel is chosen. ref: the view's softmax attention call.
 */
export function rfErrors(ss, s, inputs, ref, scale) {
  const kernels = randomFeatureForms(ss).filter((k) => s.rf.includes(k.name));
  if (!kernels.length) return null;
  const maps = kernels.map((k) => {
    const params = { ...kernelParams(k, s.rf_params, { defaults: RF_DEFAULTS }), heads: 1, scale, causal: s.causal ? 1 : 0, seed: s.seed };
    const own = Object.fromEntries(Object.entries(params).filter(([name]) => !['heads', 'scale', 'causal'].includes(name)));
    try {
      const r = ss.attend(k.name, inputs, params, { attention: true });
      const E = Array.from(r.attention, (a, t) => a - ref.attention[t]);
      let maxAbs = 0;
      for (const e of E) if (Math.abs(e) > maxAbs) maxAbs = Math.abs(e);
      return { id: k.name, params: own, E, relErr: relativeError(r.attention, ref.attention), outErr: relativeError(r.output, ref.output), maxAbs };
    } catch (e) {
      // a row's estimated normalizer <= 0 (signed features): the kernel is not defined here, said in the view's terms
      if (e?.code === 'SS_ERR_DOMAIN')
        return { id: k.name, params: own, domain: true, error: `not defined at score scale ${s.scale} × 1/√d: a row's estimated normalizer came out ≤ 0 (its features can be negative); lower the scale or use more features` };
      return { id: k.name, params: own, error: reason(e) };
    }
  });
  const hi = Math.max(0, ...maps.filter((x) => !x.error).map((x) => x.maxAbs));
  return { maps, hi: hi || 1 };
}
