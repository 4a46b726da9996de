// Measures (a scalar of one or two vectors, and its gradient) and losses
// (a loss of logits against a target, and dL/dx). Installed on the
// Softscope prototype (softscope.js); `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe, fmt } from './errors.js';
import { isHeapBufferOf } from './heap.js';
import { options as opts } from './args.js';
import { rowsOption, outOption, copyOut, rowError, badRow } from './rows.js';

// A measure of values (kurtosis, max_median_ratio) outside its domain: what
// about p is degenerate (no spread; a zero median magnitude), or null.
// (row: the row of a rows call, set as the error's .row)
function valuesDomainError(where, status, k, pa, row) {
  if (status !== STATUS.SS_ERR_DOMAIN || k.input !== 'values' || !pa.array) return null;
  const a = pa.array, extra = { argument: 'p', ...(row === undefined ? {} : { row }) };
  if (a.every((v) => v === a[0]))
    return new SoftscopeError(`${where}: p has no spread (${a.length === 1 ? 'one value' : `all ${a.length} values are ${fmt(a[0])}`}): "${k.name}" is undefined there`, status, extra);
  if (2 * a.filter((v) => v === 0).length > a.length)
    return new SoftscopeError(`${where}: p is 0 in more than half of its ${a.length} entries: its median magnitude is 0, and "${k.name}" is undefined there`, status, extra);
  return null;
}

export const measureCalls = {
  /** A scalar of p (and q for two-input measures). May be Infinity.
   *  options.rows: p (and q) are rows × n, one measure per row: a
   *  Float64Array of rows values (one C call, ss_measure_rows), or
   *  options.out (a Float64Array of exactly rows entries) written instead. */
  measure(kernel, p, q, params = {}, options) {
    const k = this._lookup(kernel, 'measure', 'softscope.measure');
    const where = `softscope.measure("${k.name}")`;
    const pair = k.input === 'probs_pair';
    // measure('renyi_entropy', p, { alpha: 2 }[, options]): params in q's place.
    if (!pair && q && typeof q === 'object' && !ArrayBuffer.isView(q) && !isHeapBufferOf(q, this) && !Array.isArray(q)) {
      options = params;
      params = q;
      q = undefined;
    }
    const o = opts(options, where, ['rows', 'out']);
    const pa = this._input(p, 'p', where);
    this._checkN(pa, where);
    const inputs = [pa];
    if (pair) {
      if (q === undefined || q === null)
        throw new SoftscopeTypeError(`${where}: q is required ("${k.name}" compares two vectors p and q)`, { argument: 'q' });
      const qa = this._input(q, 'q', where);
      this._sameLength(pa, qa, where);
      inputs.push(qa);
    } else if (q !== undefined && q !== null) {
      throw new SoftscopeTypeError(`${where}: q must be omitted ("${k.name}" reads one vector; got ${describe(q)})`, { argument: 'q' });
    }
    const shape = rowsOption(o, pa.n, 'p', where);
    if (!shape && o.out !== undefined)
      throw new SoftscopeError(`${where}: options.out needs options.rows (one measure is a number)`, STATUS.SS_ERR_PARAM_COUNT, { argument: 'options.out' });
    const out = shape && outOption(o, Float64Array, shape.rows, 'one value per row', where, this._heap.memory.buffer);
    const np = this._packParams(k, params, where);
    const [pp, pq] = this._stage(inputs);
    if (shape) {
      const po = this._scratch.get('out0', shape.rows * 8), pb = this._scratch.get('bad-row', 8);
      const s = this._need('ss_measure_rows', where)(this._ptr.get(k), this._implFor(k), pp, pair ? pq : 0, shape.rows, shape.n,
        shape.n, shape.n, this._paramsPtr, np, po, pb);
      if (s !== 0) {
        const r = badRow(this, pb);
        if (r < 0) throw this._fail(where, s, inputs, k);
        const e = rowError(this, where, s, inputs, k, r, shape.n);
        const row = this._arrayOf(pa).subarray(r * shape.n, (r + 1) * shape.n);
        throw valuesDomainError(`${where}: row ${r}`, s, k, { array: row }, r) ?? e;
      }
      this._heap.refresh();
      if (out) return copyOut(out, this._heap.f64, po >>> 3, shape.rows, where);
      return this._heap.f64.slice(po >>> 3, (po >>> 3) + shape.rows);
    }
    const s = this.exports.ss_measure(this._ptr.get(k), this._implFor(k), pp, pair ? pq : 0, pa.n, this._paramsPtr, np, this._outPtr);
    if (s !== 0) throw valuesDomainError(where, s, k, pa) ?? this._fail(where, s, inputs, k);
    this._heap.refresh();
    return this._heap.f64[this._outPtr >>> 3];
  },

  /** dp = g * d measure(p) / dp (one-input measures). */
  measureBackward(kernel, p, g = 1, params = {}) {
    const k = this._lookup(kernel, 'measure', 'softscope.measureBackward');
    const where = `softscope.measureBackward("${k.name}")`;
    const pa = this._input(p, 'p', where);
    this._checkN(pa, where);
    if (typeof g !== 'number')
      throw new SoftscopeTypeError(`${where}: g must be a number, the upstream gradient (got ${describe(g)})`, { argument: 'g' });
    if (!Number.isFinite(g))
      throw new SoftscopeError(`${where}: g = ${fmt(g)} must be finite`, STATUS.SS_ERR_NONFINITE, { argument: 'g' });
    if (!k.has_backward) throw new SoftscopeError(`${where}: "${k.name}" has no backward pass`, STATUS.SS_ERR_NO_BACKWARD);
    const np = this._packParams(k, params, where);
    const [pp] = this._stage([pa]);
    const pdp = this._scratch.get('out0', pa.n * 4);
    const s = this.exports.ss_measure_vjp(this._ptr.get(k), this._implFor(k), pp, pa.n, this._paramsPtr, np, g, pdp);
    if (s !== 0) throw valuesDomainError(where, s, k, pa) ?? this._fail(where, s, [pa], k);
    this._heap.refresh();
    return this._heap.f32.slice(pdp >>> 2, (pdp >>> 2) + pa.n);
  },

  /** { loss, grad }: the loss of logits x against params.target, and dL/dx. */
  loss(kernel, x, params = {}) {
    const k = this._lookup(kernel, 'loss', 'softscope.loss');
    const where = `softscope.loss("${k.name}")`;
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const np = this._packParams(k, params, where, xa.n);
    const t = this._heap.f64[this._paramsPtr >>> 3];
    const [px] = this._stage([xa]);
    const pg = this._scratch.get('out0', xa.n * 4);
    const s = this._need('ss_loss', where)(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np,
      this._outPtr, pg);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_DOMAIN && xa.array && xa.array[t] === -Infinity)
        throw new SoftscopeError(`${where}: x[${t}] (the target) is -Infinity: a masked target has infinite loss`,
          s, { argument: 'x', index: t });
      throw this._fail(where, s, [xa], k);
    }
    this._heap.refresh();
    return { loss: this._heap.f64[this._outPtr >>> 3], grad: this._heap.f32.slice(pg >>> 2, (pg >>> 2) + xa.n) };
  },
};
