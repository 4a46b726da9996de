// @vitest-environment happy-dom
// The Dispersion view: the model is the analysis's sweep, its stepper (the
// progressive views' protocol) computes it in budget-sized slices, takes a
// display-only change in place and frees a stale run's wasm buffers,
// stale points stay drawn until recomputed, and the view in a DOM draws
// exactly the API's numbers, before and after the margin slider moves; the
// link holds what is on screen.
import { describe, it, expect, vi, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { dispersionSweep } from 'softscope/analysis';
import { mergeDisplay, nearestIndex } from '../../web/src/views/dispersion/display.js';
import { defaults, parse, hashEntries } from '../../wasm/state/schema.js';
import { dispersion as view } from '../../wasm/views/dispersion/index.js';
import { sweepOptions } from '../../wasm/views/dispersion/model.js';
import { mountView } from './support/mount-view.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

describe('schema and model', () => {
  it('the default normalizers: softmax against the sparse and adaptive ones the registry has', () => {
    expect(defaults(view.schema, ss).kernels).toEqual(['softmax', 'sparsemax', 'entmax15', 'ssmax', 'adaptive_temperature']);
  });

  it('compute is the API sweep for the state\'s options', () => {
    const s = parse(view.schema, hashEntries('kernels=softmax,softmax_temperature&temperature=0.5&nmax=1024&ppo=2&margin=4'), ss).state;
    const d = view.compute(ss, s);
    const api = dispersionSweep(ss, sweepOptions(ss, s).options);
    expect(d.n).toEqual(api.n);
    for (const [i, x] of api.series.entries()) for (const m of ['keyProb', 'maxProb', 'entropy', 'support']) expect(d.series[i][m]).toEqual(x[m]);
    expect(api.series[1].params).toEqual({ temperature: 0.5 });
  });

  it('a normalizer with a bad parameter is left out with its message; the others run', () => {
    const s = { ...parse(view.schema, hashEntries('kernels=softmax,entmax_bisect&nmax=64'), ss).state, params: { alpha: 99 } };
    const d = view.compute(ss, s);
    expect(d.series.map((x) => x.name)).toEqual(['softmax']);
    expect(d.invalid).toEqual([{ name: 'entmax_bisect', error: expect.stringMatching(/params\.alpha = 99/) }]);
  });
});

describe('the stepper (start)', () => {
  const stateOf = (text) => parse(view.schema, hashEntries(text), ss).state;
  const link = 'kernels=softmax,log_softmax&nmax=4096&distractor=gaussian&scale=1';

  it('step(0) computes one cell; the data grows left to right and ends with compute\'s numbers', () => {
    const s = stateOf(link), st = view.start(ss, s);
    expect(st.data().n).toEqual([]); // nothing runs before the first step
    const fresh = [];
    let steps = 0;
    while (st.step(0)) {
      steps++;
      const d = st.data();
      fresh.push(d.series.map((x) => x.fresh));
      // computed where fresh says, NaN beyond
      for (const x of d.series) x.keyProb.forEach((v, j) => expect(Number.isNaN(v)).toBe(j >= x.fresh));
    }
    const cells = st.data().n.length * 2;
    expect(steps).toBe(cells); // one cell per step; the step after the last cell finds the end
    for (let i = 1; i < fresh.length; i++) expect(fresh[i][0] + fresh[i][1]).toBe(fresh[i - 1][0] + fresh[i - 1][1] + 1);
    expect(st.data()).toEqual(view.compute(ss, s));
    expect(st.progress()).toEqual({ done: cells, total: cells });
    const api = dispersionSweep(ss, sweepOptions(ss, s).options);
    expect(st.data().series.map((x) => x.entropy)).toEqual(api.series.map((x) => x.entropy));
  });

  it('a budget takes several cells per step', () => {
    const st = view.start(ss, stateOf(link));
    st.step(1e9);
    expect(st.progress().done).toBe(st.data().n.length * 2);
  });

  it('update(): a display-only change is taken in place, a change of the sweep starts over', () => {
    const s = stateOf(link), st = view.start(ss, s);
    st.step(0);
    expect(st.update({ ...s, plog: !s.plog })).toBe(true);
    expect(st.data().probLog).toBe(!s.plog);
    expect(st.progress().done).toBe(1); // the work went on where it was
    expect(st.update({ ...s, margin: s.margin + 1 })).toBe(false);
    expect(st.update({ ...s, kernels: ['softmax'] })).toBe(false);
    st.stop();
  });

  it('stop() ends a run mid-way: the wasm buffers are freed', () => {
    const s0 = ss.heapStats(), st = view.start(ss, stateOf(link));
    for (let i = 0; i < 3; i++) expect(st.step(0)).toBe(true);
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations + 2); // the paused run holds x and y
    st.stop();
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations);
  });

  it('no normalizer to run: no work, the invalid ones listed', () => {
    const s = { ...stateOf('kernels=entmax_bisect&nmax=64'), params: { alpha: 99 } };
    const st = view.start(ss, s);
    expect(st.step(10)).toBe(false);
    expect(st.data()).toMatchObject({ n: [], series: [], invalid: [{ name: 'entmax_bisect' }] });
  });
});

