// Any registry kernel called the three ways a user can: a valid input for
// it (read from the registry: its family, input kind and parameters), the JS
// API call of its family, and the CLI command line of its family. Used by the
// property tests and the bad-input matrix, so neither names a kernel.
import { randomLogits, randomProbs, randomPositive, fitParams } from './reference.js';

/** Rows, row width of the attention inputs. */
export const ATTN = { n: 4, d: 4 };

/**
 * A valid input of length n for kernel k: { x, x2 } where x is the main
 * vector (attention: { q, k, v, n, m }) and x2 the second one (q of a
 * two-input measure, the gradient of an optimizer), or null.
 */
export function validInput(k, n, seed = 1) {
  if (k.family === 'attention') {
    const rows = ATTN.n, m = rows * ATTN.d;
    return { x: { q: randomLogits(m, seed, 2), k: randomLogits(m, seed + 1, 2), v: randomLogits(m, seed + 2, 2), n: rows, m: rows }, x2: null };
  }
  const of = (s) => (k.input === 'logits' ? randomLogits(n, s, 6)
    : k.input === 'values' ? randomPositive(n, s, 0.1, 2) : randomProbs(n, s));
  const x2 = k.input === 'probs_pair' ? of(seed + 1) : k.family === 'optimizer' ? randomLogits(n, seed + 1, 2) : null;
  return { x: of(seed), x2 };
}

/** The kernel's default params with the length-bounded ones brought within n. */
export function validParams(k, n) {
  return fitParams(k, n);
}

/** The JS API call of k's family on input { x, x2 } with params. */
export function apiCall(ss, k, { x, x2 }, params) {
  switch (k.family) {
    case 'normalizer': return ss.normalize(k.name, x, params);
    case 'measure': return ss.measure(k.name, x, x2 ?? undefined, params);
    case 'loss': return ss.loss(k.name, x, params);
    case 'sampler': return ss.sample(k.name, x, params);
    case 'quantizer': return ss.quantize(k.name, x, params);
    case 'optimizer': {
      const w = Float32Array.from(x);
      return ss.optimize(k.name, w, x2, params, ss.optimizerState(k.name, Math.max(1, w.length)));
    }
    case 'attention': return ss.attend(k.name, x, params);
    default: throw new Error(`family-calls: no call for family ${k.family}`);
  }
}

/** The outputs of an apiCall result, named as raw-c.js names C's. */
export function apiOutputs(k, r) {
  switch (k.family) {
    case 'normalizer': return { y: r };
    case 'measure': return { value: r };
    case 'loss': return { loss: r.loss, grad: r.grad };
    case 'sampler': return { probs: r.probs, indices: r.indices, samples: r.samples };
    case 'quantizer': return { codes: r.codes, y: r.output };
    case 'optimizer': return { w: r };
    case 'attention': return { output: r.output, attention: r.attention };
    default: throw new Error(`family-calls: no outputs for family ${k.family}`);
  }
}

/** A vector as --input text: numbers separated by spaces (-Infinity spelled out). */
export function vectorText(v) {
  return v.length ? Array.from(v, (a) => String(a)).join(' ') : '[]';
}

const COMMAND = { normalizer: 'normalize', measure: 'measure', loss: 'loss', sampler: 'sample', quantizer: 'quantize',
  optimizer: 'optimize', attention: 'attend' };

/** Whether the CLI command of k's family reads a vector input (optimize runs on test functions). */
export function cliReadsInput(k) {
  return k.family !== 'optimizer';
}

/**
 * The command line running k on { x, x2 } with every parameter of k as a
 * --param (params[name], else the registry default; a string is passed
 * through as the text of the value). For attention x is { q, k, v, n } and
 * goes in as JSON.
 */
export function cliArgs(k, { x, x2 }, params) {
  const args = [COMMAND[k.family], k.name];
  if (k.family === 'attention') {
    const rows = (a, r) => Array.from({ length: r }, (_, i) => Array.from(a.subarray((i * a.length) / r, ((i + 1) * a.length) / r),
      (v) => (Number.isFinite(v) ? v : String(v))));
    const m = x.m ?? x.n;
    args.push('--input', JSON.stringify({ q: rows(x.q, x.n), k: rows(x.k, m), v: rows(x.v, m) }));
  } else if (cliReadsInput(k)) {
    args.push('--input', vectorText(x));
    if (k.input === 'probs_pair') args.push('--input2', vectorText(x2));
  }
  for (const p of k.params) {
    const v = Object.prototype.hasOwnProperty.call(params, p.name) ? params[p.name] : p.default;
    args.push('--param', `${p.name}=${typeof v === 'number' ? String(v) : v}`);
  }
  return args;
}
