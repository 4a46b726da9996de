// softscope measure <kernel> --input <p> [--input2 <q>]: a scalar of one
// vector (entropy, support, ...) or of two (KL divergence, Hellinger).
import { UsageError, readRows, parseParams, requireFinite, toJson, num } from './shared.js';

export const command = {
  name: 'measure',
  summary: 'a measure of a vector (or of two)',
  usage: 'softscope measure <kernel> --input <p> [--input2 <q>] [--rows R] [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', input2: 'value', rows: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: (ss) => {
    const of = (input) => ss.kernels('measure').filter((k) => k.input === input).map((k) => k.name).join(', ');
    return `--input2 is required by the measures that compare two vectors (${of('probs_pair')}).
Of logits: ${of('logits')}; of any finite values (at least two different ones): ${of('values')};
the others read a probability vector.
--json prints {"kernel","impl","build","output","metrics":{"n"}}; Infinity is written as the string "Infinity".
Rows: --rows R reads <p> (and <q>) as R rows of n, or they are nested arrays '[[...], [...]]': one
measure per row ("output" an array, "metrics" {"n","rows"}); an error names its row ("row 3: ...").`;
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
    const pr = await readRows(opt.input, '--input', opt.rows);
    const qr = pair ? await readRows(opt.input2, '--input2', opt.rows ?? (pr.rows === null ? undefined : String(pr.rows))) : null;
    if (qr && qr.x.length !== pr.x.length) throw new UsageError(`measure ${k.name}: --input2 has ${qr.x.length} numbers, --input ${pr.x.length}; they must match`);
    if (qr && (qr.rows === null) !== (pr.rows === null)) throw new UsageError(`measure ${k.name}: --input and --input2 must both be rows (nested arrays, or --rows)`);
    const { rows, n } = pr;
    const params = parseParams(opt.param, k);
    const v = rows ? ss.measure(k.name, pr.x, qr?.x, params, { rows }) : ss.measure(k.name, pr.x, qr?.x, params);
    const values = rows ? Array.from(v) : [v];
    requireFinite('output', values, { posInf: true }); // e.g. KL(p || q) with q_i = 0 < p_i
    if (opt.json) ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, output: rows ? values : v, metrics: rows ? { n, rows } : { n } }));
    else if (!rows) ctx.out(`${k.name} (${ss.impl}), n = ${n}: ${num(v, 9)}`);
    else {
      ctx.out(`${k.name} (${ss.impl}), rows = ${rows}, n = ${n}`);
      values.forEach((val, r) => ctx.out(`row ${r}: ${num(val, 9)}`));
    }
  },
};
