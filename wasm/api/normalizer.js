// Normalizers: y = kernel(x; params) and its backward passes, the zero-copy
// form on heap buffers, the fused top-k softmax and the online-softmax state
// over a stream of chunks. Installed on the Softscope prototype
// (softscope.js); `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, statusCode, describe, fmt } from './errors.js';
import { isHeapBufferOf } from './heap.js';
import { options as opts } from './args.js';
import { rowsOption, outOption, copyOut, rowError, badRow } from './rows.js';

export const normalizerCalls = {
  /** y = kernel(x; params), a new Float32Array, or options.out.
   *  options.rows: x is rows × n (row-major), each row normalized on its own
   *  (one C call, ss_normalize_rows); options.out: a Float32Array of
   *  x.length written instead of a new array (one copy in, the kernel, one
   *  copy out; it may be x itself). */
  normalize(kernel, x, params = {}, options) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalize');
    const where = `softscope.normalize("${k.name}")`;
    const o = opts(options, where, ['rows', 'out']);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const shape = rowsOption(o, xa.n, 'x', where);
    const out = outOption(o, Float32Array, xa.n, 'the length of x', where, this._heap.memory.buffer);
    const n = shape ? shape.n : xa.n;
    const np = this._packParams(k, params, where, n);
    const [px] = this._stage([xa]);
    // a kernel that may write y over x (the registry's in_place) runs on
    // the staged copy itself: one heap buffer, not two (at 2^22 floats a
    // 16 MB working set instead of 32: 1.32 -> 1.14 ns per element with
    // { out }, Node 20); never over a heap buffer of the caller's
    const py = k.in_place && !xa.heap ? px : this._scratch.get('out0', xa.n * 4);
    if (shape) this._normalizeRows(k, where, xa, shape, np, px, py);
    else {
      const s = this.exports.ss_normalize(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, py);
      if (s !== 0) throw this._fail(where, s, [xa], k);
    }
    this._heap.refresh();
    if (out) return copyOut(out, this._heap.f32, py >>> 2, xa.n, where);
    return this._heap.f32.slice(py >>> 2, (py >>> 2) + xa.n);
  },

  // ss_normalize_rows over rows × n at px into py (contiguous rows); a
  // failing row is an Error naming it.
  _normalizeRows(k, where, xa, shape, np, px, py) {
    const pb = this._scratch.get('bad-row', 8);
    const s = this._need('ss_normalize_rows', where)(this._ptr.get(k), this._implFor(k), px, shape.rows, shape.n, shape.n,
      this._paramsPtr, np, py, shape.n, pb);
    if (s === 0) return;
    const r = badRow(this, pb);
    throw r < 0 ? this._fail(where, s, [xa], k) : rowError(this, where, s, [xa], k, r, shape.n);
  },

  /** dx = J(x)^T g (vector-Jacobian product), given y = normalize(kernel, x). */
  normalizeBackward(kernel, x, y, g, params = {}) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalizeBackward');
    const where = `softscope.normalizeBackward("${k.name}")`;
    const xa = this._input(x, 'x', where), ya = this._input(y, 'y', where), ga = this._input(g, 'g', where);
    this._checkN(xa, where);
    this._sameLength(xa, ya, where);
    this._sameLength(xa, ga, where);
    if (!k.has_backward) throw new SoftscopeError(`${where}: "${k.name}" has no backward pass`, STATUS.SS_ERR_NO_BACKWARD);
    const np = this._packParams(k, params, where, xa.n);
    const [px, py, pg] = this._stage([xa, ya, ga]);
    const pdx = this._scratch.get('out0', xa.n * 4);
    const s = this.exports.ss_normalize_vjp(this._ptr.get(k), this._implFor(k), px, py, pg, xa.n, this._paramsPtr, np, pdx);
    // dispatch checks g (finite) before the kernel checks x and y.
    if (s !== 0) throw this._fail(where, s, [ga, xa, ya], k);
    this._heap.refresh();
    return this._heap.f32.slice(pdx >>> 2, (pdx >>> 2) + xa.n);
  },

  /** Gradient of sum_j g_j y_j with respect to each float parameter, e.g.
   *  alpha of alpha-entmax: { alpha: number, ... } (int / bool params: 0). */
  normalizeParamBackward(kernel, x, y, g, params = {}) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalizeParamBackward');
    const where = `softscope.normalizeParamBackward("${k.name}")`;
    const xa = this._input(x, 'x', where), ya = this._input(y, 'y', where), ga = this._input(g, 'g', where);
    this._checkN(xa, where);
    this._sameLength(xa, ya, where);
    this._sameLength(xa, ga, where);
    if (!k.has_param_backward)
      throw new SoftscopeError(`${where}: "${k.name}" has no parameter gradient`, STATUS.SS_ERR_NO_BACKWARD);
    const np = this._packParams(k, params, where, xa.n);
    const [px, py, pg] = this._stage([xa, ya, ga]);
    const pd = this._scratch.get('dparams', Math.max(1, np) * 8);
    const s = this._need('ss_normalize_param_vjp', where)(this._ptr.get(k), this._implFor(k), px, py, pg, xa.n,
      this._paramsPtr, np, pd);
    if (s !== 0) throw this._fail(where, s, [ga, xa, ya], k);
    this._heap.refresh();
    const out = {};
    k.params.forEach((p, i) => { out[p.name] = this._heap.f64[(pd >>> 3) + i]; });
    return out;
  },

  /** y = kernel(x) with x, y heap buffers from alloc(): no copy, no
   *  allocation. options.rows: x and y are rows × n, each row on its own. */
  normalizeInto(kernel, x, y, params = {}, options) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalizeInto');
    const where = `softscope.normalizeInto("${k.name}")`;
    const o = opts(options, where, ['rows']);
    for (const [v, name] of [[x, 'x'], [y, 'y']])
      if (!isHeapBufferOf(v, this))
        throw new SoftscopeTypeError(`${where}: ${name} must be a buffer from this instance's alloc(n) (got ${describe(v)})`, { argument: name });
    const xa = this._input(x, 'x', where), ya = this._input(y, 'y', where);
    this._sameLength(xa, ya, where);
    if (x === y) throw new SoftscopeError(`${where}: y must be a different buffer from x`, STATUS.SS_ERR_BUFFER, { argument: 'y' });
    const shape = rowsOption(o, xa.n, 'x', where);
    const np = this._packParams(k, params, where, shape ? shape.n : xa.n);
    // after the params' getters: x and y must still be live
    const [px, py] = this._stage([xa, ya]);
    if (shape) {
      this._normalizeRows(k, where, xa, shape, np, px, py);
      return y;
    }
    const s = this.exports.ss_normalize(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, py);
    if (s !== 0) throw this._fail(where, s, [xa], k);
    return y;
  },

  /** The k largest probabilities of softmax(x), descending, and their indices. */
  softmaxTopk(x, k) {
    const where = 'softscope.softmaxTopk';
    const fn = this._need('ss_softmax_topk', where);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    if (typeof k !== 'number' || !Number.isInteger(k))
      throw new SoftscopeTypeError(`${where}: k must be an integer (got ${describe(k)})`, { argument: 'k' });
    if (k < 1 || (xa.n > 0 && k > xa.n))
      throw new SoftscopeError(`${where}: k = ${k} must be in [1, ${Math.max(1, xa.n)}] (the length of x)`, STATUS.SS_ERR_LENGTH, { argument: 'k' });
    const [px] = this._stage([xa]);
    // n = 0 is C's SS_ERR_EMPTY; the outputs then need no room for k.
    const kk = Math.max(1, Math.min(k, xa.n));
    const pp = this._scratch.get('out0', kk * 4);
    const pi = this._scratch.get('out1', kk * 4);
    const s = fn(this._implId, px, xa.n, k, pp, pi);
    if (s !== 0) throw this._fail(where, s, [xa], { name: 'softmax', params: [] });
    const h = this._heap;
    h.refresh();
    return { probs: h.f32.slice(pp >>> 2, (pp >>> 2) + k), indices: h.u32.slice(pi >>> 2, (pi >>> 2) + k) };
  },

  /** An online-softmax state (max, sum) over a stream of chunks. */
  softmaxState() {
    return new SoftmaxState(this);
  },
};

