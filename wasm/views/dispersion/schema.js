// The Dispersion view's state: the normalizers swept, the planted key's
// margin, the distractors (kind, scale, seed), how far n goes (a power of
// two up to 2²⁰) and how densely, the probability axis (linear or log), and
// the normalizers' parameters shared by name.
import { DISPERSION_DEFAULTS, DISTRACTOR_KINDS, DISPERSION_N_MAX } from '../../analysis/dispersion.js';

const names = (ss) => ss.kernels('normalizer').map((k) => k.name);
// Softmax against the sparse and the adaptive ones, as far as the registry has them.
const WANTED = ['softmax', 'sparsemax', 'entmax15', 'ssmax', 'adaptive_temperature'];
const D = DISPERSION_DEFAULTS;

export const schema = {
  view: 'dispersion',
  fields: [
    { key: 'kernels', type: 'names', label: 'normalizers', options: names, min: 1, max: 12,
      default: (ss) => WANTED.filter((n) => names(ss).includes(n)) },
    { key: 'margin', type: 'number', label: 'margin m', help: "the key's logit minus the distractors' centre (0)", min: -4, max: 12, default: D.margin },
    { key: 'distractor', type: 'choice', label: 'distractors', options: DISTRACTOR_KINDS, default: D.distractor.kind },
    { key: 'scale', type: 'number', label: 'scale', help: 'std (gaussian) or half-width (uniform) of the distractors', min: 0, max: 4, default: D.distractor.scale },
    { key: 'seed', type: 'number', label: 'seed', integer: true, min: 0, max: 2 ** 31 - 1, default: D.seed },
    { key: 'nmax', type: 'number', label: 'n max', pow2: true, min: 16, max: DISPERSION_N_MAX, default: 2 ** 16 },
    { key: 'ppo', type: 'number', label: 'points per octave', integer: true, min: 1, max: 4, default: 2 },
    { key: 'plog', type: 'bool', label: 'log-scale probability', default: false, display: true },
    { key: 'params', type: 'params', scope: 'shared',
      kernels: (s, ss) => ss.kernels('normalizer').filter((k) => s.kernels.includes(k.name)) },
  ],
};
