// softscope sample <kernel> --input <x>: seeded draws from a sampler, the
// distribution they come from, and checks of the draws against it (a
// chi-square goodness of fit for index draws; for vector draws, how far the
// mean of the draws is from the expected vector).
import { UsageError, readRows, parseParams, requireFinite, requireNoNaN, toJson, table, num, f32, rowsOf, paramList } from './shared.js';
import { chiSquare, drawCounts } from '../analysis/stats.js';
import { softmax } from '../analysis/reference.js';
import { MAX_NUMBERS, BYTES_PER_NUMBER, requireMemory } from './budget.js';

export const command = {
  name: 'sample',
  summary: 'draw from a sampler (seeded, the same in every build)',
  usage: 'softscope sample <kernel> --input <x> [--rows R] [--param seed=S] [--param draws=N] [--param name=value]... [--impl I] [--json]',
  options: { input: 'value', rows: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `--json prints {"kernel","impl","build","output","probs","metrics"}:
  output   the draws: indices for index samplers (filters, categorical, gumbel_max); for relaxed
           samplers (gumbel_softmax, gumbel_softmax_hard, reinmax) the argmax of each draw, with the
           drawn vectors in "samples"; for vector samplers (gumbel_sigmoid, dirichlet, dare) one
           array of n values per draw
  probs    the distribution the draws come from (vector samplers: the mean of a draw)
  metrics  draws, support (entries with probs > 0), entropy (nats), kept_mass (filters with a
           temperature: the mass of the kept set under softmax(x / temperature)), and for index
           draws chi2, dof, p_value (Pearson's goodness of fit of the draws to probs); vector
           samplers: max_mean_error (max |mean of the draws - probs|) and nonzero_fraction
The same seed gives the same draws in every build (native, wasm scalar, wasm SIMD).
Rows (batch decoding): --rows R reads <x> as R rows of n, or <x> is a nested array '[[...], [...]]';
row r draws with seed + r (the same draws as a call on that row alone with that seed), and
"output", "probs", "samples" and "metrics" are one entry per row; an error names its row.`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    const ss = await ctx.load(opt.impl);
    const k = ss.kernel(pos[0], 'sampler');
    if (opt.input === undefined) throw new UsageError('sample: --input is required');
    const { x, rows, n } = await readRows(opt.input, '--input', opt.rows);
    const params = parseParams(opt.param, k);
    if (opt.json) {
      // what --json prints grows with draws (draws * n values for vector draws): bounded before drawing
      const draws = params.draws ?? k.params.find((p) => p.name === 'draws')?.default ?? 0;
      const perDraw = (k.draws === 'index' ? 1 : k.draws === 'relaxed' ? 1 + n : n) * (rows ?? 1);
      const numbers = (Number.isFinite(draws) ? draws : 0) * perDraw + x.length;
      if (numbers > MAX_NUMBERS)
        requireMemory(numbers * BYTES_PER_NUMBER, `--json with --param draws=${draws} prints ${numbers} numbers (at most ${MAX_NUMBERS}), which`,
          `lower draws to ${Math.floor((MAX_NUMBERS - x.length) / perDraw)} or less, or leave out --json (the table counts the draws)`);
    }
    const all = rows ? ss.sample(k.name, x, params, { rows }) : ss.sample(k.name, x, params);
    requireFinite('probs', all.probs);
    if (all.samples) requireFinite('samples', all.samples);
    // one row's result, as a single call returns it
    const rowOf = (r) => (rows ? {
      probs: all.probs.subarray(r * n, (r + 1) * n),
      indices: all.indices && all.indices.subarray(r * all.draws, (r + 1) * all.draws),
      samples: all.samples && all.samples.subarray(r * all.draws * n, (r + 1) * all.draws * n),
      draws: all.draws,
      n,
    } : all);
    const xOf = (r) => (rows ? x.subarray(r * n, (r + 1) * n) : x);
    const results = Array.from({ length: rows ?? 1 }, (_, r) => rowOf(r));
    const metrics = results.map((res, r) => sampleMetrics(k, xOf(r), params, res));
    requireNoNaN('metrics', metrics);
    const draws2d = (res, flat) => Array.from({ length: res.draws }, (_, d) => Array.from(flat.subarray(d * res.n, (d + 1) * res.n), f32));
    if (opt.json) {
      const one = (res) => ({ output: res.indices ? Array.from(res.indices) : draws2d(res, res.samples), probs: Array.from(res.probs, f32),
        samples: k.draws === 'relaxed' ? draws2d(res, res.samples) : undefined });
      const parts = results.map(one);
      const pick = (key) => (rows ? parts.map((p) => p[key]) : parts[0][key]);
      const res = { kernel: k.name, impl: ss.impl, build: ss.build, output: pick('output'), probs: pick('probs') };
      if (k.draws === 'relaxed') res.samples = pick('samples');
      res.metrics = rows ? metrics : metrics[0];
      ctx.out(toJson(res));
      return;
    }
    ctx.out(`${k.name} (${ss.impl}), ${rows ? `rows = ${rows} (row r draws with seed + r), ` : ''}n = ${n}, ${paramList(params, 'defaults')}`);
    results.forEach((r, i) => {
      if (rows) ctx.out(`row ${i}`);
      const xr = xOf(i);
      if (r.indices) {
        const cnt = drawCounts(r.indices, r.n);
        ctx.out(table(rowsOf(xr, r.probs).map((row) => (row[0] === '...' ? [...row, ''] : [...row, num(r.draws ? cnt[Number(row[0])] / r.draws : 0)])),
          ['i', 'x', 'p', 'drawn']));
      } else {
        const mean = new Float64Array(r.n);
        for (let d = 0; d < r.draws; d++) for (let j = 0; j < r.n; j++) mean[j] += r.samples[d * r.n + j] / r.draws;
        ctx.out(table(rowsOf(xr, r.probs).map((row) => (row[0] === '...' ? [...row, ''] : [...row, num(mean[Number(row[0])])])), ['i', 'x', 'mean', 'draw mean']));
      }
      ctx.out(Object.entries(metrics[i]).map(([a, b]) => `${a} ${num(b)}`).join('  '));
    });
  },
};

