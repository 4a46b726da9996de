// Optimizers (core/src/optim): one update step on a parameter vector with
// its state, SAM's ascent point, the 2-D test functions, and the trajectory
// engine (a whole run, or a runner advanced frame by frame). Installed on
// the Softscope prototype by softscope.js; `this` is a Softscope instance.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, number, integer, overflowsFloat32 } from './args.js';
import { summaryMetrics } from './trajectory-metrics.js';
import { viewOf, attached, typedName } from './views.js';

const SCALARS = 4; // SS_OPT_SCALARS: [0] steps taken, then the kernel's own
const MAX_STEPS = 1e7;
// Steps per call of ss_trajectory inside trajectory(): 24 bytes of path each.
const TRAJECTORY_SLICE = 1 << 16;

export const optimizerCalls = {
  /** Fresh state for `n` parameters: { slots (Float32Array), scalars
   *  (Float64Array: [0] steps taken) }, all zero. */
  optimizerState(kernel, n) {
    const where = 'softscope.optimizerState';
    const k = this._lookup(kernel, 'optimizer', where);
    if (!Number.isInteger(n) || n < 1 || n > this.maxN)
      throw new SoftscopeError(`${where}: n = ${describe(n)} must be an integer in [1, ${this.maxN}]`, STATUS.SS_ERR_LENGTH, { argument: 'n' });
    return { kernel: k.name, n, slots: new Float32Array(k.state_slots * n), scalars: new Float64Array(SCALARS) };
  },

  /** One step of the optimizer: updates w (a Float32Array) and state (from
   *  optimizerState) in place and returns w. g is the gradient at w (sam:
   *  at samPerturb's point). */
  optimize(kernel, w, g, params = {}, state) {
    const k = this._lookup(kernel, 'optimizer', 'softscope.optimize');
    const where = `softscope.optimize("${k.name}")`;
    if (typedName(w) !== 'Float32Array')
      throw new SoftscopeTypeError(`${where}: w must be a Float32Array (got ${describe(w)})${Array.isArray(w) ? '; use Float32Array.from(w)' : ''}`, { argument: 'w' });
    const wa = this._input(w, 'w', where), ga = this._input(g, 'g', where);
    this._checkN(wa, where);
    this._sameLength(wa, ga, where);
    // C's order: an empty w is SS_ERR_EMPTY before anything about the state.
    if (wa.n === 0) throw this._fail(where, STATUS.SS_ERR_EMPTY, [wa, ga], k);
    // The state, read once: its arrays as plain views, their lengths checked.
    const st = state && typeof state === 'object' ? { kernel: state.kernel, n: state.n, slots: state.slots, scalars: state.scalars } : null;
    const slots = st && typedName(st.slots) === 'Float32Array' ? viewOf(st.slots, Float32Array, 'state.slots', where, this._heap.memory.buffer) : null;
    const scalars = st && typedName(st.scalars) === 'Float64Array' ? viewOf(st.scalars, Float64Array, 'state.scalars', where, this._heap.memory.buffer) : null;
    if (!slots || !scalars)
      throw new SoftscopeTypeError(`${where}: state must come from softscope.optimizerState("${k.name}", n) (got ${describe(state)})`, { argument: 'state' });
    if (st.kernel !== k.name || st.n !== wa.n)
      throw new SoftscopeError(`${where}: state is for ${st.kernel} with n = ${st.n}, not ${k.name} with n = ${wa.n}`, STATUS.SS_ERR_LENGTH, { argument: 'state' });
    const ns = k.state_slots * wa.n;
    if (slots.length !== ns || scalars.length !== SCALARS)
      throw new SoftscopeError(`${where}: state.slots has ${slots.length} values and state.scalars ${scalars.length}; ${k.name} with n = ${wa.n} keeps ${ns} and ${SCALARS}`,
        STATUS.SS_ERR_LENGTH, { argument: slots.length !== ns ? 'state.slots' : 'state.scalars' });
    const np = this._packParams(k, params, where, wa.n);
    const [pw, pg] = this._stage([wa, ga]);
    const psl = this._scratch.get('out0', Math.max(4, ns * 4)), psc = this._scratch.get('out1', SCALARS * 8);
    attached(slots, ns, 'state.slots', where);
    attached(scalars, SCALARS, 'state.scalars', where);
    const h = this._heap;
    h.refresh();
    h.f32.set(slots, psl >>> 2);
    h.f64.set(scalars, psc >>> 3);
    const s = this._need('ss_optimize', where)(this._ptr.get(k), this._implFor(k), pw, pg, wa.n, this._paramsPtr, np, psl, psc);
    if (s !== 0) throw this._fail(where, s, [wa, ga], k);
    h.refresh();
    // Written back in place through plain views of the caller's arrays (no
    // caller's code runs; a view of the wasm memory that grew is detached: an Error).
    const back = (v, Type, n, name) => attached(viewOf(v, Type, name, where), n, name, where);
    const targets = [back(w, Float32Array, wa.n, 'w'), back(st.slots, Float32Array, ns, 'state.slots'), back(st.scalars, Float64Array, SCALARS, 'state.scalars')];
    h.refresh();
    targets[0].set(h.f32.subarray(pw >>> 2, (pw >>> 2) + wa.n));
    targets[1].set(h.f32.subarray(psl >>> 2, (psl >>> 2) + ns));
    targets[2].set(h.f64.subarray(psc >>> 3, (psc >>> 3) + SCALARS));
    return w;
  },

  /** SAM's ascent point w + rho g / |g| (a new Float32Array). */
  samPerturb(w, g, rho = 0.05) {
    const where = 'softscope.samPerturb';
    const wa = this._input(w, 'w', where), ga = this._input(g, 'g', where);
    this._checkN(wa, where);
    this._sameLength(wa, ga, where);
    if (typeof rho !== 'number' || !(rho >= 0 && rho <= 1e3))
      throw new SoftscopeError(`${where}: rho = ${describe(rho)} must be a number in [0, 1000]`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'rho' });
    const [pw, pg] = this._stage([wa, ga]);
    const po = this._scratch.get('out0', wa.n * 4);
    const s = this._need('ss_sam_perturb', where)(this._implId, pw, pg, wa.n, rho, po);
    if (s !== 0) throw this._fail(where, s, [wa, ga]);
    this._heap.refresh();
    return this._heap.f32.slice(po >>> 2, (po >>> 2) + wa.n);
  },

  _testFunction(name, where, arg = 'fn') {
    if (typeof name !== 'string')
      throw new SoftscopeTypeError(`${where}: ${arg} must be a function name string (got ${describe(name)})`, { argument: arg });
    const i = this.functions.findIndex((f) => f.name === name);
    if (i < 0)
      throw new SoftscopeError(`${where}: ${arg === 'fn' ? '' : `${arg}: `}unknown function "${name}"; known: ${this.functions.map((f) => f.name).join(', ')}`,
        STATUS.SS_ERR_UNKNOWN_KERNEL, { argument: arg });
    return { index: i, info: this.functions[i] };
  },

  /** f(x, y) and its gradient (games: the descent field (df/dx, -df/dy)). */
  evalFunction(fn, x, y) {
    const where = 'softscope.evalFunction';
    const { index } = this._testFunction(fn, where);
    for (const [v, name] of [[x, 'x'], [y, 'y']])
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new SoftscopeError(`${where}: ${name} = ${describe(v)} must be a finite number`, STATUS.SS_ERR_NONFINITE, { argument: name });
    const pf = this._scratch.get('out0', 8), pg = this._scratch.get('out1', 16);
    const s = this.exports.ss_testfn_eval(index, x, y, pf, pg);
    if (s !== 0) throw this._fail(where, s, []);
    const h = this._heap;
    h.refresh();
    return { f: h.f64[pf >>> 3], grad: [h.f64[pg >>> 3], h.f64[(pg >>> 3) + 1]] };
  },

  /** f on an nx by ny grid over the view [x0, x1, y0, y1] (default: the
   *  function's): a Float32Array, row j = y_j. */
  functionGrid(fn, options) {
    const where = 'softscope.functionGrid';
    const { index, info } = this._testFunction(fn, where);
    const o = opts(options, where, ['nx', 'ny', 'view']);
    const int = (key, def) => number(o, key, def, (v) => Number.isInteger(v) && v >= 2 && v <= 4096, 'must be an integer in [2, 4096]', where);
    const nx = int('nx', 128), ny = int('ny', 128);
    // a copy of the caller's array: read once
    const view = Array.isArray(o.view) ? Array.from(o.view) : o.view ?? info.view;
    if (!Array.isArray(view) || view.length !== 4 || !view.every(Number.isFinite) || !(view[1] > view[0]) || !(view[3] > view[2]))
      throw new SoftscopeError(`${where}: options.view must be [x0, x1, y0, y1] with x0 < x1, y0 < y1 (got ${describe(view)})`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.view' });
    const po = this._scratch.get('out0', nx * ny * 4);
    const s = this.exports.ss_testfn_grid(index, view[0], view[1], view[2], view[3], nx, ny, po);
    if (s !== 0) throw this._fail(where, s, []);
    this._heap.refresh();
    return this._heap.f32.slice(po >>> 2, (po >>> 2) + nx * ny);
  },

  /** A run that advances on demand: runner.advance(k) takes k more steps and
   *  returns their points [[x, y, f], ...]; runner.params = {...} changes the
   *  hyperparameters from the next step on (the state carries over). */
  trajectoryRunner(options) {
    return new TrajectoryRunner(this, options);
  },

  /** A whole run: { kernel, impl, fn, output: [[x, y, f]: the start, then
   *  after each step], metrics }. Options: optimizer, fn, start ([x, y],
   *  default the function's), steps (100), params, noise, clip, seed,
   *  schedule ('constant' | 'cosine' | 'wsd'), warmup, decay, minFactor,
   *  every (1): output keeps the points of steps 0, every, 2 every, ... and
   *  the last step taken; the metrics are over every step either way. The
   *  run is taken in slices of TRAJECTORY_SLICE steps, so its memory is that
   *  of the points kept, not of the steps run. */
  trajectory(options) {
    const where = 'softscope.trajectory';
    const o = opts(options, where, ['optimizer', 'fn', 'start', 'steps', 'params', 'every', ...SCHEDULE_KEYS]);
    const every = number(o, 'every', 1, (v) => Number.isInteger(v) && v >= 1 && v <= MAX_STEPS, `must be an integer in [1, ${MAX_STEPS}]`, where);
    const { every: _, ...rest } = o;
    const r = new TrajectoryRunner(this, rest, where);
    const output = [r.start];
    let last = r.start, best = r.start[2], taken = 0;
    while (taken < r.steps && !r.diverged) {
      const slice = r.advance(Math.min(TRAJECTORY_SLICE, r.steps - taken));
      for (let i = 0; i < slice.length; i++) {
        const p = slice[i];
        best = Math.min(best, p[2]);
        if ((taken + i + 1) % every === 0) output.push(p);
      }
      taken += slice.length;
      if (slice.length) last = slice[slice.length - 1];
    }
    if (taken % every !== 0) output.push(last);
    return { kernel: r.kernel.name, impl: r.kernel.impls.includes(this.impl) ? this.impl : 'scalar', fn: r.fn.name, output,
      metrics: summaryMetrics(r.fn, { steps: taken, last, best }, r.steps) };
  },
};

