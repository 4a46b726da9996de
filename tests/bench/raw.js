// softscope's wasm builds as the benchmark drives them: loaded through the
// package's public createSoftscope (so the bench runs what users load), then
// called through the module's raw C exports on buffers that already live in
// wasm memory -- the kernel's own time, no copies. The registry JSON comes
// from ss_registry_json; kernel descriptors from ss_kernel_find; parameters
// are written as doubles in registry order: nothing here reads the JS
// package's internals.
//
// Copy-free entry points the JS API does not offer yet (phase 2 of issue
// 18): ss.normalizeInto covers normalizers; samplers, quantizers,
// optimizers, measures and losses are called here through ss_sample,
// ss_quantize, ss_optimize, ss_measure and ss_loss directly.
//
// Engine-neutral (no Node module): `make bench` loads the builds from a
// directory, `make bench-browser` (browser/page.js) from a URL.
import { createSoftscope } from '../../wasm/api/index.js';

const BUILDS = { relaxed: 'softscope-relaxed.wasm', simd: 'softscope-simd.wasm', scalar: 'softscope-scalar.wasm' };

export class Build {
  constructor(label, ss) {
    this.label = label;
    this.ss = ss;
    this.ex = ss.exports;
    const len = this._scratchJson();
    this.registry = JSON.parse(len);
    this.impl = this.registry.enums.impl.indexOf(label === 'scalar' ? 'scalar' : 'simd');
    this.families = this.registry.enums.family;
    this._kernels = new Map();
  }

  /** dist: a directory (Node) or a URL (a page) holding the builds. */
  static async load(label, dist) {
    const wasm = `${String(dist).replace(/\/$/, '')}/${BUILDS[label]}`;
    const b = new Build(label, await createSoftscope({ impl: label, wasm }));
    b.fresh = () => createSoftscope({ impl: label, wasm }); // a new instance (its own memory: what a model needs)
    return b;
  }

  _scratchJson() {
    const lenPtr = this.malloc(8);
    this.ex.ss_registry_json(0, 0, lenPtr);
    const len = this.u32()[lenPtr >>> 2];
    const buf = this.malloc(len + 1);
    this.ex.ss_registry_json(buf, len + 1, lenPtr);
    return new TextDecoder().decode(new Uint8Array(this.ex.memory.buffer, buf, len));
  }

  malloc(bytes) {
    const p = this.ex.malloc(Math.max(bytes, 16)) >>> 0;
    if (!p) throw new Error(`${this.label}: malloc(${bytes}) failed`);
    return p;
  }
  free(p) { this.ex.free(p); }
  u32() { return new Uint32Array(this.ex.memory.buffer); }
  f32(ptr, n) { return new Float32Array(this.ex.memory.buffer, ptr, n); }
  f64(ptr, n) { return new Float64Array(this.ex.memory.buffer, ptr, n); }

  /** A float buffer of n values in wasm memory, 64-byte aligned (a cache
      line: malloc's 8- or 16-byte alignment lets a vector straddle two
      lines, and which buffer got which alignment moved kernels by 30%):
      { ptr, view() }. */
  floats(n, init) {
    const raw = this.malloc(4 * n + 64), ptr = (raw + 63) & ~63;
    const b = { ptr, n, view: () => this.f32(ptr, n), free: () => this.free(raw) };
    if (init) b.view().set(init);
    return b;
  }

  /** Allocations freed together: { malloc(bytes), free() }. */
  arena() {
    const ptrs = [];
    return {
      malloc: (bytes) => {
        const p = this.malloc(bytes);
        ptrs.push(p);
        return p;
      },
      free: () => { while (ptrs.length) this.free(ptrs.pop()); },
    };
  }

  /** The registry entry and descriptor pointer of a kernel. */
  kernel(name, family) {
    const keyName = `${family}/${name}`;
    let k = this._kernels.get(keyName);
    if (k) return k;
    const info = this.registry.kernels.find((e) => e.name === name && e.family === family);
    if (!info) return null;
    const bytes = new TextEncoder().encode(name + '\0');
    const s = this.malloc(bytes.length);
    new Uint8Array(this.ex.memory.buffer, s, bytes.length).set(bytes);
    const ptr = this.ex.ss_kernel_find(s, this.families.indexOf(family)) >>> 0;
    this.free(s);
    k = { info, ptr, impl: info.impls.includes('simd') && this.impl ? this.impl : 0 };
    this._kernels.set(keyName, k);
    return k;
  }

