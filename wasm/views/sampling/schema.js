// The Sampling view's state: the logits (a long-tailed LM preset over a
// vocabulary, a small editor preset, or edited values), the decoding stages
// that are on and each stage's own parameter (keyed by the stage's name:
// `top_p=0.9`), the number of live draws, and the Gumbel-Softmax half: three
// logits on the triangle, τ, M samples, the relaxed sampler, its hard
// (straight-through) variant, and the target of the estimator comparison.
// The stages are the registry's decoding stages (role decode_stage, in the
// order of k.stage); nothing here lists them.
import { PRESET_NAMES, N_MIN, N_MAX, LOGIT_LIMIT } from '../../analysis/presets.js';
import { LM, LM_VOCAB, SAMPLING_PRESET_NAMES } from './logits.js';

export { decodeStages, stageParam } from '../../analysis/decoding.js';
import { decodeStages } from '../../analysis/decoding.js';
/** The relaxed samplers (one probability vector per draw): what the triangle can show. */
export const relaxedSamplers = (ss) => ss.kernels('sampler').filter((k) => k.draws === 'relaxed').map((k) => k.name);

export const TRI_LIMIT = 6;
export const TARGET_LIMIT = 10;
// Temperature and a nucleus cut: what LLM decoders run by default.
const WANTED_ON = ['temperature', 'top_p'];
const small = (s) => s.preset !== 'custom' && s.preset !== LM;

export const schema = {
  view: 'sampling',
  fields: [
    { key: 'preset', type: 'choice', label: 'preset', options: [...SAMPLING_PRESET_NAMES, 'custom'], default: LM },
    { key: 'vocab', type: 'number', label: 'vocabulary', integer: true, min: LM_VOCAB.min, max: LM_VOCAB.max, default: LM_VOCAB.default,
      when: (s) => s.preset === LM },
    { key: 'n', type: 'number', label: 'n', integer: true, min: N_MIN, max: N_MAX, default: 16, when: small },
    { key: 'seed', type: 'number', label: 'seed', help: 'the preset noise and the draws', integer: true, min: 0, max: 2 ** 31 - 1, default: 1 },
    { key: 'logits', type: 'numbers', label: 'logits', min: -LOGIT_LIMIT, max: LOGIT_LIMIT, negInf: true, length: [N_MIN, N_MAX],
      default: null, implies: { preset: 'custom' }, when: (s) => s.preset === 'custom' },
    { key: 'on', type: 'names', label: 'stages on', options: (ss) => decodeStages(ss).map((k) => k.name),
      default: (ss) => decodeStages(ss).map((k) => k.name).filter((n) => WANTED_ON.includes(n)) },
    // One value per stage, keyed by the stage's name, read against the stage parameter's registry range.
    { key: 'stages', type: 'params', kernels: (s, ss) => decodeStages(ss), paramKey: (k, p) => (p.name === k.stage_param ? k.name : null) },
    { key: 'draws', type: 'number', label: 'N draws', help: 'drawn in batches per frame; any change restarts them',
      integer: true, log: true, min: 100, max: 100000, default: 10000 },
    // the Gumbel-Softmax panel (display fields: computed on the spot from them, the running draws go on)
    { key: 'tri', type: 'numbers', label: 'three logits', min: -TRI_LIMIT, max: TRI_LIMIT, length: [3, 3], default: [1.5, 0.5, -1], display: true },
    { key: 'tau', type: 'number', label: 'τ', help: 'the relaxation temperature', min: 0.05, max: 10, log: true, default: 1, display: true },
    { key: 'm', type: 'number', label: 'M samples', integer: true, log: true, min: 10, max: 1000, default: 300, display: true },
    { key: 'relaxed', type: 'choice', label: 'relaxed sampler', options: relaxedSamplers,
      default: (ss) => (relaxedSamplers(ss).includes('gumbel_softmax') ? 'gumbel_softmax' : relaxedSamplers(ss)[0] ?? ''), display: true },
    { key: 'hard', type: 'bool', label: 'hard (straight-through)', default: false, display: true },
    { key: 'target', type: 'numbers', label: 'target', min: -TARGET_LIMIT, max: TARGET_LIMIT, length: [3, 3], default: [1, 0, 0], display: true },
  ],
  // Stages in registry order; logits follow the preset unless edited (custom).
  finish(s, ss) {
    const order = decodeStages(ss).map((k) => k.name);
    s.on = order.filter((n) => s.on.includes(n));
    if (s.preset === 'custom' && Array.isArray(s.logits)) s.n = s.logits.length;
    else {
      if (s.preset === 'custom') s.preset = LM;
      s.logits = null;
    }
    return s;
  },
};

export { PRESET_NAMES, LM };
