// @vitest-environment happy-dom
// The Attention view without a browser: its link state round-trips
// (normalizer parameters shared by name, linear-form and quantizer
// parameters scoped by kernel), bad values fall back with notices, and the
// lists come from the registry; softmax is the reference (TV 0, output error
// 0), a sparse normalizer is sparse and at a positive distance, probability
// rows sum to 1 and the measures agree with a float64 recomputation;
// post-softmax quantized rows sum to 1 and their output error is that of
// A V; a kernel that rejects its parameters stops only its map; per-head
// measures the API adds appear by themselves; the figure (well-formed SVG)
// paints exactly the zero weights in the theme's zero colour, draws the
// model's numbers and token labels, and maps pointer and keys to rows.
// The random-feature error maps: the registry's kernels with a kernel
// estimate by default, E against a float64 softmax attention, one shared
// scale, errors falling with the feature count, an undefined kernel keeping
// its place with the reason; the head comparison on the dormant example:
// softmax sinks, softpick gives exact zeros, kurtosis against float64.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { parse, defaults, toHash } from '../../wasm/state/schema.js';
import { attention as view } from '../../wasm/views/attention/index.js';
import { compute, meanTv, quantizeRows, table, REFERENCE } from '../../wasm/views/attention/model.js';
import { linearForms, rowQuantizers, attentionNormalizers, QUANT_DEFAULTS } from '../../wasm/views/attention/schema.js';
import { attentionRaster, attentionLayout, labelled } from '../../wasm/figures/attention.js';
import { attentionExample } from '../../wasm/analysis/attention-examples.js';
import { THEMES } from '../../wasm/figures/palette.js';
import { upscaleRgba } from '../../wasm/figures/raster.js';
import { figureFiles } from '../../wasm/views/files.js';
import { parseXml } from './support/xml.js';
import { viewState, mountFigure } from './support/view-harness.js';
import { readHash } from '../../web/src/state/location.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

const { schema } = view;
const { read, state } = viewState(view, () => ss);
const mount = (data, props) => mountFigure(view, ss, data, props);
const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));

describe('attention state', () => {
  it('round-trips every key and leaves defaults out of the link', () => {
    const s = {
      ...defaults(schema, ss), example: 'random', n: 128, seed: 7, scale: 0.5, causal: true, normalizers: ['sparsemax', 'ssmax'],
      linear: ['performer'], quant: 'pow2', row: 5, params: { s: 0.5 }, linear_params: { 'performer.features': 64 }, quant_params: { 'pow2.bits': 3 },
    };
    const hash = toHash(schema, s, ss);
    expect(hash).toContain('linear=performer');
    expect(hash).toContain('pow2.bits=3');
    expect(hash).toContain('performer.features=64');
    const back = read(hash);
    expect(back.notices).toEqual([]);
    expect(back.state).toEqual(s);
    expect(toHash(schema, defaults(schema, ss), ss)).toBe('view=attention');
  });

  it('bad link values fall back to their defaults with a notice naming the key', () => {
    const d = defaults(schema, ss);
    const r = read('example=poem&n=9999&scale=-1&quant=fp4&linear=cosformer,nope&row=x&pow2.bits=3&alpha=0.5&causal=maybe');
    expect(r.state.example).toBe(d.example);
    expect(r.state.n).toBe(d.n);
    expect(r.state.scale).toBe(1);
    expect(r.state.quant).toBe('none');
    expect(r.state.linear).toEqual(['cosformer']);
    expect(r.state.row).toBe(null);
    expect(r.state.causal).toBe(false);
    expect(r.state.params).toEqual({}); // alpha = 0.5 is outside entmax_bisect's range
    expect(r.notices.map((n) => n.key).sort()).toEqual(['alpha', 'causal', 'example', 'linear', 'n', 'pow2.bits', 'quant', 'row', 'scale']);
    // a row past the example's end is dropped; the view's own seed is the example's, not a normalizer's
    expect(state('example=sentence&row=9').row).toBe(null);
    const v = state('normalizers=vq_softmax&seed=3');
    expect(v.seed).toBe(3);
    expect(v.params).toEqual({});
  });

  it('offers the registry\'s linear forms, its quantizers with a bit width, and normalizers that give weights', () => {
    const field = (k) => schema.fields.find((f) => f.key === k);
    const lin = field('linear').options(ss);
    expect(lin.length).toBeGreaterThan(0);
    for (const name of lin) expect(ss.kernel(name, 'attention').role).toBe('linear_attention');
    expect(lin).toEqual(ss.kernels('attention').filter((k) => k.role === 'linear_attention').map((k) => k.name));
    const q = field('quant').options(ss);
    expect(q[0]).toBe('none');
    expect(q.slice(1)).toEqual(ss.kernels('quantizer').filter((k) => k.params.some((p) => p.name === 'bits')).map((k) => k.name));
    expect(field('normalizers').options(ss).every((n) => ss.kernel(n, 'normalizer').output !== 'log_probs')).toBe(true);
    expect(field('normalizers').options(ss).length).toBe(ss.kernels('normalizer').filter((k) => k.output !== 'log_probs').length);
  });

  it('reads links of the earlier format (attn.* keys); the old bit width is reported', () => {
    const r = readHash('#panel=attention&attn.example=random&attn.n=64&attn.norms=softmax,ssmax&attn.linear=performer&attn.quant=pow2&attn.bits=3&s=0.5', ['attention']);
    const { state: s, notices } = parse(schema, r.entries, ss);
    expect(s).toEqual({ ...defaults(schema, ss), example: 'random', n: 64, normalizers: ['softmax', 'ssmax'], linear: ['performer'], quant: 'pow2', params: { s: 0.5 } });
    expect(notices.map((n) => n.key)).toEqual(['bits']); // now pow2.bits=3
  });
});

