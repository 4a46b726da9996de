// Types for the softscope JS API (wasm/api/index.js). Kernel names and each
// kernel's parameter names are literal unions generated from the C registry
// at build time (wasm/dist/registry.d.ts), so a misspelt kernel or parameter
// fails `tsc --strict`.
import type {
  NormalizerName, SamplerName, OptimizerName, QuantizerName, MeasureName, LossName, AttentionName, KernelName,
  KernelEstimateName, KernelParams, Family as RegistryFamily, Schedule as ScheduleName, Estimator, ThresholdMethod, EntmaxSolver, StatusCode,
  TestFunctionName,
} from '../dist/registry.js';

export type { NormalizerName, SamplerName, OptimizerName, QuantizerName, MeasureName, LossName, AttentionName, KernelName, KernelEstimateName, StatusCode, TestFunctionName };

/** The parameters of kernel K of family F, by name (all optional: defaults from the registry). */
export type ParamsOf<F extends RegistryFamily, K> = K extends keyof KernelParams[F] ? KernelParams[F][K] : never;
/** The kernel names of family F (of each family, for a union). */
export type NameOf<F extends RegistryFamily> = F extends RegistryFamily ? keyof KernelParams[F] & string : never;

export type Impl = 'simd' | 'scalar';
/** A wasm build: relaxed SIMD (clang-19), SIMD128 or scalar. */
export type Build = 'relaxed' | 'simd' | 'scalar';
export type Family = RegistryFamily;

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
  /** Also bounded by the input length n: 'le' value <= n (a count), 'lt' value < n (an index). */
  n_bound?: 'le' | 'lt';
  /** int parameters naming a choice: the names of min, min + 1, ..., max (e.g. rounding: ['nearest', 'stochastic']); the API accepts the name. */
  choices?: string[];
}

/** A registry entry (frozen); N: its name (ss.kernels('optimizer') gives KernelInfo<OptimizerName>). */
export interface KernelInfo<N extends string = string> {
  name: N;
  family: Family;
  summary: string;
  formula: string;
  paper: string;
  /** What a measure or sampler reads; 'logits' for normalizers ('values':
   *  a sampler-stated domain, e.g. dirichlet's concentrations). */
  input: 'logits' | 'probs' | 'probs_pair' | 'values';
  /** Normalizers only: what y is. */
  output?: 'probs' | 'log_probs' | 'weights';
  /** Samplers only: what one draw is. */
  draws?: DrawKind;
  has_backward: boolean;
  /** Normalizers: whether normalizeParamBackward is available. */
  has_param_backward?: boolean;
  /** Normalizers: whether y may be x itself (the C call writes over its input; normalize() then stages one buffer, not two). */
  in_place?: boolean;
  /** What a kernel is for beyond its family: a decoding stage (samplers), exact or linear attention. */
  role?: 'decode_stage' | 'exact_attention' | 'linear_attention';
  /** Decoding stages: position in the pipeline and the stage's own parameter. */
  stage?: number;
  stage_param?: string;
  /** Attention: whether the kernel has random features (attentionKernelEstimate). */
  kernel_estimate?: boolean;
  /** Quantizers: what x may hold ('nonnegative': a negative value is an
   *  Error with code SS_ERR_DOMAIN, e.g. pow2, log_quant). */
  domain?: 'real' | 'nonnegative';
  /** Quantizers: a cast's largest finite value, to which x / scale saturates
   *  (fp8_e4m3: 448, fp8_e5m2: 57344); null for a quantizer that is not a cast. */
  cast_max?: number | null;
  impls: Impl[];
  /** The longest input a call takes: maxN, or a limit of the kernel's own
   *  below it (adaround's registry form: 8192). */
  max_n: number;
  params: ParamInfo[];
}

/** Float32Array; a Float64Array is accepted and converted to float32. Its
 *  length is the typed array's own (a subclass's or an own `length` is not
 *  read). A Proxy is not a typed array (a TypeError naming the argument); a
 *  view of a resizable ArrayBuffer, a growable SharedArrayBuffer or a
 *  detached buffer is an Error naming it (code SS_ERR_BUFFER): pass a
 *  fixed-length copy (x.slice()). A view of the wasm memory (buf.array) is
 *  copied in; pass the HeapBuffer itself for the zero-copy path. */
