#!/usr/bin/env node
// Screenshots of the three hosts that embed softscope widgets (a plain page,
// the VitePress docs site, the reveal.js deck on its second slide), once every
// widget has rendered: build/screenshots/{embed,docs,slides}.png.
//   make screenshots   (builds the embed bundle and the docs example first)
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './static-server.js';
import { launchChromium } from '../tests/browser/chromium.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}/build/screenshots`;
mkdirSync(OUT, { recursive: true });
const repo = await serveStatic(ROOT);
const docs = await serveStatic(`${ROOT}/examples/docs/.vitepress/dist`);
const b = await launchChromium({ width: 1200, height: 900 });
const done = () => b.page.waitForFunction(() => [...document.querySelectorAll('softscope-widget')].every((e) => e.complete), null, { timeout: 30000 });
try {
  for (const [name, url, before] of [
    ['embed', `${repo.url}examples/embed/index.html`],
    ['docs', docs.url],
    ['slides', `${repo.url}examples/slides/index.html`, async () => { await b.page.waitForFunction(() => window.deck?.isReady?.()); await b.page.evaluate(() => window.deck.slide(1)); }],
  ]) {
    await b.page.goto(url);
    if (before) await before();
    await done();
    await b.page.waitForTimeout(name === 'slides' ? 1500 : 300); // a slide's transition
    const file = `${OUT}/${name}.png`;
    await b.page.screenshot({ path: file, fullPage: name !== 'slides' });
    console.log(`wrote ${file}`);
  }
} finally {
  await b.close();
  await repo.close();
  await docs.close();
}
