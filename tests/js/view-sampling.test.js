// The Sampling view without a browser: its schema round-trips and falls back
// key by key with a notice; the decoding pipeline is the registry's stages
// chained through log p exactly as the API chain written out (and as
// sort-based float64 references); the draws are the API's however they are
// batched, and their chi-square test tells a right sampler from a wrong
// one; the rank plot stays aggregated at large n; the Gumbel-Softmax samples
// are softmax((x + g) / τ) on the API's Gumbel noise; and the figure draws
// exactly the model's numbers, with tick labels on every chart.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, toHash, defaults, hashEntries } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { sampling } from '../../wasm/views/sampling/index.js';
import { decodeStages } from '../../wasm/views/sampling/schema.js';
import { LM, lmLogits, samplingLogits } from '../../wasm/views/sampling/logits.js';
import { runPipeline, rankOrder, rankBins, tvDistance, countNonzero } from '../../wasm/views/sampling/decode.js';
import { drawStepper, drawAll, drawStats, DRAW_STREAM } from '../../wasm/views/sampling/draws.js';
import { relaxedSamples, estimatorGrid, TAU_GRID } from '../../wasm/views/sampling/gumbel.js';
import { compute, decode, figureData, table } from '../../wasm/views/sampling/model.js';
import { readHash } from '../../web/src/state/location.js';
import { svgString } from '../../wasm/figures/render.js';
import { html } from '../../wasm/figures/h.js';
import { svgElements, inside, dataValues, one } from './support/figure.js';
import { refSoftmax } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ impl: 'scalar' }); });

const schema = sampling.schema;
const read = (hash) => parse(schema, hashEntries(hash), ss, { ignore: ['view'] });
const state = (over = {}) => ({ ...defaults(schema, ss), ...over });
const renderSvg = (data, width = 720, theme = 'light') =>
  svgString(html`<${sampling.Figure} data=${data} colors=${sampling.colors(ss)} theme=${theme} width=${width} />`);

// ---- independent references and API doubles ----

const byProb = (p) => p.map((v, i) => i).sort((a, b) => p[b] - p[a] || a - b);
function keepRenorm(p, keep) {
  let s = 0;
  for (const i of keep) s += p[i];
  const out = new Float32Array(p.length);
  for (const i of keep) out[i] = p[i] / s;
  return out;
}
const REF = {
  top_k: (x, { k, temperature = 1 }) => { const p = refSoftmax(x, temperature); return keepRenorm(p, byProb(p).slice(0, k)); },
  top_p: (x, { p: mass, temperature = 1 }) => {
    const p = refSoftmax(x, temperature), order = byProb(p);
    let c = 0, j = 0;
    while (j < order.length && c < mass) c += p[order[j++]];
    return keepRenorm(p, order.slice(0, Math.max(1, j)));
  },
};
/** The real API with float64 reference top_k / top_p in place of the build's (same registry entries). */
function withReferenceFilters(real) {
  return {
    kernels: (f) => real.kernels(f),
    enums: real.enums,
    normalize: (...a) => real.normalize(...a),
    sample: (name, x, params) => (REF[name] ? { probs: REF[name](x, params), indices: null, samples: null, draws: 0, n: x.length } : real.sample(name, x, params)),
    categorical: (w, o) => real.categorical(w, o),
    estimatorStats: (...a) => real.estimatorStats(...a),
  };
}
/** The real API whose `name` kernel rejects every call (a stand-in for a parameter C refuses). */
function withFailing(real, name) {
  return { ...withReferenceFilters(real), sample: (k, x, p) => { if (k === name) throw new Error(`softscope.sample("${k}"): params.p = 0.9 is refused`); return real.sample(k, x, p); } };
}
/** Gumbel-Softmax in float64 on the API's Gumbel noise: draw d uses the numbers of stream 2 (SS_STREAM_GUMBEL)
 *  from Philox block d * ceil(n / 4), i.e. from number 4 d ceil(n / 4) (core/src/sample/gumbel.h). */
function gumbelRef(x, { tau, seed, draws }, hard) {
  const n = x.length, per = 4 * Math.ceil(n / 4), g = ss.gumbel(per * draws, { seed, stream: 2 }), out = [];
  for (let d = 0; d < draws; d++) {
    const z = Array.from(x, (v, i) => (v + g[d * per + i]) / tau), p = refSoftmax(z);
    const arg = z.indexOf(Math.max(...z));
    out.push(Array.from({ length: n }, (_, i) => (hard ? +(i === arg) : p[i])));
  }
  return out;
}