export type Vector = Float32Array | Float64Array | HeapBuffer;
export type Params = Record<string, number | boolean | string>;

/** A Float32 buffer resident in the wasm heap (see Softscope.alloc). */
export interface HeapBuffer {
  /** Byte address in the wasm memory. Read-only at run time too (a private
   *  field behind a getter; the instance is frozen): calls never trust a copy. */
  readonly ptr: number;
  /** Number of floats (read-only, as ptr). */
  readonly length: number;
  /** A fresh view on each read; do not keep it across softscope calls (memory may grow). */
  readonly array: Float32Array;
  readonly freed: boolean;
  /** Copy values in (each read once, before the heap is written); an Error
   *  naming values when they do not fit from offset; returns the buffer. */
  set(values: ArrayLike<number>, offset?: number): HeapBuffer;
  /** Give the memory back (idempotent). */
  free(): void;
}

export interface HeapStats {
  /** Blocks JS malloc'd and still holds (scratch buffers + live alloc() buffers). */
  liveAllocations: number;
  /** Their total size in bytes. */
  liveBytes: number;
  /** Bytes of those held as scratch between calls (a block past 8 MiB is freed at the end of its call). */
  scratchBytes: number;
  /** Size of the wasm memory (memory.buffer.byteLength); it only grows, reset() starts it again. */
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
  /** The C impl the calls run: 'simd' on the relaxed and SIMD builds (or
   *  'scalar' when requested there), 'scalar' on the scalar build. */
  readonly impl: Impl;
  /** Which wasm build runs (e.g. for a badge): 'relaxed' | 'simd' | 'scalar'. */
  readonly build: Build;
  /** Whether the engine validates WebAssembly SIMD128. */
  readonly simdSupported: boolean;
  /** Whether the engine validates WebAssembly relaxed SIMD (Node 20: after
   *  impl 'relaxed' turned on --experimental-wasm-relaxed-simd). */
  readonly relaxedSupported: boolean;
  /** Library version from the registry, e.g. "0.1.0". */
  readonly version: string;
  /** SS_MAX_N, the largest accepted length. */
  readonly maxN: number;
  /** The raw wasm exports (C API), for advanced use. */
  readonly exports: WebAssembly.Exports;

  kernels<F extends Family>(family: F): readonly KernelInfo<NameOf<F>>[];
  kernels(family?: Family): readonly KernelInfo<KernelName>[];
  /** Throws Error(`unknown kernel "x"; known: ...`). */
  kernel<K extends KernelName>(name: K, family?: Family): KernelInfo<K>;
  /** null when params are valid for the kernel (at input length n), else the Error a call would throw (checked by C). */
  checkParams(kernel: KernelName, params?: Params, n?: number): Error | null;
  /** The C enums by value: family, impl, schedule, threshold_method, entmax_solver, estimator. */
  readonly enums: Readonly<Record<string, readonly string[]>>;

