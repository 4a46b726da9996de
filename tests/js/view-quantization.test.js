// The Quantization view without a browser: its schema round-trips, falls
// back key by key with a notice, holds its own logits and reads old quant.*
// links; the values of each source are what they claim; the histogram counts
// every value once; the levels are the distinct outputs of the kernel with
// their counts; the metrics are the CLI's (quant-metrics.js) on the kernel's
// output; the softmax effect's KL is a float64 reference's (∞ when an entry
// is rounded to 0, never at the defaults); an error C raises for one scheme
// is shown where it happens; and the figure draws exactly the model's numbers.
// With AdaRound, its layer: the first rows x cols values, each weight's grid
// position and flip direction, both reconstruction errors against a float64
// recomputation (the nearest codes by round-half-even in float32, X by the
// calibration recipe), AdaRound at or below nearest; the grid and the error
// bars draw those numbers.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, toHash, defaults, hashEntries } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { quantization } from '../../wasm/views/quantization/index.js';
import { sourceValues, histogram, levels, schemeParams, softmaxEffect, compute, table, layerRounding } from '../../wasm/views/quantization/model.js';
import { quantMetrics } from '../../wasm/analysis/quant-metrics.js';
import { makePreset } from '../../wasm/analysis/presets.js';
import { readHash } from '../../web/src/state/location.js';
import { svgElements, inside, dataValues, one } from './support/figure.js';
import { refSoftmax, refLayerError } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ impl: 'scalar' }); });

const schema = quantization.schema;
const read = (hash) => parse(schema, hashEntries(hash), ss, { ignore: ['view'] });
const state = (over = {}) => ({ ...defaults(schema, ss), ...over });
const klRef = (p, q) => {
  let s = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) s += q[i] > 0 ? p[i] * Math.log(p[i] / q[i]) : Infinity;
  return s;
};

describe('quantization state', () => {
  it('round-trips every key, the scheme parameters by their registry names', () => {
    const s = state({ scheme: 'vq', source: 'attention', n: 256, seed: 4, log: false, logits: [1, -Infinity, 0.5, 2.25], params: { codebook: 32, dim: 2, iters: 10 } });
    const hash = toHash(schema, s, ss);
    for (const kv of ['scheme=vq', 'source=attention', 'n=256', 'seed=4', 'log=0', 'logits=1,-Infinity,0.5,2.25', 'codebook=32', 'dim=2', 'iters=10']) expect(hash).toContain(kv);
    expect(read(hash)).toEqual({ state: s, notices: [] });
    expect(toHash(schema, read(hash).state, ss)).toBe(hash);
    // the softmax source has no n
    const sm = state({ source: 'softmax', n: 256 });
    expect(toHash(schema, sm, ss)).not.toContain('n=');
  });

  it('the defaults write no key; the view holds its own logits', () => {
    const d = defaults(schema, ss);
    expect(toHash(schema, d, ss)).toBe('view=quantization');
    expect(d).toMatchObject({ scheme: 'uniform', source: 'weights', n: 1024, seed: 1, log: true, params: {} });
    expect(d.logits).toEqual(makePreset('random_normal', 16, 1));
  });

  it('a bad value falls back to its default with a notice naming it, key by key', () => {
    const d = defaults(schema, ss);
    const bad = [['source', 'bogus'], ['n', '1000'], ['n', '8'], ['n', '16384'], ['seed', '-3'], ['scheme', 'Bad!'], ['scheme', 'softmax'], ['log', 'yes'],
      ['logits', '1'], ['logits', '1,Infinity'], ['logits', '1,99'], ['bits', '12'], ['bits', '3.5'], ['symmetric', '2'], ['group', '-1'], ['codebook', '5']];
    for (const [k, v] of bad) {
      const r = read(`#${k}=${encodeURIComponent(v)}`);
      expect(r.state, `${k}=${v}`).toEqual(d);
      expect(r.notices.map((x) => x.key), `${k}=${v}`).toEqual([k]);
    }
    // a parameter is read for the scheme the link names: codebook is vq's
    expect(read('#scheme=vq&codebook=5')).toMatchObject({ state: { params: { codebook: 5 } }, notices: [] });
    expect(read('#rounding=stochastic').state.params).toEqual({ rounding: 1 });
  });

  it('the layer rows: a key of AdaRound, written only with it, in [1, 64]', () => {
    const s = state({ scheme: 'adaround', rows: 4, params: { cols: 8, iters: 200 } });
    const hash = toHash(schema, s, ss);
    for (const kv of ['scheme=adaround', 'rows=4', 'cols=8', 'iters=200']) expect(hash).toContain(kv);
    expect(read(hash)).toEqual({ state: s, notices: [] });
    expect(toHash(schema, state({ rows: 4 }), ss)).not.toContain('rows=');
    const r = read('#scheme=adaround&rows=65');
    expect(r.state.rows).toBe(8);
    expect(r.notices.map((x) => x.key)).toEqual(['rows']);
  });

  it("reads the old playground's quant.* links, the scheme parameters unprefixed", () => {
    const { view, entries } = readHash('#panel=quantization&quant.source=attention&quant.n=512&quant.scheme=pow2&bits=3&normalizers=softmax', ['quantization']);
    expect(view).toBe('quantization');
    const r = parse(schema, entries, ss);
    expect(r.notices).toEqual([]);
    expect(r.state).toMatchObject({ source: 'attention', n: 512, scheme: 'pow2', params: { bits: 3 } });
  });
});

