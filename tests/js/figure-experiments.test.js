// @vitest-environment happy-dom
// The Experiments figure draws the numbers it is given: on data from real
// training runs of createModel (support/experiments-data.js) every mark's
// data-value is the number in the data (curves, the test at each length,
// quantisation, head measures); the training lengths are shaded exactly
// over [trainN] on the log2 axis; a run that reached 95 % has its ring and a
// diverged run its × with "diverged at step s"; partial data (a run still
// training, no test yet) draws without error and says what comes; no NaN,
// Infinity or undefined reaches the SVG, which is well-formed XML; the data
// it draws has the view's declared shape (a results file is checked against
// it first: NaN, strings for numbers, unknown names never reach a figure),
// and the texts that shape lets through (a task, an error) are text, never
// markup; the same data draws the same bytes.
import { describe, it, expect, beforeAll } from 'vitest';
import { render } from 'preact';
import { createSoftscope } from 'softscope';
import { html } from '../../wasm/figures/h.js';
import { svgString } from '../../wasm/figures/render.js';
import { kernelColors } from '../../wasm/figures/palette.js';
import { ExperimentsFigure, experimentsHeight } from '../../wasm/figures/experiments.js';
import { experimentsData } from './support/experiments-data.js';
import { check } from '../../wasm/views/shape.js';
import { dataShape } from '../../wasm/views/experiments/data-shape.js';
import { parseXml } from './support/xml.js';
import { WASM } from './support/wasm-paths.js';

let ss, D;
beforeAll(async () => {
  ss = await createSoftscope({ wasm: WASM, impl: 'simd' });
  const diverge = ss.kernels('normalizer').find((k) => k.has_backward && k.name !== 'softmax' && k.name !== 'ssmax').name;
  D = experimentsData(ss, { diverge });
}, 60000);

const W = 960;
const svgOf = (data, width = W) => svgString(html`<${ExperimentsFigure} data=${data} colors=${kernelColors(ss, 'normalizer')} theme="light"
  width=${width} height=${experimentsHeight(data, width)} />`);
function mount(data, width = W) {
  const root = document.createElement('div');
  render(html`<${ExperimentsFigure} data=${data} colors=${kernelColors(ss, 'normalizer')} theme="light" width=${width} />`, root);
  return { q: (s) => root.querySelector(s), qa: (s) => [...root.querySelectorAll(s)] };
}
// the numbers of a list as a mark writes them: String of each, comma separated
const joined = (a) => a.map((v) => String(v)).join(',');
const sel = (k, v) => `[${k}="${CSS.escape(v)}"]`;

