// @vitest-environment happy-dom
// The Dispersion view: the model is the API's sweep, the runner computes it
// in frame-sized slices and cancels stale runs without leaking wasm buffers,
// stale points stay drawn until recomputed, and the view in a DOM draws
// exactly the API's numbers, before and after the margin slider moves; the
// link holds what is on screen.
import { describe, it, expect, vi, beforeAll } from 'vitest';
import { createSoftscope, dispersionSweep } from 'softscope';
import { startSweep } from '../../web/src/views/dispersion/sweepRunner.js';
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

describe('runner', () => {
  // A manual frame scheduler and a clock that advances 1 ms per reading: the
  // slices are then decided by the budget, not by how fast this machine is.
  function manual() {
    const queue = new Map();
    let id = 0, t = 0;
    const step = () => {
      const first = queue.entries().next();
      if (first.done) return false;
      queue.delete(first.value[0]);
      first.value[1]();
      return true;
    };
    return {
      frame: (f) => { queue.set(++id, f); return id; },
      cancelFrame: (k) => { queue.delete(k); },
      now: () => t++,
      step,
      flush() { let n = 0; while (step()) n++; return n; },
      pending: () => queue.size,
    };
  }
  const options = { normalizers: [{ name: 'softmax', params: {} }, { name: 'log_softmax', params: {} }], nMax: 2 ** 12, distractor: { kind: 'gaussian', scale: 1 } };

  it('computes in budget-sized slices, reports growing progress, ends with the API result', () => {
    const m = manual(), progress = [];
    let done = null;
    startSweep(ss, options, { ...m, budgetMs: 4, onProgress: (p) => progress.push(p.done), onDone: (p) => { done = p; } });
    expect(progress).toEqual([]); // nothing runs before the first frame
    const frames = m.flush();
    const cells = 12 * 2;
    expect(frames).toBeGreaterThan(3); // several frames, not one long block
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
    expect(progress[progress.length - 1]).toBe(cells);
    expect(done.total).toBe(cells);
    expect(done.doneN).toBe(12);
    expect(done.result).toEqual(dispersionSweep(ss, options));
  });

  it('cancel() stops a run mid-way: no more callbacks, the wasm buffers are freed', () => {
    const m = manual(), s0 = ss.heapStats();
    const seen = [];
    const job = startSweep(ss, options, { ...m, budgetMs: 2, onProgress: (p) => seen.push(p.done), onDone: () => seen.push('done') });
    for (let i = 0; i < 3; i++) expect(m.step()).toBe(true); // three frames, then cancel
    expect(seen.length).toBe(3);
    expect(m.pending()).toBe(1);
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations + 2); // the paused run holds x and y
    job.cancel();
    expect(m.flush()).toBe(0); // the queued frame was cancelled
    expect(seen).not.toContain('done');
    expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations);
  });

  it('bad options go to onError (the runner never throws)', () => {
    const errors = [];
    startSweep(ss, { ...options, nMax: 2 ** 30 }, { onError: (e) => errors.push(e) });
    expect(errors).toHaveLength(1);
    expect(errors[0].argument).toBe('options.nMax');
  });
});

describe('display while a run is in progress', () => {
  it('fresh values where computed, the previous run elsewhere (matched by normalizer and n)', () => {
    const prev = { n: [2, 4, 8], series: [{ name: 'a', keyProb: [1, 2, 3], maxProb: [1, 2, 3], entropy: [0, 0, 0], support: [1, 1, 1], sum: [1, 1, 1] }] };
    const mk = (vals) => ({ keyProb: vals, maxProb: vals, entropy: vals, support: vals, sum: vals });
    const result = { n: [2, 4, 8, 16], series: [{ name: 'a', output: 'probs', params: {}, errors: [], ...mk([10, 20, NaN, NaN]) },
      { name: 'b', output: 'probs', params: {}, errors: [], ...mk([5, NaN, NaN, NaN]) }] };
    // cells are n-major: 3 done = a@2, b@2, a@4
    const d = mergeDisplay(prev, { result, done: 3 });
    expect(d.series[0].keyProb).toEqual([10, 20, 3, NaN]);
    expect(d.series[0].fresh).toBe(2);
    expect(d.series[1].keyProb).toEqual([5, NaN, NaN, NaN]);
    expect(d.series[1].fresh).toBe(1);
    expect(mergeDisplay(null, { result, done: 0 }).series[0].keyProb).toEqual([NaN, NaN, NaN, NaN]);
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
