// Vector quantization through the direct C API (core/src/quant/vq.c): the
// k-means training with its loss history, nearest-codeword assignment and
// the straight-through (VQ-VAE) backward. The registry kernel `vq`
// (softscope.quantize('vq', ...)) trains and assigns in one call; these
// give the codebook itself. Installed on the Softscope prototype by
// index.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, number } from './direct-calls.js';

const MAX_DIM = 256, MAX_ITERS = 100000;

// An integer option in [min, max] (direct-calls.js's number() check).
const int = (o, key, def, min, max, where) =>
  number(o, key, def, (v) => Number.isInteger(v) && v >= min && v <= max, `must be an integer in [${min}, ${max}]`, where);

// n values as vectors of options.dim: the vector count, or a thrown Error.
function vectors(ss, xa, dim, where, name = 'x') {
  ss._checkN(xa, where);
  if (xa.n % dim !== 0)
    throw new SoftscopeError(`${where}: ${name}.length = ${xa.n} is not a multiple of options.dim = ${dim}`,
      STATUS.SS_ERR_LENGTH, { argument: name });
  return xa.n / dim;
}

function codebookOf(ss, codebook, dim, where) {
  const ca = ss._input(codebook, 'codebook', where);
  return { ca, k: vectors(ss, ca, dim, where, 'codebook') };
}

export const quantCalls = {
  /** k-means++ seeded k-means on x read as vectors of options.dim:
   *  { codebook (k * dim), codes (one per vector), loss (iters + 1 entries:
   *  the MSE per value after seeding and after each Lloyd iteration) }.
   *  options: k (16), dim (1), iters (25), seed (0). */
  vqTrain(x, options) {
    const where = 'softscope.vqTrain';
    const fn = this._need('ss_vq_train', where);
    const o = opts(options, where);
    const xa = this._input(x, 'x', where);
    const dim = int(o, 'dim', 1, 1, MAX_DIM, where);
    const nvec = vectors(this, xa, dim, where);
    const k = int(o, 'k', 16, 1, this.maxN, where);
    if (k > nvec)
      throw new SoftscopeError(`${where}: options.k = ${k} is more than the ${nvec} vectors of x`, STATUS.SS_ERR_LENGTH, { argument: 'options.k' });
    const iters = int(o, 'iters', 25, 0, MAX_ITERS, where);
    const seed = int(o, 'seed', 0, 0, 2 ** 53, where);
    const [px] = this._stage([xa]);
    const pcb = this._scratch.get('out0', k * dim * 4), pc = this._scratch.get('out1', nvec * 4);
    const pl = this._scratch.get('out2', (iters + 1) * 8), ps = this._scratch.get('tmp0', nvec * 4);
    const s = fn(this._implId, px, nvec, dim, k, iters, BigInt(seed), pcb, pc, pl, ps);
    if (s !== 0) throw this._fail(where, s, [xa], this.kernel('vq', 'quantizer'));
    const h = this._heap;
    h.refresh();
    return {
      codebook: h.f32.slice(pcb >>> 2, (pcb >>> 2) + k * dim),
      codes: h.i32.slice(pc >>> 2, (pc >>> 2) + nvec),
      loss: Array.from(h.f64.subarray(pl >>> 3, (pl >>> 3) + iters + 1)),
    };
  },

  /** The nearest codeword of each vector: { codes, output (the codewords) }. */
  vqAssign(x, codebook, options) {
    const where = 'softscope.vqAssign';
    const fn = this._need('ss_vq_assign', where);
    const dim = int(opts(options, where), 'dim', 1, 1, MAX_DIM, where);
    const xa = this._input(x, 'x', where);
    const nvec = vectors(this, xa, dim, where);
    const { ca, k } = codebookOf(this, codebook, dim, where);
    const [px, pcb] = this._stage([xa, ca]);
    const pc = this._scratch.get('out0', nvec * 4), py = this._scratch.get('out1', xa.n * 4);
    const s = fn(this._implId, px, nvec, dim, pcb, k, pc, py);
    if (s !== 0) throw this._fail(where, s, [xa, ca], this.kernel('vq', 'quantizer'));
    const h = this._heap;
    h.refresh();
    return { codes: h.i32.slice(pc >>> 2, (pc >>> 2) + nvec), output: h.f32.slice(py >>> 2, (py >>> 2) + xa.n) };
  },

  /** Straight-through backward of VQ-VAE: given g = dL/dz_q (x's shape),
   *  { dx: g + 2 beta (x - e), dcodebook: sum over each codeword's vectors
   *  of 2 (e - x) }. options: dim (1), beta (0.25, the commitment weight). */
  vqBackward(x, codebook, codes, g, options) {
    const where = 'softscope.vqBackward';
    const fn = this._need('ss_vq_backward', where);
    const o = opts(options, where);
    const dim = int(o, 'dim', 1, 1, MAX_DIM, where);
    const beta = o.beta ?? 0.25;
    if (typeof beta !== 'number' || !Number.isFinite(beta) || beta < 0)
      throw new SoftscopeError(`${where}: options.beta = ${describe(beta)} must be a finite number >= 0`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.beta' });
    const xa = this._input(x, 'x', where), ga = this._input(g, 'g', where);
    const nvec = vectors(this, xa, dim, where);
    const { ca, k } = codebookOf(this, codebook, dim, where);
    if (!(codes instanceof Int32Array))
      throw new SoftscopeTypeError(`${where}: codes must be an Int32Array (got ${describe(codes)})`, { argument: 'codes' });
    if (codes.length !== nvec)
      throw new SoftscopeError(`${where}: codes.length = ${codes.length} must be ${nvec} (one per vector of x)`, STATUS.SS_ERR_LENGTH, { argument: 'codes' });
    if (ga.n !== xa.n)
      throw new SoftscopeError(`${where}: g.length = ${ga.n} must equal x.length = ${xa.n}`, STATUS.SS_ERR_LENGTH, { argument: 'g' });
    const bad = codes.findIndex((c) => c < 0 || c >= k);
    if (bad >= 0)
      throw new SoftscopeError(`${where}: codes[${bad}] = ${codes[bad]} must be in [0, ${k})`, STATUS.SS_ERR_DOMAIN, { argument: 'codes', index: bad });
    const [px, pcb, pg] = this._stage([xa, ca, ga]);
    const pc = this._scratch.get('codes', nvec * 4);
    const pdx = this._scratch.get('out0', xa.n * 4), pdc = this._scratch.get('out1', ca.n * 4);
    const h = this._heap;
    h.refresh();
    h.i32.set(codes, pc >>> 2);
    const s = fn(px, nvec, dim, pcb, k, pc, pg, beta, pdx, pdc);
    if (s !== 0) throw this._fail(where, s, [xa, ca, ga], this.kernel('vq', 'quantizer'));
    h.refresh();
    return { dx: h.f32.slice(pdx >>> 2, (pdx >>> 2) + xa.n), dcodebook: h.f32.slice(pdc >>> 2, (pdc >>> 2) + ca.n) };
  },
};
