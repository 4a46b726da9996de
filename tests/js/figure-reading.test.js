// Reading the figures: the logit editor's value labels never overlap, at a
// widget's widths and at every n it takes, their boxes measured from the real
// glyphs (resvg with DejaVu Sans, the widest of the usual sans-serif fonts
// and the one Chromium uses here), and the bar being edited always has its
// label; the Performance panels draw on one log range, so a bar's length
// reads the same in every panel; the Attention caption names the colour the
// maps give exact zeros in the theme they are drawn in.
import { describe, it, expect, beforeAll } from 'vitest';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Resvg } from '@resvg/resvg-js';
import { createSoftscope } from 'softscope';
import { LogitEditor, LABEL_SIZE } from '../../web/src/components/LogitEditor.jsx';
import { AttentionView } from '../../web/src/views/attention/View.jsx';
import { attention } from '../../wasm/views/attention/index.js';
import { performanceView } from '../../wasm/views/performance/index.js';
import { figureFiles } from '../../wasm/views/files.js';
import { defaults } from '../../wasm/state/schema.js';
import { theme } from '../../wasm/figures/palette.js';
import { svgElements, inside } from './support/figure.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });

describe('the logit editor\'s value labels', () => {
  // The ink box of a label drawn centred at (0, 0), by the label's text: resvg's bounding box of the glyphs.
  const inkCache = new Map();
  function ink(text) {
    if (!inkCache.has(text)) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100"><text x="200" y="50" font-family="DejaVu Sans" font-size="${LABEL_SIZE}" text-anchor="middle">${text}</text></svg>`;
      const b = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).getBBox();
      inkCache.set(text, { x0: b.x - 200, x1: b.x + b.width - 200, y0: b.y - 50, y1: b.y + b.height - 50 });
    }
    return inkCache.get(text);
  }
  // The labels drawn (each with its bar's index and its ink box) and the bars' boxes.
  function editor(logits, width) {
    const bars = [], labels = [];
    for (const e of svgElements(renderToString(h(LogitEditor, { logits, width, onChange: () => {} })))) {
      const a = e.attrs;
      if ('data-logit-index' in a) bars.push({ x0: +a.x, x1: +a.x + +a.width, y0: +a.y, y1: +a.y + +a.height });
      if (e.name === 'text' && a.class === 'logit-label') {
        const b = ink(e.text), x = Number(a.x), y = Number(a.y);
        labels.push({ text: e.text, bar: bars.length - 1, box: { x0: x + b.x0, x1: x + b.x1, y0: y + b.y0, y1: y + b.y1 } });
      }
    }
    return { bars, labels };
  }
  const labels = (logits, width) => editor(logits, width).labels;
  const overlap = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  // logits that crowd the labels: long values side by side at one height, alternating signs, a ramp, masked entries
  const PATTERNS = {
    level: (n) => Array.from({ length: n }, () => -1.234),
    alternating: (n) => Array.from({ length: n }, (_, i) => (i % 2 ? -7.125 : 7.125)),
    ramp: (n) => Array.from({ length: n }, (_, i) => Math.round((-8 + (16 * i) / Math.max(1, n - 1)) * 1000) / 1000),
    masked: (n) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? -Infinity : 0.001 * (i + 1))),
  };

  it.each([400, 720])('at %i px, for every n from 2 to 64, no two label boxes overlap, nor a label another bar', (width) => {
    for (let n = 2; n <= 64; n++) {
      for (const [name, make] of Object.entries(PATTERNS)) {
        const { bars, labels: ls } = editor(make(n), width);
        for (let i = 0; i < ls.length; i++) {
          for (let j = i + 1; j < ls.length; j++) {
            expect(overlap(ls[i].box, ls[j].box), `${name}, n = ${n}: "${ls[i].text}" and "${ls[j].text}"`).toBe(false);
          }
          bars.forEach((b, j) => j !== ls[i].bar && expect(overlap(ls[i].box, b), `${name}, n = ${n}: "${ls[i].text}" on bar ${j}`).toBe(false));
        }
      }
    }
  }, 120000); // 252 editors drawn and read: seconds, more on a busy machine

  it('every value is labelled when there is room, and the largest first when there is not', () => {
    expect(labels([2, 1, 0.1, -1, 0.5, -0.25], 720).map((l) => l.text)).toEqual(['2', '1', '0.1', '−1', '0.5', '−0.25']);
    const crowded = labels(PATTERNS.level(48).map((v, i) => (i === 20 ? 5.5 : v)), 400).map((l) => l.text);
    expect(crowded).toContain('5.5');
    expect(crowded.length).toBeGreaterThan(1);
  });
});

