// `softscope sweep dispersion`: the dispersion sweep of wasm/dispersion.js
// from the command line — a table per normalizer, the sweep result as JSON
// ({"kernel":"dispersion","impl", ...result}), and/or an SVG figure.
// cli.js parses the argv and dispatches here; the helpers it shares
// (UsageError, number parsing, JSON and table output) are passed in so this
// file does not import cli.js (which runs main() when executed).
import { writeFile } from 'node:fs/promises';
import { dispersionSweep, DISPERSION_N_MAX, DISPERSION_DEFAULTS, DISTRACTOR_KINDS, KEY_POSITIONS } from './dispersion.js';
import { dispersionSvg } from './dispersion-svg.js';

/** The valued options only `sweep` takes (cli.js adds them to its parser). */
export const SWEEP_OPTIONS = ['normalizers', 'n-max', 'n-min', 'margin', 'distractor', 'scale', 'seed', 'points-per-octave', 'key', 'svg'];
export const SWEEPS = ['dispersion'];

const D = DISPERSION_DEFAULTS;
export const SWEEP_HELP = `sweep dispersion: one planted key (logit = margin) among n - 1 distractors
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

function parseNumber(raw, flag, h) {
  const m = /^\s*2\s*\^\s*(\d+)\s*$/.exec(raw);
  if (m) return 2 ** Number(m[1]);
  try {
    return h.parseNumberToken(raw, flag, 0);
  } catch {
    throw new h.UsageError(`${flag} ${raw}: not a number`);
  }
}

// --param values: "kernel.name=value" for one normalizer, "name=value" for
// every chosen normalizer that has `name`.
function paramsByKernel(ss, names, list, h) {
  const kernels = names.map((n) => ss.kernel(n, 'normalizer'));
  const out = new Map(names.map((n) => [n, {}]));
  for (const kv of list) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new h.UsageError(`--param ${kv}: expected kernel.name=value or name=value`);
    const key = kv.slice(0, eq), raw = kv.slice(eq + 1).trim();
    const dot = key.indexOf('.');
    const kname = dot < 0 ? null : key.slice(0, dot), pname = dot < 0 ? key : key.slice(dot + 1);
    if (kname !== null && !names.includes(kname))
      throw new h.UsageError(`--param ${key}: "${kname}" is not in --normalizers (${names.join(',')})`);
    const targets = kernels.filter((k) => (kname === null ? k.params.some((p) => p.name === pname) : k.name === kname));
    if (kname === null && targets.length === 0)
      throw new h.UsageError(`--param ${key}: none of ${names.join(', ')} has a parameter "${pname}"`);
    for (const k of targets) {
      const params = out.get(k.name);
      if (Object.prototype.hasOwnProperty.call(params, pname)) throw new h.UsageError(`--param ${k.name}.${pname} given twice`);
      const spec = k.params.find((p) => p.name === pname);
      params[pname] = spec?.type === 'bool' && /^(true|false)$/i.test(raw) ? /^true$/i.test(raw) : parseNumber(raw, `--param ${key}`, h);
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

function textReport(ss, r, h) {
  const lines = [];
  const { inputs: i } = r;
  lines.push(`dispersion sweep (${ss.impl}): margin ${h.num(i.margin)}, distractors ${i.distractor.kind}`
    + `${i.distractor.kind === 'constant' ? '' : ` (scale ${h.num(i.distractor.scale)})`}, seed ${i.seed}, key ${i.keyPosition}, n = ${i.nMin}..${i.nMax}`);
  for (const s of r.series) {
    const ps = Object.entries(s.params).map(([k, v]) => `${k}=${h.num(v)}`).join(', ');
    lines.push('');
    lines.push(`${s.name}${ps ? ` (${ps})` : ''}${s.output === 'weights' ? ' — weights: key/max raw, entropy/support of |y|/sum|y|' : ''}`);
    const rows = r.n.map((n, j) => [String(n), h.num(s.keyProb[j]), h.num(s.maxProb[j]), h.num(s.entropy[j]), h.num(s.support[j]), h.num(s.sum[j])]);
    lines.push(h.table(rows, ['n', 'key', 'max', 'entropy', 'support', 'sum']));
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
export async function cmdSweep(ss, what, opt, out, h) {
  if (!what) throw new h.UsageError(`sweep: which sweep? (${SWEEPS.join(', ')})`);
  if (!SWEEPS.includes(what)) throw new h.UsageError(`sweep: unknown sweep "${what}" (${SWEEPS.join(', ')})`);
  for (const f of ['input', 'input2']) if (opt[f] !== undefined) throw new h.UsageError(`--${f} is not used by sweep`);
  if (opt.normalizers === undefined) throw new h.UsageError('sweep dispersion: --normalizers is required (e.g. --normalizers softmax,sparsemax)');
  if (opt['n-max'] === undefined) throw new h.UsageError(`sweep dispersion: --n-max is required (at most 2^20 = ${DISPERSION_N_MAX})`);
  const names = opt.normalizers.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new h.UsageError('--normalizers: no normalizer names given');
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new h.UsageError(`--normalizers: "${dup}" given twice`);
  let params;
  try {
    params = paramsByKernel(ss, names, opt.param, h);
  } catch (e) {
    if (e instanceof h.UsageError) throw e;
    throw new h.UsageError(`--normalizers: ${e.message.replace(/^[^:]*: /, '')}`);
  }
  const options = {
    normalizers: names.map((name) => ({ name, params: params.get(name) })),
    nMax: parseNumber(opt['n-max'], '--n-max', h),
  };
  const num = (flag, key) => { if (opt[flag] !== undefined) options[key] = parseNumber(opt[flag], `--${flag}`, h); };
  num('n-min', 'nMin');
  num('margin', 'margin');
  num('seed', 'seed');
  num('points-per-octave', 'pointsPerOctave');
  if (opt.key !== undefined) options.keyPosition = opt.key;
  if (opt.distractor !== undefined || opt.scale !== undefined) {
    options.distractor = { kind: opt.distractor ?? D.distractor.kind };
    if (opt.scale !== undefined) options.distractor.scale = parseNumber(opt.scale, '--scale', h);
  }
  let r;
  try {
    r = dispersionSweep(ss, options);
  } catch (e) {
    if (typeof e?.argument === 'string' && e.argument.startsWith('options')) throw new h.UsageError(flagMessage(e, names));
    throw e;
  }
  if (opt.svg !== undefined) {
    const i = r.inputs;
    const title = `dispersion: margin ${i.margin}, ${i.distractor.kind} distractors${i.distractor.kind === 'constant' ? '' : ` (scale ${i.distractor.scale})`}, seed ${i.seed} — softscope ${ss.version} (${ss.impl})`;
    try {
      await writeFile(opt.svg, dispersionSvg(r, { title }));
    } catch (e) {
      throw new h.UsageError(`--svg: cannot write ${opt.svg} (${e.code ?? e.message})`);
    }
  }
  if (opt.json) out(h.toJson({ kernel: 'dispersion', impl: ss.impl, ...r }));
  else out(textReport(ss, r, h));
}
