// Post-training quantisation of a trained model's weights (issue 27): every
// weight tensor of a model (wasm/api/model.js) through a registry quantizer,
// then the model's accuracy on a test set. Every number is C's: the
// quantizers (ss.quantize), AdaRound (ss.adaround) and its calibration
// inputs (model.linearInputs: ss_model_linear_inputs). The choices made
// here:
//   - granularity: per output row (one grid per row of a rows x cols
//     tensor, the usual for weights): each row is its own ss.quantize call;
//   - gains (attn_norm, mlp_norm, final_norm) and trained normalizer
//     parameters stay float (d values each: scales, not weights);
//   - lookups (embed_a, embed_b, feature, learned positions) are quantized
//     like the matrices; under AdaRound they are rounded to nearest on the
//     same grid (uniform with the same bits and symmetry), which is optimal
//     there: a lookup's output error is its weight error;
//   - quantizers whose C rejects negative values (the registry's domain
//     'nonnegative': pow2, log_quant, magnitude codes) take |w| at bits - 1
//     bits and a sign bit, so `bits` is always the code width (and starts
//     one above their own minimum);
//   - casts with a `scale` and no `bits` (fp8_e4m3, fp8_e5m2) are 8 bits;
//     scale = the row's max |w| / the format's largest value (the
//     registry's cast_max), so the row's largest weight lands on the
//     format's largest; an all-zero row scale 1;
//   - AdaRound learns each row's rounding (ss.adaround, rows 1: the same
//     per-row grid as uniform's, so its nearest rounding is uniform's) on
//     the matrix's inputs in the float model's forward on the TRAINING
//     distribution: model.linearInputs at n = trainN's max, seed = the
//     model's own, `samples` rows (the first of them for matrices fed every
//     row); its options default to the registry kernel's (iters 1000,
//     lambda 0.1, lr 0.01, symmetric);
//   - quantizers without either (sign_mean, vq) do not apply.
// Which quantizers apply and at which widths is read off the registry
// entries alone (ss.kernel: an instance, or the registry JSON the docs read
// the schemas from); the descriptors' facts are tested against C's calls in
// tests/c/conformance_quantizer.c.
import { SoftscopeError, STATUS, describe } from '../api/errors.js';
import { ADAROUND } from './adaround.js';

/** The tensors that stay float, by kind (C's ss_tensor_kind): norm gains and biases, the normalizer's trained parameters. */
const FLOAT_KINDS = new Set(['gain', 'bias', 'normalizer']);
/** Embeddings (tables, positions, the feature's u; also a tied embed_a) are rounded to nearest: AdaRound calibrates the
 *  matrices only, on their inputs (ss_model_linear_inputs). */
const CALIBRATED_KIND = 'matrix';
const BITS_MIN = 2, BITS_MAX = 8, CAST_BITS = 8;
/** Calibration rows per matrix (AdaRound's batch). */
export const PTQ_SAMPLES = 256;

// Does quantizer k take negative values? (C: SS_ERR_DOMAIN otherwise)
const takesNegatives = (k) => k.domain !== 'nonnegative';

function paramDefaults(k) {
  return Object.fromEntries(k.params.map((p) => [p.name, p.default]));
}

const hasParam = (k, name) => k.params.some((p) => p.name === name);

/** The bit widths at which quantizer `name` applies to a model's weights
 *  ([] when it does not: no `bits` and not a cast). ss: an instance, or
 *  anything with its kernel(name, family) (the registry JSON's entries). */
export function ptqBits(ss, name) {
  const k = ss.kernel(name, 'quantizer');
  const bits = k.params.find((p) => p.name === 'bits');
  if (!bits) return k.cast_max ? [CAST_BITS] : [];
  const extra = k.name === ADAROUND || takesNegatives(k) ? 0 : 1; // a sign bit
  const out = [];
  for (let b = Math.max(BITS_MIN, bits.min + extra); b <= Math.min(BITS_MAX, bits.max + extra); b++) out.push(b);
  return out;
}

/** The registry quantizers that apply (ptqBits not empty), in registry order (ss as for ptqBits, with kernels(family)). */
export function ptqQuantizers(ss) {
  return ss.kernels('quantizer').map((k) => k.name).filter((name) => ptqBits(ss, name).length > 0);
}

