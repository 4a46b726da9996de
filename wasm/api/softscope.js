// The API object: one loaded wasm build, its registry (read out of the
// module itself), the heap, and the helpers every family's calls share
// (kernel lookup, parameters, inputs, staging into the heap, errors). The
// calls themselves live in one file per family and are installed on the
// prototype below; `this` in them is a Softscope.
//
// Parameters are checked by the C library (ss_params_check_n, the same check
// every generic entry point runs); JavaScript only checks their JS types and
// names, and turns C's verdict into an Error that names the parameter.
import REGISTRY from '../dist/registry.js';
import { SoftscopeError, SoftscopeTypeError, SoftscopeTrapError, STATUS, statusCode, statusError, describe, fmt, rangeText } from './errors.js';
import { Heap, Scratch, HeapBuffer, isHeapBufferOf, MAX_BLOCK_BYTES } from './heap.js';
import { paramsOf } from './args.js';
import { viewOf, attached, typedName, typedLength, plainView } from './views.js';
import { normalizerCalls } from './normalizer.js';
import { measureCalls } from './measure.js';
import { samplerCalls } from './sampler.js';
import { quantizerCalls } from './quantizer.js';
import { optimizerCalls } from './optimizer.js';
import { attentionCalls } from './attention.js';
import { directCalls } from './direct.js';
import { adaroundCalls } from './adaround.js';

const FAMILIES = REGISTRY.enums.family;
const IMPLS = REGISTRY.enums.impl;

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

// A caller's Float32Array as _input found it: `raw` is the caller's object
// (read only through the intrinsics: its length here, %TypedArray%.prototype.set
// in _stage), `array` a plain view of its memory, made when first read.
class CallerArray {
  constructor(name, where, raw) {
    this.name = name;
    this.where = where;
    this.raw = raw;
    this.n = typedLength(raw);
    this._plain = null;
  }

  get array() {
    return (this._plain ??= plainView(this.raw, Float32Array));
  }
}

export class Softscope {
  constructor(ex, requested, supported = { simd: true, relaxed: false }, renew = null) {
    // what the engine validates (detectSimd, detectRelaxedSimd)
    this.simdSupported = supported.simd;
    this.relaxedSupported = supported.relaxed;
    this._renew = renew; // () => fresh exports of the same compiled module
    this._depth = 0; // nesting of public calls (scratch is trimmed at depth 0)
    this._attach(ex);
    const reg = this._readRegistry();
    this.version = reg.version;
    this.maxN = reg.max_n;
    // 2-D test functions and lr schedules of the optimizers (optimizer.js)
    this.functions = deepFreeze(reg.functions ?? []);
    this.schedules = deepFreeze(reg.enums.schedule ?? []);
    // The C enums, by value (families, impls, schedules, estimators, ...).
    this.enums = deepFreeze(reg.enums);
    // The model's struct layouts in this build (model.js).
    this._registry = deepFreeze({ model_structs: reg.model_structs ?? null });
    // Which build runs: 'relaxed' | 'simd' | 'scalar' (ss_build_name). The
    // relaxed build's impl is 'simd' too: there the kernels that state a
    // relaxed error bound use relaxed ops, all others plain SIMD128.
    const buildImpl = reg.impl_default;
    this.build = reg.build ?? buildImpl;
    if ((requested === 'simd' || requested === 'relaxed') && buildImpl !== 'simd')
      throw new SoftscopeError(`createSoftscope: impl '${requested}' requested but the loaded module is the scalar build`, STATUS.SS_ERR_UNSUPPORTED);
    if (requested === 'relaxed' && this.build !== 'relaxed')
      throw new SoftscopeError(`createSoftscope: impl 'relaxed' requested but the loaded module is the ${this.build} build`, STATUS.SS_ERR_UNSUPPORTED);
    this.impl = requested === 'scalar' ? 'scalar' : buildImpl;
    this._implId = IMPLS.indexOf(this.impl);

    this._list = [];
    this._byName = new Map(); // name -> [entry, ...] (one per family)
    for (const k of reg.kernels) {
      deepFreeze(k);
      this._list.push(k);
      if (!this._byName.has(k.name)) this._byName.set(k.name, []);
      this._byName.get(k.name).push(k);
    }
    Object.freeze(this._list);
    this._bind();
  }

