// One figure, two renderers: for each view and a state, the figure Chromium
// draws in the playground and the SVG `softscope figure` renders in Node
// carry the same numbers (every data-value, in document order). Both run the
// same wasm build (the one 'auto' picks in Chromium: relaxed SIMD), so the
// numbers are equal, not just close. And the logit editor's value labels,
// measured as Chromium lays out their glyphs, never overlap one another or
// another bar, on a phone and on a desktop.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse, stateEntries } from '../../wasm/views/index.js';
import { figureFiles } from '../../wasm/views/files.js';
import { parseXml } from '../js/support/xml.js';
import { openPlayground, autoBuild } from './open-playground.js';

// A state per view (each a link of that view); AdaRound's layer and the
// attention's error maps and heads have their own.
const CASES = [
  ['normalizers', 'kernels=softmax,sparsemax,entmax15,sa_softmax&logits=2,1,0.1,-1,-Infinity&temperature=0.7'],
  ['dispersion', 'kernels=softmax,sparsemax,entmax15&nmax=4096&margin=2'],
  ['sampling', 'preset=planted_peak&n=24&draws=2000&on=temperature,top_k,top_p&top_k=8'],
  ['quantization', 'scheme=pow2&source=attention&n=256'],
  ['quantization', 'scheme=adaround&n=256&rows=6&iters=300'],
  ['optimizers', 'fn=himmelblau&kernels=sgd,adam,lion&steps=300'],
  ['attention', 'example=sentence&normalizers=softmax,sparsemax&linear=performer'],
  ['attention', 'example=random&n=24&scale=0.5&normalizers=softmax&features=64&sinks=softmax,softpick,sparsemax'],
];

let pw, page, errors, ss;
beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the page runs
});
afterAll(async () => { await pw?.close(); });

describe('figures in Chromium and in Node', () => {
  it.each(CASES)('%s: the same data-values', async (id, link) => {
    await page.goto(`${pw.server.url}#view=${id}&${link}`);
    await page.waitForSelector(`[data-view-figure="${id}"][data-complete="1"] svg`, { timeout: 30000 });
    const inPage = await page.$$eval(`[data-view-figure="${id}"] svg [data-value]`, (els) => els.map((e) => e.getAttribute('data-value')));
    const v = view(id);
    const { state, notices } = parse(v.schema, stateEntries(link), ss);
    expect(notices).toEqual([]);
    // the playground draws the normalizers' logits in its editor, not in the figure
    const { svg } = figureFiles(ss, v, state, v.compute(ss, state), { input: id !== 'normalizers' });
    const inNode = parseXml(svg).filter((e) => e.attrs['data-value'] !== undefined).map((e) => e.attrs['data-value']);
    expect(inPage.length).toBeGreaterThan(5);
    expect(inPage).toEqual(inNode);
    expect(errors).toEqual([]);
  });
});

describe('the logit editor\'s value labels in Chromium', () => {
  const crowded = (n) => Array.from({ length: n }, (_, i) => (i % 4 === 3 ? -7.125 : -1.234)).join(',');
  it.each([[390, 24], [390, 64], [1280, 24], [1280, 64]])('at a %i px wide page, n = %i: no label covers another or another bar', async (width, n) => {
    await page.setViewportSize({ width, height: 900 });
    try {
      await page.goto('about:blank'); // a fresh page: a hash change alone could race the page's own address writer
      await page.goto(`${pw.server.url}#view=normalizers&logits=${crowded(n)}`);
      await page.waitForSelector(`[data-editor="logits"] [data-logit-index="${n - 1}"]`, { timeout: 50000 });
      const { labels, bars } = await page.$eval('[data-editor="logits"]', (svg) => {
        const box = (e) => { const r = e.getBoundingClientRect(); return { x0: r.left, x1: r.right, y0: r.top, y1: r.bottom }; };
        return {
          labels: [...svg.querySelectorAll('.logit-label')].map((t) => ({ text: t.textContent, bar: Number(t.parentNode.querySelector('[data-logit-index]').getAttribute('data-logit-index')), box: box(t) })),
          bars: [...svg.querySelectorAll('[data-logit-index]')].map(box),
        };
      });
      expect(labels.length).toBeGreaterThan(0);
      // text boxes are the font's full line height: overlap by more than a pixel's rounding is a real one
      const overlap = (a, b) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.5 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 2.5;
      for (const [i, a] of labels.entries()) {
        for (const b of labels.slice(i + 1)) expect(overlap(a.box, b.box), `"${a.text}" (${a.bar}) and "${b.text}" (${b.bar})`).toBe(false);
        bars.forEach((b, j) => j !== a.bar && expect(overlap(a.box, b), `"${a.text}" (${a.bar}) on bar ${j}`).toBe(false));
      }
      expect(errors).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 1000 });
    }
  });
});
