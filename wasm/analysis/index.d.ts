// softscope/analysis: computations shared by the CLI, the playground and
// users beyond the kernels (analysis/index.js).
import type { Softscope, Params, NormalizerName, Model, ModelTestOptions, ModelPositions, ModelNorm, OptimizerName, Schedule, ModelStep } from '../api/index.js';

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

// ---- a language model: corpus, training, generation, inspection, files (analysis/language.js) ----

/** Where the training text comes from: the project's seeded English-like grammar (ss_grammar_text), Bigram-Backcopy
 *  (Guo et al. 2024: a seeded bigram language whose trigger tokens are followed by a copy of the token before them),
 *  or a text the user brings. */
export type LanguageCorpus = 'grammar' | 'bigram_backcopy' | 'text';

/** Text as tokens: the text's own alphabet (its distinct characters, sorted by code point) or, past
 *  LANGUAGE_LIMITS.symbols distinct characters, its UTF-8 bytes; then BOS, the last id. */
export interface LanguageVocab {
  /** token id -> its text ('' for BOS; a byte vocabulary: the byte as a latin-1 character) */
  readonly symbols: readonly string[];
  /** symbols.length: the model's vocabulary */
  readonly size: number;
  readonly bos: number;
  readonly bytes: boolean;
  /** Bigram-Backcopy: the trigger tokens (ids 0 .. keys-1); [] for text */
  readonly triggers: readonly number[];
}

export const LANGUAGE_LIMITS: {
  /** characters of a user's text (UTF-16 code units counted as JS does: text.length) */
  readonly textChars: number;
  /** distinct characters before the vocabulary falls back to bytes */
  readonly symbols: number;
  /** a saved model file's bytes */
  readonly fileBytes: number;
  /** generate(): tokens per call */
  readonly generate: number;
};

export interface LanguageModelOptions {
  /** 'grammar' (default), 'bigram_backcopy' or 'text' (then `text` is required) */
  corpus?: LanguageCorpus;
  /** the user's text for corpus 'text' (at most LANGUAGE_LIMITS.textChars characters; at least context + 2 tokens) */
  text?: string;
  /** grammar: characters generated (200000); its seed is `seed` */
  corpusChars?: number;
  /** Bigram-Backcopy: V tokens (64) and k trigger tokens (3) */
  values?: number; keys?: number;
  /** text corpora: each training window starts with BOS (true); false as nanoGPT (no BOS, generate needs a prompt) */
  bos?: boolean;
  /** the fraction of a text corpus held out for validation (0.1, the end of the text) */
  validation?: number;
  /** the model: d (128), heads (4), layers (4), context (64: positions per window), mlp (true), positions ('learned'),
   *  norm ('layernorm'), tied (true) */
  d?: number; heads?: number; layers?: number; context?: number; mlp?: boolean; positions?: ModelPositions;
  norm?: ModelNorm; tied?: boolean;
  normalizer?: NormalizerName; normalizerParams?: Params; trainNormParams?: boolean;
  /** training: optimizer ('adamw', lr 1e-3, beta2 0.99, weight_decay 0.1 unless given), schedule ('cosine') over steps
   *  (2000) with warmup (100) down to minFactor (0.1), batch (12) windows a step, seed (0) */
  optimizer?: OptimizerName; optimizerParams?: Params; schedule?: Schedule; steps?: number; warmup?: number;
  minFactor?: number; batch?: number; seed?: number;
}

export interface LanguageValidation {
  /** mean next-token loss in nats over the validation windows, and in bits per token (loss / ln 2) */
  loss: number; bits: number;
  /** the mean loss at each position of the window (context values) */
  positionLoss: Float32Array;
  windows: number;
}

/** One candidate of a generation step: its token, text, logit and probability under the base distribution
 *  (softmax(logit / T)), after each stage that is on (in pipeline order) and in the final one. */
