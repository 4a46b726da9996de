// softscope attend <kernel>: attention on an example (analysis/attention-examples.js,
// the same inputs as the Attention view) or on Q, K, V read from JSON — the
// top keys of each query and the measures as a table, or everything as JSON.
import { UsageError, cliMessage, readText, parseParams, requireFinite, requireNoNaN, toJson, num, table } from './shared.js';
import { attentionExample, ATTENTION_EXAMPLES } from '../analysis/attention-examples.js';
import { overflowsFloat32 } from '../api/args.js';

function matrix(rows, name) {
  if (!Array.isArray(rows) || !rows.length || !rows.every((r) => Array.isArray(r) && r.length === rows[0].length && r.every(Number.isFinite)))
    throw new UsageError(`--input: "${name}" must be a non-empty array of equal-length rows of finite numbers`);
  const flat = rows.flat(), big = flat.findIndex(overflowsFloat32);
  if (big >= 0) {
    const d = rows[0].length;
    throw new UsageError(`--input: "${name}"[${Math.floor(big / d)}][${big % d}] = ${flat[big]} overflows float32 (|x| > 3.4e38)`);
  }
  return { data: Float32Array.from(rows.flat()), rows: rows.length };
}

async function readInputs(opt) {
  if (opt.example !== undefined) {
    if (opt.input !== undefined) throw new UsageError('attend: --example or --input, not both');
    const n = opt.n === undefined ? 32 : Number(opt.n), seed = opt.seed === undefined ? 1 : Number(opt.seed);
    if (!Number.isInteger(n) || !Number.isInteger(seed) || seed < 0) throw new UsageError('attend: --n and --seed must be integers');
    if (!ATTENTION_EXAMPLES.includes(opt.example)) throw new UsageError(`attend: --example must be one of ${ATTENTION_EXAMPLES.join(', ')}`);
    const ex = attentionExample(opt.example, n, seed);
    return { q: ex.q, k: ex.k, v: ex.v, n: ex.n, m: ex.n, tokens: ex.tokens };
  }
  if (opt.input === undefined) throw new UsageError('attend: --example or --input is required');
  if (opt.n !== undefined) throw new UsageError('attend: --n is only for --example');
  const text = await readText(opt.input, '--input');
  let j;
  try { j = JSON.parse(text); } catch { throw new UsageError('--input: not JSON of the form {"q": [[...]], "k": [[...]], "v": [[...]]}'); }
  if (!j || typeof j !== 'object') throw new UsageError('--input: not JSON of the form {"q": [[...]], "k": [[...]], "v": [[...]]}');
  const q = matrix(j.q, 'q'), k = matrix(j.k, 'k'), v = matrix(j.v, 'v');
  const out = { q: q.data, k: k.data, v: v.data, n: q.rows, m: k.rows };
  if (j.mask !== undefined) {
    if (!Array.isArray(j.mask) || j.mask.length !== k.rows) throw new UsageError(`--input: "mask" must have one 0/1 entry per key (${k.rows})`);
    out.mask = Uint8Array.from(j.mask, (b) => (b ? 1 : 0));
  }
  return out;
}