// The ss_softmax_state struct on wasm32: float max at 0, double sum at 8.
const STATE_BYTES = 16;

class SoftmaxState {
  constructor(ss) {
    this._ss = ss;
    ss._need('ss_softmax_state_init', 'softscope.softmaxState');
    this.reset();
  }

  /** The running maximum (-Infinity before any finite logit). */
  get max() { return this._max; }
  /** sum_i exp(x_i - max) over everything seen. */
  get sum() { return this._sum; }

  /** Back to the empty state. Returns this. */
  reset() {
    return this._ss._call(this._reset, [], this);
  }

  // The init function and the scratch struct of the instance as it is now
  // (ss.reset() replaces both).
  _reset() {
    const ss = this._ss;
    ss._need('ss_softmax_state_init', 'softscope.softmaxState().reset')(ss._statePtr);
    this._read(ss._statePtr);
    return this;
  }

  // The state lives in JS between calls (no malloc per state, nothing to
  // free); it is copied into the scratch struct for each C call.
  _write(ptr) {
    const h = this._ss._heap;
    h.refresh();
    h.f32[ptr >>> 2] = this._max;
    h.f64[(ptr + 8) >>> 3] = this._sum;
  }

  _read(ptr) {
    const h = this._ss._heap;
    h.refresh();
    this._max = h.f32[ptr >>> 2];
    this._sum = h.f64[(ptr + 8) >>> 3];
  }

