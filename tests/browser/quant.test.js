// The quantization tab in a real browser: from a URL, the levels drawn over
// the histogram are the distinct dequantized values the package computes in
// Node (scalar build) for the same state, and the MSE shown is theirs;
// moving bits re-quantizes (fewer bits, fewer levels, larger error);
// switching the scheme to pow2 draws only exact powers of two of the max;
// and nothing logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/index.js';
import { quantState } from '../../web/src/state/url.js';
import { quantSource, levels, fitParams } from '../../web/src/lib/quantView.js';
import { quantMetrics } from '../../wasm/quant-metrics.js';
import { openPlayground, pageState } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  ss = await createSoftscope({ impl: 'scalar' });
  pw = await openPlayground({ width: 1280, height: 1400 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

// What Node computes for the state in the page's URL.
async function nodeView() {
  const st = await pageState(page);
  const q = quantState(st);
  const k = ss.kernel(q.scheme, 'quantizer');
  const x = quantSource(ss, q.source, q.n, q.seed, st.logits);
  const y = ss.quantize(k.name, x, fitParams(k, st.params, x.length)).output;
  return { q, levels: levels(y).filter((l) => !(q.log && q.source !== 'weights') || l.value > 0), metrics: quantMetrics(x, y) };
}
const shown = () => page.$$eval('[data-level]', (ls) => ls.map((l) => Number(l.dataset.level)));

describe('quantization tab in Chromium', () => {
  it('opens from the URL and draws the levels the package computes', async () => {
    await page.goto(`${server.url}#panel=quantization&quant.source=weights&quant.n=512&bits=4&symmetric=1`);
    await page.waitForSelector('[data-chart="quant-histogram"]');
    expect(await page.getAttribute('#tab-quantization', 'aria-selected')).toBe('true');
    const v = await nodeView();
    expect(v.q.source).toBe('weights');
    expect(await shown()).toEqual(v.levels.map((l) => Math.fround(l.value)));
    expect(v.levels.length).toBeLessThanOrEqual(15); // 4-bit symmetric: codes -7..7
    const mse = Number((await page.textContent('[data-metric="mse"]')).replace('−', '-'));
    expect(Math.abs(mse - v.metrics.mse)).toBeLessThanOrEqual(5e-4 * v.metrics.mse); // shown to 4 significant digits
  });

  it('fewer bits: fewer levels and a larger error', async () => {
    const before = await nodeView();
    await page.fill('#quant-bits-step', '2');
    await page.press('#quant-bits-step', 'Enter');
    await page.waitForFunction((n) => document.querySelectorAll('[data-level]').length < n, before.levels.length);
    const after = await nodeView();
    expect(after.levels.length).toBeLessThanOrEqual(3); // ternary
    expect(after.metrics.mse).toBeGreaterThan(before.metrics.mse);
    expect(await shown()).toEqual(after.levels.map((l) => Math.fround(l.value)));
  });

  it('pow2 on an attention row: every level is max * 2^-q (or 0)', async () => {
    await page.goto(`${server.url}#panel=quantization&quant.source=attention&quant.scheme=pow2&bits=4`);
    await page.waitForSelector('[data-level]', { state: 'attached' });
    const v = await nodeView();
    const top = Math.max(...v.levels.map((l) => l.value));
    for (const l of await shown()) expect(Number.isInteger(Math.log2(top / l))).toBe(true);
    expect(await page.$eval('[data-effect]', (e) => e.dataset.effect)).toBe('post');
    expect(['kept', 'changed']).toContain(await page.textContent('[data-metric="argmax_kept"]'));
    expect(pageErrors).toEqual([]);
  });
});
