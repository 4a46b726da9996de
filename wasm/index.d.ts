// Types for the softscope JS API (wasm/index.js). The contract is JSAPI.

export type Impl = 'simd' | 'scalar';
export type Family = 'normalizer' | 'sampler' | 'optimizer' | 'quantizer' | 'measure' | 'loss';

/** One parameter of a kernel, as in the C registry (ss_param_info). */
export interface ParamInfo {
  name: string;
  type: 'float' | 'int' | 'bool';
  /** Bounds; null means unbounded on that side. */
  min: number | null;
  max: number | null;
  /** true: the bound itself is excluded. */
  min_open: boolean;
  max_open: boolean;
  default: number;
  /** Slider range for a UI. */
  ui_min: number | null;
  ui_max: number | null;
  log_scale: boolean;
  help: string;
}

/** A registry entry (frozen). */
export interface KernelInfo {
  name: string;
  family: Family;
  summary: string;
  formula: string;
  paper: string;
  /** What a measure reads; 'logits' for normalizers. */
  input: 'logits' | 'probs' | 'probs_pair';
  /** Normalizers only: what y is. */
  output?: 'probs' | 'log_probs' | 'weights';
  has_backward: boolean;
  /** Normalizers: whether normalizeParamBackward is available. */
  has_param_backward?: boolean;
  impls: Impl[];
  params: ParamInfo[];
}

/** Float32Array; a Float64Array is accepted and converted to float32. */
export type Vector = Float32Array | Float64Array | HeapBuffer;
export type Params = Record<string, number | boolean>;

/** A Float32 buffer resident in the wasm heap (see Softscope.alloc). */
export interface HeapBuffer {
  /** Byte address in the wasm memory. */
  readonly ptr: number;
  readonly length: number;
  /** A fresh view on each read; do not keep it across softscope calls (memory may grow). */
  readonly array: Float32Array;
  readonly freed: boolean;
  /** Copy values in; returns the buffer. */
  set(values: ArrayLike<number>, offset?: number): HeapBuffer;
  /** Give the memory back (idempotent). */
  free(): void;
}

export interface HeapStats {
  /** Blocks JS malloc'd and still holds (scratch buffers + live alloc() buffers). */
  liveAllocations: number;
  /** Their total size in bytes. */
  liveBytes: number;
  /** Size of the wasm memory (memory.buffer.byteLength). */
  heapBytes: number;
  /** Number of malloc calls made by JS since creation. */
  totalAllocations: number;
}

/** Online softmax state (Milakov & Gimelshein 2018): running max and sum of exp(x - max). */
export interface SoftmaxState {
  readonly max: number;
  readonly sum: number;
  update(x: Vector): SoftmaxState;
  merge(other: SoftmaxState): SoftmaxState;
  apply(x: Vector): Float32Array;
  /** Back to the empty state (max -Infinity, sum 0). */
  reset(): SoftmaxState;
}

export interface Softscope {
  /** Which build was loaded (or 'scalar' when requested on the SIMD build). */
  readonly impl: Impl;
  /** Whether the engine validates WebAssembly SIMD128. */
  readonly simdSupported: boolean;
  /** Library version from the registry, e.g. "0.1.0". */
  readonly version: string;
  /** SS_MAX_N, the largest accepted length. */
  readonly maxN: number;
  /** The raw wasm exports (C API), for advanced use. */
  readonly exports: WebAssembly.Exports;

  kernels(family?: Family): readonly KernelInfo[];
  /** Throws Error(`unknown kernel "x"; known: ...`). */
  kernel(name: string, family?: Family): KernelInfo;

  normalize(kernel: string, x: Vector, params?: Params): Float32Array;
  normalizeBackward(kernel: string, x: Vector, y: Vector, g: Vector, params?: Params): Float32Array;
  /** Gradient of sum_j g_j y_j w.r.t. each parameter (int / bool: 0), for kernels with has_param_backward. */
  normalizeParamBackward(kernel: string, x: Vector, y: Vector, g: Vector, params?: Params): Record<string, number>;
  /** Loss of logits x against params.target (a class index < x.length) and its gradient dL/dx. */
  loss(kernel: string, x: Vector, params?: Params): { loss: number; grad: Float32Array };
  /** For one-input measures the params may be passed in q's place. */
  measure(kernel: string, p: Vector, q?: Vector | null | Params, params?: Params): number;
  measureBackward(kernel: string, p: Vector, g?: number, params?: Params): Float32Array;

  softmaxTopk(x: Vector, k: number): { probs: Float32Array; indices: Uint32Array };
  softmaxState(): SoftmaxState;

  alloc(n: number): HeapBuffer;
  normalizeInto(kernel: string, x: HeapBuffer, y: HeapBuffer, params?: Params): HeapBuffer;
  heapStats(): HeapStats;
}

export interface CreateOptions {
  /** 'auto' (default): SIMD iff the engine validates a v128 module. */
  impl?: 'auto' | Impl;
  /** Override the module: bytes, URL, path (Node), compiled module, or one per build. */
  wasm?: WasmSource | { simd?: WasmSource; scalar?: WasmSource };
}
export type WasmSource = ArrayBuffer | ArrayBufferView | URL | string | WebAssembly.Module;

export function createSoftscope(options?: CreateOptions): Promise<Softscope>;
export default createSoftscope;
export function detectSimd(): boolean;

/** C status codes (enum ss_status). */
export const STATUS: Readonly<Record<string, number>>;
export function statusCode(status: number): string;

/** Thrown for C-status errors and range/name errors: `.status` and `.code` (e.g. 'SS_ERR_NAN'). */
export class SoftscopeError extends Error {
  status: number;
  code: string;
  /** The argument at fault, e.g. 'x', 'params.temperature'. */
  argument?: string;
  /** For data errors: the first offending index. */
  index?: number;
}
/** Thrown for a wrong argument type; `.status` null, `.code` 'SS_ERR_TYPE'. */
export class SoftscopeTypeError extends TypeError {
  status: null;
  code: 'SS_ERR_TYPE';
  argument?: string;
}