  /** Fold a chunk of logits into the state. Returns this. */
  update(x) {
    return this._ss._call(this._update, [x], this);
  }

  _update(x) {
    const ss = this._ss, where = 'softscope.softmaxState().update';
    const fn = ss._need('ss_softmax_state_update', where);
    const xa = ss._input(x, 'x', where);
    ss._checkN(xa, where);
    const [px] = ss._stage([xa]);
    this._write(ss._statePtr);
    const s = fn(ss._statePtr, ss._implId, px, xa.n);
    if (s !== 0) throw ss._fail(where, s, [xa], { name: 'softmax', params: [] });
    this._read(ss._statePtr);
    return this;
  }

  /** Fold another state (of the same instance) into this one. Returns this. */
  merge(other) {
    const ss = this._ss, where = 'softscope.softmaxState().merge';
    const fn = ss._need('ss_softmax_state_merge', where);
    if (!(other instanceof SoftmaxState) || other._ss !== ss)
      throw new SoftscopeTypeError(`${where}: other must be a state from the same instance's softmaxState() (got ${describe(other)})`, { argument: 'other' });
    const a = ss._statePtr, b = ss._statePtr + STATE_BYTES;
    this._write(a);
    other._write(b);
    const s = fn(a, b);
    if (s !== 0) throw new SoftscopeError(`${where}: ${ss._statusStr(s)} (${statusCode(s)})`, s);
    this._read(a);
    return this;
  }

  /** exp(x - max) / sum for a chunk, with the finished state. */
  apply(x) {
    return this._ss._call(this._apply, [x], this);
  }

  _apply(x) {
    const ss = this._ss, where = 'softscope.softmaxState().apply';
    const fn = ss._need('ss_softmax_state_apply', where);
    const xa = ss._input(x, 'x', where);
    ss._checkN(xa, where);
    const [px] = ss._stage([xa]);
    const py = ss._scratch.get('out0', xa.n * 4);
    this._write(ss._statePtr);
    const s = fn(ss._statePtr, ss._implId, px, xa.n, py);
    if (s === STATUS.SS_ERR_ALL_MASKED && this._max === -Infinity)
      throw new SoftscopeError(`${where}: the state has seen only -Inf (or nothing): update it with at least one finite logit first`, s, { argument: 'state' });
    if (s === STATUS.SS_ERR_DOMAIN) {
      // A logit above the state's max: the chunk was not folded into it.
      const a = ss._arrayOf(xa);
      let i = 0;
      while (i < a.length && !(a[i] > this._max)) i++;
      if (i < a.length)
        throw new SoftscopeError(`${where}: x[${i}] = ${fmt(a[i])} is above the state's max ${fmt(this._max)}; apply only chunks the state has seen (update(x) first)`,
          s, { argument: 'x', index: i });
    }
    if (s !== 0) throw ss._fail(where, s, [xa], { name: 'softmax', params: [] });
    ss._heap.refresh();
    return ss._heap.f32.slice(py >>> 2, (py >>> 2) + xa.n);
  }
}
