// softscope attend <kernel>: attention on an example (analysis/attention-examples.js,
// the same inputs as the Attention view) or on Q, K, V read from JSON — the
// top keys of each query and the measures as a table, or everything as JSON.
// The measures: per head, the row means (entropy, zeros, max, sink share)
// and the head measures of the softpick paper (kurtosis and max/median of the
// head's output, whether the head is a sink).
import { UsageError, cliMessage, readText, own, parseParams, requireFinite, requireNoNaN, toJson, num, table } from './shared.js';
import { attentionExample, ATTENTION_EXAMPLES, HEAD_EXAMPLES } from '../analysis/attention-examples.js';
import { overflowsFloat32 } from '../api/args.js';

const EXAMPLES = [...ATTENTION_EXAMPLES, ...HEAD_EXAMPLES];
// A head is a sink when its mean weight on key 0 is above this (Gu et al. 2025).
const SINK_EPS = 0.3;

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
    if (!EXAMPLES.includes(opt.example)) throw new UsageError(`attend: --example must be one of ${EXAMPLES.join(', ')}`);
    const ex = attentionExample(opt.example, n, seed);
    return { q: ex.q, k: ex.k, v: ex.v, n: ex.n, m: ex.n, tokens: ex.tokens, heads: ex.heads };
  }
  if (opt.input === undefined) throw new UsageError('attend: --example or --input is required');
  if (opt.n !== undefined) throw new UsageError('attend: --n is only for --example');
  const text = await readText(opt.input, '--input');
  let j;
  try { j = JSON.parse(text); } catch { throw new UsageError('--input: not JSON of the form {"q": [[...]], "k": [[...]], "v": [[...]]}'); }
  if (!j || typeof j !== 'object') throw new UsageError('--input: not JSON of the form {"q": [[...]], "k": [[...]], "v": [[...]]}');
  const key = (name) => (own(j, name) ? j[name] : undefined); // never an inherited name
  const q = matrix(key('q'), 'q'), k = matrix(key('k'), 'k'), v = matrix(key('v'), 'v');
  const out = { q: q.data, k: k.data, v: v.data, n: q.rows, m: k.rows };
  if (key('mask') !== undefined) {
    if (!Array.isArray(key('mask')) || key('mask').length !== k.rows) throw new UsageError(`--input: "mask" must have one 0/1 entry per key (${k.rows})`);
    out.mask = Uint8Array.from(key('mask'), (b) => (b ? 1 : 0));
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
  // an example with heads of its own (dormant) runs with them unless --param heads says otherwise
  if (x.heads && params.heads === undefined) params.heads = x.heads;
  const r = ss.attend(k.name, x, params, { normalizer: nk?.name, normalizerParams, keyMask: x.mask, attention: true });
  requireFinite('output', r.output);
  requireFinite('attention', r.attention);
  const m = ss.attentionMeasures(r.attention, r.heads, r.n, r.m);
  const hm = ss.attentionHeadMeasures(r.output, r.attention, { ...r, sinkEps: SINK_EPS });
  const perHead = (c) => Array.from({ length: r.heads }, (_, hh) => {
    let s = 0;
    for (let i = 0; i < r.n; i++) s += m.rows[4 * (hh * r.n + i) + c];
    return s / r.n;
  });
  const metrics = { entropy: perHead(0), zero_fraction: perHead(1), max_weight: perHead(2), sink_rate: perHead(3),
    // 0 is the C library's "undefined" (constant output; median 0): null here
    kurtosis: Array.from(hm.kurtosis, (v) => v || null), max_median_ratio: Array.from(hm.maxMedianRatio, (v) => v || null), sink_head: hm.sink,
    head_distance: Array.from({ length: r.heads }, (_, a) => Array.from(m.headDistance.subarray(a * r.heads, (a + 1) * r.heads))) };
  requireNoNaN('metrics', metrics);
  const rowsOf = (flat, cols) => Array.from({ length: flat.length / cols }, (_, i) => Array.from(flat.subarray(i * cols, (i + 1) * cols)));
  if (opt.json) {
    const heads = Array.from({ length: r.heads }, (_, hh) => rowsOf(r.attention.subarray(hh * r.n * r.m, (hh + 1) * r.n * r.m), r.m));
    ctx.out(toJson({ kernel: k.name, impl: ss.impl, build: ss.build, normalizer: nk?.name ?? null, output: rowsOf(r.output, r.dv), attention: heads, metrics }));
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
  const line = (keys) => keys.map((a) => `${a} ${metrics[a].map((v) => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : v === null ? '-' : num(v, 4))).join(',')}`).join('  ');
  ctx.out(line(['entropy', 'zero_fraction', 'max_weight', 'sink_rate']));
  ctx.out(line(['kurtosis', 'max_median_ratio', 'sink_head']));
}

export const command = {
  name: 'attend',
  summary: 'attention on an example or on Q, K, V from JSON',
  usage: 'softscope attend <kernel> (--example E | --input @qkv.json) [--normalizer N] [--param name=value]... [--json]',
  options: { example: 'value', input: 'value', normalizer: 'value', n: 'value', seed: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `  --example E       ${EXAMPLES.join(' | ')} (with --n N rows and --seed S but for sentence);
                    dormant has two heads: head 0 has nothing to attend to (softmax sinks on key 0,
                    softpick gives exact zeros), head 1 is random
  --input @file     or Q, K, V from JSON: {"q": [[...], ...], "k": [...], "v": [...], "mask": [1, 0, ...]}
  --normalizer N    sdpa's normalizer: any registry normalizer but log_softmax (default softmax)
  --param k=v       a parameter of the attention kernel (heads, scale, causal, ...) or, when it has
                    none of that name, of the normalizer (temperature, alpha, ...)
  trig and hrf estimate each row's normalizer with signed features: a row whose estimate is not
  positive exits 2 naming --param scale (lower it, or raise --param features).
  --json prints {"kernel","impl","build","normalizer","output":[[...] per query],"attention":[[[...]]] per head,
  "metrics":{"entropy","zero_fraction","max_weight","sink_rate" (means over rows, per head),
  "kurtosis","max_median_ratio" (of each head's output; null when undefined),"sink_head" (mean weight on key 0 > ${SINK_EPS}),"head_distance"}}`,
  positional: [1, 1],
  run: (ctx, { pos, opt }) => attend(ctx, pos[0], opt),
};