  // Heap, scratch and exports of a (fresh) wasm instance.
  _attach(raw) {
    this.exports = raw;
    this._heap = new Heap(this.exports, this._heap?.totalAllocations ?? 0);
    this._scratch = new Scratch(this._heap);
  }

  // The registry descriptors (ss_kernel_info*) of the instance, checked
  // against the registry JSON, and the fixed scratch blocks.
  _bind() {
    const ex = this.exports;
    this._ptr = new Map(); // entry -> ss_kernel_info*
    const count = ex.ss_kernel_count() >>> 0;
    // The JSON and the descriptors must describe the same list in the same
    // order: the name is the descriptor's first field (a const char *).
    if (count !== this._list.length)
      throw new Error(`softscope: registry JSON lists ${this._list.length} kernels, ss_kernel_count() says ${count}`);
    this._list.forEach((k, i) => this._ptr.set(k, ex.ss_kernel_at(i) >>> 0));
    this._heap.refresh();
    for (const [k, ptr] of this._ptr) {
      const name = this._cString(this._heap.u32[ptr >>> 2]);
      if (name !== k.name) throw new Error(`softscope: descriptor ${ptr} is "${name}", the registry JSON says "${k.name}"`);
    }
    // Fixed scratch: parameters (doubles in registry order), one double out,
    // two online-softmax states. Allocated once, reused by every call.
    const maxParams = Math.max(1, ...this._list.map((k) => k.params.length));
    this._paramsPtr = this._scratch.get('params', maxParams * 8);
    this._outPtr = this._scratch.get('out', 8);
    this._statePtr = this._scratch.get('state', 32);
  }

  /** A fresh wasm instance of the same compiled module: the wasm memory
   *  (which can only grow) starts again at its initial size and the old one
   *  is left to the garbage collector. Every buffer from alloc() is freed
   *  with it. Returns this. */
  reset() {
    const raw = this._renew?.();
    if (!raw) throw new SoftscopeError('softscope.reset: not made by createSoftscope', STATUS.SS_ERR_UNSUPPORTED);
    this._heap.close();
    this._attach(raw);
    this._bind();
    return this;
  }

  // Run a public call; at the end of the outermost one, scratch blocks past
  // SCRATCH_KEEP_BYTES are given back (Scratch.trim). A trap inside wasm (a
  // WebAssembly.RuntimeError) leaves the C heap suspect (a kernel that wrote
  // out of bounds may have overwritten malloc's bookkeeping or another
  // buffer), so the instance is re-created before a SoftscopeTrapError is
  // thrown (should that fail, the error says to create a new instance).
  _call(fn, args, self = this) {
    this._depth++;
    try {
      return fn.apply(self, args);
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      let after = 'the instance was re-created (alloc() buffers freed)';
      try {
        this.reset();
      } catch (r) {
        after = `re-creating it failed (${r.message}): create a new instance`;
      }
      throw new SoftscopeTrapError(`softscope: wasm trapped in ${fn.name} (${e.message}); ${after}`, e);
    } finally {
      if (--this._depth === 0) this._scratch.trim();
    }
  }

