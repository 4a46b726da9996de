// softscope sweep dispersion: the dispersion sweep of analysis/dispersion.js
// (the same code as the Dispersion view) from the command line — a table per
// normalizer, the sweep result as JSON ({"kernel":"dispersion","impl","build",
// ...result}), and/or the Dispersion view's figure as SVG.
import { UsageError, parseNumberToken, own, toJson, num, table } from './shared.js';
import { dispersionSweep, DISPERSION_N_MAX, DISPERSION_DEFAULTS, DISTRACTOR_KINDS, KEY_POSITIONS } from '../analysis/dispersion.js';
import { dispersion } from '../views/dispersion/index.js';
import { svgString } from '../figures/render.js';
import { html } from '../figures/h.js';

const SWEEPS = ['dispersion'];
const D = DISPERSION_DEFAULTS;
const HELP = `sweep dispersion: one planted key (logit = margin) among n - 1 distractors
(centre 0), n = n-min .. n-max on a log grid (n-max <= 2^20); per normalizer the
key's and the largest probability, the entropy (nats) and the support size.
Weights outputs (not summing to 1): key and max are raw weights, entropy and
support those of |y| / sum|y|.
  --normalizers a,b,...   registry normalizers (required; softscope list --family normalizer)
  --n-max N               largest n, an integer or 2^k, at most 2^20 (required)
  --n-min N               smallest n (default ${D.nMin})
  --margin M              key logit minus the distractor centre (default ${D.margin})
  --distractor K          ${DISTRACTOR_KINDS.join(' | ')} (default ${D.distractor.kind})
  --scale S               distractor std (gaussian) or half-width (uniform) (default ${D.distractor.scale})
  --seed S                distractor seed, an integer in [0, 2^32) (default ${D.seed})
  --key P                 ${KEY_POSITIONS.join(' | ')}: key at index 0 or at a seeded index (default ${D.keyPosition})
  --points-per-octave K   grid points per doubling of n, 1..16 (default ${D.pointsPerOctave})
  --param k.name=value    a parameter of normalizer k; name=value sets it for every chosen one that has it
  --svg FILE              also write the figure (three panels, log n axis) as SVG`;

// options.X of the API -> the flag it comes from.
const FLAG_OF = {
  nMax: '--n-max', nMin: '--n-min', margin: '--margin', 'distractor.kind': '--distractor', 'distractor.scale': '--scale',
  seed: '--seed', pointsPerOctave: '--points-per-octave', keyPosition: '--key',
};

function parseNumber(raw, flag) {
  try {
    return parseNumberToken(raw, flag, 0);
  } catch {
    throw new UsageError(`${flag} ${raw}: not a number`);
  }
}

