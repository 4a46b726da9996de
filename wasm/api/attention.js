// Attention (core/src/attention) through the JS API: sdpa with any registry
// normalizer, the linear forms (cosformer, galerkin, and the random-feature
// kernels performer, trig, hrf), the random features' estimate of the
// softmax kernel itself, and the row and head measures of attention (the
// softpick paper's kurtosis and sink rate). Installed on the Softscope
// prototype by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe, fmt } from './errors.js';
import { options as opts, number, flag, paramsOf } from './args.js';
import { viewOf, attached } from './views.js';

const IO_WORDS = 15; // ss_attention_io in wasm32: 15 four-byte fields
// ss_attention_head_measures: four numbers per head
const HEAD_MEASURES = 4;

function rows(a, count, name, where) {
  if (!Number.isInteger(count) || count < 1)
    throw new SoftscopeError(`${where}: ${name === 'q' ? 'n' : 'm'} = ${describe(count)} must be a positive integer`, STATUS.SS_ERR_EMPTY, { argument: name === 'q' ? 'n' : 'm' });
  if (a.n % count !== 0 || a.n === 0)
    throw new SoftscopeError(`${where}: ${name}.length = ${a.n} is not a multiple of its ${count} rows`, STATUS.SS_ERR_LENGTH, { argument: name });
  return a.n / count;
}

function positive(v, name, where) {
  if (!Number.isInteger(v) || v < 1)
    throw new SoftscopeError(`${where}: ${name} = ${describe(v)} must be a positive integer`, STATUS.SS_ERR_EMPTY, { argument: name });
  return v;
}

