// What a page with softscope widgets downloads, measured in Chromium over
// the built files as they are (nothing is built for it): every response's
// bytes, and the same gzipped (level 9, as a server would send them).
//  - One widget (the README's snippet) downloads one wasm build, once, and
//    the README states that page's bytes, gzipped and not (within 10%).
//  - A page that imports the API (the package's wasm/api/index.js) and has
//    widgets downloads each build once: the widget and the API share it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let repo, browser, page;

beforeAll(async () => {
  if (!existsSync(`${ROOT}/wasm/dist/embed/embed.js`)) throw new Error('wasm/dist/embed/embed.js is missing: run `make embed` first');
  repo = await serveStatic(ROOT);
  browser = await launchChromium({ width: 1000, height: 800 });
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await repo?.close();
});

const WIDGET = '<softscope-widget view="normalizers" kernels="softmax,sparsemax,entmax15" logits="2,1,0.1,-1" controls="temperature"></softscope-widget>';

/** Opens a page of `head` and `body` (served at the repository's root) until its widgets are drawn; resolves to [{ url, bytes, gzipped }] of every response. */
async function downloads(name, head, body) {
  const url = `${repo.url}weight-${name}.html`;
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>` }));
  const pending = [];
  const onResponse = (r) => pending.push(r.body().then((b) => ({ url: r.url(), bytes: b.length, gzipped: gzipSync(b, { level: 9 }).length }), () => null));
  page.on('response', onResponse);
  await page.goto(url);
  await page.waitForFunction(() => [...document.querySelectorAll('softscope-widget')].every((e) => e.complete) && window.apiDone !== false, null, { timeout: 30000 });
  page.off('response', onResponse);
  return (await Promise.all(pending)).filter(Boolean);
}

const kB = (n) => Math.round(n / 1000);
const sum = (list, key) => list.reduce((s, r) => s + r[key], 0);

describe('what a page downloads', () => {
  it('one widget: one wasm build, once; the README states the bytes, gzipped and not', async () => {
    const got = await downloads('one-widget', '<script type="module" src="/wasm/dist/embed/embed.js"></script>', WIDGET);
    const wasm = got.filter((r) => r.url.endsWith('.wasm'));
    expect(wasm.length, wasm.map((r) => r.url).join(', ')).toBe(1);
    const page = got.filter((r) => !r.url.includes('/weight-'));
    const bytes = sum(page, 'bytes'), gzipped = sum(page, 'gzipped');
    const js = page.filter((r) => r.url.endsWith('.js'));
    console.log(`weight: one widget downloads ${kB(bytes)} kB (${kB(gzipped)} kB gzipped): ${wasm[0].url.split('/').pop()} ${kB(wasm[0].bytes)} kB `
      + `(${kB(wasm[0].gzipped)} kB gzipped), ${js.length} JavaScript files ${kB(sum(js, 'bytes'))} kB (${kB(sum(js, 'gzipped'))} kB gzipped)`);
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const stated = /One widget downloads about (\d+) kB \((\d+) kB gzipped\)/.exec(readme);
    expect(stated, 'README.md: "One widget downloads about N kB (M kB gzipped)"').not.toBeNull();
    expect(Math.abs(Number(stated[1]) * 1000 - bytes) / bytes, `README states ${stated[1]} kB, measured ${kB(bytes)} kB`).toBeLessThan(0.1);
    expect(Math.abs(Number(stated[2]) * 1000 - gzipped) / gzipped, `README states ${stated[2]} kB gzipped, measured ${kB(gzipped)} kB`).toBeLessThan(0.1);
  });

  it('a page that uses the API and widgets downloads each wasm build once: the widget and the API share it', async () => {
    const api = `<script type="module">
      window.apiDone = false;
      import { createSoftscope } from '/wasm/api/index.js';
      const ss = await createSoftscope();
      window.apiSum = ss.normalize('softmax', new Float32Array([1, 2, 3])).reduce((a, b) => a + b, 0);
      window.apiDone = true;
    </script><script type="module" src="/wasm/dist/embed/embed.js"></script>`;
    const got = await downloads('api-and-widgets', api, WIDGET + '<softscope-widget view="dispersion" controls="none"></softscope-widget>');
    expect(await page.evaluate(() => window.apiSum)).toBeCloseTo(1, 5);
    const wasm = got.filter((r) => r.url.endsWith('.wasm')).map((r) => r.url);
    console.log(`weight: the API and two widgets on one page download ${wasm.join(', ')}`);
    expect(wasm.length).toBe(1);
  });
});