  /** y = kernel(x; params). options.rows: x is rows × n (row-major), each row normalized on its own in one call;
   *  an error in row r has `.row` = r and a message "row r: ...". options.out: the caller's Float32Array of
   *  exactly x.length, written and returned instead of a new array (it may be x itself). */
  normalize<K extends NormalizerName>(kernel: K, x: Vector, params?: ParamsOf<'normalizer', K>, options?: RowsOptions<Float32Array>): Float32Array;
  normalizeBackward<K extends NormalizerName>(kernel: K, x: Vector, y: Vector, g: Vector, params?: ParamsOf<'normalizer', K>): Float32Array;
  /** Gradient of sum_j g_j y_j w.r.t. each parameter (int / bool: 0), for kernels with has_param_backward. */
  normalizeParamBackward<K extends NormalizerName>(kernel: K, x: Vector, y: Vector, g: Vector, params?: ParamsOf<'normalizer', K>): Record<string, number>;
  /** sparsemax / entmax15 by threshold method: the output, its threshold tau (x/2 scale for entmax15) and the support size. */
  threshold(kernel: 'sparsemax' | 'entmax15', x: Vector, options?: { method?: ThresholdMethod }): { y: Float32Array; tau: number; support: number };
  /** alpha-entmax with an explicit stopping rule (|sum y - 1| <= tol or maxIter passes); reports the iterations made. */
  entmaxSolve(x: Vector, options?: { alpha?: number; solver?: EntmaxSolver; tol?: number; maxIter?: number }): { y: Float32Array; tau: number; iterations: number };
  /** Softmax over the entries with keep[i] != 0; the others are exactly 0. */
  maskedSoftmax(x: Vector, keep: Uint8Array): Float32Array;
  /** VQ-Logits: softmax of the tied logits z[codes[v]], v < codes.length, with exps over z only. */
  vqSoftmax(z: Vector, codes: Uint32Array): Float32Array;
  /** The Boltzmann operator sum_i x_i softmax(b x)_i (soft maximum for b > 0, mean at b = 0). */
  boltzmann(x: Vector, b?: number): number;
  /** Loss of logits x against params.target (a class index < x.length) and its gradient dL/dx. */
  loss<K extends LossName>(kernel: K, x: Vector, params?: ParamsOf<'loss', K>): { loss: number; grad: Float32Array };
  /** Run a sampler (params.seed, params.draws and the kernel's own). options.rows: batch decoding, x is rows × n and
   *  row r draws with params.seed + r (bit for bit the single call on that row with that seed, in every build). */
  sample<K extends SamplerName>(kernel: K, x: Vector, params?: ParamsOf<'sampler', K>, options?: { rows?: number }): SampleResult;
  /** d/dx sum_d <g_d, sample_d>, g of length draws * n (relaxed / straight-through samplers). */
  sampleBackward<K extends SamplerName>(kernel: K, x: Vector, g: Vector, params?: ParamsOf<'sampler', K>): Float32Array;
  /** n uniforms in (0, 1): numbers first.. of the Philox stream (seed, stream). */
  uniform(n: number, options?: StreamOptions): Float32Array;
  normal(n: number, options?: StreamOptions): Float32Array;
  gumbel(n: number, options?: StreamOptions): Float32Array;
  /** Draws from non-negative weights (normalized by their sum). */
  categorical(w: Vector, options?: StreamOptions & { draws?: number }): Uint32Array;
  /** A quantizer: dequantized values and integer codes. */
  quantize<K extends QuantizerName>(kernel: K, x: Vector, params?: ParamsOf<'quantizer', K>): { output: Float32Array; codes: Int32Array };
  /** AdaRound of a layer w (rows x cols) on calibration inputs X (options.x, cols x batch) or inputs drawn as the
   *  registry form draws them (batch, seed, corr): W~, the codes, nearest rounding's codes, both reconstruction errors. */
  adaround(w: Vector, options?: AdaRoundOptions): AdaRoundResult;
  /** The registry form's calibration inputs (cols x batch, row-major) drawn under options.seed with options.corr,
   *  by C (ss_adaround_inputs): the very inputs ss.quantize('adaround', ...) learns on. */
  adaroundInputs(cols: number, batch: number, options?: { seed?: number; corr?: number }): Float32Array;
  /** 2-D test functions of the optimizers and the lr schedules. */
  readonly functions: readonly TestFunction[];
  readonly schedules: readonly Schedule[];
  /** Zeroed optimizer state for n parameters (scalars[0]: steps taken). */
  optimizerState<K extends OptimizerName>(kernel: K, n: number): OptimizerState;
  /** One optimizer step: updates w and state in place, returns w. */
  optimize<K extends OptimizerName>(kernel: K, w: Float32Array, g: Vector, params: ParamsOf<'optimizer', K> | undefined, state: OptimizerState): Float32Array;
  /** SAM's ascent point w + rho g / |g|. */
  samPerturb(w: Vector, g: Vector, rho?: number): Float32Array;
  /** f(x, y) and its gradient (games: the descent field). */
  evalFunction(fn: TestFunctionName, x: number, y: number): { f: number; grad: [number, number] };
  /** f on an nx by ny grid (row j = y_j) over view [x0, x1, y0, y1]. */
  functionGrid(fn: TestFunctionName, options?: { nx?: number; ny?: number; view?: [number, number, number, number] }): Float32Array;
  /** A whole optimizer run on a test function, taken in slices: its memory is that of the points kept.
   *  every (default 1): output keeps steps 0, every, 2 every, ... and the last step taken; metrics are over every step. */
  trajectory<K extends OptimizerName>(options: TrajectoryOptions<K> & { every?: number }): TrajectoryResult<K>;
  /** A run advanced on demand (the playground's animation). */
  trajectoryRunner<K extends OptimizerName>(options: TrajectoryOptions<K>): TrajectoryRunner<K>;
  /** One attention call (sdpa, or a linear form: cosformer, galerkin, performer, trig, hrf); Q n x d, K m x d, V m x dv, row-major.
   *  trig and hrf throw SS_ERR_DOMAIN (argument params.scale) when a row's estimated normalizer is not positive. */
  attend<K extends AttentionName>(kernel: K, inputs: { q: Vector; k: Vector; v: Vector; n: number; m?: number }, params?: ParamsOf<'attention', K>,
    options?: { normalizer?: NormalizerName; normalizerParams?: Params; keyMask?: Uint8Array; attention?: boolean }): AttentionResult;
  /** Per row: entropy, exact-zero fraction, max weight, sink share; per head pair: mean TV distance. */
  attentionMeasures(attention: Vector, heads: number, n: number, m: number): { rows: Float32Array; headDistance: Float64Array };
  /** Per head of one attention call (its output n x dv and matrices heads x n x m, or null): kurtosis, max/median |o|,
   *  the weight on key 0 and whether it is a sink head (softpick paper). An attend() result passes as options. */
  attentionHeadMeasures(out: Vector, attn: Vector | null, options: HeadMeasureOptions): HeadMeasures;
  /** The random features' estimate of exp(s q_i . k_j) for every head and pair: heads x n x m (unbiased over seeds). */
  attentionKernelEstimate<K extends KernelEstimateName>(kernel: K, inputs: { q: Vector; k: Vector; n: number; m?: number },
    params?: ParamsOf<'attention', K>): Float64Array;
  /** Codes packed 8, 4 or 2 bits each (lowest bits first); signed: two's complement. */
  pack(codes: Int32Array, bits: 2 | 4 | 8, options?: { signed?: boolean }): Uint8Array;
  unpack(bytes: Uint8Array, n: number, bits: 2 | 4 | 8, options?: { signed?: boolean }): Int32Array;
  /** Bias / variance of a gradient estimator against the exact (enumerated) gradient. */
  /** About 0.1 us per sample and entry (2^24 samples of n = 256: minutes); see CallLimits. */
  estimatorStats(estimator: Estimator, theta: Vector, target: Vector,
    options?: { tau?: number; seed?: number | bigint; samples?: number } & CallLimits): EstimatorStats;
  /** k-means++ seeded k-means on x read as vectors of options.dim: the seeding and each iteration cost
   *  about 5 ns per nvec * k * dim (maxWork's unit is nvec * k * dim * (iters + 1)); see CallLimits. */
  vqTrain(x: Vector, options?: { k?: number; dim?: number; iters?: number; seed?: number } & CallLimits):
    { codebook: Float32Array; codes: Int32Array; loss: number[] };
  /** options.rows: p (and q) are rows × n, one value per row (a Float64Array of rows, or options.out filled). */
  measure<K extends MeasureName>(kernel: K, p: Vector, q: Vector | null | undefined, params: ParamsOf<'measure', K> | undefined,
    options: MeasureRowsOptions): Float64Array;
  measure<K extends MeasureName>(kernel: K, p: Vector, params: ParamsOf<'measure', K>, options: MeasureRowsOptions): Float64Array;
  /** For one-input measures the params may be passed in q's place. */
  measure<K extends MeasureName>(kernel: K, p: Vector, q?: Vector | null | Params, params?: ParamsOf<'measure', K>): number;
  measureBackward<K extends MeasureName>(kernel: K, p: Vector, g?: number, params?: ParamsOf<'measure', K>): Float32Array;

