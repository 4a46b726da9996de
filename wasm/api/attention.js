// Attention (core/src/attention) through the JS API: sdpa with any registry
// normalizer, the linear forms (cosformer, galerkin, performer), and the row
// and head measures of attention matrices. Installed on the Softscope
// prototype by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, flag } from './args.js';

const IO_WORDS = 15; // ss_attention_io in wasm32: 15 four-byte fields

function rows(a, count, name, where) {
  if (!Number.isInteger(count) || count < 1)
    throw new SoftscopeError(`${where}: ${name === 'q' ? 'n' : 'm'} = ${describe(count)} must be a positive integer`, STATUS.SS_ERR_EMPTY, { argument: name === 'q' ? 'n' : 'm' });
  if (a.n % count !== 0 || a.n === 0)
    throw new SoftscopeError(`${where}: ${name}.length = ${a.n} is not a multiple of its ${count} rows`, STATUS.SS_ERR_LENGTH, { argument: name });
  return a.n / count;
}

export const attentionCalls = {
  /** One attention call. inputs: { q, k, v (Float32Arrays, row-major),
   *  n (query rows), m (key rows; default n) }; params: the attention
   *  kernel's (heads, scale, causal, ...); options: normalizer (sdpa; default
   *  'softmax'), normalizerParams, keyMask (Uint8Array of m, 0 = padding),
   *  attention (true: also return the heads x n x m matrices).
   *  Returns { output (n x dv), attention (or null), n, m, d, dv, heads }. */
  attend(kernel, inputs, params = {}, options) {
    const k = this._lookup(kernel, 'attention', 'softscope.attend');
    const where = `softscope.attend("${k.name}")`;
    if (!inputs || typeof inputs !== 'object' || ArrayBuffer.isView(inputs))
      throw new SoftscopeTypeError(`${where}: inputs must be { q, k, v, n, m } (got ${describe(inputs)})`, { argument: 'inputs' });
    const o = opts(options, where);
    const attention = flag(o, 'attention', false, where);
    const qa = this._input(inputs.q, 'q', where), ka = this._input(inputs.k, 'k', where), va = this._input(inputs.v, 'v', where);
    const n = inputs.n, m = inputs.m ?? inputs.n;
    const d = rows(qa, n, 'q', where), dk = rows(ka, m, 'k', where), dv = rows(va, m, 'v', where);
    if (dk !== d)
      throw new SoftscopeError(`${where}: k has rows of ${dk} values but q has ${d}; they must match`, STATUS.SS_ERR_LENGTH, { argument: 'k' });
    for (const a of [qa, ka, va]) this._checkN(a, where);
    if (n * m > this.maxN)
      throw new SoftscopeError(`${where}: n m = ${n * m} > maxN (${this.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'n' });
    const mask = o.keyMask;
    if (mask !== undefined && mask !== null && (!(mask instanceof Uint8Array) || mask.length !== m))
      throw new SoftscopeTypeError(`${where}: options.keyMask must be a Uint8Array of m = ${m} entries (got ${describe(mask)})`, { argument: 'options.keyMask' });
    // The normalizer's params first (packed, then moved aside), then the kernel's.
    let nk = null, nnp = 0;
    const pn = this._scratch.get('attn-nparams', 16 * 8);
    if (k.role === 'exact_attention') {
      nk = this._lookup(o.normalizer ?? 'softmax', 'normalizer', where, 'options.normalizer');
      if (nk.output === 'log_probs')
        throw new SoftscopeError(`${where}: options.normalizer "${nk.name}" gives log-probabilities; attention needs weights`, STATUS.SS_ERR_DOMAIN, { argument: 'options.normalizer' });
      nnp = this._packParams(nk, o.normalizerParams, `${where} normalizer "${nk.name}"`, m, 'options.normalizerParams');
      this._heap.refresh();
      this._heap.f64.copyWithin(pn >>> 3, this._paramsPtr >>> 3, (this._paramsPtr >>> 3) + nnp);
    }
    const np = this._packParams(k, params, where);
    const heads = this._heap.f64[this._paramsPtr >>> 3];
    if (d % heads !== 0 || dv % heads !== 0)
      throw new SoftscopeError(`${where}: params.heads = ${heads} must divide d = ${d} and dv = ${dv}`, STATUS.SS_ERR_LENGTH, { argument: 'params.heads' });
    // The output (n x dv) and the matrices (heads x n x m) are products of
    // the arguments: checked against the wasm memory before anything is allocated.
    this._fits(n * dv, 4, 'n', where);
    if (attention) this._fits(heads * n * m, 4, 'params.heads', where);
    const [pq, pk, pv] = this._stage([qa, ka, va]);
    const pio = this._scratch.get('attn-io', IO_WORDS * 4);
    const pmask = mask ? this._scratch.get('attn-mask', m) : 0;
    const pout = this._scratch.get('attn-out', n * dv * 4);
    const pattn = attention ? this._scratch.get('attn-a', heads * n * m * 4) : 0;
    const h = this._heap;
    const writeIo = (scratch) => {
      h.refresh();
      h.u32.set([pq, pk, pv, n, m, d, dv, heads, pmask, nk ? this._ptr.get(nk) : 0, pn, nnp, pout, pattn, scratch], pio >>> 2);
    };
    writeIo(0);
    const need = this.exports.ss_attention_scratch_size(this._ptr.get(k), pio, this._paramsPtr) >>> 0;
    const ps = this._scratch.get('attn-scratch', Math.max(4, this._fits(need, 4, 'params', where)));
    writeIo(ps);
    if (mask) h.u8.set(mask, pmask);
    const s = this._need('ss_attend', where)(this._ptr.get(k), this._implFor(k), pio, this._paramsPtr, np);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_ALL_MASKED)
        throw new SoftscopeError(`${where}: a query row sees no key (all masked by keyMask${params?.causal ? ' or causal' : ''})`, s, { argument: 'options.keyMask' });
      throw this._fail(where, s, [qa, ka, va], k);
    }
    h.refresh();
    return {
      output: h.f32.slice(pout >>> 2, (pout >>> 2) + n * dv),
      attention: pattn ? h.f32.slice(pattn >>> 2, (pattn >>> 2) + heads * n * m) : null,
      n, m, d, dv, heads,
    };
  },

  /** Measures of attention matrices (heads x n x m): rows (Float32Array,
   *  4 per row: entropy in nats, exact-zero fraction, max weight, sink share
   *  = weight of key 0), headDistance (heads x heads mean total variation). */
  attentionMeasures(attention, heads, n, m) {
    const where = 'softscope.attentionMeasures';
    const aa = this._input(attention, 'attention', where);
    for (const [v, name] of [[heads, 'heads'], [n, 'n'], [m, 'm']])
      if (!Number.isInteger(v) || v < 1)
        throw new SoftscopeError(`${where}: ${name} = ${describe(v)} must be a positive integer`, STATUS.SS_ERR_EMPTY, { argument: name });
    if (aa.n !== heads * n * m)
      throw new SoftscopeError(`${where}: attention.length = ${aa.n} is not heads n m = ${heads * n * m}`, STATUS.SS_ERR_LENGTH, { argument: 'attention' });
    this._checkN(aa, where);
    this._fits(heads * heads, 8, 'heads', where);
    const [pa] = this._stage([aa]);
    const pr = this._scratch.get('out0', heads * n * 16), pd = this._scratch.get('out1', heads * heads * 8);
    const s = this._need('ss_attention_measures', where)(pa, heads, n, m, pr, pd);
    if (s !== 0) throw this._fail(where, s, [aa]);
    const h = this._heap;
    h.refresh();
    return { rows: h.f32.slice(pr >>> 2, (pr >>> 2) + 4 * heads * n), headDistance: h.f64.slice(pd >>> 3, (pd >>> 3) + heads * heads) };
  },
};
