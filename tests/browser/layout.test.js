// The first screen, in Chromium. At 1280 × 720 and 1400 × 900 every tab
// shows its figure and the control being moved without scrolling: the figure
// starts in the top fifth of the screen and most of it is visible (at least
// 80 % of it, or, when it is taller than that leaves room for, at least 75 %
// of the screen's height is figure); the view's main control is on screen,
// not covered, beside the figure; and every control of the controls column,
// once scrolled to, is on screen with the figure still showing. On a phone
// (390 × 844) the figure comes first: its top is on the first screen and
// above the first control. A widget (every control, default state) stays
// within a height per view at a docs page's width (720 px) and on a phone.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { VIEW_IDS as VIEWS } from '../../wasm/views/index.js';
import { openPlayground, openView, train, TRAINED } from './open-playground.js';

// The control a reader moves first in each view (its id or selector).
const MAIN = {
  normalizers: '#norm-temperature',
  dispersion: '#dispersion-margin',
  sampling: '#sampling-temperature',
  quantization: '#quant-bits',
  optimizers: '#optim-play',
  attention: '#attn-scale',
  performance: 'button[data-run]',
  experiments: 'button[data-train]',
  language: 'button[data-train]',
};

// A fresh document at the view (a hash change alone would keep the scroll and the focus).
async function open(pw, view) {
  await pw.page.goto('about:blank');
  await openView(pw.page, pw.server.url, view);
  // the figure drawn at its card's width (the first frame draws at a default width)
  await pw.page.evaluate(`window.figureBox = ${figureBox}; window.contentWidth = ${contentWidth}`);
  await pw.page.waitForFunction(() => {
    const svg = document.querySelector('[data-view-figure] svg');
    return svg.width.baseVal.value === Math.max(280, window.contentWidth(document.querySelector('.figure-card')));
  }, null, { timeout: 30000 });
}

/** An element's content width as useWidth reads it (ResizeObserver's content box, floored; run in the page). */
function contentWidth(el) {
  const cs = getComputedStyle(el);
  const edges = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth'].reduce((t, k) => t + parseFloat(cs[k]), 0);
  return Math.floor(el.getBoundingClientRect().width - edges);
}

/** The figure's box and how much of it is on screen (run in the page, as window.figureBox). */
function figureBox() {
  const r = document.querySelector('[data-view-figure] svg').getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, right: r.right,
    visible: Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)) };
}

for (const [width, height] of [[1280, 720], [1400, 900]]) {
  describe(`the first screen at ${width} × ${height}`, () => {
    let pw;
    beforeAll(async () => { pw = await openPlayground({ width, height }); });
    afterAll(async () => { await pw?.close(); });

    it.each(VIEWS)('%s: the figure and its main control on screen, the controls beside the figure', async (view) => {
      await open(pw, view);
      const r = await pw.page.evaluate((sel) => {
        const fig = window.figureBox();
        const c = document.querySelector(sel);
        const cr = c.getBoundingClientRect();
        const hit = document.elementFromPoint((cr.left + cr.right) / 2, (cr.top + cr.bottom) / 2);
        const col = document.querySelector('#view-controls')?.getBoundingClientRect();
        const card = document.querySelector('.figure-card').getBoundingClientRect();
        return { fig, scrollY, control: { top: cr.top, bottom: cr.bottom, left: cr.left, right: cr.right, hit: c === hit || c.contains(hit) },
          column: col && { left: col.left, top: col.top }, card: { right: card.right, top: card.top } };
      }, MAIN[view]);
      console.log(`layout ${width}×${height} ${view}: figure top ${Math.round(r.fig.top)} px, ${Math.round(r.fig.visible)} of ${Math.round(r.fig.height)} px on screen`);
      expect(r.scrollY).toBe(0);
      expect(r.fig.top, 'figure top (px)').toBeGreaterThanOrEqual(0);
      expect(r.fig.top, 'figure top (px)').toBeLessThanOrEqual(0.2 * height);
      expect(r.fig.visible, `visible figure (px) of ${Math.round(r.fig.height)}`)
        .toBeGreaterThanOrEqual(Math.min(0.8 * r.fig.height, 0.75 * height));
      expect(r.control.top, `${MAIN[view]} top`).toBeGreaterThanOrEqual(0);
      expect(r.control.bottom, `${MAIN[view]} bottom`).toBeLessThanOrEqual(height);
      expect(r.control.right).toBeLessThanOrEqual(width);
      expect(r.control.hit, `${MAIN[view]} is not covered or clipped`).toBe(true);
      // the controls stand beside the figure, from the same height: no empty band above either
      expect(r.column, 'the controls column').toBeTruthy();
      expect(r.column.left).toBeGreaterThanOrEqual(r.card.right);
      expect(Math.abs(r.column.top - r.card.top)).toBeLessThanOrEqual(4);
      expect(pw.errors).toEqual([]);
    });

    it.each(VIEWS)('%s: every control of the controls column, scrolled to, is on screen with the figure', async (view) => {
      await open(pw, view);
      const r = await pw.page.evaluate(() => {
        const first = window.figureBox().visible;
        const bad = [];
        const controls = [...document.querySelectorAll('#view-controls :is(input, select, button)')]
          .filter((e) => e.getClientRects().length > 0 && !e.closest('details:not([open])'));
        for (const c of controls) {
          c.scrollIntoView({ block: 'nearest' });
          const cr = c.getBoundingClientRect();
          const f = window.figureBox();
          if (cr.top < -1 || cr.bottom > innerHeight + 1 || f.visible < 0.6 * first) {
            bad.push(`${c.id || c.getAttribute('data-kernel') || c.tagName}: control ${Math.round(cr.top)}–${Math.round(cr.bottom)}, figure ${Math.round(f.visible)} px visible`);
          }
        }
        return { n: controls.length, bad };
      });
      expect(r.n).toBeGreaterThan(0);
      expect(r.bad).toEqual([]);
    });
  });
}