  softmaxTopk(x: Vector, k: number): { probs: Float32Array; indices: Uint32Array };
  softmaxState(): SoftmaxState;

  alloc(n: number): HeapBuffer;
  /** options.rows: x and y are rows × n, each row normalized on its own (one C call, no copy). */
  normalizeInto<K extends NormalizerName>(kernel: K, x: HeapBuffer, y: HeapBuffer, params?: ParamsOf<'normalizer', K>,
    options?: { rows?: number }): HeapBuffer;
  heapStats(): HeapStats;
  /** A fresh wasm instance of the same module: the wasm memory back to its initial size,
   *  every buffer from alloc() freed. Also done by itself after a trap (SoftscopeTrapError). */
  reset(): this;
}

export type DrawKind = 'index' | 'relaxed' | 'vector';
export type { Estimator };

/** Rows and a caller-owned output (see normalize). */
export interface RowsOptions<T> {
  /** x is rows × n, row-major: an integer >= 1 that divides x.length. */
  rows?: number;
  /** Written instead of a new array: exactly the result's length, not a view of the wasm memory. */
  out?: T;
}

export interface MeasureRowsOptions {
  rows: number;
  /** Exactly rows entries. */
  out?: Float64Array;
}

export interface SampleResult {
  /** The distribution the draws come from (vector samplers: the mean of one draw). */
  probs: Float32Array;
  /** Drawn indices (index and relaxed samplers), else null. */
  indices: Uint32Array | null;
  /** draws * n values, draw d at [d*n, (d+1)*n) (relaxed and vector samplers), else null. */
  samples: Float32Array | null;
  draws: number;
  /** The length of one row (of x without options.rows). */
  n: number;
  /** With options.rows: probs is rows × n, indices rows × draws, samples rows × draws × n. */
  rows?: number;
}

