// The dispersion sweep: one planted key among n - 1 distractors, for n from
// nMin to nMax (at most 2^20) on a log grid, run through any normalizers.
// Softmax "disperses": its largest probability falls like e^m / (e^m + n - 1)
// and its entropy grows like ln n, whatever the margin m. Sparse normalizers
// (sparsemax, entmax) keep a bounded support, adaptive ones (scalable softmax,
// adaptive temperature) rescale with n. This module is the one source of
// truth for that experiment: the CLI (`softscope sweep dispersion`) and the
// playground's dispersion panel both call it.
//
// Inputs. x_key = margin; the distractors are centre (0) + scale * z_i with
// z_i a fixed stream drawn from the seed: 0 (constant), N(0, 1) (gaussian,
// Box-Muller) or U[-1, 1) (uniform). The vector for n holds the first n - 1
// draws of that stream, so the vectors are nested in n and identical for
// every normalizer: x = [margin, s z_0, ..., s z_(n-2)]. With keyPosition
// 'random' the key swaps places with the entry at a position drawn from
// (seed, n).
//
// What is reported, per normalizer and n (registry measures on the output):
//   probs      keyProb = y[key], maxProb, entropy (nats), support, sum of y
//   log_probs  the same on p = exp(y)
//   weights    (not summing to 1, maybe negative: softpick, sa_softmax)
//              keyProb and maxProb are the raw weights y[key] and max_i y_i,
//              sum is sum_i y_i; entropy and support are those of
//              w = |y| / sum_i |y_i| (NaN and 0 when every weight is 0).
// A normalizer that rejects a given n (e.g. top-k with k > n) gets NaN at that
// n and an entry in its series' `errors`; bad options throw up front.
//
// Memory: x and y live in the wasm heap (ss.alloc, one pair per n, shared by
// every normalizer at that n) and the measures read y there, so a sweep to
// 2^20 copies nothing per call. The distractor stream is cached (one slot) so
// that moving the margin slider does not redraw 2^20 gaussians, and drawn a
// bounded amount ahead per step, so that no single step draws 2^19 of them.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe, fmt } from '../api/errors.js';

/** The largest n a sweep goes to (the 2^20). */
export const DISPERSION_N_MAX = 2 ** 20;
export const DISTRACTOR_KINDS = Object.freeze(['constant', 'gaussian', 'uniform']);
export const KEY_POSITIONS = Object.freeze(['first', 'random']);
const PPO_MAX = 16;
const SEED_MAX = 2 ** 32 - 1;
const MEASURES = ['max_prob', 'entropy', 'support', 'sum'];
// Distractors drawn ahead per n, so that the draws for the largest n are
// spread over the earlier steps instead of landing on the last one (2^19
// gaussians are ~30 ms): k steps have drawn k * PREFETCH >= 2^k values for
// every k <= 20.
const PREFETCH = 2 ** 16;

/** Defaults shared by the API, the CLI and the playground. */
export const DISPERSION_DEFAULTS = Object.freeze({
  nMin: 2, margin: 3, distractor: Object.freeze({ kind: 'gaussian', scale: 0.5 }), seed: 1, pointsPerOctave: 1, keyPosition: 'first',
});
const D = DISPERSION_DEFAULTS;

// ---- deterministic inputs --------------------------------------------------

/** mulberry32: a small 32-bit PRNG, uniform in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The unit distractor stream z_0, z_1, ... for (kind, seed), grown on demand.
// One cached stream: the last (kind, seed) asked for.
let cached = null;

function unitStream(kind, seed) {
  if (cached && cached.kind === kind && cached.seed === seed) return cached;
  // Mix the kind into the seed so gaussian and uniform do not share draws.
  const next = mulberry32(seed ^ (kind === 'gaussian' ? 0x2545f491 : 0x9e3779b9));
  const s = { kind, seed, z: new Float64Array(0), filled: 0, next };
  s.ensure = (len) => {
    if (len <= s.filled) return s.z;
    if (len > s.z.length) {
      // An even capacity: Box-Muller pairs never straddle a growth, so the
      // stream is the same whatever sequence of lengths was asked for.
      let cap = Math.max(len, Math.min(2 * s.z.length, DISPERSION_N_MAX));
      cap += cap & 1;
      const z = new Float64Array(cap);
      z.set(s.z.subarray(0, s.filled));
      s.z = z;
    }
    const z = s.z;
    let i = s.filled;
    if (kind === 'gaussian') {
      // Box-Muller, both outputs: i stays even, the capacity is even.
      for (; i < len; i += 2) {
        let u = next();
        while (u === 0) u = next(); // log(0)
        const r = Math.sqrt(-2 * Math.log(u)), t = 2 * Math.PI * next();
        z[i] = r * Math.cos(t);
        z[i + 1] = r * Math.sin(t);
      }
    } else {
      for (; i < len; i++) z[i] = 2 * next() - 1;
    }
    s.filled = i;
    return z;
  };
  cached = s;
  return s;
}

/** The index of the key in the vector of length n. */
export function keyIndex(n, options) {
  if ((options.keyPosition ?? D.keyPosition) === 'first') return 0;
  const seed = (options.seed ?? D.seed) >>> 0;
  return Math.floor(mulberry32(seed ^ Math.imul(n, 0x9e3779b1))() * n);
}

