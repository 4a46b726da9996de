#!/usr/bin/env node
// softscope CLI: list the registry, run a normalizer, a measure, a loss or a sampler on a vector.
// Arguments are parsed by hand (no dependencies). Exit status: 0 ok, 2 bad
// input or usage (message on stderr as "softscope: <message>"), 1 internal
// error. With --json the result is {"kernel","impl","output","metrics"}
// (a contract: scripts parse it), with non-finite numbers written as the
// strings "Infinity" / "-Infinity".
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from './index.js';
import { cmdSweep, SWEEP_OPTIONS, SWEEP_HELP } from './cli-sweep.js';
import { cmdOptimize, OPTIMIZE_OPTIONS, OPTIMIZE_SHARED, OPTIMIZE_HELP } from './cli-optimize.js';
import { cmdAttend, ATTEND_OPTIONS, ATTEND_HELP } from './cli-attend.js';
import { chiSquare, drawCounts } from './stats.js';
import { quantMetrics } from './quant-metrics.js';

export { quantMetrics };

const HELP = `softscope — numeric kernels around softmax (WebAssembly SIMD128)

usage:
  softscope list [--json] [--family F]
  softscope normalize <kernel> --input <x> [--param name=value]... [--impl I] [--json]
  softscope measure <kernel> --input <p> [--input2 <q>] [--param name=value]... [--impl I] [--json]
  softscope loss <kernel> --input <logits> --param target=<index> [--param name=value]... [--impl I] [--json]
  softscope sample <kernel> --input <x> --param seed=S --param draws=N [--param name=value]... [--impl I] [--json]
  softscope quantize <kernel> --input <x> [--param name=value]... [--impl I] [--json]
  softscope attend <kernel> (--example E | --input @qkv.json) [--normalizer N] [--param name=value]... [--json]
  softscope optimize <optimizer> --fn F [--start x,y] [--steps N] [--param name=value]... [--json] [--svg FILE]
  softscope sweep dispersion --normalizers a,b,... --n-max N [sweep options] [--impl I] [--json] [--svg FILE]
  softscope --help | --version

inputs (<x>, <p>, <q>):
  '[2, 1, 0.1]'   a JSON array (also "1 2 3" or "1,2,3"); -Infinity / "-Infinity" is a masked logit
  @file           read the array from a file
  -               read it from stdin
  The JSON output of \`softscope normalize ... --json\` is accepted too (its "output" is used).

options:
  --json          machine-readable output: {"kernel","impl","output","metrics"}
  --family F      list: only this family (normalizer, measure, sampler, ...)
  --param k=v     a kernel parameter (see \`softscope list\`); repeat for several
  --impl I        auto (default: SIMD when the engine supports it) | simd | scalar

normalize metrics (computed with the registry's measures on the output distribution:
exp(y) for log-probabilities, y / sum(y) for unnormalized weights):
  sum (of the output as probabilities or weights), entropy (nats, measure "entropy"),
  max (measure "max_prob"), support (non-zero entries, measure "support")

loss output: the loss value and its gradient with respect to the logits;
  --json prints {"kernel","impl","output": loss,"grad": [dL/dx]}

sample output: --json prints {"kernel","impl","output","probs","metrics"}:
  output   the draws: indices for index samplers (filters, categorical, gumbel_max); for
           relaxed samplers (gumbel_softmax, gumbel_softmax_hard, reinmax) the argmax index
           of each draw, with the drawn vectors in "samples"; for vector samplers
           (gumbel_sigmoid, dirichlet, dare) one array of n values per draw
  probs    the distribution the draws come from (vector samplers: the mean of a draw)
  metrics  draws, support (entries with probs > 0), entropy (nats), kept_mass (filters with a
           temperature: the mass of the kept set under softmax(x / temperature)), and for
           index draws chi2, dof, p_value (Pearson's goodness of fit of the draws to probs;
           dof 0: too few draws for a test); vector samplers: draws, max_mean_error
           (max |mean of the draws - probs|) and nonzero_fraction (entries not 0)
  The same seed gives the same draws in every build (native, wasm scalar, wasm SIMD).

${OPTIMIZE_HELP}

${ATTEND_HELP}

${SWEEP_HELP}
  --json prints {"kernel": "dispersion","impl","n": [...],"series": [{"name","params","output",
  "keyProb","maxProb","entropy","support","sum","errors"}],"inputs": {...}}

exit status: 0 ok, 2 bad input or usage, 1 internal error

environment:
  SOFTSCOPE_WASM=path   use this wasm module instead of the packaged build
  SOFTSCOPE_DEBUG=1     print the stack of an internal error

examples:
  softscope normalize softmax --input '[2, 1, 0.1]' --json
  softscope normalize softmax_temperature --input @logits.json --param temperature=0.5
  echo '[1, 2, 3]' | softscope normalize log_softmax --input - --impl scalar
  softscope measure kl_divergence --input '[0.5, 0.5]' --input2 '[0.9, 0.1]'
  softscope loss sparsemax_loss --input '[-2, 0, 0.5]' --param target=2 --json
  softscope sample top_p --input '[3, 2, 1, 0, -1]' --param p=0.9 --param seed=1 --param draws=1000 --json
  softscope attend <kernel> (--example E | --input @qkv.json) [--normalizer N] [--param name=value]... [--json]
  softscope optimize <optimizer> --fn F [--start x,y] [--steps N] [--param name=value]... [--json] [--svg FILE]
  softscope sweep dispersion --normalizers softmax,softmax_temperature --param temperature=0.5 --n-max 2^16 --svg d.svg
  softscope optimize adam --fn rosenbrock --start -1.2,1 --steps 500 --param lr=0.05 --compare sgd,lion --svg r.svg
`;

