// softscope — the JS package entry (ES module). Loads one of the two wasm
// builds (SIMD128 or scalar), reads the kernel registry out of it, and wraps
// the generic C entry points (ss_normalize, ss_normalize_vjp, ss_measure,
// ss_measure_vjp, the online-softmax state and the fused top-k) with argument
// checks whose errors name the argument. The contract is /JSAPI (see
// index.d.ts for the types).
//
// Works unchanged in Node 20 (bytes read with fs) and in a browser / Vite app
// (bytes fetched); the two `new URL('./dist/...', import.meta.url)` literals
// below are static so Vite turns them into assets.
import { SoftscopeError, SoftscopeTypeError, STATUS, statusCode, statusError, describe, fmt, rangeText } from './errors.js';
import { Heap, Scratch, HeapBuffer, isHeapBufferOf } from './heap.js';
import { detectSimd } from './simd-detect.js';
import { directCalls } from './direct-calls.js';
import { samplerCalls } from './sampler-calls.js';
import { quantCalls } from './quant-calls.js';
import { optimCalls } from './optim-calls.js';
import { attentionCalls } from './attention-calls.js';

export { detectSimd, SoftscopeError, SoftscopeTypeError, STATUS, statusCode };
// The dispersion sweep (one planted key among n - 1 distractors, n up to
// 2^20), shared by the CLI and the playground: see dispersion.js.
export {
  dispersionSweep, dispersionSteps, dispersionGrid, dispersionInput,
  DISPERSION_N_MAX, DISPERSION_DEFAULTS, DISTRACTOR_KINDS, KEY_POSITIONS,
} from './dispersion.js';

const SIMD_URL = new URL('./dist/softscope-simd.wasm', import.meta.url);
const SCALAR_URL = new URL('./dist/softscope-scalar.wasm', import.meta.url);

const IMPL_ID = { scalar: 0, simd: 1 };
const isNode = typeof process !== 'undefined' && !!process.versions?.node;

// ---- loading ---------------------------------------------------------------

const moduleCache = new Map(); // href -> Promise<WebAssembly.Module>

async function readUrl(url) {
  if (url.protocol === 'file:' && isNode) {
    // A variable specifier keeps bundlers from trying to resolve a Node
    // builtin for the browser; this branch only runs under Node.
    const fsName = 'node:fs/promises';
    const fs = await import(/* @vite-ignore */ fsName);
    return fs.readFile(url);
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`softscope: cannot fetch ${url.href} (HTTP ${res.status})`);
  return res.arrayBuffer();
}

function toUrl(v) {
  if (v instanceof URL) return v;
  if (typeof v === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(v) && !/^[a-z]:[\\/]/i.test(v)) return new URL(v);
    if (isNode) {
      // A filesystem path, relative to the working directory.
      const abs = v.startsWith('/') ? v : `${process.cwd()}/${v}`;
      return new URL(`file://${abs.split('/').map(encodeURIComponent).join('/')}`);
    }
    return new URL(v, globalThis.location?.href);
  }
  return null;
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  const url = toUrl(source);
  if (!url) throw new SoftscopeTypeError(`createSoftscope: options.wasm must be bytes, a URL or a WebAssembly.Module (got ${describe(source)})`);
  let p = moduleCache.get(url.href);
  if (!p) {
    p = readUrl(url).then((bytes) => WebAssembly.compile(bytes));
    moduleCache.set(url.href, p);
    p.catch(() => moduleCache.delete(url.href));
  }
  return p;
}

