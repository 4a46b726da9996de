// @vitest-environment happy-dom
// The Optimizers view without a browser: its link state round-trips (kernel
// hyperparameters as adam.lr=...), defaults stay out of links and bad values
// fall back with notices; the heat map's lightest band is at the minimum and
// its darkest at the largest value, in the legend's colours; a race advanced
// in chunks follows ss.trajectory exactly and stops at the last step, and
// compute() runs it to the end; the stepper takes only the pace and the
// shown optimizer in place (a new hyperparameter starts the race over, so
// the race is always its state's); a bad hyperparameter stops only its optimizer; a diverging one is clipped
// and marked; the figure (well-formed SVG) draws the model's numbers, and
// maps presses, drags and arrow keys on the map to function coordinates.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, defaults, toHash } from '../../wasm/state/schema.js';
import { optimizers as view } from '../../wasm/views/optimizers/index.js';
import { compute, start, startRace, advanceRace, raceOver, raceData, paramsOf, heatOf, table } from '../../wasm/views/optimizers/model.js';
import { RACE_DEFAULTS, MAX_RACE } from '../../wasm/views/optimizers/schema.js';
import { heatRaster, optimizersLayout, BANDS } from '../../wasm/figures/optimizers.js';
import { THEMES, rampRgb } from '../../wasm/figures/palette.js';
import { figureFiles } from '../../wasm/views/files.js';
import { parseXml } from './support/xml.js';
import { viewState, mountFigure } from './support/view-harness.js';
import { readHash } from '../../web/src/state/location.js';
import { Field } from '../../web/src/controls/Field.jsx';
import { h, render } from 'preact';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

const { schema } = view;
const { read, state } = viewState(view, () => ss);
const mount = (data, props) => mountFigure(view, ss, data, props);

describe('optimizers state', () => {
  it('round-trips every key, kernel hyperparameters included, and leaves defaults out of the link', () => {
    const sched = ss.schedules[ss.schedules.length - 1];
    const s = {
      ...defaults(schema, ss), fn: 'beale', start: [0.5, -1.25], kernels: ['adam', 'sam'], sel: 'sam', steps: 500, speed: 3,
      noise: 0.5, clip: 10, schedule: sched, warmup: 50, seed: 9, params: { 'adam.lr': 0.05, 'adam.beta1': 0.8, 'sam.rho': 0.1 },
    };
    const hash = toHash(schema, s, ss);
    expect(hash).toContain('adam.beta1=0.8');
    expect(hash).toContain('start=0.5,-1.25');
    const back = read(hash);
    expect(back.notices).toEqual([]);
    expect(back.state).toEqual(s);
    expect(toHash(schema, defaults(schema, ss), ss)).toBe('view=optimizers');
  });

  it('the race defaults (adam lr 0.02, lion lr 0.005) apply where a link sets nothing, the registry the rest', () => {
    const s = defaults(schema, ss);
    expect(s.params).toEqual({});
    expect(paramsOf(ss, s, 'adam').lr).toBe(RACE_DEFAULTS.adam.lr);
    expect(paramsOf(ss, s, 'lion').lr).toBe(RACE_DEFAULTS.lion.lr);
    expect(paramsOf(ss, s, 'adam').beta2).toBe(ss.kernel('adam').params.find((p) => p.name === 'beta2').default);
    expect(paramsOf(ss, s, 'sgd').lr).toBe(ss.kernel('sgd').params.find((p) => p.name === 'lr').default);
    expect(paramsOf(ss, state('adam.lr=0.3&kernels=adam'), 'adam').lr).toBe(0.3);
  });

  it('the hyperparameter controls show the race defaults as the defaults (reset returns there)', () => {
    const f = schema.fields.find((x) => x.key === 'params');
    const root = document.createElement('div');
    const show = (params) => {
      render(h(Field, { f, state: { ...state('kernels=adam,sgd&sel=adam'), params }, set: () => {}, ss, idPrefix: 'optim' }), root);
      const lr = root.querySelector('[data-param="lr"]');
      return { value: Number(lr.querySelector('[data-param-value]').getAttribute('data-param-value')), reset: !!lr.querySelector('.link-button') };
    };
    expect(show({})).toEqual({ value: RACE_DEFAULTS.adam.lr, reset: false });
    expect(show({ 'adam.lr': 0.05 })).toEqual({ value: 0.05, reset: true });
    render(null, root);
  });

  it('bad link values fall back to their defaults with a notice naming the key', () => {
    const d = defaults(schema, ss);
    const r = read('fn=Bad!&start=1,x&steps=9&noise=-1&schedule=linear&kernels=nope,adam,sgd&adam.lr=x&adam.beta1=1&seed=2&color=red');
    expect(r.state.fn).toBe(d.fn);
    expect(r.state.start).toBe(null);
    expect(r.state.steps).toBe(d.steps);
    expect(r.state.noise).toBe(0);
    expect(r.state.schedule).toBe(ss.schedules[0]);
    expect(r.state.kernels).toEqual(['adam', 'sgd']); // the known ones
    expect(r.state.params).toEqual({}); // lr is not a number, beta1 = 1 is outside [0, 1)
    expect(r.state.seed).toBe(2);
    expect(r.notices.map((n) => n.key).sort()).toEqual(['adam.beta1', 'adam.lr', 'color', 'fn', 'kernels', 'noise', 'schedule', 'start', 'steps'].sort());
    const many = ss.kernels('optimizer').slice(0, MAX_RACE + 2).map((k) => k.name);
    const r2 = read(`kernels=${many.join(',')}&sgd.nope=1`);
    expect(r2.state.kernels).toEqual(many.slice(0, MAX_RACE));
    expect(r2.notices.map((n) => n.key)).toEqual(['kernels', 'sgd.nope']);
  });

  it('reads links of the earlier format (optim.* keys)', () => {
    const r = readHash('#panel=optimizers&optim.fn=beale&optim.list=sgd,adam&optim.adam.lr=0.1&optim.steps=300&optim.sel=adam&preset=x', ['optimizers']);
    const { state: s, notices } = parse(schema, r.entries, ss);
    expect(notices).toEqual([]);
    expect(s).toEqual({ ...defaults(schema, ss), fn: 'beale', kernels: ['sgd', 'adam'], steps: 300, sel: 'adam', params: { 'adam.lr': 0.1 } });
  });
});