export interface StreamOptions {
  seed?: number | bigint;
  stream?: number | bigint;
  first?: number | bigint;
}

export interface EstimatorStats {
  bias: number;
  variance: number;
  mean: Float32Array;
  exact: Float32Array;
}

export interface CreateOptions {
  /** 'auto' (default): the relaxed-SIMD build where the engine validates
   *  relaxed SIMD, else SIMD128 where it validates v128, else scalar.
   *  'relaxed' | 'simd' | 'scalar': that build, or an Error when the engine
   *  cannot run it (Node 20: 'relaxed' sets --experimental-wasm-relaxed-simd). */
  impl?: 'auto' | Build;
  /** Override the module: bytes, URL, path (Node), compiled module, or one per build. */
  wasm?: WasmSource | { relaxed?: WasmSource; simd?: WasmSource; scalar?: WasmSource };
}
export type WasmSource = ArrayBuffer | ArrayBufferView | URL | string | WebAssembly.Module;

export function createSoftscope(options?: CreateOptions): Promise<Softscope>;
/** The tiny attention model of issue 27 and its training run (core/src/model) on the instance ss: parameters, optimizer
 *  state and workspace in ss's wasm heap until model.free(). Bad options throw an Error naming the option (options.d, ...).
 *  Its own function (not a method) so that bundles which never train leave it out. */
export function createModel(ss: Softscope, options?: ModelOptions): Model;
export default createSoftscope;
export function detectSimd(): boolean;
/** Whether the engine validates a relaxed-SIMD module (f32x4.relaxed_madd). */
export function detectRelaxedSimd(): boolean;

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
/** The wasm module trapped (a softscope bug, not bad input); the instance was re-created
 *  (buffers from alloc() are freed). `.cause` is the WebAssembly.RuntimeError. */
export class SoftscopeTrapError extends Error {
  status: null;
  code: 'SS_TRAP';
}

export type Schedule = ScheduleName;
export interface TestFunction {
  name: TestFunctionName; summary: string; formula: string;
  view: [number, number, number, number]; start: [number, number];
  minima: [number, number][]; fmin: number; game: boolean;
}
/** Limits on a long synchronous call (wasm/api/budget.js). signal: an AbortSignal read when the call
 *  starts (aborted: an Error named 'AbortError', argument 'options.signal'); a running call is
 *  stopped by running it in a Worker and terminating that. maxWork: a budget in the call's unit of
 *  work; a call over it throws SS_ERR_TOO_LARGE (argument 'options.maxWork') before any work. */