export interface GenerationCandidate {
  token: number; text: string; logit: number; base: number;
  stages: Record<string, number>;
  final: number;
}
export interface GenerationStep {
  /** the drawn token and its text */
  token: number; text: string;
  /** the top candidates by base probability (options.top, 5), the drawn one added when it is not among them */
  top: GenerationCandidate[];
  /** tokens kept by the final distribution */
  kept: number;
}
export interface GenerateOptions {
  /** the text the generation continues ('': from BOS; required for a model trained without BOS) */
  prompt?: string;
  /** tokens to draw (200), at most LANGUAGE_LIMITS.generate */
  length?: number;
  /** the decoding stages that are on (registry samplers with role decode_stage, e.g. temperature, top_k, top_p,
   *  min_p, typical) and their values by stage name (e.g. { temperature: 0.8, top_p: 0.9 }): the sampling view's
   *  pipeline (analysis/decoding.js runPipeline) */
  on?: string[]; stages?: Record<string, number>;
  /** draws: Philox (seed, stream = step) through ss.categorical: the same text for the same seed in every build where
   *  the logits agree */
  seed?: number;
  /** candidates reported per step (5; 0: none) */
  top?: number;
}
export interface Generation { prompt: string; text: string; tokens: Uint32Array; steps: GenerationStep[] }

export interface LanguageHead {
  layer: number; head: number;
  /** mean attention weight on BOS (position 0) over the queries at positions >= 1: all, after a trigger token (the
   *  copy the head must make: "active"), after any other token ("dormant" when high: a sink) */
  bosMass: number; bosMassTrigger: number | null; bosMassOther: number | null;
  /** a head is a sink when bosMassOther (bosMass on text) > SINK_THRESHOLD (0.3) */
  sink: boolean;
  /** the L2 norm of BOS's value vector in this head against the mean of the other positions' (value drain) */
  bosValueNorm: number; valueNorm: number;
}
export interface LanguageInspection {
  tokens: Uint32Array; texts: string[]; n: number; layers: number; heads: number;
  /** maps[((l heads + h) n + i) n + j]: query i's weight on key j */
  maps: Float32Array;
  headStats: LanguageHead[];
  /** per layer l = 0 .. layers (the residual stream entering layer l; l = layers: after the last): the norm at BOS,
   *  the mean norm elsewhere (residual peak), the kurtosis and max|h| / median|h| of its values (massive activations) */
  residual: Array<{ layer: number; bosNorm: number; meanNorm: number; kurtosis: number; maxMedian: number }>;
}

export interface LanguageModel {
  readonly ss: Softscope;
  readonly model: Model;
  readonly vocab: LanguageVocab;
  /** the options as resolved (corpus, text's length not the text, the model's and the training's) */
  readonly options: Readonly<Required<Omit<LanguageModelOptions, 'text' | 'normalizerParams' | 'optimizerParams'>>> &
    { normalizerParams: Params; optimizerParams: Params; textChars: number };
  /** tokens of the training and the validation part */
  readonly trainTokens: number; readonly validationTokens: number;
  readonly steps: number; readonly diverged: boolean;
  step(k?: number): ModelStep | { diverged: true; step: number };
  validate(options?: { windows?: number; seed?: number }): LanguageValidation;
  /** the text as tokens (throws naming `argument` for a character not in the vocabulary) */
  encode(text: string, argument?: string): Uint32Array;
  decode(tokens: ArrayLike<number>): string;
  generate(options?: GenerateOptions): Generation;
  /** the model on one window: a prompt text (BOS first when the model uses BOS), or a validation window (seed) */
  inspect(options?: { text?: string; seed?: number }): LanguageInspection;
  /** a model file: 'SSLM' + version, a JSON header (options, vocabulary, steps) and the float32 parameters */
  save(): Uint8Array;
  free(): void;
}
export function createLanguageModel(ss: Softscope, options?: LanguageModelOptions): LanguageModel;
/** A model from save()'s bytes: every field checked (Errors name `file`); generation and inspection work, training
 *  continues with a fresh optimizer state (the file holds no corpus for 'text': pass options.text to train on) */
export function loadLanguageModel(ss: Softscope, bytes: Uint8Array, options?: { text?: string }): LanguageModel;
/** ss_grammar_text's corpus: chars characters under seed */
export function grammarText(ss: Softscope, chars: number, seed?: number): string;
export const SINK_THRESHOLD: number;
