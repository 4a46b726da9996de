// Must compile under tsc --strict: registry kernel names and parameters, test
// functions, schedules and views.
import { createSoftscope, createModel, type OptimizerName } from 'softscope';
import { view, VIEW_IDS } from 'softscope/views';
import { renderFigure } from 'softscope/figure';

const ss = await createSoftscope({ impl: 'auto' });
const x = new Float32Array([2, 1, 0.1]);
ss.normalize('softmax', x);
ss.normalize('softmax_temperature', x, { temperature: 2 });
ss.normalize('entmax_bisect', x, { alpha: 1.5 });
ss.sample('top_p', x, { p: 0.9, temperature: 0.8, seed: 1, draws: 4 });
ss.quantize('uniform', x, { bits: 4, rounding: 'stochastic' });
ss.measure('entropy', x);
const rowsOut = new Float32Array(4);
const yRows: Float32Array = ss.normalize('softmax', new Float32Array(4), {}, { rows: 2, out: rowsOut });
const hRows: Float64Array = ss.measure('entropy', new Float32Array(4), {}, { rows: 2 });
const klRows: Float64Array = ss.measure('kl_divergence', x, x, undefined, { rows: 1, out: new Float64Array(1) });
const batch: number | undefined = ss.sample('top_p', new Float32Array(6), { seed: 3 }, { rows: 2 }).rows;
const bufA = ss.alloc(4), bufB = ss.alloc(4);
ss.normalizeInto('softmax', bufA, bufB, {}, { rows: 2 });
const st = ss.optimizerState('adam', 3);
ss.optimize('adam', new Float32Array(3), x, { lr: 1e-3 }, st);
ss.threshold('sparsemax', x, { method: 'sort' });
ss.estimatorStats('reinmax', x, x, { tau: 1 });
ss.estimatorStats('st', x, x, { samples: 10, signal: new AbortController().signal, maxWork: 1e9 });
ss.vqTrain(x, { k: 2, dim: 1, iters: 3, signal: AbortSignal.timeout(1000), maxWork: Infinity }).codebook.length;
ss.trajectory({ optimizer: 'sgd', steps: 10, every: 5 }).output.length;
const ar = ss.adaround(new Float32Array(32), { cols: 16, bits: 3, symmetric: true, seed: 1 });
const flips: number = ar.flipped + ar.err - ar.errNearest;
const est: Float64Array = ss.attentionKernelEstimate('hrf', { q: x, k: x, n: 3 }, { features: 8, angle_features: 4 });
const hm = ss.attentionHeadMeasures(x, null, { n: 3 });
const sinks: boolean[] = hm.sink;
const run = ss.trajectory({ optimizer: 'adam', fn: 'rosenbrock', schedule: 'cosine', steps: 50, params: { lr: 0.02 } });
const name: OptimizerName = run.kernel;
// names read from the registry are the unions too
for (const k of ss.kernels('optimizer')) ss.trajectoryRunner({ optimizer: k.name, fn: ss.functions[0].name, schedule: ss.schedules[0] }).advance(1);
// a quantizer's domain and a cast's largest value (the registry's, not probed)
const fp8 = ss.kernel('fp8_e4m3', 'quantizer');
const castTop: number | null | undefined = fp8.cast_max;
const signed: boolean = fp8.domain !== 'nonnegative' && castTop !== 0;
const f: number = ss.evalFunction('beale', 1, 1).f + ss.functionGrid('himmelblau', { nx: 4, ny: 4 })[0];
const model = createModel(ss, { task: 'max_retrieval', values: 8, d: 32, heads: 2, mlp: true, positions: 'none', normalizer: 'ssmax', optimizer: 'adamw',
  optimizerParams: { lr: 1e-2 }, schedule: 'cosine', steps: 300, batch: 32, trainN: [4, 16], seed: 1n });
const stepped = model.step(10);
const ev = model.evaluate({ n: 64, examples: 8 });
const modelNumbers: number = ('loss' in stepped ? stepped.loss : stepped.step) + ev.entropy[0] + model.attentionMap({ n: 8 }).maps[0] +
  model.tensors()[0].offset + model.params()[0] + model.gradient().grad[0];
model.free();
for (const id of VIEW_IDS) view(id);
const svg: string = renderFigure(ss, 'optimizers', 'fn=beale').svg + view('attention').id;
export { name, f, svg, yRows, hRows, klRows, batch, modelNumbers };