describe('display while a run is in progress', () => {
  it('fresh values where computed, the previous run elsewhere (matched by normalizer and n)', () => {
    const prev = { n: [2, 4, 8], series: [{ name: 'a', keyProb: [1, 2, 3], maxProb: [1, 2, 3], entropy: [0, 0, 0], support: [1, 1, 1], sum: [1, 1, 1] }] };
    const mk = (vals) => ({ keyProb: vals, maxProb: vals, entropy: vals, support: vals, sum: vals });
    // the stepper's data after 3 cells (n-major: a@2, b@2, a@4)
    const data = { n: [2, 4, 8, 16], series: [{ name: 'a', output: 'probs', params: {}, errors: [], fresh: 2, ...mk([10, 20, NaN, NaN]) },
      { name: 'b', output: 'probs', params: {}, errors: [], fresh: 1, ...mk([5, NaN, NaN, NaN]) }] };
    const d = mergeDisplay(prev, data);
    expect(d.series[0].keyProb).toEqual([10, 20, 3, NaN]);
    expect(d.series[0].fresh).toBe(2);
    expect(d.series[1].keyProb).toEqual([5, NaN, NaN, NaN]);
    expect(d.series[1].fresh).toBe(1);
    const none = { ...data, series: data.series.map((x) => ({ ...x, fresh: 0 })) };
    expect(mergeDisplay(null, none).series[0].keyProb).toEqual([NaN, NaN, NaN, NaN]);
  });

  it('hover picks the nearest grid point on a log axis', () => {
    const ns = [2, 4, 8, 16];
    expect(nearestIndex(ns, 5.5)).toBe(1); // log-nearer to 4 than to 8 (sqrt(32) = 5.66)
    expect(nearestIndex(ns, 5.8)).toBe(2);
    expect(nearestIndex(ns, 1000)).toBe(3);
  });
});