// The reactor module imports env.emscripten_notify_memory_growth and, depending
// on what libc pulls in, a few WASI preview1 functions. Only fd_write does
// anything (stdout/stderr to the console, for debug prints from C); the rest
// report ENOSYS, and proc_exit throws since a library must never exit.
function makeImports(module, getMemory) {
  const ENOSYS = 52;
  const dec = new TextDecoder();
  const pending = { 1: '', 2: '' };
  const wasi = {
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      const mem = new DataView(getMemory().buffer);
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = mem.getUint32(iovs + 8 * i, true), len = mem.getUint32(iovs + 8 * i + 4, true);
        pending[fd] = (pending[fd] ?? '') + dec.decode(new Uint8Array(getMemory().buffer, ptr, len));
        n += len;
      }
      const lines = pending[fd].split('\n');
      pending[fd] = lines.pop();
      for (const l of lines) (fd === 2 ? console.error : console.log)(l);
      mem.setUint32(nwrittenPtr, n, true);
      return 0;
    },
    proc_exit(code) {
      throw new Error(`softscope: the wasm module called exit(${code})`);
    },
  };
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') continue;
    const ns = (imports[imp.module] ??= {});
    if (imp.module === 'env' && imp.name === 'emscripten_notify_memory_growth') ns[imp.name] = () => {};
    else if (imp.module === 'wasi_snapshot_preview1' && wasi[imp.name]) ns[imp.name] = wasi[imp.name];
    else ns[imp.name] = () => ENOSYS;
  }
  return imports;
}

/**
 * Load softscope. options.impl: 'auto' (SIMD iff the engine validates a
 * SIMD128 module), 'simd' or 'scalar'. options.wasm overrides the module:
 * bytes, a URL, a path (Node), a WebAssembly.Module, or { simd, scalar } with
 * one of those per build.
 */
export async function createSoftscope(options = {}) {
  if (options === null || typeof options !== 'object')
    throw new SoftscopeTypeError(`createSoftscope: options must be an object (got ${describe(options)})`);
  const impl = options.impl ?? 'auto';
  if (!['auto', 'simd', 'scalar'].includes(impl))
    throw new SoftscopeError(`createSoftscope: options.impl must be 'auto', 'simd' or 'scalar' (got ${describe(impl)})`, STATUS.SS_ERR_UNSUPPORTED);
  const simdSupported = detectSimd();
  if (impl === 'simd' && !simdSupported)
    throw new SoftscopeError("createSoftscope: impl 'simd' requested but this engine does not support WebAssembly SIMD128 (use impl 'auto' or 'scalar')", STATUS.SS_ERR_UNSUPPORTED);
  const wantSimd = impl === 'simd' || (impl === 'auto' && simdSupported);

  let source = options.wasm;
  if (source && typeof source === 'object' && !(source instanceof URL) && !(source instanceof WebAssembly.Module) &&
      !(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source))
    source = wantSimd ? source.simd : source.scalar;
  if (source == null) source = wantSimd ? SIMD_URL : SCALAR_URL;

  const module = await compile(source);
  let memory = null;
  const instance = await WebAssembly.instantiate(module, makeImports(module, () => memory));
  const ex = instance.exports;
  memory = ex.memory;
  if (typeof ex._initialize === 'function') ex._initialize();
  return new Softscope(ex, impl, simdSupported);
}

// ---- the API object ----------------------------------------------------------

const FAMILIES = ['normalizer', 'sampler', 'optimizer', 'quantizer', 'measure', 'loss', 'attention'];

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