describe('quantization model', () => {
  it('sources: weights are n values, attention and softmax are probability vectors; the same seed gives the same values', () => {
    for (const source of ['weights', 'attention', 'softmax']) {
      const x = sourceValues(ss, state({ source, n: 512, seed: 3 }));
      expect(x.length).toBe(source === 'softmax' ? 16 : 512);
      if (source !== 'weights') expect(x.reduce((a, v) => a + v, 0)).toBeCloseTo(1, 5);
    }
    const s = state({ n: 64, seed: 9 });
    expect(Array.from(sourceValues(ss, s))).toEqual(Array.from(sourceValues(ss, s)));
    expect(Array.from(sourceValues(ss, s))).not.toEqual(Array.from(sourceValues(ss, { ...s, seed: 10 })));
    const sm = sourceValues(ss, state({ source: 'softmax' })), ref = refSoftmax(Float32Array.from(state().logits));
    sm.forEach((v, i) => expect(Math.abs(v - ref[i])).toBeLessThan(1e-6));
  });

  it('the histogram counts every value once; log bins leave out exact zeros', () => {
    const x = Float32Array.from([0, 0, 1e-4, 1e-3, 0.5, 0.2, 0.2999]);
    const h = histogram(x, 8);
    expect(h.counts.reduce((a, c) => a + c, 0)).toBe(7);
    const hl = histogram(x, 8, true);
    expect(hl.counts.reduce((a, c) => a + c, 0) + hl.zeros).toBe(7);
    expect(hl.zeros).toBe(2);
    expect(hl.lo).toBeCloseTo(-4, 6);
    expect(histogram(Float32Array.from([0, 0]), 4, true)).toMatchObject({ zeros: 2, counts: [0, 0, 0, 0] });
  });

  it('levels are the distinct outputs of the kernel with their counts', () => {
    const x = sourceValues(ss, state({ n: 256, seed: 2 }));
    const y = ss.quantize('uniform', x, { bits: 3 }).output;
    const lv = levels(y);
    expect(lv.length).toBe(new Set(y).size);
    expect(lv.length).toBeLessThanOrEqual(7); // symmetric 3-bit: codes -3..3
    expect(lv.reduce((a, l) => a + l.count, 0)).toBe(256);
    for (let i = 1; i < lv.length; i++) expect(lv[i].value).toBeGreaterThan(lv[i - 1].value);
  });

  it("the metrics are the CLI's measures of the kernel's output; fewer bits, fewer levels and a larger error", () => {
    const s = state({ params: { bits: 4 } });
    const d = compute(ss, s);
    const x = sourceValues(ss, s), k = ss.kernel('uniform', 'quantizer');
    const params = schemeParams(k, s.params, s.seed);
    expect(params).toEqual({ bits: 4, symmetric: 1, group: 0, rounding: 0, seed: 1 });
    const y = ss.quantize('uniform', x, params).output;
    const m = quantMetrics(x, y);
    expect(d.metrics).toEqual({ mse: m.mse, max_error: m.max_error, sqnr_db: m.sqnr_db, levels: levels(y).length });
    expect(d.levels).toEqual(levels(y));
    // MSE from its definition in float64
    let se = 0;
    for (let i = 0; i < x.length; i++) se += (y[i] - x[i]) ** 2;
    expect(d.metrics.mse).toBeCloseTo(se / x.length, 12);
    const d2 = compute(ss, state({ params: { bits: 2 } }));
    expect(d2.levels.length).toBeLessThanOrEqual(3);
    expect(d2.metrics.mse).toBeGreaterThan(d.metrics.mse);
  });

  it('softmax effect: KL is the float64 reference; fp8 logits change little; 2-bit post-softmax rounds mass to 0 (KL = ∞)', () => {
    const logits = [2, 1, 0.5, -1, 0, 0.25];
    const pre = softmaxEffect(ss, 'fp8_e4m3', { scale: 1 }, null, false, logits);
    expect(pre.where).toBe('pre');
    expect(pre.kl).toBeGreaterThanOrEqual(0);
    expect(pre.kl).toBeLessThan(1e-2);
    expect(Math.abs(pre.kl - klRef(pre.before, pre.after))).toBeLessThan(1e-6);
    expect(pre.argmaxKept).toBe(true);
    const p = sourceValues(ss, state({ source: 'attention', n: 256 }));
    const post = softmaxEffect(ss, 'uniform', { bits: 2 }, p, true, logits);
    expect(post.where).toBe('post');
    expect(post.kl).toBe(Infinity);
    expect(post.zeros).toBe(Array.from(post.after).filter((v, i) => v === 0 && p[i] > 0).length);
    expect(post.zeros).toBeGreaterThan(0);
    expect(post.after.reduce((a, v) => a + v, 0)).toBeCloseTo(1, 5);
  });

  it('the defaults open on a finite KL with the argmax kept', () => {
    const d = compute(ss, defaults(schema, ss));
    expect(d.effect.where).toBe('pre');
    expect(Number.isFinite(d.effect.kl)).toBe(true);
    expect(d.effect.kl).toBeLessThan(1e-3);
    expect(d.effect.argmaxKept).toBe(true);
    expect(d.error).toBeNull();
  });

  it("an error C raises for the scheme is shown where it happens: the values' histogram still draws", () => {
    // pow2 takes non-negative values: weights are signed, and so are the logits of the effect
    const r = renderFigure(ss, 'quantization', 'scheme=pow2');
    expect(r.data.error).toMatch(/negative/);
    expect(r.data.effect.error).toMatch(/negative/);
    const els = svgElements(r.svg);
    expect(inside(els, 'data-chart', 'quant-histogram').filter((e) => 'data-count' in e.attrs).length).toBeGreaterThan(10);
    expect(one(els, 'data-error', 'pow2').text).toMatch(/^pow2: x contains a negative value/);
    expect(els.some((e) => e.attrs['data-error'] === 'effect')).toBe(true);
    // a group that does not divide n: C's message names the parameter
    const g = renderFigure(ss, 'quantization', 'group=100');
    expect(g.data.error).toMatch(/params\.group = 100 must divide n = 1024/);
    expect(g.data.effect.error).toMatch(/params\.group = 100/);
  });

  it('AdaRound on a layer: the first rows x cols values, flips and both errors as a float64 recomputation says', () => {
    const s = read('#scheme=adaround&bits=3&rows=6&cols=12&iters=300&corr=0.7&seed=5').state;
    const d = compute(ss, s), L = d.layer;
    const x = sourceValues(ss, s);
    expect([L.rows, L.cols, L.batch, L.corr]).toEqual([6, 12, 64, 0.7]);
    expect(L.w).toEqual(Array.from(x.subarray(0, 72)));
    // the grid: s = max|w| / 3 (3-bit symmetric) over the layer, nearest = round half to even of w/s in float32
    const amax = Math.max(...L.w.map(Math.abs));
    expect(L.scale).toBe(Math.fround(amax / 3));
    const inv = Math.fround(1 / L.scale);
    const rint = (u) => (Math.abs(u % 1) === 0.5 ? 2 * Math.round(u / 2) : Math.round(u));
    const nearest = L.w.map((w) => Math.max(-3, Math.min(3, rint(Math.fround(w * inv)))));
    const ada = nearest.map((q, i) => q + L.flip[i]);
    for (let i = 0; i < 72; i++) {
      expect(L.frac[i]).toBe(L.w[i] / L.scale - Math.floor(L.w[i] / L.scale));
      // a flip goes to the other level of the pair around w/s
      if (L.flip[i]) expect(Math.floor(Math.fround(L.w[i] * inv))).toBe(Math.min(nearest[i], ada[i]));
    }
    expect(L.flipped).toBe(L.flip.filter((f) => f !== 0).length);
    // X: the registry form's inputs (C draws them: the AR(1) chain over the normals of (seed, stream 1), in double)
    const X = ss.adaroundInputs(12, 64, { seed: 5, corr: 0.7 });
    const err = (codes) => refLayerError(L.w, codes.map((q) => Math.fround(q * L.scale)), X, 6, 12, 64);
    expect(Math.abs(L.errNearest - err(nearest))).toBeLessThanOrEqual(1e-9 * L.errNearest);
    expect(Math.abs(L.err - err(ada))).toBeLessThanOrEqual(1e-9 * L.err);
    expect(L.err).toBeLessThanOrEqual(L.errNearest);
    expect(L.gain).toBe(1 - L.err / L.errNearest);
    // the default layer: 8 x 16, AdaRound below nearest; no layer for other schemes
    const dd = compute(ss, read('#scheme=adaround').state).layer;
    expect([dd.rows, dd.cols, dd.soft]).toEqual([8, 16, 0]);
    expect(dd.err).toBeLessThan(dd.errNearest);
    expect(compute(ss, state()).layer).toBeUndefined();
    // rows are clipped to the values; a layer wider than them is an error in its place
    expect(layerRounding(ss, x.subarray(0, 32), { ...schemeParams(ss.kernel('adaround'), { iters: 50 }, 1) }, 8).rows).toBe(2);
    expect(layerRounding(ss, x.subarray(0, 8), schemeParams(ss.kernel('adaround'), {}, 1), 8).error).toMatch(/cols = 16 is more than the 8 values/);
  });

  it('the CSV holds the bins, levels and the effect', () => {
    const d = compute(ss, state({ params: { bits: 3 } }));
    const { rows, columns } = table(d);
    expect(columns).toEqual(['series', 'x', 'y']);
    expect(rows.filter((x) => x[0] === 'bin').reduce((a, x) => a + x[2], 0)).toBe(1024);
    expect(rows.filter((x) => x[0] === 'level').map((x) => [x[1], x[2]])).toEqual(d.levels.map((l) => [l.value, l.count]));
    expect(rows.filter((x) => x[0] === 'after').map((x) => x[2])).toEqual(d.effect.after);
  });
});

