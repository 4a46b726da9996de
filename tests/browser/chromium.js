// Launches the system Chromium through playwright-core with a fresh profile.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIMD_PROBE, RELAXED_PROBE } from '../../wasm/api/simd-detect.js';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Resolves to { context, page, close() }; args: more command-line flags (the benchmark's --js-flags). */
export async function launchChromium({ width = 1280, height = 1000, args = [] } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'softscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...args],
    viewport: { width, height },
  });
  const page = context.pages()[0] || (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The build createSoftscope({ impl: 'auto' }) loads in this page's engine
 *  (the playground's and the widgets'; Chromium validates relaxed SIMD), so
 *  that Node can load the same one and compare numbers exactly. */
export async function autoBuild(page) {
  const [simd, relaxed] = await page.evaluate((probes) => probes.map((p) => WebAssembly.validate(new Uint8Array(p))),
    [[...SIMD_PROBE], [...RELAXED_PROBE]]);
  return simd && relaxed ? 'relaxed' : simd ? 'simd' : 'scalar';
}

/** The page's uncaught errors and console errors as they come (an array that fills up). */
export function pageErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  return errors;
}
