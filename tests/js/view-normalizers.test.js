// @vitest-environment happy-dom
// The Normalizers view: the model's numbers are the kernels' (on x / T, or
// with a kernel's own temperature), masked logits give exact zeros, weights
// are measured as |w| / sum |w|, the figure draws the model's numbers (bar
// heights proportional, negative weights below the zero line), and the view
// in a DOM edits logits (mask strip, keyboard) and parameters by type.
import { describe, it, expect, beforeAll } from 'vitest';
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { createSoftscope } from 'softscope';
import { LogitEditor, EDITOR, MASK_STRIP, toggleMask } from '../../web/src/components/LogitEditor.jsx';
import { LOGIT_LIMIT } from '../../wasm/analysis/presets.js';
import { defaults, parse, hashEntries } from '../../wasm/state/schema.js';
import { normalizers as view } from '../../wasm/views/normalizers/index.js';
import { svgString } from '../../wasm/figures/render.js';
import { html } from '../../wasm/figures/h.js';
import { parseXml } from './support/xml.js';
import { mountView, flush } from './support/mount-view.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
const stateOf = (link) => parse(view.schema, hashEntries(link), ss).state;

describe('model', () => {
  it('each kernel on x / T; a kernel with its own temperature gets T there (the same distribution)', () => {
    const d = view.compute(ss, stateOf('kernels=softmax,softmax_temperature,sparsemax&logits=2,1,0.1,-1&temperature=0.5'));
    const x = Float32Array.from([2, 1, 0.1, -1]);
    const xt = Float32Array.from(x, (v) => v / 0.5);
    expect(d.series.map((s) => s.name)).toEqual(['softmax', 'softmax_temperature', 'sparsemax']);
    expect(d.series[0].y).toEqual(Array.from(ss.normalize('softmax', xt)));
    expect(d.series[1].y).toEqual(Array.from(ss.normalize('softmax_temperature', x, { temperature: 0.5 })));
    expect(d.series[1].params).toEqual({ temperature: 0.5 });
    for (let i = 0; i < 4; i++) expect(Math.abs(d.series[0].y[i] - d.series[1].y[i])).toBeLessThan(1e-6);
    expect(d.series[2].y).toEqual(Array.from(ss.normalize('sparsemax', xt)));
  });

  it('a masked entry: exactly 0 (-Infinity as log-probability) in every output, not in the support', () => {
    const all = ss.kernels('normalizer').map((k) => k.name);
    const d = view.compute(ss, stateOf(`kernels=${all.join(',')}&logits=1,-Infinity,0.5,2`));
    for (const s of d.series) {
      if (s.error) continue; // e.g. a kernel needing a larger n
      expect(s.kind === 'log_probs' ? s.y[1] : Math.abs(s.y[1]), s.name).toBe(s.kind === 'log_probs' ? -Infinity : 0);
      expect(s.metrics.support, s.name).toBeLessThanOrEqual(3);
    }
    expect(d.series.find((s) => s.name === 'softmax').metrics.support).toBe(3);
  });

  it('a bad parameter shows as that kernel\'s error, the others still computed', () => {
    const s = { ...stateOf('kernels=softmax,entmax_bisect'), params: { alpha: 0.5 } };
    const d = view.compute(ss, s);
    expect(d.series[0].y).toHaveLength(s.logits.length);
    expect(d.series[1].error).toMatch(/params\.alpha = 0\.5/);
  });
});

