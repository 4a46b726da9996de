// The wasm heap as seen from JS: typed views that follow memory growth,
// malloc'd blocks that JS keeps track of, scratch buffers reused across calls,
// and heap-resident Float32 buffers for the zero-copy path.
import { SoftscopeError, STATUS } from './errors.js';
import { overflowsFloat32 } from './args.js';

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

const OWNER = Symbol('softscope.owner');

/**
 * A Float32 buffer living in the wasm heap. `.array` is a fresh view each time
 * it is read (memory growth detaches old views), so do not keep it across
 * softscope calls.
 */
export class HeapBuffer {
  constructor(heap, length, owner) {
    this.length = length;
    this._heap = heap;
    this[OWNER] = owner;
    this.ptr = heap.malloc(length * 4);
    this._freed = false;
  }

  /** Freed by free(), or gone with the wasm instance (ss.reset() or a trap). */
  get freed() {
    return this._freed || this._heap.closed === true;
  }

  get array() {
    if (this.freed)
      throw new SoftscopeError(`softscope: this buffer was freed${this._freed ? '' : ' (reset)'}`, STATUS.SS_ERR_NULL);
    this._heap.refresh();
    return new Float32Array(this._heap.memory.buffer, this.ptr, this.length);
  }

  /** Copy values in (a Float32Array, Float64Array or plain Array of
   *  numbers). A finite value beyond float32's range is an Error naming its
   *  index: it would be stored as +-Inf (and -Inf is a masked logit). */
  set(values, offset = 0) {
    if (!(values instanceof Float32Array)) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (overflowsFloat32(v))
          throw new SoftscopeError(`HeapBuffer.set: values[${i}] = ${v} overflows float32`, STATUS.SS_ERR_NONFINITE, { argument: 'values', index: i });
      }
    }
    this.array.set(values, offset);
    return this;
  }

  free() {
    if (this._freed) return;
    this._freed = true;
    this._heap.free(this.ptr);
  }
}

export function isHeapBufferOf(v, owner) {
  return v instanceof HeapBuffer && v[OWNER] === owner;
}
