// softscope normalize <kernel> --input <x>: a normalizer's output and its
// metrics (entropy, max, support of the output read as a distribution —
// analysis/distribution.js, the same rule as every view — and the sum).
import { UsageError, readRows, parseParams, requireFinite, requireNoNaN, toJson, table, num, f32, rowsOf, paramList } from './shared.js';
import { outputMetrics } from '../analysis/distribution.js';

export const command = {
  name: 'normalize',
  summary: 'run a normalizer on a vector',
  usage: 'softscope normalize <kernel> --input <x> [--rows R] [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', rows: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `<x>: '[2, 1, 0.1]' (JSON), "1 2 3", @file, or - (stdin); -Infinity is a masked logit.
The JSON output of a softscope command is accepted too (its "output" is used).
--json prints {"kernel","impl","build","output","metrics":{"entropy","max","support","sum"}}: the metrics of
the output read as a distribution — probabilities as they are, exp(y) for log-probabilities,
|w| / sum |w| for weights (softpick, sa_softmax, boltzmann; entropy null when they are all 0) — and
the sum of the output itself. A non-finite output (a kernel defect) exits 1 instead of printing.
Rows: --rows R reads <x> as R rows of n (row-major), or <x> is a nested array '[[2, 1], [0, 3]]';
each row is normalized on its own (one call), --json's "output" and "metrics" are then one entry
per row, and an error names its row ("row 3: ...").`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'normalizer');
    if (opt.input === undefined) throw new UsageError('normalize: --input is required');
    const { x, rows, n } = await readRows(opt.input, '--input', opt.rows);
    const params = parseParams(opt.param, k);
    const y = rows ? ss.normalize(k.name, x, params, { rows }) : ss.normalize(k.name, x, params);
    requireFinite('output', y, { negInf: k.output === 'log_probs' });
    const rowOf = (a, r) => (rows ? a.subarray(r * n, (r + 1) * n) : a);
    const metricsOf = (yr) => {
      const m = outputMetrics(ss, k.output, yr);
      // All-zero weights are no distribution: their entropy is null, not NaN.
      return { entropy: m.support === 0 ? null : m.entropy, max: m.max, support: m.support, sum: m.sum };
    };
    const all = Array.from({ length: rows ?? 1 }, (_, r) => metricsOf(rowOf(y, r)));
    requireNoNaN('metrics', all);
    if (opt.json) {
      const output = rows ? all.map((_, r) => Array.from(rowOf(y, r), f32)) : Array.from(y, f32);
      ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output, metrics: rows ? all : all[0] }));
      return;
    }
    const line = (m) => `sum ${num(m.sum)}  entropy ${num(m.entropy)} nats  max ${num(m.max)}  support ${num(m.support)}`;
    ctx.out(`${k.name} (${ss.impl}), ${rows ? `rows = ${rows}, ` : ''}n = ${n}${paramList(params) ? `, ${paramList(params)}` : ''}`);
    for (let r = 0; r < (rows ?? 1); r++) {
      if (rows) ctx.out(`row ${r}`);
      ctx.out(table(rowsOf(rowOf(x, r), rowOf(y, r)), ['i', 'x', k.output === 'log_probs' ? 'log y' : 'y']));
      ctx.out(line(all[r]));
    }
  },
};