async function attend(ctx, name, opt) {
  const ss = await ctx.load(opt.impl);
  if (!name) throw new UsageError('attend: which kernel? (softscope list --family attention)');
  const k = ss.kernel(name, 'attention');
  const x = await readInputs(opt);
  let nk = null;
  if (k.name === 'sdpa') {
    try {
      nk = ss.kernel(opt.normalizer ?? 'softmax', 'normalizer');
    } catch (e) {
      throw new UsageError(`--normalizer: ${cliMessage(e)}`);
    }
  }
  else if (opt.normalizer !== undefined) throw new UsageError(`attend: --normalizer is only for sdpa (${k.name} has its own form)`);
  // --param: the attention kernel's names first, the rest to the normalizer
  const mine = [], theirs = [];
  for (const kv of opt.param) (k.params.some((p) => p.name === kv.split('=')[0]) ? mine : theirs).push(kv);
  if (theirs.length && !nk) throw new UsageError(`--param ${theirs[0]}: "${k.name}" has no such parameter`);
  const params = parseParams(mine, k), normalizerParams = nk ? parseParams(theirs, nk) : {};
  const r = ss.attend(k.name, x, params, { normalizer: nk?.name, normalizerParams, keyMask: x.mask, attention: true });
  requireFinite('output', r.output);
  requireFinite('attention', r.attention);
  const m = ss.attentionMeasures(r.attention, r.heads, r.n, r.m);
  const perHead = (c) => Array.from({ length: r.heads }, (_, hh) => {
    let s = 0;
    for (let i = 0; i < r.n; i++) s += m.rows[4 * (hh * r.n + i) + c];
    return s / r.n;
  });
  const metrics = { entropy: perHead(0), zero_fraction: perHead(1), max_weight: perHead(2), sink_rate: perHead(3),
    head_distance: Array.from({ length: r.heads }, (_, a) => Array.from(m.headDistance.subarray(a * r.heads, (a + 1) * r.heads))) };
  requireNoNaN('metrics', metrics);
  const rowsOf = (flat, cols) => Array.from({ length: flat.length / cols }, (_, i) => Array.from(flat.subarray(i * cols, (i + 1) * cols)));
  if (opt.json) {
    const heads = Array.from({ length: r.heads }, (_, hh) => rowsOf(r.attention.subarray(hh * r.n * r.m, (hh + 1) * r.n * r.m), r.m));
    ctx.out(toJson({ kernel: k.name, impl: ss.impl, normalizer: nk?.name ?? null, output: rowsOf(r.output, r.dv), attention: heads, metrics }));
    return;
  }
  ctx.out(`${k.name}${nk ? ` with ${nk.name}` : ''} (${ss.impl}): n = ${r.n}, m = ${r.m}, d = ${r.d}, dv = ${r.dv}, heads = ${r.heads}`);
  const show = Math.min(r.n, 12);
  ctx.out(table(Array.from({ length: show }, (_, i) => {
    const row = r.attention.subarray(i * r.m, (i + 1) * r.m);
    const top = Array.from(row.keys()).sort((a, b) => row[b] - row[a]).slice(0, 3);
    return [x.tokens ? `${i} ${x.tokens[i]}` : String(i), top.map((j) => `${x.tokens ? x.tokens[j] : j}:${num(row[j], 3)}`).join(' '),
      num(m.rows[4 * i], 4), num(m.rows[4 * i + 1], 3)];
  }), ['query', 'top keys (head 0)', 'entropy', 'zeros']));
  ctx.out(Object.entries(metrics).filter(([a]) => a !== 'head_distance').map(([a, b]) => `${a} ${b.map((v) => num(v, 4)).join(',')}`).join('  '));
}

export const command = {
  name: 'attend',
  summary: 'attention on an example or on Q, K, V from JSON',
  usage: 'softscope attend <kernel> (--example E | --input @qkv.json) [--normalizer N] [--param name=value]... [--json]',
  options: { example: 'value', input: 'value', normalizer: 'value', n: 'value', seed: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `  --example E       ${ATTENTION_EXAMPLES.join(' | ')} (with --n N rows and --seed S for copy / random)
  --input @file     or Q, K, V from JSON: {"q": [[...], ...], "k": [...], "v": [...], "mask": [1, 0, ...]}
  --normalizer N    sdpa's normalizer: any registry normalizer but log_softmax (default softmax)
  --param k=v       a parameter of the attention kernel (heads, scale, causal, ...) or, when it has
                    none of that name, of the normalizer (temperature, alpha, ...)
  --json prints {"kernel","impl","normalizer","output":[[...] per query],"attention":[[[...]]] per head,
  "metrics":{"entropy","zero_fraction","max_weight","sink_rate" (means over rows, per head),"head_distance"}}`,
  positional: [1, 1],
  run: (ctx, { pos, opt }) => attend(ctx, pos[0], opt),
};
