// The whole playground state, serialized into the URL hash (like the
// TensorFlow Playground) so that a link reproduces exactly what is on screen:
//
//   #panel=normalizers&preset=custom&seed=1&logits=1.2,-0.5,0&normalizers=softmax,softmax_temperature&temperature=0.7
//
// Keys: panel, preset (a preset name or "custom" once a bar was dragged),
// seed, n (only used when logits are absent: regenerate the preset), logits
// (comma separated numbers, the source of truth; -Infinity is a masked
// entry), normalizers (comma separated registry names). The dispersion panel's
// keys are prefixed "dispersion." (normalizers, margin, distractor, scale,
// nmax, seed, ppo, plog) and written only when they differ from the default.
// The sampling panel's keys are prefixed "sampling." (see SAMPLING_KEYS; the
// same rule). state.sampling is present only when the hash has a sampling key
// (absent = every sampling default; read it through samplingState(state)).
// The quantization panel's keys are prefixed "quant." (source, n, seed,
// scheme, log; written when they differ from the default). state.quant is
// present only when the hash has one (read it through quantState(state)).
// The optimizers panel's keys are prefixed "optim." (fn, start, list, steps,
// speed, noise, clip, seed, schedule, warmup, sel) plus one key per changed
// hyperparameter, optim.<optimizer>.<param> (each optimizer has its own lr);
// state.optim is present only when the hash has one (optimState(state)).
// The attention panel's keys are prefixed "attn." (example, n, seed, norms,
// linear, causal, scale, quant, bits); state.attn is present only when the
// hash has one (attnState(state)). Normalizer parameters (temperature,
// alpha, ...) are the shared kernel parameters below.
// Every other key is a kernel parameter, by its registry name (names are the
// same in C, JS, CLI and here); one value is shared by every chosen kernel
// that has a parameter of that name, in every panel.
//
// parseHash never throws: anything malformed falls back to the default for
// that field. Kernel names and parameter ranges are checked later against the
// registry (the parser does not know it).
import { makePreset, PRESET_NAMES, N_MIN, N_MAX, LOGIT_LIMIT } from '../presets.js';
import { DISPERSION_DEFAULTS, DISTRACTOR_KINDS, DISPERSION_N_MAX } from '../../../wasm/dispersion.js';

export const PANELS = ['normalizers', 'dispersion', 'sampling', 'quantization', 'optimizers', 'attention'];
const RESERVED = new Set(['panel', 'preset', 'seed', 'n', 'logits', 'normalizers']);
const NAME_RE = /^[a-z][a-z0-9_]*$/;

export const DEFAULT_PRESET = 'planted_peak';
export const DEFAULT_N = 16;
export const DEFAULT_SEED = 1;
export const DEFAULT_NORMALIZERS = ['softmax', 'softmax_temperature'];

// The dispersion panel. normalizers: null means "the default for this
// registry" (see dispersionDefaults), so a link without the key follows the
// kernels the build has. nMax is a power of two (the slider's steps).
export const DISPERSION_MARGIN = { min: -4, max: 12 };
export const DISPERSION_SCALE = { min: 0, max: 4 };
export const DISPERSION_LOG2 = { min: 4, max: Math.log2(DISPERSION_N_MAX) };
export const DISPERSION_PPO = [1, 2, 4];
export const DEFAULT_DISPERSION = Object.freeze({
  normalizers: null,
  margin: DISPERSION_DEFAULTS.margin,
  distractor: DISPERSION_DEFAULTS.distractor.kind,
  scale: DISPERSION_DEFAULTS.distractor.scale,
  nMax: 2 ** 16,
  seed: DISPERSION_DEFAULTS.seed,
  ppo: 2,
  probLog: false,
});
// Softmax against the sparse and the adaptive ones, as far as the registry has them.
const DISPERSION_WANTED = ['softmax', 'sparsemax', 'entmax15', 'ssmax', 'adaptive_temperature'];

/** The default dispersion normalizers among the registry's names (at least two when possible). */
export function dispersionDefaults(known) {
  const names = new Set(known);
  const out = DISPERSION_WANTED.filter((n) => names.has(n));
  for (const n of ['softmax_temperature', ...known]) if (out.length < 2 && names.has(n) && !out.includes(n)) out.push(n);
  return out;
}

