#!/usr/bin/env node
// Screenshot of the built playground (web/dist) for a given hash:
//   node tests/browser/screenshot.js out.png '#logits=...&normalizers=softmax'
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../scripts/static-server.js';
import { launchChromium } from './chromium.js';

const [out = 'build/playground.png', hash = '', width = '1280', height = '1000'] = process.argv.slice(2);
const server = await serveStatic(fileURLToPath(new URL('../../web/dist', import.meta.url)));
const b = await launchChromium({ width: Number(width), height: Number(height) });
try {
  b.page.on('pageerror', (e) => console.error('pageerror:', e.message));
  b.page.on('console', (m) => { if (m.type() === 'error') console.error('console:', m.text()); });
  await b.page.goto(server.url + hash);
  await b.page.waitForSelector('[data-view-figure] svg, .error', { timeout: 20000 });
  await b.page.waitForTimeout(1500); // let an incremental sweep finish
  await b.page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await b.close();
  await server.close();
}