describe('attention model', () => {
  it('softmax is the reference; sparsemax is sparse and at a positive distance; the measures hold', () => {
    const s = state(`normalizers=${REFERENCE},sparsemax&linear=galerkin`);
    const d = compute(ss, s);
    const [soft, sparse, gal] = d.panels;
    expect([soft.id, sparse.id, gal.id]).toEqual([REFERENCE, 'sparsemax', 'galerkin']);
    expect(soft.tv).toBe(0);
    expect(soft.outErr).toBe(0);
    expect(sparse.tv).toBeGreaterThan(0);
    expect(sparse.A.filter((x) => x === 0).length).toBeGreaterThan(0);
    expect(gal.kind).toBe('linear');
    expect(gal.signed).toBe(true); // Q K^T / m has negative entries
    const { n, m } = d;
    for (const p of [soft, sparse]) {
      let zeros = 0, ent = 0;
      for (let i = 0; i < n; i++) {
        const row = p.A.slice(i * m, (i + 1) * m);
        expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
        let h = 0, z = 0;
        for (const v of row) { if (v > 0) h -= v * Math.log(v); else z++; }
        expect(Math.abs(p.rows.entropy[i] - h)).toBeLessThan(1e-4);
        expect(p.rows.zeros[i]).toBeCloseTo(z / m, 6);
        expect(p.rows.max[i]).toBe(Math.max(...row));
        expect(p.rows.sink[i]).toBeCloseTo(row[0], 6); // key 0's share of the row (float32)
        zeros += z / m; ent += h;
      }
      expect(p.mean.zeros).toBeCloseTo(zeros / n, 9);
      expect(Math.abs(p.mean.entropy - ent / n)).toBeLessThan(1e-4);
    }
    // TV recomputed against the reference
    let tv = 0;
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let j = 0; j < m; j++) t += Math.abs(sparse.A[i * m + j] - soft.A[i * m + j]);
      tv += t / 2;
    }
    expect(sparse.tv).toBeCloseTo(tv / n, 6);
    expect(meanTv(Float32Array.from([1, 0, 0, 1]), Float32Array.from([0, 1, 1, 0]), 2, 2)).toBe(1);
    const t = table(d);
    expect(t.rows.length).toBe((3 + d.rf.maps.filter((e) => !e.error).length) * n * m);
    expect(t.rows[m + 2]).toEqual([REFERENCE, 1, 2, d.example.tokens[1], d.example.tokens[2], soft.A[m + 2]]);
  });

  it('post-softmax quantized rows sum to 1, and their output error is that of A V', () => {
    const s = state('normalizers=softmax&quant=pow2&pow2.bits=2');
    const d = compute(ss, s);
    const [p] = d.panels;
    expect(p.quantized).toBe(true);
    expect(d.quant).toEqual({ name: 'pow2', params: { bits: 2 } });
    const { n, m } = d;
    for (let i = 0; i < n; i++) expect(p.A.slice(i * m, (i + 1) * m).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(p.A.filter((x) => x === 0).length).toBeGreaterThan(0); // 2-bit pow2 rounds weights below max / 8 to 0
    expect(p.tv).toBeGreaterThan(0);
    // the output error of the quantized weights, in float64: ‖A_q V − A V‖ / ‖A V‖
    const ex = attentionExample(s.example, s.n, s.seed);
    const ref = ss.attend('sdpa', ex, { scale: 1 / Math.sqrt(ex.d) }, { normalizer: 'softmax' }).output;
    const dv = ref.length / n;
    let e = 0, r = 0;
    for (let i = 0; i < n; i++)
      for (let c = 0; c < dv; c++) {
        let o = 0;
        for (let j = 0; j < m; j++) o += p.A[i * m + j] * ex.v[j * dv + c];
        e += (o - ref[i * dv + c]) ** 2; r += ref[i * dv + c] ** 2;
      }
    expect(p.outErr).toBeGreaterThan(0);
    expect(p.outErr).toBeCloseTo(Math.sqrt(e / r), 6);
    // the view's bit width where the link sets none
    expect(compute(ss, state('normalizers=softmax&quant=pow2')).quant.params.bits).toBe(QUANT_DEFAULTS.bits);
    const q = quantizeRows(ss, Float32Array.from([0.7, 0.2, 0.1, 0]), 1, 4, 'pow2', { bits: 2 });
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });

  it('a kernel that rejects its parameters stops only its map, with the message', () => {
    const d = compute(ss, state('normalizers=softmax,topk_softmax&k=100&linear=performer'));
    expect(d.panels.map((p) => p.id)).toEqual(['softmax', 'topk_softmax', 'performer']);
    expect(d.panels[1].error).toMatch(/k = 100/);
    expect(d.panels[0].error).toBeUndefined();
    expect(d.panels[2].A.length).toBe(d.n * d.m);
    const m = mount(d);
    try {
      expect(m.q('[data-error="topk_softmax"]').textContent).toMatch(/k = 100/);
    } finally {
      m.unmount();
    }
  });

  it('a linear form gets its own parameters', () => {
    const s = state('normalizers=softmax&linear=performer&performer.features=16');
    const d = compute(ss, s);
    const ex = attentionExample(s.example, s.n, s.seed);
    const want = ss.attend('performer', ex, { features: 16, scale: 1 / Math.sqrt(ex.d) }, { attention: true }).attention;
    expect(d.panels[1].A).toEqual(Array.from(want));
    expect(d.panels[1].A).not.toEqual(compute(ss, state('normalizers=softmax&linear=performer')).panels[1].A);
  });

  it('per-head measures the API reports appear in the data and the figure', () => {
    const real = ss.attentionMeasures;
    ss.attentionMeasures = function (...args) {
      return { ...real.apply(this, args), spread: Float64Array.from([3.25]) };
    };
    try {
      const d = compute(ss, state('normalizers=softmax'));
      expect(d.panels[0].head).toEqual({ spread: 3.25 });
      const m = mount(d);
      try {
        expect(m.q('[data-map="softmax"] [data-metric="spread"]').getAttribute('data-value')).toBe('3.25');
      } finally {
        m.unmount();
      }
    } finally {
      ss.attentionMeasures = real;
    }
  });
});

