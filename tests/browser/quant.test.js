// The Quantization tab in a real browser: from a link, the levels drawn over
// the histogram are the distinct dequantized values the package computes in
// Node for the same state, and every number the figure carries is the one
// Node's figure carries (same wasm build); fewer bits from the stepper give
// fewer levels and a larger error; pow2 on an attention row draws only
// powers of two of the max and quantizes after the softmax; and nothing
// logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { parse, toHash } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { quantization } from '../../wasm/views/quantization/index.js';
import { sourceValues, schemeParams, levels } from '../../wasm/views/quantization/model.js';
import { quantMetrics } from '../../wasm/analysis/quant-metrics.js';
import { openPlayground, pageState, figureValues, autoBuild } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1400 });
  ({ server, page, errors: pageErrors } = pw);
});

afterAll(async () => {
  await pw?.close();
});

// What Node computes for the state in the page's address, on the build the page runs.
async function nodeView() {
  ss ??= await createSoftscope({ impl: await autoBuild(page) });
  const { state, notices } = parse(quantization.schema, Object.entries(await pageState(page)), ss, { ignore: ['view'] });
  expect(notices).toEqual([]);
  const k = ss.kernel(state.scheme, 'quantizer');
  const x = sourceValues(ss, state);
  const y = ss.quantize(k.name, x, schemeParams(k, state.params, state.seed)).output;
  return { state, levels: levels(y).filter((l) => !(state.log && state.source !== 'weights') || l.value > 0), metrics: quantMetrics(x, y) };
}
const shown = async () => (await figureValues(page, '[data-level]')).map(Number);

describe('quantization tab in Chromium', () => {
  it('opens from a link and draws the levels and numbers Node computes', async () => {
    await page.goto(`${server.url}#view=quantization&n=512&bits=4&symmetric=1`);
    await page.waitForSelector('[data-view-figure] [data-chart="quant-histogram"]');
    expect(await page.getAttribute('#tab-quantization', 'aria-selected')).toBe('true');
    const v = await nodeView();
    expect(v.state).toMatchObject({ source: 'weights', n: 512, params: { bits: 4, symmetric: 1 } });
    expect(await shown()).toEqual(v.levels.map((l) => l.value));
    expect(v.levels.length).toBeLessThanOrEqual(15); // 4-bit symmetric: codes -7..7
    expect(Number(await page.getAttribute('[data-view-figure] [data-metric="mse"]', 'data-value'))).toBe(v.metrics.mse);
    const node = renderFigure(ss, 'quantization', toHash(quantization.schema, v.state, ss));
    expect(await figureValues(page, '[data-value]')).toEqual([...node.svg.matchAll(/data-value="([^"]*)"/g)].map((m) => m[1]));
  });

  it('fewer bits: fewer levels and a larger error', async () => {
    const before = await nodeView();
    await page.fill('#quant-bits-step', '2');
    await page.press('#quant-bits-step', 'Enter');
    await page.waitForFunction((n) => document.querySelectorAll('[data-view-figure] [data-level]').length < n, before.levels.length);
    const after = await nodeView();
    expect(after.state.params.bits).toBe(2);
    expect(after.levels.length).toBeLessThanOrEqual(3); // ternary
    expect(after.metrics.mse).toBeGreaterThan(before.metrics.mse);
    expect(await shown()).toEqual(after.levels.map((l) => l.value));
  });

  it('pow2 on an attention row: every level is max · 2^-q; the probabilities are quantized after the softmax', async () => {
    await page.goto(`${server.url}#view=quantization&source=attention&scheme=pow2&bits=4`);
    await page.waitForFunction(() => document.querySelector('[data-view-figure] [data-effect]')?.getAttribute('data-effect') === 'post');
    const v = await nodeView();
    const top = Math.max(...v.levels.map((l) => l.value));
    const lv = await shown();
    expect(lv).toEqual(v.levels.map((l) => l.value));
    for (const l of lv) expect(Number.isInteger(Math.log2(top / l))).toBe(true);
    expect(['0', '1']).toContain(await page.getAttribute('[data-view-figure] [data-metric="argmax_kept"]', 'data-value'));
    expect(pageErrors).toEqual([]);
  });
});