describe('optimizers heat map', () => {
  it('is lightest at the minimum and darkest at the largest value, in the legend\'s band colours', () => {
    const fn = ss.functions.find((f) => f.name === 'quadratic');
    const cells = 41;
    const heat = heatOf(ss, fn, cells);
    const ramp = THEMES.light.terrain;
    const { rgba } = heatRaster(heat, ramp);
    const at = (i, row) => Array.from(rgba.subarray((row * cells + i) * 4, (row * cells + i) * 4 + 3)); // row 0 at the top
    expect(at(20, 20)).toEqual(rampRgb(ramp, 0.5 / BANDS)); // (0, 0), the minimum, is the centre cell
    let imax = 0;
    for (let k = 1; k < heat.values.length; k++) if (heat.values[k] > heat.values[imax]) imax = k;
    expect(at(imax % cells, cells - 1 - Math.floor(imax / cells))).toEqual(rampRgb(ramp, (BANDS - 0.5) / BANDS));
    const colours = new Set();
    for (let k = 0; k < cells * cells; k++) colours.add(rgba.slice(4 * k, 4 * k + 3).join());
    expect(colours.size).toBeLessThanOrEqual(BANDS);
    // heat values are the kernel's f (the figure shows log(1 + f − f*)): the grid's least is f* at the centre
    expect(heat.lo).toBe(fn.fmin);
    expect(heat.values[20 * cells + 20]).toBe(fn.fmin);
  });
});

