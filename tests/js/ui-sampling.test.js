// @vitest-environment happy-dom
// The sampling panel: every sampling.* URL key round-trips (and malformed ones
// fall back one by one), the decoding pipeline chains its stages through
// log p exactly as the API does, the live draws are the API's draws however
// they are batched, the rank plot stays aggregated at large n, and the panel
// rendered in a DOM shows the API's kept count, reaches N draws, draws M
// Gumbel-Softmax dots and, with kernels missing, says so instead of crashing.
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { createSoftscope } from 'softscope';
import { parseHash, serializeState, defaultState, defaultSampling, samplingState, DEFAULT_SAMPLING, SAMPLING_LM } from '../../web/src/state/url.js';
import { runPipeline, rankOrder, rankBins, tvDistance, countNonzero } from '../../web/src/lib/decoding.js';
import { startDraws, DRAW_STREAM } from '../../web/src/lib/drawRunner.js';
import { lmLogits, samplingLogits } from '../../web/src/lib/samplingPresets.js';
import { SamplingPanel } from '../../web/src/panels/SamplingPanel.jsx';
import { toXY } from '../../web/src/components/Simplex.jsx';
import { TAU_GRID } from '../../web/src/lib/gumbelView.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

// ---- test doubles: the same API with kernels added or taken away ----

