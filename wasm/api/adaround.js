// AdaRound (Nagel et al. 2020; core/src/quant/adaround.c) as a direct call:
// learned up/down rounding of a layer W (rows x cols) on calibration inputs X
// (cols x batch) that the caller gives or that are drawn under a seed, with
// the statistics the registry form (ss.quantize('adaround', ...)) cannot
// return: both reconstruction errors, the grid, the flips; and the registry
// form's calibration inputs themselves (ss_adaround_inputs: drawn by C, the
// very floats the registry form uses). Installed on the Softscope prototype
// by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, number, integer, count } from './args.js';

// The registry quantizer whose direct call this is (its parameters give the defaults).
const ADAROUND = 'adaround';

// The direct call's own limits (softscope.h: SS_ADAROUND_MAX_ITERS, lambda, lr).
const MAX_ITERS = 1000000;
// ss_adaround's stats, in the order of the SS_ADAROUND_* indices.
const STATS = ['err', 'errNearest', 'scale', 'zero', 'flipped', 'soft'];

// The calibration inputs of (o.seed, o.corr), drawn by ss_adaround_inputs.
function drawInputs(self, cols, batch, o, where) {
  const fn = self._need('ss_adaround_inputs', where);
  const def = Object.fromEntries(self.kernel(ADAROUND, 'quantizer').params.map((p) => [p.name, p.default]));
  const seed = integer(o, 'seed', def.seed, 0, 2 ** 53, where);
  const corr = number(o, 'corr', def.corr, (v) => v >= -1 && v <= 1, 'must be in [-1, 1]', where);
  if (cols * batch > self.maxN)
    throw new SoftscopeError(`${where}: cols batch = ${cols * batch} > maxN (${self.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'options.batch' });
  const p = self._scratch.get('out0', cols * batch * 4);
  const s = fn(BigInt(seed), cols, batch, corr, p);
  if (s !== 0) throw new SoftscopeError(`${where}: ${self._statusStr(s)}`, s);
  self._heap.refresh();
  return self._heap.f32.slice(p >>> 2, (p >>> 2) + cols * batch);
}

export const adaroundCalls = {
  /**
   * The registry form's calibration inputs, cols x batch (row-major): an
   * AR(1) chain along the inputs, x_0b = z_0b, x_kb = corr x_(k-1)b +
   * sqrt(1 - corr^2) z_kb (in double, then rounded to float), z the normals
   * of (seed, stream 1). Drawn by C (ss_adaround_inputs), so they are the
   * registry form's inputs bit for bit. options: seed, corr (defaults: the
   * registry kernel "adaround"'s). A Float32Array.
   */
  adaroundInputs(cols, batch, options) {
    const where = 'softscope.adaroundInputs';
    count(cols, 'cols', this.maxN, where);
    count(batch, 'batch', this.maxN, where);
    return drawInputs(this, cols, batch, opts(options, where, ['seed', 'corr']), where);
  },

  /**
   * AdaRound of w (rows x cols, row-major). options: rows (default
   * w.length / cols), cols, bits, symmetric, iters, lambda, lr (defaults:
   * the registry kernel "adaround"'s), and either x (a Float32Array of
   * cols x batch calibration inputs; batch = x.length / cols) or batch,
   * seed and corr to draw them as the registry form does (adaroundInputs).
   * Returns { output: W~ (dequantized), codes, nearest (the codes of
   * rounding to nearest on the same grid), err = |W X - W~ X|_F^2,
   * errNearest (the same for nearest rounding), scale, zero (the grid),
   * flipped (codes differing from nearest), soft (h strictly inside (0, 1)
   * before the final rounding), rows, cols, batch }.
   */
  adaround(w, options) {
    const where = 'softscope.adaround';
    const fn = this._need('ss_adaround', where);
    const k = this.kernel(ADAROUND, 'quantizer');
    const def = Object.fromEntries(k.params.map((p) => [p.name, p.default]));
    const o = opts(options, where, ['rows', 'cols', 'x', 'batch', 'seed', 'corr', 'bits', 'symmetric', 'iters', 'lambda', 'lr']);
    const wa = this._input(w, 'w', where);
    this._checkN(wa, where);
    const cols = integer(o, 'cols', def.cols, 1, this.maxN, where);
    if (o.rows === undefined && wa.n % cols !== 0)
      throw new SoftscopeError(`${where}: w.length = ${wa.n} is not a multiple of options.cols = ${cols}`, STATUS.SS_ERR_LENGTH, { argument: 'w' });
    const rows = integer(o, 'rows', wa.n / cols, 1, this.maxN, where);
    if (rows * cols !== wa.n)
      throw new SoftscopeError(`${where}: w.length = ${wa.n} is not rows cols = ${rows} x ${cols}`, STATUS.SS_ERR_LENGTH, { argument: 'w' });
    const bits = integer(o, 'bits', def.bits, 2, 8, where);
    const sym = o.symmetric ?? def.symmetric;
    if (typeof sym !== 'boolean' && sym !== 0 && sym !== 1)
      throw new SoftscopeTypeError(`${where}: options.symmetric = ${describe(sym)} must be true/false (or 1/0)`, { argument: 'options.symmetric' });
    const iters = integer(o, 'iters', def.iters, 1, MAX_ITERS, where);
    const lambda = number(o, 'lambda', def.lambda, (v) => v >= 0 && v <= 1e3, 'must be in [0, 1000]', where);
    const lr = number(o, 'lr', def.lr, (v) => v > 0 && v <= 10, 'must be in (0, 10]', where);
    let xa, batch;
    if (o.x !== undefined && o.x !== null) {
      for (const key of ['seed', 'corr'])
        if (o[key] !== undefined)
          throw new SoftscopeError(`${where}: options.${key} draws the inputs; it cannot go with options.x`, STATUS.SS_ERR_PARAM_COUNT, { argument: `options.${key}` });
      xa = this._input(o.x, 'options.x', where);
      batch = integer(o, 'batch', Math.max(1, Math.floor(xa.n / cols)), 1, this.maxN, where);
      if (xa.n !== cols * batch)
        throw new SoftscopeError(`${where}: options.x.length = ${xa.n} is not cols batch = ${cols} x ${batch}`, STATUS.SS_ERR_LENGTH, { argument: 'options.x' });
    } else {
      batch = integer(o, 'batch', def.batch, 1, this.maxN, where);
      xa = { name: 'options.x', array: drawInputs(this, cols, batch, o, where), n: cols * batch };
    }
    const need = this.exports.ss_adaround_scratch_size(rows, cols, batch) >>> 0;
    if (need === 0)
      throw new SoftscopeError(`${where}: rows cols and cols batch must be <= maxN (${this.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'options.batch' });
    const [pw, px] = this._stage([wa, xa]);
    const pq = this._scratch.get('out0', wa.n * 4), pc = this._scratch.get('out1', wa.n * 4);
    const ps = this._scratch.get('tmp0', this._fits(need, 4, 'options.batch', where)), pst = this._scratch.get('direct-out', STATS.length * 8);
    const s = fn(this._implId, pw, rows, cols, px, batch, bits, sym ? 1 : 0, iters, lambda, lr, pq, pc, ps, pst);
    if (s !== 0) throw this._fail(where, s, [wa, xa]);
    const h = this._heap;
    h.refresh();
    const out = {
      output: h.f32.slice(pq >>> 2, (pq >>> 2) + wa.n),
      codes: h.i32.slice(pc >>> 2, (pc >>> 2) + wa.n),
    };
    STATS.forEach((name, i) => { out[name] = h.f64[(pst >>> 3) + i]; });
    // Nearest rounding on the same grid: the uniform quantizer per tensor,
    // whose grid (ss_uniform_grid) AdaRound shares.
    out.nearest = this.quantize('uniform', wa.heap ?? wa.array, { bits, symmetric: sym ? 1 : 0, group: 0 }).codes;
    return { ...out, rows, cols, batch };
  },
};
