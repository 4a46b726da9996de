// theme="auto" follows the page behind the widget, in Chromium: the colour
// the page paints there (composited, from the element outwards), else the
// page's color-scheme, and the reader's OS setting only where the page leaves
// it to the OS (color-scheme: light dark) — and it follows the page's changes.
// Each case is a page with one widget, its CSS and the OS setting
// (prefers-color-scheme, emulated).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium, pageErrors } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let repo, browser, page, errors;

beforeAll(async () => {
  if (!existsSync(`${ROOT}/wasm/dist/embed/embed.js`)) throw new Error('wasm/dist/embed/embed.js is missing: run `make embed` first');
  repo = await serveStatic(ROOT);
  browser = await launchChromium({ width: 1000, height: 800 });
  page = browser.page;
  errors = pageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await repo?.close();
});

const WIDGET = '<softscope-widget id="w" view="normalizers" kernels="softmax,sparsemax" controls="temperature"></softscope-widget>';

/** Opens a page with `css` and `body` (one widget, #w) under the OS setting `os`; resolves when the widget has drawn. */
async function open(name, { css = '', body = WIDGET, os = 'light' }) {
  const url = `${repo.url}theme-${name}.html`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><html lang="en"><head>
    <meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,"><style>${css}</style>
    <script type="module" src="/wasm/dist/embed/embed.js"></script></head><body>${body}</body></html>` }));
  await page.emulateMedia({ colorScheme: os });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#w')?.complete, null, { timeout: 30000 });
}

const themeOf = (sel = '#w') => page.evaluate((s) => document.querySelector(s).shadowRoot.querySelector('.widget').dataset.theme, sel);
const becomes = (theme, sel = '#w') => page.waitForFunction(([s, t]) => document.querySelector(s).shadowRoot.querySelector('.widget')?.dataset.theme === t,
  [sel, theme], { timeout: 10000 });

describe('theme="auto" follows the host page', () => {
  it('a dark page, a light OS: dark', async () => {
    await open('dark-page', { css: 'body { background: #1e1f24; color: #ddd; }', os: 'light' });
    expect(await themeOf()).toBe('dark');
  });

  it('a light page that paints no background (a white canvas), a dark OS: light', async () => {
    await open('light-page', { css: 'body { font: 17px Georgia, serif; color: #222; }', os: 'dark' });
    expect(await themeOf()).toBe('light');
  });

  it('a page that paints nothing but says color-scheme: dark: dark (its canvas is dark), on a light OS', async () => {
    await open('scheme-dark', { css: ':root { color-scheme: dark; }', os: 'light' });
    expect(await themeOf()).toBe('dark');
  });

  it('color-scheme: light dark (the page leaves it to the OS): the OS decides, and its change is followed', async () => {
    await open('scheme-both', { css: ':root { color-scheme: light dark; }', os: 'dark' });
    expect(await themeOf()).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await becomes('light');
  });

  it('what is painted right behind the widget decides: a dark card on a light page, a light card on a dark page, a half-transparent overlay', async () => {
    await open('cards', {
      css: 'body { background: #fff; } .dark { background: #222; padding: 1em; } .light { background: #f4f4f4; } .glass { background: rgba(0, 0, 0, 0.8); }',
      body: `<div class="dark">${WIDGET}<div class="light"><softscope-widget id="w2" view="dispersion" controls="none"></softscope-widget></div></div>
        <div class="glass"><softscope-widget id="w3" view="dispersion" controls="none"></softscope-widget></div>`,
    });
    await page.waitForFunction(() => ['#w2', '#w3'].every((s) => document.querySelector(s).complete), null, { timeout: 30000 });
    expect(await themeOf('#w')).toBe('dark');
    expect(await themeOf('#w2')).toBe('light');
    expect(await themeOf('#w3')).toBe('dark');
  });

  it('the page switches its scheme (a class on body, with a transition, and a data attribute as MkDocs Material sets): the widget follows', async () => {
    await open('toggle', {
      css: 'body { transition: background-color 0.3s; } body.night, body[data-scheme="slate"] { background: oklch(0.25 0.02 260); color: #eee; }',
      os: 'light',
    });
    expect(await themeOf()).toBe('light');
    await page.evaluate(() => document.body.classList.add('night'));
    await becomes('dark');
    await page.evaluate(() => document.body.classList.remove('night'));
    await becomes('light');
    await page.evaluate(() => document.body.setAttribute('data-scheme', 'slate'));
    await becomes('dark');
  });

  it('theme="light" or "dark" is kept whatever the page', async () => {
    await open('explicit', {
      css: 'body { background: #111; }',
      body: '<softscope-widget id="w" view="normalizers" theme="light"></softscope-widget><softscope-widget id="w2" view="normalizers" theme="dark"></softscope-widget>',
    });
    await page.waitForFunction(() => document.querySelector('#w2').complete, null, { timeout: 30000 });
    expect(await themeOf('#w')).toBe('light');
    expect(await themeOf('#w2')).toBe('dark');
    expect(errors).toEqual([]);
  });
});
