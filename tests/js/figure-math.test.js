// Math in the figures: axis names and the registry's formulas are typeset in
// Unicode inside the SVG (xᵢ, pᵢ, ∑, √, −, ≤, superscripts), never the
// registry's ASCII notation (x_i, 2^b, <=, sqrt, sum_j); a script without
// Unicode script characters is a smaller <tspan> moved by dy and the text
// after it comes back to the baseline. The SVG stays standalone: no
// foreignObject, no stylesheet, no web font. One reading (formulaParts)
// serves the figures, the playground and the docs.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { renderFigure } from '../../wasm/views/files.js';
import { VIEWS } from '../../wasm/views/index.js';
import { formulaParts } from '../../wasm/figures/formula.js';
import { scriptChars, Formula } from '../../wasm/figures/math.js';
import { svgString } from '../../wasm/figures/render.js';
import { html } from '../../wasm/figures/h.js';
import { formulaHtml } from '../../scripts/docs/formula.js';
import REGISTRY from '../../wasm/dist/registry.js';
import { svgElements } from './support/figure.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

// ASCII math notation: a script (x_i, 2^b), an operator spelled out, a spelled function.
const ASCII_MATH = /[A-Za-z0-9)\]}]_[A-Za-z0-9{(+]|\^|<=|>=|!=|<-|->|\bsqrt\b|\bsum_|(?<=\s)-(?=\s)/;
// The names a figure prints as they are (kernels, parameters, state keys and enum values hold underscores).
function identifiers() {
  const names = new Set([...ss.kernels().flatMap((k) => [k.name, ...k.params.map((p) => p.name)]), ...ss.functions.map((f) => f.name)]);
  for (const v of VIEWS) {
    for (const f of v.schema.fields) {
      names.add(f.key);
      const options = typeof f.options === 'function' ? f.options(ss) : f.options;
      for (const o of Array.isArray(options) ? options : []) names.add(String(o));
    }
  }
  for (const list of Object.values(REGISTRY.enums)) for (const e of list) names.add(e);
  return [...names].filter((n) => n.includes('_')).sort((a, b) => b.length - a.length);
}
// The text a reader sees: each <text> and <tspan>'s own text, without the
// identifiers; not a name a formula keeps whole (data-code), nor an error
// message (the API's words, data-error).
function visibleText(svg, ids) {
  const shown = (e) => (e.name === 'text' || e.name === 'tspan') && !('data-code' in e.attrs) && !('data-error' in e.attrs);
  return svgElements(svg).filter(shown).map((e) => {
    let t = e.text;
    for (const n of ids) t = t.split(n).join('');
    return t;
  });
}

describe('figures: Unicode math, no ASCII notation', () => {
  const all = (family) => ss.kernels(family).map((k) => k.name).join(',');
  it.each([
    ['normalizers', () => `kernels=${all('normalizer')}&logits=2,-1,0.5,1&temperature=0.5`],
    ['quantization', () => ''],
    ['optimizers', () => `kernels=${all('optimizer').split(',').slice(0, 8).join(',')}`],
    ['attention', () => 'rf=performer,trig,hrf&sinks=softmax,softpick'],
    ['sampling', () => ''],
    ['dispersion', () => 'nmax=256'],
  ])('%s: axis names and formulas', (id, link) => {
    const { svg } = renderFigure(ss, id, link());
    const ids = identifiers();
    for (const line of visibleText(svg, ids)) expect(line, `${id}: ${line}`).not.toMatch(ASCII_MATH);
    expect(svg).not.toMatch(/foreignObject|<style|@font-face/);
  });

  it('normalizers: the axes read xᵢ, pᵢ, log pᵢ and wᵢ', () => {
    const { svg } = renderFigure(ss, 'normalizers', 'kernels=softmax,log_softmax,sa_softmax');
    const texts = svgElements(svg).filter((e) => e.name === 'text').map((e) => e.text);
    for (const name of ['xᵢ', 'pᵢ', 'log pᵢ', 'wᵢ']) expect(texts, name).toContain(name);
    expect(svg).not.toMatch(/[xpw]_i/);
  });

  it('quantization: every scheme\'s formula typeset; optimizers: every test function\'s', () => {
    const ids = identifiers();
    for (const k of ss.kernels('quantizer')) {
      const { svg } = renderFigure(ss, 'quantization', `scheme=${k.name}&n=64${k.name === 'adaround' ? '&rows=2&iters=10' : ''}`);
      const lines = visibleText(svg, ids);
      const formula = svgElements(svg).filter((e) => 'data-formula' in e.attrs);
      expect(formula.length, k.name).toBeGreaterThan(0);
      for (const line of lines) expect(line, `${k.name}: ${line}`).not.toMatch(ASCII_MATH);
    }
    for (const f of ss.functions) {
      const { svg } = renderFigure(ss, 'optimizers', `fn=${f.name}&kernels=sgd&steps=5`);
      for (const line of visibleText(svg, ids)) expect(line, `${f.name}: ${line}`).not.toMatch(ASCII_MATH);
    }
  });
});

describe('formulaParts and Formula', () => {
  it('reads scripts, operators, Greek letters, ∑ and √ into parts', () => {
    expect(formulaParts('y_i = x_i')).toEqual(['y', { sub: ['i'] }, ' = x', { sub: ['i'] }]);
    expect(formulaParts('sum_j sqrt(v_hat) <= tau^2')).toEqual(['∑', { sub: ['j'] }, ' √(v̂) ≤ τ', { sup: ['2'] }]);
    expect(formulaParts('n^(s x_i)')).toEqual(['n', { sup: ['s x', { sub: ['i'] }] }]);
    // names kept whole: given ones and identifiers with two or more underscores
    expect(formulaParts('p = entmax_bisect(x; alpha)', { code: ['entmax_bisect'] })).toEqual(['p = ', { code: 'entmax_bisect' }, '(x; α)']);
    expect(formulaParts('y = rne_sat_e4m3(x)')).toEqual(['y = ', { code: 'rne_sat_e4m3' }, '(x)']);
    // a minus between operands, a hyphen between words; a negative power; a positive part
    expect(formulaParts('(1-b1) g, the 8-bit k-th')).toEqual(['(1−b1) g, the 8-bit k-th']);
    expect(formulaParts('2^-q [z]_+')).toEqual(['2', { sup: ['−q'] }, ' [z]', { sub: ['+'] }]);
  });

  it('Unicode script characters, or null when one has none', () => {
    expect(scriptChars('i', 'sub')).toBe('ᵢ');
    expect(scriptChars('t-1', 'sub')).toBe('ₜ₋₁');
    expect(scriptChars('2', 'sup')).toBe('²');
    expect(scriptChars('q', 'sup')).toBe(null);
  });

  // Render in a <text> of size 10, then read each run: its text, its dy, its font size.
  function runsOf(text) {
    const svg = svgString(html`<svg xmlns="http://www.w3.org/2000/svg"><text font-size="10"><${Formula} parts=${formulaParts(text)} size=${10} /></text></svg>`);
    const els = svgElements(svg);
    const t = els.find((e) => e.name === 'text');
    return { t, spans: els.filter((e) => e.name === 'tspan') };
  }
  it('in SVG: script characters on the line when they exist', () => {
    const { t, spans } = runsOf('y_i = exp(x_i - m) / sum_j exp(x_j - m)');
    expect(spans).toEqual([]);
    expect(t.text).toBe('yᵢ = exp(xᵢ − m) / ∑ⱼ exp(xⱼ − m)');
  });

  it('in SVG: other scripts are smaller tspans moved by dy, and the text after them is back on the baseline', () => {
    const { spans } = runsOf('s = max|x| / (2^(b-1) - 1) and x_{y_j > 0} end');
    const moved = spans.filter((s) => s.attrs.dy !== undefined);
    expect(moved.length).toBeGreaterThanOrEqual(4);
    const sup = spans.find((s) => s.text === 'b−1');
    expect(Number(sup.attrs.dy)).toBeLessThan(0);
    expect(Number(sup.attrs['font-size'])).toBeLessThan(10);
    // the shifts add up to 0 by the last run: "end" is on the baseline
    expect(moved.reduce((a, s) => a + Number(s.attrs.dy), 0)).toBeCloseTo(0, 9);
    const last = spans[spans.length - 1];
    expect(last.text).toBe(' end');
    expect(last.attrs['font-size']).toBe(undefined);
  });

  it('the docs\' HTML is the same reading', () => {
    expect(formulaHtml('y = rne_sat_e4m3(x / scale)')).toBe('y = <code>rne_sat_e4m3</code>(x / scale)');
    expect(formulaHtml('x_{y_j > 0}')).toBe('x<sub>y<sub>j</sub> &gt; 0</sub>');
  });
});
