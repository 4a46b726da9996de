// softscope loss <kernel> --input <logits> --param target=<index>: a loss of
// the logits against a target class and its gradient.
import { UsageError, readVector, parseParams, requireFinite, toJson, table, num, f32, rowsOf, paramList } from './shared.js';

export const command = {
  name: 'loss',
  summary: 'a loss of logits against a target, and its gradient',
  usage: 'softscope loss <kernel> --input <logits> --param target=<index> [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: '--json prints {"kernel","impl","build","output": loss,"grad": [dL/dx]}.',
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'loss');
    if (opt.input === undefined) throw new UsageError('loss: --input is required');
    const x = await readVector(opt.input, '--input');
    const params = parseParams(opt.param, k);
    if (params.target === undefined) throw new UsageError(`loss ${k.name}: --param target=<index> is required`);
    const { loss, grad } = ss.loss(k.name, x, params);
    requireFinite('output', [loss]);
    requireFinite('grad', grad);
    if (opt.json) { ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output: loss, grad: Array.from(grad, f32) })); return; }
    ctx.out(`${k.name} (${ss.impl}), n = ${x.length}, ${paramList(params)}: loss ${num(loss, 9)}`);
    ctx.out(table(rowsOf(x, grad), ['i', 'x', 'dL/dx']));
  },
};