describe('figure', () => {
  const draw = (d) => parseXml(svgString(html`<${view.Figure} data=${d} colors=${view.colors(ss)} width=${720} />`));
  it('every bar carries the model number it draws, and heights are proportional to it', () => {
    const d = view.compute(ss, stateOf('kernels=softmax,log_softmax,sa_softmax&logits=1.5,-0.25,0.75,2,-1'));
    const els = draw(d);
    for (const s of d.series) {
      const at = els.findIndex((e) => e.attrs['data-bars'] === s.name);
      const bars = els.slice(at).filter((e) => e.name === 'rect' && e.attrs['data-index'] !== undefined).slice(0, s.y.length);
      expect(bars.map((b) => Number(b.attrs['data-value']))).toEqual(s.y);
      const k = Number(bars[0].attrs.height) / Math.abs(s.y[0]);
      for (const [i, b] of bars.entries()) expect(Number(b.attrs.height)).toBeCloseTo(Math.abs(s.y[i]) * k, 4);
    }
  });

  it('weights: a negative weight hangs below the zero line where the positive ones stand', () => {
    const d = { x: [1, 2, 3, 4], temperature: 1, series: [{ name: 'fake', kind: 'weights', params: {}, y: [0.6, -0.2, 0.1, 0],
      metrics: { entropy: 1, max: 0.6, argmax: 0, support: 3, sum: 0.5, negative: 1 } }] };
    const bars = draw(d).filter((e) => e.name === 'rect' && e.attrs['data-index'] !== undefined && e.attrs.fill !== undefined).slice(-4);
    const [pos, neg] = bars;
    const zero = Number(pos.attrs.y) + Number(pos.attrs.height);
    expect(Number(neg.attrs.y)).toBeCloseTo(zero, 6);
    expect(Number(neg.attrs.height) / Number(pos.attrs.height)).toBeCloseTo(0.2 / 0.6, 5);
  });
});

describe('the view in a DOM', () => {
  it('every normalizer of the registry gets a chart, every parameter a control of its type', async () => {
    const all = ss.kernels('normalizer');
    const m = mountView(ss, 'normalizers', `kernels=${all.map((k) => k.name).join(',')}`);
    try {
      await flush();
      for (const k of all) expect(m.root.querySelector(`[data-output="${k.name}"]`), k.name).not.toBe(null);
      // temperature and seed are the view's own controls (every kernel that has one gets it)
      const names = new Set(all.flatMap((k) => k.params.map((q) => q.name)).filter((n) => n !== 'temperature' && n !== 'seed'));
      for (const name of names) {
        const c = m.root.querySelector(`[data-param="${name}"]`);
        expect(c, name).not.toBe(null);
        const type = c.getAttribute('data-param-type');
        if (type === 'bool') expect(c.querySelector('input[type="checkbox"]')).not.toBe(null);
        else if (type !== 'choice') expect(c.querySelector('input[type="range"]')).not.toBe(null);
        if (type === 'int') expect(c.querySelector('input[type="number"]')).not.toBe(null);
      }
      // the view-level temperature is one slider, not a parameter control
      expect(m.root.querySelector('#norm-temperature')).not.toBe(null);
    } finally {
      m.unmount();
    }
  });

  it('an int parameter\'s stepper reaches past the slider\'s range to the registry\'s, clamped there', async () => {
    const m = mountView(ss, 'normalizers', 'kernels=topk_softmax&n=64');
    try {
      await flush();
      const k = ss.kernel('topk_softmax').params.find((p) => p.name === 'k');
      const step = m.root.querySelector('[data-param="k"] input[type="number"]');
      step.value = String(k.max + 1000);
      step.dispatchEvent(new Event('change', { bubbles: true }));
      await flush();
      expect(m.box.state.params.k).toBe(k.max);
    } finally {
      m.unmount();
    }
  });

  it('choosing a preset after editing brings the preset back; the link holds what is shown', async () => {
    const m = mountView(ss, 'normalizers', 'logits=1,2,3');
    try {
      await flush();
      expect(m.box.state.preset).toBe('custom');
      const sel = m.root.querySelector('#norm-preset');
      sel.value = 'two_modes';
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      await flush();
      expect(m.box.state.preset).toBe('two_modes');
      expect(m.box.state.logits).toHaveLength(m.box.state.n);
      expect(m.link()).toContain('preset=two_modes');
      expect(m.link()).not.toContain('logits=');
    } finally {
      m.unmount();
    }
  });
});

