// The wasm heap as seen from JS: typed views that follow memory growth,
// malloc'd blocks that JS keeps track of, scratch buffers reused across calls,
// and heap-resident Float32 buffers for the zero-copy path.
import { SoftscopeError, STATUS } from './errors.js';

/**
 * Owns every block JS mallocs, so heapStats() can say what is still held and
 * a loop of 10^5 calls can be checked for leaks.
 */
export class Heap {
  constructor(exports) {
    this.ex = exports;
    this.memory = exports.memory;
    this.live = new Map(); // ptr -> bytes
    this.totalAllocations = 0;
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
    this.ex.free(ptr);
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
 * Named scratch blocks reused by every call. A block only grows (to at least
 * twice its size, so a slowly growing n does not malloc every call); the old
 * block is freed when it does.
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
    const want = Math.max(bytes, s ? s.bytes * 2 : 64);
    if (s) this.heap.free(s.ptr);
    const ptr = this.heap.malloc(want);
    this.slots.set(name, { ptr, bytes: want });
    return ptr;
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
    this.freed = false;
  }

  get array() {
    if (this.freed) throw new SoftscopeError('softscope: this buffer was freed', STATUS.SS_ERR_NULL);
    this._heap.refresh();
    return new Float32Array(this._heap.memory.buffer, this.ptr, this.length);
  }

  /** Copy values in (a Float32Array, Float64Array or plain Array of numbers). */
  set(values, offset = 0) {
    this.array.set(values, offset);
    return this;
  }

  free() {
    if (this.freed) return;
    this.freed = true;
    this._heap.free(this.ptr);
  }
}

export function isHeapBufferOf(v, owner) {
  return v instanceof HeapBuffer && v[OWNER] === owner;
}