describe('on a phone (390 × 844): the figure first, then the controls', () => {
  let pw;
  beforeAll(async () => { pw = await openPlayground({ width: 390, height: 844 }); });
  afterAll(async () => { await pw?.close(); });

  it.each(VIEWS)('%s: the figure starts on the first screen, above every control', async (view) => {
    await open(pw, view);
    const r = await pw.page.evaluate(() => {
      const svg = document.querySelector('[data-view-figure] svg').getBoundingClientRect();
      // the view's controls: those of the panel outside the figure's card (Run, over the figure, is the figure's)
      const c = [...document.querySelectorAll('[role=tabpanel] :is(input, select)')]
        .find((e) => !e.closest('.figure-card') && e.getClientRects().length > 0);
      return { svg: svg.top, control: c.getBoundingClientRect().top, scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    console.log(`layout 390×844 ${view}: figure top ${Math.round(r.svg)} px, first control ${Math.round(r.control)} px`);
    expect(r.svg, 'figure top (px)').toBeLessThan(844);
    expect(r.svg).toBeLessThan(r.control);
    expect(r.scroll, 'horizontal scroll (px)').toBeLessThanOrEqual(0);
    expect(pw.errors).toEqual([]);
  });
});

// Widgets with every control, the default state: the page height each takes
// (README, "Views: a tab, a widget, a figure"), here at most about 10 % over
// the measured height, and what the controls add under the figure.
const WIDGET_MAX = {
  //              [720 px: height, under the figure], [phone: height, under the figure]
  normalizers: [[1200, 680], [1800, 1030]],
  dispersion: [[1450, 770], [2250, 1260]],
  sampling: [[1550, 720], [2950, 1250]],
  quantization: [[1400, 750], [1850, 910]],
  optimizers: [[1020, 630], [1850, 1150]],
  attention: [[2900, 960], [4500, 1830]],
  performance: [[1260, 480], [1650, 830]],
  // (trained: QUICK_TRAIN; every control of its 24 keys and the optimizer's hyperparameters under the figure)
  experiments: [[2800, 1200], [4400, 2150]],
  // (trained: QUICK_LANGUAGE; five sections, then the model's and the generation's controls and the weights' files)
  language: [[3300, 1500], [5000, 2700]],
};

for (const [label, vw, vh, cw, which] of [['a docs page (720 px)', 1280, 900, 720, 0], ['a phone (390 px, 16 px margins)', 390, 844, 358, 1]]) {
  describe(`widget heights on ${label}`, () => {
    let pw;
    beforeAll(async () => { pw = await openPlayground({ width: vw, height: vh }); });
    afterAll(async () => { await pw?.close(); });

    it.each(VIEWS)('%s', async (view) => {
      // a page of the site's origin holding one widget, as a docs page would
      const host = `${pw.server.url}layout-host-${view}.html`;
      await pw.page.route(host, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html>
        <meta name="viewport" content="width=device-width, initial-scale=1"><script type="module" src="embed/embed.js"></script>
        <main style="width: ${cw}px; margin: 0 16px"><softscope-widget view="${view}"${TRAINED[view] ? ` state="${TRAINED[view].replace(/&/g, '&amp;')}"` : ''}></softscope-widget></main>` }));
      await pw.page.goto(host);
      if (TRAINED[view]) await train(pw.page, 'softscope-widget', 120000, view); // (its figure comes with Train)
      await pw.page.waitForFunction(() => document.querySelector('softscope-widget')?.complete, null, { timeout: 30000 });
      await pw.page.evaluate(`window.contentWidth = ${contentWidth}`);
      // drawn at its own width (the first frame draws at a default width)
      await pw.page.waitForFunction(() => {
        const w = document.querySelector('softscope-widget').shadowRoot;
        return w.querySelector('[data-view-figure] svg')?.width.baseVal.value === Math.max(260, window.contentWidth(w.querySelector('.widget')));
      }, null, { timeout: 30000 });
      const [total, figure] = await pw.page.evaluate(() => {
        const w = document.querySelector('softscope-widget');
        return [w.getBoundingClientRect().height, w.shadowRoot.querySelector('[data-view-figure] svg').getBoundingClientRect().height];
      });
      console.log(`layout widget ${view} at ${cw} px: ${Math.round(total)} px tall, ${Math.round(total - figure)} px under the figure`);
      const [maxTotal, maxUnder] = WIDGET_MAX[view][which];
      expect(total, `${view} widget height (px)`).toBeLessThanOrEqual(maxTotal);
      expect(total - figure, `${view}: height under the figure (px)`).toBeLessThanOrEqual(maxUnder);
      expect(pw.errors).toEqual([]);
    });
  });
}