class Softscope {
  constructor(ex, requested, simdSupported) {
    this.exports = ex;
    this.simdSupported = simdSupported;
    this._heap = new Heap(ex);
    this._scratch = new Scratch(this._heap);
    const reg = this._readRegistry();
    this.version = reg.version;
    this.maxN = reg.max_n;
    // 2-D test functions and lr schedules of the optimizers (optim-calls.js)
    this.functions = deepFreeze(reg.functions ?? []);
    this.schedules = deepFreeze(reg.schedules ?? []);
    // What the build holds: the SIMD build says impl_default "simd".
    const buildImpl = reg.impl_default;
    if (requested === 'simd' && buildImpl !== 'simd')
      throw new SoftscopeError("createSoftscope: impl 'simd' requested but the loaded module is the scalar build", STATUS.SS_ERR_UNSUPPORTED);
    this.impl = requested === 'scalar' ? 'scalar' : buildImpl;
    this._implId = IMPL_ID[this.impl];

    this._list = [];
    this._byName = new Map(); // name -> [entry, ...] (one per family)
    this._ptr = new Map(); // entry -> ss_kernel_info*
    const count = ex.ss_kernel_count() >>> 0;
    reg.kernels.forEach((k, i) => {
      deepFreeze(k);
      this._list.push(k);
      if (!this._byName.has(k.name)) this._byName.set(k.name, []);
      this._byName.get(k.name).push(k);
      if (i < count) this._ptr.set(k, ex.ss_kernel_at(i) >>> 0);
    });
    // The JSON and the descriptors must describe the same list in the same
    // order: the name is the descriptor's first field (a const char *).
    if (count !== reg.kernels.length)
      throw new Error(`softscope: registry JSON lists ${reg.kernels.length} kernels, ss_kernel_count() says ${count}`);
    this._heap.refresh();
    for (const [k, ptr] of this._ptr) {
      const name = this._cString(this._heap.u32[ptr >>> 2]);
      if (name !== k.name) throw new Error(`softscope: descriptor ${ptr} is "${name}", the registry JSON says "${k.name}"`);
    }
    Object.freeze(this._list);

    // Fixed scratch: parameters (doubles in registry order), one double out,
    // two online-softmax states. Allocated once, reused by every call.
    const maxParams = Math.max(1, ...this._list.map((k) => k.params.length));
    this._paramsPtr = this._scratch.get('params', maxParams * 8);
    this._outPtr = this._scratch.get('out', 8);
    this._statePtr = this._scratch.get('state', 32);
  }

  _readRegistry() {
    const h = this._heap, ex = this.exports;
    const lenPtr = h.malloc(4);
    try {
      ex.ss_registry_json(0, 0, lenPtr);
      h.refresh();
      const len = h.u32[lenPtr >>> 2];
      const buf = h.malloc(len + 1);
      try {
        const s = ex.ss_registry_json(buf, len + 1, lenPtr);
        if (s !== 0) throw new SoftscopeError(`softscope: ss_registry_json failed (${statusCode(s)})`, s);
        h.refresh();
        return JSON.parse(new TextDecoder().decode(h.u8.subarray(buf, buf + len)));
      } finally {
        h.free(buf);
      }
    } finally {
      h.free(lenPtr);
    }
  }

  /** Registry entries, optionally of one family ('normalizer', 'measure', ...). */
  kernels(family) {
    if (family === undefined) return this._list;
    if (!FAMILIES.includes(family))
      throw new SoftscopeError(`softscope.kernels: unknown family ${describe(family)}; known: ${FAMILIES.join(', ')}`, STATUS.SS_ERR_FAMILY);
    return this._list.filter((k) => k.family === family);
  }

  /** One registry entry by name (within a family if given). */
  kernel(name, family) {
    return this._lookup(name, family, 'softscope.kernel');
  }

  _lookup(name, family, where) {
    if (name && typeof name === 'object' && typeof name.name === 'string') name = name.name;
    if (typeof name !== 'string')
      throw new SoftscopeTypeError(`${where}: kernel must be a kernel name string (got ${describe(name)})`, { argument: 'kernel' });
    if (family !== undefined && !FAMILIES.includes(family))
      throw new SoftscopeError(`${where}: unknown family ${describe(family)}; known: ${FAMILIES.join(', ')}`, STATUS.SS_ERR_FAMILY, { argument: 'family' });
    const hits = this._byName.get(name) ?? [];
    const hit = family === undefined ? hits[0] : hits.find((k) => k.family === family);
    if (hit) return hit;
    const known = (family === undefined ? this._list : this.kernels(family)).map((k) => k.name);
    if (hits.length)
      throw new SoftscopeError(`${where}: "${name}" is a ${hits[0].family}, not a ${family}; ${family}s: ${known.join(', ') || '(none)'}`,
        STATUS.SS_ERR_FAMILY, { argument: 'kernel' });
    throw new SoftscopeError(`${where}: unknown kernel "${name}"; known: ${known.join(', ') || '(none)'}`,
      STATUS.SS_ERR_UNKNOWN_KERNEL, { argument: 'kernel' });
  }