  // count * size bytes of wasm memory for an argument: an Error naming it
  // when they cannot exist (past MAX_BLOCK_BYTES), before anything is allocated.
  _fits(count, size, argument, where) {
    const bytes = count * size;
    if (!(bytes <= MAX_BLOCK_BYTES))
      throw new SoftscopeError(`${where}: ${argument} = ${count} needs ${bytes} bytes; the wasm memory holds 2 GiB`, STATUS.SS_ERR_TOO_LARGE, { argument });
    return bytes;
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

  _lookup(name, family, where, arg = 'kernel') {
    if (name && typeof name === 'object') {
      const own = name.name; // read once: a getter may answer differently each time
      if (typeof own === 'string') name = own;
    }
    if (typeof name !== 'string')
      throw new SoftscopeTypeError(`${where}: ${arg} must be a kernel name string (got ${describe(name)})`, { argument: arg });
    if (family !== undefined && !FAMILIES.includes(family))
      throw new SoftscopeError(`${where}: unknown family ${describe(family)}; known: ${FAMILIES.join(', ')}`, STATUS.SS_ERR_FAMILY, { argument: 'family' });
    const hits = this._byName.get(name) ?? [];
    const hit = family === undefined ? hits[0] : hits.find((k) => k.family === family);
    if (hit) return hit;
    const known = (family === undefined ? this._list : this.kernels(family)).map((k) => k.name);
    // an option that names a kernel says which (options.normalizer: ...)
    const who = arg === 'kernel' ? '' : `${arg}: `;
    if (hits.length)
      throw new SoftscopeError(`${where}: ${who}"${name}" is a ${hits[0].family}, not a ${family}; ${family}s: ${known.join(', ') || '(none)'}`,
        STATUS.SS_ERR_FAMILY, { argument: arg });
    throw new SoftscopeError(`${where}: ${who}unknown kernel "${name}"; known: ${known.join(', ') || '(none)'}`,
      STATUS.SS_ERR_UNKNOWN_KERNEL, { argument: arg });
  }

  // The impl a kernel runs with: the loaded one, unless the kernel has no
  // version for it (then its scalar reference).
  _implFor(k) {
    return k.impls.includes(this.impl) ? this._implId : IMPLS.indexOf('scalar');
  }

  // Write params as doubles, in registry order with defaults, into the params
  // scratch block, and have the C library check them (ranges, integrality,
  // and with n the counts bounded by the length of x). JS checks only what C
  // cannot see: JS types and parameter names.
  _packParams(k, params, where, n, arg = 'params') {
    // A copy: every getter has run before the heap is written.
    params = paramsOf(params, where, arg);
    const spec = k.params;
    for (const key in params) {
      if (!spec.some((p) => p.name === key))
        throw new SoftscopeError(
          `${where}: unknown parameter ${arg}.${key}; ${spec.length ? `valid: ${spec.map((p) => p.name).join(', ')}` : `"${k.name}" takes no parameters`}`,
          STATUS.SS_ERR_PARAM_COUNT, { argument: `${arg}.${key}` });
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
          throw new SoftscopeError(`${where}: ${arg}.${p.name} = "${v}" is not one of ${p.choices.map((c) => `"${c}"`).join(', ')}`,
            STATUS.SS_ERR_PARAM_RANGE, { argument: `${arg}.${p.name}` });
        v = p.min + at;
      }
      if (typeof v !== 'number')
        throw new SoftscopeError(`${where}: ${arg}.${p.name} = ${describe(v)} is not a number; valid range ${rangeText(p)}`,
          STATUS.SS_ERR_PARAM_RANGE, { argument: `${arg}.${p.name}` });
      h.f64[base + i] = v;
    }
    const ptr = this._ptr.get(k);
    if (ptr !== undefined) {
      const nn = n === undefined ? 0 : n;
      const s = this.exports.ss_params_check_n(ptr, this._paramsPtr, spec.length, nn);
      if (s !== 0) throw this._paramError(k, where, s, nn, arg);
    }
    return spec.length;
  }

