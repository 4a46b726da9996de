// The Language figure draws the numbers it is given: on data of a real
// (tiny) run, the training and validation curves carry the data's numbers,
// the reference lines are labelled (unigram entropy, ln V, the sink
// threshold, the training context), the generation shows the selected
// step's candidates with the drawn one marked, the attention section the
// selected layer's heads and every head's BOS mass; partial data (a run
// still training) draws without error; a results file's JSON (through
// JSON.stringify and parse) draws the same SVG; no NaN or undefined reaches
// the well-formed SVG; the texts the view's data shape lets through (token
// texts, errors, the generated text) stay text, and what it refuses (a name
// of no kernel, a string for a number) never reaches the figure.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { html } from '../../wasm/figures/h.js';
import { svgString } from '../../wasm/figures/render.js';
import { kernelColors } from '../../wasm/figures/palette.js';
import { LanguageFigure, languageHeight } from '../../wasm/figures/language.js';
import { language as view } from '../../wasm/views/language/index.js';
import { start } from '../../wasm/views/language/model.js';
import { check } from '../../wasm/views/shape.js';
import { dataShape } from '../../wasm/views/language/data-shape.js';
import { viewState } from './support/view-harness.js';
import { svgElements, dataValues } from './support/figure.js';
import { WASM } from './support/wasm-paths.js';

let ss, D, PARTIAL;
const { state } = viewState(view, () => ss);
const TINY = 'd=32&heads=2&layers=2&context=16&batch=4&steps=40&warmup=5&length=10&quantizers=uniform&corpus=bigram_backcopy&values=8&keys=2';
beforeAll(async () => {
  ss = await createSoftscope({ wasm: WASM, impl: 'simd' });
  D = view.compute(ss, state(`${TINY}&layer=1&head=1&genStep=3`));
  const st = start(ss, state(TINY));
  for (let i = 0; i < 5; i++) st.step(0);
  PARTIAL = st.data();
  st.stop();
}, 60000);

const W = 960;
const svgOf = (data, width = W) => svgString(html`<${LanguageFigure} data=${data} colors=${kernelColors(ss, 'normalizer')} theme="light"
  width=${width} height=${languageHeight(data, width)} />`);
const clean = (svg) => {
  expect(svg).not.toMatch(/NaN|undefined|Infinity|\[object/);
  return svgElements(svg); // well-formed
};

describe('language figure', () => {
  it('draws the data\'s numbers, with every reference line labelled', () => {
    const svg = svgOf(D), els = clean(svg);
    const r = D.runs[0];
    const train = els.find((e) => e.attrs['data-series'] === r.name && e.attrs['data-metric'] === 'train-loss');
    expect(train.attrs['data-value']).toBe(r.curve.loss.map(String).join(','));
    const val = els.find((e) => e.attrs['data-series'] === r.name && e.attrs['data-metric'] === 'val-loss');
    expect(val.attrs['data-value']).toBe(r.val.loss.map(String).join(','));
    for (const id of ['uniform', 'unigram', 'sink', 'context']) expect(els.some((e) => e.attrs['data-reference'] === id), id).toBe(true);
    expect(svg).toContain('unigram entropy');
    expect(svg).toContain('sink threshold 0.3');
    expect(svg).toContain('training context 16');
    expect(svg).toMatch(/dormant/);
    // the selected step's candidates, the drawn one marked
    const gen = els.find((e) => e.attrs['data-section'] === 'generation');
    expect(gen.attrs['data-step']).toBe('3');
    expect(els.filter((e) => e.attrs['data-drawn'] === '1').length).toBe(1);
    // the selected layer's heads, and the BOS mass of every head of every layer
    expect(els.filter((e) => 'data-map-small' in e.attrs).map((e) => e.attrs['data-map-small'])).toEqual(['1:0', '1:1']);
    expect(els.find((e) => 'data-map' in e.attrs && e.attrs['data-map'].includes(':')).attrs['data-map']).toBe('1:1');
    expect(els.filter((e) => 'data-head' in e.attrs).length).toBe(4);
    expect(dataValues(els, (e) => e.attrs['data-metric'] === 'bosMassOther').map(Number))
      .toEqual(r.inspect.heads.map((h) => h.bosMassOther).filter((v) => v !== null));
    expect(dataValues(els, (e) => e.attrs['data-quant'] === 'uniform' && e.attrs['data-run'] === r.name).map(Number)).toEqual(r.quant.map((q) => q.loss));
  });

  it('draws partial data', () => {
    expect(PARTIAL.phase).toBe('train');
    clean(svgOf(PARTIAL));
    clean(svgOf(D, 500));
  });

  it('a results file\'s JSON draws the same SVG', () => {
    expect(svgOf(JSON.parse(JSON.stringify(D)))).toBe(svgOf(D));
  });

  it('token texts, errors and the generated text from a results file stay text; names and numbers the shape refuses never reach it', () => {
    const evil = '<script>alert(1)</script><tspan onload="x">';
    const d = JSON.parse(JSON.stringify(D));
    d.runs[0].error = evil;
    d.runs[0].generation.text = evil;
    d.runs[0].generation.steps[2].top[0].text = '<b onload=x>';
    d.runs[0].inspect.texts[1] = '<i>';
    d.example[0].texts[1] = '<script>';
    d.lengthNote = evil;
    expect(check(dataShape, d, ss)).toBe(d);
    const svg = svgOf(d), els = clean(svg);
    expect(els.some((e) => e.name === 'script' || e.name === 'b' || e.name === 'i' || 'onload' in e.attrs)).toBe(false);
    expect(svg).toContain('&lt;script>');
    for (const edit of [(x) => { x.runs[0].name = evil; }, (x) => { x.corpus = evil; }, (x) => { x.runs[0].curve.loss[0] = 'NaN'; },
      (x) => { x.runs[0].inspect.maps[0] = { x: 1 }; }])
      expect(() => check(dataShape, ((x) => (edit(x), x))(JSON.parse(JSON.stringify(D))), ss)).toThrow(/^data\./);
  });
});