// ---- the schema ----

describe('sampling state', () => {
  it('round-trips every key: parse(toHash(state)) is the state', () => {
    const stages = decodeStages(ss).map((k) => k.name);
    const s = state({
      preset: 'custom', logits: [1.5, -Infinity, 0, -2.25], n: 4, seed: 9, on: stages.filter((n) => n !== 'top_p'),
      stages: { temperature: 0.7, top_k: 40, top_p: 0.95, min_p: 0.2, typical: 0.8 }, draws: 50000, tri: [0.25, -1, 2],
      tau: 0.3, m: 500, relaxed: 'reinmax', hard: true, target: [0, 1, 0.5],
    });
    const hash = toHash(schema, s, ss);
    for (const kv of ['preset=custom', 'logits=1.5,-Infinity,0,-2.25', 'seed=9', 'temperature=0.7', 'top_k=40', 'top_p=0.95', 'typical=0.8',
      'draws=50000', 'tri=0.25,-1,2', 'tau=0.3', 'm=500', 'relaxed=reinmax', 'hard=1', 'target=0,1,0.5']) expect(hash).toContain(kv);
    const back = read(hash);
    expect(back.notices).toEqual([]);
    expect(back.state).toEqual(s);
    expect(toHash(schema, back.state, ss)).toBe(hash);
    // a preset: preset and its size are written, logits not
    for (const over of [{ vocab: 4096 }, { preset: 'two_modes', n: 24, on: [] }]) {
      const p = state(over);
      const h = toHash(schema, p, ss);
      expect(h).not.toContain('logits');
      expect(read(h)).toEqual({ state: p, notices: [] });
    }
    expect(toHash(schema, state({ on: [] }), ss)).toMatch(/&on=(&|$)/);
  });

  it('writes no key for the defaults; defaults are the LM preset with temperature and top-p on', () => {
    const d = defaults(schema, ss);
    expect(toHash(schema, d, ss)).toBe('view=sampling');
    expect(d).toMatchObject({ preset: LM, vocab: 32000, on: ['temperature', 'top_p'].filter((n) => ss.kernels('sampler').some((k) => k.name === n)), stages: {} });
  });

  it('a bad value falls back to its default with a notice naming it, key by key', () => {
    const bad = [['preset', 'gpt5'], ['vocab', '100'], ['vocab', '1e9'], ['n', '100'], ['seed', '-3'], ['seed', '1.5'], ['logits', '1,abc'],
      ['logits', '1,Infinity'], ['logits', '3'], ['temperature', '0'], ['temperature', 'NaN'], ['top_k', '2.5'], ['top_k', '0'], ['top_p', '1.5'],
      ['top_p', '0'], ['min_p', '-0.1'], ['typical', ''], ['draws', '5'], ['draws', '1e6'], ['tri', '1,2'], ['tri', '1,2,99'], ['tau', '0'],
      ['tau', '11'], ['m', '0'], ['m', '3000'], ['hard', 'yes'], ['target', '1,0'], ['target', 'a,b,c'], ['relaxed', 'bogus'], ['k', '5']];
    const d = defaults(schema, ss);
    for (const [k, v] of bad) {
      const r = read(`#view=sampling&${k}=${encodeURIComponent(v)}`);
      expect(r.state, `${k}=${v}`).toEqual(d);
      expect(r.notices.map((x) => x.key), `${k}=${v}`).toEqual([k]);
      expect(r.notices[0].reason.length).toBeGreaterThan(0);
    }
    // an unknown stage is dropped from `on` (with a notice), the others kept in the registry's order
    const r = read('#on=top_p,beam,temperature');
    expect(r.state.on).toEqual(['temperature', 'top_p']);
    expect(r.notices).toMatchObject([{ key: 'on', reason: 'unknown: beam' }]);
    // custom without logits falls back to the LM preset
    expect(read('#preset=custom').state.preset).toBe(LM);
    for (const junk of ['#%ZZ=1', '#&&&on', '#tri=,,,', '#logits=']) expect(() => read(junk)).not.toThrow();
  });

  it("reads the old playground's sampling.* links", () => {
    const { view, entries } = readHash('#panel=sampling&sampling.on=temperature,top_k&sampling.top_k=7&sampling.temperature=0.5&sampling.tau=0.3', ['sampling']);
    expect(view).toBe('sampling');
    const r = parse(schema, entries, ss);
    expect(r.notices).toEqual([]);
    expect(r.state).toMatchObject({ on: ['temperature', 'top_k'], stages: { top_k: 7, temperature: 0.5 }, tau: 0.3 });
  });
});