// Write the vector for n into the Float32Array x (length >= n).
function fillInput(x, n, o) {
  const { kind, scale } = o.distractor;
  x[0] = o.margin;
  if (kind === 'constant' || scale === 0) x.fill(0, 1, n);
  else {
    const z = unitStream(kind, o.seed).ensure(n - 1);
    for (let i = 1; i < n; i++) x[i] = scale * z[i - 1];
  }
  // A key elsewhere swaps places with the distractor there.
  const p = keyIndex(n, o);
  if (p !== 0) { x[0] = x[p]; x[p] = o.margin; }
}

/**
 * The sweep's input vector for one n (a new Float32Array): what every
 * normalizer is given at that n. Options as for dispersionSweep (normalizers
 * are not needed).
 */
export function dispersionInput(options, n) {
  const o = checkInputOptions(options, 'dispersionInput');
  if (!Number.isInteger(n) || n < 2 || n > DISPERSION_N_MAX)
    throw new SoftscopeError(`dispersionInput: n = ${describe(n)} must be an integer in [2, ${DISPERSION_N_MAX}]`,
      STATUS.SS_ERR_LENGTH, { argument: 'n' });
  const x = new Float32Array(n);
  fillInput(x, n, o);
  return x;
}

/**
 * The n grid: nMin * 2^(j / pointsPerOctave) rounded, without repeats, up to
 * nMax (always included).
 */
export function dispersionGrid(nMin, nMax, pointsPerOctave = 1) {
  const out = [];
  for (let j = 0; ; j++) {
    const n = Math.round(nMin * 2 ** (j / pointsPerOctave));
    if (n > nMax) break;
    if (n !== out[out.length - 1]) out.push(n);
  }
  if (out[out.length - 1] !== nMax) out.push(nMax);
  return out;
}

// ---- options ----------------------------------------------------------------

function badOption(where, name, v, rule, status = STATUS.SS_ERR_PARAM_RANGE) {
  const shown = typeof v === 'number' ? fmt(v) : typeof v === 'string' ? JSON.stringify(v) : describe(v);
  return new SoftscopeError(`${where}: options.${name} = ${shown} ${rule}`, status, { argument: `options.${name}` });
}

function intOption(where, name, v, lo, hi, dflt, status) {
  if (v === undefined) v = dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
    throw badOption(where, name, v, `must be an integer in [${lo}, ${hi}]`, status);
  return v;
}

function checkInputOptions(options, where) {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new SoftscopeTypeError(`${where}: options must be an object (got ${describe(options)})`, { argument: 'options' });
  const margin = options.margin ?? D.margin;
  if (typeof margin !== 'number' || !Number.isFinite(Math.fround(margin)))
    throw badOption(where, 'margin', margin, 'must be a finite number (the key logit minus the distractor centre)');
  let d = options.distractor ?? {};
  if (typeof d === 'string') d = { kind: d };
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    throw new SoftscopeTypeError(`${where}: options.distractor must be { kind, scale } or a kind name (got ${describe(d)})`,
      { argument: 'options.distractor' });
  const kind = d.kind ?? D.distractor.kind;
  if (!DISTRACTOR_KINDS.includes(kind))
    throw badOption(where, 'distractor.kind', kind, `is not a distractor kind; known: ${DISTRACTOR_KINDS.join(', ')}`);
  const scale = d.scale ?? D.distractor.scale;
  if (typeof scale !== 'number' || !(scale >= 0) || !Number.isFinite(Math.fround(scale)))
    throw badOption(where, 'distractor.scale', scale, 'must be a finite number >= 0');
  const seed = intOption(where, 'seed', options.seed, 0, SEED_MAX, D.seed);
  const keyPosition = options.keyPosition ?? D.keyPosition;
  if (!KEY_POSITIONS.includes(keyPosition))
    throw badOption(where, 'keyPosition', keyPosition, `must be one of ${KEY_POSITIONS.join(', ')}`);
  return { margin, distractor: { kind, scale }, seed, keyPosition };
}