  /** Parameters (registry defaults, then `over` by name) written at ptr. */
  params(k, over, ptr) {
    const vals = k.info.params.map((p) => {
      const v = over[p.name] ?? p.default;
      return typeof v === 'string' ? p.choices.indexOf(v) : v;
    });
    this.f64(ptr, vals.length).set(vals);
    return { ptr, n: vals.length };
  }
}

export async function loadBuilds(dist, labels = Object.keys(BUILDS)) {
  const out = {};
  for (const l of labels) out[l] = await Build.load(l, dist);
  return out;
}

const check = (what, s) => {
  if (s !== 0) throw new Error(`${what}: status ${s}`);
};
// A call with its allocations: fn.free() releases them.
const withFree = (fn, a) => Object.assign(fn, { free: a.free });
const paramsIn = (b, a, k, over) => b.params(k, over, a.malloc(8 * Math.max(1, k.info.params.length)));

// ---- the raw calls, one per family --------------------------------------

/** ss_normalize on resident x, y. */
export function normalizeCall(b, name, over, x, y, n) {
  const k = b.kernel(name, 'normalizer'), a = b.arena();
  const p = paramsIn(b, a, k, over);
  const f = b.ex.ss_normalize;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, y.ptr));
  return withFree(() => f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, y.ptr), a);
}

/** ss_normalize_rows on a resident rows x n matrix (strides n), or null
    where the build has no rows entry point yet. */
export function normalizeRowsCall(b, name, over, x, y, rows, n) {
  const f = b.ex.ss_normalize_rows;
  if (!f) return null;
  const k = b.kernel(name, 'normalizer'), a = b.arena();
  const p = paramsIn(b, a, k, over), bad = a.malloc(8);
  check(`${b.label} ${name} rows`, f(k.ptr, k.impl, x.ptr, rows, n, n, p.ptr, p.n, y.ptr, n, bad));
  return withFree(() => f(k.ptr, k.impl, x.ptr, rows, n, n, p.ptr, p.n, y.ptr, n, bad), a);
}

/** ss_sample (one draw) on resident logits; probs and the index in wasm memory. */
export function sampleCall(b, name, over, x, probs, n) {
  const k = b.kernel(name, 'sampler'), a = b.arena();
  const p = paramsIn(b, a, k, { draws: 1, seed: 1, ...over });
  const idx = a.malloc(64), vec = k.info.draws === 'index' ? 0 : a.malloc(4 * n);
  const f = b.ex.ss_sample;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, probs.ptr, idx, vec));
  return withFree(() => f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, probs.ptr, idx, vec), a);
}

/** ss_sample_rows (batch decoding: row r draws with seed + r) on a resident
    rows x n matrix of logits (strides n); probs (rows x n) and the indices
    in wasm memory. null where the build has no ss_sample_rows. */
export function sampleRowsCall(b, name, over, x, probs, rows, n) {
  const f = b.ex.ss_sample_rows;
  if (!f) return null;
  const k = b.kernel(name, 'sampler'), a = b.arena();
  const p = paramsIn(b, a, k, { draws: 1, seed: 1, ...over });
  const draws = b.f64(p.ptr, p.n)[k.info.params.findIndex((q) => q.name === 'draws')] || 1;
  const idx = k.info.draws === 'vector' ? 0 : a.malloc(4 * rows * draws);
  const vec = k.info.draws === 'index' ? 0 : a.malloc(4 * rows * draws * n), bad = a.malloc(8);
  check(`${b.label} ${name} rows`, f(k.ptr, k.impl, x.ptr, rows, n, n, p.ptr, p.n, probs.ptr, n, idx, vec, bad));
  return withFree(() => f(k.ptr, k.impl, x.ptr, rows, n, n, p.ptr, p.n, probs.ptr, n, idx, vec, bad), a);
}

/** ss_quantize on resident x; codes and y in wasm memory. */
export function quantizeCall(b, name, over, x, y, n) {
  const k = b.kernel(name, 'quantizer'), a = b.arena();
  const p = paramsIn(b, a, k, over);
  const codes = a.malloc(4 * n), f = b.ex.ss_quantize;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, codes, y.ptr));
  return withFree(() => f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, codes, y.ptr), a);
}