describe('masked logits in the editor', () => {
  function mount(vnode) {
    const root = document.createElement('div');
    document.body.appendChild(root);
    render(vnode, root);
    return { root, unmount: () => { render(null, root); root.remove(); } };
  }
  it('toggleMask: -Infinity and back to the given value, a copy each time', () => {
    const x = [1, 2, 3];
    const m = toggleMask(x, 1);
    expect(m).toEqual([1, -Infinity, 3]);
    expect(x).toEqual([1, 2, 3]);
    expect(toggleMask(m, 1, 2)).toEqual([1, 2, 3]);
    expect(toggleMask(m, 1)).toEqual([1, 0, 3]);
  });

  function editor(initial) {
    const box = { logits: initial };
    function Harness() {
      const [logits, setLogits] = useState(initial);
      box.logits = logits;
      return h(LogitEditor, { logits, onChange: setLogits });
    }
    const m = mount(h(Harness));
    const svg = m.root.querySelector('svg[data-editor]');
    svg.getScreenCTM = () => null;
    svg.getBoundingClientRect = () => ({ left: 0, top: 0, width: EDITOR.width, height: EDITOR.height, right: EDITOR.width, bottom: EDITOR.height });
    const band = (EDITOR.width - EDITOR.left - EDITOR.right) / initial.length;
    const colX = (i) => EDITOR.left + (i + 0.5) * band;
    const stripY = EDITOR.height - EDITOR.bottom + MASK_STRIP.gap + MASK_STRIP.height / 2;
    const yOf = (v) => EDITOR.top + ((LOGIT_LIMIT - v) / (2 * LOGIT_LIMIT)) * (EDITOR.height - EDITOR.bottom - EDITOR.top);
    const pointer = (type, x, y) => svg.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, button: 0, pointerId: 1, bubbles: true }));
    const key = (k) => svg.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
    return { ...m, svg, box, colX, stripY, yOf, pointer, key };
  }

  it('a press in the strip masks a bar, a second press brings its value back', async () => {
    const e = editor([1.5, -0.25, 2, 0]);
    try {
      e.pointer('pointerdown', e.colX(0), e.stripY);
      e.pointer('pointerup', e.colX(0), e.stripY);
      await flush();
      expect(e.box.logits).toEqual([-Infinity, -0.25, 2, 0]);
      expect(e.root.querySelector('[data-logit-index="0"]').getAttribute('data-logit-value')).toBe('-Infinity');
      e.pointer('pointerdown', e.colX(0), e.stripY);
      e.pointer('pointerup', e.colX(0), e.stripY);
      await flush();
      expect(e.box.logits).toEqual([1.5, -0.25, 2, 0]);
    } finally {
      e.unmount();
    }
  });

  it('dragging a bar down into the strip masks it; dragging up again gives it the pointer value', async () => {
    const e = editor([1.5, -0.25, 2, 0]);
    try {
      e.pointer('pointerdown', e.colX(2), e.yOf(2));
      e.pointer('pointermove', e.colX(2), e.yOf(-3));
      await flush();
      expect(e.box.logits[2]).toBeCloseTo(-3, 2);
      e.pointer('pointermove', e.colX(2), e.stripY);
      await flush();
      expect(e.box.logits[2]).toBe(-Infinity);
      e.pointer('pointermove', e.colX(2), e.yOf(4));
      e.pointer('pointerup', e.colX(2), e.yOf(4));
      await flush();
      expect(e.box.logits[2]).toBeCloseTo(4, 2);
    } finally {
      e.unmount();
    }
  });

  it('keyboard: M masks the focused bar and restores it; ↑ on a masked bar brings it back at the bottom', async () => {
    const e = editor([1, 2, 3]);
    try {
      e.svg.dispatchEvent(new FocusEvent('focus'));
      await flush();
      e.key('ArrowRight');
      await flush();
      e.key('m');
      await flush();
      expect(e.box.logits).toEqual([1, -Infinity, 3]);
      e.key('M');
      await flush();
      expect(e.box.logits).toEqual([1, 2, 3]);
      e.key('Delete');
      await flush();
      e.key('ArrowUp');
      await flush();
      expect(e.box.logits).toEqual([1, -LOGIT_LIMIT, 3]);
    } finally {
      e.unmount();
    }
  });
});

// the default state opens on the classic comparison
it('the view opens on softmax, sparsemax and entmax15 with a temperature', () => {
  const d = defaults(view.schema, ss);
  expect(d.kernels).toEqual(['softmax', 'sparsemax', 'entmax15']);
  expect(d.temperature).toBe(1);
});
