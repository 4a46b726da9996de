// softscope/analysis: computations shared by the CLI, the playground and
// users beyond the kernels (analysis/index.js).
import type { Softscope, Params, NormalizerName, Model, ModelTestOptions } from '../api/index.js';

// ---- the dispersion sweep (analysis/dispersion.js) ---------------------------

export type DistractorKind = 'constant' | 'gaussian' | 'uniform';
export type KeyPosition = 'first' | 'random';

/** The inputs of a sweep: what dispersionInput needs. */
export interface DispersionInputOptions {
  /** Key logit minus the distractor centre (0). Default 3. */
  margin?: number;
  /**
   * Distractors centre + scale * z, z = 0 (constant), N(0, 1) (gaussian) or
   * U[-1, 1) (uniform). A kind name alone is accepted. Default gaussian, scale 0.5.
   */
  distractor?: DistractorKind | { kind?: DistractorKind; scale?: number };
  /** Integer in [0, 2^32); the distractors (and a random key position) are a function of it. Default 1. */
  seed?: number;
  /** 'first': the key at index 0 (default); 'random': at a position drawn from (seed, n). */
  keyPosition?: KeyPosition;
}

export interface DispersionOptions extends DispersionInputOptions {
  /** Registry normalizer names, or { name, params } (a name may repeat with other params). */
  normalizers: Array<NormalizerName | { name: NormalizerName; params?: Params }>;
  /** Smallest n, an integer >= 2. Default 2. */
  nMin?: number;
  /** Largest n, an integer in [nMin, 2^20]. Required. */
  nMax: number;
  /** Grid points per doubling of n, 1..16. Default 1 (powers of two from nMin). */
  pointsPerOctave?: number;
  /** dispersionSweep only: called with each cell as it is computed. */
  onPoint?: (cell: DispersionCell) => void;
}

/**
 * One normalizer's curves, index-aligned with DispersionResult.n; NaN where a
 * value is not computed (yet, or the normalizer rejected that n: see errors).
 * probs / log_probs (as exp(y)): keyProb = p[key], maxProb, entropy (nats),
 * support (non-zero entries), sum. weights: keyProb, maxProb and sum are raw
 * weights; entropy and support are those of |y| / sum |y| (NaN and 0 when all
 * weights are 0).
 */
export interface DispersionSeries {
  name: string;
  /** Every parameter of the kernel, defaults filled in. */
  params: Record<string, number | boolean>;
  output: 'probs' | 'log_probs' | 'weights';
  keyProb: number[];
  maxProb: number[];
  entropy: number[];
  support: number[];
  sum: number[];
  errors: Array<{ n: number; code: string; message: string }>;
}

export interface DispersionResult {
  n: number[];
  series: DispersionSeries[];
  /** The options with defaults filled in. */
  inputs: {
    normalizers: Array<{ name: string; params: Record<string, number | boolean> }>;
    nMin: number; nMax: number; margin: number;
    distractor: { kind: DistractorKind; scale: number };
    seed: number; pointsPerOctave: number; keyPosition: KeyPosition;
  };
}

/** One (n, normalizer) cell as dispersionSteps yields it. */
export interface DispersionCell {
  /** Index into result.n. */
  index: number;
  n: number;
  /** Index into result.series. */
  series: number;
  name: string;
  keyProb: number; maxProb: number; entropy: number; support: number; sum: number;
  error?: { n: number; code: string; message: string };
  /** The result being filled in (NaN where not computed yet). */
  result: DispersionResult;
}

/** The whole sweep. Throws SoftscopeError / SoftscopeTypeError naming the option (e.g. argument 'options.nMax'). */
export function dispersionSweep(ss: Softscope, options: DispersionOptions): DispersionResult;
/**
 * The sweep one cell at a time, small n first (options checked at the call);
 * the return value is the result. return() frees the wasm buffers.
 */
export function dispersionSteps(ss: Softscope, options: DispersionOptions): Generator<DispersionCell, DispersionResult, void>;
/** The n grid: round(nMin * 2^(j / pointsPerOctave)) without repeats, nMax included. */
export function dispersionGrid(nMin: number, nMax: number, pointsPerOctave?: number): number[];
/** The input vector every normalizer gets at this n (a new Float32Array). */
export function dispersionInput(options: DispersionInputOptions, n: number): Float32Array;
/** 2^20. */
export const DISPERSION_N_MAX: number;
export const DISPERSION_DEFAULTS: Readonly<{
  nMin: number; margin: number; distractor: Readonly<{ kind: DistractorKind; scale: number }>;
  seed: number; pointsPerOctave: number; keyPosition: KeyPosition;
}>;
export const DISTRACTOR_KINDS: readonly DistractorKind[];
export const KEY_POSITIONS: readonly KeyPosition[];

