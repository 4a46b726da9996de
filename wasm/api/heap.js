// The wasm heap as seen from JS: typed views that follow memory growth,
// malloc'd blocks that JS keeps track of, scratch buffers reused across calls,
// and heap-resident Float32 buffers for the zero-copy path.
import { SoftscopeError, STATUS, describe } from './errors.js';
import { overflowsFloat32 } from './args.js';
import { typedName, typedLength, viewOf } from './views.js';

/** The largest block JS asks malloc for. The wasm memory of these builds is
 *  at most 2 GiB (MAXIMUM_MEMORY in the Makefile) and malloc's size_t is 32
 *  bits (2^32 bytes would wrap to 0): a byte count past this is refused
 *  before malloc is called. */
export const MAX_BLOCK_BYTES = 2 ** 31 - 1;

/** A scratch block larger than this is given back (freed, so malloc can
 *  reuse it) at the end of the call that needed it; smaller ones are kept
 *  for the next call. */
export const SCRATCH_KEEP_BYTES = 8 * 2 ** 20;

/**
 * Owns every block JS mallocs, so heapStats() can say what is still held and
 * a loop of 10^5 calls can be checked for leaks.
 */
export class Heap {
  constructor(exports, totalAllocations = 0) {
    this.ex = exports;
    this.memory = exports.memory;
    this.live = new Map(); // ptr -> bytes
    this.totalAllocations = totalAllocations; // carried over when the instance is re-created
    this.closed = false;
    this._buf = null;
    this.refresh();
  }

  // malloc may grow memory, which detaches every view on the old buffer:
  // views are re-created whenever memory.buffer is no longer the one they see.
  refresh() {
    const b = this.memory.buffer;
    if (b === this._buf) return;
    this._buf = b;
    this.u8 = new Uint8Array(b);
    this.u32 = new Uint32Array(b);
    this.i32 = new Int32Array(b);
    this.f32 = new Float32Array(b);
    this.f64 = new Float64Array(b);
  }

  malloc(bytes) {
    if (this.closed || !Number.isSafeInteger(bytes) || bytes < 0 || bytes > MAX_BLOCK_BYTES)
      throw new SoftscopeError(`softscope: no block of ${bytes} bytes${this.closed ? ' in a re-created instance' : ''}`, STATUS.SS_ERR_TOO_LARGE);
    const ptr = this.ex.malloc(Math.max(bytes, 8)) >>> 0;
    if (ptr === 0) throw new SoftscopeError(`softscope: out of wasm memory (malloc of ${bytes} bytes failed)`, STATUS.SS_ERR_TOO_LARGE);
    this.live.set(ptr, bytes);
    this.totalAllocations++;
    this.refresh();
    return ptr;
  }

  free(ptr) {
    if (!this.live.has(ptr)) return;
    this.live.delete(ptr);
    if (!this.closed) this.ex.free(ptr);
  }

  /** The instance this heap lives in is gone (re-created): every block with it. */
  close() {
    this.closed = true;
    this.live.clear();
  }

  stats() {
    let liveBytes = 0;
    for (const b of this.live.values()) liveBytes += b;
    return {
      liveAllocations: this.live.size,
      liveBytes,
      heapBytes: this.memory.buffer.byteLength,
      totalAllocations: this.totalAllocations,
    };
  }
}

/**
 * Named scratch blocks reused by every call. A block grows (to at least
 * twice its size, so a slowly growing n does not malloc every call; the old
 * block is freed first), and one past SCRATCH_KEEP_BYTES is freed by trim()
 * at the end of the call, so one large call does not keep its memory
 * reserved.
 */
export class Scratch {
  constructor(heap) {
    this.heap = heap;
    this.slots = new Map(); // name -> { ptr, bytes }
  }

  /** A pointer to at least `bytes` bytes (8-aligned, as malloc guarantees). */
  get(name, bytes) {
    const s = this.slots.get(name);
    if (s && s.bytes >= bytes) return s.ptr;
    const want = Math.min(Math.max(bytes, s ? s.bytes * 2 : 64), Math.max(bytes, SCRATCH_KEEP_BYTES));
    if (s) {
      // Forget the slot before malloc: if malloc fails, no slot may point
      // at the freed block.
      this.slots.delete(name);
      this.heap.free(s.ptr);
    }
    const ptr = this.heap.malloc(want);
    this.slots.set(name, { ptr, bytes: want });
    return ptr;
  }

