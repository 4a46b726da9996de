// The Optimizers view's state: a race of up to 8 optimizers from one start
// over a 2-D test function (the registry's), the run's length, gradient
// noise and clipping, the lr schedule (the registry's), and each optimizer's
// hyperparameters as `<optimizer>.<param>` (adam.lr=0.02). `sel` is the
// optimizer whose hyperparameters the controls show; `speed` the steps per
// animation frame in the playground (a headless figure runs every step).
export const MAX_RACE = 8;

const optimizers = (ss) => ss.kernels('optimizer').map((k) => k.name);
const WANTED = ['sgd', 'momentum', 'adam', 'lion'];

// The race's own defaults where the registry's (PyTorch's) do not suit a 2-D
// race: Adam's lr 1e-3 and Lion's 1e-4 move a point only ~2 and ~0.2 units in
// 2000 steps. Used where a link sets no value (links hold only changes).
export const RACE_DEFAULTS = { adam: { lr: 0.02 }, lion: { lr: 0.005 } };

export const schema = {
  view: 'optimizers',
  fields: [
    { key: 'fn', type: 'choice', label: 'function', options: (ss) => ss.functions.map((f) => f.name),
      default: (ss) => (ss.functions.some((f) => f.name === 'rosenbrock') ? 'rosenbrock' : ss.functions[0].name) },
    { key: 'start', type: 'point', label: 'start', help: 'x,y (absent: the function\'s own start)', min: -1e6, max: 1e6, default: null },
    { key: 'kernels', type: 'names', label: 'optimizers', options: optimizers, min: 1, max: MAX_RACE,
      default: (ss) => WANTED.filter((n) => optimizers(ss).includes(n)) },
    { key: 'sel', type: 'choice', label: 'hyperparameters of', options: optimizers, default: null, display: true },
    { key: 'steps', type: 'number', label: 'steps', integer: true, min: 10, max: 5000, log: true, default: 2000 },
    { key: 'speed', type: 'number', label: 'steps per frame', integer: true, min: 1, max: 100, log: true, default: 10, display: true },
    { key: 'noise', type: 'number', label: 'gradient noise (std)', min: 0, max: 100, uiMax: 20, default: 0 },
    { key: 'clip', type: 'number', label: 'clip |g| to (0: off)', min: 0, max: 1000, uiMax: 100, default: 0 },
    { key: 'schedule', type: 'choice', label: 'lr schedule', options: (ss) => ss.schedules, default: (ss) => ss.schedules[0] },
    { key: 'warmup', type: 'number', label: 'warm-up steps', integer: true, min: 0, max: 5000, uiMax: 1000, default: 0 },
    { key: 'seed', type: 'number', label: 'noise seed', integer: true, min: 0, max: 2 ** 31 - 1, default: 0 },
    { key: 'params', type: 'params', scope: 'kernel', label: 'hyperparameters',
      kernels: (s, ss) => ss.kernels('optimizer').filter((k) => s.kernels.includes(k.name)),
      current: (s) => s.sel ?? s.kernels[0], overrides: (name) => RACE_DEFAULTS[name] },
  ],
  // The shown hyperparameters belong to a racing optimizer; warm-up fits in the run.
  finish(s) {
    if (s.sel !== null && !s.kernels.includes(s.sel)) s.sel = null;
    if (s.warmup > s.steps) s.warmup = s.steps;
    return s;
  },
};