function entropyOf(p) {
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log(v);
  return h;
}

// Vector draws (gates, masked deltas, simplex points): probs is their mean,
// not a distribution over indices, so the metrics check the draws against it.
function vectorMetrics(r) {
  const m = { draws: r.draws };
  if (r.draws === 0) return m;
  let err = 0, nonzero = 0;
  for (let i = 0; i < r.n; i++) {
    let mean = 0;
    for (let d = 0; d < r.draws; d++) mean += r.samples[d * r.n + i];
    err = Math.max(err, Math.abs(mean / r.draws - r.probs[i]));
  }
  for (const v of r.samples) if (v !== 0) nonzero++;
  m.max_mean_error = err;
  m.nonzero_fraction = nonzero / r.samples.length;
  return m;
}

function sampleMetrics(k, x, params, r) {
  if (k.draws === 'vector') return vectorMetrics(r);
  const m = { draws: r.draws, support: r.probs.reduce((c, v) => c + (v > 0 ? 1 : 0), 0), entropy: entropyOf(r.probs) };
  const T = k.params.find((p) => p.name === 'temperature');
  if (T && k.input === 'logits') {
    const t = params.temperature ?? T.default;
    // in float64: x / t in float32 overflows for t < ~1e-38 (and loses the
    // mass of near ties well before)
    const base = softmax(x, t);
    let kept = 0;
    for (let i = 0; i < base.length; i++) if (r.probs[i] > 0) kept += base[i];
    m.kept_mass = kept;
  }
  if (r.indices && r.draws > 0) {
    const c = chiSquare(r.indices, r.probs);
    m.chi2 = c.chi2;
    m.dof = c.dof;
    m.p_value = c.pValue;
  }
  return m;
}
