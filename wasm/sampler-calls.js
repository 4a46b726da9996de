// Direct calls of the random-number and sampler C API that the registry's
// sampler form does not cover: raw Philox streams (uniform, normal, Gumbel),
// categorical draws from given weights with an explicit stream, and the
// gradient-estimator measures of the sampling view. Installed on the
// Softscope prototype by index.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';

const U64_MAX = (1n << 64n) - 1n;
export const ESTIMATORS = ['st', 'gumbel_softmax', 'st_gumbel', 'reinmax'];

function opts(o, where) {
  if (o === undefined || o === null) return {};
  if (typeof o !== 'object' || Array.isArray(o))
    throw new SoftscopeTypeError(`${where}: options must be an object (got ${describe(o)})`, { argument: 'options' });
  return o;
}

// A 64-bit counter word (seed, stream, first): an integer number <= 2^53 or a bigint.
function u64(o, key, where) {
  const v = o[key] ?? 0;
  if (typeof v === 'bigint' && v >= 0n && v <= U64_MAX) return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 53) return BigInt(v);
  throw new SoftscopeError(`${where}: options.${key} = ${describe(v)} must be an integer in [0, 2^53] (or a bigint < 2^64)`,
    STATUS.SS_ERR_PARAM_RANGE, { argument: `options.${key}` });
}

function count(v, name, max, where, min = 1) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new SoftscopeError(`${where}: ${name} = ${typeof v === "number" ? v : describe(v)} must be an integer in [${min}, ${max}]`,
      v === 0 && min > 0 ? STATUS.SS_ERR_EMPTY : STATUS.SS_ERR_PARAM_RANGE, { argument: name });
  return v;
}

function stream(self, fnName, where, n, o) {
  o = opts(o, where);
  count(n, 'n', self.maxN, where);
  const fn = self._need(fnName, where);
  const seed = u64(o, 'seed', where), st = u64(o, 'stream', where), first = u64(o, 'first', where);
  const p = self._scratch.get('out0', n * 4);
  const s = fn(seed, st, first, n, p);
  if (s !== 0) throw new SoftscopeError(`${where}: ${self._statusStr(s)}`, s);
  self._heap.refresh();
  return self._heap.f32.slice(p >>> 2, (p >>> 2) + n);
}

export const samplerCalls = {
  /** n uniforms in (0, 1) (never 0 or 1): numbers first.. of (seed, stream). */
  uniform(n, options) { return stream(this, 'ss_uniform', 'softscope.uniform', n, options); },
  /** n standard normals of (seed, stream). */
  normal(n, options) { return stream(this, 'ss_normal', 'softscope.normal', n, options); },
  /** n standard Gumbel variates -log(-log u) of the uniforms of (seed, stream). */
  gumbel(n, options) { return stream(this, 'ss_gumbel', 'softscope.gumbel', n, options); },

  /** Draws from non-negative weights w (normalized by their sum): a Uint32Array of
   *  options.draws indices; draw d is uniform number first + d of (seed, stream). */
  categorical(w, options) {
    const where = 'softscope.categorical';
    const o = opts(options, where);
    const draws = count(o.draws ?? 1, 'options.draws', 2 ** 31, where, 0);
    const fn = this._need('ss_categorical', where);
    const wa = this._input(w, 'w', where);
    this._checkN(wa, where);
    const seed = u64(o, 'seed', where), st = u64(o, 'stream', where), first = u64(o, 'first', where);
    const [pw] = this._stage([wa]);
    const pd = this._scratch.get('draws', Math.max(1, draws) * 4);
    const s = fn(pw, wa.n, seed, st, first, draws, pd);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_DOMAIN && wa.array) {
        const i = wa.array.findIndex((v) => !(v >= 0) || v === Infinity);
        throw new SoftscopeError(i >= 0 ? `${where}: w[${i}] = ${wa.array[i]} must be a finite weight >= 0`
          : `${where}: w sums to 0; at least one weight must be positive`, s, { argument: 'w', ...(i >= 0 ? { index: i } : {}) });
      }
      throw this._fail(where, s, [wa], this.kernel('categorical', 'sampler'));
    }
    this._heap.refresh();
    return this._heap.u32.slice(pd >>> 2, (pd >>> 2) + draws);
  },

  /** Bias and variance of a gradient estimator ('st', 'gumbel_softmax',
   *  'st_gumbel', 'reinmax') of d/dtheta E[sum_i (z_i - target_i)^2],
   *  z one-hot ~ softmax(theta), against the exact gradient by enumeration:
   *  { bias, variance, mean, exact }. options: tau in (0, 1000],
   *  seed, samples (Monte Carlo samples, default 1000). */
  estimatorStats(estimator, theta, target, options) {
    const where = 'softscope.estimatorStats';
    const id = ESTIMATORS.indexOf(estimator);
    if (id < 0)
      throw new SoftscopeError(`${where}: estimator ${describe(estimator)} must be one of ${ESTIMATORS.join(', ')}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'estimator' });
    const o = opts(options, where);
    const tau = o.tau ?? 1;
    if (typeof tau !== 'number' || !Number.isFinite(tau) || !(tau > 0))
      throw new SoftscopeError(`${where}: options.tau = ${describe(tau)} must be a finite number > 0`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.tau' });
    const samples = count(o.samples ?? 1000, 'options.samples', 2 ** 24, where);
    const seed = u64(o, 'seed', where);
    const fn = this._need('ss_estimator_stats', where);
    const ta = this._input(theta, 'theta', where), ga = this._input(target, 'target', where);
    this._checkN(ta, where);
    this._sameLength(ta, ga, where);
    const [pt, pg] = this._stage([ta, ga]);
    const pm = this._scratch.get('out0', ta.n * 4), pe = this._scratch.get('out1', ta.n * 4);
    const po = this._scratch.get('direct-out', 16);
    const s = fn(id, pt, pg, ta.n, tau, seed, samples, po, po + 8, pm, pe);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_PARAM_RANGE)
        throw new SoftscopeError(`${where}: options.tau = ${tau} must be in (0, 1000]`, s, { argument: 'options.tau' });
      if (s === STATUS.SS_ERR_TOO_LARGE)
        throw new SoftscopeError(`${where}: theta has ${ta.n} entries; the enumeration takes at most 256`, s, { argument: 'theta' });
      throw this._fail(where, s, [ta, ga], null);
    }
    const h = this._heap;
    h.refresh();
    return {
      bias: h.f64[po >>> 3],
      variance: h.f64[(po + 8) >>> 3],
      mean: h.f32.slice(pm >>> 2, (pm >>> 2) + ta.n),
      exact: h.f32.slice(pe >>> 2, (pe >>> 2) + ta.n),
    };
  },
};