describe('quantization figure', () => {
  it('draws exactly the model numbers: bins, levels, metrics, the effect', () => {
    const r = renderFigure(ss, 'quantization', 'bits=4&symmetric=1');
    const d = r.data, els = svgElements(r.svg);
    const hist = inside(els, 'data-chart', 'quant-histogram');
    expect(hist.filter((e) => 'data-level' in e.attrs).map((e) => [Number(e.attrs['data-level']), Number(e.attrs['data-count'])]))
      .toEqual(d.levels.map((l) => [l.value, l.count]));
    expect(d.levels.length).toBeLessThanOrEqual(15); // 4-bit symmetric: codes -7..7
    expect(dataValues(hist, (e) => 'data-count' in e.attrs && e.name === 'rect').map(Number)).toEqual(d.hist.counts.filter((c) => c > 0));
    for (const [k, v] of Object.entries(d.metrics)) expect(one(els, 'data-metric', k).attrs['data-value']).toBe(String(v));
    expect(dataValues(inside(els, 'data-effect-chart', 'before'), (e) => e.name === 'rect')).toEqual(d.effect.before.map(String));
    expect(dataValues(inside(els, 'data-effect-chart', 'after'), (e) => e.name === 'rect')).toEqual(d.effect.after.map(String));
    expect(one(els, 'data-metric', 'kl').attrs['data-value']).toBe(String(d.effect.kl));
    expect(one(els, 'data-metric', 'argmax_kept').attrs['data-value']).toBe('1');
    for (const id of ['quant-histogram', 'before', 'after']) {
      const g = inside(els, id === 'quant-histogram' ? 'data-chart' : 'data-effect-chart', id);
      expect(g.filter((e) => 'data-tick' in e.attrs).length, id).toBeGreaterThan(2);
    }
  });

  it('a probability source on a log axis: whole powers of 10, the largest 64 entries, an unbounded KL said so', () => {
    const r = renderFigure(ss, 'quantization', 'source=attention&scheme=uniform&bits=4', { theme: 'dark' });
    const d = r.data, els = svgElements(r.svg);
    expect(d.log).toBe(true);
    const ticks = inside(els, 'data-chart', 'quant-histogram').filter((e) => 'data-tick' in e.attrs && e.attrs['data-tick'] < 1 && e.attrs['data-tick'] > 0);
    expect(ticks.length).toBeGreaterThan(2);
    for (const t of ticks) expect(Number.isInteger(Math.log10(Number(t.attrs['data-tick'])))).toBe(true);
    expect(d.effect).toMatchObject({ where: 'post', total: 1024, kl: Infinity });
    expect(d.effect.index.length).toBe(64);
    const x = sourceValues(ss, r.state);
    const top = Array.from(x.keys()).sort((a, b) => x[b] - x[a]).slice(0, 64);
    expect(new Set(d.effect.index)).toEqual(new Set(top));
    expect(one(els, 'data-metric', 'kl').text).toMatch(/^∞ \(\d+ entries rounded to 0\)$/);
    expect(JSON.parse(r.json).data.effect.kl).toBe('Infinity');
  });

  it('AdaRound\'s layer: one cell per weight with its grid position and flip, both errors as bars', () => {
    const r = renderFigure(ss, 'quantization', 'scheme=adaround&rows=4&iters=300');
    const L = r.data.layer, els = svgElements(r.svg);
    const grid = inside(els, 'data-layer-grid', '4x16').filter((e) => e.name === 'rect');
    expect(grid.map((e) => e.attrs['data-value'])).toEqual(L.frac.map(String));
    expect(grid.map((e) => Number(e.attrs['data-flip']))).toEqual(L.flip);
    expect(grid.map((e) => Number(e.attrs['data-weight']))).toEqual(L.w);
    expect(grid.filter((e) => e.attrs.stroke).length).toBe(L.flipped); // flipped cells are outlined
    expect(one(els, 'data-metric', 'error').attrs['data-value']).toBe(String(L.err));
    expect(one(els, 'data-metric', 'error_nearest').attrs['data-value']).toBe(String(L.errNearest));
    expect(one(els, 'data-metric', 'gain').attrs['data-value']).toBe(String(L.gain));
    expect(Number(one(els, 'data-metric', 'error').attrs.width)).toBeLessThanOrEqual(Number(one(els, 'data-metric', 'error_nearest').attrs.width));
    const t = table(r.data).rows;
    expect(t.filter((x) => x[0] === 'layer_flip').map((x) => x[2])).toEqual(L.flip);
    // a layer C cannot compute shows why, in its place
    const bad = renderFigure(ss, 'quantization', 'scheme=adaround&source=softmax&cols=32');
    expect(bad.data.layer.error).toMatch(/cols = 32/);
    expect(one(svgElements(bad.svg), 'data-error', 'layer').text).toMatch(/cols = 32/);
  });

  it('is well-formed SVG at phone, default and wide widths in both themes; its height is the view height', () => {
    for (const st of ['', 'scheme=pow2', 'source=softmax&scheme=vq', 'scheme=adaround&iters=100']) {
      const d = compute(ss, read(st).state);
      for (const w of [390, 720, 1200]) for (const theme of ['light', 'dark']) {
        const r = renderFigure(ss, 'quantization', st, { width: w, theme });
        const root = svgElements(r.svg)[0];
        expect(Number(root.attrs.height)).toBe(quantization.height(d, w));
      }
    }
  });
});