describe('the Performance panels', () => {
  // Two kernels whose times are two orders of magnitude apart.
  const timings = {
    n: 4096, rounds: 3, ms: 10, input: 'logits', userAgent: 'TestBrowser/1.0', unavailable: {},
    results: ['relaxed', 'simd', 'scalar', 'js'].flatMap((b, i) => [
      { kernel: 'softmax', build: b, ns_per_elem: 0.5 * 2 ** i, min: 0.45 * 2 ** i, max: 0.6 * 2 ** i, rounds: [0.5 * 2 ** i] },
      { kernel: 'entmax15', build: b, ns_per_elem: 60 * 2 ** i, min: 55 * 2 ** i, max: 70 * 2 ** i, rounds: [60 * 2 ** i] },
    ]),
  };
  it('share one log range: the same ticks at the same places, a bar\'s length the same function of its time in every panel', () => {
    const state = { ...defaults(performanceView.schema, ss), kernels: ['softmax', 'entmax15'], n: 4096 };
    const d = performanceView.compute(ss, state, timings);
    const els = svgElements(figureFiles(ss, performanceView, state, d, { width: 760 }).svg);
    const panels = ['softmax', 'entmax15'].map((k) => {
      const g = inside(els, 'data-kernel', k);
      const bars = g.filter((e) => e.name === 'rect' && 'data-value' in e.attrs);
      const x0 = Number(bars[0].attrs.x);
      return {
        ticks: g.filter((e) => 'data-tick' in e.attrs).map((e) => [e.attrs['data-tick'], Number(e.attrs.x) - x0]),
        bars: bars.map((b) => ({ ns: Number(b.attrs['data-value']), w: Number(b.attrs.width) })),
      };
    });
    expect(panels[0].ticks.length).toBeGreaterThanOrEqual(3);
    expect(panels[1].ticks.map(([t]) => t)).toEqual(panels[0].ticks.map(([t]) => t));
    panels[1].ticks.forEach(([, x], i) => expect(x).toBeCloseTo(panels[0].ticks[i][1], 6));
    // length = a + b log(ns), one a and b for every bar of every panel
    const all = panels.flatMap((p) => p.bars);
    const [p, q] = [all[0], all[all.length - 1]];
    const b = (q.w - p.w) / Math.log(q.ns / p.ns), a = p.w - b * Math.log(p.ns);
    for (const r of all) expect(r.w).toBeCloseTo(a + b * Math.log(r.ns), 6);
  });
});

describe('the Attention caption', () => {
  it.each(['light', 'dark'])('in the %s theme, names the colour exact zeros are drawn in', (t) => {
    const state = defaults(attention.schema, ss);
    const Layout = ({ caption }) => h('div', null, caption);
    const out = renderToString(h(AttentionView, { ss, v: attention, state, set: () => {}, colors: attention.colors(ss), controls: 'all', theme: t, Layout }));
    const caption = out.replace(/<[^>]+>/g, '');
    // the colour the maps give an exact zero in this theme (palette.js), by name
    const NAMES = { '#ffffff': 'white', '#000000': 'black' };
    const name = NAMES[theme(t).zeroCell], other = NAMES[theme(t === 'dark' ? 'light' : 'dark').zeroCell];
    expect(caption).toMatch(new RegExp(`exact zeros are drawn in ${name}`, 'i'));
    expect(caption).not.toMatch(new RegExp(other, 'i'));
  });
});