  /** Free the blocks larger than SCRATCH_KEEP_BYTES (the end of a call). */
  trim() {
    for (const [name, s] of this.slots) {
      if (s.bytes <= SCRATCH_KEEP_BYTES) continue;
      this.slots.delete(name);
      this.heap.free(s.ptr);
    }
  }

  /** Total bytes held by the scratch blocks. */
  bytes() {
    let b = 0;
    for (const s of this.slots.values()) b += s.bytes;
    return b;
  }
}

/**
 * A Float32 buffer living in the wasm heap. `.array` is a fresh view each time
 * it is read (memory growth detaches old views), so do not keep it across
 * softscope calls. The pointer and the length live in private fields: `.ptr`
 * and `.length` are read-only (the instance is frozen, so no own property can
 * shadow them), and calls read the fields themselves (HeapBuffer.check).
 */
export class HeapBuffer {
  #heap;
  #owner;
  #ptr;
  #length;
  #freed = false;

  constructor(heap, length, owner) {
    this.#heap = heap;
    this.#owner = owner;
    this.#length = length;
    this.#ptr = heap.malloc(length * 4);
    Object.freeze(this);
  }

  /** Byte address in the wasm memory. */
  get ptr() { return this.#ptr; }

  get length() { return this.#length; }

  /** Freed by free(), or gone with the wasm instance (ss.reset() or a trap). */
  get freed() {
    return this.#freed || this.#heap.closed === true;
  }

  get array() {
    if (this.freed)
      throw new SoftscopeError(`softscope: this buffer was freed${this.#freed ? '' : ' (reset)'}`, STATUS.SS_ERR_NULL);
    this.#heap.refresh();
    return new Float32Array(this.#heap.memory.buffer, this.#ptr, this.#length);
  }

  /** Copy values in (a Float32Array, Float64Array or plain Array of
   *  numbers). A finite value beyond float32's range is an Error naming its
   *  index: it would be stored as +-Inf (and -Inf is a masked logit). The
   *  values are read (once each) before the heap is written. */
  set(values, offset = 0) {
    const where = 'HeapBuffer.set';
    if (!Number.isInteger(offset) || offset < 0 || offset > this.#length)
      throw new SoftscopeError(`${where}: offset = ${describe(offset)} must be an integer in [0, ${this.#length}]`, STATUS.SS_ERR_LENGTH, { argument: 'offset' });
    let src;
    if (typedName(values) === 'Float32Array') {
      src = viewOf(values, Float32Array, 'values', where, this.#heap.memory.buffer);
    } else {
      const n = typedName(values) === undefined ? Number(values?.length) : typedLength(values);
      if (!Number.isSafeInteger(n) || n < 0 || n > this.#length - offset)
        throw new SoftscopeError(`${where}: values.length = ${describe(n)} does not fit ${this.#length - offset} floats from offset ${offset}`,
          STATUS.SS_ERR_LENGTH, { argument: 'values' });
      src = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (overflowsFloat32(v))
          throw new SoftscopeError(`${where}: values[${i}] = ${v} overflows float32`, STATUS.SS_ERR_NONFINITE, { argument: 'values', index: i });
        src[i] = v;
      }
    }
    const n = typedLength(src);
    if (n > this.#length - offset)
      throw new SoftscopeError(`${where}: values.length = ${n} does not fit ${this.#length - offset} floats from offset ${offset}`,
        STATUS.SS_ERR_LENGTH, { argument: 'values' });
    this.array.set(src, offset);
    return this;
  }

  free() {
    if (this.#freed) return;
    this.#freed = true;
    this.#heap.free(this.#ptr);
  }

  /** v is a HeapBuffer made by `owner`'s alloc() (freed or not). */
  static isOf(v, owner) {
    return v !== null && typeof v === 'object' && #ptr in v && v.#owner === owner;
  }

  /** The length of a buffer isOf() accepted. */
  static lengthOf(v) {
    return v.#length;
  }

  /** The pointer of a buffer isOf() accepted, if it is live in `heap` (not
   *  freed, not from an instance that was re-created): else null. Called
   *  just before the pointer goes to C, after every caller's getter ran. */
  static check(v, heap) {
    if (v.#freed || v.#heap !== heap || heap.closed || heap.live.get(v.#ptr) !== v.#length * 4) return null;
    return v.#ptr;
  }
}

export function isHeapBufferOf(v, owner) {
  return HeapBuffer.isOf(v, owner);
}