// Float64 sort-based references, written here independently of the kernels.
function softmax64(x, T = 1) {
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  const e = Array.from(x, (v) => (v === -Infinity ? 0 : Math.exp((v - m) / T)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}
const byProb = (p) => p.map((v, i) => i).sort((a, b) => p[b] - p[a] || a - b);
function keepRenorm(p, keep) {
  let s = 0;
  for (const i of keep) s += p[i];
  const out = new Float32Array(p.length);
  for (const i of keep) out[i] = p[i] / s;
  return out;
}
const REF = {
  top_k: (x, { k, temperature = 1 }) => { const p = softmax64(x, temperature); return keepRenorm(p, byProb(p).slice(0, k)); },
  top_p: (x, { p: mass, temperature = 1 }) => {
    const p = softmax64(x, temperature), order = byProb(p);
    let c = 0, j = 0;
    while (j < order.length && c < mass) c += p[order[j++]];
    return keepRenorm(p, order.slice(0, Math.max(1, j)));
  },
};
const P = {
  temperature: { name: 'temperature', type: 'float', min: 0, max: 1e6, min_open: true, default: 1, ui_min: 0.05, ui_max: 10, log_scale: true },
  seed: { name: 'seed', type: 'int', min: 0, max: 2 ** 53, default: 0, ui_min: 0, ui_max: 1000 },
  draws: { name: 'draws', type: 'int', min: 0, max: 2 ** 24, default: 1, ui_min: 1, ui_max: 10000, log_scale: true },
};
const ENTRIES = {
  top_k: { name: 'top_k', family: 'sampler', draws: 'index', params: [{ name: 'k', type: 'int', min: 1, max: 2 ** 31, default: 50, ui_min: 1, ui_max: 1000, log_scale: true, n_bound: 'le' }, P.temperature, P.seed, P.draws] },
  top_p: { name: 'top_p', family: 'sampler', draws: 'index', params: [{ name: 'p', type: 'float', min: 0, max: 1, min_open: true, default: 0.9, ui_min: 0.01, ui_max: 1 }, P.temperature, P.seed, P.draws] },
};
/** The real API with JS reference top_k / top_p in its registry (replacing the build's). */
function withReferenceFilters(real) {
  return {
    kernels: (f) => (f === 'sampler' ? [...real.kernels('sampler').filter((k) => !REF[k.name]), ENTRIES.top_k, ENTRIES.top_p] : real.kernels(f)),
    sample: (name, x, params) => (REF[name] ? { probs: REF[name](x, params), indices: null, samples: null, draws: 0, n: x.length } : real.sample(name, x, params)),
    categorical: (w, o) => real.categorical(w, o),
    estimatorStats: (...a) => real.estimatorStats(...a),
  };
}
// Gumbel-Softmax in JS on the API's Gumbel noise, and a stand-in estimator-stats export.
function gumbelRef(x, { tau = 1, seed = 0, draws = 1 }, hard) {
  const n = x.length, g = ss.gumbel(n * draws, { seed, stream: 2 }), out = new Float32Array(n * draws);
  for (let d = 0; d < draws; d++) {
    const z = Array.from(x, (v, i) => (v + g[d * n + i]) / tau), p = softmax64(z);
    const arg = z.indexOf(Math.max(...z));
    for (let i = 0; i < n; i++) out[d * n + i] = hard ? +(i === arg) : p[i];
  }
  return out;
}
const GS_PARAMS = [{ name: 'tau', type: 'float', min: 0, max: 1e6, min_open: true, default: 1 }, P.seed, P.draws];
function withReferenceGumbel(real) {
  const entries = ['gumbel_softmax', 'gumbel_softmax_hard'].map((name) => ({ name, family: 'sampler', draws: 'relaxed', params: GS_PARAMS }));
  const stats = [];
  return {
    stats,
    kernels: (f) => (f === 'sampler' ? [...real.kernels('sampler').filter((k) => !k.name.startsWith('gumbel_softmax')), ...entries] : real.kernels(f)),
    sample: (name, x, params) => (name.startsWith('gumbel_softmax')
      ? { probs: null, indices: null, samples: gumbelRef(x, params, name.endsWith('hard')), draws: params.draws, n: x.length }
      : real.sample(name, x, params)),
    categorical: (w, o) => real.categorical(w, o),
    estimatorStats: (name, theta, target, o) => { stats.push([name, o.tau]); return { bias: 0.01 * (1 + o.tau), variance: 1 / o.tau }; },
  };
}
/** The real API reduced to what the sampler core had first: temperature and categorical, no estimator export. */
function coreOnly(real) {
  const keep = new Set(['temperature', 'categorical']);
  return {
    kernels: (f) => (f === 'sampler' ? real.kernels('sampler').filter((k) => keep.has(k.name)) : real.kernels(f)),
    sample: (name, x, params) => {
      if (!keep.has(name)) throw new Error(`softscope.sample: unknown kernel "${name}"`);
      return real.sample(name, x, params);
    },
    categorical: (w, o) => real.categorical(w, o),
    estimatorStats: () => { throw new Error('softscope.estimatorStats: this wasm build does not export ss_estimator_stats (rebuild with `make wasm`)'); },
  };
}

// ---- URL state ----

describe('sampling URL state', () => {
  const full = () => ({
    ...defaultState(),
    panel: 'sampling',
    sampling: {
      preset: 'custom', n: 4, seed: 9, logits: [1.5, -Infinity, 0, -2.25],
      on: ['top_k', 'min_p', 'typical'],
      values: { temperature: 0.7, top_k: 40, top_p: 0.95, min_p: 0.1, typical: 0.8 },
      draws: 50000, tri: [0.25, -1, 2], tau: 0.3, m: 500, hard: true, target: [0, 1, 0.5],
    },
  });

  it('round-trips every sampling key', () => {
    const s = full();
    const hash = serializeState(s);
    for (const k of ['preset=custom', 'logits=1.5,-Infinity,0,-2.25', 'seed=9', 'on=top_k,min_p,typical', 'temperature=0.7', 'top_k=40',
      'top_p=0.95', 'min_p=0.1', 'typical=0.8', 'draws=50000', 'tri=0.25,-1,2', 'tau=0.3', 'm=500', 'hard=1', 'target=0,1,0.5'])
      expect(hash).toContain(`sampling.${k}`);
    expect(parseHash('#' + hash)).toEqual(s);
    expect(serializeState(parseHash(hash))).toBe(hash);
    // A preset instead of custom logits: preset and n are written, logits not.
    const lm = { ...s, sampling: { ...s.sampling, preset: SAMPLING_LM, n: 4096, logits: null } };
    const h2 = serializeState(lm);
    expect(h2).toContain('sampling.n=4096');
    expect(h2).not.toContain('sampling.logits');
    expect(parseHash(h2)).toEqual(lm);
    const small = { ...s, sampling: { ...s.sampling, preset: 'two_modes', n: 24, logits: null, on: [] } };
    expect(serializeState(small)).toContain('sampling.on=&');
    expect(parseHash(serializeState(small))).toEqual(small);
  });

  it('writes no sampling key for the defaults; a state without them has the defaults', () => {
    const d = defaultState();
    expect(serializeState(d)).not.toContain('sampling.');
    expect(serializeState({ ...d, sampling: defaultSampling() })).not.toContain('sampling.');
    expect(samplingState(parseHash('#panel=sampling'))).toEqual(defaultSampling());
    expect(parseHash('#panel=sampling').panel).toBe('sampling');
    expect(defaultSampling()).toEqual(DEFAULT_SAMPLING);
  });

  it('malformed keys fall back to their default one by one, and are never kernel parameters', () => {
    const D = defaultSampling();
    const bad = [['preset', 'gpt5'], ['n', '100'], ['n', '1e9'], ['seed', '-3'], ['seed', '1.5'], ['logits', '1,abc'], ['logits', '1,Infinity'],
      ['temperature', '0'], ['temperature', 'NaN'], ['top_k', '2.5'], ['top_k', '0'], ['top_p', '1.5'], ['min_p', '-0.1'], ['typical', ''],
      ['draws', '5'], ['draws', '1e6'], ['tri', '1,2'], ['tri', '1,2,99'], ['tau', '0'], ['tau', '11'], ['m', '0'], ['m', '3000'],
      ['hard', 'yes'], ['target', '1,0'], ['target', 'a,b,c']];
    for (const [k, v] of bad) {
      const s = parseHash(`#sampling.${k}=${encodeURIComponent(v)}`);
      expect(s.sampling, `${k}=${v}`).toEqual(D);
      expect(s.params).toEqual({});
    }
    // custom without usable logits regenerates the default preset
    expect(parseHash('#sampling.preset=custom').sampling.preset).toBe(DEFAULT_SAMPLING.preset);
    // n is checked against the preset: 64 is fine for a small preset, not for the LM one
    expect(parseHash('#sampling.preset=long_tail&sampling.n=64').sampling.n).toBe(64);
    expect(parseHash('#sampling.n=64').sampling.n).toBe(DEFAULT_SAMPLING.n);
    // unknown stage names are dropped from sampling.on
    expect(parseHash('#sampling.on=top_p,beam,top_k').sampling.on).toEqual(['top_k', 'top_p']);
    for (const junk of ['#sampling.%ZZ=1', '#sampling.', '#sampling.tri=,,,', '#&&&sampling.on']) expect(() => parseHash(junk)).not.toThrow();
  });
});

// ---- the pipeline, the draws, the rank plot ----

describe('decoding pipeline', () => {
  const lm = (over = {}) => ({ ...defaultSampling(), n: 4096, ...over });

  it('temperature alone: the kept set is every finite logit, base and final are the API softmax', () => {
    const x = Float32Array.from([2, -Infinity, 0.5, 1, -Infinity, -3]);
    const r = runPipeline(ss, x, { ...lm(), on: ['temperature'], values: { ...DEFAULT_SAMPLING.values, temperature: 0.5 } }, new Map());
    const api = ss.sample('temperature', x, { temperature: 0.5, draws: 0 }).probs;
    expect(r.base).toEqual(api);
    expect(r.final).toEqual(api);
    expect(r.kept).toBe(4);
    expect(r.keptMass).toBeCloseTo(1, 6);
  });

  it('stages chain through log p: top-k then top-p keep exactly the sort-based reference set', () => {
    const api = withReferenceFilters(ss);
    const kernels = new Map(api.kernels('sampler').map((k) => [k.name, k]));
    const x = lmLogits(4096, 3);
    const s = lm({ on: ['temperature', 'top_k', 'top_p'], values: { ...DEFAULT_SAMPLING.values, temperature: 0.8, top_k: 300, top_p: 0.6 } });
    const r = runPipeline(api, x, s, kernels);
    // reference: softmax(x / 0.8), the 300 most probable, renormalized, then the nucleus of mass 0.6 of that
    const p = softmax64(x, 0.8), top = byProb(p).slice(0, 300);
    const q = keepRenorm(p, top);
    const order = byProb(Array.from(q));
    let c = 0, j = 0;
    while (c < 0.6) c += q[order[j++]];
    const keep = new Set(order.slice(0, j));
    expect(r.stages.map((st) => [st.id, st.kept ?? null])).toEqual([['temperature', 4096], ['top_k', 300], ['top_p', j], ['min_p', null], ['typical', null]]);
    expect(r.kept).toBe(j);
    for (let i = 0; i < x.length; i++) expect(r.final[i] > 0, `token ${i}`).toBe(keep.has(i));
    let mass = 0;
    for (const i of keep) mass += p[i];
    expect(r.keptMass).toBeCloseTo(mass, 5);
    // k > n is clamped to n rather than failing
    const r2 = runPipeline(api, x.subarray(0, 10), lm({ on: ['top_k'], values: { ...DEFAULT_SAMPLING.values, top_k: 50 } }), kernels);
    expect(r2.stages[1]).toMatchObject({ id: 'top_k', kept: 10, value: 10 });
  });

  it('with the build\'s own filter kernels, the kept count is the API chain\'s', () => {
    const kernels = new Map(ss.kernels('sampler').map((k) => [k.name, k]));
    const filters = [['top_k', 'k', 200], ['top_p', 'p', 0.8], ['min_p', 'min_p', 0.02]].filter(([name]) => kernels.has(name));
    const x = lmLogits(4096, 5);
    const values = { ...DEFAULT_SAMPLING.values, temperature: 0.9, top_k: 200, top_p: 0.8, min_p: 0.02 };
    const r = runPipeline(ss, x, lm({ on: ['temperature', ...filters.map((f) => f[0])], values }), kernels);
    // the chain written out: the first filter gets x and T, the next ones log p and T = 1
    let p = ss.sample('temperature', x, { temperature: 0.9, draws: 0 }).probs;
    filters.forEach(([name, param, v], i) => {
      const hasT = kernels.get(name).params.some((q) => q.name === 'temperature');
      const first = i === 0 && hasT; // a first filter without a temperature parameter gets log p too
      p = ss.sample(name, first ? x : Float32Array.from(p, Math.log), { [param]: v, ...(hasT ? { temperature: first ? 0.9 : 1 } : {}), draws: 0 }).probs;
    });
    expect(r.final).toEqual(p);
    expect(r.kept).toBe(countNonzero(p));
    if (filters.length === 0) expect(r.kept).toBe(4096);
  });

  it('a missing kernel is reported, not called; the other stages still run', () => {
    const api = coreOnly(ss);
    const kernels = new Map(api.kernels('sampler').map((k) => [k.name, k]));
    const r = runPipeline(api, lmLogits(512, 1), lm({ on: ['temperature', 'top_p', 'min_p'] }), kernels);
    expect(r.stages.filter((st) => st.missing).map((st) => st.id)).toEqual(['top_k', 'top_p', 'min_p', 'typical']);
    expect(r.kept).toBe(512);
  });
});

describe('live draws', () => {
  function manual() {
    const queue = new Map();
    let id = 0, t = 0;
    return {
      frame: (f) => { queue.set(++id, f); return id; },
      cancelFrame: (k) => queue.delete(k),
      now: () => (t += 0.25),
      flush() {
        let n = 0;
        for (let e = queue.entries().next(); !e.done; e = queue.entries().next()) { queue.delete(e.value[0]); e.value[1](); n++; }
        return n;
      },
    };
  }
  const probs = ss0 => ss0.sample('temperature', lmLogits(2048, 2), { temperature: 1, draws: 0 }).probs;

  it('batched over many frames, the draws are exactly one API call with draws = N', () => {
    const p = probs(ss), m = manual(), seen = [];
    let end = null;
    startDraws(ss, p, { ...m, seed: 7, total: 20000, onProgress: (r) => seen.push(r.done), onDone: (r) => { end = r; } });
    expect(seen).toEqual([]);
    const frames = m.flush();
    expect(frames).toBeGreaterThan(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
    expect(end.done).toBe(20000);
    const once = ss.categorical(p, { seed: 7, stream: DRAW_STREAM, draws: 20000 });
    expect(end.indices).toEqual(once);
    let total = 0;
    for (const c of end.counts) total += c;
    expect(total).toBe(20000);
    // A perfect sampler: TV distance of 20000 draws over 2048 tokens is small, and never 0 or 1.
    const tv = tvDistance(end.counts, end.done, p);
    expect(tv).toBeGreaterThan(0);
    expect(tv).toBeLessThan(0.2);
  });

  it('cancel() stops the draws', () => {
    const m = manual(), seen = [];
    const job = startDraws(ss, probs(ss), { ...m, total: 100000, onProgress: (r) => seen.push(r.done), onDone: () => seen.push('done') });
    m.frame(() => job.cancel()); // runs after the first frame
    m.flush();
    expect(seen.length).toBe(1);
    expect(seen).not.toContain('done');
  });
});

describe('rank plot aggregation', () => {
  it('covers every rank once in at most ~160 groups whose means add up to the totals', () => {
    const x = lmLogits(32000, 1);
    const base = ss.sample('temperature', x, { temperature: 1, draws: 0 }).probs;
    const order = rankOrder(x);
    for (let r = 1; r < order.length; r++) expect(x[order[r - 1]] >= x[order[r]]).toBe(true);
    const counts = new Float64Array(32000);
    counts[order[0]] = 3; counts[order[31999]] = 1;
    const bins = rankBins(order, base, base, counts, 4);
    expect(bins.length).toBeLessThanOrEqual(161);
    expect(bins[0]).toMatchObject({ r0: 1, r1: 1, kept: 1, emp: 0.75 });
    let next = 1, mass = 0;
    for (const b of bins) {
      expect(b.r0).toBe(next);
      next = b.r1 + 1;
      mass += b.base * (b.r1 - b.r0 + 1);
    }
    expect(next).toBe(32001);
    expect(mass).toBeCloseTo(1, 5);
  });
});

// ---- the panel in a DOM ----

describe('the panel in a DOM', () => {
  const mounted = [];
  afterEach(() => { for (const u of mounted.splice(0)) u(); });
  function mount(hash, api = ss) {
    const root = document.createElement('div');
    document.body.appendChild(root);
    const box = { state: null };
    function Harness() {
      const [state, setState] = useState(() => parseHash(hash));
      box.state = state;
      return h(SamplingPanel, { ss: api, state, update: (patch) => setState((s) => ({ ...s, ...(typeof patch === 'function' ? patch(s) : patch) })) });
    }
    render(h(Harness), root);
    mounted.push(() => { render(null, root); root.remove(); });
    return { root, box };
  }
  const card = (root) => root.querySelector('.decode-card');
  const slide = (input, pos) => {
    input.value = String(pos);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };

  it('small vocabulary: bars, the API\'s kept count, N draws reached, M dots on the triangle', async () => {
    const { root, box } = mount('#panel=sampling&sampling.preset=planted_peak&sampling.n=16&sampling.draws=2000&sampling.m=120&sampling.temperature=0.6');
    const s = samplingState(box.state);
    const x = samplingLogits(s);
    const kernels = new Map(ss.kernels('sampler').map((k) => [k.name, k]));
    const want = runPipeline(ss, x, s, kernels);
    expect(Number(card(root).dataset.kept)).toBe(want.kept);
    expect(root.querySelector('[data-value="kept"]').textContent).toContain(String(want.kept));
    const bars = root.querySelectorAll('[data-chart="decode"] rect[data-index]');
    expect(bars.length).toBe(16);
    expect([...bars].filter((b) => b.dataset.kept === '1').length).toBe(want.kept);
    [...bars].forEach((b, i) => expect(Number(b.dataset.value)).toBe(want.final[i]));
    await vi.waitFor(() => expect(card(root).dataset.drawsDone).toBe('2000'), { timeout: 10000 });
    // TV between N empirical draws and the kept distribution: 0 for a single
    // kept token, otherwise positive and small (~1/sqrt(N) scale)
    const tv = Number(card(root).dataset.tv);
    if (want.kept === 1) expect(tv).toBe(0);
    else { expect(tv).toBeGreaterThan(0); expect(tv).toBeLessThan(0.1); }
    const pv = Number(card(root).dataset.chi2P);
    expect(pv).toBeGreaterThanOrEqual(0);
    expect(pv).toBeLessThanOrEqual(1);
    expect(root.querySelectorAll('[data-chart="decode"] .emp-mark').length).toBe(16);
    // the editor is there for small n; editing a bar makes the logits custom
    expect(root.querySelector('[data-editor="logits"]')).toBeTruthy();
    const sim = root.querySelector('[data-chart="simplex"]');
    if (kernels.has('gumbel_softmax')) expect(sim.querySelectorAll('circle[data-dot]').length).toBe(120);
    else expect(root.querySelector('.simplex-card [data-note="missing"]')).toBeTruthy();
  });

  it('large vocabulary: an aggregated rank plot, and moving a stage slider changes the kept count as the API does', async () => {
    const api = withReferenceFilters(ss);
    const { root, box } = mount('#panel=sampling&sampling.n=8192&sampling.on=temperature,top_p&sampling.draws=1000', api);
    const kernels = new Map(api.kernels('sampler').map((k) => [k.name, k]));
    expect(root.querySelector('[data-editor="logits"]')).toBe(null);
    expect(root.querySelectorAll('[data-chart="rank"] .kept-strip rect').length).toBeLessThanOrEqual(161);
    expect(root.querySelectorAll('[data-chart="rank"] path[data-series]').length).toBe(2);
    const keptNow = () => Number(card(root).dataset.kept);
    const apiKept = () => {
      const s = samplingState(box.state);
      return runPipeline(api, samplingLogits(s), s, kernels).kept;
    };
    const k0 = keptNow();
    expect(k0).toBe(apiKept());
    expect(Number(root.querySelector('[data-stage="top_p"]').dataset.stageKept)).toBe(k0);
    slide(root.querySelector('#sampling-top_p'), 300); // p well below 0.9
    await vi.waitFor(() => expect(samplingState(box.state).values.top_p).toBeLessThan(0.5));
    const k1 = keptNow();
    expect(k1).toBeLessThan(k0);
    expect(k1).toBe(apiKept());
    expect(REF.top_p(samplingLogits(samplingState(box.state)), { p: samplingState(box.state).values.top_p }).filter((v) => v > 0).length).toBe(k1);
    // the temperature slider: a colder softmax concentrates the nucleus
    slide(root.querySelector('#sampling-temperature'), 200);
    await vi.waitFor(() => expect(samplingState(box.state).values.temperature).toBeLessThan(0.5));
    expect(keptNow()).toBeLessThan(k1);
    expect(keptNow()).toBe(apiKept());
    await vi.waitFor(() => expect(card(root).dataset.drawsDone).toBe('1000'), { timeout: 10000 });
    expect(root.querySelectorAll('[data-chart="rank"] [data-series="empirical"] circle').length).toBeGreaterThan(0);
    // turning a stage off in the UI: kept is then the whole vocabulary
    const cb = root.querySelector('#sampling-on-top_p');
    cb.checked = false;
    cb.dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(keptNow()).toBe(8192));
    expect(samplingState(box.state).on).toEqual(['temperature']);
  });

  it('missing kernels and a missing estimator export render a note, not a crash', async () => {
    const { root } = mount('#panel=sampling&sampling.n=1024&sampling.on=temperature,top_k,top_p,min_p,typical&sampling.hard=1', coreOnly(ss));
    for (const id of ['top_k', 'top_p', 'min_p', 'typical']) {
      const row = root.querySelector(`[data-stage="${id}"]`);
      expect(row.dataset.missing).toBe('1');
      expect(row.textContent).toContain('not in this build');
      expect(row.querySelector('input[type="checkbox"]').disabled).toBe(true);
    }
    expect(Number(card(root).dataset.kept)).toBe(1024);
    expect(root.querySelector('.simplex-card').dataset.gumbel).toBe('missing');
    expect(root.querySelector('.simplex-card').textContent).toContain('not in this build');
    expect(root.querySelector('.estimator-card').dataset.estimators).toBe('missing');
    expect(root.querySelector('.estimator-card').textContent).toContain('not in this build');
    await vi.waitFor(() => expect(card(root).dataset.drawsDone).toBe(String(DEFAULT_SAMPLING.draws)), { timeout: 10000 });
  });

  it('with the build\'s Gumbel-Softmax and estimator stats (when present): M dots, one line per estimator', () => {
    const kernels = new Map(ss.kernels('sampler').map((k) => [k.name, k]));
    const { root } = mount('#panel=sampling&sampling.n=1024&sampling.m=77&sampling.tau=0.5');
    const dots = root.querySelectorAll('[data-chart="simplex"] circle[data-dot]');
    if (kernels.has('gumbel_softmax')) {
      expect(dots.length).toBe(77);
      const r = ss.sample('gumbel_softmax', Float32Array.from(DEFAULT_SAMPLING.tri), { tau: 0.5, seed: 1, draws: 77 });
      expect(r.samples.length).toBe(77 * 3);
    } else {
      expect(dots.length).toBe(0);
    }
    let exported = true;
    try { ss.estimatorStats('st', [1, 0, 0], [1, 0, 0], { tau: 1, samples: 10 }); } catch (e) { exported = !/does not export/.test(e.message); }
    const est = root.querySelector('.estimator-card');
    expect(est.dataset.estimators).toBe(exported ? 'ok' : 'missing');
    if (exported) expect(root.querySelectorAll('[data-chart="bias"] path[data-series]').length).toBe(4);
  });

  it('the triangle draws each sample at its barycentric point; hard samples sit on the vertices with their counts', async () => {
    const api = withReferenceGumbel(ss);
    const { root, box } = mount('#panel=sampling&sampling.n=1024&sampling.m=60&sampling.tau=0.7&sampling.tri=1,0,-0.5', api);
    const dots = [...root.querySelectorAll('[data-chart="simplex"] circle[data-dot]')];
    expect(dots.length).toBe(60);
    const want = gumbelRef(Float32Array.from([1, 0, -0.5]), { tau: 0.7, seed: 1, draws: 60 });
    dots.forEach((c, d) => {
      const [px, py] = toXY(want[3 * d], want[3 * d + 1], want[3 * d + 2]);
      expect(Number(c.getAttribute('cx'))).toBeCloseTo(px, 1);
      expect(Number(c.getAttribute('cy'))).toBeCloseTo(py, 1);
    });
    // every estimator over the whole τ grid
    expect(root.querySelectorAll('[data-chart="bias"] path[data-series]').length).toBe(4);
    const reinmax = root.querySelector('[data-chart="variance"] path[data-series="reinmax"]').dataset.values.split(',').map(Number);
    TAU_GRID.forEach((t, j) => expect(Number.isFinite(reinmax[j]), `tau ${t}`).toBe(true));
    expect(api.stats.filter(([n]) => n === 'reinmax').map(([, t]) => t)).toEqual(TAU_GRID);
    // the hard toggle: one-hot samples, counted per vertex
    const cb = root.querySelector('#sampling-hard');
    cb.checked = true;
    cb.dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(samplingState(box.state).hard).toBe(true));
    const hard = gumbelRef(Float32Array.from([1, 0, -0.5]), { tau: 0.7, seed: 1, draws: 60 }, true);
    const counts = [0, 1, 2].map((i) => hard.filter((v, j) => j % 3 === i && v === 1).length);
    expect([...root.querySelectorAll('[data-count]')].map((e) => Number(e.dataset.count))).toEqual(counts);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
    // a new τ moves the dots (the same noise, so not their number)
    cb.checked = false;
    cb.dispatchEvent(new Event('change', { bubbles: true }));
    slide(root.querySelector('#sampling-tau'), 900);
    await vi.waitFor(() => expect(samplingState(box.state).tau).toBeGreaterThan(3));
    expect(root.querySelectorAll('[data-chart="simplex"] circle[data-dot]').length).toBe(60);
  });
});
