// The Normalizers view's state: a logit vector (a seeded preset, or edited
// values), the normalizers compared side by side, one temperature every
// normalizer sees (x / T; a normalizer with its own `temperature` parameter
// gets it there), and the other parameters shared by name.
import { makePreset, PRESET_NAMES, N_MIN, N_MAX, LOGIT_LIMIT } from '../../analysis/presets.js';

const names = (ss) => ss.kernels('normalizer').map((k) => k.name);
// The classic comparison, as far as the registry has it.
const WANTED = ['softmax', 'sparsemax', 'entmax15'];

export const schema = {
  view: 'normalizers',
  fields: [
    { key: 'kernels', type: 'names', label: 'normalizers', options: names, min: 1,
      default: (ss) => WANTED.filter((n) => names(ss).includes(n)) },
    { key: 'temperature', type: 'number', label: 'temperature T', help: 'every normalizer sees x / T',
      min: 0.01, max: 100, log: true, default: 1 },
    { key: 'preset', type: 'choice', label: 'preset', options: [...PRESET_NAMES, 'custom'], default: 'random_normal' },
    { key: 'n', type: 'number', label: 'n', integer: true, min: N_MIN, max: N_MAX, default: 10, when: (s) => s.preset !== 'custom' },
    { key: 'seed', type: 'number', label: 'seed', help: "the preset's noise, and the seed of every kernel that draws (noisy_softmax, vq_softmax)", integer: true, min: 0, max: 2 ** 31 - 1, default: 1 },
    { key: 'logits', type: 'numbers', label: 'logits', min: -LOGIT_LIMIT, max: LOGIT_LIMIT, negInf: true, length: [N_MIN, N_MAX],
      default: null, implies: { preset: 'custom' }, when: (s) => s.preset === 'custom' },
    // temperature and seed are the view's own: every kernel that has them gets them
    { key: 'params', type: 'params', scope: 'shared', exclude: ['temperature', 'seed'],
      kernels: (s, ss) => ss.kernels('normalizer').filter((k) => s.kernels.includes(k.name)) },
  ],
  // The logits follow the preset unless they were edited (custom).
  finish(s) {
    if (s.preset === 'custom' && Array.isArray(s.logits)) s.n = s.logits.length;
    else {
      if (s.preset === 'custom') s.preset = 'random_normal';
      s.logits = makePreset(s.preset, s.n, s.seed);
    }
    return s;
  },
};