// Check everything against the registry before any work; returns the options
// with defaults filled in (the `inputs` echo of the result).
function checkOptions(ss, options, where) {
  if (!ss || typeof ss.kernels !== 'function' || typeof ss.normalizeInto !== 'function')
    throw new SoftscopeTypeError(`${where}: ss must be a softscope instance from createSoftscope() (got ${describe(ss)})`, { argument: 'ss' });
  const base = checkInputOptions(options, where);
  const nMax = options.nMax;
  if (nMax === undefined)
    throw new SoftscopeTypeError(`${where}: options.nMax is required (an integer in [2, ${DISPERSION_N_MAX}])`, { argument: 'options.nMax' });
  intOption(where, 'nMax', nMax, 2, Math.min(DISPERSION_N_MAX, ss.maxN), undefined, STATUS.SS_ERR_LENGTH);
  const nMin = intOption(where, 'nMin', options.nMin, 2, nMax, D.nMin, STATUS.SS_ERR_LENGTH);
  const pointsPerOctave = intOption(where, 'pointsPerOctave', options.pointsPerOctave, 1, PPO_MAX, D.pointsPerOctave);

  const list = options.normalizers;
  if (!Array.isArray(list) || list.length === 0)
    throw new SoftscopeTypeError(`${where}: options.normalizers must be a non-empty array of names or { name, params } (got ${describe(list)})`,
      { argument: 'options.normalizers' });
  const probe = new Float32Array([Math.fround(base.margin), 0]);
  const normalizers = list.map((item, i) => {
    const arg = `options.normalizers[${i}]`;
    const spec = typeof item === 'string' ? { name: item } : item;
    if (!spec || typeof spec !== 'object' || typeof spec.name !== 'string')
      throw new SoftscopeTypeError(`${where}: ${arg} must be a normalizer name or { name, params } (got ${describe(item)})`, { argument: arg });
    let k;
    try {
      k = ss.kernel(spec.name, 'normalizer');
    } catch (e) {
      throw new SoftscopeError(`${where}: ${arg}: ${e.message.replace(/^[^:]*: /, '')}`, e.status, { argument: arg });
    }
    const params = spec.params ?? {};
    // The API's own parameter checks (names, ranges, integrality), once, on a
    // probe vector: only errors about params are about the options.
    try {
      ss.normalize(k.name, probe, params);
    } catch (e) {
      // SS_ERR_LENGTH on a param (k > n): a size relation, decided per n below.
      if (typeof e?.argument === 'string' && e.argument.startsWith('params') && e.code !== 'SS_ERR_LENGTH') {
        const msg = `${where}: ${arg} ("${k.name}"): ${e.message.replace(/^[^:]*: /, '')}`;
        const extra = { argument: `${arg}.${e.argument}` };
        throw e.code === 'SS_ERR_TYPE' ? new SoftscopeTypeError(msg, extra) : new SoftscopeError(msg, e.status, extra);
      }
      // A data-dependent rejection (e.g. k > 2): decided per n in the sweep.
    }
    const full = {};
    for (const p of k.params) full[p.name] = params[p.name] ?? p.default;
    return { name: k.name, params: full, output: k.output ?? 'probs' };
  });
  const have = new Set(ss.kernels('measure').map((m) => m.name));
  for (const m of MEASURES)
    if (!have.has(m)) throw new SoftscopeError(`${where}: the registry has no measure "${m}" (needed for the sweep)`, STATUS.SS_ERR_UNSUPPORTED);
  return { normalizers, nMin, nMax, ...base, pointsPerOctave };
}

// ---- the sweep -----------------------------------------------------------------