describe('optimizers race', () => {
  it('runs advanced in chunks follow ss.trajectory exactly and stop at the last step', () => {
    const s = state('fn=himmelblau&kernels=adam,nesterov&steps=120&noise=0.3&seed=5');
    const race = startRace(ss, s);
    let more = true, calls = 0;
    while (more) { more = advanceRace(race, 7); calls++; }
    expect(calls).toBe(Math.ceil(120 / 7));
    expect(raceOver(race)).toBe(true);
    expect(advanceRace(race, 7)).toBe(false);
    const d = raceData(race);
    expect(d.step).toBe(120);
    for (const r of d.runs) {
      const want = ss.trajectory({ optimizer: r.name, fn: 'himmelblau', steps: 120, noise: 0.3, seed: 5, params: paramsOf(ss, s, r.name) });
      expect(r.path).toEqual(want.output);
      expect(r.step).toBe(120);
      expect([r.x, r.y, r.f]).toEqual(want.output[120]);
    }
    // headless: compute() runs the whole race
    expect(compute(ss, s).runs.map((r) => r.path)).toEqual(d.runs.map((r) => r.path));
    const t = table(d);
    expect(t.rows.length).toBe(2 * 121);
    expect(t.rows[121]).toEqual(['nesterov', 0, ...d.runs[1].path[0]]);
  });

  it('the stepper takes the pace and the shown optimizer in place; a new hyperparameter starts the race over', () => {
    const s = state('fn=quadratic&kernels=sgd,momentum&steps=60&speed=5');
    const st = start(ss, s);
    st.step(10);
    st.step(10);
    expect(st.data().step).toBe(10);
    // the pace and the shown optimizer leave the numbers alone: the race goes on
    const paced = { ...s, speed: 20, sel: 'momentum' };
    expect(st.update(paced)).toBe(true);
    st.step(10);
    expect(st.data().step).toBe(30);
    while (st.step(10));
    expect(st.data()).toEqual(compute(ss, paced));
    // a hyperparameter (of a running or a finished race) is not taken in place:
    // a race whose lr changed at step 20 is not its link's race
    const again = start(ss, s);
    again.advance(20);
    expect(again.update({ ...s, params: { 'sgd.lr': 0.05 } })).toBe(false);
    expect(again.update({ ...s, params: { 'momentum.lr': 0.005 } })).toBe(false);
    expect(st.update({ ...paced, params: { 'sgd.lr': 0.05 } })).toBe(false);
    // the same values in a new object are the same race
    expect(again.update({ ...s, params: { ...s.params } })).toBe(true);
  });

  it('a bad hyperparameter stops only its optimizer, with the kernel\'s message', () => {
    // in range for the link, rejected by the kernel (cols must fit the 2 parameters)
    const d = compute(ss, state('kernels=sgd,sage&sage.cols=3&steps=200'));
    const [sgd, sage] = d.runs;
    expect(sgd.error).toBe(null);
    expect(sgd.step).toBe(200);
    expect(sage.step).toBe(0);
    expect(sage.error).toMatch(/\S/);
    // a state built by hand (the CLI, a widget) with a value out of range
    const d2 = compute(ss, { ...state('kernels=adam,lion&steps=50'), params: { 'adam.lr': -1 } });
    expect(d2.runs[0].error).toMatch(/lr/);
    expect(d2.runs[1].step).toBe(50);
    // the figure names it
    const m = mount(d);
    try {
      expect(m.q('[data-error="sage"]').textContent).toContain(sage.error.split(' ')[0]);
      expect(m.q('[data-run="sage"]').textContent).toContain('sage');
    } finally {
      m.unmount();
    }
  });

  it('a diverging optimizer does not stretch the loss axis: the axis is clipped and the run marked', () => {
    const s = state('kernels=sgd,adam&sgd.lr=0.01&steps=300');
    const d = compute(ss, s);
    const [sgd, adam] = d.runs;
    expect(sgd.diverged).toBe(true);
    expect(sgd.divergedAt).toBe(sgd.step);
    expect(sgd.step).toBeLessThan(300);
    expect(sgd.f - d.fn.fmin).toBeGreaterThan(1e20); // f at the last point before the engine stopped it
    expect(adam.step).toBe(300);
    const start = sgd.path[0][2] - d.fn.fmin;
    expect(d.loss.log).toBe(true);
    expect(d.loss.domain[1]).toBeLessThanOrEqual(1e3 * start);
    expect(d.loss.domain[0]).toBeLessThanOrEqual(Math.min(...adam.path.map((p) => p[2] - d.fn.fmin).filter((v) => v > 1e-12)));
    expect(sgd.offAxisAt).toBeGreaterThan(0);
    const m = mount(d);
    try {
      const ticks = m.qa('[data-panel="loss"] .axis-y [data-tick]').map((e) => Number(e.getAttribute('data-tick')));
      expect(Math.max(...ticks)).toBeLessThanOrEqual(10 * 1e3 * start);
      expect(Math.max(...ticks)).toBeGreaterThanOrEqual(start);
      // whole powers of ten, written 10^k
      for (const t of ticks) expect(Math.log10(t)).toBeCloseTo(Math.round(Math.log10(t)), 9);
      expect(m.q('[data-panel="loss"] .axis-y text').textContent).toMatch(/^10[−\d]+$/);
      expect(m.q('[data-diverged="sgd"]').getAttribute('data-value')).toBe(String(sgd.divergedAt));
      expect(m.q('[data-run="sgd"] [data-note="diverged"]').textContent).toContain(`diverged at step ${sgd.divergedAt}`);
      expect(m.q('[data-diverged="adam"]')).toBe(null);
    } finally {
      m.unmount();
    }
  });
});