// --param values: "kernel.name=value" for one normalizer, "name=value" for
// every chosen normalizer that has `name`.
function paramsByKernel(ss, names, list) {
  const kernels = names.map((n) => ss.kernel(n, 'normalizer'));
  const out = new Map(names.map((n) => [n, Object.create(null)])); // no prototype: every name is checked
  for (const kv of list) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param ${kv}: expected kernel.name=value or name=value`);
    const key = kv.slice(0, eq), raw = kv.slice(eq + 1).trim();
    const dot = key.indexOf('.');
    const kname = dot < 0 ? null : key.slice(0, dot), pname = dot < 0 ? key : key.slice(dot + 1);
    if (kname !== null && !names.includes(kname))
      throw new UsageError(`--param ${key}: "${kname}" is not in --normalizers (${names.join(',')})`);
    const targets = kernels.filter((k) => (kname === null ? k.params.some((p) => p.name === pname) : k.name === kname));
    if (kname === null && targets.length === 0)
      throw new UsageError(`--param ${key}: none of ${names.join(', ')} has a parameter "${pname}"`);
    for (const k of targets) {
      const params = out.get(k.name);
      if (own(params, pname)) throw new UsageError(`--param ${k.name}.${pname} given twice`);
      const spec = k.params.find((p) => p.name === pname);
      params[pname] = spec?.type === 'bool' && /^(true|false)$/i.test(raw) ? /^true$/i.test(raw) : parseNumber(raw, `--param ${key}`);
    }
  }
  return out;
}

// An API message about options.X, said with the flag instead.
function flagMessage(e, names) {
  const arg = e.argument ?? '';
  let m = e.message.replace(/^dispersionSweep: /, '');
  const pm = /^options\.normalizers\[(\d+)\]\.params\.?(\w*)/.exec(arg);
  if (pm) return m.replace(/^options\.normalizers\[\d+\] \("[^"]*"\): params\.(\w+)/, `--param ${names[pm[1]]}.$1`);
  if (/^options\.normalizers/.test(arg)) return m.replace(/^options\.normalizers(\[\d+\])?/, '--normalizers');
  const opt = arg.replace(/^options\./, '');
  if (FLAG_OF[opt]) return m.replace(`options.${opt}`, FLAG_OF[opt]);
  return m;
}

function textReport(ss, r) {
  const lines = [];
  const { inputs: i } = r;
  lines.push(`dispersion sweep (${ss.impl}): margin ${num(i.margin)}, distractors ${i.distractor.kind}`
    + `${i.distractor.kind === 'constant' ? '' : ` (scale ${num(i.distractor.scale)})`}, seed ${i.seed}, key ${i.keyPosition}, n = ${i.nMin}..${i.nMax}`);
  for (const s of r.series) {
    const ps = Object.entries(s.params).map(([k, v]) => `${k}=${num(v)}`).join(', ');
    lines.push('');
    lines.push(`${s.name}${ps ? ` (${ps})` : ''}${s.output === 'weights' ? ' — weights: key/max raw, entropy/support of |y|/sum|y|' : ''}`);
    const rows = r.n.map((n, j) => [String(n), num(s.keyProb[j]), num(s.maxProb[j]), num(s.entropy[j]), num(s.support[j]), num(s.sum[j])]);
    lines.push(table(rows, ['n', 'key', 'max', 'entropy', 'support', 'sum']));
    const seen = new Set();
    for (const e of s.errors) {
      if (seen.has(e.code)) continue;
      seen.add(e.code);
      const at = s.errors.filter((f) => f.code === e.code).map((f) => f.n);
      lines.push(`  not computed at n = ${at.join(', ')}: ${e.message.replace(/^[^:]*: /, '')}`);
    }
  }
  return lines.join('\n');
}

/**
 * Run `softscope sweep <what>`. `h` holds cli.js's helpers: { UsageError,
 * parseNumberToken, toJson, num, table }.
 */
async function sweep(ctx, what, opt) {
  const ss = await ctx.load(opt.impl);
  if (!what) throw new UsageError(`sweep: which sweep? (${SWEEPS.join(', ')})`);
  if (!SWEEPS.includes(what)) throw new UsageError(`sweep: unknown sweep "${what}" (${SWEEPS.join(', ')})`);
    if (opt.normalizers === undefined) throw new UsageError('sweep dispersion: --normalizers is required (e.g. --normalizers softmax,sparsemax)');
  if (opt['n-max'] === undefined) throw new UsageError(`sweep dispersion: --n-max is required (at most 2^20 = ${DISPERSION_N_MAX})`);
  const names = opt.normalizers.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--normalizers: no normalizer names given');
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`--normalizers: "${dup}" given twice`);
  let params;
  try {
    params = paramsByKernel(ss, names, opt.param);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--normalizers: ${e.message.replace(/^[^:]*: /, '')}`);
  }
  const options = {
    normalizers: names.map((name) => ({ name, params: params.get(name) })),
    nMax: parseNumber(opt['n-max'], '--n-max'),
  };
  const number = (flag, key) => { if (opt[flag] !== undefined) options[key] = parseNumber(opt[flag], `--${flag}`); };
  number('n-min', 'nMin');
  number('margin', 'margin');
  number('seed', 'seed');
  number('points-per-octave', 'pointsPerOctave');
  if (opt.key !== undefined) options.keyPosition = opt.key;
  if (opt.distractor !== undefined || opt.scale !== undefined) {
    options.distractor = { kind: opt.distractor ?? D.distractor.kind };
    if (opt.scale !== undefined) options.distractor.scale = parseNumber(opt.scale, '--scale');
  }
  let r;
  try {
    r = dispersionSweep(ss, options);
  } catch (e) {
    if (typeof e?.argument === 'string' && e.argument.startsWith('options')) throw new UsageError(flagMessage(e, names));
    throw e;
  }
  if (opt.svg !== undefined) {
    // the Dispersion view's figure, drawn from this sweep
    const data = { n: r.n, series: r.series.map((x) => ({ ...x, fresh: r.n.length })), invalid: [], nMax: r.inputs.nMax, probLog: false, margin: r.inputs.margin };
    const svg = svgString(html`<${dispersion.Figure} data=${data} colors=${dispersion.colors(ss)} width=${dispersion.width} />`);
    await ctx.write(opt.svg, svg, '--svg');
  }
  if (opt.json) ctx.out(toJson({ kernel: 'dispersion', impl: ss.impl, build: ss.build, ...r }));
  else ctx.out(textReport(ss, r));
}

export const command = {
  name: 'sweep',
  summary: 'the dispersion sweep: a planted key among n - 1 distractors, n up to 2^20',
  usage: 'softscope sweep dispersion --normalizers a,b,... --n-max N [options] [--impl I] [--json] [--svg FILE]',
  options: { normalizers: 'value', 'n-max': 'value', 'n-min': 'value', margin: 'value', distractor: 'value', scale: 'value', seed: 'value',
    'points-per-octave': 'value', key: 'value', svg: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: `${HELP}
--json prints {"kernel": "dispersion","impl","build","n": [...],"series": [{"name","params","output",
"keyProb","maxProb","entropy","support","sum","errors"}],"inputs": {...}}`,
  positional: [0, 1],
  run: (ctx, { pos, opt }) => sweep(ctx, pos[0], opt),
};