// ---- logit presets (analysis/presets.js) -----------------------------------

/** The logit editor's range: [-LOGIT_LIMIT, LOGIT_LIMIT]. */
export const LOGIT_LIMIT: number;
/** The presets' (and the editor's) smallest and largest n. */
export const N_MIN: number;
export const N_MAX: number;
/** v rounded to 3 decimals (-0 as 0). */
export function round3(v: number): number;
/** v clamped to the editor's range. */
export function clampLogit(v: number): number;
export type PresetName = 'random_normal' | 'planted_peak' | 'two_modes' | 'long_tail';
export const PRESETS: Readonly<Record<PresetName, { label: string; help: string }>>;
export const PRESET_NAMES: readonly PresetName[];
/** Logits of a preset: n numbers (3 decimals, in the editor's range), the same for the same arguments. */
export function makePreset(name: PresetName, n: number, seed?: number): number[];

// ---- a kernel's parameters from a view's state (analysis/params.js) --------

export interface KernelParamsOptions {
  /** Read values[`${kernel}.${param}`] instead of values[param]. */
  scoped?: boolean;
  /** A view's own defaults, over the registry's. */
  defaults?: Record<string, number>;
  /** Values that win over the state's. */
  fixed?: Record<string, number>;
}
/** One value per registry parameter of k, in registry order: fixed, else the state's (finite), else defaults, else the registry default. */
export function kernelParams(k: { name: string; params: ReadonlyArray<{ name: string; default: number }> },
  values?: Record<string, unknown> | null, options?: KernelParamsOptions): Record<string, number>;

// ---- measures of results -----------------------------------------------------

/** Draws against probs: chi-square with small cells pooled; impossible counts draws of zero-probability entries. */
export function chiSquare(indices: ArrayLike<number>, probs: ArrayLike<number>): { chi2: number; dof: number; pValue: number; impossible: number };
/** Error measures of a quantization y of x; kl and argmax_kept when x is a probability vector. */
export function quantMetrics(x: ArrayLike<number>, y: ArrayLike<number>):
  { mse: number; max_error: number; sqnr_db: number | null; kl?: number | null; argmax_kept?: boolean };
/** |W X - Wq X|_F^2 (float64) of a layer w read as rows of cols weights, inputs x cols x batch. */
export function layerErrors(w: ArrayLike<number>, wq: ArrayLike<number>, x: ArrayLike<number>, cols: number, batch: number): number;
/** The nearest known minimum (or equilibrium) of a test function to (x, y). */
export function nearestMinimum(fn: { minima: ReadonlyArray<readonly [number, number]> }, x: number, y: number):
  { minimum: [number, number] | null; distance: number };
/** Measures of a path [[x, y, f], ...] (the start first) on a test function. */
export function trajectoryMetrics(fn: { minima: ReadonlyArray<readonly [number, number]>; fmin: number },
  output: ReadonlyArray<readonly [number, number, number]>, requested: number): {
  steps: number; diverged: boolean; final_f: number; best_f: number; f_gap: number; distance: number; nearest_minimum: [number, number] | null;
};

// ---- post-training quantisation of a model (analysis/ptq.js) ------------------

/** What quantizedParams applies: a registry quantizer at a code width (bits, sign included). */
export interface PtqSpec {
  /** one of ptqQuantizers(ss): uniform, pow2, log_quant, adaround (bits), fp8_e4m3, fp8_e5m2 (8) */
  quantizer: string;
  /** one of ptqBits(ss, quantizer) */
  bits: number;
  /** the quantizer's other parameters (symmetric, base; adaround: symmetric, iters, lambda, lr); not bits, scale, group */
  params?: Params;
  /** AdaRound's inputs: model.linearInputs at n (trainN's max), seed (the model's), samples (PTQ_SAMPLES) rows per matrix */
  calibration?: { n?: number; seed?: number | bigint; samples?: number };
}
/** Calibration rows per matrix by default (256). */
export const PTQ_SAMPLES: number;
/** The code widths at which a quantizer applies to weights ([] when it does not). */
export function ptqBits(ss: Softscope, quantizer: string): number[];
/** The registry quantizers that apply (a `bits` or a `scale` parameter). */
export function ptqQuantizers(ss: Softscope): string[];
/** The model's parameter arena with every weight tensor quantized per output row (gains and normalizer parameters float). */
export function quantizedParams(ss: Softscope, model: Model, spec: PtqSpec): Float32Array;
/** The quantized model's accuracy and loss on model.evaluate(test); the float parameters are restored, also on a throw. */
export function quantizedAccuracy(ss: Softscope, model: Model, spec: PtqSpec, test?: ModelTestOptions): { accuracy: number; loss: number };