describe('optimizers figure', () => {
  it('is well-formed SVG whose marks carry the model\'s numbers (light and dark)', () => {
    const s = state('fn=rosenbrock&kernels=sgd,momentum,adam,lion&steps=400&sgd.lr=0.01');
    const d = compute(ss, s);
    for (const theme of ['light', 'dark']) {
      const f = figureFiles(ss, view, s, d, { theme });
      const els = parseXml(f.svg);
      expect(els[0].name).toBe('svg');
      expect(Number(els[0].attrs.height)).toBe(optimizersLayout(d, 760).height);
      expect(els.filter((e) => e.name === 'image' && e.attrs['data-heat'] === 'rosenbrock').length).toBe(1);
      expect(els.filter((e) => e.attrs['data-minimum']).length).toBe(d.fn.minima.length);
    }
    const m = mount(d);
    try {
      for (const r of d.runs) {
        const g = m.q(`[data-run="${r.name}"]`);
        expect(Number(g.getAttribute('data-run-step'))).toBe(r.step);
        expect([g.getAttribute('data-x'), g.getAttribute('data-y'), g.getAttribute('data-f')]).toEqual([r.x, r.y, r.f].map(String));
        if (r.error) continue;
        expect(g.querySelector('[data-metric="loss"]').getAttribute('data-value')).toBe(String(r.f - d.fn.fmin));
        expect(g.querySelector('[data-metric="distance"]').getAttribute('data-value')).toBe(String(r.distance));
        // the end of a path inside the view is drawn where the run stands
        const end = m.q(`[data-run-end="${r.name}"]`);
        if (end) expect([end.getAttribute('data-x'), end.getAttribute('data-y')]).toEqual([String(r.x), String(r.y)]);
      }
      expect(m.q('[data-start]').getAttribute('data-start')).toBe(d.start.join(','));
    } finally {
      m.unmount();
    }
  });

  it('maps a press, a drag and the arrow keys on the map to function coordinates', () => {
    const d = compute(ss, state('fn=quadratic&kernels=sgd&steps=10'));
    const [x0, x1, y0, y1] = d.fn.view;
    const got = [];
    const m = mount(d, { onStart: (p) => got.push(p) });
    try {
      const L = optimizersLayout(d, 760);
      // the start ring sits at the start, on the figure's own scales
      const ring = m.q('[data-start]');
      expect(Number(ring.getAttribute('cx'))).toBeCloseTo(L.plot.x + ((d.start[0] - x0) / (x1 - x0)) * L.plot.w, 6);
      expect(Number(ring.getAttribute('cy'))).toBeCloseTo(L.plot.bottom - ((d.start[1] - y0) / (y1 - y0)) * L.plot.h, 6);
      const input = m.q('[data-map-input]');
      input.getBoundingClientRect = () => ({ left: 100, top: 50, width: 400, height: 400, right: 500, bottom: 450 });
      input.dispatchEvent(new PointerEvent('pointerdown', { clientX: 200, clientY: 350, pointerId: 1, buttons: 1, bubbles: true }));
      input.dispatchEvent(new PointerEvent('pointermove', { clientX: 300, clientY: 150, pointerId: 1, buttons: 1, bubbles: true }));
      input.dispatchEvent(new PointerEvent('pointermove', { clientX: 400, clientY: 150, pointerId: 1, buttons: 0, bubbles: true })); // released: ignored
      expect(got.length).toBe(2);
      expect(got[0][0]).toBeCloseTo(x0 + 0.25 * (x1 - x0), 12);
      expect(got[0][1]).toBeCloseTo(y1 - 0.75 * (y1 - y0), 12);
      expect(got[1][0]).toBeCloseTo(x0 + 0.5 * (x1 - x0), 12);
      expect(got[1][1]).toBeCloseTo(y1 - 0.25 * (y1 - y0), 12);
      ring.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      ring.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', shiftKey: true, bubbles: true }));
      ring.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', bubbles: true }));
      expect(got[2][0]).toBeCloseTo(d.start[0] + 0.02 * (x1 - x0), 12);
      expect(got[2][1]).toBe(d.start[1]);
      expect(got[3][1]).toBeCloseTo(d.start[1] + 0.1 * (y1 - y0), 12);
      expect(got[4]).toBe(null);
      expect(ring.getAttribute('tabindex')).toBe('0');
    } finally {
      m.unmount();
    }
  });

  it('a game (bilinear) plots f on a linear axis that holds 0', () => {
    const fn = ss.functions.find((f) => f.game);
    const d = compute(ss, state(`fn=${fn.name}&kernels=sgd,ogda&steps=300`));
    expect(d.loss.log).toBe(false);
    expect(d.loss.domain[0]).toBeLessThanOrEqual(0);
    expect(d.loss.domain[1]).toBeGreaterThanOrEqual(0);
    const m = mount(d);
    try {
      expect(m.q('[data-panel="loss"] .axis-y [data-tick="0"]')).not.toBe(null);
    } finally {
      m.unmount();
    }
  });
});