export interface CallLimits { signal?: AbortSignal; maxWork?: number }
export interface OptimizerState { kernel: OptimizerName; n: number; slots: Float32Array; scalars: Float64Array }
/** An optimizer run on a test function: the optimizer, test function and schedule are the registry's names. */
export interface TrajectoryOptions<K extends OptimizerName = OptimizerName> {
  optimizer: K; fn?: TestFunctionName; start?: [number, number]; steps?: number; params?: ParamsOf<'optimizer', K>;
  noise?: number; clip?: number; seed?: number; schedule?: Schedule; total?: number;
  warmup?: number; decay?: number; minFactor?: number;
}
export interface TrajectoryMetrics {
  steps: number; diverged: boolean; final_f: number; best_f: number; f_gap: number;
  distance: number; nearest_minimum: [number, number];
}
export interface TrajectoryResult<K extends OptimizerName = OptimizerName> {
  kernel: K; impl: 'simd' | 'scalar'; fn: TestFunctionName;
  /** [x, y, f]: the start, then after each step (ema: its average). */
  output: [number, number, number][];
  metrics: TrajectoryMetrics;
}
export interface TrajectoryRunner<K extends OptimizerName = OptimizerName> {
  params: ParamsOf<'optimizer', K>;
  readonly step: number;
  readonly diverged?: boolean;
  readonly start: [number, number, number];
  advance(k: number): [number, number, number][];
}

export type ModelTask = 'max_retrieval' | 'kv_retrieval' | 'kv_or_none' | 'bigram_backcopy';
export type ModelPositions = 'none' | 'sinusoidal' | 'learned' | 'rope';
export type ModelNorm = 'rmsnorm' | 'layernorm';
export type ModelTensorKind = 'embedding' | 'matrix' | 'gain' | 'bias' | 'normalizer';
export interface ModelOptions {
  /** default 'max_retrieval'; values (16) value classes (bigram_backcopy: its V tokens), keys (16) key ids of the kv
   *  tasks (bigram_backcopy: its triggers, < values). bigram_backcopy is a language model: its loss is at every position */
  task?: ModelTask; values?: number; keys?: number;
  /** d (64), heads (4), layers (1), mlp (true), positions ('none'), maxN (learned positions' rows: trainN's max), causal
   *  (false; true, and required, for a task whose loss is at every position) */
  d?: number; heads?: number; layers?: number; mlp?: boolean; positions?: ModelPositions; maxN?: number; causal?: boolean;
  /** norm ('rmsnorm'; 'layernorm' has a bias), tied (false: the unembedding is the token embedding; needs classes = tokens) */
  norm?: ModelNorm; tied?: boolean;
  /** attention ('sdpa'), normalizer ('softmax') with its params; trainNormParams (false) trains its float parameters */
  attention?: AttentionName; normalizer?: NormalizerName; normalizerParams?: Params; trainNormParams?: boolean;
  loss?: LossName;
  /** the init's seed and the training batches' (0) */
  seed?: number | bigint;
  /** optimizer ('adamw') with its params, schedule ('constant') over steps (1000) with warmup (0), decay (0.2), minFactor (0) */
  optimizer?: OptimizerName; optimizerParams?: Params; schedule?: Schedule; steps?: number; warmup?: number; decay?: number; minFactor?: number;
  /** examples per step (32); trainN: n or [lo, hi] ([4, 16]), step t has n = lo + t mod (hi - lo + 1) */
  batch?: number; trainN?: number | [number, number];
}
export interface ModelTestOptions { n?: number; examples?: number; seed?: number | bigint }
export interface ModelStep { step: number; loss: number; accuracy: number }
export interface ModelEvaluation {
  n: number; examples: number; accuracy: number; loss: number;
  /** per head: the mean over examples of the measure of the last layer's query-row weights; NaN for every head when
   *  the weights are signed (sa_softmax, boltzmann may weigh a key below 0): the measures take distributions */
  entropy: number[]; maxWeight: number[]; support: number[];
}
/** kind: what the init and the weight decay follow (decay on embeddings and matrices only) */
export interface ModelTensor { name: string; kind: ModelTensorKind; layer: number; offset: number; rows: number; cols: number }
export interface Model {
  readonly config: Readonly<Required<Omit<ModelOptions, 'normalizerParams' | 'optimizerParams' | 'seed' | 'trainN'>>> &
    { seed: number; trainN: readonly [number, number]; vocabA: number; vocabB: number; classes: number;
      lossAt: 'last' | 'every'; feature: boolean };
  readonly paramCount: number;
  readonly workspaceBytes: number;
  /** steps taken; diverged (and divergedAt) once a step's loss was NaN or Inf */
  readonly steps: number; readonly diverged: boolean; readonly divergedAt?: number; readonly freed: boolean;
  /** k (1) training steps: the last one's forward (before its update), or { diverged: true, step } */
  step(k?: number): ModelStep | { diverged: true; step: number };
  /** the n of training step t (0-based) */
  trainLength(t: number): number;
  /** a seeded test set: examples (64) of n (trainN's max) items; seed: the model's + 1 */
  evaluate(options?: ModelTestOptions): ModelEvaluation;
  /** the mean loss of the test set's first examples (8) and its gradient, in the arena's layout */
  gradient(options?: ModelTestOptions): { loss: number; grad: Float32Array };
  /** every layer's and head's weights on the test set's first example: maps[((l heads + h) n + i) n + j] */
  attentionMap(options?: { n?: number; seed?: number | bigint }): { layers: number; heads: number; n: number; maps: Float32Array };
  /** the inputs of weight matrix `tensor` (an index of tensors(): wq wk wv wo w1 w2 unembed) in one forward on
   *  examples (64) of n (trainN's max) items drawn under seed (the model's: its training draws): x is cols x batch
   *  (ss.adaround's x); batch = examples n rows, or examples for the last layer's query-row matrices */
  linearInputs(options: ModelTestOptions & { tensor: number }): { x: Float32Array; cols: number; batch: number };
  params(): Float32Array;
  setParams(values: Float32Array): void;
  tensors(): ModelTensor[];
  free(): void;
}
export interface AttentionResult {
  /** n x dv */
  output: Float32Array;
  /** heads x n x m when options.attention, else null */
  attention: Float32Array | null;
  n: number; m: number; d: number; dv: number; heads: number;
}