class UsageError extends Error {}

// ---- arguments ------------------------------------------------------------

const FLAGS = new Set(['json', 'help', 'version']);
const VALUED = new Set(['input', 'input2', 'param', 'impl', 'family', ...SWEEP_OPTIONS, ...OPTIMIZE_OPTIONS, ...ATTEND_OPTIONS]);

function parseArgs(argv) {
  const pos = [], opt = { param: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') { opt.help = true; continue; }
    if (!a.startsWith('--') || a === '--') { pos.push(a); continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (FLAGS.has(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      opt[name] = true;
    } else if (VALUED.has(name)) {
      let v;
      if (eq >= 0) v = a.slice(eq + 1);
      else {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
        v = argv[++i];
      }
      if (name === 'param') opt.param.push(v);
      else if (opt[name] !== undefined) throw new UsageError(`--${name} given twice`);
      else opt[name] = v;
    } else {
      throw new UsageError(`unknown option --${name} (see softscope --help)`);
    }
  }
  return { pos, opt };
}

function parseNumberToken(t, what, i) {
  const s = t.trim().replace(/^"|"$/g, '');
  const low = s.toLowerCase();
  if (low === 'infinity' || low === '+infinity' || low === 'inf' || low === '+inf') return Infinity;
  if (low === '-infinity' || low === '-inf') return -Infinity;
  if (low === 'nan') return NaN;
  const v = s === '' ? NaN : Number(s);
  if (Number.isNaN(v)) throw new UsageError(`${what}: item ${i} (${JSON.stringify(t.trim())}) is not a number`);
  return v;
}

// A vector from the text of --input: a JSON array, a softscope --json result,
// or numbers separated by spaces/commas (which also covers -Infinity, which
// JSON cannot write).
function parseVector(text, what) {
  let j;
  try { j = JSON.parse(text); } catch { j = undefined; }
  if (j && typeof j === 'object' && !Array.isArray(j) && Array.isArray(j.output)) j = j.output;
  if (Array.isArray(j)) {
    return Float64Array.from(j, (v, i) => {
      if (typeof v === 'number') return v;
      if (typeof v === 'string') return parseNumberToken(v, what, i);
      throw new UsageError(`${what}: item ${i} (${JSON.stringify(v)}) is not a number`);
    });
  }
  if (j !== undefined && typeof j !== 'number')
    throw new UsageError(`${what}: expected an array of numbers (got ${Array.isArray(j) ? 'array' : typeof j})`);
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '').trim();
  if (body === '') return new Float64Array(0);
  return Float64Array.from(body.split(/[\s,]+/), (t, i) => parseNumberToken(t, what, i));
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function readVector(spec, what) {
  let text;
  if (spec === '-') text = await readStdin();
  else if (spec.startsWith('@')) {
    try { text = await readFile(spec.slice(1), 'utf8'); } catch (e) {
      throw new UsageError(`${what}: cannot read ${spec.slice(1)} (${e.code ?? e.message})`);
    }
  } else text = spec;
  // float32 is what the kernels compute in; values beyond its range become
  // +-Inf here and are then rejected by the kernel with their index.
  return Float32Array.from(parseVector(text, what));
}

function parseParams(list, kernel) {
  const out = {};
  for (const kv of list) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param ${kv}: expected name=value`);
    const name = kv.slice(0, eq), raw = kv.slice(eq + 1).trim();
    if (Object.prototype.hasOwnProperty.call(out, name)) throw new UsageError(`--param ${name} given twice`);
    const spec = kernel.params.find((p) => p.name === name);
    let v;
    if (spec?.type === 'bool' && /^(true|false)$/i.test(raw)) v = /^true$/i.test(raw);
    else if (spec?.choices && /^[a-z_]+$/i.test(raw)) v = raw; // a named choice, checked by the API
    else {
      try { v = parseNumberToken(raw, `--param ${name}`, 0); } catch {
        throw new UsageError(`--param ${name}=${raw}: not a number`);
      }
    }
    out[name] = v;
  }
  return out;
}

// ---- output -----------------------------------------------------------------

// The shortest decimal that reads back as the same float32.
function f32(v) {
  if (!Number.isFinite(v)) return v;
  for (let p = 1; p <= 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return s;
  }
  return v;
}

function jsonValue(v) {
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return v;
}

function toJson(obj) {
  return JSON.stringify(obj, (k, v) => jsonValue(v));
}

function num(v, digits = 6) {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(digits)));
}

function table(rows, header) {
  const all = header ? [header, ...rows] : rows;
  const w = all[0].map((_, c) => Math.max(...all.map((r) => String(r[c]).length)));
  const line = (r) => r.map((cell, c) => (c === r.length - 1 ? String(cell) : String(cell).padEnd(w[c]))).join('  ').trimEnd();
  return all.map(line).join('\n');
}

// ---- commands ------------------------------------------------------------------

// Bounds like 2^53 (seeds) and 2^24 (draws) read better as powers of two.
function bound(v) {
  const e = Math.log2(Math.abs(v));
  return v >= 2 ** 20 && Number.isInteger(e) ? `2^${e}` : num(v);
}

function paramText(p) {
  const lo = p.min === null ? '-inf' : bound(p.min), hi = p.max === null ? 'inf' : bound(p.max);
  const nb = p.n_bound === 'le' ? ', <= n' : p.n_bound === 'lt' ? ', < n' : '';
  if (p.choices) return `${p.name}=${p.choices[p.default - p.min]} (${p.choices.join('|')})`;
  return `${p.name}=${num(p.default)} ${p.min_open ? '(' : '['}${lo}, ${hi}${p.max_open ? ')' : ']'}${nb}`;
}

function cmdList(ss, opt, out) {
  const list = ss.kernels(opt.family);
  if (opt.json) {
    out(toJson({ version: ss.version, impl: ss.impl, max_n: ss.maxN, kernels: list }));
    return;
  }
  const rows = list.map((k) => [k.name, k.family, k.has_backward ? 'yes' : 'no',
    k.params.length ? k.params.map(paramText).join('; ') : '-', k.summary]);
  out(table(rows, ['KERNEL', 'FAMILY', 'BACKWARD', 'PARAMS', 'SUMMARY']));
  out(`\n${list.length} kernels; softscope ${ss.version}, ${ss.impl} build`);
}

// The output as a distribution for the metrics.
function asDistribution(k, y) {
  if (k.output === 'log_probs') return { probs: y.map(Math.exp), raw: y.map(Math.exp) };
  if (k.output === 'weights') {
    let s = 0;
    for (const v of y) s += v;
    return { probs: s > 0 ? y.map((v) => v / s) : y, raw: y };
  }
  return { probs: y, raw: y };
}

function needMeasure(ss, name) {
  if (!ss.kernels('measure').some((k) => k.name === name))
    throw new Error(`the registry has no measure "${name}" (needed for the metrics)`);
}

function normalizeMetrics(ss, k, y) {
  for (const m of ['sum', 'entropy', 'max_prob', 'support']) needMeasure(ss, m);
  const { probs, raw } = asDistribution(k, y);
  return {
    entropy: ss.measure('entropy', probs),
    max: ss.measure('max_prob', probs),
    support: ss.measure('support', probs),
    sum: ss.measure('sum', raw),
  };
}

function rowsOf(x, y) {
  const n = x.length, show = n <= 40 ? [...Array(n).keys()] : [...Array(20).keys(), -1, ...Array.from({ length: 5 }, (_, i) => n - 5 + i)];
  return show.map((i) => (i < 0 ? ['...', '', ''] : [String(i), num(x[i]), num(y[i])]));
}

async function cmdNormalize(ss, name, opt, out) {
  if (!name) throw new UsageError('normalize: which kernel? (softscope list --family normalizer)');
  const k = ss.kernel(name, 'normalizer');
  if (opt.input === undefined) throw new UsageError('normalize: --input is required');
  if (opt.input2 !== undefined) throw new UsageError('normalize: --input2 is only for measures');
  const x = await readVector(opt.input, '--input');
  const params = parseParams(opt.param, k);
  const y = ss.normalize(k.name, x, params);
  const metrics = normalizeMetrics(ss, k, y);
  if (opt.json) {
    out(toJson({ kernel: k.name, impl: ss.impl, output: Array.from(y, f32), metrics }));
    return;
  }
  const head = k.output === 'log_probs' ? 'log y' : 'y';
  out(`${k.name} (${ss.impl}), n = ${x.length}${Object.keys(params).length ? ', ' + Object.entries(params).map(([a, b]) => `${a}=${b}`).join(', ') : ''}`);
  out(table(rowsOf(x, y), ['i', 'x', head]));
  out(`sum ${num(metrics.sum)}  entropy ${num(metrics.entropy)} nats  max ${num(metrics.max)}  support ${num(metrics.support)}`);
}

async function cmdMeasure(ss, name, opt, out) {
  if (!name) throw new UsageError('measure: which kernel? (softscope list --family measure)');
  const k = ss.kernel(name, 'measure');
  if (opt.input === undefined) throw new UsageError('measure: --input is required');
  const pair = k.input === 'probs_pair';
  if (pair && opt.input2 === undefined) throw new UsageError(`measure ${k.name}: --input2 is required (it compares two vectors)`);
  if (!pair && opt.input2 !== undefined) throw new UsageError(`measure ${k.name}: reads one vector; --input2 is not used`);
  if (opt.input === '-' && opt.input2 === '-') throw new UsageError('measure: only one of --input / --input2 can read stdin');
  const p = await readVector(opt.input, '--input');
  const q = pair ? await readVector(opt.input2, '--input2') : null;
  const params = parseParams(opt.param, k);
  const v = ss.measure(k.name, p, q, params);
  if (opt.json) {
    out(toJson({ kernel: k.name, impl: ss.impl, output: v, metrics: { n: p.length } }));
    return;
  }
  out(`${k.name} (${ss.impl}), n = ${p.length}: ${num(v, 9)}`);
}

async function cmdLoss(ss, name, opt, out) {
  if (!name) throw new UsageError('loss: which kernel? (softscope list --family loss)');
  const k = ss.kernel(name, 'loss');
  if (opt.input === undefined) throw new UsageError('loss: --input is required');
  if (opt.input2 !== undefined) throw new UsageError('loss: --input2 is only for measures');
  const x = await readVector(opt.input, '--input');
  const params = parseParams(opt.param, k);
  if (params.target === undefined) throw new UsageError(`loss ${k.name}: --param target=<index> is required`);
  const { loss, grad } = ss.loss(k.name, x, params);
  if (opt.json) {
    out(toJson({ kernel: k.name, impl: ss.impl, output: loss, grad: Array.from(grad, f32) }));
    return;
  }
  out(`${k.name} (${ss.impl}), n = ${x.length}, ${Object.entries(params).map(([a, b]) => `${a}=${b}`).join(', ')}: loss ${num(loss, 9)}`);
  out(table(rowsOf(x, grad), ['i', 'x', 'dL/dx']));
}

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

function sampleMetrics(ss, k, x, params, r) {
  if (k.draws === 'vector') return vectorMetrics(r);
  const m = { draws: r.draws, support: r.probs.reduce((c, v) => c + (v > 0 ? 1 : 0), 0), entropy: entropyOf(r.probs) };
  if (k.params.some((p) => p.name === 'temperature') && k.input === 'logits') {
    const base = ss.sample('temperature', x, { temperature: params.temperature ?? 1, draws: 0 }).probs;
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

// Error measures of y = dequantize(quantize(x)); for a probability vector x
// also the KL divergence KL(x || y / sum y) (null when y drops mass x has)
// and whether the argmax survives.
async function cmdQuantize(ss, name, opt, out) {
  if (!name) throw new UsageError('quantize: which kernel? (softscope list --family quantizer)');
  const k = ss.kernel(name, 'quantizer');
  if (opt.input === undefined) throw new UsageError('quantize: --input is required');
  const x = await readVector(opt.input, '--input');
  const params = parseParams(opt.param, k);
  const r = ss.quantize(k.name, x, params);
  const metrics = quantMetrics(x, r.output);
  if (opt.json) {
    out(toJson({ kernel: k.name, impl: ss.impl, output: Array.from(r.output, f32), codes: Array.from(r.codes), metrics }));
    return;
  }
  out(`${k.name} (${ss.impl}), n = ${x.length}, ${Object.entries(params).map(([a, b]) => `${a}=${b}`).join(', ') || 'defaults'}`);
  out(table(rowsOf(x, r.output).map((row) => (row[0] === '...' ? [...row, ''] : [...row, String(r.codes[Number(row[0])])])), ['i', 'x', 'y', 'code']));
  out(Object.entries(metrics).map(([a, b]) => `${a} ${typeof b === 'number' ? num(b) : b}`).join('  '));
}

async function cmdSample(ss, name, opt, out) {
  if (!name) throw new UsageError('sample: which kernel? (softscope list --family sampler)');
  const k = ss.kernel(name, 'sampler');
  if (opt.input === undefined) throw new UsageError('sample: --input is required');
  if (opt.input2 !== undefined) throw new UsageError('sample: --input2 is only for measures');
  const x = await readVector(opt.input, '--input');
  const params = parseParams(opt.param, k);
  const r = ss.sample(k.name, x, params);
  const metrics = sampleMetrics(ss, k, x, params, r);
  const rows = (flat) => Array.from({ length: r.draws }, (_, d) => Array.from(flat.subarray(d * r.n, (d + 1) * r.n), f32));
  if (opt.json) {
    const res = { kernel: k.name, impl: ss.impl, output: r.indices ? Array.from(r.indices) : rows(r.samples),
      probs: Array.from(r.probs, f32) };
    if (k.draws === 'relaxed') res.samples = rows(r.samples);
    res.metrics = metrics;
    out(toJson(res));
    return;
  }
  out(`${k.name} (${ss.impl}), n = ${x.length}, ${Object.entries(params).map(([a, b]) => `${a}=${b}`).join(', ') || 'defaults'}`);
  if (r.indices) {
    const cnt = drawCounts(r.indices, r.n);
    out(table(rowsOf(x, r.probs).map((row) => (row[0] === '...' ? [...row, ''] : [...row, num(r.draws ? cnt[Number(row[0])] / r.draws : 0)])),
      ['i', 'x', 'p', 'drawn']));
  } else {
    const mean = new Float64Array(r.n);
    for (let d = 0; d < r.draws; d++) for (let i = 0; i < r.n; i++) mean[i] += r.samples[d * r.n + i] / r.draws;
    out(table(rowsOf(x, r.probs).map((row) => (row[0] === '...' ? [...row, ''] : [...row, num(mean[Number(row[0])])])),
      ['i', 'x', 'mean', 'draw mean']));
  }
  out(Object.entries(metrics).map(([a, b]) => `${a} ${num(b)}`).join('  '));
}

// The API's messages name its argument ("x", "p", "params.alpha"); on the
// command line those are --input, --input2 and --param.
function cliMessage(e) {
  let m = e.message.replace(/^softscope\.\w+(\("[^"]*"\))?: /, '');
  const arg = e.argument;
  const flag = arg === 'x' || arg === 'p' ? '--input' : arg === 'q' ? '--input2'
    : arg?.startsWith('params.') ? `--param ${arg.slice(7)}` : null;
  if (flag && m.startsWith(arg)) m = `${flag}${m.slice(arg.length)}`;
  return m;
}

export async function main(argv, io = {}) {
  const out = io.out ?? ((s) => process.stdout.write(s + '\n'));
  const err = io.err ?? ((s) => process.stderr.write(s + '\n'));
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    err(`softscope: ${e.message}`);
    return 2;
  }
  const { pos, opt } = parsed;
  if (opt.help || pos[0] === 'help') { out(HELP.trimEnd()); return 0; }
  if (opt.version) { out('0.1.0'); return 0; }
  const [cmd, name, ...extra] = pos;
  try {
    if (!cmd) throw new UsageError('no command (softscope --help)');
    if (!['list', 'normalize', 'measure', 'loss', 'sample', 'quantize', 'optimize', 'attend', 'sweep'].includes(cmd)) throw new UsageError(`unknown command "${cmd}" (list, normalize, measure, loss, sample, quantize, optimize, attend, sweep; see softscope --help)`);
    if (cmd === 'list' ? name !== undefined : extra.length) throw new UsageError(`unexpected argument "${cmd === 'list' ? name : extra[0]}"`);
    if (cmd !== 'list' && opt.family !== undefined) throw new UsageError('--family is only for list');
    // which commands take an option that is not everybody's
    const shared = (o) => (cmd === 'optimize' && OPTIMIZE_SHARED.includes(o)) || (cmd === 'attend' && o === 'seed');
    const sweepOnly = cmd === 'sweep' ? undefined : SWEEP_OPTIONS.find((o) => opt[o] !== undefined && !shared(o));
    if (sweepOnly) throw new UsageError(`--${sweepOnly} is only for sweep${sweepOnly === 'seed' ? ', optimize and attend' : sweepOnly === 'svg' ? ' and optimize' : ''}`);
    const optimizeOnly = cmd === 'optimize' ? undefined : OPTIMIZE_OPTIONS.find((o) => opt[o] !== undefined);
    if (optimizeOnly) throw new UsageError(`--${optimizeOnly} is only for optimize`);
    const attendOnly = cmd === 'attend' ? undefined : ATTEND_OPTIONS.find((o) => opt[o] !== undefined);
    if (attendOnly) throw new UsageError(`--${attendOnly} is only for attend`);
    const impl = opt.impl ?? 'auto';
    if (!['auto', 'simd', 'scalar'].includes(impl)) throw new UsageError(`--impl must be auto, simd or scalar (got "${impl}")`);
    // SOFTSCOPE_WASM: run another build of the module (a path or URL).
    const ss = await createSoftscope(process.env.SOFTSCOPE_WASM ? { impl, wasm: process.env.SOFTSCOPE_WASM } : { impl });
    if (cmd === 'list') cmdList(ss, opt, out);
    else if (cmd === 'normalize') await cmdNormalize(ss, name, opt, out);
    else if (cmd === 'loss') await cmdLoss(ss, name, opt, out);
    else if (cmd === 'sample') await cmdSample(ss, name, opt, out);
    else if (cmd === 'quantize') await cmdQuantize(ss, name, opt, out);
    else if (cmd === 'attend') await cmdAttend(ss, name, opt, out, { UsageError, parseParams, toJson, num, table });
    else if (cmd === 'optimize') await cmdOptimize(ss, name, opt, out, { UsageError, parseNumberToken, parseParams, toJson, num, table });
    else if (cmd === 'sweep') await cmdSweep(ss, name, opt, out, { UsageError, parseNumberToken, toJson, num, table });
    else await cmdMeasure(ss, name, opt, out);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) { err(`softscope: ${e.message}`); return 2; }
    // Errors from the API carry the C status they stand for; NULL and BUFFER
    // would be bugs here, everything else is about the input.
    if (typeof e?.code === 'string' && e.code.startsWith('SS_ERR') && e.code !== 'SS_ERR_NULL' && e.code !== 'SS_ERR_BUFFER') {
      err(`softscope: ${cmd} ${name ?? ''}: ${cliMessage(e)}`.replace(/ {2,}/g, ' '));
      return 2;
    }
    err(`softscope: internal error: ${e?.message ?? e}${process.env.SOFTSCOPE_DEBUG ? `\n${e?.stack}` : ' (SOFTSCOPE_DEBUG=1 for the stack)'}`);
    return 1;
  }
}

// Run when executed (also through the npm bin symlink), not when imported.
const self = fileURLToPath(import.meta.url);
let invoked = process.argv[1];
try { invoked = realpathSync(invoked); } catch { /* keep as is */ }
if (invoked === self) {
  // `softscope list | head`: a closed pipe ends the output, not in a stack trace.
  process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
  process.exitCode = await main(process.argv.slice(2));
}