const DISPERSION_KEYS = {
  normalizers: 'dispersion.normalizers', margin: 'dispersion.margin', distractor: 'dispersion.distractor',
  scale: 'dispersion.scale', nMax: 'dispersion.nmax', seed: 'dispersion.seed', ppo: 'dispersion.ppo', probLog: 'dispersion.plog',
};

export function defaultState() {
  return {
    panel: PANELS[0],
    preset: DEFAULT_PRESET,
    seed: DEFAULT_SEED,
    logits: makePreset(DEFAULT_PRESET, DEFAULT_N, DEFAULT_SEED),
    normalizers: [...DEFAULT_NORMALIZERS],
    params: {},
    dispersion: { ...DEFAULT_DISPERSION },
  };
}

function parseNumberIn(s, { min, max }) {
  if (s == null || s.trim() === '') return null;
  const v = Number(s);
  return Number.isFinite(v) && v >= min && v <= max ? v + 0 : null;
}

function parseNames(s) {
  return [...new Set(s.split(',').filter((x) => NAME_RE.test(x)))];
}

function parseDispersion(q) {
  const d = { ...DEFAULT_DISPERSION };
  const K = DISPERSION_KEYS;
  const names = q.get(K.normalizers);
  if (names != null) d.normalizers = parseNames(names);
  d.margin = parseNumberIn(q.get(K.margin), DISPERSION_MARGIN) ?? d.margin;
  const kind = q.get(K.distractor);
  if (DISTRACTOR_KINDS.includes(kind)) d.distractor = kind;
  d.scale = parseNumberIn(q.get(K.scale), DISPERSION_SCALE) ?? d.scale;
  const nMax = parseInteger(q.get(K.nMax), 2 ** DISPERSION_LOG2.min, 2 ** DISPERSION_LOG2.max);
  if (nMax != null && Number.isInteger(Math.log2(nMax))) d.nMax = nMax;
  d.seed = parseInteger(q.get(K.seed), 0, 2 ** 31 - 1) ?? d.seed;
  const ppo = parseInteger(q.get(K.ppo), 1, 16);
  if (DISPERSION_PPO.includes(ppo)) d.ppo = ppo;
  const plog = q.get(K.probLog);
  if (plog === '1' || plog === '0') d.probLog = plog === '1';
  return d;
}

function writeDispersion(q, d) {
  if (!d) return;
  const D = DEFAULT_DISPERSION, K = DISPERSION_KEYS;
  if (Array.isArray(d.normalizers)) q.set(K.normalizers, d.normalizers.join(','));
  for (const f of ['margin', 'distractor', 'scale', 'nMax', 'seed', 'ppo']) if (d[f] !== D[f]) q.set(K[f], String(d[f]));
  if (d.probLog !== D.probLog) q.set(K.probLog, d.probLog ? '1' : '0');
}

// ---- the sampling panel ----
// Decoding stages in the order LLM decoders apply them; each has an on/off
// toggle (sampling.on lists the ones on) and one value (sampling.<id>).
export const SAMPLING_STAGES = ['temperature', 'top_k', 'top_p', 'min_p', 'typical'];
// The value ranges the URL accepts (the registry's ranges are checked later,
// against the build); the sliders use the registry's ui ranges.
const STAGE_RANGES = {
  temperature: { min: 1e-3, max: 100 }, top_k: { min: 1, max: 2 ** 20, integer: true },
  top_p: { min: 1e-6, max: 1 }, min_p: { min: 0, max: 1 }, typical: { min: 1e-6, max: 1 },
};
export const SAMPLING_LM = 'lm_next_token';          // the long-tailed preset (large n)
export const SAMPLING_LM_N = { min: 256, max: 65536, default: 32000 };
export const SAMPLING_DRAWS = { min: 100, max: 100000 };
export const SAMPLING_TAU = { min: 0.05, max: 10 };
export const SAMPLING_M = { min: 10, max: 1000 };
export const SAMPLING_TRI_LIMIT = 6;
export const SAMPLING_TARGET_LIMIT = 10;
export const DEFAULT_SAMPLING = Object.freeze({
  preset: SAMPLING_LM, n: SAMPLING_LM_N.default, seed: 1, logits: null,
  on: Object.freeze(['temperature', 'top_p']),
  values: Object.freeze({ temperature: 1, top_k: 50, top_p: 0.9, min_p: 0.05, typical: 0.95 }),
  draws: 10000,
  tri: Object.freeze([1.5, 0.5, -1]), tau: 1, m: 300, hard: false,
  target: Object.freeze([1, 0, 0]),
});
const SAMPLING_KEYS = {
  preset: 'sampling.preset', n: 'sampling.n', seed: 'sampling.seed', logits: 'sampling.logits', on: 'sampling.on',
  draws: 'sampling.draws', tri: 'sampling.tri', tau: 'sampling.tau', m: 'sampling.m', hard: 'sampling.hard', target: 'sampling.target',
};
const samplingValueKey = (id) => `sampling.${id}`;