/** ss_optimize: one step on resident w (updated in place), g and state. */
export function optimizeCall(b, name, over, w, g, n) {
  const k = b.kernel(name, 'optimizer'), a = b.arena();
  const p = paramsIn(b, a, k, over);
  const slots = a.malloc(4 * n * Math.max(1, k.info.state_slots)), scalars = a.malloc(8 * 4);
  new Uint8Array(b.ex.memory.buffer, slots, 4 * n * Math.max(1, k.info.state_slots)).fill(0);
  b.f64(scalars, 4).fill(0);
  const f = b.ex.ss_optimize;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, w.ptr, g.ptr, n, p.ptr, p.n, slots, scalars));
  return withFree(() => f(k.ptr, k.impl, w.ptr, g.ptr, n, p.ptr, p.n, slots, scalars), a);
}

/** ss_measure of resident p (and q for two-vector measures). */
export function measureCall(b, name, over, pbuf, qbuf, n) {
  const k = b.kernel(name, 'measure'), a = b.arena();
  const p = paramsIn(b, a, k, over);
  const out = a.malloc(8), f = b.ex.ss_measure, q = k.info.input === 'probs_pair' ? qbuf.ptr : 0;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, pbuf.ptr, q, n, p.ptr, p.n, out));
  return withFree(() => f(k.ptr, k.impl, pbuf.ptr, q, n, p.ptr, p.n, out), a);
}

/** ss_loss of resident logits; the gradient in wasm memory. */
export function lossCall(b, name, over, x, grad, n) {
  const k = b.kernel(name, 'loss'), a = b.arena();
  const p = paramsIn(b, a, k, over);
  const out = a.malloc(8), f = b.ex.ss_loss;
  check(`${b.label} ${name}`, f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, out, grad.ptr));
  return withFree(() => f(k.ptr, k.impl, x.ptr, n, p.ptr, p.n, out, grad.ptr), a);
}

/** ss_sparsemax_ex / ss_entmax15_ex with a threshold method ('select' | 'sort'). */
export function thresholdCall(b, name, method, x, y, n) {
  const m = b.registry.enums.threshold_method.indexOf(method);
  const f = name === 'sparsemax' ? b.ex.ss_sparsemax_ex : b.ex.ss_entmax15_ex;
  const impl = b.impl;
  check(`${b.label} ${name}@${method}`, f(impl, m, x.ptr, n, y.ptr, 0, 0));
  return Object.assign(() => f(impl, m, x.ptr, n, y.ptr, 0, 0), { free: () => {} });
}

/** ss_attend on resident Q, K, V (n x d each, one head, softmax normalizer):
   the ss_attention_io struct is 15 words on wasm32 (softscope.h). */
export function attendCall(b, name, over, q, k, v, n, d) {
  const kk = b.kernel(name, 'attention'), a = b.arena();
  const p = paramsIn(b, a, kk, over);
  const io = a.malloc(60), out = a.malloc(4 * n * d);
  const norm = b.kernel('softmax', 'normalizer');
  const words = [q.ptr, k.ptr, v.ptr, n, n, d, d, 1, 0, norm.ptr, 0, 0, out, 0, 0];
  b.u32().set(words, io >>> 2);
  const need = b.ex.ss_attention_scratch_size(kk.ptr, io, p.ptr) >>> 0;
  const scratch = a.malloc(4 * Math.max(4, need));
  b.u32()[(io >>> 2) + 14] = scratch;
  const f = b.ex.ss_attend;
  check(`${b.label} ${name}`, f(kk.ptr, kk.impl, io, p.ptr, p.n));
  return withFree(() => f(kk.ptr, kk.impl, io, p.ptr, p.n), a);
}

/** ss_linear (y = x W^T, no bias) on resident x (rows x in), w (out x in)
    and y (rows x out): the model's forward product, its entry point with
    the checks it makes (finite inputs, the overflow bound). */
export function linearCall(b, x, rows, inn, w, out, y) {
  const f = b.ex.ss_linear;
  check(`${b.label} ss_linear`, f(b.impl, x.ptr, rows, inn, w.ptr, 0, out, y.ptr));
  return Object.assign(() => f(b.impl, x.ptr, rows, inn, w.ptr, 0, out, y.ptr), { free: () => {} });
}

/** ss_linear_backward on resident x, w, dy: dw = dy^T x always, dx = dy W
    when dx is given (else NULL: dw alone), no db. */
export function linearBackwardCall(b, x, rows, inn, w, out, dy, dx, dw) {
  const f = b.ex.ss_linear_backward, pdx = dx ? dx.ptr : 0;
  check(`${b.label} ss_linear_backward`, f(b.impl, x.ptr, rows, inn, w.ptr, out, dy.ptr, pdx, dw.ptr, 0));
  return Object.assign(() => f(b.impl, x.ptr, rows, inn, w.ptr, out, dy.ptr, pdx, dw.ptr, 0), { free: () => {} });
}
