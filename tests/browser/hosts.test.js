// softscope widgets in real hosts, in Chromium: a plain HTML page
// (examples/embed), a VitePress docs site (examples/docs, built), a reveal.js
// deck (examples/slides, the widget on the second slide), a MkDocs Material
// site (examples/mkdocs, built by Debian's MkDocs 1.4) and a notebook exported
// by nbconvert (examples/notebook). In each: every widget renders; its .data
// equals what the package computes in Node for the same state; moving one
// widget's control changes only that widget; nothing logs an error. The time
// from the embed script's load to the first painted widget is printed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from '../../wasm/api/index.js';
import { view, parse } from '../../wasm/views/index.js';
import { hashEntries } from '../../wasm/state/schema.js';
import { plain } from '../../wasm/views/data.js';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium, autoBuild } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = `${ROOT}/examples/docs/.vitepress/dist`;
const HOSTS = `${ROOT}/build/hosts`; // make mkdocs-example notebook-example
let ss, repo, docs, hosts, browser, page, errors;

beforeAll(async () => {
  if (!existsSync(`${ROOT}/wasm/dist/embed/embed.js`)) throw new Error('wasm/dist/embed/embed.js is missing: run `make embed` first');
  if (!existsSync(`${DOCS}/index.html`)) throw new Error('the docs example is not built: run `make docs-example` first');
  for (const f of ['mkdocs/index.html', 'notebook/widgets.html'])
    if (!existsSync(`${HOSTS}/${f}`)) throw new Error(`build/hosts/${f} is missing: run \`make mkdocs-example notebook-example\` first`);
  repo = await serveStatic(ROOT);
  docs = await serveStatic(DOCS);
  hosts = await serveStatic(HOSTS);
  browser = await launchChromium({ width: 1200, height: 900 });
  page = browser.page;
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the widgets run
  errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  // a host page without an icon (the nbconvert export) asks for /favicon.ico: not the widget's concern
  await page.route('**/favicon.ico', (route) => route.fulfill({ contentType: 'image/x-icon', body: '' }));
});
afterAll(async () => {
  await browser?.close();
  await repo?.close();
  await docs?.close();
  await hosts?.close();
});

const widgets = () => page.$$eval('softscope-widget', (els) => els.map((e) => ({ id: e.id, view: e.view, hash: e.hash, data: e.data, complete: e.complete })));
const allComplete = () => page.waitForFunction(() => [...document.querySelectorAll('softscope-widget')].every((e) => e.complete), null, { timeout: 30000 });

// The widget's numbers are the package's for the same state.
function expectSameAsNode(w) {
  const v = view(w.view);
  const { state, notices } = parse(v.schema, hashEntries(w.hash), ss, { ignore: ['view'] });
  expect(notices, w.id).toEqual([]);
  expect(w.data, `${w.id}: .data`).toEqual(plain(v.compute(ss, state)));
}

async function firstPaintMs() {
  return page.evaluate(() => {
    const script = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/embed.js'));
    const painted = Math.min(...[...document.querySelectorAll('softscope-widget')].map((e) => e.paintedAt ?? Infinity));
    return { scriptLoadedAt: script?.responseEnd, firstPaintAt: painted, afterScript: painted - (script?.responseEnd ?? 0) };
  });
}

