// Samplers: the registry's sampler form (sample, sampleBackward), and the
// random-number and sampler C API that form does not cover: raw Philox streams (uniform, normal, Gumbel),
// categorical draws from given weights with an explicit stream, and the
// gradient-estimator measures of the sampling view. Installed on the
// Softscope prototype by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe, fmt } from './errors.js';
import { options as opts, u64, count } from './args.js';
import { limits, mayStart } from './budget.js';
import { rowsOption, rowError, badRow } from './rows.js';

function stream(self, fnName, where, n, o) {
  o = opts(o, where, ['seed', 'stream', 'first']);
  count(n, 'n', self.maxN, where);
  const fn = self._need(fnName, where);
  const seed = u64(o, 'seed', where), st = u64(o, 'stream', where), first = u64(o, 'first', where);
  const p = self._scratch.get('out0', n * 4);
  const s = fn(seed, st, first, n, p);
  if (s !== 0) throw new SoftscopeError(`${where}: ${self._statusStr(s)}`, s);
  self._heap.refresh();
  return self._heap.f32.slice(p >>> 2, (p >>> 2) + n);
}

const streamCalls = {
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
    const o = opts(options, where, ['draws', 'seed', 'stream', 'first']);
    const draws = count(o.draws ?? 1, 'options.draws', 2 ** 31, where, 0);
    const fn = this._need('ss_categorical', where);
    const wa = this._input(w, 'w', where);
    this._checkN(wa, where);
    const seed = u64(o, 'seed', where), st = u64(o, 'stream', where), first = u64(o, 'first', where);
    this._fits(draws, 4, 'options.draws', where);
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
   *  seed, samples (Monte Carlo samples, default 1000, at most 2^24), and
   *  the limits of budget.js: signal, maxWork (in samples * n). It costs
   *  about 0.1 us per sample and entry: 2^24 samples of n = 256 take minutes. */
  estimatorStats(estimator, theta, target, options) {
    const where = 'softscope.estimatorStats';
    const ESTIMATORS = this.enums.estimator;
    const id = ESTIMATORS.indexOf(estimator);
    if (id < 0)
      throw new SoftscopeError(`${where}: estimator ${describe(estimator)} must be one of ${ESTIMATORS.join(', ')}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'estimator' });
    const o = opts(options, where, ['tau', 'samples', 'seed', 'signal', 'maxWork']);
    const lim = limits(o, where);
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
    mayStart(lim, samples * ta.n, 'samples * n', where);
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

const registrySamplerCalls = {
  /** Run a sampler: { probs, indices, samples, draws, n }.
   *  probs: the distribution the draws come from (Float32Array, length n; for
   *  vector samplers the mean of one draw); indices: Uint32Array of the drawn
   *  indices (index and relaxed samplers, else null); samples: Float32Array of
   *  draws * n values, draw d at [d*n, (d+1)*n) (relaxed and vector samplers,
   *  else null). params.seed and params.draws as in the registry.
   *  options.rows: x is rows × n, each row sampled on its own (batch
   *  decoding, one C call: ss_sample_rows); row r draws with params.seed + r,
   *  bit for bit the single call on that row with that seed. probs is then
   *  rows × n, indices rows × draws, samples rows × draws × n (row-major),
   *  and the result has `rows`. */
  sample(kernel, x, params = {}, options) {
    const k = this._lookup(kernel, 'sampler', 'softscope.sample');
    const where = `softscope.sample("${k.name}")`;
    const o = opts(options, where, ['rows']);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const shape = rowsOption(o, xa.n, 'x', where);
    const rows = shape ? shape.rows : 1, n = shape ? shape.n : xa.n;
    const np = this._packParams(k, params, where, n);
    const draws = this._drawsParam(k);
    const vectors = k.draws !== 'index', indexed = k.draws !== 'vector';
    this._checkDraws(k, draws, n, where);
    if (shape) this._checkRowSeeds(k, rows, where);
    if (indexed) this._fits(rows * draws, 4, 'options.rows * params.draws', where);
    if (vectors) this._fits(rows * draws * n, 4, 'options.rows * params.draws * n', where);
    const [px] = this._stage([xa]);
    const pp = this._scratch.get('out0', xa.n * 4);
    const pi = indexed ? this._scratch.get('draws', Math.max(1, rows * draws) * 4) : 0;
    const ps = vectors ? this._scratch.get('samples', Math.max(1, rows * draws * n) * 4) : 0;
    if (shape) {
      const pb = this._scratch.get('bad-row', 8);
      const s = this._need('ss_sample_rows', where)(this._ptr.get(k), this._implFor(k), px, rows, n, n, this._paramsPtr, np,
        pp, n, pi, ps, pb);
      if (s !== 0) {
        const r = badRow(this, pb);
        throw r < 0 ? this._fail(where, s, [xa], k) : rowError(this, where, s, [xa], k, r, n);
      }
    } else {
      const s = this._need('ss_sample', where)(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, pp, pi, ps);
      if (s !== 0) throw this._fail(where, s, [xa], k);
    }
    const h = this._heap;
    h.refresh();
    const result = {
      probs: h.f32.slice(pp >>> 2, (pp >>> 2) + xa.n),
      indices: indexed ? h.u32.slice(pi >>> 2, (pi >>> 2) + rows * draws) : null,
      samples: vectors ? h.f32.slice(ps >>> 2, (ps >>> 2) + rows * draws * n) : null,
      draws,
      n,
    };
    if (shape) result.rows = rows;
    return result;
  },

  // Row r of a rows call draws with seed + r: the last row's seed must be
  // within the seed parameter's range (C would say SS_ERR_PARAM_RANGE).
  _checkRowSeeds(k, rows, where) {
    const i = k.params.findIndex((p) => p.name === 'seed');
    if (i < 0) return;
    const seed = this._heap.f64[(this._paramsPtr >>> 3) + i], max = k.params[i].max;
    if (rows - 1 > max - seed)
      throw new SoftscopeError(`${where}: row r draws with params.seed + r, and params.seed + options.rows - 1 = ${seed} + ${rows - 1} is past the seed's range (at most ${max})`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'params.seed' });
  },

  /** The sampler's surrogate gradient: dx = d/dx sum_d <g_d, sample_d> with
   *  g of length draws * n (the same params, hence the same noise, as the
   *  forward call). Relaxed and straight-through samplers only. */
  sampleBackward(kernel, x, g, params = {}) {
    const k = this._lookup(kernel, 'sampler', 'softscope.sampleBackward');
    const where = `softscope.sampleBackward("${k.name}")`;
    const xa = this._input(x, 'x', where), ga = this._input(g, 'g', where);
    this._checkN(xa, where);
    if (!k.has_backward) throw new SoftscopeError(`${where}: "${k.name}" has no backward pass`, STATUS.SS_ERR_NO_BACKWARD);
    const np = this._packParams(k, params, where, xa.n);
    const draws = this._drawsParam(k);
    this._checkDraws(k, draws, xa.n, where);
    if (ga.n !== draws * xa.n)
      throw new SoftscopeError(`${where}: g has length ${ga.n} but draws * n = ${draws} * ${xa.n} = ${draws * xa.n}; they must match`,
        STATUS.SS_ERR_LENGTH, { argument: 'g' });
    const [px, pg] = this._stage([xa, ga]);
    const pdx = this._scratch.get('out0', xa.n * 4);
    const s = this._need('ss_sample_vjp', where)(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, pg, pdx);
    if (s !== 0) throw this._fail(where, s, [xa, ga], k);
    this._heap.refresh();
    return this._heap.f32.slice(pdx >>> 2, (pdx >>> 2) + xa.n);
  },

  // The packed `draws` parameter of a sampler (after _packParams).
  _drawsParam(k) {
    const i = k.params.findIndex((p) => p.name === 'draws');
    return i < 0 ? 0 : this._heap.f64[(this._paramsPtr >>> 3) + i];
  },

  _checkDraws(k, draws, n, where) {
    if (k.draws !== 'index' && draws * n > this.maxN)
      throw new SoftscopeError(`${where}: params.draws * n = ${draws} * ${n} vector entries exceed maxN (${this.maxN})`,
        STATUS.SS_ERR_TOO_LARGE, { argument: 'params.draws' });
  },
};

export const samplerCalls = { ...registrySamplerCalls, ...streamCalls };
