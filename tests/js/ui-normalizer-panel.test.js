// @vitest-environment happy-dom
// The normalizer panel with every kernel of the registry: masked logits
// (-Infinity) set and cleared in the editor (pointer and keyboard) and kept
// by the URL, a control per parameter of its type, and weights outputs (not
// summing to 1, maybe negative) drawn below the zero line with their sum.
import { describe, it, expect, beforeAll } from 'vitest';
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { createSoftscope } from 'softscope';
import { LogitEditor, EDITOR, MASK_STRIP, toggleMask } from '../../web/src/components/LogitEditor.jsx';
import { NormalizerPanel } from '../../web/src/panels/NormalizerPanel.jsx';
import { CHART, yScaleFor } from '../../web/src/components/BarChart.jsx';
import { parseHash, serializeState, defaultState } from '../../web/src/state/url.js';
import { availableMeasures } from '../../web/src/lib/metrics.js';
import { colorMap } from '../../web/src/lib/colors.js';
import { LOGIT_LIMIT } from '../../web/src/presets.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

function mount(vnode) {
  const root = document.createElement('div');
  document.body.appendChild(root);
  render(vnode, root);
  return { root, unmount: () => { render(null, root); root.remove(); } };
}
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('masked logits in the editor', () => {
  it('toggleMask: -Infinity and back to the given value, a copy each time', () => {
    const x = [1, 2, 3];
    const m = toggleMask(x, 1);
    expect(m).toEqual([1, -Infinity, 3]);
    expect(x).toEqual([1, 2, 3]);
    expect(toggleMask(m, 1, 2)).toEqual([1, 2, 3]);
    expect(toggleMask(m, 1)).toEqual([1, 0, 3]); // no remembered value: 0
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
    // No layout in happy-dom: client coordinates are viewBox coordinates.
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

  it('a press in the strip masks a bar, a second press brings its value back; the bar is drawn masked', async () => {
    const e = editor([1.5, -0.25, 2, 0]);
    try {
      e.pointer('pointerdown', e.colX(0), e.stripY);
      e.pointer('pointerup', e.colX(0), e.stripY);
      await flush();
      expect(e.box.logits).toEqual([-Infinity, -0.25, 2, 0]);
      const bar = e.root.querySelector('[data-logit-index="0"]');
      expect(bar.getAttribute('data-logit-value')).toBe('-Infinity');
      expect(bar.getAttribute('class')).toContain('masked');
      expect(e.root.querySelector('[data-mask-index="0"]').getAttribute('class')).toContain('on');
      // moving inside the strip after the toggle does not undo it
      e.pointer('pointerdown', e.colX(0), e.stripY);
      e.pointer('pointermove', e.colX(0), e.stripY + 1);
      e.pointer('pointerup', e.colX(0), e.stripY + 1);
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
      expect(e.box.logits.filter((_, i) => i !== 2)).toEqual([1.5, -0.25, 0]);
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

  it('the URL keeps -Infinity (and still rejects +Infinity and NaN)', () => {
    const s = { ...defaultState(), preset: 'custom', logits: [1, -Infinity, 2, -Infinity] };
    const hash = serializeState(s);
    expect(hash).toContain('logits=1,-Infinity,2,-Infinity');
    expect(parseHash(hash)).toEqual(s);
    for (const bad of ['1,Infinity', '1,NaN', '1,+Infinity']) expect(parseHash(`#logits=${bad}`).logits).toHaveLength(16);
  });
});

describe('the panel with the registry', () => {
  function panel(state, ssLike = ss, normalizers = ss.kernels('normalizer')) {
    const colors = colorMap(normalizers.map((k) => k.name));
    const box = { state };
    function Harness() {
      const [st, setSt] = useState(state);
      box.state = st;
      const update = (patch) => setSt((s) => ({ ...s, ...(typeof patch === 'function' ? patch(s) : patch) }));
      return h(NormalizerPanel, { ss: ssLike, have: availableMeasures(ss), normalizers, colors, state: st, update });
    }
    return { ...mount(h(Harness)), box };
  }

  it('a masked entry: exactly 0 (-Infinity as log-probability) in every output, not counted in the support', () => {
    const all = ss.kernels('normalizer');
    const p = panel({ ...defaultState(), preset: 'custom', logits: [1, -Infinity, 0.5, 2], normalizers: all.map((k) => k.name) });
    try {
      for (const k of all) {
        const card = p.root.querySelector(`[data-output="${k.name}"]`);
        if (card.querySelector('[data-error]')) continue; // e.g. a kernel needing a larger n
        const bar = card.querySelector('rect[data-index="1"]');
        const v = Number(bar.getAttribute('data-value'));
        expect(k.output === 'log_probs' ? v : Math.abs(v), k.name).toBe(k.output === 'log_probs' ? -Infinity : 0);
        expect(Number(card.querySelector('[data-metric="support"]').textContent), k.name).toBeLessThanOrEqual(3);
        if (k.name === 'softmax') expect(card.querySelector('[data-metric="support"]').textContent).toBe('3');
      }
    } finally {
      p.unmount();
    }
  });

  it('every normalizer of the registry gets an output card and every parameter a control of its type', () => {
    const all = ss.kernels('normalizer');
    const p = panel({ ...defaultState(), normalizers: all.map((k) => k.name) });
    try {
      for (const k of all) expect(p.root.querySelector(`[data-output="${k.name}"]`), k.name).not.toBe(null);
      const names = new Set(all.flatMap((k) => k.params.map((q) => q.name)));
      for (const name of names) {
        const c = p.root.querySelector(`[data-param="${name}"]`);
        expect(c, name).not.toBe(null);
        const type = c.getAttribute('data-param-type');
        if (type === 'bool') expect(c.querySelector('input[type="checkbox"]')).not.toBe(null);
        else expect(c.querySelector('input[type="range"]')).not.toBe(null);
        if (type === 'int') expect(c.querySelector('input[type="number"]')).not.toBe(null);
      }
    } finally {
      p.unmount();
    }
  });

  // A registry entry of each parameter type on a weights output (what
  // softpick and sa_softmax are), with a fixed output so the drawing is known.
  const FAKE = {
    name: 'fake_weights', family: 'normalizer', output: 'weights', summary: 'test', formula: 'w', paper: '', has_backward: false, impls: ['scalar'],
    params: [
      { name: 'alpha', type: 'float', min: 0, max: 100, min_open: true, max_open: false, default: 1, ui_min: 0.01, ui_max: 10, log_scale: true, help: '' },
      { name: 'k', type: 'int', min: 1, max: 4096, min_open: false, max_open: false, default: 2, ui_min: 1, ui_max: 16, log_scale: false, help: '' },
      { name: 'strict', type: 'bool', min: 0, max: 1, min_open: false, max_open: false, default: 0, ui_min: null, ui_max: null, log_scale: false, help: '' },
      { name: 'shift', type: 'float', min: null, max: null, min_open: false, max_open: false, default: 0, ui_min: null, ui_max: null, log_scale: false, help: '' },
    ],
  };
  const W = [0.6, -0.2, 0.1, 0];
  const stub = { normalize: () => Float32Array.from(W), measure: (...a) => ss.measure(...a) };

  it('weights: negative bars go below the zero line, the sum and the negatives are shown', () => {
    const p = panel({ ...defaultState(), logits: [1, 2, 3, 4], normalizers: ['fake_weights'] }, stub, [FAKE]);
    try {
      const card = p.root.querySelector('[data-output="fake_weights"]');
      const svg = card.querySelector('svg[data-chart]');
      expect(svg.getAttribute('data-kind')).toBe('weights');
      const rects = [...card.querySelectorAll('rect[data-index]')];
      const [y0pos, y0neg] = [rects[0], rects[1]].map((r) => [Number(r.getAttribute('y')), Number(r.getAttribute('height'))]);
      // The y scale's 0: a positive bar ends there, a negative one starts there.
      const ticks = [...svg.querySelectorAll('line.axis-zero')];
      expect(ticks).toHaveLength(1);
      const zero = Number(ticks[0].getAttribute('y1'));
      expect(y0pos[0] + y0pos[1]).toBeCloseTo(zero, 6);
      expect(y0neg[0]).toBeCloseTo(zero, 6);
      expect(y0neg[1]).toBeGreaterThan(0);
      // heights proportional to |w|: -0.2 is a third of 0.6
      expect(y0neg[1] / y0pos[1]).toBeCloseTo(0.2 / 0.6, 5);
      expect(zero).toBeLessThan(CHART.height - CHART.bottom); // room below zero for the negative bar
      expect(Number(card.querySelector('[data-metric="sum"]').textContent.replace('−', '-'))).toBeCloseTo(0.5, 6);
      expect(card.textContent).toContain('1 negative');
      // entropy and support of |w| / sum |w| = (2/3, 2/9, 1/9, 0)
      const q = [6 / 9, 2 / 9, 1 / 9];
      const H = -q.reduce((a, v) => a + v * Math.log(v), 0);
      expect(Number(card.querySelector('[data-metric="entropy"]').textContent)).toBeCloseTo(H, 3);
      expect(card.querySelector('[data-metric="support"]').textContent).toBe('3');
      expect(yScaleFor([-0.2, 0.6])(0)).toBeLessThan(CHART.height - CHART.bottom);
    } finally {
      p.unmount();
    }
  });

  it('parameter controls by type: log float slider, int slider and stepper, bool checkbox, unbounded float', async () => {
    const p = panel({ ...defaultState(), logits: [1, 2, 3, 4], normalizers: ['fake_weights'] }, stub, [FAKE]);
    try {
      const alpha = p.root.querySelector('[data-param="alpha"]');
      expect(alpha.textContent).toContain('log scale');
      const k = p.root.querySelector('[data-param="k"]');
      const range = k.querySelector('input[type="range"]');
      expect(range.getAttribute('max')).toBe('15'); // one step per integer over ui [1, 16]
      const step = k.querySelector('input[type="number"]');
      step.value = '100';
      step.dispatchEvent(new Event('change', { bubbles: true }));
      await flush();
      expect(p.box.state.params.k).toBe(100); // beyond the slider's ui range, inside the valid one
      step.value = '99999';
      step.dispatchEvent(new Event('change', { bubbles: true }));
      await flush();
      expect(p.box.state.params.k).toBe(4096); // clamped to the registry's max
      const strict = p.root.querySelector('[data-param="strict"] input[type="checkbox"]');
      strict.checked = true;
      strict.dispatchEvent(new Event('change', { bubbles: true }));
      await flush();
      expect(p.box.state.params.strict).toBe(1);
      // an unbounded float still gets a finite slider around its default
      const shift = p.root.querySelector('[data-param="shift"]');
      const ends = [...shift.querySelectorAll('.slider-scale span')].map((s) => Number(s.textContent.replace('−', '-')));
      expect(ends.every(Number.isFinite)).toBe(true);
      expect(ends[0]).toBeLessThan(0);
      expect(ends[ends.length - 1]).toBeGreaterThan(0);
    } finally {
      p.unmount();
    }
  });
});