describe('attention figure', () => {
  it('paints exactly the zero weights in the theme\'s zero colour', () => {
    const d = compute(ss, state('normalizers=softmax,sparsemax&linear=galerkin&n=40'));
    for (const t of ['light', 'dark']) {
      const th = THEMES[t], z = hex(th.zeroCell);
      for (const p of d.panels) {
        const px = attentionRaster(p.A, d.n, d.m, th);
        for (let k = 0; k < d.n * d.m; k++) {
          const isZero = px[4 * k] === z[0] && px[4 * k + 1] === z[1] && px[4 * k + 2] === z[2];
          if (isZero !== (p.A[k] === 0)) throw new Error(`${t} ${p.id}: cell ${k} = ${p.A[k]} drawn ${isZero ? '' : 'not '}as zero`);
        }
      }
    }
    expect(d.panels[1].A.filter((x) => x === 0).length).toBeGreaterThan(d.n * d.m / 2); // sparsemax is sparse here
  });

  it('small maps are drawn with each cell repeated k x k times (sharp in any renderer)', () => {
    const px = Uint8ClampedArray.from([1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255, 13, 14, 15, 255, 16, 17, 18, 255]); // 3 x 2
    const up = upscaleRgba(px, 3, 2, 3);
    expect(up.length).toBe(9 * 6 * 4);
    for (let y = 0; y < 6; y++)
      for (let x = 0; x < 9; x++) {
        const src = (Math.floor(y / 3) * 3 + Math.floor(x / 3)) * 4;
        expect(Array.from(up.slice((y * 9 + x) * 4, (y * 9 + x) * 4 + 4))).toEqual(Array.from(px.slice(src, src + 4)));
      }
    expect(upscaleRgba(px, 3, 2, 1)).toBe(px);
  });

  it('is well-formed SVG whose marks carry the model\'s numbers, with the example\'s tokens', () => {
    const s = state('example=sentence&normalizers=softmax,sparsemax&linear=galerkin&row=2');
    const d = compute(ss, s);
    for (const theme of ['light', 'dark']) {
      const f = figureFiles(ss, view, s, d, { theme });
      const els = parseXml(f.svg);
      expect(Number(els[0].attrs.height)).toBe(attentionLayout(d, view.width).height);
      expect(els.filter((e) => e.name === 'image' && e.attrs['data-map-image']).length).toBe(3);
    }
    const m = mount(d);
    try {
      for (const p of d.panels) {
        const val = (name) => m.q(`[data-map="${p.id}"] [data-metric="${name}"]`).getAttribute('data-value');
        expect(val('entropy')).toBe(String(p.mean.entropy));
        expect(val('zeros')).toBe(String(p.mean.zeros));
        expect(val('max')).toBe(String(p.mean.max));
        expect(val('sink')).toBe(String(p.mean.sink));
        expect(val('tv')).toBe(String(p.tv));
        expect(val('out-error')).toBe(String(p.outErr));
        expect(Number(m.q(`[data-map="${p.id}"]`).getAttribute('data-zeros'))).toBe(p.A.filter((x) => x === 0).length);
        // the row's weights as bars
        const bars = m.qa(`[data-row-of="${p.id}"] [data-index]`).map((b) => Number(b.getAttribute('data-value')));
        expect(bars).toEqual(p.A.slice(2 * d.m, 3 * d.m));
      }
      // the sentence's words label the queries of every map
      const words = m.qa('[data-map="softmax"] text').map((t) => t.textContent);
      for (const w of d.example.tokens) expect(words).toContain(w);
      expect(m.q('[data-row="2"]').textContent).toContain(`(${d.example.tokens[2]})`);
    } finally {
      m.unmount();
    }
  });

  it('thins token labels when n is large', () => {
    expect(labelled(256, 240)).toHaveLength(Math.ceil(256 / Math.ceil(256 / 24)));
    expect(labelled(7, 240)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const d = compute(ss, state('example=random&n=256&normalizers=softmax'));
    const m = mount(d);
    try {
      const L = attentionLayout(d, 940);
      const labels = m.qa('[data-map="softmax"] text[text-anchor="end"][dy]').length;
      expect(labels).toBeLessThanOrEqual(2 * (Math.floor(L.map / 10) + 1));
      expect(labels).toBeGreaterThan(10);
    } finally {
      m.unmount();
    }
  });

  it('maps the pointer and the keys to rows', () => {
    const d = compute(ss, state('normalizers=softmax&n=32'));
    const hovered = [], selected = [];
    const m = mount(d, { onHover: (r) => hovered.push(r), onSelect: (r) => selected.push(r), detail: true, row: 4 });
    try {
      const rect = m.q('[data-map="softmax"] rect[style]');
      rect.getBoundingClientRect = () => ({ left: 0, top: 100, width: 320, height: 320, right: 320, bottom: 420 });
      rect.dispatchEvent(new PointerEvent('pointermove', { clientX: 10, clientY: 100 + 10.5 * 10, bubbles: true }));
      rect.dispatchEvent(new PointerEvent('pointerleave', { bubbles: false }));
      rect.dispatchEvent(new MouseEvent('click', { clientX: 10, clientY: 100 + 31.9 * 10, bubbles: true }));
      expect(hovered).toEqual([10, null]);
      expect(selected).toEqual([31]);
      const g = m.q('[data-map="softmax"] [tabindex="0"]');
      for (const key of ['ArrowDown', 'ArrowUp', 'Home', 'End', 'Escape']) g.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      expect(selected.slice(1)).toEqual([5, 3, 0, 31, null]);
      expect(m.q('[data-row-mark="4"]')).not.toBe(null);
    } finally {
      m.unmount();
    }
  });
});