describe('the Experiments figure on trained runs', () => {
  it('the data has what the checks below need: a run that trained, one that diverged, tests at every length', () => {
    const [a, b, c] = D.runs;
    expect(a.curve.step.length).toBe(D.steps / 5);
    expect(a.lengths.map((p) => p.n)).toEqual(D.testN);
    expect(b.quant.length).toBe(D.bits.length);
    expect(c.diverged).toBeGreaterThanOrEqual(1);
    expect(a.map.maps.length).toBe(a.map.layers * a.map.heads * a.map.n ** 2);
  });

  it('every training curve carries its steps and values, loss and accuracy, per run', () => {
    const m = mount(D);
    for (const r of D.runs) {
      for (const metric of ['loss', 'accuracy']) {
        const p = m.q(`[data-section="training"] path${sel('data-series', r.name)}${sel('data-metric', metric)}`);
        if (r.curve.step.length === 0) { expect(p.getAttribute('data-value')).toBe(null); continue; }
        expect(p.getAttribute('data-value')).toBe(joined(r.curve[metric]));
        expect(p.getAttribute('data-step')).toBe(joined(r.curve.step));
        expect(p.getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)*$/);
      }
    }
  });

  it('accuracy, entropy and max weight at each test length are the data\'s, on the runs that were tested', () => {
    const m = mount(D);
    let lines = 0;
    for (const r of D.runs.filter((x) => x.lengths.length)) {
      for (const metric of ['accuracy', 'entropy', 'maxWeight']) {
        const p = m.q(`[data-section="lengths"] path${sel('data-series', r.name)}${sel('data-metric', metric)}`);
        expect(p.getAttribute('data-n')).toBe(joined(r.lengths.map((x) => x.n)));
        expect(p.getAttribute('data-value')).toBe(joined(r.lengths.map((x) => x[metric])));
        lines++;
      }
    }
    expect(lines).toBe(6);
  });

  it('the training lengths are shaded from trainN[0] to trainN[1] on each chart\'s log2 axis (read from its tick labels)', () => {
    const m = mount(D);
    const charts = m.qa('[data-section="lengths"] [data-chart]');
    expect(charts.length).toBe(3);
    for (const c of charts) {
      const ticks = [...c.querySelectorAll('.axis-x text[data-tick]')].map((t) => [Number(t.getAttribute('data-tick')), Number(t.getAttribute('x'))]);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      const [[n0, x0], [n1, x1]] = [ticks[0], ticks[ticks.length - 1]];
      const at = (n) => x0 + ((Math.log2(n) - Math.log2(n0)) / (Math.log2(n1) - Math.log2(n0))) * (x1 - x0);
      const band = c.querySelector('[data-train-band]');
      expect(band.getAttribute('data-train-band')).toBe(`${D.trainN[0]},${D.trainN[1]}`);
      const rect = band.querySelector('rect');
      expect(Number(rect.getAttribute('x'))).toBeCloseTo(at(D.trainN[0]), 6);
      expect(Number(rect.getAttribute('x')) + Number(rect.getAttribute('width'))).toBeCloseTo(at(D.trainN[1]), 6);
      expect(band.textContent).toBe('trained');
    }
  });

  it('each quantized accuracy is a marker at its bits with the data\'s value; the float accuracy a line', () => {
    const m = mount(D);
    for (const r of D.runs) {
      const marks = m.qa(`[data-section="quantization"] [data-quant]${sel('data-run', r.name)}`);
      expect(marks.map((e) => [e.getAttribute('data-quant'), Number(e.getAttribute('data-bits')), e.getAttribute('data-value')]))
        .toEqual(r.quant.map((q) => [q.quantizer, q.bits, String(q.accuracy)]));
      const float = m.q(`${sel('data-quant-of', r.name)} [data-metric="float"]`);
      expect(float?.getAttribute('data-value') ?? null).toBe(r.floatAccuracy === null ? null : String(r.floatAccuracy));
    }
  });

  it('a diverged run ends in an × with its step, in the legend and its run line "diverged at step s"', () => {
    const m = mount(D);
    const r = D.runs.find((x) => x.diverged !== null);
    const marks = m.qa(`${sel('data-diverged', r.name)}`);
    expect(marks.length).toBe(r.curve.step.length ? 2 : 0); // the loss and the accuracy chart (a run that diverged in its first window has no curve)
    for (const x of marks) expect(x.getAttribute('data-value')).toBe(String(r.diverged));
    expect(m.q(`${sel('data-legend-item', r.name)}`).textContent).toContain(`diverged at step ${r.diverged}`);
    expect(m.q(`${sel('data-run', r.name)}`).textContent).toContain(`diverged at step ${r.diverged}`);
    for (const x of D.runs.filter((y) => y.diverged === null)) expect(m.q(`${sel('data-diverged', x.name)}`)).toBe(null);
  });

  it('a ring marks the step where a run first reached 95 %, and only then', () => {
    const r0 = D.runs[0];
    const data = { ...D, runs: [{ ...r0, reached: r0.curve.step[3] }, { ...D.runs[1], reached: null }, ...D.runs.slice(2)] };
    const m = mount(data);
    expect(m.q(`${sel('data-reached', r0.name)}`).getAttribute('data-value')).toBe(String(r0.curve.step[3]));
    expect(m.q(`${sel('data-reached', D.runs[1].name)}`)).toBe(null);
  });

  it('the selected run\'s attention: one picture per layer and head, key 0 marked, the head measures under each', () => {
    const r = D.runs[1];
    const m = mount({ ...D, sel: 1, bos: true });
    expect(m.q('[data-section="attention"]').getAttribute('data-sel')).toBe(r.name);
    const maps = m.qa('[data-section="attention"] [data-map]');
    expect(maps.length).toBe(r.map.layers * r.map.heads);
    for (const g of maps) {
      const [l, h] = g.getAttribute('data-map').split(':').map(Number);
      const hm = r.heads.find((x) => x.layer === l && x.head === h);
      expect(g.querySelector('image').getAttribute('href')).toMatch(/^data:image\/png;base64,/);
      expect(g.querySelector('[data-key-zero]').textContent).toBe('BOS');
      expect(g.querySelector('[data-metric="sink-rate"]').getAttribute('data-value')).toBe(String(hm.sinkRate));
      expect(g.querySelector('[data-metric="kurtosis"]').getAttribute('data-value')).toBe(String(hm.kurtosis));
    }
    expect(mount(D).q('[data-key-zero]').textContent).toBe('key 0');
  });
});