/** A fresh, mutable copy of the sampling defaults. */
export function defaultSampling() {
  const d = DEFAULT_SAMPLING;
  return { ...d, on: [...d.on], values: { ...d.values }, tri: [...d.tri], target: [...d.target] };
}

/** The sampling state of a playground state (defaults when the hash had no sampling key). */
export function samplingState(state) {
  return state.sampling ?? defaultSampling();
}

/** n for a sampling preset: the LM preset is large, the others are the editor's presets. */
export function samplingNRange(preset) {
  return preset === SAMPLING_LM ? SAMPLING_LM_N : { min: N_MIN, max: N_MAX, default: DEFAULT_N };
}

function parseVector(s, len, limit) {
  if (s == null) return null;
  const parts = s.split(',');
  if (parts.length !== len) return null;
  const xs = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  return xs.every((v) => Number.isFinite(v) && Math.abs(v) <= limit) ? xs.map((v) => v + 0) : null;
}

function parseSampling(q) {
  const d = defaultSampling();
  const K = SAMPLING_KEYS;
  const preset = q.get(K.preset);
  if (preset === 'custom' || preset === SAMPLING_LM || PRESET_NAMES.includes(preset)) d.preset = preset;
  d.seed = parseInteger(q.get(K.seed), 0, 2 ** 31 - 1) ?? d.seed;
  const logits = parseLogits(q.get(K.logits));
  if (logits) {
    d.preset = 'custom';
    d.logits = logits;
    d.n = logits.length;
  } else {
    if (d.preset === 'custom') d.preset = DEFAULT_SAMPLING.preset; // nothing to regenerate from
    const r = samplingNRange(d.preset);
    d.n = parseInteger(q.get(K.n), r.min, r.max) ?? r.default;
  }
  const on = q.get(K.on);
  if (on != null) d.on = SAMPLING_STAGES.filter((id) => on.split(',').includes(id));
  for (const id of SAMPLING_STAGES) {
    const r = STAGE_RANGES[id], s = q.get(samplingValueKey(id));
    const v = r.integer ? parseInteger(s, r.min, r.max) : parseNumberIn(s, r);
    if (v != null) d.values[id] = v;
  }
  d.draws = parseInteger(q.get(K.draws), SAMPLING_DRAWS.min, SAMPLING_DRAWS.max) ?? d.draws;
  d.tri = parseVector(q.get(K.tri), 3, SAMPLING_TRI_LIMIT) ?? d.tri;
  const tau = parseNumberIn(q.get(K.tau), SAMPLING_TAU);
  if (tau != null) d.tau = tau;
  d.m = parseInteger(q.get(K.m), SAMPLING_M.min, SAMPLING_M.max) ?? d.m;
  const hard = q.get(K.hard);
  if (hard === '1' || hard === '0') d.hard = hard === '1';
  d.target = parseVector(q.get(K.target), 3, SAMPLING_TARGET_LIMIT) ?? d.target;
  return d;
}

function writeSampling(q, s) {
  if (!s) return;
  const D = DEFAULT_SAMPLING, K = SAMPLING_KEYS;
  const custom = s.preset === 'custom' && Array.isArray(s.logits);
  if (s.preset !== D.preset && (custom || s.preset !== 'custom')) q.set(K.preset, s.preset);
  if (custom) q.set(K.logits, s.logits.map((v) => String(v)).join(','));
  else if (s.n !== samplingNRange(s.preset).default) q.set(K.n, String(s.n));
  if (s.seed !== D.seed) q.set(K.seed, String(s.seed));
  const on = SAMPLING_STAGES.filter((id) => s.on.includes(id));
  if (on.join(',') !== D.on.join(',')) q.set(K.on, on.join(','));
  for (const id of SAMPLING_STAGES) if (s.values[id] !== D.values[id]) q.set(samplingValueKey(id), String(s.values[id]));
  if (s.draws !== D.draws) q.set(K.draws, String(s.draws));
  if (s.tri.join(',') !== D.tri.join(',')) q.set(K.tri, s.tri.join(','));
  if (s.tau !== D.tau) q.set(K.tau, String(s.tau));
  if (s.m !== D.m) q.set(K.m, String(s.m));
  if (s.hard !== D.hard) q.set(K.hard, s.hard ? '1' : '0');
  if (s.target.join(',') !== D.target.join(',')) q.set(K.target, s.target.join(','));
}