export interface AdaRoundOptions {
  /** Layer shape: rows (default w.length / cols) x cols (default the registry's 16). */
  rows?: number;
  cols?: number;
  /** Calibration inputs, cols x batch row-major; without them they are drawn under seed (AR(1) with corr). */
  x?: Vector;
  batch?: number;
  seed?: number;
  corr?: number;
  bits?: number;
  symmetric?: boolean | number;
  iters?: number;
  lambda?: number;
  lr?: number;
}

export interface AdaRoundResult {
  /** W~ = (codes - zero) scale, rows x cols. */
  output: Float32Array;
  /** Each floor(W / scale) + zero or one more. */
  codes: Int32Array;
  /** Rounding to nearest on the same grid. */
  nearest: Int32Array;
  /** |W X - W~ X|_F^2 (float64), and the same with nearest rounding. */
  err: number;
  errNearest: number;
  scale: number;
  zero: number;
  /** Codes that differ from nearest rounding. */
  flipped: number;
  /** h strictly inside (0, 1) before the final rounding (0: the regularizer made every choice). */
  soft: number;
  rows: number; cols: number; batch: number;
}

export interface HeadMeasureOptions {
  heads?: number;
  n: number;
  dv?: number;
  m?: number;
  /** A head is a sink when its mean weight on key 0 exceeds this (default 0.3, Gu et al. 2025). */
  sinkEps?: number;
}

export interface HeadMeasures {
  /** Pearson kurtosis of each head's output values (0: all equal, undefined). */
  kurtosis: Float64Array;
  /** max |o| / median |o| (0: median 0). */
  maxMedianRatio: Float64Array;
  /** Mean weight on key 0 (0 without matrices). */
  keyZeroWeight: Float64Array;
  sink: boolean[];
  /** Share of sink heads. */
  sinkRate: number;
}