// spec checked: { k, bits, params, calibration }; Errors name the argument.
function checkSpec(ss, model, spec) {
  const bad = (arg, text) => new SoftscopeError(`quantizedParams: ${arg} ${text}`, STATUS.SS_ERR_PARAM_RANGE, { argument: arg });
  if (!spec || typeof spec !== 'object') throw bad('spec', 'must be an object { quantizer, bits, params, calibration }');
  const names = ptqQuantizers(ss);
  if (!names.includes(spec.quantizer))
    throw bad('spec.quantizer', `= ${describe(spec.quantizer)} must be one of ${names.join(', ')}`);
  const k = ss.kernel(spec.quantizer, 'quantizer');
  const widths = ptqBits(ss, k.name);
  if (!widths.includes(spec.bits)) throw bad('spec.bits', `= ${describe(spec.bits)} must be one of ${widths.join(', ')} for ${k.name}`);
  const params = { ...(spec.params ?? {}) };
  for (const key of ['bits', 'scale', 'group'])
    if (key in params) throw bad(`spec.params.${key}`, 'is set by the quantisation (spec.bits; per-row grids)');
  const c = spec.calibration ?? {};
  const samples = c.samples ?? PTQ_SAMPLES;
  if (!Number.isInteger(samples) || samples < 1 || samples > 4096) throw bad('spec.calibration.samples', `= ${describe(samples)} must be an integer in [1, 4096]`);
  return { k, bits: spec.bits, params, calibration: { n: c.n ?? model.config.trainN[1], seed: c.seed ?? model.config.seed, samples } };
}

// One row through quantizer k at `bits` (not AdaRound).
function quantizeRow(ss, k, row, bits, params) {
  if (!hasParam(k, 'bits')) {
    let top = 0;
    for (const v of row) top = Math.max(top, Math.abs(v));
    return ss.quantize(k.name, row, { ...params, scale: top > 0 ? top / k.cast_max : 1 }).output;
  }
  if (takesNegatives(k)) return ss.quantize(k.name, row, { ...params, bits }).output;
  const mag = ss.quantize(k.name, row.map(Math.abs), { ...params, bits: bits - 1 }).output;
  return mag.map((m, i) => (row[i] < 0 ? -m : m));
}

// The first `samples` calibration rows (columns of x, cols x batch) of tensor ti.
function calibration(model, ti, c) {
  const { x, cols, batch } = model.linearInputs({ tensor: ti, n: c.n, examples: c.samples, seed: c.seed });
  if (batch <= c.samples) return { x, batch };
  const out = new Float32Array(cols * c.samples);
  for (let i = 0; i < cols; i++) out.set(x.subarray(i * batch, i * batch + c.samples), i * c.samples);
  return { x: out, batch: c.samples };
}

/**
 * The model's parameter arena with every weight tensor quantized:
 * spec = { quantizer, bits, params (the quantizer's other parameters, e.g.
 * symmetric, base; AdaRound: symmetric, iters, lambda, lr), calibration
 * ({ n, seed, samples }: AdaRound's inputs, defaults above) }. A
 * Float32Array of model.paramCount values (the model is not changed).
 */
export function quantizedParams(ss, model, spec) {
  const { k, bits, params, calibration: cal } = checkSpec(ss, model, spec);
  const out = model.params();
  const ada = k.name === ADAROUND;
  const tensors = model.tensors();
  tensors.forEach((t, ti) => {
    if (FLOAT_KINDS.has(t.kind)) return;
    const x = ada && t.kind === CALIBRATED_KIND ? calibration(model, ti, cal) : null;
    for (let r = 0; r < t.rows; r++) {
      const at = t.offset + r * t.cols, row = out.slice(at, at + t.cols);
      let q;
      if (x) q = ss.adaround(row, { rows: 1, cols: t.cols, x: x.x, batch: x.batch, bits, ...params }).output;
      else if (ada) q = ss.quantize('uniform', row, { bits, symmetric: params.symmetric ?? paramDefaults(k).symmetric }).output;
      else q = quantizeRow(ss, k, row, bits, params);
      out.set(q, at);
    }
  });
  return out;
}

/**
 * The model's { accuracy, loss } with quantizedParams(ss, model, spec) on
 * the test set `test` (model.evaluate's options: n, examples, seed); the
 * float parameters are back in the model afterwards, also when a call
 * throws.
 */
export function quantizedAccuracy(ss, model, spec, test) {
  const saved = model.params();
  try {
    model.setParams(quantizedParams(ss, model, spec));
    const r = model.evaluate(test);
    return { accuracy: r.accuracy, loss: r.loss };
  } finally {
    model.setParams(saved);
  }
}