function parseLogits(s) {
  if (s == null || s === '') return null;
  const parts = s.split(',');
  if (parts.length < N_MIN || parts.length > N_MAX) return null;
  // -Infinity (a masked entry) is written as such; Number() reads it back.
  const xs = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  // The editor works in [-LOGIT_LIMIT, LOGIT_LIMIT] plus -Infinity; anything
  // else (NaN, +Inf, huge values) means the link was not made by the playground.
  if (!xs.every((v) => v === -Infinity || (Number.isFinite(v) && Math.abs(v) <= LOGIT_LIMIT))) return null;
  return xs.map((v) => v + 0);
}

function parseInteger(s, lo, hi) {
  if (s == null || !/^-?\d+$/.test(s)) return null;
  const v = Number(s);
  return v >= lo && v <= hi ? v : null;
}

/** State from a location.hash ("#a=1&b=2" or "a=1&b=2"); never throws. */
export function parseHash(hash) {
  const state = defaultState();
  let q;
  try {
    q = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return state;
  }
  const panel = q.get('panel');
  if (PANELS.includes(panel)) state.panel = panel;

  const seed = parseInteger(q.get('seed'), 0, 2 ** 31 - 1);
  if (seed != null) state.seed = seed;

  const preset = q.get('preset');
  if (preset === 'custom' || PRESET_NAMES.includes(preset)) state.preset = preset;

  const logits = parseLogits(q.get('logits'));
  if (logits) {
    state.logits = logits;
  } else {
    // No usable logits: regenerate from the preset (custom has nothing to regenerate).
    if (state.preset === 'custom') state.preset = DEFAULT_PRESET;
    const n = parseInteger(q.get('n'), N_MIN, N_MAX) ?? DEFAULT_N;
    state.logits = makePreset(state.preset, n, state.seed);
  }

  const norms = q.get('normalizers');
  if (norms != null) state.normalizers = parseNames(norms);
  state.dispersion = parseDispersion(q);
  // Only when asked for: a state without sampling keys has no sampling field.
  if ([...q.keys()].some((k) => k.startsWith('sampling.'))) state.sampling = parseSampling(q);
  if ([...q.keys()].some((k) => k.startsWith('quant.'))) state.quant = parseQuant(q);
  if ([...q.keys()].some((k) => k.startsWith('optim.'))) state.optim = parseOptim(q);
  if ([...q.keys()].some((k) => k.startsWith('attn.'))) state.attn = parseAttn(q);

  for (const [k, v] of q) {
    if (RESERVED.has(k) || !NAME_RE.test(k) || v.trim() === '') continue;
    const num = Number(v);
    if (Number.isFinite(num)) state.params[k] = num;
  }
  return state;
}

// ---- the quantization panel ----
export const DEFAULT_QUANT = Object.freeze({ source: 'attention', n: 1024, seed: 1, scheme: 'uniform', log: true });
const QUANT_SOURCE_IDS = ['weights', 'attention', 'softmax'];

/** The quantization state of a playground state (defaults when the hash had no quant key). */
export function quantState(state) {
  return state.quant ?? { ...DEFAULT_QUANT };
}

function parseQuant(q) {
  const d = { ...DEFAULT_QUANT };
  const src = q.get('quant.source');
  if (QUANT_SOURCE_IDS.includes(src)) d.source = src;
  const n = parseInteger(q.get('quant.n'), 16, 8192);
  if (n != null && Number.isInteger(Math.log2(n))) d.n = n;
  const seed = parseInteger(q.get('quant.seed'), 0, 2 ** 31);
  if (seed != null) d.seed = seed;
  const scheme = q.get('quant.scheme');
  if (scheme && NAME_RE.test(scheme)) d.scheme = scheme; // checked against the registry by the panel
  const log = q.get('quant.log');
  if (log === '0' || log === '1') d.log = log === '1';
  return d;
}

