// The Quantization view's state: the values to quantize (a source and its
// size and seed), the scheme (a registry quantizer) with its parameters by
// their registry names (`bits=4`, shared scope: a link keeps `bits` when the
// scheme changes to another that has it), the log axis for probability
// sources, and the view's own logits: what the 'softmax' source normalizes,
// and what a weights source's softmax effect quantizes before the softmax.
// With AdaRound as the scheme, the first `rows` x cols values are also a
// layer rounded both ways (its parameters are the scheme's).
import { makePreset, N_MIN, N_MAX, LOGIT_LIMIT } from '../../analysis/presets.js';
import { ADAROUND } from '../../analysis/adaround.js';

export const SOURCES = {
  weights: 'weights (Student t, 4 dof)',
  attention: 'attention row: softmax of N(0, 2.5²)',
  softmax: 'softmax of the logits below',
};
export const VALUES_N = { min: 16, max: 8192 };
export const LAYER_ROWS = { min: 1, max: 64 };
/** Whether the state's scheme learns its rounding on a layer (the layer panel). */
export const learnsLayer = (s) => s.scheme === ADAROUND;
const names = (ss) => ss.kernels('quantizer').map((k) => k.name);
/** The registry entry of the state's scheme. */
export const schemeKernel = (ss, s) => ss.kernels('quantizer').find((k) => k.name === s.scheme);

export const schema = {
  view: 'quantization',
  fields: [
    { key: 'scheme', type: 'choice', label: 'scheme', options: names,
      default: (ss) => (names(ss).includes('uniform') ? 'uniform' : names(ss)[0]) },
    // Weights open the view: their softmax effect (the logits quantized before the softmax) has a finite KL for
    // every scheme that takes signed values, where post-softmax quantization of a long attention row rounds entries to 0.
    { key: 'source', type: 'choice', label: 'values', options: Object.keys(SOURCES), optionLabel: (o) => SOURCES[o], default: 'weights' },
    { key: 'n', type: 'number', label: 'n', integer: true, pow2: true, min: VALUES_N.min, max: VALUES_N.max, default: 1024,
      when: (s) => s.source !== 'softmax' },
    { key: 'seed', type: 'number', label: 'seed', help: "the values' noise, and the scheme's seed (stochastic rounding, k-means++)",
      integer: true, min: 0, max: 2 ** 31 - 1, default: 1 },
    { key: 'log', type: 'bool', label: 'log axis (probabilities)', default: true },
    { key: 'rows', type: 'number', label: 'layer rows', help: 'AdaRound against nearest on a layer: the first rows × cols values',
      integer: true, ...LAYER_ROWS, default: 8, when: learnsLayer },
    { key: 'logits', type: 'numbers', label: 'logits', min: -LOGIT_LIMIT, max: LOGIT_LIMIT, negInf: true, length: [N_MIN, N_MAX],
      default: makePreset('random_normal', 16, 1) },
    { key: 'params', type: 'params', scope: 'shared', exclude: ['seed'], kernels: (s, ss) => [schemeKernel(ss, s)].filter(Boolean) },
  ],
};