// ---- the pipeline ----

describe('decoding pipeline', () => {
  it('the stages are the registry decoding stages in the order of k.stage, each with its own parameter', () => {
    const st = decodeStages(ss);
    expect(st.length).toBeGreaterThan(0);
    for (let i = 1; i < st.length; i++) expect(st[i].stage).toBeGreaterThan(st[i - 1].stage);
    for (const k of st) expect(k.params.map((p) => p.name)).toContain(k.stage_param);
    expect(st.map((k) => k.name)).toEqual(ss.kernels('sampler').filter((k) => k.role === 'decode_stage').sort((a, b) => a.stage - b.stage).map((k) => k.name));
  });

  it('temperature alone: every finite logit is kept, base and final are the API softmax', () => {
    const x = Float32Array.from([2, -Infinity, 0.5, 1, -Infinity, -3]);
    const r = runPipeline(ss, x, { on: ['temperature'], stages: { temperature: 0.5 } });
    const api = ss.sample('temperature', x, { temperature: 0.5, draws: 0 }).probs;
    expect(r.base).toEqual(api);
    expect(r.final).toEqual(api);
    expect(r.kept).toBe(4);
    expect(r.keptMass).toBeCloseTo(1, 6);
    const ref = refSoftmax(x, 0.5);
    api.forEach((v, i) => expect(Math.abs(v - ref[i])).toBeLessThanOrEqual(1e-6 * Math.max(ref[i], 1e-30) + 1e-12));
  });

  it('stages chain through log p: top-k then top-p keep exactly the sort-based reference set', () => {
    const api = withReferenceFilters(ss);
    const x = lmLogits(4096, 3);
    const r = runPipeline(api, x, { on: ['temperature', 'top_k', 'top_p'], stages: { temperature: 0.8, top_k: 300, top_p: 0.6 } });
    const p = refSoftmax(x, 0.8), q = keepRenorm(p, byProb(p).slice(0, 300));
    const order = byProb(Array.from(q));
    let c = 0, j = 0;
    while (c < 0.6) c += q[order[j++]];
    const keep = new Set(order.slice(0, j));
    expect(r.stages.filter((s) => s.on).map((s) => [s.name, s.kept])).toEqual([['temperature', 4096], ['top_k', 300], ['top_p', j]]);
    expect(r.kept).toBe(j);
    for (let i = 0; i < x.length; i++) expect(r.final[i] > 0, `token ${i}`).toBe(keep.has(i));
    let mass = 0;
    for (const i of keep) mass += p[i];
    expect(r.keptMass).toBeCloseTo(mass, 5);
    // k > n is clamped to n (the registry's n bound) rather than failing
    const r2 = runPipeline(api, x.subarray(0, 10), { on: ['top_k'], stages: { top_k: 50 } });
    expect(r2.stages.find((s) => s.name === 'top_k')).toMatchObject({ kept: 10, value: 10 });
  });

  it("with the build's own filters, the pipeline is the API chain written out", () => {
    const filters = decodeStages(ss).filter((k) => k.stage_param !== 'temperature');
    const values = { temperature: 0.9, top_k: 200, top_p: 0.8, min_p: 0.02, typical: 0.9 };
    const x = lmLogits(4096, 5);
    const r = runPipeline(ss, x, { on: decodeStages(ss).map((k) => k.name), stages: values });
    let p = ss.sample('temperature', x, { temperature: 0.9, draws: 0 }).probs;
    filters.forEach((k, i) => {
      // the first filter gets x and T, the next ones log p (and T = 1)
      p = ss.sample(k.name, i === 0 ? x : Float32Array.from(p, Math.log), { [k.stage_param]: values[k.name], ...(i === 0 ? { temperature: 0.9 } : {}), draws: 0 }).probs;
      expect(r.stages.find((s) => s.name === k.name).kept).toBe(countNonzero(p));
    });
    expect(r.final).toEqual(p);
    expect(r.kept).toBe(countNonzero(p));
    let sum = 0;
    for (const v of r.final) sum += v;
    expect(sum).toBeCloseTo(1, 5);
  });

  it('a stage that fails shows its error at that stage; the others still run', () => {
    const x = lmLogits(512, 1);
    const r = runPipeline(withFailing(ss, 'top_p'), x, { on: ['temperature', 'top_k', 'top_p'], stages: { top_k: 20 } });
    expect(r.stages.find((s) => s.name === 'top_p')).toMatchObject({ on: true, error: 'params.p = 0.9 is refused' });
    expect(r.kept).toBe(20);
    expect(r.error).toBeUndefined();
    const d = figureData({ x, order: rankOrder(x), pipe: r, tokens: null }, { done: 0, total: 10 }, relaxedSamples(ss, state()), null);
    const els = svgElements(renderSvg(d));
    expect(one(els, 'data-stage', 'top_p').attrs['data-stage-kept']).toBeUndefined();
    expect(els.filter((e) => 'data-error' in e.attrs).map((e) => e.text)).toEqual(['top_p: params.p = 0.9 is refused']);
    expect(one(els, 'data-stage', 'top_k').attrs['data-stage-kept']).toBe('20');
  });

  it('all logits masked: a clear error in the figure, not a blank one', () => {
    const r = renderFigure(ss, 'sampling', 'logits=-Infinity,-Infinity,-Infinity');
    expect(r.data.error).toMatch(/-Inf/);
    const els = svgElements(r.svg);
    expect(els.some((e) => 'data-error' in e.attrs && /-Inf/.test(e.text))).toBe(true);
    expect(inside(els, 'data-chart', 'simplex').length).toBeGreaterThan(1); // the Gumbel half still draws
  });
});

