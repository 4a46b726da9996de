// Quantizers: the registry form (quantize), code packing, and vector
// quantization through the direct C API (core/src/quant/vq.c): the
// k-means training with its loss history, nearest-codeword assignment and
// the straight-through (VQ-VAE) backward. The registry kernel `vq`
// (softscope.quantize('vq', ...)) trains and assigns in one call; these
// give the codebook itself. Installed on the Softscope prototype by
// softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, integer, flag, paramsOf } from './args.js';
import { limits, mayStart } from './budget.js';
import { viewOf } from './views.js';

const MAX_DIM = 256, MAX_ITERS = 100000;

const int = integer;

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

const vqCalls = {
  /** k-means++ seeded k-means on x read as vectors of options.dim:
   *  { codebook (k * dim), codes (one per vector), loss (iters + 1 entries:
   *  the MSE per value after seeding and after each Lloyd iteration) }.
   *  options: k (16), dim (1), iters (25), seed (0), and the limits of
   *  budget.js: signal, maxWork (in nvec * k * dim * (iters + 1)). The
   *  seeding and each iteration cost about 5 ns per nvec * k * dim: 2^16
   *  vectors of 16 values into 256 codewords take 2 s an iteration. */
  vqTrain(x, options) {
    const where = 'softscope.vqTrain';
    const fn = this._need('ss_vq_train', where);
    const o = opts(options, where, ['k', 'dim', 'iters', 'seed', 'signal', 'maxWork']);
    const lim = limits(o, where);
    const xa = this._input(x, 'x', where);
    const dim = int(o, 'dim', 1, 1, MAX_DIM, where);
    const nvec = vectors(this, xa, dim, where);
    const k = int(o, 'k', 16, 1, this.maxN, where);
    if (k > nvec)
      throw new SoftscopeError(`${where}: options.k = ${k} is more than the ${nvec} vectors of x`, STATUS.SS_ERR_LENGTH, { argument: 'options.k' });
    const iters = int(o, 'iters', 25, 0, MAX_ITERS, where);
    const seed = int(o, 'seed', 0, 0, 2 ** 53, where);
    mayStart(lim, nvec * k * dim * (iters + 1), 'nvec * k * dim * (iters + 1)', where);
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
    const dim = int(opts(options, where, ['dim']), 'dim', 1, 1, MAX_DIM, where);
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
    const o = opts(options, where, ['dim', 'beta']);
    const dim = int(o, 'dim', 1, 1, MAX_DIM, where);
    const beta = o.beta ?? 0.25;
    if (typeof beta !== 'number' || !Number.isFinite(beta) || beta < 0)
      throw new SoftscopeError(`${where}: options.beta = ${describe(beta)} must be a finite number >= 0`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.beta' });
    const xa = this._input(x, 'x', where), ga = this._input(g, 'g', where);
    const nvec = vectors(this, xa, dim, where);
    const { ca, k } = codebookOf(this, codebook, dim, where);
    codes = viewOf(codes, Int32Array, 'codes', where, this._heap.memory.buffer);
    if (codes.length !== nvec)
      throw new SoftscopeError(`${where}: codes.length = ${codes.length} must be ${nvec} (one per vector of x)`, STATUS.SS_ERR_LENGTH, { argument: 'codes' });
    if (ga.n !== xa.n)
      throw new SoftscopeError(`${where}: g.length = ${ga.n} must equal x.length = ${xa.n}`, STATUS.SS_ERR_LENGTH, { argument: 'g' });
    const bad = codes.findIndex((c) => c < 0 || c >= k);
    if (bad >= 0)
      throw new SoftscopeError(`${where}: codes[${bad}] = ${codes[bad]} must be in [0, ${k})`, STATUS.SS_ERR_DOMAIN, { argument: 'codes', index: bad });
    this._requireFinite([xa, ca, ga], where);
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

const registryQuantizerCalls = {
  /** A quantizer: { output: the dequantized values, codes: the integer codes
   *  (Int32Array; fp8: the 8-bit patterns) }. x must be finite. */
  quantize(kernel, x, params = {}) {
    const k = this._lookup(kernel, 'quantizer', 'softscope.quantize');
    const where = `softscope.quantize("${k.name}")`;
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    params = paramsOf(params, where); // a copy: read once, as packed
    const np = this._packParams(k, params, where, xa.n);
    const group = params.group;
    if (typeof group === 'number' && group > 0 && xa.n % group !== 0)
      throw new SoftscopeError(`${where}: params.group = ${group} must divide n = ${xa.n} (or be 0: one group)`,
        STATUS.SS_ERR_LENGTH, { argument: 'params.group' });
    // (an empty x is C's SS_ERR_EMPTY, reported by the call below)
    if (k.name === 'vq' && xa.n > 0) {
      const dim = params.dim ?? 1, K = params.codebook ?? k.params[0].default;
      if (xa.n % dim !== 0)
        throw new SoftscopeError(`${where}: params.dim = ${dim} must divide n = ${xa.n} (x is read as vectors of dim values)`,
          STATUS.SS_ERR_LENGTH, { argument: 'params.dim' });
      if (K > xa.n / dim)
        throw new SoftscopeError(`${where}: params.codebook = ${K} is more than the ${xa.n / dim} vectors of x`,
          STATUS.SS_ERR_LENGTH, { argument: 'params.codebook' });
    }
    const [px] = this._stage([xa]);
    const py = this._scratch.get('out0', xa.n * 4), pc = this._scratch.get('out1', xa.n * 4);
    const s = this._need('ss_quantize', where)(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, pc, py);
    if (s !== 0) throw this._fail(where, s, [xa], k);
    const h = this._heap;
    h.refresh();
    return { output: h.f32.slice(py >>> 2, (py >>> 2) + xa.n), codes: h.i32.slice(pc >>> 2, (pc >>> 2) + xa.n) };
  },

  /** Codes (Int32Array, e.g. quantize().codes) packed `bits` (8, 4 or 2)
   *  each, lowest bits first: a Uint8Array of ceil(n bits / 8) bytes.
   *  options.signed: two's complement codes (symmetric quantizers). */
  pack(codes, bits, options) {
    const where = 'softscope.pack';
    const signed = flag(opts(options, where, ['signed']), 'signed', false, where);
    codes = viewOf(codes, Int32Array, 'codes', where, this._heap.memory.buffer);
    if (![2, 4, 8].includes(bits))
      throw new SoftscopeError(`${where}: bits = ${describe(bits)} must be 2, 4 or 8`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'bits' });
    const n = codes.length;
    const lo = signed ? -(2 ** (bits - 1)) : 0, hi = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
    const bad = codes.findIndex((c) => c < lo || c > hi);
    if (bad >= 0)
      throw new SoftscopeError(`${where}: codes[${bad}] = ${codes[bad]} does not fit ${bits} ${signed ? 'signed' : 'unsigned'} bits [${lo}, ${hi}]`,
        STATUS.SS_ERR_DOMAIN, { argument: 'codes' });
    this._checkN({ n }, where);
    const bytes = Math.ceil((n * bits) / 8);
    const pc = this._scratch.get('in0', n * 4), po = this._scratch.get('out0', Math.max(1, bytes));
    const h = this._heap;
    h.refresh();
    h.i32.set(codes, pc >>> 2);
    const st = this._need('ss_pack', where)(pc, n, bits, signed ? 1 : 0, po);
    if (st !== 0) throw new SoftscopeError(`${where}: ${this._statusStr(st)}`, st);
    h.refresh();
    return h.u8.slice(po, po + bytes);
  },

  /** The inverse of pack(): n codes of `bits` each from the bytes. */
  unpack(bytes, n, bits, options) {
    const where = 'softscope.unpack';
    const signed = flag(opts(options, where, ['signed']), 'signed', false, where);
    bytes = viewOf(bytes, Uint8Array, 'bytes', where, this._heap.memory.buffer);
    if (![2, 4, 8].includes(bits))
      throw new SoftscopeError(`${where}: bits = ${describe(bits)} must be 2, 4 or 8`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'bits' });
    if (!Number.isInteger(n) || n < 1 || n > this.maxN)
      throw new SoftscopeError(`${where}: n = ${describe(n)} must be an integer in [1, ${this.maxN}]`, STATUS.SS_ERR_LENGTH, { argument: 'n' });
    const need = Math.ceil((n * bits) / 8);
    if (need > bytes.length)
      throw new SoftscopeError(`${where}: n = ${n} codes of ${bits} bits need ${need} bytes; got ${bytes.length}`,
        STATUS.SS_ERR_LENGTH, { argument: 'n' });
    // Only the bytes the n codes occupy are copied in.
    const pb = this._scratch.get('in0', need), pc = this._scratch.get('out0', n * 4);
    const h = this._heap;
    h.refresh();
    h.u8.set(bytes.subarray(0, need), pb);
    const st = this._need('ss_unpack', where)(pb, n, bits, signed ? 1 : 0, pc);
    if (st !== 0) throw new SoftscopeError(`${where}: ${this._statusStr(st)}`, st);
    h.refresh();
    return h.i32.slice(pc >>> 2, (pc >>> 2) + n);
  },
};

export const quantizerCalls = { ...registryQuantizerCalls, ...vqCalls };