// Q and K (and V when given) of an inputs object, checked: their arrays and
// shapes { qa, ka, va, n, m, d, dv }.
function queriesKeys(ss, inputs, where, withValues) {
  if (!inputs || typeof inputs !== 'object' || ArrayBuffer.isView(inputs))
    throw new SoftscopeTypeError(`${where}: inputs must be { q, k${withValues ? ', v' : ''}, n, m } (got ${describe(inputs)})`, { argument: 'inputs' });
  inputs = { q: inputs.q, k: inputs.k, v: withValues ? inputs.v : undefined, n: inputs.n, m: inputs.m }; // each key read once
  const qa = ss._input(inputs.q, 'q', where), ka = ss._input(inputs.k, 'k', where);
  const va = withValues ? ss._input(inputs.v, 'v', where) : null;
  const n = inputs.n, m = inputs.m ?? inputs.n;
  const d = rows(qa, n, 'q', where), dk = rows(ka, m, 'k', where), dv = va ? rows(va, m, 'v', where) : d;
  if (dk !== d)
    throw new SoftscopeError(`${where}: k has rows of ${dk} values but q has ${d}; they must match`, STATUS.SS_ERR_LENGTH, { argument: 'k' });
  for (const a of [qa, ka, va]) if (a) ss._checkN(a, where);
  if (n * m > ss.maxN)
    throw new SoftscopeError(`${where}: n m = ${n * m} > maxN (${ss.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'n' });
  return { qa, ka, va, n, m, d, dv };
}

// params.heads (already packed) must divide d and dv.
function headsOf(ss, d, dv, where) {
  const heads = ss._heap.f64[ss._paramsPtr >>> 3];
  if (d % heads !== 0 || dv % heads !== 0)
    throw new SoftscopeError(`${where}: params.heads = ${heads} must divide d = ${d} and dv = ${dv}`, STATUS.SS_ERR_LENGTH, { argument: 'params.heads' });
  return heads;
}

// An ss_attention_io in the scratch, with the scratch its kernel asks for
// (ss_attention_scratch_size of the packed params): its pointer.
function writeIo(ss, k, words, where) {
  const h = ss._heap;
  const pio = ss._scratch.get('attn-io', IO_WORDS * 4);
  const put = (scratch) => {
    h.refresh();
    h.u32.set([...words, scratch], pio >>> 2);
  };
  put(0);
  const need = ss.exports.ss_attention_scratch_size(ss._ptr.get(k), pio, ss._paramsPtr) >>> 0;
  put(ss._scratch.get('attn-scratch', Math.max(4, ss._fits(need, 4, 'params', where))));
  return pio;
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
    const o = opts(options, where, ['normalizer', 'normalizerParams', 'keyMask', 'attention']);
    const attention = flag(o, 'attention', false, where);
    const { qa, ka, va, n, m, d, dv } = queriesKeys(this, inputs, where, true);
    let mask = o.keyMask;
    if (mask !== undefined && mask !== null) {
      mask = viewOf(mask, Uint8Array, 'options.keyMask', where, this._heap.memory.buffer);
      if (mask.length !== m)
        throw new SoftscopeTypeError(`${where}: options.keyMask must be a Uint8Array of m = ${m} entries (got ${mask.length})`, { argument: 'options.keyMask' });
    } else mask = null;
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
    params = paramsOf(params, where); // a copy: read once, as packed
    const np = this._packParams(k, params, where);
    const heads = headsOf(this, d, dv, where);
    // The output (n x dv) and the matrices (heads x n x m) are products of
    // the arguments: checked against the wasm memory before anything is allocated.
    this._fits(n * dv, 4, 'n', where);
    if (attention) this._fits(heads * n * m, 4, 'params.heads', where);
    const [pq, pk, pv] = this._stage([qa, ka, va]);
    const pmask = mask ? this._scratch.get('attn-mask', m) : 0;
    const pout = this._scratch.get('attn-out', n * dv * 4);
    const pattn = attention ? this._scratch.get('attn-a', heads * n * m * 4) : 0;
    const pio = writeIo(this, k, [pq, pk, pv, n, m, d, dv, heads, pmask, nk ? this._ptr.get(nk) : 0, pn, nnp, pout, pattn], where);
    const h = this._heap;
    h.refresh();
    if (mask) h.u8.set(attached(mask, m, 'options.keyMask', where), pmask);
    const s = this._need('ss_attend', where)(this._ptr.get(k), this._implFor(k), pio, this._paramsPtr, np);
    if (s !== 0) {
      if (s === STATUS.SS_ERR_ALL_MASKED)
        throw new SoftscopeError(`${where}: a query row sees no key (all masked by keyMask${params.causal ? ' or causal' : ''})`, s, { argument: 'options.keyMask' });
      // random features: a row's normalizer estimate can cancel (signed maps) or underflow (large scores)
      if (s === STATUS.SS_ERR_DOMAIN && k.role === 'linear_attention') {
        const at = k.params.findIndex((p) => p.name === 'scale'), scale = at < 0 ? null : h.f64[(this._paramsPtr >>> 3) + at];
        throw new SoftscopeError(`${where}: params.scale = ${scale === 0 ? '0 (1/sqrt(d_head))' : fmt(scale)} leaves a row whose normalizer estimate is not a positive float (the random features' estimate of sum_j exp(scale q.k_j) cancelled to <= 0 or underflowed); lower the scale or use more features`, s, { argument: 'params.scale' });
      }
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
    for (const [v, name] of [[heads, 'heads'], [n, 'n'], [m, 'm']]) positive(v, name, where);
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

  /** Head measures of one attention call, as the softpick paper compares
   *  softmax and softpick: out (n x dv, head h owns columns h dv/heads ..),
   *  attn (heads x n x m, or null). options: heads (1), n (required), dv
   *  (out.length / n), m (attn.length / (heads n)), sinkEps (0.3, Gu et al.
   *  2025). Returns per head: kurtosis (Pearson, of the head's output values;
   *  0 when they are all equal), maxMedianRatio (max |o| / median |o|; 0 when
   *  the median is 0), keyZeroWeight (the mean weight on key 0; 0 without
   *  attn), sink (keyZeroWeight > sinkEps), and sinkRate (the share of sink
   *  heads). An ss.attend result passes as options ({ heads, n, m, dv }). */
  attentionHeadMeasures(out, attn, options) {
    const where = 'softscope.attentionHeadMeasures';
    const o = opts(options, where);
    const oa = this._input(out, 'out', where);
    const aa = attn === null || attn === undefined ? null : this._input(attn, 'attn', where);
    const heads = positive(o.heads ?? 1, 'options.heads', where);
    const n = positive(o.n, 'options.n', where);
    if (o.dv === undefined && oa.n % n !== 0)
      throw new SoftscopeError(`${where}: out.length = ${oa.n} is not a multiple of options.n = ${n}`, STATUS.SS_ERR_LENGTH, { argument: 'out' });
    const dv = positive(o.dv ?? oa.n / n, 'options.dv', where);
    if (oa.n !== n * dv)
      throw new SoftscopeError(`${where}: out.length = ${oa.n} is not n dv = ${n} x ${dv}`, STATUS.SS_ERR_LENGTH, { argument: 'out' });
    if (dv % heads !== 0)
      throw new SoftscopeError(`${where}: options.heads = ${heads} must divide dv = ${dv}`, STATUS.SS_ERR_LENGTH, { argument: 'options.heads' });
    if (aa && o.m === undefined && aa.n % (heads * n) !== 0)
      throw new SoftscopeError(`${where}: attn.length = ${aa.n} is not a multiple of heads n = ${heads} x ${n}`, STATUS.SS_ERR_LENGTH, { argument: 'attn' });
    const m = positive(o.m ?? (aa ? aa.n / (heads * n) : 1), 'options.m', where);
    if (aa && aa.n !== heads * n * m)
      throw new SoftscopeError(`${where}: attn.length = ${aa.n} is not heads n m = ${heads} x ${n} x ${m}`, STATUS.SS_ERR_LENGTH, { argument: 'attn' });
    const eps = number(o, 'sinkEps', 0.3, (v) => v >= 0 && v <= 1, 'must be in [0, 1]', where);
    const inputs = aa ? [oa, aa] : [oa];
    const [po, pa] = this._stage(inputs);
    const ph = this._scratch.get('out0', heads * HEAD_MEASURES * 8);
    const s = this._need('ss_attention_head_measures', where)(po, aa ? pa : 0, heads, n, m, dv, eps, ph);
    if (s !== 0) throw this._fail(where, s, inputs);
    const h = this._heap;
    h.refresh();
    const col = (c) => Float64Array.from({ length: heads }, (_, i) => h.f64[(ph >>> 3) + HEAD_MEASURES * i + c]);
    const sink = Array.from(col(3), (v) => v === 1);
    return { kurtosis: col(0), maxMedianRatio: col(1), keyZeroWeight: col(2), sink, sinkRate: sink.filter(Boolean).length / heads };
  },

  /** A random-feature kernel's estimate of the softmax kernel itself, for
   *  every query-key pair: a Float64Array of heads x n x m with entry
   *  (h n + i) m + j ~ exp(s q_i . k_j) over head h's columns (s the score
   *  scale: params.scale, or 1/sqrt(d_head)). Unbiased: its mean over seeds
   *  is the kernel. inputs: { q, k, n, m }; params: the kernel's. Only the
   *  kernels whose registry entry says kernel_estimate. */
  attentionKernelEstimate(kernel, inputs, params = {}) {
    const k = this._lookup(kernel, 'attention', 'softscope.attentionKernelEstimate');
    const where = `softscope.attentionKernelEstimate("${k.name}")`;
    if (!k.kernel_estimate) {
      const have = this.kernels('attention').filter((x) => x.kernel_estimate).map((x) => x.name);
      throw new SoftscopeError(`${where}: "${k.name}" has no random features to estimate the softmax kernel with; kernels that do: ${have.join(', ')}`,
        STATUS.SS_ERR_UNSUPPORTED, { argument: 'kernel' });
    }
    const { qa, ka, n, m, d } = queriesKeys(this, inputs, where, false);
    const np = this._packParams(k, params, where);
    const heads = headsOf(this, d, d, where);
    if (heads * n * m > this.maxN)
      throw new SoftscopeError(`${where}: heads n m = ${heads * n * m} > maxN (${this.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'params.heads' });
    const [pq, pk] = this._stage([qa, ka]);
    const pe = this._scratch.get('attn-est', heads * n * m * 8);
    // V, the output and the matrices are not read: Q stands in for V (dv = d sizes the scratch)
    const pio = writeIo(this, k, [pq, pk, pq, n, m, d, d, heads, 0, 0, 0, 0, 0, 0], where);
    const s = this._need('ss_attention_kernel_estimate', where)(this._ptr.get(k), this._implFor(k), pio, this._paramsPtr, np, pe);
    if (s !== 0) throw this._fail(where, s, [qa, ka], k);
    const h = this._heap;
    h.refresh();
    return h.f64.slice(pe >>> 3, (pe >>> 3) + heads * n * m);
  },
};
