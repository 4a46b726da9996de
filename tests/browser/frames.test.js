// The playground and the widgets inside iframes of another site, in Chromium.
// The host page is served from http://localhost:PORT, the repository (the
// built site web/dist, the widget pages, the `make dist` folder) from
// http://127.0.0.1:PORT: another site, so the frames get third-party storage,
// which a fresh Chromium profile blocks (localStorage throws). Checked:
//  - a cross-site frame with storage blocked: the playground draws its
//    figure and its theme menu works; the widgets of a plain page draw;
//  - a sandbox="allow-scripts" frame (an opaque origin: no storage, module
//    scripts and the wasm fetched with CORS): both work, as the servers send
//    Access-Control-Allow-Origin; from a server that sends none, the
//    playground says why instead of staying blank;
//  - the embed script and its wasm loaded from another origin, from the
//    folder `make dist` archives: the widget draws (the CORS header).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium, pageErrors } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
const DIST = `${ROOT}/build/dist/softscope-embed-${version}`;
let repo, dist, host, hostDir, browser, page, errors;

beforeAll(async () => {
  if (!existsSync(`${ROOT}/web/dist/embed/embed.js`)) throw new Error('the site is not built: run `make build` first');
  if (!existsSync(`${DIST}/embed/embed.js`)) throw new Error(`${DIST} is missing: run \`make dist\` first`);
  repo = await serveStatic(ROOT);
  dist = await serveStatic(DIST);
  hostDir = mkdtempSync(join(tmpdir(), 'softscope-host-'));
  host = await serveStatic(hostDir);
  browser = await launchChromium({ width: 1200, height: 900 });
  page = browser.page;
  errors = pageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([repo?.close(), dist?.close(), host?.close()]);
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

/** Opens a host page on http://localhost (another site than 127.0.0.1) with `body`; resolves to its first iframe's Frame. */
async function hostPage(name, body) {
  writeFileSync(join(hostDir, name), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>
    <link rel="icon" href="data:,"></head><body>${body}</body></html>`);
  await page.goto(`${host.url.replace('127.0.0.1', 'localhost')}${name}`);
  const el = await page.waitForSelector('iframe');
  return (await el.contentFrame()) ?? Promise.reject(new Error('no frame'));
}

const storageIn = (frame) => frame.evaluate(() => { try { localStorage.getItem('x'); return 'usable'; } catch (e) { return e.message; } });
const figureIn = (frame) => frame.waitForFunction(() => document.querySelector('[data-view-figure] svg [data-value]'), null, { timeout: 30000 });
const widgetsIn = (frame) => frame.waitForFunction(() => {
  const ws = [...document.querySelectorAll('softscope-widget')];
  return ws.length > 0 && ws.every((w) => w.complete);
}, null, { timeout: 30000 });

describe('in an iframe of another site', () => {
  it('storage blocked: the playground draws its figure, and its theme menu works without storage', async () => {
    errors.length = 0;
    const frame = await hostPage('playground.html', `<iframe src="${repo.url}web/dist/index.html#view=normalizers" width="1150" height="850"></iframe>`);
    expect(await storageIn(frame)).toMatch(/denied/i);
    await figureIn(frame);
    await frame.selectOption('#theme', 'dark');
    await frame.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    expect(errors).toEqual([]);
  });

  it('storage blocked: the widgets of a plain page draw', async () => {
    errors.length = 0;
    const frame = await hostPage('widgets.html', `<iframe src="${repo.url}examples/embed/index.html" width="1150" height="850"></iframe>`);
    await widgetsIn(frame);
    expect(errors).toEqual([]);
  });

  it('sandbox="allow-scripts" (an opaque origin): the playground and a widget page work', async () => {
    errors.length = 0;
    let frame = await hostPage('sandboxed.html', `<iframe sandbox="allow-scripts" src="${repo.url}web/dist/index.html#view=dispersion" width="1150" height="850"></iframe>`);
    expect(await frame.evaluate(() => self.origin)).toBe('null');
    expect(await storageIn(frame)).toMatch(/sandboxed/i);
    await figureIn(frame);
    frame = await hostPage('sandboxed-widgets.html', `<iframe sandbox="allow-scripts" src="${repo.url}examples/embed/index.html" width="1150" height="850"></iframe>`);
    await widgetsIn(frame);
    expect(errors).toEqual([]);
  });

  it('sandbox="allow-scripts" and a server without CORS headers: the playground says why it cannot load', async () => {
    const bare = await serveStatic(ROOT, 0, { cors: false });
    try {
      const frame = await hostPage('sandboxed-no-cors.html', `<iframe sandbox="allow-scripts" src="${bare.url}web/dist/index.html" width="1150" height="850"></iframe>`);
      await frame.waitForSelector('#boot-error', { timeout: 30000 });
      const text = await frame.textContent('#boot-error');
      expect(text).toContain('sandboxed');
      expect(text).toContain('Access-Control-Allow-Origin');
    } finally {
      await bare.close();
    }
  });
});

describe('the embed files from another origin', () => {
  it('a page loads the embed script of the `make dist` folder from another server: it gets CORS headers and the widget draws', async () => {
    errors.length = 0;
    const served = [];
    const onResponse = (r) => { if (r.url().startsWith(dist.url)) served.push([r.url(), r.headers()['access-control-allow-origin']]); };
    page.on('response', onResponse);
    writeFileSync(join(hostDir, 'cross-origin.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>
      <link rel="icon" href="data:,"><script type="module" src="${dist.url}embed/embed.js"></script></head>
      <body><softscope-widget view="normalizers" controls="temperature"></softscope-widget></body></html>`);
    await page.goto(`${host.url.replace('127.0.0.1', 'localhost')}cross-origin.html`);
    await page.waitForFunction(() => document.querySelector('softscope-widget')?.complete, null, { timeout: 30000 });
    page.off('response', onResponse);
    expect(served.some(([u]) => u.endsWith('/embed/embed.js'))).toBe(true);
    expect(served.some(([u]) => u.endsWith('.wasm'))).toBe(true);
    for (const [u, acao] of served) expect(acao, u).toBe('*');
    expect(errors).toEqual([]);
  });
});