function writeQuant(q, s) {
  if (!s) return;
  for (const k of ['source', 'n', 'seed', 'scheme']) if (s[k] !== DEFAULT_QUANT[k]) q.set(`quant.${k}`, String(s[k]));
  if (s.log !== DEFAULT_QUANT.log) q.set('quant.log', s.log ? '1' : '0');
}

// ---- the optimizers panel ----
export const OPTIM_SCHEDULES = ['constant', 'cosine', 'wsd'];
export const OPTIM_LIMITS = { steps: { min: 10, max: 5000 }, speed: { min: 1, max: 100 }, noise: { min: 0, max: 100 },
  clip: { min: 0, max: 1000 }, warmup: { min: 0, max: 5000 }, maxList: 8 };
export const DEFAULT_OPTIM = Object.freeze({
  fn: 'rosenbrock', start: null, list: ['sgd', 'momentum', 'adam', 'lion'], steps: 2000, speed: 10,
  noise: 0, clip: 0, seed: 0, schedule: 'constant', warmup: 0, sel: null,
  // Per-optimizer hyperparameters that differ from the registry (PyTorch)
  // defaults for the default race: Adam's lr 1e-3 and Lion's 1e-4 move a
  // 2-D point only ~2 and ~0.2 units in 2000 steps.
  params: Object.freeze({ adam: Object.freeze({ lr: 0.02 }), lion: Object.freeze({ lr: 0.005 }) }),
});
const defaultOptimParams = () => Object.fromEntries(Object.entries(DEFAULT_OPTIM.params).map(([k, v]) => [k, { ...v }]));

/** The optimizers state of a playground state (defaults when the hash had no optim key). */
export function optimState(state) {
  return state.optim ?? { ...DEFAULT_OPTIM, params: defaultOptimParams() };
}