  // C's verdict on the packed params as an Error naming the parameter.
  _paramError(k, where, status, n = 0, arg = 'params') {
    const h = this._heap;
    h.refresh();
    const i = this.exports.ss_params_bad_index_n(this._ptr.get(k), this._paramsPtr, k.params.length, n);
    if (i < 0) return new SoftscopeError(`${where}: ${this._statusStr(status)} (${statusCode(status)})`, status, { argument: arg });
    const p = k.params[i], v = h.f64[(this._paramsPtr >>> 3) + i];
    const named = { argument: `${arg}.${p.name}` };
    if (status === STATUS.SS_ERR_LENGTH)
      return new SoftscopeError(`${where}: ${arg}.${p.name} = ${fmt(v)} must be ${p.n_bound === 'le' ? '<=' : '<'} ${n} (the length of x)`, status, named);
    const rule = !Number.isFinite(v) ? 'is not finite'
      : p.type === 'int' && v !== Math.floor(v) ? 'must be an integer in'
        : p.type === 'bool' ? 'must be true/false (or 0/1):' : 'is out of range';
    return new SoftscopeError(`${where}: ${arg}.${p.name} = ${fmt(v)} ${rule} ${rangeText(p)}`, status, named);
  }

  // A float32 input, or a heap buffer of this instance. Returns
  // { name, where, array, source, heap, n } where heap is the HeapBuffer if it
  // is one. Lengths are the typed arrays' own (internal slots, never a
  // `length` a subclass or a Proxy reports); array is a plain view of the
  // caller's memory (views.js), a copy when it views the wasm memory.
  _input(v, name, where) {
    if (isHeapBufferOf(v, this)) {
      if (v.freed) throw new SoftscopeError(`${where}: ${name} is a freed buffer`, STATUS.SS_ERR_NULL, { argument: name });
      return { name, where, array: null, heap: v, n: HeapBuffer.lengthOf(v) };
    }
    const wasm = this._heap.memory.buffer;
    if (typedName(v) === 'Float64Array') {
      const source = viewOf(v, Float64Array, name, where, wasm), n = source.length;
      // A finite value beyond float32's range would become +-Inf, and -Inf
      // is a masked logit: an error naming the index, not a silent mask.
      const a = new Float32Array(n);
      a.set(source);
      for (let i = 0; i < n; i++)
        if (!Number.isFinite(a[i]) && Number.isFinite(source[i]))
          throw new SoftscopeError(`${where}: ${name}[${i}] = ${source[i]} overflows float32 (|x| > 3.4e38; it would be read as ${source[i] < 0 ? '-' : '+'}Inf)`,
            STATUS.SS_ERR_NONFINITE, { argument: name, index: i });
      return { name, where, array: a, source, n };
    }
    // The fast path makes no view: _stage copies v by the intrinsic set
    // (internal slots); a plain view is made only if a call reads values.
    const array = viewOf(v, Float32Array, name, where, wasm, true);
    return array === v ? new CallerArray(name, where, v) : { name, where, array, n: array.length };
  }

  // The pointer of a heap input, checked now (after every getter of the
  // call's arguments ran: one may have freed it, or reset the instance).
  _heapPtr(a) {
    const ptr = HeapBuffer.check(a.heap, this._heap);
    if (ptr === null)
      throw new SoftscopeError(`${a.where}: ${a.name} is a freed buffer${a.heap.freed ? '' : ' (of a re-created instance)'}`,
        STATUS.SS_ERR_NULL, { argument: a.name });
    return ptr;
  }

  // What a call reads of an input: its values (a heap buffer: a view, checked live).
  _arrayOf(a) {
    if (!a?.heap) return a?.array;
    const ptr = this._heapPtr(a);
    this._heap.refresh();
    return new Float32Array(this._heap.memory.buffer, ptr, a.n);
  }

