// The docs site (`make docs`, build/docs/) in Chromium: every page opens
// with no console error and no page error, every internal link points to a
// page of the site, and the widgets draw (each sets data-complete when its
// figure is complete) on the home page, every view page and a sample of the
// kernel pages (one per family and view, then every eighth; the other
// pages get an empty widget script, so their widgets compute nothing): a
// kernel page's widget is the same element and view as a view page's, with
// one key set.
// One browser, the pages in sequence; which pages' widgets are waited for
// is decided from the built HTML.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SITE = `${ROOT}/${process.env.B || 'build'}/docs`;
let server, browser, page, errors;
let widgetsWanted = false; // whether the page being opened gets the widget script

/** Every file of the built site, as site paths ('/kernels/softmax.html'). */
function siteFiles(dir = SITE, rel = '') {
  const out = [];
  for (const name of readdirSync(`${dir}/${rel}`)) {
    const r = `${rel}/${name}`;
    if (statSync(`${dir}${r}`).isDirectory()) out.push(...siteFiles(dir, r));
    else out.push(r);
  }
  return out;
}

beforeAll(async () => {
  if (!existsSync(`${SITE}/index.html`)) throw new Error(`${SITE} is not built: run \`make docs\` first`);
  server = await serveStatic(SITE);
  browser = await launchChromium({ width: 1200, height: 900 });
  errors = [];
  page = browser.page;
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`${page.url()}: ${m.text()}`));
  // On a page whose widgets are not waited for, the widget script is an
  // empty module: the elements stay unupgraded and compute nothing (every
  // view's widget code runs on the sampled pages).
  await page.route('**/softscope/embed/embed.js', (route) => (widgetsWanted ? route.continue()
    : route.fulfill({ contentType: 'text/javascript', body: '' })));
});

// The views of the widgets a built page holds, from its HTML ('default' for a widget without one).
const widgetViews = (path) => [...readFileSync(`${SITE}${path}`, 'utf8').matchAll(/<softscope-widget\b([^>]*)>/g)]
  .map((m) => /\bview="([^"]+)"/.exec(m[1])?.[1] ?? 'default');

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// A site path for an internal href: what the static server would serve.
function resolves(files, path) {
  const p = decodeURIComponent(path);
  if (p.endsWith('/')) return files.has(`${p}index.html`);
  return files.has(p) || files.has(`${p}.html`) || files.has(`${p}/index.html`);
}

describe('the docs site in Chromium', () => {
  it('every page: no console error, internal links resolve; widgets draw on the home, view and sampled kernel pages', async () => {
    const t0 = Date.now();
    const files = new Set(siteFiles());
    const pages = [...files].filter((f) => f.endsWith('.html') && f !== '/404.html').sort();
    const kernelPages = pages.filter((p) => p.startsWith('/kernels/') && p !== '/kernels/index.html');
    expect(kernelPages.length).toBeGreaterThan(50);
    expect(pages.filter((p) => p.startsWith('/views/')).length).toBeGreaterThanOrEqual(8);

    // which pages' widgets are waited for: the home and view pages, and a
    // kernel page when it shows a view no earlier page did, or every eighth
    const seenViews = new Set();
    const sampled = new Set(pages.filter((path) => {
      const views = widgetViews(path), k = kernelPages.indexOf(path);
      const take = views.length && (k < 0 || views.some((v) => !seenViews.has(v)) || k % 8 === 0);
      if (take) views.forEach((v) => seenViews.add(v));
      return take;
    }));

    const links = new Map(); // href path -> first page linking it
    let widgetPages = 0, widgetsDrawn = 0;
    for (const path of pages) {
      widgetsWanted = sampled.has(path);
      await page.goto(`${server.url}${path.slice(1)}`, { waitUntil: 'load' });
      await page.waitForSelector('.VPContent');
      const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => a.href));
      for (const href of hrefs) {
        const u = new URL(href);
        if (u.origin !== new URL(server.url).origin) continue;
        if (!links.has(u.pathname)) links.set(u.pathname, path);
      }
      if (sampled.has(path)) {
        await page.waitForFunction(() => [...document.querySelectorAll('softscope-widget')].every((e) => e.hasAttribute('data-complete')),
          null, { timeout: 30000 }).catch(() => {});
        const state = await page.$$eval('softscope-widget', (els) => els.map((e) => ({
          view: e.getAttribute('view'), complete: e.hasAttribute('data-complete'), svg: !!e.shadowRoot?.querySelector('svg'),
          alert: e.shadowRoot?.querySelector('[role=alert]')?.textContent ?? null })));
        for (const w of state) expect(w, `${path}: ${w.view}`).toEqual({ view: w.view, complete: true, svg: true, alert: null });
        widgetPages++;
        widgetsDrawn += state.length;
      }
      expect(errors, `after ${path}`).toEqual([]);
    }
    const dead = [...links].filter(([p]) => !resolves(files, p)).map(([p, from]) => `${from} -> ${p}`);
    expect(dead).toEqual([]);
    // every view page has its widget; the kernel pages' widgets come from several views
    expect(seenViews.size).toBeGreaterThanOrEqual(7);
    console.log(`docs: ${pages.length} pages opened, ${links.size} internal links checked, ` +
      `${widgetsDrawn} widgets drawn on ${widgetPages} pages, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }, 400_000);
});