function parseOptim(q) {
  const d = { ...DEFAULT_OPTIM, params: defaultOptimParams() };
  const fn = q.get('optim.fn');
  if (fn && NAME_RE.test(fn)) d.fn = fn; // checked against ss.functions by the panel
  const start = (q.get('optim.start') ?? '').split(',').map(Number);
  if (start.length === 2 && start.every((v) => Number.isFinite(v) && Math.abs(v) <= 1e6)) d.start = start;
  const list = q.get('optim.list');
  if (list != null) d.list = parseNames(list).slice(0, OPTIM_LIMITS.maxList);
  for (const k of ['steps', 'speed', 'warmup']) {
    const v = parseInteger(q.get(`optim.${k}`), OPTIM_LIMITS[k].min, OPTIM_LIMITS[k].max);
    if (v != null) d[k] = v;
  }
  for (const k of ['noise', 'clip']) {
    const v = parseNumberIn(q.get(`optim.${k}`), OPTIM_LIMITS[k]);
    if (v != null) d[k] = v;
  }
  const seed = parseInteger(q.get('optim.seed'), 0, 2 ** 31);
  if (seed != null) d.seed = seed;
  const sched = q.get('optim.schedule');
  if (OPTIM_SCHEDULES.includes(sched)) d.schedule = sched;
  const sel = q.get('optim.sel');
  if (sel && NAME_RE.test(sel)) d.sel = sel;
  for (const [k, v] of q) {
    const m = /^optim\.([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)$/.exec(k);
    const num = Number(v);
    if (m && v.trim() !== '' && Number.isFinite(num)) d.params[m[1]] = { ...d.params[m[1]], [m[2]]: num };
  }
  return d;
}

function writeOptim(q, s) {
  if (!s) return;
  const D = DEFAULT_OPTIM;
  for (const k of ['fn', 'steps', 'speed', 'noise', 'clip', 'seed', 'schedule', 'warmup', 'sel'])
    if (s[k] !== D[k] && s[k] != null) q.set(`optim.${k}`, String(s[k]));
  if (s.start) q.set('optim.start', s.start.map((v) => String(Math.round(v * 1e4) / 1e4)).join(','));
  if (s.list.join(',') !== D.list.join(',')) q.set('optim.list', s.list.join(','));
  for (const name of Object.keys(s.params).sort())
    for (const p of Object.keys(s.params[name]).sort()) {
      const v = s.params[name][p];
      if (Number.isFinite(v) && v !== D.params[name]?.[p]) q.set(`optim.${name}.${p}`, String(v));
    }
}

// ---- the attention panel ----
export const ATTN_EXAMPLES = ['sentence', 'copy', 'random'];
export const ATTN_LINEAR = ['cosformer', 'galerkin', 'performer'];
export const ATTN_QUANT = ['none', 'uniform', 'pow2', 'log_quant'];
export const ATTN_LIMITS = { n: { min: 4, max: 256 }, scale: { min: 0.05, max: 4 }, bits: { min: 2, max: 8 } };
export const DEFAULT_ATTN = Object.freeze({
  example: 'copy', n: 32, seed: 1, norms: Object.freeze(['softmax', 'sparsemax', 'entmax_bisect']),
  linear: Object.freeze([]), causal: false, scale: 1, quant: 'none', bits: 4,
});

/** The attention state of a playground state (defaults when the hash had no attn key). */
export function attnState(state) {
  return state.attn ?? { ...DEFAULT_ATTN, norms: [...DEFAULT_ATTN.norms], linear: [] };
}

function parseAttn(q) {
  const d = attnState({});
  const ex = q.get('attn.example');
  if (ATTN_EXAMPLES.includes(ex)) d.example = ex;
  const n = parseInteger(q.get('attn.n'), ATTN_LIMITS.n.min, ATTN_LIMITS.n.max);
  if (n != null) d.n = n;
  const seed = parseInteger(q.get('attn.seed'), 0, 2 ** 31);
  if (seed != null) d.seed = seed;
  const norms = q.get('attn.norms');
  if (norms != null) d.norms = parseNames(norms).slice(0, 6);
  const lin = q.get('attn.linear');
  if (lin != null) d.linear = parseNames(lin).filter((x) => ATTN_LINEAR.includes(x));
  const causal = q.get('attn.causal');
  if (causal === '0' || causal === '1') d.causal = causal === '1';
  const scale = parseNumberIn(q.get('attn.scale'), ATTN_LIMITS.scale);
  if (scale != null) d.scale = scale;
  const quant = q.get('attn.quant');
  if (ATTN_QUANT.includes(quant)) d.quant = quant;
  const bits = parseInteger(q.get('attn.bits'), ATTN_LIMITS.bits.min, ATTN_LIMITS.bits.max);
  if (bits != null) d.bits = bits;
  return d;
}

function writeAttn(q, s) {
  if (!s) return;
  const D = DEFAULT_ATTN;
  for (const k of ['example', 'n', 'seed', 'scale', 'quant', 'bits']) if (s[k] !== D[k]) q.set(`attn.${k}`, String(s[k]));
  if (s.causal !== D.causal) q.set('attn.causal', s.causal ? '1' : '0');
  if (s.norms.join(',') !== D.norms.join(',')) q.set('attn.norms', s.norms.join(','));
  if (s.linear.join(',') !== D.linear.join(',')) q.set('attn.linear', s.linear.join(','));
}

/** The hash string (without "#") for a state. */
export function serializeState(state) {
  const q = new URLSearchParams();
  q.set('panel', state.panel);
  q.set('preset', state.preset);
  q.set('seed', String(state.seed));
  q.set('logits', state.logits.map((v) => String(v)).join(','));
  q.set('normalizers', state.normalizers.join(','));
  for (const k of Object.keys(state.params).sort()) {
    if (!RESERVED.has(k) && NAME_RE.test(k) && Number.isFinite(state.params[k])) q.set(k, String(state.params[k]));
  }
  writeDispersion(q, state.dispersion);
  writeSampling(q, state.sampling);
  writeQuant(q, state.quant);
  writeOptim(q, state.optim);
  writeAttn(q, state.attn);
  // Commas are legal in a fragment; leaving them unescaped keeps links readable.
  return q.toString().replace(/%2C/g, ',');
}

/**
 * Writes the state to location.hash with history.replaceState (no history
 * entry per drag step), at most once per `ms`; the last call always lands.
 */
export function createHashWriter(ms = 200, win = globalThis.window) {
  let timer = null;
  let pending = null;
  let last = 0;
  const flush = () => {
    timer = null;
    last = Date.now();
    if (pending == null) return;
    const hash = '#' + pending;
    pending = null;
    if (win.location.hash !== hash) win.history.replaceState(null, '', hash);
  };
  return {
    write(state) {
      pending = serializeState(state);
      if (timer) return;
      const wait = Math.max(0, ms - (Date.now() - last));
      timer = setTimeout(flush, wait);
    },
    flush() {
      if (timer) clearTimeout(timer);
      flush();
    },
  };
}
