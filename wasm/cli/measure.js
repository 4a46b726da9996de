// softscope measure <kernel> --input <p> [--input2 <q>]: a scalar of one
// vector (entropy, support, ...) or of two (KL divergence, Hellinger).
import { UsageError, readVector, parseParams, requireFinite, toJson, num } from './shared.js';

export const command = {
  name: 'measure',
  summary: 'a measure of a vector (or of two)',
  usage: 'softscope measure <kernel> --input <p> [--input2 <q>] [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', input2: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: (ss) => {
    const of = (input) => ss.kernels('measure').filter((k) => k.input === input).map((k) => k.name).join(', ');
    return `--input2 is required by the measures that compare two vectors (${of('probs_pair')}).
Of logits: ${of('logits')}; of any finite values (at least two different ones): ${of('values')};
the others read a probability vector.
--json prints {"kernel","impl","build","output","metrics":{"n"}}; Infinity is written as the string "Infinity".`;
  },
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'measure');
    if (opt.input === undefined) throw new UsageError('measure: --input is required');
    const pair = k.input === 'probs_pair';
    if (pair && opt.input2 === undefined) throw new UsageError(`measure ${k.name}: --input2 is required (it compares two vectors)`);
    if (!pair && opt.input2 !== undefined) throw new UsageError(`measure ${k.name}: reads one vector; --input2 is not used`);
    if (opt.input === '-' && opt.input2 === '-') throw new UsageError('measure: only one of --input / --input2 can read stdin');
    const p = await readVector(opt.input, '--input');
    const q = pair ? await readVector(opt.input2, '--input2') : null;
    const v = ss.measure(k.name, p, q, parseParams(opt.param, k));
    requireFinite('output', [v], { posInf: true }); // e.g. KL(p || q) with q_i = 0 < p_i
    if (opt.json) ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output: v, metrics: { n: p.length } }));
    else ctx.out(`${k.name} (${ss.impl}), n = ${p.length}: ${num(v, 9)}`);
  },
};