// The metrics of y (a heap buffer, overwritten for non-probability outputs).
function metricsOf(ss, output, yb, key) {
  if (output === 'weights') {
    const sum = ss.measure('sum', yb);
    const y = yb.array, n = y.length;
    let max = -Infinity, abs = 0;
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (v > max) max = v;
      abs += Math.abs(v);
    }
    const keyProb = y[key];
    if (!(abs > 0)) return { keyProb, maxProb: max, entropy: NaN, support: 0, sum };
    for (let i = 0; i < n; i++) y[i] = Math.abs(y[i]) / abs;
    return { keyProb, maxProb: max, entropy: ss.measure('entropy', yb), support: ss.measure('support', yb), sum };
  }
  if (output === 'log_probs') {
    const y = yb.array;
    for (let i = 0; i < y.length; i++) y[i] = Math.exp(y[i]);
  }
  return {
    keyProb: yb.array[key],
    maxProb: ss.measure('max_prob', yb),
    entropy: ss.measure('entropy', yb),
    support: ss.measure('support', yb),
    sum: ss.measure('sum', yb),
  };
}

const FIELDS = ['keyProb', 'maxProb', 'entropy', 'support', 'sum'];

/**
 * The sweep, one (n, normalizer) cell at a time, small n first. Each yield is
 * { index, n, series, name, keyProb, maxProb, entropy, support, sum, error?,
 * result } where `result` is the sweep result being filled in (its arrays
 * hold NaN where nothing was computed yet). The generator's return value is
 * the finished result. Options are checked when it is called (not at the
 * first next()). Stopping early (return(), or a for-of break) frees the heap
 * buffers.
 */
export function dispersionSteps(ss, options) {
  return run(ss, checkOptions(ss, options, 'dispersionSteps'));
}

function* run(ss, o) {
  const ns = dispersionGrid(o.nMin, o.nMax, o.pointsPerOctave);
  const result = {
    n: ns,
    series: o.normalizers.map((k) => ({
      name: k.name, params: k.params, output: k.output,
      ...Object.fromEntries(FIELDS.map((f) => [f, new Array(ns.length).fill(NaN)])),
      errors: [],
    })),
    inputs: {
      normalizers: o.normalizers.map((k) => ({ name: k.name, params: k.params })),
      nMin: o.nMin, nMax: o.nMax, margin: o.margin, distractor: o.distractor,
      seed: o.seed, pointsPerOctave: o.pointsPerOctave, keyPosition: o.keyPosition,
    },
  };
  let x = null, y = null;
  const drawn = o.distractor.kind !== 'constant' && o.distractor.scale !== 0;
  try {
    for (let index = 0; index < ns.length; index++) {
      const n = ns[index];
      if (drawn) {
        const stream = unitStream(o.distractor.kind, o.seed);
        stream.ensure(Math.min(o.nMax - 1, Math.max(n - 1, stream.filled + PREFETCH)));
      }
      x?.free();
      y?.free();
      x = y = null;
      x = ss.alloc(n);
      y = ss.alloc(n);
      fillInput(x.array, n, o);
      const key = keyIndex(n, o);
      for (let s = 0; s < o.normalizers.length; s++) {
        const k = o.normalizers[s], out = result.series[s];
        let m, error;
        try {
          ss.normalizeInto(k.name, x, y, k.params);
          m = metricsOf(ss, k.output, y, key);
        } catch (e) {
          if (!e || typeof e.code !== 'string' || !e.code.startsWith('SS_ERR')) throw e;
          error = { n, code: e.code, message: e.message };
          out.errors.push(error);
        }
        if (m) for (const f of FIELDS) out[f][index] = m[f];
        yield { index, n, series: s, name: k.name, ...(m ?? Object.fromEntries(FIELDS.map((f) => [f, NaN]))), ...(error ? { error } : {}), result };
      }
    }
  } finally {
    x?.free();
    y?.free();
  }
  return result;
}

/**
 * The whole sweep at once: { n, series: [{ name, params, output, keyProb,
 * maxProb, entropy, support, sum, errors }], inputs }. options.onPoint, if
 * given, is called with each cell as dispersionSteps yields it.
 */
export function dispersionSweep(ss, options) {
  const onPoint = options?.onPoint;
  if (onPoint !== undefined && typeof onPoint !== 'function')
    throw new SoftscopeTypeError(`dispersionSweep: options.onPoint must be a function (got ${describe(onPoint)})`, { argument: 'options.onPoint' });
  const it = run(ss, checkOptions(ss, options, 'dispersionSweep'));
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    onPoint?.(r.value);
  }
}