describe('the Experiments figure on partial and hostile data', () => {
  const clean = (svg) => {
    expect(svg).not.toMatch(/NaN|Infinity|undefined|\[object/);
    const els = parseXml(svg);
    const h = Number(els[0].attrs.height);
    for (const e of els) if (e.name === 'text' && e.attrs.y !== undefined) expect(Number(e.attrs.y), e.text).toBeLessThanOrEqual(h);
    return els;
  };

  it('while training (curves so far, no tests, maps or quantisation yet) it draws them and says what comes after', () => {
    const cut = (r) => ({ ...r, step: 20, reached: null, curve: { step: r.curve.step.slice(0, 4), loss: r.curve.loss.slice(0, 4), accuracy: r.curve.accuracy.slice(0, 4) },
      lengths: [], map: null, heads: [], quant: [], floatAccuracy: null });
    const data = { ...D, phase: 'train', progress: 0.1, runs: D.runs.slice(0, 2).map(cut) };
    const svg = svgOf(data);
    const text = clean(svg).map((e) => e.text).join(' ');
    expect(text).toContain('tested after training');
    expect(text).toContain('after testing');
    expect(text).toContain('quantized after testing');
    expect(svg.match(/data-metric="loss" data-step/g)).toHaveLength(2);
    // nothing at all yet
    const none = { ...D, phase: 'train', progress: 0, runs: D.runs.map((r) => ({ ...cut(r), step: 0, curve: { step: [], loss: [], accuracy: [] } })) };
    expect(check(dataShape, none, ss)).toBe(none);
    clean(svgOf(none));
  });

  it('the data has the view\'s shape; NaN, Infinity and strings where numbers belong are refused by it, nulls are gaps', () => {
    expect(check(dataShape, D, ss)).toBe(D);
    const r = D.runs[0];
    for (const bad of [{ curve: { ...r.curve, loss: r.curve.loss.map((v, i) => (i ? v : NaN)) } }, { step: Infinity }, { reached: 'soon' },
      { lengths: [{ ...r.lengths[0], maxWeight: '0.3' }] }, { name: '<script>alert(1)</script>' }])
      expect(() => check(dataShape, { ...D, runs: [{ ...r, ...bad }] }, ss)).toThrow(/^data\.runs\[0\]\./);
    const gaps = { ...r, curve: { ...r.curve, loss: r.curve.loss.map((v, i) => (i % 2 ? null : v)) }, floatAccuracy: null,
      lengths: r.lengths.map((p) => ({ ...p, accuracy: null, entropy: null })), heads: r.heads.map((h) => ({ ...h, sinkRate: null, kurtosis: null })) };
    const data = check(dataShape, { ...D, runs: [gaps] }, ss);
    const els = clean(svgOf(data));
    const loss = els.find((e) => e.attrs['data-series'] === r.name && e.attrs['data-metric'] === 'loss');
    expect(loss.attrs['data-value']).toBe(gaps.curve.loss.map((v) => (v === null ? '' : String(v))).join(','));
  });

  it('texts of a results file are text: markup in the task or a run\'s error never becomes an element or attribute', () => {
    const evil = '<script>alert(1)</script><g onload="x()">"&\'';
    const data = { ...D, task: evil, runs: [{ ...D.runs[0], error: evil }] };
    expect(() => check(dataShape, data, ss)).toThrow(/^data\.task ".*" is not a task of this build$/); // (a task is a registry name)
    const svg = svgOf(data);
    const els = clean(svg);
    expect(els.some((e) => e.name === 'script')).toBe(false);
    expect(els.some((e) => e.attrs.onload !== undefined)).toBe(false);
    expect(els.map((e) => e.text).join('')).toContain(evil);
  });

  it('the same data draws the same SVG (a fresh copy too: no state kept between draws changes it)', () => {
    const a = svgOf(D);
    expect(svgOf(D)).toBe(a);
    expect(svgOf(structuredClone(D))).toBe(a);
    expect(svgOf(JSON.parse(JSON.stringify(D)))).toBe(a);
  });

  it('at a phone\'s width every section is drawn and the figure is taller, no text below its height', () => {
    const els = clean(svgOf(D, 380));
    expect(els.filter((e) => e.attrs['data-section']).map((e) => e.attrs['data-section'])).toEqual(['training', 'lengths', 'attention', 'quantization']);
    expect(experimentsHeight(D, 380)).toBeGreaterThan(experimentsHeight(D, W));
  });
});
