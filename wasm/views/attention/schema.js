// The Attention view's state: an example input (analysis/attention-examples:
// a sentence, a copy task, random Q/K/V), its length and seed, the score
// scale (× 1/√d) and causal mask, the normalizers put in softmax's place
// (their parameters shared by name: alpha=1.5), the linear attention forms
// of the registry (their own parameters as performer.features=64), the
// post-softmax quantizer (a registry quantizer with `bits`; its parameters
// as pow2.bits=3) and the row whose weights are shown (row=5); the
// random-feature kernels whose error against softmax attention is mapped
// (rf=performer,trig,hrf; their parameters shared by name: features=64), and
// the normalizers compared head by head on the dormant-head example
// (sinks=softmax,softpick) with the sink threshold (sink_eps=0.3).
import { ATTENTION_EXAMPLES, attentionExample } from '../../analysis/attention-examples.js';

export const N_RANGE = { min: 4, max: 256 };
export const MAX_MAPS = 8;

/** Normalizers attention can use (weights, not log-probabilities). */
export const attentionNormalizers = (ss) => ss.kernels('normalizer').filter((k) => k.output !== 'log_probs');
/** The registry's linear attention forms. */
export const linearForms = (ss) => ss.kernels('attention').filter((k) => k.role === 'linear_attention');
/** The registry's attention kernels with random features (they estimate the softmax kernel): the error maps. */
export const randomFeatureForms = (ss) => ss.kernels('attention').filter((k) => k.kernel_estimate);
/** Quantizers with a bit width: the post-softmax choices. */
export const rowQuantizers = (ss) => ss.kernels('quantizer').filter((k) => k.params.some((p) => p.name === 'bits'));
/** The example's length for the state (the sentence has its own). */
export const lengthOf = (s) => (s.example === 'sentence' ? attentionExample('sentence').n : s.n);

// Post-softmax quantization is interesting at a few bits (the registry's default may be 8).
export const QUANT_DEFAULTS = { bits: 4 };
// The error maps put every random-feature kernel at the same draws per estimator, few enough to see the error.
export const RF_DEFAULTS = { features: 32 };
// A head is a sink when its mean weight on the first token is above this (Gu et al. 2025).
export const SINK_EPS = 0.3;
// The softpick paper's comparison.
const SINK_PAIR = ['softmax', 'softpick'];

const names = (list) => (ss) => list(ss).map((k) => k.name);
const WANTED = ['softmax', 'sparsemax', 'entmax_bisect'];
// What the view sets itself on an attention kernel.
const SET_BY_VIEW = ['heads', 'scale', 'causal'];

const FIELDS = [
  { key: 'example', type: 'choice', label: 'example', options: ATTENTION_EXAMPLES, default: 'copy' },
  { key: 'n', type: 'number', label: 'sequence length n', integer: true, log: true, ...N_RANGE, default: 32, when: (s) => s.example !== 'sentence' },
  { key: 'seed', type: 'number', label: 'seed', integer: true, min: 0, max: 2 ** 31 - 1, default: 1, when: (s) => s.example !== 'sentence' },
  { key: 'scale', type: 'number', label: 'score scale (× 1/√d)', min: 0.05, max: 4, log: true, default: 1 },
  { key: 'causal', type: 'bool', label: 'causal mask', default: false },
  { key: 'normalizers', type: 'names', label: 'normalizers', options: names(attentionNormalizers), max: MAX_MAPS,
    default: (ss) => WANTED.filter((n) => names(attentionNormalizers)(ss).includes(n)) },
  { key: 'linear', type: 'names', label: 'linear forms', options: names(linearForms), default: [] },
  { key: 'rf', type: 'names', label: 'random-feature kernels', options: names(randomFeatureForms), default: names(randomFeatureForms) },
  { key: 'sinks', type: 'names', label: 'normalizers compared head by head', options: names(attentionNormalizers), max: 4,
    default: (ss) => SINK_PAIR.filter((n) => names(attentionNormalizers)(ss).includes(n)) },
  { key: 'sink_eps', type: 'number', label: 'sink threshold', help: 'a head is a sink when its mean weight on key 0 is above this', min: 0, max: 1, default: SINK_EPS, when: (s) => s.sinks.length > 0 },
  { key: 'quant', type: 'choice', label: 'post-softmax quantization', options: (ss) => ['none', ...names(rowQuantizers)(ss)], default: 'none',
    optionLabel: (o) => (o === 'none' ? 'off' : o) },
  { key: 'row', type: 'number', label: 'row', integer: true, min: 0, max: N_RANGE.max - 1, default: null, when: (s) => s.row !== null },
];
const OWN = FIELDS.map((f) => f.key);

export const schema = {
  view: 'attention',
  fields: [
    ...FIELDS,
    // normalizer parameters, shared by name (the view's own keys, e.g. seed, stay the view's)
    { key: 'params', type: 'params', scope: 'shared', exclude: OWN,
      kernels: (s, ss) => attentionNormalizers(ss).filter((k) => s.normalizers.includes(k.name) || s.sinks.includes(k.name)) },
    { key: 'linear_params', type: 'params', scope: 'kernel', exclude: SET_BY_VIEW,
      kernels: (s, ss) => linearForms(ss).filter((k) => s.linear.includes(k.name)) },
    // the error maps' kernels share their parameters by name (one features control); the view sets seed
    { key: 'rf_params', type: 'params', scope: 'shared', exclude: [...SET_BY_VIEW, 'seed'],
      kernels: (s, ss) => randomFeatureForms(ss).filter((k) => s.rf.includes(k.name)), overrides: () => RF_DEFAULTS },
    { key: 'quant_params', type: 'params', scope: 'kernel',
      kernels: (s, ss) => rowQuantizers(ss).filter((k) => k.name === s.quant), current: (s) => s.quant,
      overrides: () => QUANT_DEFAULTS },
  ],
  // A shown row lies inside the example.
  finish(s) {
    if (s.row !== null && s.row >= lengthOf(s)) s.row = null;
    return s;
  },
};
