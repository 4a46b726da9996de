// The built playground (web/dist) served locally and opened in a fresh
// Chromium, with every page error and console error collected, for the
// browser test files to share.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium } from './chromium.js';

export { autoBuild } from './chromium.js';
import { hashEntries } from '../../wasm/state/schema.js';

const DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Resolves to { server, page, errors (an array that fills up), close() }. */
export async function openPlayground({ width = 1280, height = 1000 } = {}) {
  if (!existsSync(`${DIST}/index.html`)) throw new Error('web/dist/index.html is missing: run `make web` first');
  const server = await serveStatic(DIST);
  const browser = await launchChromium({ width, height });
  const errors = [];
  browser.page.on('pageerror', (e) => errors.push(e.message));
  browser.page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  return {
    server,
    page: browser.page,
    errors,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** The link in the page's address, as { key: value } (strings), once the
 *  address writer (at most every 200 ms) has written the latest change. */
export async function pageState(page) {
  await page.waitForTimeout(350);
  return Object.fromEntries(hashEntries(await page.evaluate(() => location.hash)));
}

/** The numbers a figure draws: data-value of its marks, by a CSS selector inside the view's figure. */
export function figureValues(page, selector) {
  return page.$$eval(`[data-view-figure] ${selector}`, (els) => els.map((e) => e.getAttribute('data-value')));
}

/** A short run of the Experiments view (link keys): its figure comes only when Train is pressed, so the tests that
 *  open every view train this (about a second). */
export const QUICK_TRAIN = 'd=16&heads=1&steps=100&batch=8&testMax=32&examples=16&quantizers=uniform&mapN=8';

/** A short run of the Language view (link keys): a model of a few thousand parameters, 60 steps (under a second). */
export const QUICK_LANGUAGE = 'd=16&heads=2&layers=1&context=16&steps=60&batch=4&quantizers=uniform&length=40';
/** The views whose figure comes only with Train, and the quick link each is opened with by the tests that open every view. */
export const TRAINED = { experiments: QUICK_TRAIN, language: QUICK_LANGUAGE };

/** Presses the Experiments (or Language) view's Train (in the page, or in the shadow root of the widget `host`) and waits for the run's end. */
export async function train(page, host = null, timeout = 120000, view = 'experiments') {
  await page.waitForFunction((h) => (h ? document.querySelector(h)?.shadowRoot : document)?.querySelector('button[data-train]'), host, { timeout: 30000 });
  await page.evaluate((h) => (h ? document.querySelector(h).shadowRoot : document).querySelector('button[data-train]').click(), host);
  await page.waitForFunction(([h, v]) => (h ? document.querySelector(h)?.shadowRoot : document)?.querySelector(`[data-${v}-status="done"]`), [host, view], { timeout });
}

/** Opens the playground at a view (and link keys) once its figure is complete; the Experiments and Language views
 *  with their quick link (TRAINED, unless the link sets its keys) and Train pressed. */
export async function openView(page, url, view, link = '') {
  const keys = TRAINED[view] && !link ? TRAINED[view] : link;
  await page.goto(`${url}#view=${view}${keys ? `&${keys}` : ''}`);
  if (TRAINED[view]) await train(page, null, 120000, view);
  await page.waitForSelector(`[data-view-figure="${view}"][data-complete="1"] svg`, { timeout: 30000 });
}
