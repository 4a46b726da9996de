// The Attention view in a real browser: from a link, every heat map is the
// very picture Node draws for the same state (the same PNG bytes, so exact
// zeros in the zero colour exactly where the package computes a zero
// weight) and its measures are the numbers computed there; hovering a row
// draws that row's weights in every map, and the arrow keys on a focused map
// pick a row (into the link); post-softmax quantization shows the package's
// quantized rows; at sequence length 256 a slider move redraws the maps the
// package computes (the time of a move is printed, not asserted); nothing
// logs an error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { parse } from '../../wasm/state/schema.js';
import { renderFigure } from '../../wasm/views/files.js';
import { attention as view } from '../../wasm/views/attention/index.js';
import { openPlayground, pageState, figureValues, autoBuild } from './open-playground.js';

let pw, server, page, pageErrors, ss;

beforeAll(async () => {
  pw = await openPlayground({ width: 1280, height: 1400 });
  ({ server, page, errors: pageErrors } = pw);
  ss = await createSoftscope({ impl: await autoBuild(page) }); // the build the page runs
});

afterAll(async () => {
  await pw?.close();
});

// The page's link, its state, and what Node computes and draws for it.
async function node() {
  const st = await pageState(page);
  const { state } = parse(view.schema, Object.entries(st), ss, { ignore: ['view'] });
  const r = renderFigure(ss, 'attention', new URLSearchParams(st).toString());
  const images = Object.fromEntries([...r.svg.matchAll(/<image href="([^"]*)"[^>]*data-map-image="([^"]*)"/g)].map((m) => [m[2], m[1]]));
  return { st, state, data: r.data, images };
}

const pageImage = (id) => page.getAttribute(`[data-view-figure] [data-map-image="${id}"]`, 'href');

async function sameMaps(want) {
  for (const p of want.data.panels) {
    expect(await pageImage(p.id) === want.images[p.id], `${p.id}: the page's map is Node's`).toBe(true);
    const shown = await figureValues(page, `[data-map="${p.id}"] [data-metric]`);
    expect(shown, p.id).toEqual([p.mean.entropy, p.mean.zeros, p.mean.max, p.mean.sink, p.tv, p.outErr, ...Object.values(p.head)].map(String));
  }
}

describe('attention view in Chromium', () => {
  it('draws each map as Node does, zeros where the package has zeros, with the measures it computes', async () => {
    await page.goto(`${server.url}#view=attention&example=copy&n=40&normalizers=softmax,sparsemax&linear=galerkin`);
    await page.waitForSelector('[data-view-figure] [data-map-image="galerkin"]');
    const want = await node();
    expect(want.data.panels.map((p) => p.id)).toEqual(['softmax', 'sparsemax', 'galerkin']);
    await sameMaps(want);
    const sparse = want.data.panels[1];
    expect(Number(await page.getAttribute('[data-view-figure] [data-map="sparsemax"]', 'data-zeros'))).toBe(sparse.A.filter((x) => x === 0).length);
    expect(sparse.A.filter((x) => x === 0).length).toBeGreaterThan(want.data.n * want.data.m / 2); // sparsemax is sparse
  });

  it('hovering a row draws its weights in every map', async () => {
    const { data } = await node();
    const map = page.locator('[data-view-figure] [data-map="softmax"] rect[style]');
    await map.scrollIntoViewIfNeeded();
    const box = await map.boundingBox();
    const row = 30;
    await page.mouse.move(box.x + box.width / 2, box.y + ((row + 0.5) / data.n) * box.height);
    await page.waitForSelector(`[data-view-figure] [data-row="${row}"]`);
    for (const p of data.panels) {
      const bars = (await figureValues(page, `[data-row-of="${p.id}"] [data-index]`)).map(Number);
      expect(bars, p.id).toEqual(p.A.slice(row * data.m, (row + 1) * data.m));
    }
  });

  it('the arrow keys on a focused map pick a row, into the link', async () => {
    await page.mouse.move(0, 0);
    await page.waitForSelector('[data-view-figure] [data-row-hint]');
    await page.focus('[data-view-figure] [data-map="sparsemax"] [tabindex="0"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('[data-view-figure] [data-row="1"]');
    const { st, data } = await node();
    expect(st.row).toBe('1');
    const bars = (await figureValues(page, '[data-row-of="sparsemax"] [data-index]')).map(Number);
    expect(bars).toEqual(data.panels[1].A.slice(data.m, 2 * data.m));
    expect(await page.textContent('[data-row-status]')).toContain('Row 1');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-view-figure] [data-row-hint]');
  });

  it('post-softmax quantization shows the quantized rows', async () => {
    await page.selectOption('#attn-quant', 'pow2');
    await page.fill('#attn-pow2-bits-step', '2');
    await page.press('#attn-pow2-bits-step', 'Enter');
    await page.waitForFunction(() => /pow2\.bits=2/.test(location.hash));
    const want = await node();
    expect(want.st.quant).toBe('pow2');
    expect(want.state.quant_params).toEqual({ 'pow2.bits': 2 });
    await sameMaps(want);
    expect(want.data.panels[0].A.some((x) => x === 0)).toBe(true); // 2-bit pow2 rounds weights below max / 8 to 0
    expect(Number(await page.getAttribute('[data-view-figure] [data-map="softmax"]', 'data-zeros'))).toBeGreaterThan(0);
  });

  it('stays interactive at sequence length 256', async () => {
    await page.goto(`${server.url}#view=attention&example=random&n=256&normalizers=softmax,sparsemax,entmax_bisect`);
    await page.waitForSelector('[data-view-figure] [data-map-image="entmax_bisect"]');
    await page.mouse.move(0, 0); // no row hovered
    // the work of one move: input event -> compute, render (the maps drawn)
    // -> the next task; then wait for a frame before the next move
    const work = await page.evaluate(async () => {
      const input = document.querySelector('#attn-scale');
      const out = [];
      for (let i = 0; i < 12; i++) {
        const t0 = performance.now();
        input.value = String(400 + 40 * i);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 0));
        out.push(performance.now() - t0);
        await new Promise((r) => requestAnimationFrame(() => r()));
      }
      return out.slice(2).sort((a, b) => a - b); // the first two warm the JIT up
    });
    console.log(`attention view at n = 256, 3 normalizers: a scale move takes ${work[work.length >> 1].toFixed(1)} ms (median; max ${work[work.length - 1].toFixed(1)} ms; one frame is 16.7 ms)`);
    await sameMaps(await node());
    expect(pageErrors).toEqual([]);
  });
});
