// softscope normalize <kernel> --input <x>: a normalizer's output and its
// metrics (entropy, max, support of the output read as a distribution —
// analysis/distribution.js, the same rule as every view — and the sum).
import { UsageError, readVector, parseParams, requireFinite, requireNoNaN, toJson, table, num, f32, rowsOf, paramList } from './shared.js';
import { outputMetrics } from '../analysis/distribution.js';

export const command = {
  name: 'normalize',
  summary: 'run a normalizer on a vector',
  usage: 'softscope normalize <kernel> --input <x> [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `<x>: '[2, 1, 0.1]' (JSON), "1 2 3", @file, or - (stdin); -Infinity is a masked logit.
The JSON output of a softscope command is accepted too (its "output" is used).
--json prints {"kernel","impl","build","output","metrics":{"entropy","max","support","sum"}}: the metrics of
the output read as a distribution — probabilities as they are, exp(y) for log-probabilities,
|w| / sum |w| for weights (softpick, sa_softmax, boltzmann; entropy null when they are all 0) — and
the sum of the output itself. A non-finite output (a kernel defect) exits 1 instead of printing.`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'normalizer');
    if (opt.input === undefined) throw new UsageError('normalize: --input is required');
    const x = await readVector(opt.input, '--input');
    const params = parseParams(opt.param, k);
    const y = ss.normalize(k.name, x, params);
    requireFinite('output', y, { negInf: k.output === 'log_probs' });
    const m = outputMetrics(ss, k.output, y);
    // All-zero weights are no distribution: their entropy is null, not NaN.
    const metrics = { entropy: m.support === 0 ? null : m.entropy, max: m.max, support: m.support, sum: m.sum };
    requireNoNaN('metrics', metrics);
    if (opt.json) {
      ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output: Array.from(y, f32), metrics }));
      return;
    }
    ctx.out(`${k.name} (${ss.impl}), n = ${x.length}${paramList(params) ? `, ${paramList(params)}` : ''}`);
    ctx.out(table(rowsOf(x, y), ['i', 'x', k.output === 'log_probs' ? 'log y' : 'y']));
    ctx.out(`sum ${num(metrics.sum)}  entropy ${num(metrics.entropy)} nats  max ${num(metrics.max)}  support ${num(metrics.support)}`);
  },
};
