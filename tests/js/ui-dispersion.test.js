// @vitest-environment happy-dom
// The dispersion panel: its URL state round-trips (and malformed fields fall
// back one by one), the runner computes the sweep in frame-sized slices and
// cancels stale runs without leaking wasm buffers, stale points stay drawn
// until recomputed, and the panel rendered in a DOM draws exactly the API's
// numbers, before and after the margin slider moves.
import { describe, it, expect, vi, beforeAll } from 'vitest';
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { createSoftscope, dispersionSweep } from 'softscope';
import { parseHash, serializeState, defaultState, dispersionDefaults, DEFAULT_DISPERSION } from '../../web/src/state/url.js';
import { startSweep } from '../../web/src/lib/sweepRunner.js';
import { mergeDisplay, nearestIndex } from '../../web/src/lib/dispersionView.js';
import { colorMap } from '../../web/src/lib/colors.js';
import { paramsFor } from '../../web/src/lib/params.js';
import { DispersionPanel } from '../../web/src/panels/DispersionPanel.jsx';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

describe('dispersion URL state', () => {
  it('round-trips every field', () => {
    const s = {
      ...defaultState(),
      panel: 'dispersion',
      params: { temperature: 0.5 },
      dispersion: { normalizers: ['softmax', 'log_softmax'], margin: 4.25, distractor: 'uniform', scale: 1.5, nMax: 2 ** 20, seed: 12, ppo: 4, probLog: true },
    };
    const hash = serializeState(s);
    expect(hash).toContain('dispersion.normalizers=softmax,log_softmax');
    expect(hash).toContain('dispersion.nmax=1048576');
    expect(parseHash('#' + hash)).toEqual(s);
    expect(serializeState(parseHash(hash))).toBe(hash);
  });

  it('writes no dispersion key for the defaults; null normalizers (registry default) stays null', () => {
    const d = defaultState();
    expect(d.dispersion).toEqual(DEFAULT_DISPERSION);
    expect(serializeState(d)).not.toContain('dispersion.');
    expect(parseHash(serializeState(d)).dispersion.normalizers).toBe(null);
    // An explicit empty selection is kept as such.
    expect(parseHash(serializeState({ ...d, dispersion: { ...d.dispersion, normalizers: [] } })).dispersion.normalizers).toEqual([]);
  });

  it('malformed fields fall back to their default one by one', () => {
    const s = parseHash('#panel=dispersion&dispersion.margin=abc&dispersion.scale=2&dispersion.distractor=cauchy&dispersion.nmax=1000'
      + '&dispersion.ppo=3&dispersion.plog=yes&dispersion.seed=-1&dispersion.normalizers=softmax,Bad-Name,softmax');
    expect(s.panel).toBe('dispersion');
    expect(s.dispersion).toEqual({ ...DEFAULT_DISPERSION, scale: 2, normalizers: ['softmax'] });
    for (const [k, v] of [['margin', '99'], ['margin', 'Infinity'], ['scale', '-1'], ['nmax', String(2 ** 21)], ['nmax', '8'], ['seed', '1.5']])
      expect(parseHash(`#dispersion.${k}=${v}`).dispersion).toEqual(DEFAULT_DISPERSION);
    // dispersion keys are never read as kernel parameters
    expect(parseHash('#dispersion.margin=2').params).toEqual({});
  });

  it('the default normalizers: softmax against the sparse and adaptive ones the registry has, at least two', () => {
    expect(dispersionDefaults(['softmax', 'online_softmax', 'softmax_temperature'])).toEqual(['softmax', 'softmax_temperature']);
    expect(dispersionDefaults(['ssmax', 'entmax15', 'softmax', 'sparsemax', 'adaptive_temperature']))
      .toEqual(['softmax', 'sparsemax', 'entmax15', 'ssmax', 'adaptive_temperature']);
    expect(dispersionDefaults(['softmax', 'sparsemax'])).toEqual(['softmax', 'sparsemax']);
    expect(dispersionDefaults(['only_one'])).toEqual(['only_one']);
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

describe('the panel in a DOM', () => {
  function mount(hash) {
    const root = document.createElement('div');
    document.body.appendChild(root);
    const normalizers = ss.kernels('normalizer');
    const colors = colorMap(normalizers.map((k) => k.name));
    const box = { state: null };
    function Harness() {
      const [state, setState] = useState(() => parseHash(hash));
      box.state = state;
      return h(DispersionPanel, { ss, normalizers, colors, state, update: (patch) => setState((s) => ({ ...s, ...(typeof patch === 'function' ? patch(s) : patch) })) });
    }
    render(h(Harness), root);
    return { root, box, unmount: () => { render(null, root); root.remove(); } };
  }
  const section = (root) => root.querySelector('[data-dispersion-status]');
  const drawn = (root, series, metric) =>
    root.querySelector(`[data-chart] path[data-series="${series}"][data-metric="${metric}"]`)?.dataset.values.split(',').map(Number);
  const apiFor = (state) => dispersionSweep(ss, {
    normalizers: state.dispersion.normalizers.map((name) => ({ name, params: paramsFor(ss.kernel(name), state.params) })),
    nMax: state.dispersion.nMax, margin: state.dispersion.margin, pointsPerOctave: state.dispersion.ppo,
    distractor: { kind: state.dispersion.distractor, scale: state.dispersion.scale }, seed: state.dispersion.seed,
  });
  // Until a run is done (after `run`, if given) and `check` holds: a render
  // and its effect (the new run) can lag an event by a tick, so "done" alone
  // may still be the previous run.
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

  it('draws the API numbers; the margin slider reruns the sweep; the state goes through the URL and back', async () => {
    const hash = '#panel=dispersion&dispersion.normalizers=softmax,softmax_temperature&temperature=0.5&dispersion.nmax=1024&dispersion.ppo=2';
    const { root, box, unmount } = mount(hash);
    try {
      await settle(root);
      const first = apiFor(box.state);
      for (const s of first.series) for (const m of ['maxProb', 'keyProb', 'entropy', 'support']) expect(drawn(root, s.name, m)).toEqual(s[m]);
      expect(root.querySelectorAll('[data-chart]')).toHaveLength(3);
      expect(root.querySelector('[data-readout-n]').dataset.readoutN).toBe('1024');

      // Move the margin: position 750 of 1000 on [-4, 12] is 8.
      const run = Number(section(root).dataset.run);
      slide(root.querySelector('#dispersion-margin'), 750);
      await settle(root, run);
      expect(box.state.dispersion.margin).toBe(8);
      const second = apiFor(box.state);
      expect(drawn(root, 'softmax', 'keyProb')).toEqual(second.series[0].keyProb);
      expect(second.series[0].keyProb[0]).toBeGreaterThan(first.series[0].keyProb[0]); // a larger margin: a surer key

      // The URL holds what is on screen: the same panel from the serialized hash draws the same.
      const again = parseHash('#' + serializeState(box.state));
      expect(again).toEqual(box.state);
      const other = mount('#' + serializeState(box.state));
      try {
        await settle(other.root);
        expect(drawn(other.root, 'softmax_temperature', 'entropy')).toEqual(drawn(root, 'softmax_temperature', 'entropy'));
        expect(other.root.querySelector('#dispersion-margin').getAttribute('aria-valuetext')).toBe('8');
      } finally {
        other.unmount();
      }
    } finally {
      unmount();
    }
  });

  it('moves in quick succession: only the last one is drawn, stale runs leave no buffers behind', async () => {
    const { root, box, unmount } = mount('#panel=dispersion&dispersion.normalizers=softmax&dispersion.nmax=65536&dispersion.distractor=constant');
    try {
      await settle(root);
      const s0 = ss.heapStats();
      const run = Number(section(root).dataset.run);
      const input = root.querySelector('#dispersion-margin');
      for (const pos of [300, 400, 500, 600]) {
        slide(input, pos);
        await new Promise((r) => setTimeout(r, 5)); // a render and maybe a frame between moves
      }
      expect(box.state.dispersion.margin).toBe(5.6);
      const em = Math.exp(5.6);
      await settle(root, run, () => {
        const key = drawn(root, 'softmax', 'keyProb');
        apiFor(box.state).n.forEach((n, j) => expect(Math.abs(key[j] / (em / (em + n - 1)) - 1)).toBeLessThanOrEqual(2e-6));
      });
      expect(ss.heapStats().liveAllocations).toBe(s0.liveAllocations);
    } finally {
      unmount();
    }
  });

  it('controls: distractor kind, n max (powers of two), points per octave and the normalizer chooser update the state', async () => {
    const { root, box, unmount } = mount('#panel=dispersion&dispersion.normalizers=softmax&dispersion.nmax=256');
    try {
      await settle(root);
      const sel = root.querySelector('#dispersion-distractor');
      sel.value = 'uniform';
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      slide(root.querySelector('#dispersion-nmax'), 9);
      const ppo = root.querySelector('#dispersion-ppo');
      ppo.value = '4';
      ppo.dispatchEvent(new Event('change', { bubbles: true }));
      const box2 = root.querySelector('input[data-normalizer="log_softmax"]');
      box2.checked = true;
      box2.dispatchEvent(new Event('change', { bubbles: true }));
      await vi.waitFor(() => expect(box.state.dispersion.normalizers).toEqual(['softmax', 'log_softmax']));
      expect(box.state.dispersion).toMatchObject({ distractor: 'uniform', nMax: 512, ppo: 4 });
      const api = apiFor(box.state);
      expect(api.n[api.n.length - 1]).toBe(512);
      await settle(root, undefined, () => {
        expect(drawn(root, 'log_softmax', 'support')).toEqual(api.series[1].support);
        expect(drawn(root, 'softmax', 'entropy')).toEqual(api.series[0].entropy);
      });
    } finally {
      unmount();
    }
  });
});