// ---- draws ----

describe('draws', () => {
  const probs = () => ss.sample('temperature', lmLogits(2048, 2), { temperature: 1, draws: 0 }).probs;

  it('batched over many steps, the draws are exactly one API call with draws = N', () => {
    const p = probs(), st = drawStepper(ss, p, { seed: 7, total: 20000 }), seen = [];
    while (st.done() < st.total) seen.push(st.step());
    expect(seen.length).toBeGreaterThan(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
    expect(seen[0]).toBe(32);
    expect(st.indices).toEqual(ss.categorical(p, { seed: 7, stream: DRAW_STREAM, draws: 20000 }));
    expect(st.counts.reduce((a, b) => a + b, 0)).toBe(20000);
    // a time budget stops a step early but never changes the sequence
    let t = 0;
    const slow = drawStepper(ss, p, { seed: 7, total: 20000, now: () => (t += 5) });
    while (slow.done() < slow.total) slow.step(1);
    expect(slow.indices).toEqual(st.indices);
  });

  it("the chi-square test passes the API's draws and rejects draws from another distribution", () => {
    const p = probs();
    const good = drawAll(ss, p, { seed: 3, total: 20000 });
    const s = drawStats(p, good.counts, good.indices, 20000, 20000);
    expect(s.pValue).toBeGreaterThan(1e-3);
    expect(s.dof).toBeGreaterThan(10);
    expect(s.tv).toBeGreaterThan(0);
    expect(s.tv).toBeLessThan(0.2);
    // the same number of draws from softmax(x / 2): a different distribution
    const q = ss.sample('temperature', lmLogits(2048, 2), { temperature: 2, draws: 0 }).probs;
    const bad = drawAll(ss, q, { seed: 3, total: 20000 });
    const b = drawStats(p, bad.counts, bad.indices, 20000, 20000);
    expect(b.pValue).toBeLessThan(1e-6);
    expect(b.tv).toBeGreaterThan(s.tv);
    expect(tvDistance(good.counts, 20000, p)).toBe(s.tv);
    expect(drawStats(p, good.counts, good.indices, 0, 20000).tv).toBeNaN();
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

// ---- Gumbel-Softmax and the estimators ----

describe('Gumbel-Softmax and the estimators', () => {
  it('the samples are softmax((x + g) / τ) on the API Gumbel noise; hard samples are one-hot, counted per class', () => {
    const s = state({ tri: [1, 0, -0.5], tau: 0.7, m: 60 });
    const g = relaxedSamples(ss, s);
    const want = gumbelRef(Float32Array.from(s.tri), { tau: 0.7, seed: 1, draws: 60 });
    expect(g.samples.length).toBe(60);
    g.samples.forEach((v, d) => {
      v.forEach((c, i) => expect(Math.abs(c - want[d][i])).toBeLessThan(2e-6));
      expect(v[0] + v[1] + v[2]).toBeCloseTo(1, 5);
    });
    expect(g.counts).toBeNull();
    g.mean.forEach((m, i) => expect(m).toBeCloseTo(want.reduce((a, v) => a + v[i], 0) / 60, 5));
    expect(g.softmax).toEqual(Array.from(ss.normalize('softmax', Float32Array.from(s.tri))));
    const h = relaxedSamples(ss, { ...s, hard: true });
    expect(h).toMatchObject({ hard: true, hardAvailable: true });
    const hw = gumbelRef(Float32Array.from(s.tri), { tau: 0.7, seed: 1, draws: 60 }, true);
    expect(h.samples).toEqual(hw);
    expect(h.counts).toEqual([0, 1, 2].map((i) => hw.filter((v) => v[i] === 1).length));
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(60);
  });

  it('a relaxed sampler without a hard variant says so and draws the soft samples', () => {
    const r = relaxedSamples(ss, state({ relaxed: 'gumbel_softmax_hard', hard: true }));
    expect(r).toMatchObject({ kernel: 'gumbel_softmax_hard', hard: false, hardAvailable: false });
    expect(r.counts.reduce((a, b) => a + b, 0)).toBe(300); // its samples are one-hot already
  });

  it('the estimator grid is the API estimatorStats of every estimator the library enumerates, at 17 τ from 0.1 to 10', () => {
    const s = state({ tri: [1, 0, -0.5], target: [0, 1, 0] });
    const e = estimatorGrid(ss, s, 200);
    expect(e.names).toEqual([...ss.enums.estimator]);
    expect(e.taus.length).toBe(17);
    expect(e.taus[0]).toBeCloseTo(0.1, 12);
    expect(e.taus[16]).toBeCloseTo(10, 12);
    for (const l of e.lines) {
      expect(l.error).toBeNull();
      e.taus.forEach((tau, j) => {
        const r = ss.estimatorStats(l.name, Float32Array.from(s.tri), Float32Array.from(s.target), { tau, seed: 1, samples: 200 });
        expect(l.bias[j]).toBe(r.bias);
        expect(l.variance[j]).toBe(r.variance);
        expect(r.bias).toBeGreaterThanOrEqual(0);
      });
    }
  });
});

// ---- the figure ----

describe('the figure', () => {
  it('a small vocabulary: the bars, ticks, stages and readouts carry exactly the model numbers', () => {
    const r = renderFigure(ss, 'sampling', 'preset=planted_peak&n=16&on=temperature,top_k&temperature=0.6&top_k=5&draws=2000&m=50');
    expect(r.notices).toEqual([]);
    const d = r.data;
    const els = svgElements(r.svg);
    const chart = inside(els, 'data-chart', 'decode');
    expect(dataValues(chart, (e) => e.attrs['data-series'] === 'final')).toEqual(d.final.map(String));
    expect(dataValues(chart, (e) => e.attrs['data-series'] === 'base')).toEqual(d.base.map(String));
    expect(dataValues(chart, (e) => e.attrs['data-series'] === 'empirical')).toEqual(d.freq.map(String));
    expect(chart.filter((e) => e.attrs['data-kept'] === '1').length).toBe(5);
    // the kept count is the API pipeline's, and the frequencies are the API draws' counts
    const want = runPipeline(ss, samplingLogits(r.state), r.state);
    expect(d.kept).toBe(want.kept);
    expect(d.final).toEqual(Array.from(want.final));
    const idx = ss.categorical(want.final, { seed: 1, stream: DRAW_STREAM, draws: 2000 });
    const counts = new Array(16).fill(0);
    for (const i of idx) counts[i]++;
    expect(d.freq).toEqual(counts.map((c) => c / 2000));
    for (const [name, v] of [['kept', d.kept], ['kept-mass', d.keptMass], ['draws', 2000], ['tv', d.draws.tv], ['chi2', d.draws.pValue]])
      expect(one(els, 'data-metric', name).attrs['data-value']).toBe(String(v));
    expect(one(els, 'data-stage', 'top_k').attrs['data-stage-kept']).toBe('5');
    // tick labels on every chart; the τ axes and the estimators' y axes at whole powers of 10
    for (const id of ['decode', 'simplex', 'bias', 'variance']) expect(inside(els, 'data-chart', id).filter((e) => 'data-tick' in e.attrs).length, id).toBeGreaterThan(2);
    for (const id of ['bias', 'variance']) {
      for (const e of inside(els, 'data-chart', id).filter((x) => 'data-tick' in x.attrs)) expect(Number.isInteger(Math.log10(Number(e.attrs['data-tick'])))).toBe(true);
      for (const l of d.estimators.lines) {
        const g = inside(els, 'data-chart', id).find((e) => e.attrs['data-series'] === l.name);
        expect(g.attrs['data-values']).toBe((id === 'bias' ? l.bias : l.variance).map(String).join(','));
      }
    }
    expect(dataValues(inside(els, 'data-series', 'samples'))).toEqual(d.gumbel.samples.map((v) => v.join(',')));
    expect(one(els, 'data-marker', 'mean').attrs['data-value']).toBe(d.gumbel.mean.join(','));
  });

  it('a large vocabulary: an aggregated rank plot on log axes, the top tokens, the model numbers', () => {
    const r = renderFigure(ss, 'sampling', 'vocab=8192&draws=3000');
    const d = r.data, els = svgElements(r.svg);
    expect(d.small).toBe(false);
    const rank = inside(els, 'data-chart', 'rank');
    expect(rank.find((e) => e.attrs['data-series'] === 'final').attrs['data-values']).toBe(d.bins.map((b) => String(b.final)).join(','));
    expect(rank.find((e) => e.attrs['data-series'] === 'base').attrs['data-values']).toBe(d.bins.map((b) => String(b.base)).join(','));
    expect(dataValues(inside(els, 'data-series', 'empirical'))).toEqual(d.bins.filter((b) => b.emp > 0).map((b) => String(b.emp)));
    expect(inside(els, 'data-strip', 'kept').filter((e) => e.name === 'rect').length).toBe(d.bins.length);
    expect(d.bins.length).toBeLessThanOrEqual(161);
    const yTicks = rank.filter((e) => 'data-tick' in e.attrs).map((e) => Number(e.attrs['data-tick']));
    expect(yTicks.length).toBeGreaterThan(4);
    for (const t of yTicks) expect(Number.isInteger(Math.log10(t))).toBe(true);
    const top = inside(els, 'data-top-tokens', 8);
    expect(top.filter((e) => 'data-token' in e.attrs).map((e) => Number(e.attrs['data-token']))).toEqual(d.top.map((t) => t.id));
    const x = lmLogits(8192, 1);
    expect(d.top.map((t) => t.id)).toEqual(Array.from(rankOrder(x).subarray(0, 8)));
    expect(d.kept).toBe(runPipeline(ss, x, r.state).kept);
  });

  it('is well-formed SVG at phone, default and wide widths in both themes; its height is the view height', () => {
    const d = compute(ss, state({ vocab: 1024, draws: 500 }));
    for (const w of [390, 720, 1200]) for (const theme of ['light', 'dark']) {
      const svg = renderSvg(d, w, theme);
      const root = svgElements(svg)[0];
      expect(Number(root.attrs.width)).toBe(w);
      expect(Number(root.attrs.height)).toBe(sampling.height(d, w));
    }
  });

  it('the CSV holds the drawn numbers; the JSON the state', () => {
    const r = renderFigure(ss, 'sampling', 'preset=two_modes&n=8&draws=400');
    const { rows, columns } = table(r.data);
    expect(columns).toEqual(['series', 'x', 'y']);
    expect(rows.filter((x) => x[0] === 'p_sampled').map((x) => x[2])).toEqual(r.data.final);
    expect(rows.filter((x) => x[0] === 'frequency').reduce((a, x) => a + x[2], 0)).toBeCloseTo(1, 12);
    expect(JSON.parse(r.json).state).toBe('view=sampling&preset=two_modes&n=8&draws=400');
    expect(r.csv.split('\n')[0]).toBe('series,x,y');
  });

  it('renderFigure reports bad keys and draws the defaults for them', () => {
    const r = renderFigure(ss, 'sampling', 'tau=-1&top_p=2&m=7.5');
    expect(r.notices.map((n) => n.key).sort()).toEqual(['m', 'tau', 'top_p']);
    expect(r.state).toEqual(defaults(schema, ss));
    expect(decode(ss, r.state).pipe.kept).toBe(r.data.kept);
  });
});