const SCHEDULE_KEYS = ['noise', 'clip', 'seed', 'schedule', 'total', 'warmup', 'decay', 'minFactor'];

class TrajectoryRunner {
  constructor(ss, options, where = 'softscope.trajectoryRunner') {
    this._ss = ss;
    this._where = where;
    const o = opts(options, where, ['optimizer', 'fn', 'start', 'steps', 'params', ...SCHEDULE_KEYS]);
    if (o.optimizer === undefined)
      throw new SoftscopeError(`${where}: options.optimizer is required (one of ${ss.kernels('optimizer').map((k) => k.name).join(', ')})`,
        STATUS.SS_ERR_UNKNOWN_KERNEL, { argument: 'options.optimizer' });
    this.kernel = ss._lookup(o.optimizer, 'optimizer', where, 'options.optimizer');
    const { index, info } = ss._testFunction(o.fn ?? 'rosenbrock', where, 'options.fn');
    this._fnIndex = index;
    this.fn = info;
    // a copy of the caller's array: read once
    const start = Array.isArray(o.start) || ArrayBuffer.isView(o.start) ? Array.from(o.start) : o.start ?? info.start;
    if (!Array.isArray(start) || start.length !== 2 || !start.every(Number.isFinite))
      throw new SoftscopeError(`${where}: options.start must be [x, y], two finite numbers (got ${describe(start)})`,
        STATUS.SS_ERR_NONFINITE, { argument: 'options.start' });
    // The point is float32: a finite value beyond its range would become +-Inf.
    const big = start.findIndex(overflowsFloat32);
    if (big >= 0)
      throw new SoftscopeError(`${where}: options.start[${big}] = ${start[big]} overflows float32 (|x| > 3.4e38)`,
        STATUS.SS_ERR_NONFINITE, { argument: 'options.start', index: big });
    this.steps = number(o, 'steps', 100, (v) => Number.isInteger(v) && v >= 0 && v <= MAX_STEPS, `must be an integer in [0, ${MAX_STEPS}]`, where);
    const sched = o.schedule ?? 'constant';
    const si = ss.schedules.indexOf(sched);
    if (si < 0)
      throw new SoftscopeError(`${where}: options.schedule = ${describe(sched)} must be one of ${ss.schedules.join(', ')}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.schedule' });
    const nonneg = (key, def, max = Infinity) => number(o, key, def, (v) => Number.isFinite(v) && v >= 0 && v <= max, `must be a number in [0, ${max}]`, where);
    this._opts = {
      noise: nonneg('noise', 0, 1e6), clip: nonneg('clip', 0),
      seed: number(o, 'seed', 0, (v) => Number.isInteger(v) && v >= 0 && v <= 2 ** 53, 'must be an integer in [0, 2^53]', where),
      schedule: si, total: nonneg('total', Math.max(1, this.steps)), warmup: nonneg('warmup', 0),
      decay: nonneg('decay', 0.2, 1), minFactor: nonneg('minFactor', 0, 1),
    };
    this.params = o.params ?? {};
    ss._packParams(this.kernel, this.params, where, undefined, 'options.params'); // fail early on bad params
    this._w = Float32Array.from(start);
    this.start = this._point(this._w);
    this._slots = new Float32Array(Math.max(1, this.kernel.state_slots * 2));
    this._scalars = new Float64Array(SCALARS);
  }

  _point(w) {
    return [w[0], w[1], this._ss.evalFunction(this.fn.name, w[0], w[1]).f];
  }

  /** Steps taken so far. */
  get step() {
    return this._scalars[0];
  }

  /** Take up to k steps; fewer when the run diverges (then `diverged`). */
  advance(k) {
    return this._ss._call(this._advance, [k], this);
  }

  _advance(k) {
    const ss = this._ss, where = this._where;
    if (!Number.isInteger(k) || k < 0 || k > MAX_STEPS)
      throw new SoftscopeError(`${where}: advance(k): k = ${describe(k)} must be an integer in [0, ${MAX_STEPS}]`, STATUS.SS_ERR_LENGTH, { argument: 'k' });
    if (k === 0 || this.diverged) return [];
    const np = ss._packParams(this.kernel, this.params, where);
    const pw = ss._scratch.get('tw', 8), psl = ss._scratch.get('tsl', this._slots.length * 4);
    const psc = ss._scratch.get('tsc', SCALARS * 8), pop = ss._scratch.get('topt', SCHEDULE_KEYS.length * 8);
    const pp = ss._scratch.get('tpath', k * 24), pd = ss._scratch.get('tdone', 8);
    const h = ss._heap;
    h.refresh();
    h.f32.set(this._w, pw >>> 2);
    h.f32.set(this._slots, psl >>> 2);
    h.f64.set(this._scalars, psc >>> 3);
    SCHEDULE_KEYS.forEach((key, i) => { h.f64[(pop >>> 3) + i] = this._opts[key]; });
    const s = ss._need('ss_trajectory', where)(ss._ptr.get(this.kernel), ss._implFor(this.kernel), this._fnIndex, ss._paramsPtr, np,
      pop, k, pw, psl, psc, pp, pd);
    if (s !== 0) throw ss._fail(where, s, [], this.kernel);
    h.refresh();
    this._w.set(h.f32.subarray(pw >>> 2, (pw >>> 2) + 2));
    this._slots.set(h.f32.subarray(psl >>> 2, (psl >>> 2) + this._slots.length));
    this._scalars.set(h.f64.subarray(psc >>> 3, (psc >>> 3) + SCALARS));
    const done = h.u32[pd >>> 2];
    if (done < k) this.diverged = true;
    const path = h.f64.subarray(pp >>> 3, (pp >>> 3) + 3 * done), out = new Array(done);
    for (let i = 0; i < done; i++) out[i] = [path[3 * i], path[3 * i + 1], path[3 * i + 2]];
    return out;
  }
}
