// @vitest-environment happy-dom
// The Attention view's two sections below the maps, without a browser:
//   - random features against softmax: the choices are the registry's
//     attention kernels with a kernel estimate (all of them by default), their
//     parameters shared by name (features=64) over the view's default; each
//     map is A_kernel − A_softmax against a float64 softmax attention written
//     here; the relative errors are recomputed; one scale (the largest |E|)
//     for all; more features, lower error; a kernel not defined on the input
//     (a row's estimated normalizer <= 0) keeps its place with the reason;
//   - heads on the dormant example: softmax sinks on key 0, softpick gives
//     exactly zero weight and output; kurtosis and max/median of each head's
//     output against float64; the sink threshold and rate;
//   - the figure draws those numbers (data-value), one legend for the maps,
//     and its height is the layout's.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { defaults, toHash } from '../../wasm/state/schema.js';
import { attention as view } from '../../wasm/views/attention/index.js';
import { compute } from '../../wasm/views/attention/model.js';
import { RF_DEFAULTS, SINK_EPS } from '../../wasm/views/attention/schema.js';
import { attentionLayout } from '../../wasm/figures/attention.js';
import { attentionExample } from '../../wasm/analysis/attention-examples.js';
import { figureFiles } from '../../wasm/views/files.js';
import { parseXml } from './support/xml.js';
import { inside, dataValues, one } from './support/figure.js';
import { viewState } from './support/view-harness.js';
import { WASM } from './support/wasm-paths.js';
import { refKurtosis as kurtosis } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

const { schema } = view;
const { read, state } = viewState(view, () => ss);

// Softmax attention in float64, per head (q, k: n x d; v: n x dv): { A (heads x n x n), out (n x dv) }.
function refAttention(x, scale, heads = 1) {
  const { q, k, v, n } = x, d = q.length / n, dv = v.length / n, dh = d / heads, dvh = dv / heads;
  const A = new Float64Array(heads * n * n), out = new Float64Array(n * dv);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < n; i++) {
      const s = Array.from({ length: n }, (_, j) => {
        let t = 0;
        for (let c = h * dh; c < (h + 1) * dh; c++) t += q[i * d + c] * k[j * d + c];
        return scale * t;
      });
      const mx = Math.max(...s), e = s.map((t) => Math.exp(t - mx)), z = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j < n; j++) {
        A[(h * n + i) * n + j] = e[j] / z;
        for (let c = h * dvh; c < (h + 1) * dvh; c++) out[i * dv + c] += (e[j] / z) * v[j * dv + c];
      }
    }
  return { A, out };
}
const norm = (a) => Math.sqrt(a.reduce((s, v) => s + v * v, 0));
describe('random features against softmax', () => {
  it('offers the registry\'s kernels with a kernel estimate, all by default; features=64 is shared by name', () => {
    const f = schema.fields.find((x) => x.key === 'rf');
    const want = ss.kernels('attention').filter((k) => k.kernel_estimate).map((k) => k.name);
    expect(f.options(ss)).toEqual(want);
    expect(defaults(schema, ss).rf).toEqual(want);
    const s = state('rf=trig,hrf&features=64&angle_features=4&orthogonal=0');
    expect(s.rf).toEqual(['trig', 'hrf']);
    expect(s.rf_params).toEqual({ features: 64, angle_features: 4, orthogonal: 0 });
    const hash = toHash(schema, s, ss);
    for (const kv of ['rf=trig,hrf', 'features=64', 'angle_features=4', 'orthogonal=0']) expect(hash).toContain(kv);
    expect(read(hash)).toEqual({ state: s, notices: [] });
    const bad = read('rf=sdpa,trig&features=0');
    expect(bad.state.rf).toEqual(['trig']);
    expect(bad.notices.map((n) => n.key).sort()).toEqual(['features', 'rf']);
  });

  it('each map is A_kernel − A_softmax against a float64 reference, on one scale; the errors are recomputed', () => {
    const s = state('example=sentence');
    const d = compute(ss, s), ex = attentionExample('sentence');
    const scale = s.scale / Math.sqrt(ex.d);
    const ref = refAttention(ex, scale);
    expect(d.rf.maps.map((e) => e.id)).toEqual(s.rf);
    let hi = 0;
    for (const e of d.rf.maps) {
      expect(e.error, e.id).toBeUndefined();
      expect(e.params.features).toBe(RF_DEFAULTS.features);
      expect(e.params.seed).toBe(s.seed);
      const mine = ss.attend(e.id, ex, { ...e.params, scale }, { attention: true });
      for (let t = 0; t < e.E.length; t++) {
        expect(Math.abs(e.E[t] - (mine.attention[t] - ref.A[t]))).toBeLessThan(2e-6);
        hi = Math.max(hi, Math.abs(e.E[t]));
      }
      expect(e.relErr).toBeCloseTo(norm(e.E) / norm(ref.A), 5);
      const dOut = Array.from(mine.output, (o, t) => o - ref.out[t]);
      expect(e.outErr).toBeCloseTo(norm(dOut) / norm(ref.out), 5);
    }
    expect(d.rf.hi).toBeCloseTo(hi, 6);
  });

  it('more features, a lower error for every kernel (8 against 256 per estimator)', () => {
    const few = compute(ss, state('example=copy&scale=0.5&features=8&trig_features=8'));
    const many = compute(ss, state('example=copy&scale=0.5&features=256&trig_features=256'));
    few.rf.maps.forEach((e, i) => expect(many.rf.maps[i].relErr, e.id).toBeLessThan(e.relErr / 2));
  });

  it('a kernel not defined on the input keeps its place with the reason; the others still map', () => {
    const d = compute(ss, state('example=random&scale=1'));
    const bad = d.rf.maps.filter((e) => e.error);
    expect(bad.length).toBeGreaterThan(0);
    for (const e of bad) {
      expect(e.domain).toBe(true);
      expect(e.error).toMatch(/not defined at score scale 1 .*estimated normalizer came out ≤ 0/);
      expect(ss.kernel(e.id).role).toBe('linear_attention');
    }
    expect(d.rf.maps.some((e) => !e.error)).toBe(true); // positive features are always defined
    const f = figureFiles(ss, view, state('example=random&scale=1'), d);
    const els = parseXml(f.svg);
    for (const e of bad) expect(inside(els, 'data-error', `rf-${e.id}`).map((x) => x.text).join(' ')).toMatch(/not defined at score scale/);
    expect(compute(ss, state('rf=')).rf).toBe(null);
  });
});

