// Direct calls of the C API that the registry's x -> y form cannot express:
// the threshold method of sparsemax / entmax15 (with tau and the support),
// the alpha-entmax solvers with their iteration counts, masked softmax with
// an explicit keep mask, VQ-Logits softmax (K codebook logits scattered to V
// outputs) and the Boltzmann operator's value. Installed on the Softscope
// prototype by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, STATUS, describe } from './errors.js';
import { options, number, choice } from './args.js';
import { viewOf } from './views.js';

export const directCalls = {
  /** sparsemax / entmax15 by a chosen threshold method ('select' | 'sort'):
   *  { y, tau, support } (tau on the scale of x for sparsemax, x/2 for entmax15). */
  threshold(kernel, x, opts) {
    const where = `softscope.threshold(${describe(kernel)})`;
    const fnName = { sparsemax: 'ss_sparsemax_ex', entmax15: 'ss_entmax15_ex' }[kernel];
    if (!fnName)
      throw new SoftscopeError(`${where}: kernel must be "sparsemax" or "entmax15"`, STATUS.SS_ERR_UNKNOWN_KERNEL, { argument: 'kernel' });
    const o = options(opts, where, ['method']);
    const method = choice(o, 'method', this.enums.threshold_method, 'select', where);
    const fn = this._need(fnName, where);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const [px] = this._stage([xa]);
    const py = this._scratch.get('out0', xa.n * 4);
    const po = this._scratch.get('direct-out', 16);
    const s = fn(this._implId, method, px, xa.n, py, po, po + 8);
    if (s !== 0) throw this._fail(where, s, [xa], this.kernel(kernel, 'normalizer'));
    const h = this._heap;
    h.refresh();
    return { y: h.f32.slice(py >>> 2, (py >>> 2) + xa.n), tau: h.f32[po >>> 2], support: h.u32[(po + 8) >>> 2] };
  },

  /** alpha-entmax with an explicit stopping rule: { y, tau, iterations }.
   *  options: alpha (1, 10], solver 'bisect' | 'halley', tol >= 0, maxIter >= 1. */
  entmaxSolve(x, opts) {
    const where = 'softscope.entmaxSolve';
    const o = options(opts, where, ['solver', 'alpha', 'tol', 'maxIter']);
    const solver = choice(o, 'solver', this.enums.entmax_solver, 'halley', where);
    const alpha = number(o, 'alpha', 1.5, (v) => v > 1 && v <= 10, 'must be in (1, 10]', where);
    const tol = number(o, 'tol', 1e-6, (v) => Number.isFinite(v) && v >= 0, 'must be a finite number >= 0', where);
    const maxIter = number(o, 'maxIter', 100, (v) => Number.isInteger(v) && v >= 1 && v < 2 ** 32, 'must be an integer >= 1', where);
    const fn = this._need('ss_entmax_solve', where);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const [px] = this._stage([xa]);
    const py = this._scratch.get('out0', xa.n * 4);
    const po = this._scratch.get('direct-out', 16);
    const s = fn(this._implId, solver, px, xa.n, alpha, tol, maxIter, py, po, po + 8);
    if (s !== 0) throw this._fail(where, s, [xa], this.kernel('entmax_bisect', 'normalizer'));
    const h = this._heap;
    h.refresh();
    return { y: h.f32.slice(py >>> 2, (py >>> 2) + xa.n), tau: h.f64[po >>> 3], iterations: h.u32[(po + 8) >>> 2] };
  },

  /** softmax over the entries with keep[i] != 0 (a Uint8Array of x's length); the others are exactly 0. */
  maskedSoftmax(x, keep) {
    const where = 'softscope.maskedSoftmax';
    const fn = this._need('ss_masked_softmax', where);
    const xa = this._input(x, 'x', where);
    keep = viewOf(keep, Uint8Array, 'keep', where, this._heap.memory.buffer);
    this._checkN(xa, where);
    this._sameLength(xa, { name: 'keep', n: keep.length }, where);
    const [px] = this._stage([xa]);
    const pk = this._scratch.get('keep', Math.max(1, keep.length));
    const py = this._scratch.get('out0', xa.n * 4);
    const h = this._heap;
    h.refresh();
    h.u8.set(keep, pk);
    const s = fn(this._implId, px, pk, xa.n, py);
    if (s !== 0) throw this._fail(where, s, [xa], this.kernel('masked_softmax', 'normalizer'));
    h.refresh();
    return h.f32.slice(py >>> 2, (py >>> 2) + xa.n);
  },

  /** VQ-Logits: y_v = softmax of the tied logits z[codes[v]], computed with exps over z only.
   *  z: the K codebook logits (Float32Array); codes: a Uint32Array of length V, each < K. */
  vqSoftmax(z, codes) {
    const where = 'softscope.vqSoftmax';
    const fn = this._need('ss_vq_softmax', where);
    const za = this._input(z, 'z', where);
    codes = viewOf(codes, Uint32Array, 'codes', where, this._heap.memory.buffer);
    this._checkN(za, where);
    this._checkN({ name: 'codes', n: codes.length }, where);
    for (let v = 0; v < codes.length; v++)
      if (codes[v] >= za.n)
        throw new SoftscopeError(`${where}: codes[${v}] = ${codes[v]} must be < ${za.n} (the length of z)`,
          STATUS.SS_ERR_DOMAIN, { argument: 'codes', index: v });
    const [pz] = this._stage([za]);
    const pc = this._scratch.get('codes', Math.max(1, codes.length) * 4);
    const py = this._scratch.get('out0', Math.max(1, codes.length) * 4);
    const h = this._heap;
    h.refresh();
    h.u32.set(codes, pc >>> 2);
    const s = fn(this._implId, pz, za.n, pc, codes.length, py);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_EMPTY && codes.length === 0)
        throw new SoftscopeError(`${where}: codes is empty (length 0)`, s, { argument: 'codes' });
      throw this._fail(where, s, [za], this.kernel('vq_softmax', 'normalizer'));
    }
    h.refresh();
    return h.f32.slice(py >>> 2, (py >>> 2) + codes.length);
  },

  /** The Boltzmann operator sum_i x_i softmax(b x)_i: a soft maximum (b > 0), the mean (b = 0). */
  boltzmann(x, b = 1) {
    const where = 'softscope.boltzmann';
    const fn = this._need('ss_boltzmann', where);
    if (typeof b !== 'number' || !Number.isFinite(b) || Math.abs(b) > 1e3)
      throw new SoftscopeError(`${where}: b = ${describe(b)} must be a finite number in [-1000, 1000]`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'b' });
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const [px] = this._stage([xa]);
    const s = fn(px, xa.n, b, this._outPtr);
    if (s !== 0) throw this._fail(where, s, [xa], this.kernel('boltzmann', 'normalizer'));
    this._heap.refresh();
    return this._heap.f64[this._outPtr >>> 3];
  },
};
