// softscope quantize <kernel> --input <x>: the dequantized values, the
// integer codes, and the error measures (analysis/quant-metrics.js, the same
// as the Quantization view). For adaround, whose rounding is learned on a
// layer's output, also the layer's reconstruction error |W X - W~ X|^2 on
// its calibration inputs next to that of nearest rounding, and the flips.
import { UsageError, readVector, parseParams, requireFinite, requireNoNaN, toJson, table, num, f32, rowsOf, paramList } from './shared.js';
import { quantMetrics, layerErrors } from '../analysis/quant-metrics.js';
import { ADAROUND } from '../analysis/adaround.js';

// The layer metrics of adaround's output y (codes): the registry form reads x
// as rows of `cols` weights with calibration inputs drawn under seed;
// nearest rounding is the uniform quantizer's on the same grid.
function layerMetrics(ss, k, x, params, { output: y, codes }) {
  const p = Object.fromEntries(k.params.map((q) => [q.name, params[q.name] ?? q.default]));
  const sym = p.symmetric === true || p.symmetric === 1 ? 1 : 0;
  const nearest = ss.quantize('uniform', x, { bits: p.bits, symmetric: sym, group: 0 });
  const xs = ss.adaroundInputs(p.cols, p.batch, { seed: p.seed, corr: p.corr });
  const error = layerErrors(x, y, xs, p.cols, p.batch), errorNearest = layerErrors(x, nearest.output, xs, p.cols, p.batch);
  let flipped = 0;
  for (let i = 0; i < x.length; i++) flipped += codes[i] !== nearest.codes[i];
  return { rows: Math.ceil(x.length / p.cols), cols: p.cols, batch: p.batch, error, error_nearest: errorNearest,
    gain: errorNearest > 0 ? 1 - error / errorNearest : 0, flipped };
}

export const command = {
  name: 'quantize',
  summary: 'quantize a vector: values, codes, error measures',
  usage: 'softscope quantize <kernel> --input <x> [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `Named choices go by name (--param rounding=stochastic); vq reads the input as vectors of dim values.
--json prints {"kernel","impl","build","output":[dequantized],"codes","metrics"} with mse, max_error, sqnr_db,
and for a probability vector kl (KL(x || y / sum y), null when y drops mass) and argmax_kept.
adaround reads the input as a layer W, rows of cols weights, and learns each weight's rounding on
calibration inputs X (cols x batch, drawn under seed, AR(1) with corr); it also prints the layer's
|W X - W~ X|^2 against nearest rounding's on the same X and the weights that flipped
(metrics.layer: rows, cols, batch, error, error_nearest, gain, flipped).`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'quantizer');
    if (opt.input === undefined) throw new UsageError('quantize: --input is required');
    const x = await readVector(opt.input, '--input');
    const params = parseParams(opt.param, k);
    const r = ss.quantize(k.name, x, params);
    requireFinite('output', r.output);
    const metrics = quantMetrics(x, r.output);
    if (k.name === ADAROUND) metrics.layer = layerMetrics(ss, k, x, params, r);
    requireNoNaN('metrics', metrics);
    if (opt.json) {
      ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output: Array.from(r.output, f32), codes: Array.from(r.codes), metrics }));
      return;
    }
    ctx.out(`${k.name} (${ss.impl}), n = ${x.length}, ${paramList(params, 'defaults')}`);
    ctx.out(table(rowsOf(x, r.output).map((row) => (row[0] === '...' ? [...row, ''] : [...row, String(r.codes[Number(row[0])])])), ['i', 'x', 'y', 'code']));
    const { layer, ...rest } = metrics;
    ctx.out(Object.entries(rest).map(([a, b]) => `${a} ${typeof b === 'number' ? num(b) : b}`).join('  '));
    if (layer) {
      ctx.out(`layer ${layer.rows} x ${layer.cols}, ${layer.batch} calibration inputs: |WX - W~X|^2 = ${num(layer.error)
      } (nearest rounding: ${num(layer.error_nearest)}, ${num(100 * layer.gain, 3)} % lower)`);
      ctx.out(`flipped from nearest rounding: ${layer.flipped} of ${x.length} weights`);
    }
  },
};
