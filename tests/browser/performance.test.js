// The Performance tab and widget in Chromium: Run times the kernels in a Web
// Worker (the relaxed, SIMD128 and scalar builds and plain JS), the progress
// bar goes from 0 to 100 through values in between, the main thread keeps
// painting frames while it runs, the figure then shows a bar per build and
// kernel with the user agent, the badge names the page's build, the widget
// (view="performance") runs the same from the embed bundle, and nothing logs
// an error. What is checked is that the numbers exist and are drawn
// consistently, never how fast anything is.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openPlayground } from './open-playground.js';

let pw, page, errors;
beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = pw);
});
afterAll(async () => { await pw?.close(); });

// Counts animation frames, the longest gap between two, and the progress bar's values, from now on.
const watch = (root) => page.evaluate((sel) => {
  const w = (window.__perfWatch = { frames: 0, maxGap: 0, values: [] });
  let last = performance.now();
  const tick = (t) => { w.frames++; w.maxGap = Math.max(w.maxGap, t - last); last = t; if (!w.stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const bar = () => (sel ? document.querySelector(sel).shadowRoot : document).querySelector('[role=progressbar]');
  new MutationObserver(() => w.values.push(Number(bar().getAttribute('aria-valuenow')))).observe(bar(), { attributes: true, attributeFilter: ['aria-valuenow'] });
}, root);
const stopWatch = () => page.evaluate(() => { window.__perfWatch.stop = true; return window.__perfWatch; });

// The drawn bars: { kernel: { build: ns } }, and the figure's text lines.
const drawn = (sel) => page.evaluate((s) => {
  const root = s ? document.querySelector(s).shadowRoot : document;
  const svg = root.querySelector('[data-view-figure="performance"] svg');
  const out = {};
  for (const g of svg.querySelectorAll('[data-kernel]'))
    for (const b of g.querySelectorAll('[data-build]')) {
      const r = b.querySelector('rect[data-value]');
      (out[g.dataset.kernel] ??= {})[b.dataset.build] = r ? Number(r.getAttribute('data-value')) : null;
    }
  return { bars: out, ran: svg.dataset.ran, ua: svg.querySelector('[data-line="ua"]')?.textContent ?? '',
    unavailable: [...svg.querySelectorAll('[data-line="unavailable"]')].map((t) => t.textContent), text: svg.textContent };
}, sel);

describe('the Performance tab', () => {
  it('runs in a worker: progress to 100, frames keep coming, a bar per build and kernel', async () => {
    await page.goto(`${pw.server.url}#view=performance&kernels=softmax,sparsemax&n=4096&rounds=3&ms=4`);
    await page.waitForSelector('[data-performance-status="idle"] [data-view-figure="performance"] svg');
    // the badge: the page instance's build
    const badge = await page.$eval('.build', (b) => ({ build: b.dataset.build, text: b.textContent }));
    expect(['relaxed', 'simd', 'scalar']).toContain(badge.build);
    expect(badge.text).toMatch(/wasm (relaxed SIMD|SIMD128|scalar)/);
    expect((await drawn()).ran).toBe('0');
    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('0');

    await watch();
    await page.click('button[data-run]');
    await page.waitForSelector('[data-performance-status="done"]', { timeout: 60000 });
    const w = await stopWatch();

    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('100');
    expect(w.values.some((v) => v > 0 && v < 100), `progress values ${w.values}`).toBe(true);
    // the main thread answered while the worker timed: frames kept coming (a run takes ~1 s here)
    expect(w.frames, `frames during the run (longest gap ${w.maxGap} ms)`).toBeGreaterThan(10);

    const d = await drawn();
    expect(d.ran).toBe('1');
    expect(d.ua).toBe(await page.evaluate(() => navigator.userAgent));
    expect(Object.keys(d.bars)).toEqual(['softmax', 'sparsemax']);
    // Chromium validates relaxed SIMD: every build runs
    expect(d.unavailable).toEqual([]);
    for (const [k, per] of Object.entries(d.bars)) {
      expect(Object.keys(per), k).toEqual(['relaxed', 'simd', 'scalar', 'js']);
      for (const [b, ns] of Object.entries(per)) expect(ns > 0 && Number.isFinite(ns), `${k} ${b}: ${ns}`).toBe(true);
    }
    // the ratios written under the bars are the bars' own: scalar / SIMD
    const simdText = await page.$eval('[data-kernel="softmax"] [data-build="simd"] text:last-of-type', (t) => t.textContent);
    const want = d.bars.softmax.scalar / d.bars.softmax.simd; // the same division as the model's
    expect(simdText).toContain(`${Number(want.toPrecision(want >= 100 ? 3 : 2))}× scalar`);
    console.log(`Chromium, n = 4096, ns per element: ${JSON.stringify(d.bars)}; ${w.frames} frames, longest gap ${w.maxGap.toFixed(0)} ms`);
    expect(errors).toEqual([]);
  });

  it('a changed control clears the bars; Stop ends a run', async () => {
    expect((await drawn()).ran).toBe('1');
    await page.click('#performance-builds input[data-kernel="js"]');
    await page.waitForSelector('[data-performance-status="idle"]');
    expect((await drawn()).ran).toBe('0');
    expect(await page.$eval('[role=progressbar]', (b) => b.getAttribute('aria-valuenow'))).toBe('0');
    await page.click('button[data-run]');
    await page.waitForSelector('[data-performance-status="running"]');
    await page.click('text=Stop');
    await page.waitForSelector('[data-performance-status="idle"]');
    expect((await drawn()).ran).toBe('0');
    expect(await page.evaluate(() => location.hash)).toContain('builds=relaxed,simd,scalar');
    expect(errors).toEqual([]);
  });
});

describe('the Performance widget', () => {
  it('<softscope-widget view="performance" controls="none"> still has Run, and runs from the embed bundle (the worker next to the script, the wasm one folder up)', async () => {
    const url = `${pw.server.url}perf-widget.html`;
    await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8"><title>widget</title>
      <script type="module" src="./embed/embed.js"></script>
      <softscope-widget id="w" view="performance" kernels="softmax" n="2048" rounds="2" ms="3" controls="none"></softscope-widget>` }));
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('#w')?.shadowRoot?.querySelector('[data-view-figure="performance"] svg'), null, { timeout: 30000 });
    await watch('#w');
    await page.evaluate(() => document.querySelector('#w').shadowRoot.querySelector('button[data-run]').click());
    await page.waitForFunction(() => document.querySelector('#w').shadowRoot.querySelector('[data-performance-status="done"]'), null, { timeout: 60000 });
    const w = await stopWatch();
    expect(w.values.at(-1)).toBe(100);
    expect(await page.evaluate(() => document.querySelector('#w').shadowRoot.querySelectorAll('input').length)).toBe(0); // no controls, only Run
    const d = await drawn('#w');
    expect(d.ran).toBe('1');
    expect(Object.keys(d.bars.softmax)).toEqual(['relaxed', 'simd', 'scalar', 'js']);
    expect(await page.evaluate(() => document.querySelector('#w').data.ran)).toBe(true);
    expect(errors).toEqual([]);
  });
});