describe('the view in a DOM', () => {
  const section = (root) => root.querySelector('[data-dispersion-status]');
  const drawn = (root, series, metric) =>
    root.querySelector(`[data-chart] path[data-series="${series}"][data-metric="${metric}"]`)?.getAttribute('data-value').split(',').map(Number);
  const apiFor = (state) => dispersionSweep(ss, sweepOptions(ss, state).options);
  async function settle(root, run, check = () => {}) {
    await vi.waitFor(() => {
      const s = section(root);
      expect(s.dataset.dispersionStatus).toBe('done');
      if (run !== undefined) expect(Number(s.dataset.run)).toBeGreaterThan(run);
      check();
    }, { timeout: 15000, interval: 10 });
  }
  function slide(input, pos) {
    input.value = String(pos);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }

  it('draws the API numbers; the margin slider reruns the sweep; the link holds what is shown', async () => {
    const m = mountView(ss, 'dispersion', 'kernels=softmax,softmax_temperature&temperature=0.5&nmax=1024&ppo=2');
    try {
      await settle(m.root);
      const first = apiFor(m.box.state);
      for (const s of first.series) for (const k of ['maxProb', 'keyProb', 'entropy', 'support']) expect(drawn(m.root, s.name, k)).toEqual(s[k]);
      expect(m.root.querySelectorAll('g[data-chart]')).toHaveLength(3);
      expect(m.root.querySelector('[data-readout-n]').dataset.readoutN).toBe('1024');
      // the margin slider: position 750 of 1000 on [-4, 12] is 8
      const run = Number(section(m.root).dataset.run);
      slide(m.root.querySelector('#dispersion-margin'), 750);
      await settle(m.root, run);
      expect(m.box.state.margin).toBe(8);
      const second = apiFor(m.box.state);
      expect(drawn(m.root, 'softmax', 'keyProb')).toEqual(second.series[0].keyProb);
      expect(second.series[0].keyProb[0]).toBeGreaterThan(first.series[0].keyProb[0]);
      // the same view from the link draws the same
      const other = mountView(ss, 'dispersion', m.link());
      try {
        await settle(other.root);
        expect(drawn(other.root, 'softmax_temperature', 'entropy')).toEqual(drawn(m.root, 'softmax_temperature', 'entropy'));
        expect(other.box.state).toEqual(m.box.state);
      } finally {
        other.unmount();
      }
    } finally {
      m.unmount();
    }
  });

  it('moves in quick succession: only the last one is drawn, stale runs leave no buffers behind', async () => {
    const m = mountView(ss, 'dispersion', 'kernels=softmax&nmax=65536&distractor=constant');
    try {
      await settle(m.root);
      const s0 = ss.heapStats();
      const run = Number(section(m.root).dataset.run);
      const input = m.root.querySelector('#dispersion-margin');
      for (const pos of [300, 400, 500, 600]) {
        slide(input, pos);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(m.box.state.margin).toBe(5.6);
      const em = Math.exp(5.6);
      await settle(m.root, run, () => {
        const key = drawn(m.root, 'softmax', 'keyProb');
        apiFor(m.box.state).n.forEach((n, j) => expect(Math.abs(key[j] / (em / (em + n - 1)) - 1)).toBeLessThanOrEqual(2e-6));
      });
      expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations);
    } finally {
      m.unmount();
    }
  });

  it('controls: distractor kind, n max (powers of two), points per octave and the chooser update the state', async () => {
    const m = mountView(ss, 'dispersion', 'kernels=softmax&nmax=256');
    try {
      await settle(m.root);
      const sel = m.root.querySelector('#dispersion-distractor');
      sel.value = 'uniform';
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      slide(m.root.querySelector('#dispersion-nmax'), 5); // position 5 of 2^4 .. 2^20 is 2^9
      slide(m.root.querySelector('#dispersion-ppo'), 4);
      const box2 = m.root.querySelector('input[data-kernel="log_softmax"]');
      box2.checked = true;
      box2.dispatchEvent(new Event('change', { bubbles: true }));
      await vi.waitFor(() => expect(m.box.state.kernels).toEqual(['softmax', 'log_softmax']));
      expect(m.box.state).toMatchObject({ distractor: 'uniform', nmax: 512, ppo: 4 });
      const api = apiFor(m.box.state);
      expect(api.n[api.n.length - 1]).toBe(512);
      await settle(m.root, undefined, () => {
        expect(drawn(m.root, 'log_softmax', 'support')).toEqual(api.series[1].support);
        expect(drawn(m.root, 'softmax', 'entropy')).toEqual(api.series[0].entropy);
      });
    } finally {
      m.unmount();
    }
  });
});