describe('heads on the dormant example', () => {
  it('softmax sinks on key 0, softpick gives exactly zero weight and output; kurtosis as float64 says', () => {
    const s = state('');
    expect(s.sinks).toEqual(['softmax', 'softpick']);
    expect(s.sink_eps).toBe(SINK_EPS);
    const H = compute(ss, s).heads;
    const [soft, pick] = H.rows;
    expect([H.heads, H.dormant, H.n]).toEqual([2, [0], s.n]);
    expect(soft.keyZero[0]).toBeGreaterThan(0.9);
    expect(soft.sink).toEqual([true, false]);
    expect(soft.sinkRate).toBe(0.5);
    expect(pick.keyZero[0]).toBe(0);
    expect(pick.zeros[0]).toBe(1);
    expect(pick.sink).toEqual([false, false]);
    expect(pick.sinkRate).toBe(0);
    expect(pick.kurtosis[0]).toBe(0); // undefined: all outputs 0
    // softmax's heads against float64 attention
    const ex = attentionExample('dormant', s.n, s.seed);
    const ref = refAttention(ex, s.scale / Math.sqrt(ex.d / ex.heads), ex.heads);
    for (let h = 0; h < 2; h++) {
      const vals = [];
      for (let i = 0; i < ex.n; i++) for (let c = 0; c < 8; c++) vals.push(ref.out[i * 16 + h * 8 + c]);
      expect(Math.abs(soft.kurtosis[h] - kurtosis(vals))).toBeLessThan(1e-4 * kurtosis(vals));
      let a0 = 0;
      for (let i = 0; i < ex.n; i++) a0 += ref.A[(h * ex.n + i) * ex.n];
      expect(soft.keyZero[h]).toBeCloseTo(a0 / ex.n, 6);
    }
    // the threshold decides the flag
    expect(compute(ss, state('sink_eps=0')).heads.rows[0].sink).toEqual([true, true]);
    expect(compute(ss, state('sinks=')).heads).toBe(null);
  });
});

describe('the figure\'s sections', () => {
  it('draws the error maps, their shared scale and the heads\' numbers; its height is the layout\'s', () => {
    for (const [st, width] of [['', 940], ['example=random&n=48', 390]]) {
      const s = state(st), d = compute(ss, s);
      const f = figureFiles(ss, view, s, d, { width, theme: width < 500 ? 'dark' : 'light' });
      const els = parseXml(f.svg);
      expect(Number(els[0].attrs.height)).toBe(attentionLayout(d, width).height);
      const rf = inside(els, 'data-section', 'rf');
      expect(rf.find((e) => 'data-rf-legend' in e.attrs).attrs['data-value']).toBe(String(d.rf.hi));
      for (const e of d.rf.maps) {
        const g = inside(els, 'data-rf-map', e.id);
        if (e.error) continue;
        expect(g.filter((x) => x.name === 'image').length).toBe(1);
        expect(one(g, 'data-metric', 'rf-error').attrs['data-value']).toBe(String(e.relErr));
        expect(one(g, 'data-metric', 'rf-out-error').attrs['data-value']).toBe(String(e.outErr));
      }
      for (const r of d.heads.rows) {
        const g = inside(els, 'data-heads-of', r.id);
        expect(dataValues(g, (e) => e.attrs['data-metric'] === 'key0')).toEqual(r.keyZero.map(String));
        expect(dataValues(g, (e) => e.attrs['data-metric'] === 'kurtosis')).toEqual(r.kurtosis.map(String));
        expect(dataValues(g, (e) => e.attrs['data-metric'] === 'max-median')).toEqual(r.maxMedian.map(String));
        expect(one(g, 'data-metric', 'sink-rate').attrs['data-value']).toBe(String(r.sinkRate));
        expect(g.filter((e) => e.attrs['data-sink'] === '1').length).toBe(r.sink.filter(Boolean).length);
      }
    }
  });
});
