// The optimizers panel's pieces without a browser: the optim.* URL keys
// round-trip (per-optimizer hyperparameters included), defaults stay out of
// the URL and malformed values fall back field by field; pixel and function
// coordinates invert each other; the heat map's lightest band is at the
// minimum and its darkest at the highest value of the view; runs advanced
// in chunks follow ss.trajectory exactly and stop at the last step.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parseHash, serializeState, defaultState, optimState, DEFAULT_OPTIM } from '../../web/src/state/url.js';
import { viewMap, heatPixels, makeRuns, advanceRuns, validList, optimizerParams, runSummary, BANDS } from '../../web/src/lib/optimView.js';
import { heatRgb } from '../../wasm/optim-svg.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

describe('optimizers URL state', () => {
  it('round-trips optim.* keys, per-optimizer params included, and leaves defaults out', () => {
    const optim = { ...optimState(defaultState()), fn: 'beale', start: [0.5, -1.25], list: ['adam', 'sam'], steps: 500, speed: 3,
      noise: 0.5, clip: 10, seed: 9, schedule: 'wsd', warmup: 50, sel: 'sam',
      params: { adam: { lr: 0.05, beta1: 0.8 }, lion: { lr: 0.005 }, sam: { rho: 0.1 } } };
    const s = { ...defaultState(), panel: 'optimizers', optim };
    const hash = serializeState(s);
    expect(hash).toContain('optim.adam.beta1=0.8');
    expect(hash).not.toContain('optim.lion.lr'); // the panel's default override
    expect(parseHash(hash)).toEqual(s);
    expect(serializeState({ ...defaultState(), optim: optimState(defaultState()) })).not.toContain('optim.');
    expect(optimState(defaultState())).toEqual({ ...DEFAULT_OPTIM, params: { adam: { lr: 0.02 }, lion: { lr: 0.005 } } });
  });

  it('malformed values fall back field by field; the list holds at most 8', () => {
    const o = optimState(parseHash('#optim.fn=Bad!&optim.start=1,x&optim.steps=9&optim.noise=-1&optim.schedule=linear&optim.list=a,b,c,d,e,f,g,h,i&optim.adam.lr=x&optim.seed=2'));
    expect(o.fn).toBe(DEFAULT_OPTIM.fn);
    expect(o.start).toBe(null);
    expect(o.steps).toBe(DEFAULT_OPTIM.steps);
    expect(o.noise).toBe(0);
    expect(o.schedule).toBe('constant');
    expect(o.list).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(o.params.adam).toEqual({ lr: 0.02 });
    expect(o.seed).toBe(2);
    expect(validList(ss, o.list)).toEqual([]);
    expect(validList(ss, ['adam', 'nope', 'sgd'])).toEqual(['adam', 'sgd']);
  });
});

describe('optimizers view', () => {
  it('pixels and function coordinates invert each other', () => {
    for (const fn of ss.functions) {
      const { toPx, toXY } = viewMap(fn, 400);
      const [px, py] = toPx(fn.start[0], fn.start[1]);
      const [x, y] = toXY(px, py);
      expect(x).toBeCloseTo(fn.start[0], 12);
      expect(y).toBeCloseTo(fn.start[1], 12);
      expect(toPx(fn.view[0], fn.view[3])).toEqual([0, 0]); // top-left is (xmin, ymax)
    }
  });

  it('the heat map is lightest at the minimum and darkest at the largest value', () => {
    const fn = ss.functions.find((f) => f.name === 'quadratic');
    const cells = 41, h = heatPixels(ss, fn, cells);
    const at = (i, j) => Array.from(h.px.subarray((j * cells + i) * 4, (j * cells + i) * 4 + 3)); // row 0 at the top
    const rgb = heatRgb;
    expect(at(20, 20)).toEqual(rgb(0)); // (0, 0), the minimum, is the centre cell
    const grid = ss.functionGrid('quadratic', { nx: cells, ny: cells });
    let imax = 0;
    for (let k = 1; k < grid.length; k++) if (grid[k] > grid[imax]) imax = k;
    const i = imax % cells, j = Math.floor(imax / cells);
    expect(at(i, cells - 1 - j)).toEqual(rgb(1));
    const bands = new Set();
    for (let k = 0; k < cells * cells; k++) bands.add(h.px[4 * k]);
    expect(bands.size).toBeLessThanOrEqual(BANDS + 1);
  });

  it('runs advanced in chunks follow ss.trajectory and stop at the last step', () => {
    const o = { ...optimState(defaultState()), fn: 'himmelblau', list: ['adam', 'nesterov', 'nope'], steps: 120, noise: 0.3, seed: 5 };
    const fn = ss.functions.find((f) => f.name === 'himmelblau');
    const runs = makeRuns(ss, o, fn);
    expect(runs.map((r) => r.name)).toEqual(['adam', 'nesterov']);
    let more = true, calls = 0;
    while (more) { more = advanceRuns(runs, 7, o.steps); calls++; }
    expect(calls).toBe(Math.ceil(120 / 7));
    expect(advanceRuns(runs, 7, o.steps)).toBe(false);
    for (const r of runs) {
      const want = ss.trajectory({ optimizer: r.name, fn: 'himmelblau', steps: 120, noise: 0.3, seed: 5,
        params: optimizerParams(ss.kernel(r.name, 'optimizer'), o.params[r.name]) });
      expect(r.path).toEqual(want.output);
      expect(runSummary(fn, r).step).toBe(120);
    }
  });
});
