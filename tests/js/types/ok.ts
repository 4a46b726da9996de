// Must compile under tsc --strict: registry kernel names and parameters.
import { createSoftscope } from 'softscope';

const ss = await createSoftscope({ impl: 'auto' });
const x = new Float32Array([2, 1, 0.1]);
ss.normalize('softmax', x);
ss.normalize('softmax_temperature', x, { temperature: 2 });
ss.normalize('entmax_bisect', x, { alpha: 1.5 });
ss.sample('top_p', x, { p: 0.9, temperature: 0.8, seed: 1, draws: 4 });
ss.quantize('uniform', x, { bits: 4, rounding: 'stochastic' });
ss.measure('entropy', x);
const st = ss.optimizerState('adam', 3);
ss.optimize('adam', new Float32Array(3), x, { lr: 1e-3 }, st);
ss.threshold('sparsemax', x, { method: 'sort' });
ss.estimatorStats('reinmax', x, x, { tau: 1 });
const ar = ss.adaround(new Float32Array(32), { cols: 16, bits: 3, symmetric: true, seed: 1 });
const flips: number = ar.flipped + ar.err - ar.errNearest;
const est: Float64Array = ss.attentionKernelEstimate('hrf', { q: x, k: x, n: 3 }, { features: 8, angle_features: 4 });
const hm = ss.attentionHeadMeasures(x, null, { n: 3 });
const sinks: boolean[] = hm.sink;
export {};