  // The impl a kernel runs with: the loaded one, unless the kernel has no
  // version for it (then its scalar reference).
  _implFor(k) {
    return k.impls.includes(this.impl) ? this._implId : IMPL_ID.scalar;
  }

  // Check params against the registry and write them as doubles, in registry
  // order with defaults, into the params scratch block.
  _packParams(k, params, where, n) {
    if (params === undefined || params === null) params = {};
    if (typeof params !== 'object' || Array.isArray(params) || ArrayBuffer.isView(params))
      throw new SoftscopeTypeError(`${where}: params must be an object like { name: value } (got ${describe(params)})`, { argument: 'params' });
    const spec = k.params;
    for (const key in params) {
      if (!Object.prototype.hasOwnProperty.call(params, key)) continue;
      if (!spec.some((p) => p.name === key))
        throw new SoftscopeError(
          `${where}: unknown parameter params.${key}; ${spec.length ? `valid: ${spec.map((p) => p.name).join(', ')}` : `"${k.name}" takes no parameters`}`,
          STATUS.SS_ERR_PARAM_COUNT, { argument: `params.${key}` });
    }
    const h = this._heap;
    h.refresh();
    const base = this._paramsPtr >>> 3;
    for (let i = 0; i < spec.length; i++) {
      const p = spec[i];
      let v = params[p.name];
      if (v === undefined) v = p.default;
      if (typeof v === 'boolean' && p.type === 'bool') v = v ? 1 : 0;
      // A named choice (uniform's rounding: 'nearest' | 'stochastic') is the
      // integer min + its position in the registry's list.
      if (typeof v === 'string' && p.choices) {
        const at = p.choices.indexOf(v);
        if (at < 0)
          throw new SoftscopeError(`${where}: params.${p.name} = "${v}" is not one of ${p.choices.map((c) => `"${c}"`).join(', ')}`,
            STATUS.SS_ERR_PARAM_RANGE, { argument: `params.${p.name}` });
        v = p.min + at;
      }
      const bad = (rule) => new SoftscopeError(`${where}: params.${p.name} = ${typeof v === 'number' ? fmt(v) : describe(v)} ${rule}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: `params.${p.name}` });
      if (typeof v !== 'number') throw bad(`is not a number; valid range ${rangeText(p)}`);
      if (!Number.isFinite(v)) throw bad(`is not finite; valid range ${rangeText(p)}`);
      const lo = p.min ?? -Infinity, hi = p.max ?? Infinity;
      if ((p.min_open ? !(v > lo) : !(v >= lo)) || (p.max_open ? !(v < hi) : !(v <= hi)))
        throw bad(`is out of range ${rangeText(p)}`);
      if (p.type === 'int' && !Number.isInteger(v)) throw bad(`must be an integer in ${rangeText(p)}`);
      if (p.type === 'bool' && v !== 0 && v !== 1) throw bad('must be true/false (or 0/1)');
      // Counts and indices into x (top-k's k, a loss target): bounded by n too.
      if (n !== undefined && n > 0 && (p.n_bound === 'le' ? v > n : p.n_bound === 'lt' ? v >= n : false))
        throw new SoftscopeError(`${where}: params.${p.name} = ${fmt(v)} must be ${p.n_bound === 'le' ? '<=' : '<'} ${n} (the length of x)`,
          STATUS.SS_ERR_LENGTH, { argument: `params.${p.name}` });
      h.f64[base + i] = v;
    }
    return spec.length;
  }

  // A float32 input, or a heap buffer of this instance. Returns
  // { name, array, source, heap } where heap is the HeapBuffer if it is one.
  _input(v, name, where) {
    if (isHeapBufferOf(v, this)) {
      if (v.freed) throw new SoftscopeError(`${where}: ${name} is a freed buffer`, STATUS.SS_ERR_NULL, { argument: name });
      return { name, array: null, heap: v, n: v.length };
    }
    if (v instanceof Float32Array) return { name, array: v, n: v.length };
    if (v instanceof Float64Array) return { name, array: Float32Array.from(v), source: v, n: v.length };
    throw new SoftscopeTypeError(
      `${where}: ${name} must be a Float32Array (got ${describe(v)})${Array.isArray(v) ? `; use Float32Array.from(${name})` : ''}`,
      { argument: name });
  }

  _checkN(a, where) {
    if (a.n > this.maxN)
      throw new SoftscopeError(`${where}: ${a.name} has length ${a.n} > maxN (${this.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: a.name });
  }

  _sameLength(a, b, where) {
    if (a.n !== b.n)
      throw new SoftscopeError(`${where}: ${b.name} has length ${b.n} but ${a.name} has length ${a.n}; they must match`,
        STATUS.SS_ERR_LENGTH, { argument: b.name });
  }

  // Copy the non-heap inputs into scratch slots; returns their pointers.
  // All slots are reserved first (malloc may grow memory), then filled.
  _stage(inputs) {
    const ptrs = inputs.map((a, i) => (a.heap ? a.heap.ptr : this._scratch.get(`in${i}`, a.n * 4)));
    const h = this._heap;
    h.refresh();
    inputs.forEach((a, i) => { if (!a.heap) h.f32.set(a.array, ptrs[i] >>> 2); });
    return ptrs;
  }

  _fail(where, status, inputs, k) {
    const h = this._heap;
    h.refresh();
    // The arrays as the C code saw them (heap buffers: their current contents).
    const args = inputs.map((a) => ({ ...a, array: a.heap ? a.heap.array : a.array }));
    switch (status) {
      case STATUS.SS_ERR_PARAM_RANGE: {
        if (!k) break; // a direct call: no registry parameters
        const i = this.exports.ss_params_bad_index(this._ptr.get(k), this._paramsPtr, k.params.length);
        if (i >= 0) {
          const p = k.params[i];
          return new SoftscopeError(`${where}: params.${p.name} = ${fmt(h.f64[(this._paramsPtr >>> 3) + i])} is out of range ${rangeText(p)}`,
            status, { argument: `params.${p.name}` });
        }
        break;
      }
      case STATUS.SS_ERR_UNSUPPORTED:
        return new SoftscopeError(`${where}: no ${this.impl} implementation of "${k?.name ?? where}" in this build`, status);
      case STATUS.SS_ERR_NO_BACKWARD:
        return new SoftscopeError(`${where}: "${k.name}" has no backward pass`, status);
      case STATUS.SS_ERR_EMPTY: {
        const a = args.find((v) => v.name === 'x' || v.name === 'p') ?? args[0];
        return new SoftscopeError(`${where}: ${a.name} is empty (length 0)`, status, { argument: a.name });
      }
      case STATUS.SS_ERR_TOO_LARGE:
        return new SoftscopeError(`${where}: ${args[0].name} has length ${args[0].n} > maxN (${this.maxN})`, status, { argument: args[0].name });
      default:
    }
    return statusError(where, status, args, this._statusStr(status));
  }

  _cString(p) {
    const h = this._heap;
    h.refresh();
    let e = p;
    while (h.u8[e] !== 0) e++;
    return new TextDecoder().decode(h.u8.subarray(p, e));
  }

  _statusStr(status) {
    return this._cString(this.exports.ss_status_str(status) >>> 0);
  }

  _need(name, where) {
    const f = this.exports[name];
    if (typeof f !== 'function')
      throw new SoftscopeError(`${where}: this wasm build does not export ${name} (rebuild with \`make wasm\`)`, STATUS.SS_ERR_UNSUPPORTED);
    return f;
  }

  // ---- normalizers ----

  /** y = kernel(x; params), a new Float32Array. */
  normalize(kernel, x, params = {}) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalize');
    const where = `softscope.normalize("${k.name}")`;
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const np = this._packParams(k, params, where, xa.n);
    const [px] = this._stage([xa]);
    const py = this._scratch.get('out0', xa.n * 4);
    const s = this.exports.ss_normalize(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, py);
    if (s !== 0) throw this._fail(where, s, [xa], k);
    this._heap.refresh();
    return this._heap.f32.slice(py >>> 2, (py >>> 2) + xa.n);
  }

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
  }

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
  }

  // ---- losses ----

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
  }

  // ---- samplers ----

  /** Run a sampler: { probs, indices, samples, draws, n }.
   *  probs: the distribution the draws come from (Float32Array, length n; for
   *  vector samplers the mean of one draw); indices: Uint32Array of the drawn
   *  indices (index and relaxed samplers, else null); samples: Float32Array of
   *  draws * n values, draw d at [d*n, (d+1)*n) (relaxed and vector samplers,
   *  else null). params.seed and params.draws as in the registry. */
  sample(kernel, x, params = {}) {
    const k = this._lookup(kernel, 'sampler', 'softscope.sample');
    const where = `softscope.sample("${k.name}")`;
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const np = this._packParams(k, params, where, xa.n);
    const draws = this._drawsParam(k);
    const vectors = k.draws !== 'index', indexed = k.draws !== 'vector';
    this._checkDraws(k, draws, xa.n, where);
    const [px] = this._stage([xa]);
    const pp = this._scratch.get('out0', xa.n * 4);
    const pi = indexed ? this._scratch.get('draws', Math.max(1, draws) * 4) : 0;
    const ps = vectors ? this._scratch.get('samples', Math.max(1, draws * xa.n) * 4) : 0;
    const s = this._need('ss_sample', where)(this._ptr.get(k), this._implFor(k), px, xa.n, this._paramsPtr, np, pp, pi, ps);
    if (s !== 0) throw this._fail(where, s, [xa], k);
    const h = this._heap;
    h.refresh();
    return {
      probs: h.f32.slice(pp >>> 2, (pp >>> 2) + xa.n),
      indices: indexed ? h.u32.slice(pi >>> 2, (pi >>> 2) + draws) : null,
      samples: vectors ? h.f32.slice(ps >>> 2, (ps >>> 2) + draws * xa.n) : null,
      draws,
      n: xa.n,
    };
  }

  /** A quantizer: { output: the dequantized values, codes: the integer codes
   *  (Int32Array; fp8: the 8-bit patterns) }. x must be finite. */
  quantize(kernel, x, params = {}) {
    const k = this._lookup(kernel, 'quantizer', 'softscope.quantize');
    const where = `softscope.quantize("${k.name}")`;
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    const np = this._packParams(k, params, where, xa.n);
    const group = params && typeof params === 'object' ? params.group : undefined;
    if (typeof group === 'number' && group > 0 && xa.n % group !== 0)
      throw new SoftscopeError(`${where}: params.group = ${group} must divide n = ${xa.n} (or be 0: one group)`,
        STATUS.SS_ERR_LENGTH, { argument: 'params.group' });
    if (k.name === 'vq') {
      const dim = params?.dim ?? 1, K = params?.codebook ?? k.params[0].default;
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
  }

  /** Codes (Int32Array, e.g. quantize().codes) packed `bits` (8, 4 or 2)
   *  each, lowest bits first: a Uint8Array of ceil(n bits / 8) bytes.
   *  options.signed: two's complement codes (symmetric quantizers). */
  pack(codes, bits, options = {}) {
    const where = 'softscope.pack';
    if (!(codes instanceof Int32Array))
      throw new SoftscopeTypeError(`${where}: codes must be an Int32Array (got ${describe(codes)})`, { argument: 'codes' });
    if (![2, 4, 8].includes(bits))
      throw new SoftscopeError(`${where}: bits = ${describe(bits)} must be 2, 4 or 8`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'bits' });
    const n = codes.length, signed = !!options.signed;
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
  }

  /** The inverse of pack(): n codes of `bits` each from the bytes. */
  unpack(bytes, n, bits, options = {}) {
    const where = 'softscope.unpack';
    if (!(bytes instanceof Uint8Array))
      throw new SoftscopeTypeError(`${where}: bytes must be a Uint8Array (got ${describe(bytes)})`, { argument: 'bytes' });
    if (![2, 4, 8].includes(bits))
      throw new SoftscopeError(`${where}: bits = ${describe(bits)} must be 2, 4 or 8`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'bits' });
    if (!Number.isInteger(n) || n < 1 || Math.ceil((n * bits) / 8) > bytes.length)
      throw new SoftscopeError(`${where}: n = ${describe(n)} codes of ${bits} bits need ${Math.ceil((n * bits) / 8)} bytes; got ${bytes.length}`,
        STATUS.SS_ERR_LENGTH, { argument: 'n' });
    const pb = this._scratch.get('in0', bytes.length), pc = this._scratch.get('out0', n * 4);
    const h = this._heap;
    h.refresh();
    h.u8.set(bytes, pb);
    const st = this._need('ss_unpack', where)(pb, n, bits, options.signed ? 1 : 0, pc);
    if (st !== 0) throw new SoftscopeError(`${where}: ${this._statusStr(st)}`, st);
    h.refresh();
    return h.i32.slice(pc >>> 2, (pc >>> 2) + n);
  }

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
  }

  // The packed `draws` parameter of a sampler (after _packParams).
  _drawsParam(k) {
    const i = k.params.findIndex((p) => p.name === 'draws');
    return i < 0 ? 0 : this._heap.f64[(this._paramsPtr >>> 3) + i];
  }

  _checkDraws(k, draws, n, where) {
    if (k.draws !== 'index' && draws * n > this.maxN)
      throw new SoftscopeError(`${where}: params.draws * n = ${draws} * ${n} vector entries exceed maxN (${this.maxN})`,
        STATUS.SS_ERR_TOO_LARGE, { argument: 'params.draws' });
  }

  // ---- measures ----

  /** A scalar of p (and q for two-input measures). May be Infinity. */
  measure(kernel, p, q, params = {}) {
    const k = this._lookup(kernel, 'measure', 'softscope.measure');
    const where = `softscope.measure("${k.name}")`;
    const pair = k.input === 'probs_pair';
    // measure('renyi_entropy', p, { alpha: 2 }): params in q's place.
    if (!pair && q && typeof q === 'object' && !ArrayBuffer.isView(q) && !isHeapBufferOf(q, this) && !Array.isArray(q)) {
      params = q;
      q = undefined;
    }
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
    const np = this._packParams(k, params, where);
    const [pp, pq] = this._stage(inputs);
    const s = this.exports.ss_measure(this._ptr.get(k), this._implFor(k), pp, pair ? pq : 0, pa.n, this._paramsPtr, np, this._outPtr);
    if (s !== 0) throw this._fail(where, s, inputs, k);
    this._heap.refresh();
    return this._heap.f64[this._outPtr >>> 3];
  }

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
    if (s !== 0) throw this._fail(where, s, [pa], k);
    this._heap.refresh();
    return this._heap.f32.slice(pdp >>> 2, (pdp >>> 2) + pa.n);
  }

  // ---- fused and streaming softmax ----

  /** The k largest probabilities of softmax(x), descending, and their indices. */
  softmaxTopk(x, k) {
    const where = 'softscope.softmaxTopk';
    const fn = this._need('ss_softmax_topk', where);
    const xa = this._input(x, 'x', where);
    this._checkN(xa, where);
    if (typeof k !== 'number' || !Number.isInteger(k))
      throw new SoftscopeTypeError(`${where}: k must be an integer (got ${describe(k)})`, { argument: 'k' });
    if (xa.n > 0 && (k < 1 || k > xa.n))
      throw new SoftscopeError(`${where}: k = ${k} must be in [1, ${xa.n}] (the length of x)`, STATUS.SS_ERR_LENGTH, { argument: 'k' });
    const [px] = this._stage([xa]);
    const pp = this._scratch.get('out0', Math.max(k, 1) * 4);
    const pi = this._scratch.get('out1', Math.max(k, 1) * 4);
    const s = fn(this._implId, px, xa.n, k, pp, pi);
    if (s !== 0) throw this._fail(where, s, [xa], { name: 'softmax', params: [] });
    const h = this._heap;
    h.refresh();
    return { probs: h.f32.slice(pp >>> 2, (pp >>> 2) + k), indices: h.u32.slice(pi >>> 2, (pi >>> 2) + k) };
  }

  /** An online-softmax state (max, sum) over a stream of chunks. */
  softmaxState() {
    return new SoftmaxState(this);
  }

  // ---- zero-copy ----

  /** A Float32 buffer of n values in the wasm heap (free it with .free()). */
  alloc(n) {
    if (!Number.isInteger(n) || n < 1 || n > this.maxN)
      throw new SoftscopeError(`softscope.alloc: n = ${describe(n)} must be an integer in [1, ${this.maxN}]`, STATUS.SS_ERR_LENGTH, { argument: 'n' });
    return new HeapBuffer(this._heap, n, this);
  }

  /** y = kernel(x) with x, y heap buffers from alloc(): no copy, no allocation. */
  normalizeInto(kernel, x, y, params = {}) {
    const k = this._lookup(kernel, 'normalizer', 'softscope.normalizeInto');
    const where = `softscope.normalizeInto("${k.name}")`;
    for (const [v, name] of [[x, 'x'], [y, 'y']])
      if (!isHeapBufferOf(v, this))
        throw new SoftscopeTypeError(`${where}: ${name} must be a buffer from this instance's alloc(n) (got ${describe(v)})`, { argument: name });
    const xa = this._input(x, 'x', where), ya = this._input(y, 'y', where);
    this._sameLength(xa, ya, where);
    if (x === y) throw new SoftscopeError(`${where}: y must be a different buffer from x`, STATUS.SS_ERR_BUFFER, { argument: 'y' });
    const np = this._packParams(k, params, where, xa.n);
    const s = this.exports.ss_normalize(this._ptr.get(k), this._implFor(k), x.ptr, xa.n, this._paramsPtr, np, y.ptr);
    if (s !== 0) throw this._fail(where, s, [xa], k);
    return y;
  }

  /** { liveAllocations, liveBytes, heapBytes, totalAllocations }. */
  heapStats() {
    return this._heap.stats();
  }
}

// The ss_softmax_state struct on wasm32: float max at 0, double sum at 8.
const STATE_BYTES = 16;

class SoftmaxState {
  constructor(ss) {
    this._ss = ss;
    const init = ss._need('ss_softmax_state_init', 'softscope.softmaxState');
    this._init = init;
    this.reset();
  }

  /** The running maximum (-Infinity before any finite logit). */
  get max() { return this._max; }
  /** sum_i exp(x_i - max) over everything seen. */
  get sum() { return this._sum; }

  /** Back to the empty state. Returns this. */
  reset() {
    this._init(this._ss._statePtr);
    this._read(this._ss._statePtr);
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
      const a = xa.heap ? xa.heap.array : xa.array;
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

// threshold, entmaxSolve, maskedSoftmax, vqSoftmax, boltzmann (direct-calls.js);
// the samplers' direct calls (sampler-calls.js); vqTrain, vqAssign, vqBackward (quant-calls.js)
Object.assign(Softscope.prototype, directCalls, samplerCalls, quantCalls, optimCalls, attentionCalls);

export default createSoftscope;
