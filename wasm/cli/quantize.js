// softscope quantize <kernel> --input <x>: the dequantized values, the
// integer codes, and the error measures (analysis/quant-metrics.js, the same
// as the Quantization view).
import { UsageError, readVector, parseParams, requireFinite, requireNoNaN, toJson, table, num, f32, rowsOf, paramList } from './shared.js';
import { quantMetrics } from '../analysis/quant-metrics.js';

export const command = {
  name: 'quantize',
  summary: 'quantize a vector: values, codes, error measures',
  usage: 'softscope quantize <kernel> --input <x> [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `Named choices go by name (--param rounding=stochastic); vq reads the input as vectors of dim values.
--json prints {"kernel","impl","output":[dequantized],"codes","metrics"} with mse, max_error, sqnr_db,
and for a probability vector kl (KL(x || y / sum y), null when y drops mass) and argmax_kept.`,
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
    requireNoNaN('metrics', metrics);
    if (opt.json) {
      ctx.out(toJson({ kernel: k.name, impl: ss.impl, output: Array.from(r.output, f32), codes: Array.from(r.codes), metrics }));
      return;
    }
    ctx.out(`${k.name} (${ss.impl}), n = ${x.length}, ${paramList(params, 'defaults')}`);
    ctx.out(table(rowsOf(x, r.output).map((row) => (row[0] === '...' ? [...row, ''] : [...row, String(r.codes[Number(row[0])])])), ['i', 'x', 'y', 'code']));
    ctx.out(Object.entries(metrics).map(([a, b]) => `${a} ${typeof b === 'number' ? num(b) : b}`).join('  '));
  },
};