  // Inputs that must hold finite values only (no mask, no NaN), for direct
  // calls whose C function does not check them: an Error naming the
  // argument and the first bad index, with C's status for that rule.
  _requireFinite(inputs, where) {
    for (const a of inputs) {
      const array = this._arrayOf(a);
      if (!array.every(Number.isFinite))
        throw statusError(where, array.some(Number.isNaN) ? STATUS.SS_ERR_NAN : STATUS.SS_ERR_NONFINITE, [{ ...a, array }]);
    }
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
  // All slots are reserved first (malloc may grow memory), then the inputs
  // are checked (a heap buffer still live, a caller's array still attached:
  // every getter of the call has run by now), then filled.
  _stage(inputs) {
    const ptrs = inputs.map((a, i) => (a.heap ? 0 : this._scratch.get(`in${i}`, a.n * 4)));
    inputs.forEach((a, i) => {
      if (a.heap) ptrs[i] = this._heapPtr(a);
      else attached(a.raw ?? a.array, a.n, a.name, a.where);
    });
    const h = this._heap;
    h.refresh();
    inputs.forEach((a, i) => { if (!a.heap) h.f32.set(a.raw ?? a.array, ptrs[i] >>> 2); });
    return ptrs;
  }

  _fail(where, status, inputs, k, n) {
    const h = this._heap;
    h.refresh();
    // The arrays as the C code saw them (heap buffers: their current contents).
    const args = inputs.map((a) => ({ ...a, array: this._arrayOf(a) }));
    switch (status) {
      case STATUS.SS_ERR_PARAM_RANGE:
        if (k && this._ptr.has(k)) return this._paramError(k, where, status);
        break; // a direct call: no registry parameters
      case STATUS.SS_ERR_UNSUPPORTED:
        return new SoftscopeError(`${where}: no ${this.impl} implementation of "${k?.name ?? where}" in this build`, status);
      case STATUS.SS_ERR_NO_BACKWARD:
        return new SoftscopeError(`${where}: "${k.name}" has no backward pass`, status);
      case STATUS.SS_ERR_EMPTY: {
        const a = args.find((v) => v.name === 'x' || v.name === 'p') ?? args[0];
        return new SoftscopeError(`${where}: ${a.name} is empty (length 0)`, status, { argument: a.name });
      }
      case STATUS.SS_ERR_TOO_LARGE:
        // within maxN: the kernel's own limit, the registry's max_n (e.g. adaround's registry form keeps its state on the stack)
        return new SoftscopeError(args[0].n > this.maxN ? `${where}: ${args[0].name} has length ${args[0].n} > maxN (${this.maxN})`
          : `${where}: ${args[0].name} has length ${args[0].n}, more than ${k ? `"${k.name}"` : 'this call'} takes${k?.family === 'quantizer' ? ' in its registry form' : ''} (${k?.max_n < this.maxN ? `n <= ${k.max_n}, ` : ''}a limit of its own, below maxN)`,
        status, { argument: args[0].name });
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

  /** null when params are valid for the kernel (at input length n, when given),
   *  else the Error a call with them would throw (checked by C). */
  checkParams(kernel, params, n) {
    const k = this._lookup(kernel, undefined, 'softscope.checkParams');
    try {
      this._packParams(k, params, `softscope.checkParams("${k.name}")`, n);
      return null;
    } catch (e) {
      return e;
    }
  }

  /** A Float32 buffer of n values in the wasm heap (free it with .free()). */
  alloc(n) {
    if (!Number.isInteger(n) || n < 1 || n > this.maxN)
      throw new SoftscopeError(`softscope.alloc: n = ${describe(n)} must be an integer in [1, ${this.maxN}]`, STATUS.SS_ERR_LENGTH, { argument: 'n' });
    return new HeapBuffer(this._heap, n, this);
  }

  /** { liveAllocations, liveBytes, scratchBytes, heapBytes, totalAllocations }. */
  heapStats() {
    return { ...this._heap.stats(), scratchBytes: this._scratch.bytes() };
  }
}

// The family calls; the public ones run through _call (scratch trimming).
for (const calls of [normalizerCalls, measureCalls, samplerCalls, quantizerCalls, optimizerCalls, attentionCalls, directCalls, adaroundCalls]) {
  for (const [name, fn] of Object.entries(calls)) {
    Softscope.prototype[name] = name.startsWith('_') ? fn : function call(...args) { return this._call(fn, args); };
  }
}
