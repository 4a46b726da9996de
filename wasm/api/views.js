// Typed arrays from callers, read without running their code. A caller's
// array can be a subclass or an object with its own `length`, a Proxy, a
// view of a resizable or growable buffer, or a detached one: its size is read
// with the %TypedArray%.prototype getters (the engine's internal slots, never
// the object's own `length`), and the call works on a plain view of the same
// memory, so nothing the caller defines runs while the heap is written.
// Resizable, growable-shared and detached buffers are refused with an Error
// naming the argument; a view of the wasm memory itself (buf.array) is
// copied, since the memory can grow (and detach it) during the call.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';

const TypedArray = Object.getPrototypeOf(Int8Array);
const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key)?.get;
const TAG = getter(TypedArray.prototype, Symbol.toStringTag);
const LENGTH = getter(TypedArray.prototype, 'length');
const BYTE_OFFSET = getter(TypedArray.prototype, 'byteOffset');
const BUFFER = getter(TypedArray.prototype, 'buffer');
const AB_BYTES = getter(ArrayBuffer.prototype, 'byteLength');
// (engines without resizable buffers have no such getter, and no such buffers)
const AB_RESIZABLE = getter(ArrayBuffer.prototype, 'resizable');
const AB_DETACHED = getter(ArrayBuffer.prototype, 'detached');
const SAB_GROWABLE = typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'growable') : undefined;

const call = (fn, self) => (fn ? Reflect.apply(fn, self, []) : undefined);

/** The typed array's name ('Float32Array', ...) from its internal slot; undefined for
 *  anything else (a Proxy, an object made from Float32Array.prototype, a DataView). */
export function typedName(v) {
  return call(TAG, v);
}

/** The length of a typed array (its internal slot; 0 when detached). */
export function typedLength(v) {
  return call(LENGTH, v);
}

/** The typed array's buffer (its internal slot). */
export function typedBuffer(v) {
  return call(BUFFER, v);
}

function isDetached(buffer) {
  if (AB_DETACHED) {
    try { return call(AB_DETACHED, buffer); } catch { return false; } // a SharedArrayBuffer cannot be detached
  }
  try {
    if (call(AB_BYTES, buffer) !== 0) return false;
  } catch {
    return false;
  }
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

// 'a resizable ArrayBuffer' | 'a growable SharedArrayBuffer' | null. An
// ArrayBuffer's getter answers without throwing (the common case costs no
// exception); a SharedArrayBuffer's is asked only when that one throws.
function growth(buffer) {
  try {
    return call(AB_RESIZABLE, buffer) ? 'a resizable ArrayBuffer' : null;
  } catch { /* a SharedArrayBuffer */ }
  try {
    return call(SAB_GROWABLE, buffer) ? 'a growable SharedArrayBuffer' : null;
  } catch {
    return null;
  }
}

function detachedError(name, where) {
  return new SoftscopeError(`${where}: ${name} is detached (its ArrayBuffer was transferred, or it was a view of the wasm memory, ` +
    'which grew since: read buf.array again after each softscope call)', STATUS.SS_ERR_BUFFER, { argument: name });
}

/**
 * v, which must be a `Type` (Float32Array, Uint8Array, ...), as a plain
 * `Type` over the same memory (or a copy, when it views `wasmBuffer`, the
 * wasm memory). Anything else is a SoftscopeTypeError naming `name`; a
 * resizable, growable or detached buffer a SoftscopeError (SS_ERR_BUFFER).
 * With `asIs`, v itself once checked (no view made: for a caller that only
 * reads it through the intrinsics, see plainView), unless it was copied.
 */
export function viewOf(v, Type, name, where, wasmBuffer, asIs = false) {
  if (typedName(v) !== Type.name) {
    const a = /^Int/.test(Type.name) ? 'an' : 'a';
    const fake = v instanceof Type ? `an object that is not a ${Type.name} although it claims to be (a Proxy, or made from ${Type.name}.prototype)` : describe(v);
    throw new SoftscopeTypeError(`${where}: ${name} must be ${a} ${Type.name} (got ${fake})${Array.isArray(v) ? `; use ${Type.name}.from(${name})` : ''}`,
      { argument: name });
  }
  const buffer = call(BUFFER, v);
  const grows = growth(buffer);
  if (grows)
    throw new SoftscopeError(`${where}: ${name} is a view of ${grows}, whose size can change during the call: pass a fixed-length copy (${name}.slice())`,
      STATUS.SS_ERR_BUFFER, { argument: name });
  const n = call(LENGTH, v);
  if (n === 0 && isDetached(buffer)) throw detachedError(name, where);
  if (buffer === wasmBuffer) return new Type(buffer, call(BYTE_OFFSET, v), n).slice();
  return asIs ? v : new Type(buffer, call(BYTE_OFFSET, v), n);
}

/** A plain `Type` over the memory of a typed array viewOf accepted. */
export function plainView(v, Type) {
  return new Type(call(BUFFER, v), call(BYTE_OFFSET, v), call(LENGTH, v));
}

/** A view from viewOf still holds its n values (a caller may have detached
 *  its buffer since, e.g. from a params getter): else an Error naming it. */
export function attached(view, n, name, where) {
  if (call(LENGTH, view) !== n) throw detachedError(name, where);
  return view;
}
