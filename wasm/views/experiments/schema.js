// The Experiments view's state: a tiny attention model (core/src/model)
// trained live on a seeded task (max_retrieval, kv_retrieval, kv_or_none),
// one model per normalizer (1 to 4, trained side by side on the same
// batches), with the model's size (d, heads, layers, mlp, positions), the
// optimizer with its hyperparameters as `<optimizer>.<param>` (adam.lr=0.003),
// its schedule and warm-up, the steps and batch, the training lengths
// (trainN = [4, trainMax]) and the test lengths (trainMax, then powers of two
// up to testMax, `examples` test examples each), the quantizers of the
// quantisation panel, the normalizers' own parameters as
// `<normalizer>.<param>` (ssmax.s=0.43; with trainNorm their float
// parameters are trained), and the seed (test sets: seed + 1). `sel` is the
// normalizer whose attention map and head measures the figure shows, mapN
// the map's example length.
import { TRAIN_MIN } from '../../analysis/experiments.js';
import { ptqQuantizers } from '../../analysis/ptq.js';

export const MAX_NORMALIZERS = 4;

/** Normalizers the model can train through: a backward pass, and weights (not log-probabilities) to attend with. */
export const trainable = (ss) => ss.kernels('normalizer').filter((k) => k.has_backward && k.output !== 'log_probs').map((k) => k.name);
/** Quantizers of the panel: those analysis/ptq.js applies (ptqQuantizers: a bit width, or a cast: fp8 at 8 bits), read
 *  from the registry entries alone (no call: the docs read the schema from the registry JSON). */
export const panelQuantizers = (ss) => ptqQuantizers(ss);
const optimizerNames = (ss) => ss.kernels('optimizer').map((k) => k.name);

const WANTED = ['softmax', 'adaptive_temperature', 'ssmax'];
const WANTED_QUANT = ['uniform', 'adaround'];

// The view's own optimizer defaults where the registry's (PyTorch's) are too
// slow for a 1000-step run of a tiny model (links hold only changes). On the
// default experiment (softmax, seeds 0-2) they reach 95 % training accuracy
// at steps: adam 93-171, adamw 108-225, lion 159-198, sgd 450-486,
// momentum 405-486.
export const TRAIN_DEFAULTS = {
  adam: { lr: 3e-3 }, adamw: { lr: 3e-3 }, amsgrad: { lr: 3e-3 }, adabelief: { lr: 3e-3 }, adam_atan2: { lr: 3e-3 },
  sgd: { lr: 0.1 }, momentum: { lr: 0.03 }, nesterov: { lr: 0.03 }, lion: { lr: 3e-4 },
};

export const schema = {
  view: 'experiments',
  fields: [
    // the tasks answered at the last item (the language-model tasks, whose loss is at every position, are the language view's)
    { key: 'task', type: 'choice', label: 'task', options: (ss) => ss.enums.task.filter((t, i) => ss.enums.task_loss_at?.[i] !== 'every'),
      default: (ss) => (ss.enums.task.includes('max_retrieval') ? 'max_retrieval' : ss.enums.task[0]) },
    { key: 'normalizers', type: 'names', label: 'normalizers', options: trainable, min: 1, max: MAX_NORMALIZERS,
      default: (ss) => WANTED.filter((n) => trainable(ss).includes(n)) },
    { key: 'trainNorm', type: 'bool', label: 'train the normalizers\' parameters', default: true },
    { key: 'values', type: 'number', label: 'value classes', integer: true, min: 2, max: 64, default: 8 },
    { key: 'keys', type: 'number', label: 'keys (kv tasks)', integer: true, min: 2, max: 256, log: true, default: 16 },
    { key: 'd', type: 'number', label: 'model width d', integer: true, pow2: true, min: 16, max: 128, log: true, default: 32 },
    { key: 'heads', type: 'number', label: 'heads', integer: true, min: 1, max: 4, default: 2 },
    { key: 'layers', type: 'number', label: 'layers', integer: true, min: 1, max: 2, default: 1 },
    { key: 'mlp', type: 'bool', label: 'MLP', default: false },
    { key: 'positions', type: 'choice', label: 'positions', options: (ss) => ss.enums.positions, default: 'none' },
    { key: 'optimizer', type: 'choice', label: 'optimizer', options: optimizerNames,
      default: (ss) => (optimizerNames(ss).includes('adam') ? 'adam' : optimizerNames(ss)[0]) },
    { key: 'params', type: 'params', scope: 'kernel', label: 'hyperparameters',
      kernels: (s, ss) => ss.kernels('optimizer').filter((k) => k.name === s.optimizer),
      current: (s) => s.optimizer, overrides: (name) => TRAIN_DEFAULTS[name] },
    { key: 'schedule', type: 'choice', label: 'lr schedule', options: (ss) => ss.schedules,
      default: (ss) => (ss.schedules.includes('cosine') ? 'cosine' : ss.schedules[0]) },
    { key: 'warmup', type: 'number', label: 'warm-up steps', integer: true, min: 0, max: 20000, uiMax: 1000, default: 0 },
    { key: 'steps', type: 'number', label: 'steps', integer: true, min: 10, max: 20000, log: true, default: 1000 },
    { key: 'batch', type: 'number', label: 'batch', integer: true, min: 4, max: 128, log: true, default: 32 },
    { key: 'trainMax', type: 'number', label: 'longest training example', integer: true, min: TRAIN_MIN, max: 64, default: 16 },
    { key: 'testMax', type: 'number', label: 'longest test example', integer: true, pow2: true, min: 16, max: 4096, log: true, default: 4096 },
    { key: 'examples', type: 'number', label: 'test examples per length', integer: true, min: 16, max: 1024, log: true, default: 256 },
    { key: 'quantizers', type: 'names', label: 'quantizers', options: panelQuantizers, min: 0, max: 6,
      default: (ss) => WANTED_QUANT.filter((n) => panelQuantizers(ss).includes(n)) },
    { key: 'normParams', type: 'params', scope: 'kernel', label: 'normalizer parameters',
      kernels: (s, ss) => ss.kernels('normalizer').filter((k) => s.normalizers.includes(k.name)) },
    { key: 'sel', type: 'choice', label: 'attention of', options: trainable, default: null, display: true },
    { key: 'mapN', type: 'number', label: 'map example length', integer: true, min: 4, max: 64, default: 16 },
    { key: 'seed', type: 'number', label: 'seed', integer: true, min: 0, max: 2 ** 31 - 1, default: 0 },
  ],
  // heads divide d (the largest count <= heads that does); warm-up fits in the run; sel is a trained normalizer
  finish(s) {
    while (s.d % s.heads !== 0) s.heads -= 1;
    if (s.warmup > s.steps) s.warmup = s.steps;
    if (s.sel !== null && !s.normalizers.includes(s.sel)) s.sel = null;
    return s;
  },
};