describe('hosts in Chromium', () => {
  it('a plain HTML page: widgets of different views, a static one, one from a pasted link', async () => {
    await page.goto(`${repo.url}examples/embed/index.html`);
    await allComplete();
    const ws = await widgets();
    expect(new Set(ws.map((w) => w.view)).size).toBeGreaterThanOrEqual(4);
    for (const w of ws) expectSameAsNode(w);
    // controls="none": no control at all
    expect(await page.locator('#dispersion').locator('input, select, button').count()).toBe(0);
    // a pasted link sets the state (draws=2000 came from the link)
    expect(ws.find((w) => w.id === 'sampling').hash).toContain('draws=2000');
    // the host's CSS (dashed outlines on svg) does not reach into the widget
    const outline = await page.locator('#compare').locator('svg').first().evaluate((e) => getComputedStyle(e).outlineStyle);
    expect(outline).not.toBe('dashed');
    // moving one widget's control changes that widget only
    const before = await widgets();
    const slider = page.locator('#compare').locator('input[type="range"]').first();
    await slider.focus();
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction((h) => document.getElementById('compare').hash !== h, before.find((w) => w.id === 'compare').hash);
    const after = await widgets();
    for (const w of after) {
      const b = before.find((x) => x.id === w.id);
      if (w.id === 'compare') expect(w.data).not.toEqual(b.data);
      else expect(w.data, w.id).toEqual(b.data);
    }
    expectSameAsNode(after.find((w) => w.id === 'compare'));
    console.log('embed: first widget painted (fresh profile)', JSON.stringify(await firstPaintMs()));
    await page.reload();
    await allComplete();
    console.log('embed: first widget painted (reload, cached)', JSON.stringify(await firstPaintMs()));
    expect(errors).toEqual([]);
  });

  it('a VitePress page: the two widgets of its Markdown', async () => {
    await page.goto(docs.url);
    await allComplete();
    const ws = await widgets();
    expect(ws.map((w) => w.view)).toEqual(['normalizers', 'dispersion']);
    for (const w of ws) expectSameAsNode(w);
    const before = ws;
    const slider = page.locator('softscope-widget').nth(1).locator('input[type="range"]').first();
    await slider.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((h) => document.querySelectorAll('softscope-widget')[1].hash !== h && document.querySelectorAll('softscope-widget')[1].complete, before[1].hash);
    const after = await widgets();
    expect(after[0].data).toEqual(before[0].data);
    expect(after[1].data).not.toEqual(before[1].data);
    expectSameAsNode(after[1]);
    expect(errors).toEqual([]);
  });

  it('a reveal.js deck: the widget on the second slide renders when the slide is shown', async () => {
    await page.goto(`${repo.url}examples/slides/index.html`);
    await page.waitForFunction(() => window.deck?.isReady?.());
    await page.evaluate(() => window.deck.slide(1));
    await allComplete();
    const box = await page.locator('#deck-widget').locator('svg').first().boundingBox();
    expect(box.width).toBeGreaterThan(300);
    const [w] = await widgets();
    expectSameAsNode(w);
    const slider = page.locator('#deck-widget').locator('input[type="range"]').first();
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((h) => document.getElementById('deck-widget').hash !== h, w.hash);
    expectSameAsNode((await widgets())[0]);
    expect(errors).toEqual([]);
  });

  it('a MkDocs Material site: its widgets render, and follow the palette toggle to the dark scheme and back', async () => {
    errors.length = 0;
    await page.goto(`${hosts.url}mkdocs/index.html`);
    await allComplete();
    const ws = await widgets();
    expect(ws.map((w) => w.view)).toEqual(['normalizers', 'dispersion']);
    for (const w of ws) expectSameAsNode(w);
    const themes = () => page.$$eval('softscope-widget', (els) => els.map((e) => e.shadowRoot.querySelector('.widget')?.dataset.theme));
    const themesBecome = (t) => page.waitForFunction((t) => [...document.querySelectorAll('softscope-widget')]
      .every((e) => e.shadowRoot.querySelector('.widget')?.dataset.theme === t), t, { timeout: 10000 });
    expect(await themes()).toEqual(['light', 'light']);
    await page.click('label[title="Switch to dark mode"]');
    expect(await page.getAttribute('body', 'data-md-color-scheme')).toBe('slate');
    await themesBecome('dark');
    await page.click('label[title="Switch to light mode"]');
    await themesBecome('light');
    expect(errors).toEqual([]);
  });

  it('a notebook exported by nbconvert, served over http: its widgets render', async () => {
    errors.length = 0;
    await page.goto(`${hosts.url}notebook/widgets.html`);
    await allComplete();
    const ws = await widgets();
    expect(ws.map((w) => w.view)).toEqual(['normalizers', 'optimizers']);
    for (const w of ws) expectSameAsNode(w);
    // (Debian's nbconvert links require.js and MathJax as file:///usr/share/javascript/..., which a page served over http cannot load)
    expect(errors.filter((e) => !/Not allowed to load local resource: file:\/\/\/usr\/share\/javascript\//.test(e))).toEqual([]);
  });

  it('the same notebook opened from disk (file://): the script cannot run there, and each widget says so instead of an empty 0 × 0 box', async () => {
    await page.goto(`file://${HOSTS}/notebook/widgets.html`);
    await page.waitForLoadState('load');
    expect(await page.evaluate(() => !!customElements.get('softscope-widget'))).toBe(false);
    const boxes = await page.$$eval('softscope-widget', (els) => els.map((e) => ({ w: e.offsetWidth, h: e.offsetHeight, text: e.innerText })));
    expect(boxes.length).toBe(2);
    for (const b of boxes) {
      expect(b.w * b.h).toBeGreaterThan(0);
      expect(b.text).toMatch(/served over http/);
    }
    errors.length = 0; // (the module script's refusal from file://, logged by the browser)
  });

  it('the built site from a subfolder: the playground and its embed bundle load by relative paths', async () => {
    // the repository root is served, so the site sits at /web/dist/
    await page.goto(`${repo.url}web/dist/index.html#view=normalizers`);
    await page.waitForFunction(() => document.querySelector('[data-view-figure] svg [data-value]'), null, { timeout: 30000 });
    await page.evaluate(() => { document.body.innerHTML = '<softscope-widget view="dispersion" controls="none"></softscope-widget>'; });
    await page.addScriptTag({ type: 'module', content: "import './embed/embed.js';" });
    await page.waitForFunction(() => document.querySelector('softscope-widget')?.complete, null, { timeout: 30000 });
    expectSameAsNode((await widgets())[0]);
    expect(errors).toEqual([]);
  });

  it('an engine without WebAssembly: every widget says so instead of a blank box', async () => {
    const other = await browser.context.newPage();
    await other.addInitScript(() => { delete globalThis.WebAssembly; });
    await other.goto(`${repo.url}examples/embed/index.html`);
    await other.waitForFunction(() => [...document.querySelectorAll('softscope-widget')]
      .every((e) => e.shadowRoot?.querySelector('[role=alert]')?.textContent.includes('WebAssembly')), null, { timeout: 30000 });
    const n = await other.$$eval('softscope-widget', (els) => els.length);
    expect(n).toBeGreaterThanOrEqual(4);
    await other.close();
  });
});
